package klmwalk

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

// State is a context's state.
type State uint8

// The states.
const (
	Free State = iota
	Search
	Fetch
)

// StateNames names the states for waveforms.
func StateNames() map[uint64]string {
	return map[uint64]string{0: "FREE", 1: "SEARCH", 2: "FETCH"}
}

// StateEnum names the states in waveforms.
var StateEnum = &sim.Enum{Name: "klmwalk_state", Width: 2, Names: StateNames()}

// maxTraced bounds the contexts a waveform shows one by one.
const maxTraced = 32

// Describe lists what the unit shows in its waveform scope: the contexts
// in use, the loop credits, then each context's state and the tag of its
// piece (held while it is free) (sim.Described).
func (u *Unit) Describe() sim.Description {
	sigs := []sim.Signal{{Name: "in_use", Width: sim.WidthFor(len(u.ctx))}, {Name: "credits", Width: sim.WidthFor(u.cfg.LoopSlots())}}
	n := min(len(u.ctx), maxTraced)
	for i := range n {
		sigs = append(sigs, sim.Signal{Name: fmt.Sprintf("ctx%d_state", i), Enum: StateEnum}, sim.Signal{Name: fmt.Sprintf("ctx%d_tag", i), Width: 16})
	}
	return sim.Description{Scope: u.name, Signals: sigs, Sample: func(vs []uint64) {
		vs[0], vs[1] = uint64(u.busy), uint64(u.Credits())
		for i := range n {
			vs[2+2*i], vs[3+2*i] = uint64(u.ctx[i].state), uint64(u.ctx[i].w.Tag)
		}
	}}
}

// Ports are the unit's channels, made by the top.
type Ports struct {
	In      *sim.Chan[bus.Walk]   // level-0 pieces
	Nested  *sim.Chan[bus.Walk]   // loop pieces, depth >= Config.LoopSlots()
	Loop    *sim.Chan[bus.Piece]  // children, to the MKC cache
	Credit  *sim.Chan[bus.Credit] // reservations returned by the checker
	Done    *sim.Chan[bus.Outcome]
	MemReq  *sim.Chan[pcie.ReadReq]
	MemResp *sim.Chan[pcie.ReadResp]
	Ctrl    *sim.Chan[bus.Inval]
	Ack     *sim.Chan[bus.Ack]
	// Cut carries the reorder buffer's cuts (bus.Cut); nil: none.
	Cut *sim.Chan[bus.Cut]
}

// Stats counts the unit's work. Each field's tags are the counter's one
// definition (sim.Counter): the group klmwalk, and the cache's counters
// under klm_cache.
type Stats struct {
	Cache        linecache.Stats `counter:"-"`
	Pieces       uint64          `counter:"pieces" unit:"pieces" help:"checked KLM and Fixed Buffer Size pieces taken from In or Nested into a context"`
	Entries      uint64          `counter:"entries_read" unit:"entries" help:"list entries a context acted on: stepped over, used for a child, or found too deep"`
	Children     uint64          `counter:"children" unit:"pieces" help:"pieces sent one level down through the loop-back channel"`
	CreditStalls uint64          `counter:"credit_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a context waited for a free context one level down to reserve, summed over the contexts the cycle's round robin tried before one stepped"`
	MaxContexts  int             `counter:"max_contexts_in_use" unit:"contexts" kind:"max" help:"the most contexts busy at once, all levels together"`
	NoCtx        uint64          `counter:"context_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a level-0 piece waited at the head of In because no level-0 context was free (nested pieces wait for credits: credit_stall_cycles)"`
	Busy         uint64          `counter:"context_cycles" unit:"context-cycles" kind:"occupancy" mean:"mean_contexts_in_use" help:"contexts busy, all levels together, summed over the cycles (mean_contexts_in_use = context_cycles / cycles)"`
	Cuts         uint64          `counter:"cuts" unit:"pieces" help:"pieces stopped before their end because the request's result was decided by a failure below (bus.Cut)"`
	CursorHits   uint64          `counter:"cursor_hits" unit:"pieces" help:"variable KLM pieces whose search started at a remembered position of their list rather than entry 0"`
}

