// Command libmkeysim is the golden model as a C library: built with
// go build -buildmode=c-shared, it exports the calls of cosim/mkeysim.h
// over package live. Its one piece of state is the instance registry a
// C caller names by handles; every call holds one lock, so callers may
// use any threads.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/..
#define MKEYSIM_IN
#include "mkeysim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"

	"mkeysim/live"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/vectors"
)

func main() {}

// lib is the library's state: the registry and the last error message.
var lib struct {
	sync.Mutex
	reg     *live.Registry
	lastErr string
}

func init() { lib.reg = live.NewRegistry() }

// The C types, named for the tests (a _test file cannot import "C").
type (
	cHandle = C.mkeysim_handle
	cI32    = C.int32_t
	cU32    = C.uint32_t
	cU64    = C.uint64_t
	cI64    = C.int64_t
	cSize   = C.size_t
	cU8     = C.uint8_t
	cResult = C.mkeysim_result
	cSeg    = C.mkeysim_segment
	cMTT    = C.mkeysim_mtt_step_result
	cKLM    = C.mkeysim_klm_step_result
	cCache  = C.mkeysim_cache_result
)

// fail records err and returns its error code.
func fail(call string, err error) C.int32_t {
	lib.lastErr = call + ": " + err.Error()
	switch {
	case errors.Is(err, live.ErrHandle):
		return C.MKEYSIM_ERR_HANDLE
	case errors.Is(err, vectors.ErrUnobservable):
		return C.MKEYSIM_ERR_UNOBSERVABLE
	}
	return C.MKEYSIM_ERR_ARG
}

// guard turns a panic, which would take the simulator down with it, into
// MKEYSIM_ERR_INTERNAL and a message to report.
// (recover works only in the deferred function itself.)
func guard(call string, rc *C.int32_t) {
	if p := recover(); p != nil {
		*rc = internal(call, p)
	}
}

// guardHandle is guard for the calls that return a handle.
func guardHandle(call string, h *C.mkeysim_handle) {
	if p := recover(); p != nil {
		*h = C.mkeysim_handle(internal(call, p))
	}
}

func internal(call string, p any) C.int32_t {
	lib.lastErr = fmt.Sprintf("%s: internal error, please report: %v", call, p)
	return C.MKEYSIM_ERR_INTERNAL
}

// status returns a command's status, recording a refusal's reason.
func status(call string, r *ref.Refusal) C.int32_t {
	if r == nil {
		return C.MKEYSIM_OK
	}
	if r.Reason != "" {
		lib.lastErr = call + ": " + r.Status.String() + ": " + r.Reason
	}
	return C.int32_t(r.Status)
}

// bytesIn copies n bytes from p (nil if p is NULL and n is 0).
func bytesIn(name string, p *C.uint8_t, n int) ([]byte, error) {
	if p == nil {
		if n != 0 {
			return nil, fmt.Errorf("%s is NULL with %d bytes", name, n)
		}
		return nil, nil
	}
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(p)), n)...), nil
}

// mkcIn copies a 64-byte context image; NULL is an error.
func mkcIn(p *C.uint8_t) ([]byte, error) { return bytesIn("mkc", p, prm.MKCSize) }

// locked runs f under the library's lock: an error becomes its code and
// message, a panic MKEYSIM_ERR_INTERNAL.
func locked(call string, f func() (C.int32_t, error)) (rc C.int32_t) {
	lib.Lock()
	defer lib.Unlock()
	defer guard(call, &rc)
	rc, err := f()
	if err != nil {
		return fail(call, err)
	}
	return rc
}

// onModel is locked for a call on the model instance h.
func onModel(call string, h C.mkeysim_handle, f func(m *live.Model) (C.int32_t, error)) C.int32_t {
	return locked(call, func() (C.int32_t, error) {
		m, err := lib.reg.Model(int64(h))
		if err != nil {
			return 0, err
		}
		return f(m)
	})
}

// newInstance registers what build returns and gives its handle, or the
// error's code.
func newInstance(call string, build func() (any, error)) (h C.mkeysim_handle) {
	lib.Lock()
	defer lib.Unlock()
	defer guardHandle(call, &h)
	x, err := build()
	if err != nil {
		return C.mkeysim_handle(fail(call, err))
	}
	return C.mkeysim_handle(lib.reg.Add(x))
}

// accessType checks a C access type.
func accessType(t C.int32_t) (prm.AccessType, error) {
	if t < 0 || t > C.int32_t(prm.RemoteAtomic) {
		return 0, fmt.Errorf("access_type %d outside 0..%d", t, prm.RemoteAtomic)
	}
	return prm.AccessType(t), nil
}

