package ref

import (
	"slices"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// The fences between a UMR (or local invalidate) and the WQEs after it on
// its send queue (prm.MayPass; issue 37 part 2). A WQE that may start
// before the UMR completes may translate with the old mapping or the new:
// the model gives the scenario order's outcome (the new) and, when the old
// differs, lists it in the result's AlsoLegal.
//
// The window: a WQE L may see the state before registration U when U is
// the last registration before L, it took effect (a refused one changes
// nothing), it is on L's queue, every operation between them is a WQE of
// that queue that may pass U too, and L may pass U. Any other operation
// closes the window: the scenario's order across queues and around
// commands stands.

// passWindow is the registration later WQEs may still overtake.
type passWindow struct {
	open bool
	qpn  uint32
	mode prm.FenceMode // the registration's
	undo undo
}

// undo is what a registration changed: the context of index before it,
// and the list bytes at addr before it (none when it wrote no list).
type undo struct {
	index uint32
	mkc   prm.MKC
	addr  uint64
	list  []byte
}

// fenceOf is the fence mode of WQE op: its own, or the one the Linux
// driver posts (prm.KernelUMRFence on a registration, KernelNextFence on
// another WQE); it records whether op is a registration, for the next
// WQE of its queue.
func (m *Model) fenceOf(op *scenario.Op) prm.FenceMode {
	qpn := op.QP()
	after := m.afterReg.len() > 0 && m.afterReg.get(qpn) != nil
	mode := op.FenceMode(m.cfg.UMRFence, after)
	m.cfg.Coverage.Hit(cover.FenceModeID(mode))
	// afterReg holds only the queues whose last WQE was a registration:
	// an access costs no lookup while none is.
	switch {
	case op.IsRegistration() && !after:
		m.afterReg.put(qpn, true)
	case !op.IsRegistration() && after:
		m.afterReg.del(qpn)
	}
	return mode
}

// saveUndo records what registration op would change, before it runs.
func (m *Model) saveUndo(op *scenario.Op) (undo, bool) {
	key := op.Key
	if op.Kind == scenario.OpUMR {
		key = op.UMR.Key
	}
	o := m.objs.get(key.Index())
	if o == nil {
		return undo{}, false
	}
	u := undo{index: key.Index(), mkc: o.MKC}
	if op.Kind == scenario.OpUMR && (len(op.UMR.MTT) > 0 || len(op.UMR.KLM) > 0) {
		u.addr = o.MKC.MTTHandle + op.UMR.Offset*16
		u.list = make([]byte, umrListBytes(op.UMR))
		m.icm.Read(u.addr, u.list)
	}
	return u, true
}

// swap exchanges the model's state with the undo record's: called twice,
// it leaves the model as it was.
func (m *Model) swap(u *undo) {
	o := m.objs.get(u.index)
	o.MKC, u.mkc = u.mkc, o.MKC
	if len(u.list) > 0 {
		cur := make([]byte, len(u.list))
		m.icm.Read(u.addr, cur)
		m.icm.Write(u.addr, u.list)
		u.list = cur
	}
}

// order runs the fence rules ahead of operation op: it returns the
// registration op may overtake (nil if none; op then closes the window)
// and, for a registration, what it would change (ok false when its key
// has no object: it will be refused).
func (m *Model) order(op *scenario.Op) (pass *undo, reg undo, ok bool) {
	if !op.IsWQE() {
		m.pass.open = false
		return nil, undo{}, false
	}
	mode := m.fenceOf(op)
	if op.IsRegistration() {
		m.pass = passWindow{qpn: op.QP(), mode: mode}
		if !m.cfg.UMRFence.Orders(mode) {
			m.cfg.Coverage.Hit(cover.FenceUnordered)
		}
		reg, ok = m.saveUndo(op)
		return nil, reg, ok
	}
	w := &m.pass
	if !w.open || w.qpn != op.Access.QPN || !prm.MayPass(mode, w.mode) {
		w.open = false
		return nil, undo{}, false
	}
	m.cfg.Coverage.Hit(cover.FencePass)
	return &w.undo, undo{}, false
}

// registered opens the window of the registration that just took effect
// (u: what it changed), unless its mode holds every later WQE.
func (m *Model) registered(u undo) {
	if m.pass.mode != prm.FenceStrongOrdering {
		m.pass.open, m.pass.undo = true, u
	}
}

// alsoLegal adds to the access result res the outcome of op translated
// before the registration u took effect, when it differs.
func (m *Model) alsoLegal(op *scenario.Op, u *undo, res *scenario.Result) {
	m.swap(u)
	o := m.Translate(Request(op.Access), nil)
	m.swap(u)
	alt := scenario.Result{Seq: res.Seq, Op: scenario.OpAccess}
	setOutcome(&alt, o)
	if scenario.Diff(&alt, res) != "" {
		res.AlsoLegal = append(res.AlsoLegal[:0], alt)
	}
}

// Chose tells the model that access seq had the outcome o, one of its
// result's AlsoLegal, instead of the scenario order's: a fault it did not
// take is forgotten, one it took instead stalls it (for a later
// PAGE_FAULT_RESUME).
func (m *Model) Chose(seq int, req Request, o Outcome) {
	m.Unstall(seq)
	if o.Status == prm.PageFault {
		o.Segments = nil
		m.stalled = append(m.stalled, stalled{seq: seq, req: req, outcome: o})
		sortStalled(m.stalled)
	}
}

// OutcomeOf is the outcome an access result line carries.
func OutcomeOf(r *scenario.Result) Outcome {
	return Outcome{Status: r.Status, Segments: slices.Clone(r.Segments), Level: r.Level, Offset: r.Offset,
		FaultKey: r.FaultKey, FaultAddr: r.FaultAddr}
}