// context is one piece being walked.
type context struct {
	state State
	w     bus.Walk
	t     uint64         // bytes of the piece done
	j     uint64         // entry index
	tj    uint64         // byte offset in the key's space where entry j starts
	slot  linecache.Slot // the line in flight and the last line filled
}

// Unit is the KLM recursion unit. The engine evaluates it only in the
// cycles something happens to it (sim.Base).
type Unit struct {
	sim.Base
	name  string
	cfg   Config
	p     Ports
	cache *linecache.Cache
	ctx   []context
	level []uint8 // the level each context serves
	free  []int   // free contexts per level
	// freeAt holds the free contexts of each level, search those in
	// Search: the cycle's searches look at words, not at every context.
	freeAt []sim.Mask
	search sim.Mask
	// fetching holds the contexts waiting for a line.
	fetching sim.Mask
	resv     []int // of which reserved for children in the loop
	busy     int   // contexts in use
	rr       int   // round-robin pointer
	cuts     bus.Cuts
	cur      *cursors
	stats    Stats
	cov      *cover.Collector // nil: coverage off
	fired    bool
	// waits counts this cycle's credit stalls; stall their cycles.
	waits   uint64
	stall   sim.Stalls
	occ     sim.Occupancy // Stats.Busy
	noCtx   sim.Stalls    // Stats.NoCtx
	ctxWait bool          // a level-0 piece waited at In this cycle, no context of level 0 free
}

// New makes the unit; cfg must be valid.
func New(name string, cfg Config, p Ports) *Unit {
	u := &Unit{name: name, cfg: cfg, p: p, cache: linecache.New(cfg.Cache, EntryBytes),
		ctx: make([]context, cfg.Contexts), level: cfg.levelOf(), cur: newCursors(cfg.Cursors),
		free: make([]int, cfg.MaxIndirection+1), resv: make([]int, cfg.MaxIndirection+1)}
	u.search, u.fetching = sim.NewMask(len(u.ctx)), sim.NewMask(len(u.ctx))
	u.freeAt = make([]sim.Mask, cfg.MaxIndirection+1)
	for l := range u.freeAt {
		u.freeAt[l] = sim.NewMask(len(u.ctx))
	}
	for i, l := range u.level {
		u.free[l]++
		u.freeAt[l].Set(i)
	}
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// InUse is the number of busy contexts, for waveforms.
func (u *Unit) InUse() int { return u.busy }

// Credits is the number of nested contexts free and not reserved: how many
// more children may enter the loop now.
func (u *Unit) Credits() int {
	n := 0
	for l := 1; l < len(u.free); l++ {
		n += u.free[l] - u.resv[l]
	}
	return n
}

// Context returns context i's state and piece, for waveforms.
func (u *Unit) Context(i int) (State, *bus.Walk) { return u.ctx[i].state, &u.ctx[i].w }

// Stats returns the counters.
func (u *Unit) Stats() Stats {
	s := u.stats
	s.Cache = u.cache.Stats
	s.CreditStalls = u.stall.Count()
	s.Busy = u.occ.Count()
	s.NoCtx = u.noCtx.Count()
	return s
}

// Counters lists the counters: klmwalk's, then the cache's as klm_cache.
func (u *Unit) Counters() []sim.Counter {
	s := u.Stats()
	return append(sim.CountersOf("klmwalk", &s), u.cache.Counters("klm_cache")...)
}

// CounterWords returns the counters in place, the walker's then its
// cache's (sim.CounterWorder).
func (u *Unit) CounterWords() [][]uint64 {
	return append(sim.WordsOf(&u.stats), u.cache.CounterWords()...)
}

// Connections lists the channels the unit pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	p := &u.p
	in = []sim.Port{p.In, p.Nested, p.Credit, p.MemResp, p.Ctrl}
	if p.Cut != nil {
		in = append(in, p.Cut)
	}
	return in, []sim.Port{p.Loop, p.Done, p.MemReq, p.Ack}
}

