package rtl

// This file is the command path: it drains the pipeline before a command
// (scenario order), runs the firmware after its latency, sends the
// invalidations and waits for their acknowledgements, re-runs the accesses
// a PAGE_FAULT_RESUME releases, and sends the command's result.

import (
	"sort"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/scenario"
)

// cmdState is the command path's FSM state.
type cmdState uint8

// The command path's states.
const (
	cmdIdle  cmdState = iota
	cmdDrain          // waiting for earlier accesses to retire
	cmdExec           // firmware working (CmdLatency cycles)
	cmdInval          // waiting for the caches' acknowledgements
	cmdRerun          // page_fault_resume: stalled accesses running again
	cmdDone           // result waiting for the output
	cmdPages          // waiting for the host's answer to a Pages Request Event
)

// cmdPath is the command path's state: the command being run and where
// it is.
type cmdPath struct {
	state  cmdState
	cur    Op
	res    scenario.Result
	bad    string          // the current command's WQE could not be run: why
	wait   uint64          // cycle at which the firmware finishes
	acks   int             // acknowledgements still awaited
	rerun  []stalledAccess // a resume's accesses not yet issued
	nextID uint32          // the last invalidation's ID
	// The fences (fence.go): the registration's mode and queue, whether
	// later WQEs may pass it (passing), whether it waits for the work
	// before it to retire (ordered) or only to be translated, and how many
	// requests entered past it (overtakers, the youngest in the ROB).
	mode       prm.FenceMode
	passQP     uint32
	passing    bool
	ordered    bool
	overtakers int
	after      cmdState // cmdPages: the state the command goes on in
	again      bool     // cmdExec: the command runs again (given the pages it asked)
}

// CmdStateNames names the command path's states for waveforms.
func CmdStateNames() map[uint64]string {
	return map[uint64]string{0: "IDLE", 1: "DRAIN", 2: "EXEC", 3: "INVAL", 4: "RERUN", 5: "DONE", 6: "PAGES"}
}

// command advances the command path.
func (t *Top) command(now uint64) {
	switch t.cmd.state {
	case cmdDrain:
		k := t.cmd.cur.Op.Kind
		overlap := t.cfg.OverlapInvalidate && (k == scenario.OpLocalInvalidate || k == scenario.OpSendWithInvalidate)
		if t.drained() || overlap {
			t.cmd.state, t.cmd.wait = cmdExec, now+uint64(t.cfg.CmdLatency)
		}
	case cmdExec:
		// The command runs when its invalidations can leave at once, and
		// the requests that overtook it are translated (fence.go).
		if now >= t.cmd.wait && t.ctrlCache.Ready() && t.ctrlMTT.Ready() && t.ctrlKLM.Ready() && t.overtakersDone() {
			if !t.cmd.again {
				t.fence.Overtaken += uint64(t.cmd.overtakers)
			}
			t.cmd.again = false
			t.run(now)
		}
	case cmdPages:
		// The host's answer to the Pages Request Event (eq.go).
		if t.eq.answer.Valid() {
			a := *t.eq.answer.Peek()
			t.eq.answer.Pop()
			t.pagesAnswered(&a, now)
		}
	case cmdInval:
		if t.cmd.acks == 0 {
			t.cmd.state = cmdDone
		}
	case cmdRerun:
		t.rerun(now)
	case cmdDone:
		// Its result leaves after those of the requests before it (a
		// registration that waited only for their translations).
		if t.Out.Ready() && (t.older() == 0 || t.cfg.OverlapInvalidate) {
			res := t.cmd.res
			res.Cycle, res.HasCycle = now, true
			t.Out.Push(Result{&res})
			t.sq.end(res.Seq, res.Status, 0)
			t.stats.Commands++
			t.cov.Command(cover.Command(t.cmd.cur.Op.Kind), res.Status)
			t.cmd.state, t.cmd.overtakers, t.cmd.passing = cmdIdle, 0, false
		}
	}
}

// run executes the current command and, when the firmware raised a Pages
// Request Event through the pages event queue, writes the event and
// waits for the host's answer: a create that asked pages runs again
// then, a destroy that gave pages back goes on with its invalidations.
func (t *Top) run(now uint64) {
	pg := t.fw.pg
	pg.deferred = t.eq != nil
	t.execute(now)
	pg.deferred = false
	if n := pg.pending; n != 0 {
		pg.pending = 0
		t.eq.raise(n, now)
		t.cmd.after, t.cmd.state = t.cmd.state, cmdPages
		t.cov.Hit(cover.PagesEventWait)
	}
}

// pagesAnswered applies the host's answer a: pages given (the create runs
// again), refused (the create fails NO_RESOURCES) or taken back (the
// command goes on).
func (t *Top) pagesAnswered(a *bus.PagesAnswer, now uint64) {
	pg := t.fw.pg
	pg.stats.EventWait += now - t.eq.since
	switch {
	case a.Refuse:
		pg.stats.Refused++
		t.cov.Hit(cover.CreateNoPages)
		t.cmd.res.Status, t.cmd.res.Reason = prm.NoResources, a.Reason
		t.cmd.state = cmdDone
	case a.NumPages > 0:
		pg.give(uint64(a.NumPages))
		t.cmd.state, t.cmd.again = cmdExec, true
		t.command(now) // it runs again when its invalidations can leave
	default:
		pg.take(uint64(-a.NumPages))
		t.cmd.state = t.cmd.after
		t.command(now) // the state it goes on in may act this cycle
	}
}

