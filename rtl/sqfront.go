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
		return &scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: c.QPN, Key: prm.Key(d.LKey), Addr: d.Addr, Len: d.ByteCount, Type: typ}}, ""
	case prm.OpUMR:
		if w.UMR.IsLocalInvalidate() {
			return &scenario.Op{Kind: scenario.OpLocalInvalidate, QPN: c.QPN, Key: prm.Key(c.Imm)}, ""
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
		return &scenario.Op{Kind: scenario.OpUMR, UMR: op}, ""
	}
	return nil, fmt.Sprintf("WQE at index %d: opcode %v is not one the model runs", c.WQEIndex, c.Opcode)
}

// sqStart records that operation seq came as the work request w.
func (t *Top) sqStart(seq int, w *bus.WQE) {
	t.sqWQE[seq] = bus.Completion{QPN: w.Ctrl.QPN, WQEIndex: w.Ctrl.WQEIndex, Opcode: w.Ctrl.Opcode}
}

// sqEnd queues the end of operation seq, if it came from the send queue,
// with its status: the send-queue front writes its CQE. An access that
// faults is not at its end: it ends when page_fault_resume runs it again.
func (t *Top) sqEnd(seq int, st prm.Status, n uint32) {
	c, ok := t.sqWQE[seq]
	if !ok || st == prm.PageFault {
		return
	}
	delete(t.sqWQE, seq)
	c.Status, c.Bytes = st, n
	t.sqEnds = append(t.sqEnds, c)
}

// sqTake drops the WQE at the head of QP qpn's buffer: its operation
// entered the model.
func (t *Top) sqTake(qpn uint32) {
	q := t.sqBuf[qpn]
	q[0] = bus.WQE{}
	if len(q) == 1 {
		delete(t.sqBuf, qpn)
		return
	}
	t.sqBuf[qpn] = q[1:]
}
