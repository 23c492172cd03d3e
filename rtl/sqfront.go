package rtl

// This file turns the work requests the send-queue front (rtl/sq) parsed
// into the operations the model runs: a SEND or RDMA WRITE's gather is a
// LOCAL_READ of its data segment, an RDMA READ's scatter a LOCAL_WRITE;
// a UMR is a umr (its list read under the access mode the key will have
// after it, as the device reads it), a UMR that only frees its key is a
// local_invalidate.

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
	"mkeysim/rtl/sq"
	"mkeysim/scenario"
)

// What the host and the send-queue front agree on (rtl/sq): the doorbell
// register and where each QP's send queue lies, for the testbench's host.
const (
	DoorbellAddr = sq.DoorbellAddr // the device's doorbell register
	SQRing       = sq.SQRing       // basic blocks of every send queue
)

// SQSlotAddr is the host address of basic block index of QP qpn's send
// queue.
func SQSlotAddr(qpn uint32, index uint16) uint64 { return sq.SlotAddr(qpn, index) }

// CQEAddr is the host address of CQE index of QP qpn's completion queue
// (sq.CQRing CQEs, the owner bit flipping each pass).
func CQEAddr(qpn uint32, index uint32) uint64 { return sq.CQEAddr(qpn, index) }

// CQRing is the CQEs of every completion queue.
const CQRing = sq.CQRing

// CQESyndrome is the syndrome of the error CQE of a work request of
// opcode op that ended with status st (sq.Syndrome).
func CQESyndrome(op prm.Opcode, st prm.Status) prm.CQESyndrome { return sq.Syndrome(op, st) }

// wqeOp is the operation of w, or why w cannot be one.
func (t *Top) wqeOp(w *bus.WQE) (*scenario.Op, string) {
	if w.Bad != "" {
		return nil, "WQE: " + w.Bad
	}
	c := &w.Ctrl
	switch c.Opcode {
	case prm.OpSend, prm.OpRDMAWrite, prm.OpRDMARead:
		if n := len(w.Send.Data); n != 1 {
			return nil, fmt.Sprintf("WQE %v at index %d: %d data segments, the model translates one", c.Opcode, c.WQEIndex, n)
		}
		d := &w.Send.Data[0]
		typ := prm.LocalRead
		if c.Opcode == prm.OpRDMARead {
			typ = prm.LocalWrite
		}
		return &scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: c.QPN, Key: prm.Key(d.LKey), Addr: d.Addr, Len: d.ByteCount, Type: typ},
			Fence: c.Fence, HasFence: true}, ""
	case prm.OpUMR:
		if w.UMR.IsLocalInvalidate() {
			return &scenario.Op{Kind: scenario.OpLocalInvalidate, QPN: c.QPN, Key: prm.Key(c.Imm), Fence: c.Fence, HasFence: true}, ""
		}
		u := &w.UMR.UMR
		op := &scenario.UMR{QPN: c.QPN, Key: prm.Key(c.Imm), CheckFree: u.CheckFree, Mask: u.MKeyMask, Image: w.UMR.MKC}
		if u.TranslationOffsetEn {
			op.Offset = u.TranslationOffset
		}
		if len(w.UMR.List) > 0 {
			mode := w.UMR.MKC.AccessMode
			if u.MKeyMask&prm.MaskAccessMode == 0 {
				cur, _ := t.fw.load(op.Key.Index())
				mode = cur.AccessMode
			}
			switch l := w.UMR.List; mode {
			case prm.ModeMTT:
				for i := 0; i+prm.MTTEntrySize <= len(l); i += prm.MTTEntrySize {
					op.MTT = append(op.MTT, prm.DecodeMTTEntry(l[i:]))
				}
			case prm.ModeKLM, prm.ModeFixedBufferSize:
				for i := 0; i+prm.KLMEntrySize <= len(l); i += prm.KLMEntrySize {
					op.KLM = append(op.KLM, prm.DecodeKLMEntry(l[i:]))
				}
			default:
				return nil, fmt.Sprintf("UMR WQE at index %d: a %d-byte list for access mode %v, which reads none", c.WQEIndex, len(l), mode)
			}
		}
		return &scenario.Op{Kind: scenario.OpUMR, UMR: op, Fence: c.Fence, HasFence: true}, ""
	}
	return nil, fmt.Sprintf("WQE at index %d: opcode %v is not one the model runs", c.WQEIndex, c.Opcode)
}

// sqFront is the top's side of the send-queue front (rtl/sq): the WQEs
// it delivered, by send queue, and the ends of the work requests it
// must write completions for.
type sqFront struct {
	from *sim.Chan[bus.WQE]        // the WQEs the front fetched
	to   *sim.Chan[bus.Completion] // the ends of its work requests
	// buf holds, by send queue, the WQEs the front delivered that the
	// input has not asked for yet (the front serves QPs in its own order).
	buf map[uint32][]bus.WQE
	// dec is the operation decoded from the WQE of the operation at the
	// head of the input (seq), or why it could not be (bad).
	dec struct {
		seq int
		op  *scenario.Op
		bad string
	}
	// wqe is, by operation number, the work request each operation from
	// the send queue came as, until its end is queued in ends.
	wqe  map[int]bus.Completion
	ends []bus.Completion
}

// newSQFront makes the top's side of the front on its two channels.
func newSQFront(from *sim.Chan[bus.WQE], to *sim.Chan[bus.Completion]) sqFront {
	return sqFront{from: from, to: to, buf: map[uint32][]bus.WQE{}, wqe: map[int]bus.Completion{}}
}

// accept takes the WQE the front delivers, if any, into its queue's
// buffer.
func (f *sqFront) accept() {
	if f.from.Valid() {
		w := f.from.Peek()
		f.buf[w.SQ] = append(f.buf[w.SQ], *w)
		f.from.Pop()
	}
}

// sendEnd sends the oldest end queued, when the front takes it.
func (f *sqFront) sendEnd() {
	if len(f.ends) > 0 && f.to.Ready() {
		f.to.Push(f.ends[0])
		f.ends = f.ends[1:]
	}
}

// start records that operation seq came as the work request w.
func (f *sqFront) start(seq int, w *bus.WQE) {
	f.wqe[seq] = bus.Completion{QPN: w.Ctrl.QPN, WQEIndex: w.Ctrl.WQEIndex, Opcode: w.Ctrl.Opcode}
}

// recv records that operation seq is a SEND with invalidate from the
// wire, whose end is a receive CQE.
func (f *sqFront) recv(seq int, op *scenario.Op) {
	f.wqe[seq] = bus.Completion{QPN: op.QPN, Recv: true, Key: op.Key}
}

// end queues the end of operation seq, if it came from the send queue,
// with its status: the send-queue front writes its CQE. An access that
// faults is not at its end: it ends when page_fault_resume runs it again.
func (f *sqFront) end(seq int, st prm.Status, n uint32) {
	c, ok := f.wqe[seq]
	if !ok || st == prm.PageFault {
		return
	}
	delete(f.wqe, seq)
	c.Status, c.Bytes = st, n
	f.ends = append(f.ends, c)
}

// take drops the WQE at the head of QP qpn's buffer: its operation
// entered the model.
func (f *sqFront) take(qpn uint32) {
	q := f.buf[qpn]
	q[0] = bus.WQE{}
	if len(q) == 1 {
		delete(f.buf, qpn)
		return
	}
	f.buf[qpn] = q[1:]
}
