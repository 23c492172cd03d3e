package rtl

// This file is the ingress: operations enter here, an access into the
// pipeline as its level-0 piece with a reorder-buffer entry, a command to
// the command path.

import (
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// ingress issues the next operation: an access into the pipeline, or a
// command to the command path.
func (t *Top) ingress(now uint64) {
	if !t.In.Valid() {
		return
	}
	op := *t.In.Peek()
	var sqQP uint32
	if op.SQ {
		// The operation is the next WQE of its QP's send queue.
		sqQP = op.Op.QP()
		q := t.sqBuf[sqQP]
		if len(q) == 0 {
			return
		}
		// Decoded once: an access that waits for the reorder buffer is
		// looked at again next cycle.
		if t.sqDec.op == nil || t.sqDec.seq != op.Seq {
			t.sqDec.seq = op.Seq
			t.sqDec.op, t.sqDec.bad = t.wqeOp(&q[0])
			t.sqStart(op.Seq, &q[0])
		}
		sqOp, bad := t.sqDec.op, t.sqDec.bad
		if bad != "" {
			// Run as the command the host meant, refused with the reason
			// (an access too: the command path answers it).
			t.sqTake(sqQP)
			t.In.Pop()
			t.cur, t.cmd, t.curBad = op, cmdDrain, bad
			t.curRes = scenario.Result{Seq: op.Seq, Op: op.Op.Kind}
			t.log.Error("send queue", "seq", op.Seq, "error", bad)
			return
		}
		op.Op = sqOp
	}
	if op.Recv {
		t.sqWQE[op.Seq] = bus.Completion{QPN: op.Op.QPN, Recv: true, Key: op.Op.Key}
	}
	if op.Op.Kind != scenario.OpAccess {
		if op.SQ {
			t.sqTake(sqQP)
		}
		t.In.Pop()
		t.cur, t.cmd, t.curBad = op, cmdDrain, ""
		t.curRes = scenario.Result{Seq: op.Seq, Op: op.Op.Kind}
		return
	}
	if t.issue(op.Seq, &op.Op.Access, false, now) {
		if op.SQ {
			t.sqTake(sqQP)
		}
		t.In.Pop()
	}
}

// issue allocates a ROB entry for an access and sends its level-0 piece.
func (t *Top) issue(seq int, a *scenario.Access, resume bool, now uint64) bool {
	if t.count == len(t.rob) {
		return false
	}
	zero := a.Len == 0
	if !zero && !t.toCache.Ready() {
		return false
	}
	qp, ok := t.fw.qps[a.QPN]
	tag := sim.Wrap(t.head+t.count, len(t.rob))
	e := &t.rob[tag]
	// Field by field: the failure (fail) is read only once failed is
	// set, so the entry's largest field is not cleared for every access.
	e.used, e.seq, e.acc, e.start, e.covered, e.segs = true, seq, *a, now, 0, e.segs[:0]
	e.failed, e.resume, e.gen, e.cutAt, e.cutQueued = false, resume, e.gen+1, ^uint64(0), false
	e.mvSeg, e.moved, e.counted, e.more, e.moreSum, e.keepTo = 0, false, false, 0, 0, 0
	t.count++
	switch {
	case zero:
	case !ok:
		e.add(&bus.Outcome{Tag: uint16(tag), Len: uint64(a.Len), Status: prm.BadParam})
	default:
		t.toCache.Push(bus.Piece{Tag: uint16(tag), Gen: e.gen, Type: a.Type, Key: a.Key, Addr: a.Addr, Len: uint64(a.Len),
			QPN: a.QPN, PD: qp.PD})
	}
	t.noteDone(e)
	return true
}
