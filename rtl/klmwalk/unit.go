package klmwalk

import (
	"math/bits"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/sim"
	"mkeysim/rtl/walk"
)

// StateEnum names a context's states (walk.State) in waveforms: FREE,
// SEARCH (walk.Act: stepping through entries) and FETCH.
var StateEnum = walk.Enum("klmwalk_state", "FREE", "SEARCH")

// Describe lists what the unit shows in its waveform scope: the contexts
// in use, the loop credits, then each context's state and the tag of its
// piece (held while it is free) (sim.Described).
func (u *Unit) Describe() sim.Description {
	head := []sim.Signal{{Name: "in_use", Width: sim.WidthFor(len(u.ctx))}, {Name: "credits", Width: sim.WidthFor(u.cfg.LoopSlots())}}
	return u.cx.Describe(u.name, "KLM walker", head, func(vs []uint64) {
		vs[0], vs[1] = uint64(u.cx.Busy()), uint64(u.Credits())
	}, StateEnum)
}

// Ports are the unit's channels, made by the top: its own, and those its
// contexts use (walk.Ports: line reads, invalidations, cuts).
type Ports struct {
	In     *sim.Chan[bus.Walk]   // level-0 pieces
	Nested *sim.Chan[bus.Walk]   // loop pieces, depth >= Config.LoopSlots()
	Loop   *sim.Chan[bus.Piece]  // children, to the MKC cache
	Credit *sim.Chan[bus.Credit] // reservations returned by the checker
	Done   *sim.Chan[bus.Outcome]
	walk.Ports
}

// Stats counts the unit's work. Each field's tags are the counter's one
// definition (sim.Counter): the group klmwalk, and the cache's counters
// under klm_cache.
type Stats struct {
	Pieces       uint64        `counter:"pieces" unit:"pieces" help:"checked KLM and Fixed Buffer Size pieces taken from In or Nested into a context"`
	Entries      uint64        `counter:"entries_read" unit:"entries" help:"list entries a context acted on: stepped over, used for a child, or found too deep"`
	Children     uint64        `counter:"children" unit:"pieces" help:"pieces sent one level down through the loop-back channel"`
	CreditStalls sim.Stalls    `counter:"credit_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a context waited for a free context one level down to reserve, summed over the contexts the cycle's round robin tried before one stepped"`
	MaxContexts  int           `counter:"max_contexts_in_use" unit:"contexts" kind:"max" help:"the most contexts busy at once, all levels together"`
	NoCtx        sim.Stalls    `counter:"context_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a level-0 piece waited at the head of In because no level-0 context was free (nested pieces wait for credits: credit_stall_cycles)"`
	Busy         sim.Occupancy `counter:"context_cycles" unit:"context-cycles" kind:"occupancy" mean:"mean_contexts_in_use" help:"contexts busy, all levels together, summed over the cycles (mean_contexts_in_use = context_cycles / cycles)"`
	Cuts         uint64        `counter:"cuts" unit:"pieces" help:"pieces stopped before their end because the request's result was decided by a failure below (bus.Cut)"`
	CursorHits   uint64        `counter:"cursor_hits" unit:"pieces" help:"variable KLM pieces whose search started at a remembered position of their list rather than entry 0"`
	// Cache is the KLM cache's counters (the cache keeps them).
	Cache *linecache.Stats `group:"klm_cache"`
}

// context is one piece being walked; its state and fetch slot are in
// Unit.cx.
type context struct {
	w  bus.Walk
	t  uint64 // bytes of the piece done
	j  uint64 // entry index
	tj uint64 // byte offset in the key's space where entry j starts
}

// Unit is the KLM recursion unit. The engine evaluates it only in the
// cycles something happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under klmwalk
	name           string
	cfg            Config
	p              Ports
	// cx is the contexts' states and fetch slots, the KLM cache, the
	// round-robin pointer and the cuts (walk.Contexts).
	cx    walk.Contexts
	ctx   []context
	level []uint8 // the level each context serves
	free  []int   // free contexts per level
	// freeAt holds the free contexts of each level: intake looks at
	// words, not at every context.
	freeAt []sim.Mask
	resv   []int // of which reserved for children in the loop
	cur    *cursors
	stats  Stats
	cov    *cover.Collector // nil: coverage off
	fired  bool
	// waits counts this cycle's credit stalls (Stats.CreditStalls).
	waits   uint64
	ctxWait bool // a level-0 piece waited at In this cycle, no context of level 0 free
}

