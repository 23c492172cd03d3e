package protcheck

import (
	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
)

// Ports are the stage's channels, made by the top.
type Ports struct {
	In, InLoop *sim.Chan[bus.Lookup]
	Done       *sim.Chan[bus.Outcome]
	MTT        *sim.Chan[bus.Walk]
	KLM        *sim.Chan[bus.Walk]
	Nested     *sim.Chan[bus.Walk]
	Credit     *sim.Chan[bus.Credit]
	Ack        *sim.Chan[bus.Ack]
}

// Stats counts the stage's outcomes. Each field's tags are the counter's
// one definition (sim.Counter), under the group protcheck.
type Stats struct {
	Checked uint64 `counter:"checked" unit:"pieces" help:"pieces checked and sent on (to a walker, to the reorder buffer as a segment or a failure)"`
	Failed  uint64 `counter:"failed" unit:"pieces" help:"checked pieces that failed a check (translation.md 4, checks 2 to 10)"`
	// Failures breaks Failed down by status.
	Failures map[prm.Status]uint64 `counter:"-"`
	Stalls   sim.Stalls            `counter:"stall_cycles" unit:"cycles" kind:"wait" help:"cycles in which a piece waited at an input because its destination was not ready"`
}

// Describe lists what the stage shows in its waveform scope: whether it
// checked a piece this cycle, and the key and status of the last one
// (sim.Described).
func (u *Unit) Describe() sim.Description {
	return sim.Description{Scope: u.name, Title: "protection checker",
		Signals: []sim.Signal{sim.Bit("fired"), {Name: "fired_key", Width: 32, Format: sim.Hex}, {Name: "fired_status", Enum: bus.StatusEnum}},
		Sample: func(vs []uint64) {
			vs[0], vs[1], vs[2] = sim.B(u.fired && u.Ran()), uint64(u.lastKey), uint64(u.lastStatus)
		}}
}

// Unit is the protection checker. The engine evaluates it only in the
// cycles something happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under protcheck
	name           string
	p              Ports
	stats          Stats

	cov *cover.Collector // nil: coverage off

	// trace: this cycle's decision
	lastStatus prm.Status
	lastKey    prm.Key
	fired      bool
}

// New makes the stage.
func New(name string, p Ports) *Unit {
	u := &Unit{name: name, p: p, stats: Stats{Failures: map[prm.Status]uint64{}}}
	u.CounterSet = sim.Declare("protcheck", &u.stats)
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// Stats returns the counters.
func (u *Unit) Stats() Stats { return u.stats }

// Connections lists the channels the stage pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	p := &u.p
	return []sim.Port{p.In, p.InLoop}, []sim.Port{p.Done, p.MTT, p.KLM, p.Nested, p.Credit, p.Ack}
}

// Covers lists the coverage points the stage hits when a piece leaves it:
// a piece that passed (its mode at its level, and where it lies in its
// key's range) and the cause of an OUT_OF_RANGE.
func (u *Unit) Covers() []cover.ID { return append(cover.PassedIDs(), cover.OutOfRangeIDs()...) }

// SetCoverage makes the stage hit its points in c (nil: nowhere).
func (u *Unit) SetCoverage(c *cover.Collector) { u.cov = c }

// Fired reports whether a piece was checked this cycle, with its key and
// status (for waveforms).
func (u *Unit) Fired() (bool, prm.Key, prm.Status) {
	return u.fired && u.Ran(), u.lastKey, u.lastStatus
}

// Eval checks at most one piece, the loop VC first.
func (u *Unit) Eval(now uint64) bool {
	u.fired = false
	// Having checked a piece, the stage is busy if a piece still waits
	// at the other input (it checks one a cycle); one refused waits for
	// its destination to take again, which wakes the stage.
	if u.p.InLoop.Valid() && u.try(u.p.InLoop) {
		u.stats.Stalls.Note(now, false)
		return u.p.In.Valid()
	}
	if u.p.In.Valid() && u.try(u.p.In) {
		u.stats.Stalls.Note(now, false)
		return u.p.InLoop.Valid()
	}
	u.stats.Stalls.Note(now, u.p.InLoop.Valid() || u.p.In.Valid())
	return false
}

// try checks the head of in and routes it if its destination is ready.
func (u *Unit) try(in *sim.Chan[bus.Lookup]) bool {
	l := in.Peek()
	if l.Token {
		if !u.p.Ack.Ready() {
			return false
		}
		u.p.Ack.Push(bus.Ack{ID: l.TokenID})
		in.Pop()
		return true
	}
	loop := l.Loop()
	st := Check(l)
	if loop && !(st == prm.OK && l.MKC.AccessMode.UsesKLMList()) && !u.p.Credit.Ready() {
		return false // the credit goes back in the same cycle
	}
	var ok bool
	switch {
	case st != prm.OK:
		ok = u.done(bus.Outcome{Tag: l.Tag, Offset: l.Offset, Len: l.Len, Status: st, Level: l.Level})
	case l.MKC.AccessMode == prm.ModeMTT:
		ok = push(u.p.MTT, bus.Walk{Piece: l.Piece, MKC: l.MKC})
	case l.MKC.AccessMode.UsesKLMList():
		if loop {
			// The nested queue is sized for every loop credit: it is
			// always ready, and the walker returns the credit itself.
			ok = push(u.p.Nested, bus.Walk{Piece: l.Piece, MKC: l.MKC})
			loop = false
		} else {
			ok = push(u.p.KLM, bus.Walk{Piece: l.Piece, MKC: l.MKC})
		}
	default:
		space := prm.SpaceDMA
		switch l.MKC.AccessMode {
		case prm.ModeSWICM:
			space = prm.SpaceSWICM
		case prm.ModeMEMIC:
			space = prm.SpaceMEMIC
		}
		ok = u.done(bus.Outcome{Tag: l.Tag, Offset: l.Offset, Len: l.Len, Status: prm.OK, Level: l.Level,
			Seg: prm.Segment{Space: space, Addr: l.Addr, Len: l.Len}, Key: l.Key, Plat: bus.PlatformOf(&l.MKC)})
	}
	if !ok {
		return false
	}
	if loop {
		u.p.Credit.Push(bus.Credit{Level: l.Level})
	}
	u.fired, u.lastKey, u.lastStatus = true, l.Key, st
	if u.cov != nil {
		switch st {
		case prm.OK:
			u.cov.Passed(int(l.Level), &l.MKC, l.Addr, l.Len)
		case prm.OutOfRange:
			u.cov.OutOfRange(&l.MKC, l.Addr, l.Len)
		}
	}
	u.stats.Checked++
	if st != prm.OK {
		u.stats.Failed++
		u.stats.Failures[st]++
	}
	in.Pop()
	return true
}

func (u *Unit) done(o bus.Outcome) bool { return push(u.p.Done, o) }

func push[T any](c *sim.Chan[T], v T) bool {
	if !c.Ready() {
		return false
	}
	c.Push(v)
	return true
}
