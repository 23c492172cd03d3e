//go:build cgo

package main

import (
	"strings"
	"testing"

	"mkeysim/prm"
)

// mkc returns a context image for the tests.
func mkcImage(m prm.MKC) []byte { b := m.Bytes(); return b[:] }

// A session of commands through the exported calls: what each returns,
// what the model then translates, and errors that name their argument.
func TestCommandSession(t *testing.T) {
	h := mkeysim_new(-1)
	if h <= 0 {
		t.Fatalf("new: %d %s", h, lastError())
	}
	defer mkeysim_delete(h)
	if st := mkeysim_add_qp(h, 5, 7, 0); st != 0 {
		t.Fatalf("add_qp: %d", st)
	}
	key := prm.MakeKey(3, 0x42)
	obj := prm.MKC{AccessMode: prm.ModeMTT, LR: true, LW: true, RR: true, UMREn: true, QPN: prm.QPNNone, Variant: 0x42, PD: 7,
		StartAddr: 0x10000, Len: 0x3000, LogEntitySize: 12, TranslationsOctwordSize: 4}
	var list []byte
	for i := range 3 {
		list = prm.MTTEntry{PTag: uint64(0xa0000 + i*0x1000)}.Append(list)
	}
	img := mkcImage(obj)
	var idx cU32
	if st := mkeysim_create(h, cbytes(img), 3, 0, 0, 1, cbytes(list), cSize(len(list)), &idx); st != 0 || idx != 3 {
		t.Fatalf("create: status %d index %d %s", st, idx, lastError())
	}
	got := make([]byte, 64)
	var odp cI32 = 9
	if st := mkeysim_query(h, 3, cbytes(got), &odp); st != 0 || odp != 0 {
		t.Fatalf("query: %d odp %d", st, odp)
	}
	want := obj
	want.MTTHandle = 0x1_0000_0000 // the bump allocator's first list
	if w := mkcImage(want); string(got) != string(w) {
		t.Fatalf("query image\n got %x\nwant %x", got, w)
	}
	segs := make([]cSeg, 4)
	var r cResult
	if st := mkeysim_access(h, 5, cU32(key), 0x10ff0, 0x20, 0, &r, &segs[0], 4); st != 0 || r.nseg != 2 {
		t.Fatalf("access: %d nseg %d", st, r.nseg)
	}
	if segs[0].addr != 0xa0ff0 || segs[0].len != 0x10 || segs[1].addr != 0xa1000 || segs[1].len != 0x10 {
		t.Fatalf("access segments %+v", segs[:2])
	}
	if st := mkeysim_access(h, 5, cU32(key), 0x12ff0, 0x20, 0, &r, nil, 0); st != cI32(prm.OutOfRange) || r.offset != 0 || r.level != 0 {
		t.Fatalf("access past the end: %d %+v", st, r)
	}
	if st := mkeysim_check(h, cU32(key), 0, 0x10000, 8, 5, 8, 0); st != cI32(prm.PDMismatch) {
		t.Fatalf("check with another PD: %d", st)
	}
	// A UMR moves the start; the old address is then out of range.
	umr := mkcImage(prm.MKC{StartAddr: 0x20000})
	if st := mkeysim_umr(h, 5, cU32(key), 0, cU64(prm.MaskStartAddr), cbytes(umr), 0, 0, nil, 0); st != 0 {
		t.Fatalf("umr: %d %s", st, lastError())
	}
	if st := mkeysim_access(h, 5, cU32(key), 0x20000, 8, 0, &r, &segs[0], 4); st != 0 || segs[0].addr != 0xa0000 {
		t.Fatalf("access after umr: %d %+v", st, segs[0])
	}
	if st := mkeysim_local_invalidate(h, 5, cU32(key)); st != 0 {
		t.Fatalf("local_invalidate: %d", st)
	}
	if st := mkeysim_access(h, 5, cU32(key), 0x20000, 8, 0, &r, nil, 0); st != cI32(prm.MKeyFree) {
		t.Fatalf("access after invalidate: %d", st)
	}
	// The ICM read port sees the list, entries readable and writable
	// (pg_access 0).
	ent := make([]byte, 8)
	if st := mkeysim_icm_read(h, 0x1_0000_0008, cbytes(ent), 8); st != 0 || string(ent) != string(prm.MTTEntry{PTag: 0xa1000, RdEn: true, WrEn: true}.Append(nil)) {
		t.Fatalf("icm_read: %d %x", st, ent)
	}
	if st := mkeysim_destroy(h, 3); st != 0 {
		t.Fatalf("destroy: %d", st)
	}
	// The destroy gave the list's page back to the host: its bytes are
	// gone (docs/formats.md 1.9).
	if st := mkeysim_icm_read(h, 0x1_0000_0008, cbytes(ent), 8); st != 0 || string(ent) != string(make([]byte, 8)) {
		t.Fatalf("icm_read after destroy: %d %x, want zeros", st, ent)
	}
	if st := mkeysim_query(h, 3, cbytes(got), nil); st != cI32(prm.BadKeyIndex) {
		t.Fatalf("query after destroy: %d", st)
	}
	// A refused CREATE_MKEY says why.
	bad := obj
	bad.LogEntitySize = 11
	if st := mkeysim_create(h, cbytes(mkcImage(bad)), -1, 0, 0, 0, nil, 0, nil); st != cI32(prm.BadParam) || !strings.Contains(lastError(), "log_entity_size 11") {
		t.Fatalf("create with log_entity_size 11: %d %q", st, lastError())
	}
}

