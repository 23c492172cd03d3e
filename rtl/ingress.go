package rtl

// This file is the ingress: operations enter here, an access into the
// pipeline as its level-0 piece with a reorder-buffer entry, a command to
// the command path.

import (
	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/scenario"
)

// ingress issues the next operation: an access into the pipeline, or a
// command to the command path.
//
// While a command runs (busy), only a WQE that may overtake it enters
// (fence.go).
func (t *Top) ingress(now uint64) {
	if !t.In.Valid() {
		return
	}
	busy := t.cmd.state != cmdIdle
	op := *t.In.Peek()
	if busy && !op.SQ && !t.mayPass(op.Op) {
		return
	}
	var sqQP uint32
	if op.SQ {
		// The operation is the next WQE of its QP's send queue.
		sqQP = op.Op.QP()
		q := t.sq.buf[sqQP]
		if len(q) == 0 {
			return
		}
		// Decoded once: an access that waits for the reorder buffer is
		// looked at again next cycle.
		if t.sq.dec.op == nil || t.sq.dec.seq != op.Seq {
			t.sq.dec.seq = op.Seq
			t.sq.dec.op, t.sq.dec.bad = t.wqeOp(&q[0])
			t.sq.start(op.Seq, &q[0])
		}
		sqOp, bad := t.sq.dec.op, t.sq.dec.bad
		if busy && (bad != "" || !t.mayPass(sqOp)) {
			return
		}
		if bad != "" {
			// Run as the command the host meant, refused with the reason
			// (an access too: the command path answers it).
			t.sq.take(sqQP)
			t.In.Pop()
			t.cmd.cur, t.cmd.state, t.cmd.bad = op, cmdDrain, bad
			t.cmd.passing, t.cmd.ordered = false, true
			t.cmd.res = scenario.Result{Seq: op.Seq, Op: op.Op.Kind}
			t.log.Error("send queue", "seq", op.Seq, "error", bad)
			return
		}
		op.Op = sqOp
	}
	if op.Recv {
		t.sq.recv(op.Seq, op.Op)
	}
	if op.Op.Kind != scenario.OpAccess {
		if op.SQ {
			t.sq.take(sqQP)
		}
		t.In.Pop()
		t.coverFence(op.Op)
		t.startOrder(op.Op)
		t.posted(op.Op)
		t.cmd.cur, t.cmd.state, t.cmd.bad = op, cmdDrain, ""
		t.cmd.res = scenario.Result{Seq: op.Seq, Op: op.Op.Kind}
		return
	}
	if t.issue(op.Seq, &op.Op.Access, false, now) {
		if op.SQ {
			t.sq.take(sqQP)
		}
		t.In.Pop()
		t.coverFence(op.Op)
		if len(t.afterReg) > 0 { // else posted has nothing to do for an access
			t.posted(op.Op)
		}
		if busy {
			t.cmd.overtakers++
			t.cov.Hit(cover.FencePass)
		}
	}
}

// issue allocates a ROB entry for an access and sends its level-0 piece.
func (t *Top) issue(seq int, a *scenario.Access, resume bool, now uint64) bool {
	if t.rob.full() {
		return false
	}
	zero := a.Len == 0
	if !zero && !t.toCache.Ready() {
		return false
	}
	qp, ok := t.fw.qps[a.QPN]
	e, tag := t.rob.alloc(seq, a, resume, now)
	switch {
	case zero:
	case !ok:
		e.add(&bus.Outcome{Tag: tag, Len: uint64(a.Len), Status: prm.BadParam})
	default:
		t.toCache.Push(bus.Piece{Tag: tag, Gen: e.gen, Type: a.Type, Key: a.Key, Addr: a.Addr, Len: uint64(a.Len),
			QPN: a.QPN, PD: qp.PD})
	}
	t.rob.noteDone(e)
	return true
}
