package mttwalk

import (
	"fmt"
	"math/bits"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// State is a walker context's FSM state.
type State uint8

// The states.
const (
	Idle State = iota
	Page
	Fetch
)

// StateNames names the states for waveforms.
func StateNames() map[uint64]string {
	return map[uint64]string{0: "IDLE", 1: "PAGE", 2: "FETCH"}
}

// StateEnum names the states in waveforms.
var StateEnum = &sim.Enum{Name: "mttwalk_state", Width: 2, Names: StateNames()}

// maxTraced bounds the contexts a waveform shows one by one.
const maxTraced = 32

// Describe lists what the walker shows in its waveform scope: its state,
// the contexts in use, the cache's strobes, then each context's state and
// the tag of its piece (held while it is idle) (sim.Described).
func (u *Unit) Describe() sim.Description {
	sigs := []sim.Signal{{Name: "state", Enum: StateEnum}, {Name: "in_use", Width: sim.WidthFor(len(u.ctx))},
		sim.Bit("hit"), sim.Bit("miss"), sim.Bit("fill")}
	n := min(len(u.ctx), maxTraced)
	for i := range n {
		sigs = append(sigs, sim.Signal{Name: fmt.Sprintf("ctx%d_state", i), Enum: StateEnum}, sim.Signal{Name: fmt.Sprintf("ctx%d_tag", i), Width: 16})
	}
	return sim.Description{Scope: u.name, Signals: sigs, Sample: func(vs []uint64) {
		h, m, f := u.Strobes()
		vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(u.State()), uint64(u.busy), sim.B(h), sim.B(m), sim.B(f)
		for i := range n {
			vs[5+2*i], vs[6+2*i] = uint64(u.ctx[i].state), uint64(u.ctx[i].w.Tag)
		}
	}}
}

// Ports are the walker's channels, made by the top.
type Ports struct {
	In      *sim.Chan[bus.Walk]
	Done    *sim.Chan[bus.Outcome]
	MemReq  *sim.Chan[pcie.ReadReq]
	MemResp *sim.Chan[pcie.ReadResp]
	Ctrl    *sim.Chan[bus.Inval]
	Ack     *sim.Chan[bus.Ack]
	// Cut carries the reorder buffer's cuts (bus.Cut); nil: none.
	Cut *sim.Chan[bus.Cut]
}

// Stats counts the walker's work. Each field's tags are the counter's one
// definition (sim.Counter): the group mttwalk, and the cache's counters
// under mtt_cache.
type Stats struct {
	Cache   linecache.Stats `counter:"-"`
	Pieces  uint64          `counter:"pieces" unit:"pieces" help:"checked MTT pieces taken from In into a walker context"`
	Pages   uint64          `counter:"pages" unit:"pages" help:"MTT entries read and judged for a page of a piece (a segment or a page-bit failure)"`
	Faults  uint64          `counter:"page_bit_misses" unit:"pages" help:"pages whose entry lacked the rd_en/wr_en bit the access needs (PAGE_ACCESS, or PAGE_FAULT on an ODP key)"`
	MaxBusy int             `counter:"max_walkers_in_use" unit:"contexts" kind:"max" help:"the most walker contexts busy at once"`
	Cuts    uint64          `counter:"cuts" unit:"pieces" help:"pieces stopped before their end because the request's result was decided by a failure below (bus.Cut)"`
	NoCtx   uint64          `counter:"context_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a piece waited at the head of In because every walker context was busy"`
	Busy    uint64          `counter:"walker_cycles" unit:"walker-cycles" kind:"occupancy" mean:"mean_walkers_in_use" help:"walker contexts busy, summed over the cycles (mean_walkers_in_use = walker_cycles / cycles)"`
}

// walker is one piece being walked.
type walker struct {
	state State
	w     bus.Walk
	t     uint64         // bytes done
	slot  linecache.Slot // the line in flight and the last line filled
}

// Unit is the MTT walker: Walkers contexts share one MTT cache, one
// output and one PCIe read port; each cycle one context translates one
// page or starts one fetch. The engine evaluates it only in the cycles
// something happens to it (sim.Base).
type Unit struct {
	sim.Base
	name  string
	p     Ports
	cache *linecache.Cache
	ctx   []walker
	// idle, paging and fetching hold the contexts in those states: the
	// cycle's searches look at words, not at every context.
	idle, paging, fetching sim.Mask
	merge                  bool // Config.MergeMisses
	busy                   int
	rr                     int
	cuts                   bus.Cuts

	stats Stats
	occ   sim.Occupancy // walkers busy (Stats.Busy)
	noCtx sim.Stalls    // Stats.NoCtx
	// ctxWait: a piece waited at In this cycle, every context busy.
	ctxWait bool
	byPD    sim.ByKey        // mtt_cache hits and misses by the piece\'s PD
	cov     *cover.Collector // nil: coverage off
	// strobes of this cycle, for waveforms
	hit, miss, fill bool
	state           State // the state of the context that acted, for waveforms
}

// New makes a walker; cfg must be valid.
func New(name string, cfg Config, p Ports) *Unit {
	u := &Unit{name: name, p: p, cache: linecache.New(cfg.Cache, EntryBytes), ctx: make([]walker, cfg.Walkers),
		idle: sim.NewMask(cfg.Walkers), paging: sim.NewMask(cfg.Walkers), fetching: sim.NewMask(cfg.Walkers),
		merge: cfg.MergeMisses}
	for i := range u.ctx {
		u.idle.Set(i)
	}
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// State summarises the unit for waveforms: PAGE when a context translated
// a page this cycle, FETCH when contexts wait for lines only, else IDLE.
func (u *Unit) State() State {
	if u.Ran() {
		return u.state
	}
	if u.busy > 0 {
		return Fetch
	}
	return Idle
}

// Connections lists the channels the walker pops and pushes
// (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	p := &u.p
	in = []sim.Port{p.In, p.MemResp, p.Ctrl}
	if p.Cut != nil {
		in = append(in, p.Cut)
	}
	return in, []sim.Port{p.Done, p.MemReq, p.Ack}
}

// InUse is the number of busy contexts.
func (u *Unit) InUse() int { return u.busy }

// Current is context i's piece and bytes done, for waveforms.
func (u *Unit) Current(i int) (State, *bus.Walk, uint64) {
	return u.ctx[i].state, &u.ctx[i].w, u.ctx[i].t
}

// Strobes are this cycle's cache events: a page translated from a cached
// line (hit), a line fetch started (miss), a line filled (fill).
func (u *Unit) Strobes() (hit, miss, fill bool) {
	if !u.Ran() {
		return false, false, false
	}
	return u.hit, u.miss, u.fill
}

// Stats returns the counters.
func (u *Unit) Stats() Stats {
	s := u.stats
	s.Cache = u.cache.Stats
	s.Busy = u.occ.Count()
	s.NoCtx = u.noCtx.Count()
	return s
}

// Counters lists the counters: mttwalk's, then the cache's as mtt_cache.
func (u *Unit) Counters() []sim.Counter {
	s := u.Stats()
	return append(sim.CountersOf("mttwalk", &s), u.cache.Counters("mtt_cache")...)
}

// CounterWords returns the counters in place, the walker's then its
// cache's (sim.CounterWorder).
func (u *Unit) CounterWords() [][]uint64 {
	return append(sim.WordsOf(&u.stats), u.cache.CounterWords()...)
}

// Covers lists the coverage points the walker hits: where a piece starts
// in its first page and whether it goes on past it, and a page position
// that reached 2^64. Its cache's outcomes are points derived from its
// counters (mtt_cache).
func (u *Unit) Covers() []cover.ID {
	return append(cover.FirstPartIDs(cover.WalkMTT), cover.WrapPageIndex)
}

// SetCoverage makes the walker hit its points in c (nil: nowhere).
func (u *Unit) SetCoverage(c *cover.Collector) { u.cov = c }

// Eval runs one cycle: invalidation, fill, intake, then one page of one
// context.
func (u *Unit) Eval(now uint64) bool {
	busy := u.eval()
	u.occ.NoteN(now, uint64(u.busy))
	u.noCtx.Note(now, u.ctxWait)
	return busy
}

func (u *Unit) eval() bool {
	u.hit, u.miss, u.fill = false, false, false
	u.state = Idle
	if u.busy > 0 {
		u.state = Fetch
	}
	if u.p.Cut != nil && u.p.Cut.Valid() {
		u.cuts.Apply(u.p.Cut.Peek())
		u.p.Cut.Pop()
	}
	if u.p.Ctrl.Valid() && u.p.Ack.Ready() {
		iv := u.p.Ctrl.Peek()
		u.cache.Invalidate(iv.Lo, iv.Hi, iv.All)
		for i := range u.ctx {
			c := &u.ctx[i]
			u.cache.InvalidateSlot(&c.slot, iv.Lo, iv.Hi, iv.All)
		}
		u.p.Ack.Push(bus.Ack{ID: iv.ID})
		u.p.Ctrl.Pop()
	}
	memUsed := false
	if u.p.MemResp.Valid() {
		r := u.p.MemResp.Peek()
		id := int(r.ID) % len(u.ctx)
		c := &u.ctx[id]
		switch {
		case c.state != Fetch || !c.slot.Awaits(r.Addr):
			u.p.MemResp.Pop()
		case c.slot.Stale():
			// The data may predate the invalidation: fetch again.
			if u.p.MemReq.Ready() {
				u.p.MemReq.Push(pcie.ReadReq{ID: r.ID, Addr: u.cache.Refetch(&c.slot), Len: u.cache.LineBytes()})
				memUsed = true
				u.p.MemResp.Pop()
			}
		default:
			if r.Status == pcie.SC {
				u.cache.Fill(r.Addr, r.Data)
				u.fill = true
			}
			// The read answers every context waiting for its line: the
			// one that sent it and those that merged into it. A failed
			// read installs nothing; the contexts read again.
			for i := u.fetching.Next(0); i >= 0; i = u.fetching.Next(i + 1) {
				if w := &u.ctx[i]; w.slot.Awaits(r.Addr) && (i == id || u.merge) {
					w.slot.Filled(r.Data, r.Status == pcie.SC)
					w.state = Page
					u.fetching.Clear(i)
					u.paging.Set(i)
				}
			}
			u.p.MemResp.Pop()
		}
	}
	u.ctxWait = false
	if u.p.In.Valid() {
		u.ctxWait = u.busy == len(u.ctx)
		if i := u.idle.Next(0); i >= 0 {
			c := &u.ctx[i] // fields one by one: the slot's line bytes need no clearing
			c.state, c.w, c.t = Page, *u.p.In.Peek(), 0
			c.slot.Reset()
			u.idle.Clear(i)
			u.paging.Set(i)
			u.p.In.Pop()
			u.busy++
			u.stats.Pieces++
			u.stats.MaxBusy = max(u.stats.MaxBusy, u.busy)
		}
	}
	if u.busy == 0 {
		return false
	}
	if i := u.paging.Round(u.rr, func(i int) bool { return u.page(i, &memUsed) }); i >= 0 {
		u.rr = sim.Wrap(i+1, len(u.ctx))
		u.state = Page
		return true
	}
	// Contexts waiting for lines or outputs wake on a channel.
	return false
}

// page translates the next page of context i, or starts the fetch of its
// line; it reports whether the context acted.
func (u *Unit) page(id int, memUsed *bool) bool {
	c := &u.ctx[id]
	w := &c.w
	m := &w.MKC
	log := uint(m.LogEntitySize)
	size := uint64(1) << log
	d := w.Addr - m.StartAddr
	b := m.StartAddr & (size - 1)
	lo, c1 := bits.Add64(b, d, 0)
	lo, c2 := bits.Add64(lo, c.t, 0)
	hi := c1 + c2
	i := lo>>log | hi<<(64-log)
	off := w.Offset + c.t
	rest := w.Len - c.t
	if u.cuts.Stops(&w.Piece, off) {
		// The request failed below: the rest of the piece cannot
		// change its result.
		if !u.finish(id, bus.Outcome{Tag: w.Tag, Offset: off, Len: rest, Cut: true}) {
			return false
		}
		u.stats.Cuts++
		return true
	}
	if hi>>log != 0 || i >= 2*uint64(m.TranslationsOctwordSize) {
		ok := u.finish(id, bus.Outcome{Tag: w.Tag, Offset: off, Len: rest, Status: prm.TranslationRange, Level: w.Level})
		if ok && hi != 0 {
			u.cov.Hit(cover.WrapPageIndex)
		}
		return ok
	}
	addr := m.MTTHandle + EntryBytes*i
	data, ok := u.cache.Get(&c.slot, addr)
	if !ok {
		merged := u.merge && u.inFlight(u.cache.LineAddr(addr))
		if !merged && (*memUsed || !u.p.MemReq.Ready()) {
			return false
		}
		u.miss = true
		u.note(w.PD, u.cache.Use(&c.slot, addr, false, merged))
		la := u.cache.Start(&c.slot, addr)
		if !merged {
			*memUsed = true
			u.p.MemReq.Push(pcie.ReadReq{ID: uint32(id), Addr: la, Len: u.cache.LineBytes()})
		}
		c.state = Fetch
		u.paging.Clear(id)
		u.fetching.Set(id)
		return true
	}
	if !u.p.Done.Ready() {
		return false
	}
	u.hit = true
	u.note(w.PD, u.cache.Use(&c.slot, addr, true, false))
	at := addr - u.cache.LineAddr(addr)
	e := prm.DecodeMTTEntry(data[at : at+EntryBytes])
	pg := lo & (size - 1)
	n := min(rest, size-pg)
	u.stats.Pages++
	if c.t == 0 && u.cov != nil {
		u.cov.FirstPart(cover.WalkMTT, pg == 0, n < rest)
	}
	if !w.Type.PageAllows(e) {
		u.stats.Faults++
		return u.finish(id, bus.Outcome{Tag: w.Tag, Offset: off, Len: rest, Status: prm.PageAccess, Level: w.Level,
			Missing: true, FaultKey: w.Key, FaultAddr: w.Addr + c.t})
	}
	u.p.Done.Push(bus.Outcome{Tag: w.Tag, Offset: off, Len: n, Status: prm.OK, Level: w.Level,
		Seg: prm.Segment{Space: prm.SpaceDMA, Addr: e.PageBase(uint8(log)) + pg, Len: n}})
	c.t += n
	if c.t == w.Len {
		u.toIdle(id)
	}
	return true
}

// note counts what the cache counted of a lookup under the piece's PD.
func (u *Unit) note(pd uint32, c linecache.Counted) {
	if c != linecache.CountedNothing {
		u.byPD.Add(pd, c == linecache.CountedHit)
	}
}

// ByPD is the MTT cache's hits and misses by the piece's PD (a tenant),
// as mtt_cache counts them.
func (u *Unit) ByPD() []sim.KeyCount { return u.byPD.Counts() }

// inFlight reports whether a context waits for the line at la: a read of
// it is in flight (the line is not cached, or the context would have
// found it).
func (u *Unit) inFlight(la uint64) bool {
	for i := u.fetching.Next(0); i >= 0; i = u.fetching.Next(i + 1) {
		if u.ctx[i].slot.Awaits(la) {
			return true
		}
	}
	return false
}

// finish emits a failure covering the rest of context id's piece, if
// Done is ready.
func (u *Unit) finish(id int, o bus.Outcome) bool {
	if !u.p.Done.Ready() {
		return false
	}
	u.p.Done.Push(o)
	u.toIdle(id)
	return true
}

// toIdle frees context id.
func (u *Unit) toIdle(id int) {
	u.ctx[id].state = Idle
	u.paging.Clear(id)
	u.idle.Set(id)
	u.busy--
}

// The walker has no Commit: its registers are its own and are updated in
// Eval after they are read, as a next-state function would.