// Errors of the calls themselves: negative, nothing changed, and a
// message naming the call, the argument and the value.
func TestCallErrors(t *testing.T) {
	h := mkeysim_new(-1)
	defer mkeysim_delete(h)
	c := mkeysim_cache_new(4, 2, 0, 0)
	defer mkeysim_delete(c)
	img := mkcImage(prm.MKC{LR: true})
	reserved := append([]byte(nil), img...)
	reserved[0] |= 0x01 // a reserved bit of dword 00h
	ents := make([]byte, 64)
	// A KLM list whose lower piece passes 2^64.
	prm.KLMEntry{ByteCount: 0x1000, MKey: prm.MakeKey(1, 0), Address: ^uint64(0) - 15}.Put(ents)
	for _, tc := range []struct {
		name string
		call func() cI32
		want cI32
		msg  string
	}{
		{"unknown handle", func() cI32 { return mkeysim_add_qp(999999, 1, 1, 0) }, -1, "handle 999999"},
		{"cache as model", func() cI32 { return mkeysim_destroy(cHandle(c), 1) }, -1, "not a live model"},
		{"model as cache", func() cI32 { return mkeysim_cache_op(h, 0, 1, nil) }, -1, "not a live cache"},
		{"mkc NULL", func() cI32 { return mkeysim_create(h, nil, -1, 0, 0, 0, nil, 0, nil) }, -2, "mkc is NULL"},
		{"mkc reserved bit", func() cI32 { return mkeysim_create(h, cbytes(reserved), -1, 0, 0, 0, nil, 0, nil) }, -2, "reserved"},
		{"list size", func() cI32 { return mkeysim_create(h, cbytes(img), -1, 0, 0, 1, cbytes(ents[:12]), 12, nil) }, -2, "list_bytes 12"},
		{"list kind", func() cI32 { return mkeysim_create(h, cbytes(img), -1, 0, 0, 7, nil, 0, nil) }, -2, "list_kind 7"},
		{"index", func() cI32 { return mkeysim_create(h, cbytes(img), 1<<24, 0, 0, 0, nil, 0, nil) }, -2, "index 0x1000000"},
		{"access type", func() cI32 { return mkeysim_access(h, 1, 1, 0, 1, 5, nil, nil, 0) }, -2, "access_type 5"},
		{"segs NULL", func() cI32 { return mkeysim_access(h, 1, 1, 0, 1, 0, nil, nil, 3) }, -2, "segs is NULL"},
		{"check_free", func() cI32 { return mkeysim_umr(h, 1, 1, 3, 0, nil, 0, 0, nil, 0) }, -2, "check_free 3"},
		{"protcheck len 0", func() cI32 { return mkeysim_protcheck(cbytes(img), 1, 1, 0, 0, 0, 1, 1, 0) }, -2, "len 0"},
		{"protcheck level", func() cI32 { return mkeysim_protcheck(cbytes(img), 1, 1, 8, 0, 1, 1, 1, 0) }, -2, "level 8"},
		{"mtt log", func() cI32 { return mkeysim_mtt_step(0, 11, 4, 1<<32, 0, 1, 0, nil) }, -2, "log_entity_size 11"},
		{"mtt t", func() cI32 { return mkeysim_mtt_step(0, 12, 4, 1<<32, 0, 8, 8, nil) }, -2, "t 8 not below len 8"},
		{"mtt handle", func() cI32 { return mkeysim_mtt_step(0, 12, 4, 0x1000, 0, 8, 0, nil) }, -2, "mtt_handle"},
		{"klm tos", func() cI32 { return mkeysim_klm_step(0, 12, 8, 0, 1, cbytes(ents), nil) }, -2, "translations_octword_size 8"},
		{"klm entries NULL", func() cI32 { return mkeysim_klm_step(0, 12, 4, 0, 1, nil, nil) }, -2, "entries is NULL"},
		{"klm unobservable", func() cI32 { return mkeysim_klm_step(0, 12, 4, 0, 0x100, cbytes(ents), nil) }, -3, "cannot show"},
		{"cache sets", func() cI32 { return cI32(mkeysim_cache_new(3, 2, 0, 0)) }, -2, "sets 3"},
		{"cache prng", func() cI32 { return cI32(mkeysim_cache_new(4, 2, 1, 0)) }, -2, "prng_init 0"},
		{"cache op", func() cI32 { return mkeysim_cache_op(c, 4, 1, nil) }, -2, "op 4"},
		{"cache index", func() cI32 { return mkeysim_cache_op(c, 0, 1<<24, nil) }, -2, "index 0x1000000"},
		{"max_indirection", func() cI32 { return cI32(mkeysim_new(8)) }, -2, "max_indirection 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.call(); got != tc.want || !strings.Contains(lastError(), tc.msg) {
				t.Errorf("got %d %q, want %d and a message with %q", got, lastError(), tc.want, tc.msg)
			}
		})
	}
	if n := mkeysim_instances(); n != 2 {
		t.Errorf("instances after the failed calls: %d, want 2", n)
	}
}