// New makes the unit; cfg must be valid.
func New(name string, cfg Config, p Ports) *Unit {
	u := &Unit{name: name, cfg: cfg, p: p, ctx: make([]context, cfg.Contexts), level: cfg.levelOf(), cur: newCursors(cfg.Cursors),
		free: make([]int, cfg.MaxIndirection+1), resv: make([]int, cfg.MaxIndirection+1),
		cx: walk.New(cfg.Contexts, cfg.Cache, EntryBytes, cfg.MergeMisses, p.Ports)}
	u.freeAt = make([]sim.Mask, cfg.MaxIndirection+1)
	for l := range u.freeAt {
		u.freeAt[l] = sim.NewMask(len(u.ctx))
	}
	for i, l := range u.level {
		u.free[l]++
		u.freeAt[l].Set(i)
	}
	u.stats.Cache = &u.cx.Cache.Stats
	u.CounterSet = sim.Declare("klmwalk", &u.stats)
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// InUse is the number of busy contexts, for waveforms.
func (u *Unit) InUse() int { return u.cx.Busy() }

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
func (u *Unit) Context(i int) (walk.State, *bus.Walk) { return u.cx.State(i), &u.ctx[i].w }

// Stats returns the counters (Cache points at the cache's own).
func (u *Unit) Stats() Stats { return u.stats }

// Connections lists the channels the unit pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	p := &u.p
	return u.cx.Connections([]sim.Port{p.In, p.Nested, p.Credit}, []sim.Port{p.Loop, p.Done})
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
	u.stats.Busy.NoteN(now, uint64(u.cx.Busy()))
	u.stats.NoCtx.Note(now, u.ctxWait)
	return busy
}

func (u *Unit) eval(now uint64) bool {
	if u.p.Credit.Valid() {
		if l := u.p.Credit.Peek().Level; int(l) < len(u.resv) && u.resv[l] > 0 {
			u.resv[l]--
		}
		u.p.Credit.Pop()
	}
	if iv, _ := u.cx.Take(); iv != nil {
		u.cur.invalidate(iv.Lo, iv.Hi, iv.All)
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
	if u.cx.Busy() == 0 {
		u.stats.CreditStalls.NoteN(now, 0)
		return false
	}
	if u.cx.Step(u.step) {
		u.fired = true
		u.stats.CreditStalls.NoteN(now, u.waits)
		return true
	}
	// Contexts waiting for reads, credits or outputs wake on a channel.
	u.stats.CreditStalls.NoteN(now, u.waits)
	return false
}

// start gives free context i the piece w, and its search the nearest
// cursor of its list.
func (u *Unit) start(i int, w *bus.Walk) {
	c := &u.ctx[i]
	c.w, c.t, c.j, c.tj = *w, 0, 0, 0
	u.cx.Start(i, w.Tag)
	u.freeAt[u.level[i]].Clear(i)
	if m := &w.MKC; m.AccessMode == prm.ModeKLM {
		var ok bool
		if c.j, c.tj, ok = u.cur.find(m.MTTHandle, w.Addr-m.StartAddr); ok {
			u.stats.CursorHits++
		}
	}
	u.free[u.level[i]]--
	u.stats.Pieces++
	u.stats.MaxContexts = max(u.stats.MaxContexts, u.cx.Busy())
}

// finish frees context i.
func (u *Unit) finish(i int) {
	u.cx.Finish(i)
	u.freeAt[u.level[i]].Set(i)
	u.free[u.level[i]]++
}

// step advances context id by one entry; it reports whether it acted.
func (u *Unit) step(id int) bool {
	c := &u.ctx[id]
	w := &c.w
	m := &w.MKC
	d := w.Addr - m.StartAddr
	pos, carry := bits.Add64(d, c.t, 0)
	off := w.Offset + c.t
	rest := w.Len - c.t
	if u.cx.Stops(&w.Piece, off) {
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
	data, ok := u.cx.Get(id, addr)
	// A variable KLM search steps over every entry of the line it holds
	// that ends before its byte, in one cycle (the line's four byte counts
	// go through one adder chain), and stops at the line's end.
	for ok && !fixed {
		at := addr - u.cx.Cache.LineAddr(addr)
		bc := uint64(prm.DecodeKLMEntry(data[at : at+prm.KLMEntrySize]).ByteCount)
		if pos < c.tj+bc {
			break
		}
		u.cx.Hit(id, addr)
		u.stats.Entries++
		if bc == 0 {
			u.cov.Hit(cover.KLMZeroEntry)
		}
		c.tj += bc
		c.j++
		if c.j >= capacity || u.cx.Cache.LineAddr(addr+EntryBytes) != u.cx.Cache.LineAddr(addr) {
			return true
		}
		addr += prm.KLMEntrySize
	}
	if !ok {
		_, acted := u.cx.Miss(id, addr)
		return acted
	}
	at := addr - u.cx.Cache.LineAddr(addr)
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
		u.cx.Hit(id, addr)
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
	u.cx.Hit(id, addr)
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