//export mkeysim_abi_version
func mkeysim_abi_version() C.int32_t { return C.MKEYSIM_ABI_VERSION }

//export mkeysim_new
func mkeysim_new(maxIndirection C.int32_t) C.mkeysim_handle {
	return newInstance("mkeysim_new", func() (any, error) { return live.NewModel(int(maxIndirection)) })
}

//export mkeysim_delete
func mkeysim_delete(h C.mkeysim_handle) C.int32_t {
	return locked("mkeysim_delete", func() (C.int32_t, error) { return 0, lib.reg.Delete(int64(h)) })
}

//export mkeysim_instances
func mkeysim_instances() C.int64_t {
	lib.Lock()
	defer lib.Unlock()
	return C.int64_t(lib.reg.Len())
}

//export mkeysim_heap_bytes
func mkeysim_heap_bytes() C.uint64_t {
	debug.FreeOSMemory() // a collection, and freed pages back to the system
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return C.uint64_t(s.HeapAlloc)
}

//export mkeysim_last_error
func mkeysim_last_error(buf *C.char, n C.size_t) C.size_t {
	lib.Lock()
	defer lib.Unlock()
	msg := lib.lastErr
	if buf != nil && n > 0 {
		out := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
		k := copy(out[:len(out)-1], msg)
		out[k] = 0
	}
	return C.size_t(len(msg))
}

//export mkeysim_add_qp
func mkeysim_add_qp(h C.mkeysim_handle, qpn, pd C.uint32_t, regUMR C.int32_t) C.int32_t {
	return onModel("mkeysim_add_qp", h, func(m *live.Model) (C.int32_t, error) {
		return C.MKEYSIM_OK, m.AddQP(uint32(qpn), uint32(pd), regUMR != 0)
	})
}

//export mkeysim_create
func mkeysim_create(h C.mkeysim_handle, mkc *C.uint8_t, index C.int64_t, odp, pgAccess, listKind C.int32_t,
	list *C.uint8_t, listBytes C.size_t, indexOut *C.uint32_t) C.int32_t {
	const call = "mkeysim_create"
	return onModel(call, h, func(m *live.Model) (C.int32_t, error) {
		img, err := mkcIn(mkc)
		if err != nil {
			return 0, err
		}
		l, err := bytesIn("list", list, int(listBytes))
		if err != nil {
			return 0, err
		}
		i, r, err := m.Create(img, int64(index), odp != 0, pgAccess != 0, live.ListKind(listKind), l)
		if err != nil {
			return 0, err
		}
		if r == nil && indexOut != nil {
			*indexOut = C.uint32_t(i)
		}
		return status(call, r), nil
	})
}

//export mkeysim_load
func mkeysim_load(h C.mkeysim_handle, index C.uint32_t, mkc *C.uint8_t, odp C.int32_t) C.int32_t {
	return onModel("mkeysim_load", h, func(m *live.Model) (C.int32_t, error) {
		img, err := mkcIn(mkc)
		if err != nil {
			return 0, err
		}
		return C.MKEYSIM_OK, m.Load(uint32(index), img, odp != 0)
	})
}

//export mkeysim_destroy
func mkeysim_destroy(h C.mkeysim_handle, index C.uint32_t) C.int32_t {
	return onModel("mkeysim_destroy", h, func(m *live.Model) (C.int32_t, error) {
		return status("mkeysim_destroy", m.Destroy(uint32(index))), nil
	})
}

//export mkeysim_query
func mkeysim_query(h C.mkeysim_handle, index C.uint32_t, mkcOut *C.uint8_t, odpOut *C.int32_t) C.int32_t {
	return onModel("mkeysim_query", h, func(m *live.Model) (C.int32_t, error) {
		img, odp, r := m.Query(uint32(index))
		if r != nil {
			return status("mkeysim_query", r), nil
		}
		if mkcOut != nil {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(mkcOut)), prm.MKCSize), img[:])
		}
		if odpOut != nil {
			*odpOut = C.int32_t(b2i(odp))
		}
		return C.MKEYSIM_OK, nil
	})
}

