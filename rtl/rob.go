package rtl

import (
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/scenario"
)

// robEntry is one request in flight: its outcomes gather here until they
// cover every byte.
type robEntry struct {
	used    bool
	seq     int
	acc     scenario.Access
	start   uint64 // cycle issued
	covered uint64
	segs    []bus.Outcome // OK outcomes
	fail    bus.Outcome   // lowest-offset failure, if failed
	failed  bool
	resume  bool // a re-run inside page_fault_resume

	// gen counts the uses of the entry's tag (bus.Piece.Gen).
	gen uint16
	// Cuts sent to the walkers (bus.Cut): the offset of the last, and
	// whether the tag is queued for another.
	cutAt     uint64
	cutQueued bool
}

func (e *robEntry) done() bool { return e.covered == uint64(e.acc.Len) }

// needsCut reports whether the walkers have not yet been told of the
// entry's lowest failure.
func (e *robEntry) needsCut() bool { return e.failed && e.fail.Offset < e.cutAt && !e.done() }

// add takes one outcome.
func (e *robEntry) add(o *bus.Outcome) {
	e.covered += o.Len
	if o.Cut {
		return // bytes past a failure: accounted for, nothing more
	}
	if o.Status != prm.OK {
		if !e.failed || o.Offset < e.fail.Offset {
			e.fail, e.failed = *o, true
		}
		return
	}
	e.segs = append(e.segs, *o)
}

// result builds the result line: the first failure in request order, or
// the segments in request order.
func (e *robEntry) result(odp func(prm.Key) bool) scenario.Result {
	res := scenario.Result{Seq: e.seq, Op: scenario.OpAccess}
	if e.failed {
		f := &e.fail
		res.Status, res.Level, res.Offset = f.Status, int(f.Level), f.Offset
		if f.Missing && odp(f.FaultKey) {
			res.Status, res.FaultKey, res.FaultAddr = prm.PageFault, f.FaultKey, f.FaultAddr
		}
		return res
	}
	segs := e.segs
	for i := 1; i < len(segs); i++ { // nearly always in order already
		for j := i; j > 0 && segs[j].Offset < segs[j-1].Offset; j-- {
			segs[j], segs[j-1] = segs[j-1], segs[j]
		}
	}
	res.Status = prm.OK
	res.Segments = make([]prm.Segment, len(segs))
	for i := range segs {
		res.Segments[i] = segs[i].Seg
	}
	return res
}
