package mttwalk

import (
	"math/bits"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/sim"
	"mkeysim/rtl/walk"
)

// State is a walker context's FSM state (walk.State).
type State = walk.State

// The states: IDLE, PAGE (walk.Act: translating pages) and FETCH.
const (
	Idle  = walk.Free
	Page  = walk.Act
	Fetch = walk.Fetch
)

// StateEnum names the states in waveforms.
var StateEnum = walk.Enum("mttwalk_state", "IDLE", "PAGE")

// Describe lists what the walker shows in its waveform scope: its state,
// the contexts in use, the cache's strobes, then each context's state and
// the tag of its piece (held while it is idle) (sim.Described).
func (u *Unit) Describe() sim.Description {
	head := []sim.Signal{{Name: "state", Enum: StateEnum}, {Name: "in_use", Width: sim.WidthFor(len(u.ctx))},
		sim.Bit("hit"), sim.Bit("miss"), sim.Bit("fill")}
	return u.cx.Describe(u.name, "MTT walker", head, func(vs []uint64) {
		h, m, f := u.Strobes()
		vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(u.State()), uint64(u.cx.Busy()), sim.B(h), sim.B(m), sim.B(f)
	}, StateEnum)
}

// Ports are the walker's channels, made by the top: its own, and those
// its contexts use (walk.Ports: line reads, invalidations, cuts).
type Ports struct {
	In   *sim.Chan[bus.Walk]
	Done *sim.Chan[bus.Outcome]
	walk.Ports
}

// Stats counts the walker's work. Each field's tags are the counter's one
// definition (sim.Counter): the group mttwalk, and the cache's counters
// under mtt_cache.
type Stats struct {
	Pieces  uint64        `counter:"pieces" unit:"pieces" help:"checked MTT pieces taken from In into a walker context"`
	Pages   uint64        `counter:"pages" unit:"pages" help:"MTT entries read and judged for a page of a piece (a segment or a page-bit failure)"`
	Faults  uint64        `counter:"page_bit_misses" unit:"pages" help:"pages whose entry lacked the rd_en/wr_en bit the access needs (PAGE_ACCESS, or PAGE_FAULT on an ODP key)"`
	MaxBusy int           `counter:"max_walkers_in_use" unit:"contexts" kind:"max" help:"the most walker contexts busy at once"`
	Cuts    uint64        `counter:"cuts" unit:"pieces" help:"pieces stopped before their end because the request's result was decided by a failure below (bus.Cut)"`
	NoCtx   sim.Stalls    `counter:"context_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a piece waited at the head of In because every walker context was busy"`
	Busy    sim.Occupancy `counter:"walker_cycles" unit:"walker-cycles" kind:"occupancy" mean:"mean_walkers_in_use" help:"walker contexts busy, summed over the cycles (mean_walkers_in_use = walker_cycles / cycles)"`
	// Cache is the MTT cache's counters (the cache keeps them).
	Cache *linecache.Stats `group:"mtt_cache"`
}

// walker is one piece being walked; its state and fetch slot are in
// Unit.cx.
type walker struct {
	w bus.Walk
	t uint64 // bytes done
}

// Unit is the MTT walker: Walkers contexts share one MTT cache, one
// output and one PCIe read port; each cycle one context translates one
// page or starts one fetch. The engine evaluates it only in the cycles
// something happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under mttwalk
	name           string
	p              Ports
	// cx is the contexts' states and fetch slots, the MTT cache, the
	// round-robin pointer and the cuts (walk.Contexts).
	cx  walk.Contexts
	ctx []walker
	// idle holds the idle contexts: intake looks at words, not at every
	// context.
	idle sim.Mask

	stats Stats
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
	u := &Unit{name: name, p: p, ctx: make([]walker, cfg.Walkers), idle: sim.NewMask(cfg.Walkers),
		cx: walk.New(cfg.Walkers, cfg.Cache, EntryBytes, cfg.MergeMisses, p.Ports)}
	for i := range u.ctx {
		u.idle.Set(i)
	}
	u.stats.Cache = &u.cx.Cache.Stats
	u.CounterSet = sim.Declare("mttwalk", &u.stats)
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
	if u.cx.Busy() > 0 {
		return Fetch
	}
	return Idle
}

// Connections lists the channels the walker pops and pushes
// (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	return u.cx.Connections([]sim.Port{u.p.In}, []sim.Port{u.p.Done})
}

// InUse is the number of busy contexts.
func (u *Unit) InUse() int { return u.cx.Busy() }

// Current is context i's piece and bytes done, for waveforms.
func (u *Unit) Current(i int) (State, *bus.Walk, uint64) {
	return u.cx.State(i), &u.ctx[i].w, u.ctx[i].t
}

// Strobes are this cycle's cache events: a page translated from a cached
// line (hit), a line fetch started (miss), a line filled (fill).
func (u *Unit) Strobes() (hit, miss, fill bool) {
	if !u.Ran() {
		return false, false, false
	}
	return u.hit, u.miss, u.fill
}

// Stats returns the counters (Cache points at the cache's own).
func (u *Unit) Stats() Stats { return u.stats }

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
	u.stats.Busy.NoteN(now, uint64(u.cx.Busy()))
	u.stats.NoCtx.Note(now, u.ctxWait)
	return busy
}

func (u *Unit) eval() bool {
	u.hit, u.miss, u.fill = false, false, false
	u.state = Idle
	if u.cx.Busy() > 0 {
		u.state = Fetch
	}
	_, u.fill = u.cx.Take()
	u.ctxWait = false
	if u.p.In.Valid() {
		u.ctxWait = u.cx.Busy() == len(u.ctx)
		if i := u.idle.Next(0); i >= 0 {
			c := &u.ctx[i]
			c.w, c.t = *u.p.In.Peek(), 0
			u.cx.Start(i, c.w.Tag)
			u.idle.Clear(i)
			u.p.In.Pop()
			u.stats.Pieces++
			u.stats.MaxBusy = max(u.stats.MaxBusy, u.cx.Busy())
		}
	}
	if u.cx.Busy() == 0 {
		return false
	}
	if u.cx.Step(u.page) {
		u.state = Page
		return true
	}
	// Contexts waiting for lines or outputs wake on a channel.
	return false
}

// page translates the next page of context i, or starts the fetch of its
// line; it reports whether the context acted.
func (u *Unit) page(id int) bool {
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
	if u.cx.Stops(&w.Piece, off) {
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
	data, ok := u.cx.Get(id, addr)
	if !ok {
		counted, acted := u.cx.Miss(id, addr)
		if acted {
			u.miss = true
			u.note(w.PD, counted)
		}
		return acted
	}
	if !u.p.Done.Ready() {
		return false
	}
	u.hit = true
	u.note(w.PD, u.cx.Hit(id, addr))
	at := addr - u.cx.Cache.LineAddr(addr)
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
		Seg: prm.Segment{Space: prm.SpaceDMA, Addr: e.PageBase(uint8(log)) + pg, Len: n}, Key: w.Key, Plat: bus.PlatformOf(m)})
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
	u.cx.Finish(id)
	u.idle.Set(id)
}

// The walker has no Commit: its registers are its own and are updated in
// Eval after they are read, as a next-state function would.