//export mkeysim_umr
func mkeysim_umr(h C.mkeysim_handle, qpn, key C.uint32_t, checkFree C.int32_t, mask C.uint64_t, mkc *C.uint8_t,
	offset C.uint64_t, listKind C.int32_t, list *C.uint8_t, listBytes C.size_t) C.int32_t {
	const call = "mkeysim_umr"
	return onModel(call, h, func(m *live.Model) (C.int32_t, error) {
		var img []byte
		if mkc != nil {
			img, _ = bytesIn("mkc", mkc, prm.MKCSize)
		}
		l, err := bytesIn("list", list, int(listBytes))
		if err != nil {
			return 0, err
		}
		if checkFree < 0 || checkFree > 2 {
			return 0, fmt.Errorf("check_free %d outside 0..2", checkFree)
		}
		r, err := m.UMR(uint32(qpn), prm.Key(key), uint8(checkFree), uint64(mask), img, uint64(offset), live.ListKind(listKind), l)
		if err != nil {
			return 0, err
		}
		return status(call, r), nil
	})
}

//export mkeysim_local_invalidate
func mkeysim_local_invalidate(h C.mkeysim_handle, qpn, key C.uint32_t) C.int32_t {
	return onModel("mkeysim_local_invalidate", h, func(m *live.Model) (C.int32_t, error) {
		return status("mkeysim_local_invalidate", m.LocalInvalidate(uint32(qpn), prm.Key(key))), nil
	})
}

//export mkeysim_send_with_invalidate
func mkeysim_send_with_invalidate(h C.mkeysim_handle, qpn, key C.uint32_t) C.int32_t {
	return onModel("mkeysim_send_with_invalidate", h, func(m *live.Model) (C.int32_t, error) {
		return status("mkeysim_send_with_invalidate", m.SendWithInvalidate(uint32(qpn), prm.Key(key))), nil
	})
}

//export mkeysim_access
func mkeysim_access(h C.mkeysim_handle, qpn, key C.uint32_t, va C.uint64_t, n C.uint32_t, typ C.int32_t,
	res *C.mkeysim_result, segs *C.mkeysim_segment, maxSegs C.size_t) C.int32_t {
	return onModel("mkeysim_access", h, func(m *live.Model) (C.int32_t, error) {
		if segs == nil && maxSegs != 0 {
			return 0, fmt.Errorf("segs is NULL with max_segs %d", maxSegs)
		}
		at, err := accessType(typ)
		if err != nil {
			return 0, err
		}
		out, err := m.Access(uint32(qpn), prm.Key(key), uint64(va), uint32(n), at)
		if err != nil {
			return 0, err
		}
		if res != nil {
			*res = C.mkeysim_result{status: C.int32_t(out.Status), level: C.int32_t(out.Level), offset: C.uint64_t(out.Offset),
				nseg: C.uint32_t(uint64(len(out.Segments)) + out.SegmentsLeftOut), fault_key: C.uint32_t(out.FaultKey), fault_addr: C.uint64_t(out.FaultAddr)}
		}
		if maxSegs > 0 {
			dst := unsafe.Slice(segs, int(maxSegs))
			for i := range min(len(dst), len(out.Segments)) {
				s := out.Segments[i]
				dst[i] = C.mkeysim_segment{space: C.uint32_t(s.Space), addr: C.uint64_t(s.Addr), len: C.uint64_t(s.Len)}
			}
		}
		return C.int32_t(out.Status), nil
	})
}

//export mkeysim_check
func mkeysim_check(h C.mkeysim_handle, key C.uint32_t, level C.int32_t, va C.uint64_t, n, qpn, pd C.uint32_t, typ C.int32_t) C.int32_t {
	return onModel("mkeysim_check", h, func(m *live.Model) (C.int32_t, error) {
		at, err := accessType(typ)
		if err != nil {
			return 0, err
		}
		st, err := m.Check(prm.Key(key), int(level), uint64(va), uint32(n), uint32(qpn), uint32(pd), at)
		return C.int32_t(st), err
	})
}

//export mkeysim_icm_write
func mkeysim_icm_write(h C.mkeysim_handle, addr C.uint64_t, data *C.uint8_t, n C.size_t) C.int32_t {
	return onModel("mkeysim_icm_write", h, func(m *live.Model) (C.int32_t, error) {
		b, err := bytesIn("data", data, int(n))
		if err != nil {
			return 0, err
		}
		return C.MKEYSIM_OK, m.WriteICM(uint64(addr), b)
	})
}

//export mkeysim_icm_read
func mkeysim_icm_read(h C.mkeysim_handle, addr C.uint64_t, data *C.uint8_t, n C.size_t) C.int32_t {
	return onModel("mkeysim_icm_read", h, func(m *live.Model) (C.int32_t, error) {
		switch {
		case data == nil && n != 0:
			return 0, fmt.Errorf("data is NULL with %d bytes", n)
		case n == 0:
			return C.MKEYSIM_OK, nil
		}
		return C.MKEYSIM_OK, m.ReadICM(uint64(addr), unsafe.Slice((*byte)(unsafe.Pointer(data)), int(n)))
	})
}

