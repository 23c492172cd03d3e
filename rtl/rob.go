package rtl

// This file is the reorder buffer: a request's outcomes gather in its
// entry until they cover every byte; the oldest whole request retires in
// order, and a failure below all others of its request is sent to the
// walkers as a cut.

import (
	"cmp"
	"slices"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
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
	segs    []segAt     // OK outcomes: the lowest in request order (see add)
	fail    bus.Outcome // lowest-offset failure, if failed
	failed  bool
	// The segments left out of the window (scenario.MaxSegments): how
	// many, their digest, and, once some are, the highest offset kept
	// (an outcome above it is left out as it comes).
	more    uint64
	moreSum scenario.SegmentSum
	keepTo  uint64
	resume  bool // a re-run inside page_fault_resume

	// gen counts the uses of the entry's tag (bus.Piece.Gen).
	gen uint16
	// Cuts sent to the walkers (bus.Cut): the offset of the last, and
	// whether the tag is queued for another.
	cutAt     uint64
	cutQueued bool

	// The data path (move.go): the next segment to send, and whether
	// every byte has moved.
	mvSeg int
	moved bool
	// counted: the entry is whole and counted in Top.doneN.
	counted bool
}

// segAt is a translated segment (Seg) and its byte offset in the
// request, with the key that gave it, at its KLM depth, and how the host
// translates it (issue 36: the data path's moves carry them). Its fields
// are flat, without a segment's PA (the host's, not the device's), so
// that it stays 40 bytes: rob_entries x keepMax of them bound the
// model's memory. The key's ordering bits (bus.Platform's flags) are
// packed in Flags.
type segAt struct {
	Off, Addr, Len uint64
	Key            prm.Key
	PASID          uint32
	Space          prm.Space
	Level, Mode    uint8
	Flags          uint8 // segSmallFence | segROWrite | segRORead
}

// The bits of segAt.Flags.
const (
	segSmallFence = 1 << iota // small_fence_on_rdma_read_response
	segROWrite                // relaxed_ordering_write
	segRORead                 // relaxed_ordering_read
)

// segFlag is bit if b, else 0.
func segFlag(b bool, bit uint8) uint8 {
	if b {
		return bit
	}
	return 0
}

// segAtOf is the outcome o's segment as the reorder buffer keeps it.
func segAtOf(o *bus.Outcome) segAt {
	return segAt{Off: o.Offset, Addr: o.Seg.Addr, Len: o.Seg.Len, Space: o.Seg.Space, Key: o.Key, Level: o.Level, Mode: o.Plat.Mode, PASID: o.Plat.PASID,
		Flags: segFlag(o.Plat.SmallFence, segSmallFence) | segFlag(o.Plat.ROWrite, segROWrite) | segFlag(o.Plat.RORead, segRORead)}
}

// Seg is the segment.
func (s *segAt) Seg() prm.Segment { return prm.Segment{Space: s.Space, Addr: s.Addr, Len: s.Len} }

// Plat is how the host translates it.
func (s *segAt) Plat() bus.Platform {
	return bus.Platform{Mode: s.Mode, PASID: s.PASID, SmallFence: s.Flags&segSmallFence != 0,
		ROWrite: s.Flags&segROWrite != 0, RORead: s.Flags&segRORead != 0}
}

// keepMax is the most segments an entry holds: the window and a quarter
// more, sorted and cut back to the window when full, so that an access of
// any number of segments holds a bounded memory.
const keepMax = scenario.MaxSegments + scenario.MaxSegments/4

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
	if e.more > 0 && o.Offset > e.keepTo {
		e.leaveOut(o.Offset, o.Seg)
		return
	}
	if len(e.segs) == cap(e.segs) {
		e.grow()
	}
	e.segs = append(e.segs, segAtOf(o))
	if len(e.segs) >= keepMax {
		e.trim()
	}
}

// grow doubles the room for segments, but never past keepMax: append's
// own growth would round a list of 81,920 segments up to 131,072, and
// an entry's memory is what bounds the reorder buffer's (rob_entries x
// keepMax x 40 bytes at most).
func (e *robEntry) grow() {
	n := min(max(2*cap(e.segs), 8), keepMax)
	segs := make([]segAt, len(e.segs), n)
	copy(segs, e.segs)
	e.segs = segs
}

// trim keeps the first scenario.MaxSegments segments in request order
// and leaves the others out.
func (e *robEntry) trim() {
	e.sortSegs()
	if len(e.segs) <= scenario.MaxSegments {
		return
	}
	for _, s := range e.segs[scenario.MaxSegments:] {
		e.leaveOut(s.Off, s.Seg())
	}
	e.segs = e.segs[:scenario.MaxSegments]
	e.keepTo = e.segs[len(e.segs)-1].Off
}