// A deleted handle is dead, and never names a later instance.
func TestHandlesNotReused(t *testing.T) {
	h := mkeysim_new(-1)
	if st := mkeysim_delete(h); st != 0 {
		t.Fatal(st)
	}
	if st := mkeysim_delete(h); st != -1 {
		t.Fatalf("second delete: %d", st)
	}
	h2 := mkeysim_new(-1)
	defer mkeysim_delete(h2)
	if h2 == h {
		t.Fatalf("handle %d reused", h)
	}
	if st := mkeysim_add_qp(h, 1, 1, 0); st != -1 {
		t.Fatalf("call on a deleted handle: %d", st)
	}
}

// A thousand instances, each filled with keys and lists and run, then
// deleted, leave the library's live heap where it was (measured).
func TestThousandInstancesNoLeak(t *testing.T) {
	base := mkeysim_instances()
	run := func(n int) {
		for range n {
			h := mkeysim_new(-1)
			mkeysim_add_qp(h, 1, 1, 0)
			obj := prm.MKC{AccessMode: prm.ModeMTT, LR: true, LW: true, QPN: prm.QPNNone, PD: 1, Len: 1 << 20, LogEntitySize: 12, TranslationsOctwordSize: 128}
			var list []byte
			for i := range 256 {
				list = prm.MTTEntry{PTag: uint64(i) << 12}.Append(list)
			}
			for k := range 32 {
				obj.Variant = uint8(k)
				mkeysim_create(h, cbytes(mkcImage(obj)), -1, 0, 0, 1, cbytes(list), cSize(len(list)), nil)
				var r cResult
				mkeysim_access(h, 1, cU32(prm.MakeKey(uint32(k), uint8(k))), 0x1234, 0x5000, 0, &r, nil, 0)
			}
			c := mkeysim_cache_new(64, 4, 1, 12345)
			for i := range 512 {
				mkeysim_cache_op(c, cI32(i%2), cU32(i*7), nil)
			}
			mkeysim_delete(c)
			mkeysim_delete(h)
		}
	}
	run(100) // warm up: the runtime's own caches
	before := mkeysim_heap_bytes()
	run(1000)
	after := mkeysim_heap_bytes()
	t.Logf("live heap %d bytes after 100 instances, %d after 1000 more (each 32 keys, 64 KiB of lists, a 256-line cache)", before, after)
	if n := mkeysim_instances(); n != base {
		t.Fatalf("%d instances live, want %d", n, base)
	}
	if after > before+256<<10 {
		t.Fatalf("live heap grew by %d bytes over 1000 instances", after-before)
	}
}

// A panic inside a call comes back as MKEYSIM_ERR_INTERNAL with a
// message, not as the end of the simulator's process.
func TestGuard(t *testing.T) {
	rc := func() (rc cI32) {
		defer guard("mkeysim_test", &rc)
		panic("boom")
	}()
	if rc != -4 || !strings.Contains(lastError(), "mkeysim_test: internal error, please report: boom") {
		t.Fatalf("got %d %q", rc, lastError())
	}
	h := newInstance("mkeysim_test", func() (any, error) { panic("boom") })
	if h != -4 {
		t.Fatalf("handle call: %d", h)
	}
	// Through the path every call takes: the lock is released too.
	if rc := locked("mkeysim_test", func() (cI32, error) { panic("boom") }); rc != -4 {
		t.Fatalf("locked call: %d", rc)
	}
	if n := mkeysim_instances(); n < 0 {
		t.Fatalf("instances after the panics: %d", n)
	}
}