// Covers lists the coverage points the unit hits: where a piece starts in
// its first entry and whether it goes on past it (variable KLM and Fixed
// Buffer Size), an entry of byte_count 0 stepped over, and a lower
// address taken modulo 2^64. Its cache's
// outcomes are points derived from its counters (klm_cache).
func (u *Unit) Covers() []cover.ID {
	out := append(cover.FirstPartIDs(cover.WalkKLM), cover.FirstPartIDs(cover.WalkFBS)...)
	return append(out, cover.KLMZeroEntry, cover.WrapLowerAddr)
}

// SetCoverage makes the unit hit its points in c (nil: nowhere).
func (u *Unit) SetCoverage(c *cover.Collector) { u.cov = c }

// freeCtx returns a free context of the level, or -1.
func (u *Unit) freeCtx(level uint8) int {
	if u.free[level] == 0 {
		return -1
	}
	return u.freeAt[level].Next(0)
}

// Eval runs one cycle: credits, invalidation, fills, intake, then one step
// of one context.
func (u *Unit) Eval(now uint64) bool {
	u.ctxWait = false
	busy := u.eval(now)
	u.occ.NoteN(now, uint64(u.busy))
	u.noCtx.Note(now, u.ctxWait)
	return busy
}

func (u *Unit) eval(now uint64) bool {
	if u.p.Credit.Valid() {
		if l := u.p.Credit.Peek().Level; int(l) < len(u.resv) && u.resv[l] > 0 {
			u.resv[l]--
		}
		u.p.Credit.Pop()
	}
	if u.p.Cut != nil && u.p.Cut.Valid() {
		u.cuts.Apply(u.p.Cut.Peek())
		u.p.Cut.Pop()
	}
	if u.p.Ctrl.Valid() && u.p.Ack.Ready() {
		iv := u.p.Ctrl.Peek()
		u.cache.Invalidate(iv.Lo, iv.Hi, iv.All)
		u.cur.invalidate(iv.Lo, iv.Hi, iv.All)
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
		id := int(r.ID % uint32(len(u.ctx)))
		c := &u.ctx[id]
		switch {
		case c.state != Fetch || !c.slot.Awaits(r.Addr):
			u.p.MemResp.Pop() // not ours any more
		case c.slot.Stale():
			if u.p.MemReq.Ready() {
				u.p.MemReq.Push(pcie.ReadReq{ID: r.ID, Addr: u.cache.Refetch(&c.slot), Len: u.cache.LineBytes()})
				memUsed = true
				u.p.MemResp.Pop()
			}
		default:
			if r.Status == pcie.SC {
				u.cache.Fill(r.Addr, r.Data)
			}
			// The read answers every context waiting for its line: the
			// one that sent it and those that merged into it. A failed
			// read installs nothing: the contexts read again.
			for i := u.fetching.Next(0); i >= 0; i = u.fetching.Next(i + 1) {
				if w := &u.ctx[i]; w.slot.Awaits(r.Addr) && (i == id || u.cfg.MergeMisses) {
					w.slot.Filled(r.Data, r.Status == pcie.SC)
					w.state = Search
					u.fetching.Clear(i)
					u.search.Set(i)
				}
			}
			u.p.MemResp.Pop()
		}
	}
	// Intake: a nested piece takes the context reserved for it at its
	// level; a level-0 piece takes a free level-0 context.
	if u.p.Nested.Valid() {
		w := u.p.Nested.Peek()
		if l := w.Level; int(l) < len(u.free) {
			if i := u.freeCtx(l); i >= 0 {
				u.start(i, w)
				if u.resv[l] > 0 {
					u.resv[l]--
				}
				u.p.Nested.Pop()
			}
		}
	} else if u.p.In.Valid() {
		if i := u.freeCtx(0); i >= 0 {
			u.start(i, u.p.In.Peek())
			u.p.In.Pop()
		} else {
			u.ctxWait = true
		}
	}
	u.fired = false
	u.waits = 0
	if u.busy == 0 {
		u.stall.NoteN(now, 0)
		return false
	}
	if i := u.search.Round(u.rr, func(i int) bool { return u.step(i, &u.ctx[i], &memUsed) }); i >= 0 {
		u.rr = sim.Wrap(i+1, len(u.ctx))
		u.fired = true
		u.stall.NoteN(now, u.waits)
		return true
	}
	// Contexts waiting for reads, credits or outputs wake on a channel.
	u.stall.NoteN(now, u.waits)
	return false
}

