package rtl

// This file is the fences between a UMR (or local invalidate) and the
// WQEs of its send queue (prm.MayPass; issue 37 part 2), applied where
// work requests enter the model, in posting order:
//
//   - A registration waits, in the command path's DRAIN, for the work
//     before it: until it has retired when its mode orders it on this
//     device (prm.UMRFenceCap.Orders), else only until every request
//     before it is translated (their data may still be moving: a UMR never
//     changes a translation in progress). Its result leaves after theirs.
//   - While it drains and the firmware works (DRAIN, and EXEC until the
//     command latency ends), the next operations enter the pipeline for as
//     long as each is a WQE of the registration's queue whose mode may pass
//     it: they overtake it. The first that may not waits, and the rest
//     behind it, as before.
//   - Once the latency ends, nothing more enters; the firmware takes
//     effect when every overtaking request is translated (so each of them
//     saw the old mapping: sq.overtaken counts them), and they retire
//     after the command's result.

import (
	"slices"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// FenceStats counts the fences' work, under the group sq (the send
// queues' ordering; the send-queue front's own counters are there too).
type FenceStats struct {
	Overtaken uint64 `counter:"overtaken" unit:"WQEs" help:"work requests that started before a UMR or local invalidate posted earlier on their send queue took effect, as their fence modes allowed (prm.MayPass: the WQE's mode without the initiator small fence, the UMR's not STRONG_ORDERING): each was translated with the mapping before the UMR (the golden model's also_legal outcome when it differs)"`
}

// fenceOf is the fence mode of WQE op: its own (a scenario's, or the
// WQE's control segment through the host front), else the one the Linux
// driver posts for the device (prm.KernelUMRFence, KernelNextFence).
func (t *Top) fenceOf(op *scenario.Op) prm.FenceMode {
	return op.FenceMode(t.fenceCap, len(t.afterReg) > 0 && t.afterReg[op.QP()])
}

// posted notes that WQE op entered the model: the next WQE of its queue
// follows a registration or not. afterReg holds only the queues whose
// last WQE was a registration, so that an access costs no lookup while
// none is.
func (t *Top) posted(op *scenario.Op) {
	switch {
	case op.IsRegistration():
		t.afterReg[op.QP()] = true
	case len(t.afterReg) > 0 && op.IsWQE():
		delete(t.afterReg, op.QP())
	}
}

// coverFence hits the coverage point of WQE op's fence mode, as it
// enters (before posted notes it).
func (t *Top) coverFence(op *scenario.Op) {
	if t.cov != nil && op.IsWQE() {
		t.cov.Hit(cover.FenceModeID(t.fenceOf(op)))
	}
}

// startOrder sets the command path's fence state for command op, which
// is entering it.
func (t *Top) startOrder(op *scenario.Op) {
	c := &t.cmd
	c.overtakers, c.passing, c.ordered = 0, false, true
	if op.IsRegistration() {
		c.mode = t.fenceOf(op)
		c.passQP = op.QP()
		c.passing = c.mode != prm.FenceStrongOrdering
		c.ordered = t.fenceCap.Orders(c.mode)
		if !c.ordered {
			t.cov.Hit(cover.FenceUnordered)
		}
	}
}

// open reports whether an operation may enter the pipeline past the
// command in progress (it must still be a WQE that may pass: mayPass).
func (t *Top) open(now uint64) bool {
	c := &t.cmd
	return c.passing && (c.state == cmdDrain || c.state == cmdExec && now < c.wait)
}

// mayPass reports whether op may overtake the registration in progress.
func (t *Top) mayPass(op *scenario.Op) bool {
	if op.Kind != scenario.OpAccess || !op.IsWQE() || op.QP() != t.cmd.passQP || !t.cmd.passing {
		return false
	}
	if !prm.MayPass(t.fenceOf(op), t.cmd.mode) {
		t.cov.Hit(cover.FenceHeld)
		return false
	}
	return true
}

// older is how many requests in the reorder buffer came before the
// command in progress.
func (t *Top) older() int { return t.rob.count - t.cmd.overtakers }

// drained reports whether the command in progress may go on to the
// firmware: the requests before it retired, or, for a registration its
// mode does not order, translated.
func (t *Top) drained() bool {
	n := t.older()
	return n == 0 || !t.cmd.ordered && t.rob.allDone(0, n)
}

// overtakersDone reports whether every request that overtook the command
// in progress is translated.
func (t *Top) overtakersDone() bool {
	return t.rob.allDone(t.older(), t.cmd.overtakers)
}

// heldBehind reports whether request e must wait for the command in
// progress before it retires: it overtook it.
func (t *Top) heldBehind(e *robEntry) bool {
	return t.cmd.overtakers > 0 && e.seq > t.cmd.cur.Seq
}

// allDone reports whether the n requests from the k-th oldest on are
// translated.
func (r *rob) allDone(k, n int) bool {
	for i := k; i < k+n; i++ {
		if !r.entries[(r.head+i)%len(r.entries)].done() {
			return false
		}
	}
	return true
}

// Counters lists the top's counters: core's, then the fences' (under sq),
// then the firmware's pages (group pages, pages.go).
func (t *Top) Counters() []sim.Counter {
	return slices.Concat(t.CounterSet.Counters(), sim.CountersOf("sq", &t.fence), sim.CountersOf("pages", &t.fw.pg.stats))
}

// CounterWords returns the words of the counters the waveform shows, in
// the order of Counters.
func (t *Top) CounterWords() [][]uint64 {
	return slices.Concat(t.CounterSet.CounterWords(), sim.WordsOf(&t.fence), sim.WordsOf(&t.fw.pg.stats))
}
