package dma

import (
	"slices"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// Ports are the unit's channels, made by the top.
type Ports struct {
	In      *sim.Chan[bus.Move]
	Done    *sim.Chan[bus.Moved]
	MemReq  *sim.Chan[pcie.ReadReq]
	MemResp *sim.Chan[pcie.ReadResp]
	// The ATC's lookups, results and releases; nil without an ATC (the
	// device does not use ATS: an ATS key's requests go untranslated).
	Lookup  *sim.Chan[bus.ATSLookup]
	Result  *sim.Chan[bus.ATSResult]
	Release *sim.Chan[bus.ATSRelease]
}

// Stats counts the data path's work. Each field's tags are the counter's
// one definition (sim.Counter), under the group data.
type Stats struct {
	Reads      uint64     `counter:"reads" unit:"requests" help:"read requests of at most 4 KiB the data path gave the requester (each one or more MRd TLPs); an atomic's read counts"`
	ReadBytes  uint64     `counter:"read_bytes" unit:"bytes" help:"bytes of host memory the data path read"`
	Writes     uint64     `counter:"writes" unit:"requests" help:"write requests of at most 4 KiB the data path gave the requester (each one or more MWr TLPs); an atomic's write counts"`
	WriteBytes uint64     `counter:"write_bytes" unit:"bytes" help:"bytes of host memory the data path wrote"`
	Atomics    uint64     `counter:"atomics" unit:"segments" help:"atomic segments moved: an 8-byte read, then the write of its result"`
	Moved      uint64     `counter:"moved" unit:"accesses" help:"accesses whose bytes all moved (Moved sent to the reorder buffer)"`
	MaxInUse   int        `counter:"max_in_flight" unit:"requests" kind:"max" help:"the most data requests in flight at once (at most data.outstanding)"`
	SlotStalls sim.Stalls `counter:"slot_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a segment waited at the head of In because data.outstanding requests were in flight"`
	// The small fence (small_fence_on_rdma_read_response, issue 37).
	FencedReads uint64        `counter:"fenced_reads" unit:"requests" help:"reads of an RDMA READ response whose key has small_fence_on_rdma_read_response: at most one of them in flight per QP" cover:"fenced_read" coverdesc:"an RDMA READ response read under the small fence"`
	FenceStalls sim.Stalls    `counter:"fence_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a segment under the small fence waited at the head of In because a read of its QP under the fence was in flight and no room was left to set it aside (data.fence_queue)"`
	FenceParked uint64        `counter:"fence_parked" unit:"segments" help:"segments set aside off the head of In because their QP had a read under the small fence in flight (or segments set aside already): the segments of other QPs behind them went on"`
	InFlight    sim.Occupancy `counter:"request_cycles" unit:"request-cycles" kind:"occupancy" mean:"mean_requests_in_flight" help:"data requests in flight, summed over the cycles (mean_requests_in_flight = request_cycles / cycles)"`
}

// slot is one request in flight, numbered by its ReadReq ID.
type slot struct {
	tag    uint16
	atomic bool   // the read of an atomic: its write follows
	addr   uint64 // the atomic's address
	n      int    // the atomic's bytes in this chunk (8, or its part of a 4 KiB page)
	// The atomic's PASID prefix and origin, for its write.
	prefix pcie.PASIDPrefix
	origin sim.Origin
	// ATS: ats, the request goes through the ATC (the atomic's write
	// too); req waits for its lookup's result (translating); held, an
	// OK result holds ATC entry entry until the request completes.
	ats, translating, held bool
	entry                  uint16
	req                    pcie.ReadReq
	// fenced: a read under the small fence of QP qpn.
	fenced bool
	qpn    uint32
}

// tagState is what the unit knows of one reorder-buffer tag.
type tagState struct {
	pending int  // requests in flight
	last    bool // its last segment has been issued whole
}

// atomicWrite is the write of an atomic whose read completed.
type atomicWrite struct {
	tag    uint16
	addr   uint64
	n      int
	prefix pcie.PASIDPrefix
	origin sim.Origin
	ats    bool
}

// Unit is the data path. The engine evaluates it only in the cycles
// something happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under data
	name           string
	cfg            Config
	p              Ports
	slots          []slot
	free           sim.Mask
	inUse          int
	tags           []tagState
	off            uint64         // bytes of the head segment of In already issued
	wq             []atomicWrite  // atomics' writes waiting for the port
	doneQ          []uint16       // tags whose Moved waits for Done
	readyQ         []int          // slots whose ATC result is in, waiting for the port
	fenced         map[uint32]int // reads under the small fence in flight, per QP
	nFenced        int            // their sum (the waveform's)
	fenceWait      bool           // this cycle, the head waited on the fence
	relQ           []uint16       // ATC entries to give back
	parked         []parkedMove   // segments set aside behind the small fence, oldest first
	stats          Stats
}