func (u *Unit) start(i int, w *bus.Walk) {
	// Field by field: the slot's line bytes need no clearing.
	c := &u.ctx[i]
	c.state, c.w, c.t, c.j, c.tj = Search, *w, 0, 0, 0
	c.slot.Reset()
	u.search.Set(i)
	u.freeAt[u.level[i]].Clear(i)
	if m := &w.MKC; m.AccessMode == prm.ModeKLM {
		var ok bool
		if c.j, c.tj, ok = u.cur.find(m.MTTHandle, w.Addr-m.StartAddr); ok {
			u.stats.CursorHits++
		}
	}
	u.free[u.level[i]]--
	u.busy++
	u.stats.Pieces++
	if u.busy > u.stats.MaxContexts {
		u.stats.MaxContexts = u.busy
	}
}

// inFlight reports whether a context waits for the line at la: a read of
// it is in flight.
func (u *Unit) inFlight(la uint64) bool {
	for i := u.fetching.Next(0); i >= 0; i = u.fetching.Next(i + 1) {
		if u.ctx[i].slot.Awaits(la) {
			return true
		}
	}
	return false
}

func (u *Unit) finish(i int) {
	u.ctx[i].state = Free
	u.search.Clear(i)
	u.freeAt[u.level[i]].Set(i)
	u.free[u.level[i]]++
	u.busy--
}

