package rtl

// This file is the ingress: operations enter here, an access into the
// pipeline as its level-0 piece with a reorder-buffer entry, a command to
// the command path.

import (
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/scenario"
)

// ingress issues the next operation: an access into the pipeline, or a
// command to the command path.
func (t *Top) ingress(now uint64) {
	if !t.In.Valid() {
		return
	}
	op := *t.In.Peek()
	if op.Op.Kind != scenario.OpAccess {
		t.In.Pop()
		t.cur, t.cmd = op, cmdDrain
		t.curRes = scenario.Result{Seq: op.Seq, Op: op.Op.Kind}
		return
	}
	if t.issue(op.Seq, &op.Op.Access, false, now) {
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
	tag := (t.head + t.count) % len(t.rob)
	e := &t.rob[tag]
	*e = robEntry{used: true, seq: seq, acc: *a, start: now, resume: resume, segs: e.segs[:0], cutAt: ^uint64(0), gen: e.gen + 1}
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