// parkedMove is a segment set aside behind the small fence: off bytes of
// it already issued.
type parkedMove struct {
	m   bus.Move
	off uint64
}

// New makes the data path for reorder tags 0..tags-1; cfg must be valid.
func New(name string, cfg Config, tags int, p Ports) *Unit {
	u := &Unit{name: name, cfg: cfg, p: p, slots: make([]slot, cfg.Outstanding), free: sim.NewMask(cfg.Outstanding),
		tags: make([]tagState, tags), fenced: map[uint32]int{}}
	for i := range u.slots {
		u.free.Set(i)
	}
	u.CounterSet = sim.Declare("data", &u.stats)
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// Connections lists the channels the unit pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	in, out = []sim.Port{u.p.In, u.p.MemResp}, []sim.Port{u.p.Done, u.p.MemReq}
	if u.p.Lookup != nil {
		in, out = append(in, u.p.Result), append(out, u.p.Lookup, u.p.Release)
	}
	return in, out
}

// Describe lists what the unit shows in its waveform scope: the requests
// in flight, the Moved answers waiting, the reads in flight under the
// small fence and the segments set aside behind it (sim.Described).
func (u *Unit) Describe() sim.Description {
	return sim.Description{Scope: u.name, Title: "data path", Signals: []sim.Signal{
		{Name: "in_flight", Width: sim.WidthFor(len(u.slots))}, {Name: "done_waiting", Width: sim.WidthFor(len(u.tags))},
		{Name: "fenced", Width: sim.WidthFor(len(u.slots))}, {Name: "parked", Width: sim.WidthFor(max(u.cfg.FenceQueue, 1))}},
		Sample: func(vs []uint64) {
			vs[0], vs[1], vs[2], vs[3] = uint64(u.inUse), uint64(len(u.doneQ)), uint64(u.nFenced), uint64(len(u.parked))
		}}
}

// Stats returns the counters.
func (u *Unit) Stats() Stats { return u.stats }

// InFlight is the number of data requests in flight.
func (u *Unit) InFlight() int { return u.inUse }

// Eval runs one cycle: a response, a Moved answer, then one request.
func (u *Unit) Eval(now uint64) bool {
	moves := u.Handshakes()
	u.fenceWait = false
	if u.p.MemResp.Valid() {
		u.respond(u.p.MemResp.Peek())
		u.p.MemResp.Pop()
	}
	if u.p.Lookup != nil {
		u.translated()
	}
	if len(u.doneQ) > 0 && u.p.Done.Ready() {
		u.p.Done.Push(bus.Moved{Tag: u.doneQ[0]})
		u.doneQ = u.doneQ[1:]
		u.stats.Moved++
	}
	waited := u.issue()
	u.stats.SlotStalls.Note(now, waited)
	u.stats.FenceStalls.Note(now, u.fenceWait)
	u.stats.InFlight.NoteN(now, uint64(u.inUse))
	return len(u.doneQ) > 0 || len(u.readyQ) > 0 || len(u.relQ) > 0 || u.Handshakes() != moves || u.parkedReady()
}

// parkedReady reports whether issueParked has work for the next cycle:
// the segment nextParked names, with a slot for it unless it moves no
// bytes.
func (u *Unit) parkedReady() bool {
	i := u.nextParked()
	return i >= 0 && (u.parked[i].m.Len == 0 || u.inUse < len(u.slots))
}

// nextParked is the index of the oldest segment set aside that may go
// on (the first of its QP, its fence clear), -1 if none.
func (u *Unit) nextParked() int {
	for i := range u.parked {
		if u.firstOfQP(i) && !u.fenceHolds(&u.parked[i].m) {
			return i
		}
	}
	return -1
}

// fenceHolds reports whether segment m is under the small fence while a
// read of its QP under it is in flight.
func (u *Unit) fenceHolds(m *bus.Move) bool { return m.Plat.SmallFence && u.fenced[m.QPN] > 0 }

