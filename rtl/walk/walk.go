package walk

import (
	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// State is a context's state.
type State uint8

// The states.
const (
	Free  State = iota // no piece
	Act                // a piece to act on
	Fetch              // waiting for a line
)

// Enum names the states in a walker's waveforms: name is the translate
// filter's, free and act the walker's names of Free and Act.
func Enum(name, free, act string) *sim.Enum {
	return &sim.Enum{Name: name, Width: 2, Names: map[uint64]string{uint64(Free): free, uint64(Act): act, uint64(Fetch): "FETCH"}}
}

// Ports are the channels of a walker that Contexts uses, made by the top;
// a walker's Ports embed them.
type Ports struct {
	MemReq  *sim.Chan[pcie.ReadReq]  // line reads, ID the context
	MemResp *sim.Chan[pcie.ReadResp] // their completions
	Ctrl    *sim.Chan[bus.Inval]     // invalidations of list bytes
	Ack     *sim.Chan[bus.Ack]       // their acknowledgements
	// Cut carries the reorder buffer's cuts (bus.Cut); nil: none.
	Cut *sim.Chan[bus.Cut]
}

// Contexts is a walker's contexts as far as the walkers share them (the
// package doc): the state, fetch slot and piece tag of each, the line
// cache, the read port and the cuts. A context's piece and position are
// the walker's own. A walker holds its Contexts by value (New), so that
// each use costs no load of a pointer.
type Contexts struct {
	// Cache is the line cache the contexts share.
	Cache *linecache.Cache
	p     Ports
	slot  []linecache.Slot
	tag   []uint16 // of the piece, held while the context is free (waveforms)
	// act and fetching hold the contexts in Act and Fetch (the others are
	// Free): the cycle's searches look at words, not at every context.
	act, fetching sim.Mask
	merge         bool
	busy          int
	rr            int // the round-robin pointer
	memUsed       bool
	cuts          bus.Cuts
	iv            bus.Inval // the invalidation Take carried out last
}

// New makes n free contexts over an empty cache of cfg's geometry, of
// entries of entryBytes bytes (cfg must be valid); merge makes a miss on
// a line another context is reading join that read.
func New(n int, cfg linecache.Config, entryBytes int, merge bool, p Ports) Contexts {
	return Contexts{Cache: linecache.New(cfg, entryBytes), p: p, slot: make([]linecache.Slot, n), tag: make([]uint16, n),
		act: sim.NewMask(n), fetching: sim.NewMask(n), merge: merge}
}

// Len is the number of contexts.
func (c *Contexts) Len() int { return len(c.slot) }

// Busy is the number of contexts not Free.
func (c *Contexts) Busy() int { return c.busy }

// State is context i's state.
func (c *Contexts) State(i int) State {
	switch {
	case c.fetching.Has(i):
		return Fetch
	case c.act.Has(i):
		return Act
	}
	return Free
}

// Start gives free context i a new piece, of tag tag: it is in Act, with
// no line in flight and none kept.
func (c *Contexts) Start(i int, tag uint16) {
	c.tag[i] = tag
	c.slot[i].Reset()
	c.act.Set(i)
	c.busy++
}

// Finish frees context i, which is in Act.
func (c *Contexts) Finish(i int) {
	c.act.Clear(i)
	c.busy--
}

// Step calls f on the contexts in Act, in round-robin order from the one
// after the last that acted, until f reports that its context acted; it
// reports whether one did.
func (c *Contexts) Step(f func(i int) bool) bool {
	i := c.act.Round(c.rr, f)
	if i < 0 {
		return false
	}
	c.rr = sim.Wrap(i+1, len(c.slot))
	return true
}

// Stops reports whether the byte at offset off of piece p's request is
// cut: the request's result is decided (bus.Cuts).
func (c *Contexts) Stops(p *bus.Piece, off uint64) bool { return c.cuts.Stops(p, off) }

// Take takes the cycle's inputs the walkers share, in this order, and
// frees the read port for the cycle: it must be called once in every
// Eval, before Step.
//
//   - A cut waiting on Ports.Cut is recorded (Stops).
//   - An invalidation waiting on Ctrl is carried out if Ack can take its
//     acknowledgement: the cache drops the lines overlapping its range,
//     each context drops its kept line if it overlaps, and a line in
//     flight that overlaps turns stale. Take returns it (else nil; it
//     holds until the next Take), for what the walker derives from list
//     bytes of its own.
//   - A read completion waiting on MemResp: one for a context that no
//     longer waits for its line is dropped; a stale one is read again
//     when the port can take it (else it waits); any other fills the
//     cache if it succeeded (filled true) and moves to Act every context
//     waiting for the line that sent the read or (merged misses) joined
//     it, each keeping the line in its slot.
func (c *Contexts) Take() (iv *bus.Inval, filled bool) {
	// Most cycles have none of the three: the tests are here, the work
	// in calls.
	if c.p.Cut != nil && c.p.Cut.Valid() {
		c.takeCut()
	}
	if c.p.Ctrl.Valid() && c.p.Ack.Ready() {
		iv = c.takeInval()
	}
	c.memUsed = false
	if c.p.MemResp.Valid() {
		filled = c.takeResp()
	}
	return iv, filled
}

func (c *Contexts) takeCut() {
	c.cuts.Apply(c.p.Cut.Peek())
	c.p.Cut.Pop()
}

func (c *Contexts) takeInval() *bus.Inval {
	iv := &c.iv
	*iv = *c.p.Ctrl.Peek()
	c.Cache.Invalidate(iv.Lo, iv.Hi, iv.All)
	for i := range c.slot {
		c.Cache.InvalidateSlot(&c.slot[i], iv.Lo, iv.Hi, iv.All)
	}
	c.p.Ack.Push(bus.Ack{ID: iv.ID})
	c.p.Ctrl.Pop()
	return iv
}

func (c *Contexts) takeResp() (filled bool) {
	r := c.p.MemResp.Peek()
	id := int(r.ID % uint32(len(c.slot)))
	s := &c.slot[id]
	switch {
	case !c.fetching.Has(id) || !s.Awaits(r.Addr):
		c.p.MemResp.Pop() // not ours any more
	case s.Stale():
		// The data may predate the invalidation: fetch again.
		if c.p.MemReq.Ready() {
			c.p.MemReq.Push(pcie.ReadReq{ID: r.ID, Addr: c.Cache.Refetch(s), Len: c.Cache.LineBytes()})
			c.memUsed = true
			c.p.MemResp.Pop()
		}
	default:
		ok := r.Status == pcie.SC
		if ok {
			c.Cache.Fill(r.Addr, r.Data)
		}
		// The read answers every context waiting for its line: the one
		// that sent it and those that merged into it. A failed read
		// installs nothing: the contexts read again.
		for i := c.fetching.Next(0); i >= 0; i = c.fetching.Next(i + 1) {
			if w := &c.slot[i]; w.Awaits(r.Addr) && (i == id || c.merge) {
				w.Filled(r.Data, ok)
				c.fetching.Clear(i)
				c.act.Set(i)
			}
		}
		c.p.MemResp.Pop()
		return ok
	}
	return false
}

// Get returns the line holding addr for context i, from the cache or the
// context's kept line, counting nothing (Hit or Miss count once the
// context acts).
func (c *Contexts) Get(i int, addr uint64) ([]byte, bool) { return c.Cache.Get(&c.slot[i], addr) }

// Hit counts a lookup of addr that context i found (Get) and acted on
// (linecache.Cache.Use), and returns what was counted.
func (c *Contexts) Hit(i int, addr uint64) linecache.Counted {
	return c.Cache.Use(&c.slot[i], addr, true, false)
}

// Miss starts context i's fetch of the line holding addr, which Get did
// not find: with merged misses, a context that joins the read of the line
// in flight sends none; otherwise it sends a read of the line (ID i),
// unless the read port pushed already this cycle or is not ready: then
// the context waits in Act and Miss reports false. A context that missed
// is in Fetch, and Miss returns what the cache counted.
func (c *Contexts) Miss(i int, addr uint64) (linecache.Counted, bool) {
	merged := c.merge && c.inFlight(c.Cache.LineAddr(addr))
	if !merged && (c.memUsed || !c.p.MemReq.Ready()) {
		return linecache.CountedNothing, false
	}
	s := &c.slot[i]
	counted := c.Cache.Use(s, addr, false, merged)
	la := c.Cache.Start(s, addr)
	if !merged {
		c.memUsed = true
		c.p.MemReq.Push(pcie.ReadReq{ID: uint32(i), Addr: la, Len: c.Cache.LineBytes()})
	}
	c.act.Clear(i)
	c.fetching.Set(i)
	return counted, true
}

// inFlight reports whether a context waits for the line at la: a read of
// it is in flight (the line is not cached, or the context would have
// found it).
func (c *Contexts) inFlight(la uint64) bool {
	for i := c.fetching.Next(0); i >= 0; i = c.fetching.Next(i + 1) {
		if c.slot[i].Awaits(la) {
			return true
		}
	}
	return false
}

// Connections appends the channels Contexts pops to in and those it
// pushes to out, after the walker's own (sim.Connected).
func (c *Contexts) Connections(in, out []sim.Port) ([]sim.Port, []sim.Port) {
	p := &c.p
	in = append(in, p.MemResp, p.Ctrl)
	if p.Cut != nil {
		in = append(in, p.Cut)
	}
	return in, append(out, p.MemReq, p.Ack)
}