// execute runs the firmware's part of the current command.
func (t *Top) execute(now uint64) {
	op := t.cmd.cur.Op
	res := &t.cmd.res
	var iv *inval
	var r *refusal
	switch {
	case t.cmd.bad != "":
		r = bad("%s", t.cmd.bad)
	case op.Kind == scenario.OpCreateMKey:
		var idx uint32
		idx, iv, r = t.fw.create(op.Create)
		if r == nil {
			res.Index, res.Key = idx, prm.MakeKey(idx, op.Create.MKC.Variant)
		}
	case op.Kind == scenario.OpDestroyMKey:
		iv, r = t.fw.destroy(op.Index)
	case op.Kind == scenario.OpQueryMKey:
		r = t.fw.query(op.Index, op.Query, res)
	case op.Kind == scenario.OpUMR:
		iv, r = t.fw.umr(op.UMR)
	case op.Kind == scenario.OpLocalInvalidate:
		iv, r = t.fw.invalidate(op.QPN, op.Key, false)
	case op.Kind == scenario.OpSendWithInvalidate:
		iv, r = t.fw.invalidate(op.QPN, op.Key, true)
	case op.Kind == scenario.OpPageFaultResume:
		t.resume(now)
		return
	case op.Kind == scenario.OpQueryPages:
		res.NumPages = t.fw.pg.query(op.Pages.Kind)
	case op.Kind == scenario.OpManagePages:
		r = t.fw.pg.manage(op.Pages)
	case op.Kind == scenario.OpIOMMUUnmap:
		// Not reached from a scenario: the testbench refuses one with an
		// iommu section (scenario.RefOnly).
		r = bad("the clocked model does not model the IOMMU yet (issue 36)")
	}
	if t.fw.pg.pending > 0 {
		return // a create asked pages: it runs again when the host has answered
	}
	if r != nil {
		res.Status, res.Reason = r.st, r.reason
		t.cmd.state = cmdDone
		if t.fwLog.IsDebug() {
			t.fwLog.Debug("command refused", "cycle", now, "seq", t.cmd.cur.Seq, "op", op.Kind, "status", r.st, "reason", r.reason)
		}
		return
	}
	res.Status = prm.OK
	if t.fwLog.IsDebug() {
		t.fwLog.Debug("command done", "cycle", now, "seq", t.cmd.cur.Seq, "op", op.Kind)
	}
	if iv == nil {
		t.cmd.state = cmdDone
		return
	}
	t.cmd.nextID++
	t.ctrlCache.Push(bus.Inval{ID: t.cmd.nextID, Index: iv.index})
	t.ctrlMTT.Push(bus.Inval{ID: t.cmd.nextID, Lo: iv.lo, Hi: iv.hi})
	t.ctrlKLM.Push(bus.Inval{ID: t.cmd.nextID, Lo: iv.lo, Hi: iv.hi})
	t.cmd.acks += 3
	t.cmd.state = cmdInval
}

// resume starts PAGE_FAULT_RESUME: the accesses stalled on the key run
// again (ok) or end with PAGE_ACCESS (error).
func (t *Top) resume(now uint64) {
	op := t.cmd.cur.Op
	res := &t.cmd.res
	var mine []stalledAccess
	rest := t.fw.stalled[:0]
	for _, s := range t.fw.stalled {
		if s.faultKey == op.Key {
			mine = append(mine, s)
		} else {
			rest = append(rest, s)
		}
	}
	t.fw.stalled = rest
	if len(mine) == 0 {
		res.Status, res.Reason = prm.BadParam, "no stalled access"
		t.cmd.state = cmdDone
		return
	}
	res.Status = prm.OK
	if len(mine) > 1 {
		t.cov.Hit(cover.ResumeMany)
	}
	if !op.OK {
		for _, s := range mine {
			res.Resumed = append(res.Resumed, scenario.Result{Seq: s.seq, Op: scenario.OpAccess,
				Status: prm.PageAccess, Level: s.level, Offset: s.offset})
			t.cov.Hit(cover.ResumeError)
			t.cov.Result(s.acc.Type, s.acc.Len, prm.PageAccess, s.level)
			t.sq.end(s.seq, prm.PageAccess, s.acc.Len)
		}
		t.cmd.state = cmdDone
		return
	}
	t.cmd.rerun = mine
	t.cmd.state = cmdRerun
}

// rerun gathers the results of re-run accesses in order as they finish
// and issues the remaining stalled accesses as the ROB makes room.
func (t *Top) rerun(now uint64) {
	for e := t.rob.oldest(); e != nil && e.done() && (!t.rob.data || e.moved); e = t.rob.oldest() {
		res := e.result(t.fw.odp)
		t.note(e, &res, now)
		t.cmd.res.Resumed = append(t.cmd.res.Resumed, res)
		t.rob.free()
	}
	if len(t.cmd.rerun) > 0 {
		s := t.cmd.rerun[0]
		if t.issue(s.seq, &s.acc, true, now) {
			t.cmd.rerun = t.cmd.rerun[1:]
		}
		return
	}
	if t.rob.count == 0 {
		sort.SliceStable(t.fw.stalled, func(i, j int) bool { return t.fw.stalled[i].seq < t.fw.stalled[j].seq })
		t.cmd.state = cmdDone
	}
}

// The top has no Commit: its registers are its own.