// translated takes an ATC result and gives back one entry. An OK result
// sends its request translated (AT 10b) to the translated address; one
// without a translation sends it untranslated, as PCIe ATS lets a
// Function fall back to, so that the host's IOMMU refuses it as it
// refuses the requests of a key without ATS.
func (u *Unit) translated() {
	if u.p.Result.Valid() {
		r := u.p.Result.Peek()
		if id := int(r.Tag); id < len(u.slots) && !u.free.Has(id) && u.slots[id].translating {
			s := &u.slots[id]
			s.translating = false
			if r.OK {
				s.req.Origin.IOVA = s.req.Addr
				s.req.Addr, s.req.AT = r.Addr, pcie.ATTranslated
				s.held, s.entry = true, r.Entry
			}
			u.readyQ = append(u.readyQ, id)
		}
		u.p.Result.Pop()
	}
	if len(u.relQ) > 0 && u.p.Release.Ready() {
		u.p.Release.Push(bus.ATSRelease{Entry: u.relQ[0]})
		u.relQ = u.relQ[1:]
	}
}

// respond takes the answer to request r.ID: a read's completions are all
// in, or a write's last MWr has left.
func (u *Unit) respond(r *pcie.ReadResp) {
	id := int(r.ID)
	if id >= len(u.slots) || u.free.Has(id) {
		return // not ours: nothing is in flight under that ID
	}
	s := u.slots[id]
	u.free.Set(id)
	u.inUse--
	if s.fenced {
		if u.fenced[s.qpn]--; u.fenced[s.qpn] == 0 {
			delete(u.fenced, s.qpn)
		}
		u.nFenced--
	}
	if s.held {
		// The request has completed: its translation is no longer in
		// use (an atomic's write asks again).
		u.relQ = append(u.relQ, s.entry)
	}
	if s.atomic {
		// The read's count in its tag's pending now stands for the
		// write to come.
		u.wq = append(u.wq, atomicWrite{tag: s.tag, addr: s.addr, n: s.n, prefix: s.prefix, origin: s.origin, ats: s.ats})
		return
	}
	u.tags[s.tag].pending--
	u.check(s.tag)
}

// check queues Moved for tag if all its bytes have moved.
func (u *Unit) check(tag uint16) {
	if ts := &u.tags[tag]; ts.last && ts.pending == 0 {
		*ts = tagState{}
		u.doneQ = append(u.doneQ, tag)
	}
}

// issue sends one request: an atomic's write first, else the next chunk
// of the segment at the head of In. It reports whether a segment waited
// for a free slot.
func (u *Unit) issue() bool {
	if len(u.wq) > 0 {
		w := u.wq[0]
		if u.inUse == len(u.slots) || !w.ats && !u.p.MemReq.Ready() || w.ats && !u.p.Lookup.Ready() {
			return false
		}
		u.wq = u.wq[1:]
		req := pcie.ReadReq{Addr: w.addr, Len: w.n, Write: true, Prefix: w.prefix, Origin: w.origin}
		if w.ats {
			u.lookup(slot{tag: w.tag}, req)
		} else {
			req.ID = uint32(u.take(slot{tag: w.tag}))
			u.p.MemReq.Push(req)
		}
		u.stats.Writes++
		u.stats.WriteBytes += uint64(w.n)
		return false
	}
	if len(u.readyQ) > 0 {
		// A request whose translation is in goes before the next chunk.
		if u.p.MemReq.Ready() {
			u.p.MemReq.Push(u.slots[u.readyQ[0]].req)
			u.readyQ = u.readyQ[1:]
		}
		return false
	}
	if u.issueParked() {
		return false
	}
	if !u.p.In.Valid() {
		return false
	}
	m := u.p.In.Peek()
	if u.mustPark(m) {
		// A segment of a QP under the fence waits aside, in its QP's
		// order, so that other QPs' segments behind it go on.
		if len(u.parked) < u.cfg.FenceQueue {
			u.parked = append(u.parked, parkedMove{m: *m, off: u.off})
			u.off = 0
			u.stats.FenceParked++
			u.p.In.Pop()
			return false
		}
		u.fenceWait = true // one read of the QP's response at a time
		return false
	}
	if m.Len == 0 { // nothing to move (the top sends none such)
		u.marker(m)
		u.p.In.Pop()
		return false
	}
	if u.inUse == len(u.slots) {
		return true
	}
	n, ok := u.chunk(m, u.off)
	if !ok {
		return false
	}
	if u.off += n; u.off == m.Len {
		u.off = 0
		if m.Last {
			u.tags[m.Tag].last = true
		}
		u.p.In.Pop()
	}
	return false
}