//export mkeysim_protcheck
func mkeysim_protcheck(mkc *C.uint8_t, created C.int32_t, key C.uint32_t, level C.int32_t, va C.uint64_t, n, qpn, pd C.uint32_t, typ C.int32_t) C.int32_t {
	return locked("mkeysim_protcheck", func() (C.int32_t, error) {
		var img []byte
		if created != 0 {
			var err error
			if img, err = mkcIn(mkc); err != nil {
				return 0, err
			}
		}
		at, err := accessType(typ)
		if err != nil {
			return 0, err
		}
		st, err := live.Protcheck(img, created != 0, prm.Key(key), int(level), uint64(va), uint32(n), uint32(qpn), uint32(pd), at)
		return C.int32_t(st), err
	})
}

// logSize checks a C log_entity_size before it narrows to 8 bits (the
// unit functions check the range).
func logSize(l C.int32_t) (uint8, error) {
	if l < 0 || l > 63 {
		return 0, fmt.Errorf("log_entity_size %d outside 12..31", l)
	}
	return uint8(l), nil
}

//export mkeysim_mtt_step
func mkeysim_mtt_step(startAddr C.uint64_t, logEntitySize C.int32_t, tos C.uint32_t, mttHandle, va C.uint64_t, n, t C.uint32_t, out *C.mkeysim_mtt_step_result) C.int32_t {
	return locked("mkeysim_mtt_step", func() (C.int32_t, error) {
		log, err := logSize(logEntitySize)
		if err != nil {
			return 0, err
		}
		s, err := live.StepMTT(uint64(startAddr), log, uint32(tos), uint64(mttHandle), uint64(va), uint32(n), uint32(t))
		if err != nil {
			return 0, err
		}
		if out != nil {
			*out = C.mkeysim_mtt_step_result{page_index: C.uint64_t(s.PageIndex), entry_addr: C.uint64_t(s.EntryAddr),
				page_offset: C.uint32_t(s.PageOffset), piece_len: C.uint32_t(s.PieceLen)}
		}
		return C.int32_t(s.Status), nil
	})
}

//export mkeysim_klm_step
func mkeysim_klm_step(fbs, logEntitySize C.int32_t, tos C.uint32_t, d C.uint64_t, n C.uint32_t, entries *C.uint8_t, out *C.mkeysim_klm_step_result) C.int32_t {
	return locked("mkeysim_klm_step", func() (C.int32_t, error) {
		log, err := logSize(logEntitySize)
		if err != nil {
			return 0, err
		}
		e, err := bytesIn("entries", entries, vectors.KLMEntries*prm.KLMEntrySize)
		if err != nil {
			return 0, err
		}
		s, err := live.StepKLM(fbs != 0, log, uint32(tos), uint64(d), uint32(n), e)
		if err != nil {
			return 0, err
		}
		if out != nil {
			*out = C.mkeysim_klm_step_result{entry_index: C.uint32_t(s.EntryIndex), lower_key: C.uint32_t(s.LowerKey),
				lower_addr: C.uint64_t(s.LowerAddr), piece_len: C.uint32_t(s.PieceLen)}
		}
		return C.int32_t(s.Status), nil
	})
}

//export mkeysim_cache_new
func mkeysim_cache_new(sets, ways C.uint32_t, random C.int32_t, prngInit C.uint64_t) C.mkeysim_handle {
	return newInstance("mkeysim_cache_new", func() (any, error) {
		return live.NewCache(int(sets), int(ways), random != 0, uint64(prngInit))
	})
}

//export mkeysim_cache_op
func mkeysim_cache_op(h C.mkeysim_handle, op C.int32_t, index C.uint32_t, out *C.mkeysim_cache_result) C.int32_t {
	return locked("mkeysim_cache_op", func() (C.int32_t, error) {
		c, err := lib.reg.Cache(int64(h))
		if err != nil {
			return 0, err
		}
		if op < 0 || op > 3 {
			return 0, fmt.Errorf("op %d outside 0..3", op)
		}
		r, err := c.Op(uint8(op), uint32(index))
		if err != nil {
			return 0, err
		}
		if out != nil {
			*out = C.mkeysim_cache_result{hit: C.int32_t(b2i(r.Hit)), way: C.uint32_t(r.Way), evict: C.int32_t(b2i(r.Evict)),
				evict_index: C.uint32_t(r.EvictIndex), count: C.uint32_t(r.Count)}
		}
		return 0, nil
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