// step advances context c by one entry; it reports whether it acted.
func (u *Unit) step(id int, c *context, memUsed *bool) bool {
	w := &c.w
	m := &w.MKC
	d := w.Addr - m.StartAddr
	pos, carry := bits.Add64(d, c.t, 0)
	off := w.Offset + c.t
	rest := w.Len - c.t
	if u.cuts.Stops(&w.Piece, off) {
		if !u.p.Done.Ready() {
			return false
		}
		u.p.Done.Push(bus.Outcome{Tag: w.Tag, Offset: off, Len: rest, Cut: true})
		u.stats.Cuts++
		u.finish(id)
		return true
	}
	capacity := uint64(m.TranslationsOctwordSize)
	fixed := m.AccessMode == prm.ModeFixedBufferSize
	var in uint64 // offset of pos inside the entry, for Fixed Buffer Size
	if fixed {
		log := uint(m.LogEntitySize)
		j := pos>>log | carry<<(64-log)
		if carry>>log != 0 || j >= capacity {
			return u.fail(id, prm.TranslationRange, w.Level, off, rest)
		}
		c.j = j
		in = pos & (uint64(1)<<log - 1)
	} else if carry != 0 || c.j >= capacity {
		return u.fail(id, prm.TranslationRange, w.Level, off, rest)
	}
	addr := m.MTTHandle + prm.KLMEntrySize*c.j
	data, ok := u.cache.Get(&c.slot, addr)
	// A variable KLM search steps over every entry of the line it holds
	// that ends before its byte, in one cycle (the line's four byte counts
	// go through one adder chain), and stops at the line's end.
	for ok && !fixed {
		at := addr - u.cache.LineAddr(addr)
		bc := uint64(prm.DecodeKLMEntry(data[at : at+prm.KLMEntrySize]).ByteCount)
		if pos < c.tj+bc {
			break
		}
		u.cache.Use(&c.slot, addr, true, false)
		u.stats.Entries++
		if bc == 0 {
			u.cov.Hit(cover.KLMZeroEntry)
		}
		c.tj += bc
		c.j++
		if c.j >= capacity || u.cache.LineAddr(addr+EntryBytes) != u.cache.LineAddr(addr) {
			return true
		}
		addr += prm.KLMEntrySize
	}
	if !ok {
		merged := u.cfg.MergeMisses && u.inFlight(u.cache.LineAddr(addr))
		if !merged && (*memUsed || !u.p.MemReq.Ready()) {
			return false
		}
		u.cache.Use(&c.slot, addr, false, merged)
		c.state = Fetch
		u.search.Clear(id)
		u.fetching.Set(id)
		la := u.cache.Start(&c.slot, addr)
		if !merged {
			*memUsed = true
			u.p.MemReq.Push(pcie.ReadReq{ID: uint32(id), Addr: la, Len: u.cache.LineBytes()})
		}
		return true
	}
	at := addr - u.cache.LineAddr(addr)
	e := prm.DecodeKLMEntry(data[at : at+prm.KLMEntrySize])
	var n, lower, wrap uint64
	atStart := in == 0 // the piece's byte is its entry's first
	if fixed {
		size := uint64(1) << m.LogEntitySize
		n = min(rest, size-in)
		lower, wrap = bits.Add64(e.Address, in, 0)
	} else {
		bc := uint64(e.ByteCount)
		n = min(rest, c.tj+bc-pos)
		lower, wrap = bits.Add64(e.Address, pos-c.tj, 0)
		atStart = pos == c.tj
	}
	level := w.Level + 1
	if int(level) > u.cfg.MaxIndirection {
		// The first byte that needs a key too deep: the request fails
		// here, so the failure covers the rest of the piece.
		if !u.p.Done.Ready() {
			return false
		}
		u.cache.Use(&c.slot, addr, true, false)
		u.stats.Entries++
		u.coverEntry(c, fixed, atStart, n < rest, wrap != 0)
		return u.fail(id, prm.IndirectionDepth, level, off, rest)
	}
	if u.free[level]-u.resv[level] == 0 {
		u.waits++
		return false
	}
	if !u.p.Loop.Ready() {
		return false
	}
	u.cache.Use(&c.slot, addr, true, false)
	u.stats.Entries++
	u.coverEntry(c, fixed, atStart, n < rest, wrap != 0)
	u.resv[level]++
	u.p.Loop.Push(bus.Piece{Tag: w.Tag, Gen: w.Gen, Level: level, Type: w.Type, Key: e.MKey, Addr: lower, Len: n,
		Offset: off, QPN: w.QPN, PD: w.PD})
	u.stats.Children++
	c.t += n
	if c.t == w.Len {
		if !fixed {
			u.cur.note(m.MTTHandle, c.j, c.tj) // where the piece left off
		}
		u.finish(id)
	}
	return true
}

// coverEntry hits the points of an entry used for a child: for the first
// part of a piece, whether the piece starts at the entry's first byte and
// goes on past it; and a lower address taken modulo 2^64.
func (u *Unit) coverEntry(c *context, fixed, atStart, cross, wrapped bool) {
	if u.cov == nil {
		return
	}
	if c.t == 0 {
		walk := cover.WalkKLM
		if fixed {
			walk = cover.WalkFBS
		}
		u.cov.FirstPart(walk, atStart, cross)
	}
	if wrapped {
		u.cov.Hit(cover.WrapLowerAddr)
	}
}

// fail ends context id with a failure covering the rest of its piece.
func (u *Unit) fail(id int, st prm.Status, level uint8, off, n uint64) bool {
	if !u.p.Done.Ready() {
		return false
	}
	u.p.Done.Push(bus.Outcome{Tag: u.ctx[id].w.Tag, Offset: off, Len: n, Status: st, Level: level})
	u.finish(id)
	return true
}

// Acted reports whether a context stepped this cycle, which may move no
// channel (an entry stepped over in a cached line): the engine counts it
// as progress (sim.Actor).
func (u *Unit) Acted() bool { return u.fired }

// The unit has no Commit: its registers are its own and are updated in
// Eval after they are read.