// mustPark reports whether segment m must wait behind the small fence: a
// read of its QP under the fence is in flight and m is under it too, or
// segments of its QP are set aside already (a QP's segments keep their
// order).
func (u *Unit) mustPark(m *bus.Move) bool {
	if u.fenceHolds(m) {
		return true
	}
	for i := range u.parked {
		if u.parked[i].m.QPN == m.QPN {
			return true
		}
	}
	return false
}

// marker takes a segment of no bytes: the last of its tag, which may be
// done.
func (u *Unit) marker(m *bus.Move) {
	if m.Last {
		u.tags[m.Tag].last = true
		u.check(m.Tag)
	}
}

// issueParked sends the next chunk of the oldest segment set aside whose
// QP's fence has cleared (the first of its QP), and reports whether it
// did anything.
func (u *Unit) issueParked() bool {
	i := u.nextParked()
	if i < 0 {
		return false
	}
	p := &u.parked[i]
	if p.m.Len == 0 {
		u.marker(&p.m)
		u.parked = slices.Delete(u.parked, i, i+1)
		return true
	}
	if u.inUse == len(u.slots) {
		return false
	}
	n, ok := u.chunk(&p.m, p.off)
	if !ok {
		return false
	}
	if p.off += n; p.off == p.m.Len {
		if p.m.Last {
			u.tags[p.m.Tag].last = true
		}
		u.parked = slices.Delete(u.parked, i, i+1)
	}
	return true
}

// firstOfQP reports whether parked[i] is the oldest set aside of its QP.
func (u *Unit) firstOfQP(i int) bool {
	for j := range i {
		if u.parked[j].m.QPN == u.parked[i].m.QPN {
			return false
		}
	}
	return true
}

// chunk sends the request for the bytes of m from off to the end of the
// 4 KiB page they start in (the caller has checked for a free slot), and
// returns their count; ok false when the request port does not take it
// this cycle.
func (u *Unit) chunk(m *bus.Move, off uint64) (n uint64, ok bool) {
	ats := m.Plat.ATS() && u.p.Lookup != nil
	if !ats && !u.p.MemReq.Ready() || ats && !u.p.Lookup.Ready() {
		return 0, false
	}
	addr := m.Addr + off
	n = min(m.Len-off, ChunkBytes-addr%ChunkBytes)
	req := pcie.ReadReq{Addr: addr, Len: int(n), Origin: m.Origin.At(off)}
	if m.Plat.CAPI() {
		req.Prefix = pcie.NewPASIDPrefix(m.Plat.PASID, false, false)
	}
	s := slot{tag: m.Tag}
	if m.Plat.SmallFence {
		s.fenced, s.qpn = true, m.QPN
		u.fenced[m.QPN]++
		u.nFenced++
		u.stats.FencedReads++
	}
	switch m.Kind {
	case bus.MoveRead:
		req.RO = m.Plat.RORead
		u.stats.Reads++
		u.stats.ReadBytes += n
	case bus.MoveWrite:
		req.Write, req.RO = true, m.Plat.ROWrite
		u.stats.Writes++
		u.stats.WriteBytes += n
	case bus.MoveAtomic:
		s.atomic, s.addr, s.n, s.prefix, s.origin = true, addr, int(n), req.Prefix, req.Origin
		u.stats.Reads++
		u.stats.ReadBytes += n
		u.stats.Atomics++
	}
	if ats {
		s.ats = true
		u.lookup(s, req)
	} else {
		req.ID = uint32(u.take(s))
		u.p.MemReq.Push(req)
	}
	u.tags[m.Tag].pending++
	return n, true
}

// lookup allocates a slot for s, whose request req waits there for the
// ATC's translation of its address: the lookup goes out under the
// slot's number.
func (u *Unit) lookup(s slot, req pcie.ReadReq) {
	s.ats, s.translating = true, true
	id := u.take(s)
	req.ID = uint32(id)
	u.slots[id].req = req
	u.p.Lookup.Push(bus.ATSLookup{Tag: uint16(id), Addr: req.Addr, Len: uint32(req.Len), Write: req.Write})
}

// take allocates a slot for s: a request in flight.
func (u *Unit) take(s slot) int {
	id := u.free.Next(0)
	u.free.Clear(id)
	u.slots[id] = s
	u.inUse++
	u.stats.MaxInUse = max(u.stats.MaxInUse, u.inUse)
	return id
}