// leaveOut counts and sums a segment past the window.
func (e *robEntry) leaveOut(off uint64, s prm.Segment) {
	e.more++
	e.moreSum.Add(off, s)
}

// result builds the result line: the first failure in request order, or
// the segments in request order.
func (e *robEntry) result(odp func(prm.Key) bool) scenario.Result {
	var res scenario.Result
	e.resultInto(&res, odp)
	return res
}

// resultInto builds the result line in res, reusing its segments' memory.
func (e *robEntry) resultInto(res *scenario.Result, odp func(prm.Key) bool) {
	out := res.Segments[:0]
	*res = scenario.Result{Seq: e.seq, Op: scenario.OpAccess}
	if e.failed {
		f := &e.fail
		res.Status, res.Level, res.Offset = f.Status, int(f.Level), f.Offset
		if f.Missing && odp(f.FaultKey) {
			res.Status, res.FaultKey, res.FaultAddr = prm.PageFault, f.FaultKey, f.FaultAddr
		}
		res.Segments = out // empty: kept for the next result built here
		return
	}
	e.trim()
	segs := e.segs
	res.Status = prm.OK
	for i := range segs {
		out = append(out, segs[i].Seg())
	}
	res.Segments = out
	res.SegmentsLeftOut, res.LeftOutSum = e.more, e.moreSum
}

// sortSegs puts the OK outcomes in request order.
func (e *robEntry) sortSegs() {
	segs := e.segs
	if len(segs) > 64 {
		slices.SortFunc(segs, func(a, b segAt) int { return cmp.Compare(a.Off, b.Off) })
		return
	}
	for i := 1; i < len(segs); i++ { // nearly always in order already
		for j := i; j > 0 && segs[j].Off < segs[j-1].Off; j-- {
			segs[j], segs[j-1] = segs[j-1], segs[j]
		}
	}
}

// rob is the reorder buffer: the entries of the requests in flight, a
// ring from the oldest (head) on, with what it counts of them. It owns
// its state; the top moves outcomes in and results out.
type rob struct {
	entries []robEntry
	head    int // oldest entry
	count   int // entries in use
	// data: the data path is on, so a request retires only once its
	// bytes have moved; moveN counts the entries from the head whose
	// data went (or needs none): the next to go is moveN places on.
	data  bool
	moveN int
	doneN int      // whole requests in the buffer (noteDone)
	cutQ  []uint16 // tags whose walkers must hear of a lower failure
}

// newROB makes a reorder buffer of n entries.
func newROB(n int, data bool) rob { return rob{entries: make([]robEntry, n), data: data} }

// full reports whether no entry is free.
func (r *rob) full() bool { return r.count == len(r.entries) }

// at is the entry of tag.
func (r *rob) at(tag uint16) *robEntry { return &r.entries[tag] }

// oldest is the head entry, or nil when the buffer is empty.
func (r *rob) oldest() *robEntry {
	if r.count == 0 {
		return nil
	}
	return &r.entries[r.head]
}

// alloc takes the next entry for access a, operation seq, issued at now
// (resume: a re-run inside page_fault_resume), and returns it with its
// tag. The caller has checked that the buffer is not full.
func (r *rob) alloc(seq int, a *scenario.Access, resume bool, now uint64) (*robEntry, uint16) {
	tag := sim.Wrap(r.head+r.count, len(r.entries))
	e := &r.entries[tag]
	// Field by field: the failure (fail) is read only once failed is
	// set, so the entry's largest field is not cleared for every access.
	e.used, e.seq, e.acc, e.start, e.covered, e.segs = true, seq, *a, now, 0, e.segs[:0]
	e.failed, e.resume, e.gen, e.cutAt, e.cutQueued = false, resume, e.gen+1, ^uint64(0), false
	e.mvSeg, e.moved, e.counted, e.more, e.moreSum, e.keepTo = 0, false, false, 0, 0, 0
	r.count++
	return e, uint16(tag)
}

// collect takes one outcome. A failure below every other of its request
// queues a cut for the walkers.
func (r *rob) collect(o *bus.Outcome) {
	e := &r.entries[o.Tag]
	e.add(o)
	r.noteDone(e)
	if e.needsCut() && !e.cutQueued {
		e.cutQueued = true
		r.cutQ = append(r.cutQ, o.Tag)
	}
}

