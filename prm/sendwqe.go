package prm

import "fmt"

// The send WQEs of the RDMA, atomic and SEND opcodes: which segments
// each opcode carries, and their pack and parse.

// sendLayout says which segments follow the control segment of a send
// opcode, and whether SendWQE lays the opcode out at all.
func sendLayout(op Opcode) (raddr, atomic, ok bool) {
	switch op {
	case OpNOP, OpSend, OpSendImm, OpSendInval:
		return false, false, true
	case OpRDMAWrite, OpRDMAWriteImm, OpRDMARead:
		return true, false, true
	case OpAtomicCS, OpAtomicFA:
		return true, true, true
	}
	return false, false, false
}

// SendWQE is a send-queue WQE of the opcodes NOP, SEND, SEND_IMM,
// SEND_INVAL, RDMA_WRITE, RDMA_WRITE_IMM, RDMA_READ, ATOMIC_CS and
// ATOMIC_FA, laid out as the kernel's handle_qpt_rc builds them:
//
//	00h  control segment; Imm is the immediate, or SEND_INVAL's key
//	10h  RDMA and atomic opcodes: the remote address segment
//	20h  atomic opcodes: the atomic segment
//	...  the data segments, one octoword each
//
// and ds counts all of it. RAddr and Atomic are written only for the
// opcodes that carry them and parse as zero for the others. Masked atomics
// (whose argument segment's size depends on the operand size), BIND_MW and
// UMR are not send WQEs here; inline data segments are not modelled.
// Its length varies with the opcode and the data segments, so it is
// framed by hand; each segment is a field table (CtrlSegLayout,
// RAddrSegLayout, AtomicSegLayout, DataSegLayout).
type SendWQE struct {
	Ctrl   CtrlSeg
	RAddr  RAddrSeg
	Atomic AtomicSeg
	Data   []DataSeg
}

// DS returns the WQE's size in octowords, or a *FieldError for an opcode
// SendWQE does not lay out or more than 63 octowords.
func (w *SendWQE) DS() (uint8, error) {
	raddr, atomic, ok := sendLayout(w.Ctrl.Opcode)
	if !ok {
		return 0, &FieldError{Format: "send WQE", Field: "opcode", Value: uint64(w.Ctrl.Opcode),
			Reason: fmt.Sprintf("%v is not an opcode SendWQE lays out", w.Ctrl.Opcode)}
	}
	return checkDS("send WQE", 1+int(b2u(raddr))+int(b2u(atomic))+len(w.Data))
}

// Put packs w into b[:16 ds], writing the WQE's ds in its control segment
// whatever w.Ctrl holds. It panics if DS reports an error.
func (w *SendWQE) Put(b []byte) {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	b = b[:OctowordSize*int(ds)]
	raddr, atomic, _ := sendLayout(w.Ctrl.Opcode)
	c := w.Ctrl
	c.DS = ds
	c.Put(b)
	off := CtrlSegSize
	if raddr {
		w.RAddr.Put(b[off:])
		off += RAddrSegSize
	}
	if atomic {
		w.Atomic.Put(b[off:])
		off += AtomicSegSize
	}
	for _, d := range w.Data {
		d.Put(b[off:])
		off += DataSegSize
	}
}

// Append appends the WQE to b; it panics if DS reports an error.
func (w *SendWQE) Append(b []byte) []byte {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	n := len(b)
	b = append(b, make([]byte, OctowordSize*int(ds))...)
	w.Put(b[n:])
	return b
}

// ParseSendWQE parses a send WQE of exactly 16 ds bytes, ds read from its
// control segment. An opcode SendWQE does not lay out, a ds too small for
// the opcode's segments and an inline data segment are reported as a
// *FieldError, a reserved fence mode likewise, and set reserved bits as
// one *ReservedBitsError with offsets from the WQE's start; each beside
// the WQE parsed as far as the bytes allow.
func ParseSendWQE(b []byte) (SendWQE, error) {
	const format = "send WQE"
	var w SendWQE
	if len(b) < CtrlSegSize {
		return w, &SizeError{Format: format, Want: CtrlSegSize, Got: len(b)}
	}
	var e wqeErrs
	w.Ctrl = parseCtrl(&e, format, 0, b)
	raddr, atomic, ok := sendLayout(w.Ctrl.Opcode)
	if !ok {
		e.field(&FieldError{Format: format, Field: "opcode", Value: uint64(w.Ctrl.Opcode),
			Reason: fmt.Sprintf("%v is not an opcode SendWQE lays out", w.Ctrl.Opcode)})
		return w, e.err(format)
	}
	fixed := 1 + int(b2u(raddr)) + int(b2u(atomic))
	if int(w.Ctrl.DS) < fixed {
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(w.Ctrl.DS),
			Reason: fmt.Sprintf("%v needs at least %d octowords", w.Ctrl.Opcode, fixed)})
		return w, e.err(format)
	}
	if n := OctowordSize * int(w.Ctrl.DS); len(b) != n {
		return w, &SizeError{Format: format, Want: n, Got: len(b)}
	}
	off := CtrlSegSize
	if raddr {
		parseSeg(RAddrSegLayout, &e, format, b, off, &w.RAddr)
		off += RAddrSegSize
	}
	if atomic {
		parseSeg(AtomicSegLayout, &e, format, b, off, &w.Atomic)
		off += AtomicSegSize
	}
	for i := 0; off < len(b); i, off = i+1, off+DataSegSize {
		var d DataSeg
		parseSeg(DataSegLayout, &e, format, b, off, &d)
		if d.Inline() {
			e.field(&FieldError{Format: format, Field: fmt.Sprintf("data[%d] byte_count", i), Value: uint64(d.ByteCount),
				Reason: "an inline data segment (bit 31), not modelled"})
		}
		w.Data = append(w.Data, d)
	}
	return w, e.err(format)
}