// nextCut takes from the queue the next cut still needed (the walkers
// are ready for it), dropping those that are no longer.
func (r *rob) nextCut() (bus.Cut, bool) {
	for len(r.cutQ) > 0 {
		tag := r.cutQ[0]
		r.cutQ = r.cutQ[1:]
		e := &r.entries[tag]
		if !e.cutQueued {
			continue
		}
		e.cutQueued = false
		if !e.used || !e.needsCut() {
			continue
		}
		e.cutAt = e.fail.Offset
		return bus.Cut{Tag: tag, Gen: e.gen, Offset: e.fail.Offset}, true
	}
	return bus.Cut{}, false
}

// retirable reports whether the oldest request can retire: it is whole,
// and its bytes have moved when the data path is on.
func (r *rob) retirable() bool {
	e := r.oldest()
	return e != nil && e.done() && (!r.data || e.moved)
}

// noteDone counts e among the whole requests once it is whole (a page-
// fault re-run aside: the command path gathers it).
func (r *rob) noteDone(e *robEntry) {
	if e.done() && !e.counted && !e.resume {
		e.counted = true
		r.doneN++
	}
}

// orderWaits is the number of whole requests that wait for an older one
// to retire first: the whole ones but the head.
func (r *rob) orderWaits() uint64 {
	if r.count > 0 && r.entries[r.head].counted {
		return uint64(r.doneN - 1)
	}
	return uint64(r.doneN)
}

// free retires the head entry.
func (r *rob) free() {
	if r.data {
		r.moveN-- // the head's data went before it retired
	}
	e := &r.entries[r.head]
	if e.counted {
		r.doneN--
	}
	e.used, e.segs, e.cutQueued = false, e.segs[:0], false
	if cap(e.segs) > 4096 {
		e.segs = nil // an access of many segments: its memory goes with it
	}
	r.head = sim.Wrap(r.head+1, len(r.entries))
	r.count--
}

// nextMove is the request whose data goes next, or nil.
func (r *rob) nextMove() (*robEntry, uint16) {
	if !r.data || r.moveN >= r.count {
		return nil, 0
	}
	tag := sim.Wrap(r.head+r.moveN, len(r.entries))
	return &r.entries[tag], uint16(tag)
}

// collect takes one outcome from a unit into the reorder buffer.
func (t *Top) collect(c *sim.Chan[bus.Outcome]) {
	if !c.Valid() {
		return
	}
	t.rob.collect(c.Peek())
	c.Pop()
}

// sendCut tells both walkers of the lowest failure of the oldest request
// queued for a cut: the pieces at or past it cannot change the result, so
// the walkers stop them (a Fixed Buffer Size access of 4 GB whose first
// piece fails ends at once, as in the golden model, rather than walking a
// million entries).
func (t *Top) sendCut() {
	if len(t.rob.cutQ) == 0 || !t.cutMTT.Ready() || !t.cutKLM.Ready() {
		return
	}
	if c, ok := t.rob.nextCut(); ok {
		t.cutMTT.Push(c)
		t.cutKLM.Push(c)
	}
}

// retire sends the oldest request's result when it is whole.
func (t *Top) retire(now uint64) {
	e := t.rob.oldest()
	if e == nil || !e.done() || e.resume || t.heldBehind(e) {
		return // resumed runs are gathered by the command path
	}
	if t.rob.data && !e.moved || !t.Out.Ready() {
		return
	}
	// The result is built in the next slot of the output ring, reused
	// once the sink has taken it (RunOptions.OnResult says so): no
	// allocation per access.
	res := &t.outRing[t.outNext]
	t.outNext = sim.Wrap(t.outNext+1, len(t.outRing))
	e.resultInto(res, t.fw.odp)
	res.Cycle, res.HasCycle = now, true
	t.note(e, res, now)
	if t.log.IsTrace() {
		t.log.Trace("retire", "cycle", now, "seq", res.Seq, "status", res.Status, "segments", len(res.Segments), "latency", now-e.start)
	}
	t.Out.Push(Result{res})
	t.rob.free()
}

// note records statistics and stalls of a finished access.
func (t *Top) note(e *robEntry, res *scenario.Result, now uint64) {
	t.stats.Translations++
	if res.Status == prm.OK {
		t.stats.TranslatedBytes += uint64(e.acc.Len)
	}
	t.latency.Add(now - e.start)
	if t.cov != nil {
		t.cov.Result(e.acc.Type, e.acc.Len, res.Status, res.Level)
		if e.resume {
			t.cov.Resumed(res.Status)
		}
	}
	if res.Status == prm.PageFault {
		t.fw.stalled = append(t.fw.stalled, stalledAccess{seq: e.seq, acc: e.acc, faultKey: res.FaultKey,
			level: res.Level, offset: res.Offset})
	}
	t.sq.end(e.seq, res.Status, e.acc.Len)
}
