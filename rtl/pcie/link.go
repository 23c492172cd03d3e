package pcie

import "mkeysim/rtl/sim"

// TypeCount counts the TLPs of one type that crossed a link.
type TypeCount struct {
	TLPs         uint64 `json:"tlps"`
	WireBytes    uint64 `json:"wire_bytes"`    // header + payload + framing
	PayloadBytes uint64 `json:"payload_bytes"` // data only
}

// LinkStats are a link direction's counters. Each field's tags are the
// counter's one definition (sim.Counter), under the link's name
// (pcie.up, pcie.down).
type LinkStats struct {
	TLPs         uint64     `counter:"tlps" unit:"TLPs" help:"TLPs that entered the link's serializer"`
	WireBytes    uint64     `counter:"wire_bytes" unit:"bytes" help:"bytes those TLPs took on the wire, headers and framing included"`
	PayloadBytes uint64     `counter:"payload_bytes" unit:"bytes" help:"payload bytes those TLPs carried"`
	BusyCycles   uint64     `counter:"busy_cycles" unit:"cycles" help:"cycles the serializer was sending: divided by the cycles run, the link's utilization"`
	StallCycles  sim.Stalls `counter:"stall_cycles" unit:"cycles" kind:"wait" help:"cycles a serialized TLP waited for room on the wire because the far end did not take what arrived"`
	// PerType splits TLPs, WireBytes and PayloadBytes by TLP type
	// (indexed by Type).
	PerType [NumTypes]TypeCount `counter:"-"`
}

// Link is one direction of a PCIe link, a sim.Component:
//
//	In --> [serializer] --> wire (LinkLatencyCycles) --> Out
//
// The serializer takes the TLP at the head of In and holds it for
// S = ceil(WireBytes/LinkBytesPerCycle) cycles (SerializationCycles); in
// the last of them it enters the wire, an internal channel of
// LinkLatencyCycles latency, and leaves it for Out as soon as it is
// visible and Out is ready. So a TLP taken from In at cycle t (the link
// being free) is pushed onto Out at cycle t + S - 1 + LinkLatencyCycles
// and seen by Out's consumer Out-latency cycles later:
// t + S + LinkLatencyCycles with a latency-1 Out. The next TLP is taken at
// t + S at the earliest, so back-to-back TLPs use the full bandwidth. The
// link is in order and lossless; when Out is full, TLPs queue on the wire
// (at most LinkLatencyCycles+2 of them, standing for the receiver's
// buffer) and then stall the serializer (flow control, counted in
// StallCycles).
//
// While nothing is being serialized the link reports itself idle: TLPs in
// flight sit in the wire channel, so the engine skips straight to their
// arrival.
type Link struct {
	sim.Base
	sim.CounterSet // stats, under the link's name
	name           string
	cfg            Config
	// In and Out are the ports (set by NewLink).
	In, Out *sim.Chan[TLP]
	wire    *sim.Chan[TLP]

	// registers
	holding bool
	cur     TLP
	doneAt  uint64 // last serialization cycle of cur

	stats   LinkStats // counted by Eval as it decides
	entered uint64    // stats.TLPs at the last commit (Entered)

	// staged this cycle
	nHolding bool
	latch    bool // the serializer registers change at this commit
	nCur     TLP
	nDoneAt  uint64
}

// NewLink makes a link direction from in to out, of cfg's
// LinkLatencyCycles and LinkBytesPerCycle. The internal wire channel is
// registered with e; add the link to e yourself. It panics on a config
// that Validate refuses.
func NewLink(e *sim.Engine, name string, cfg Config, in, out *sim.Chan[TLP]) *Link {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	// At most one TLP enters the wire a cycle and each stays
	// LinkLatencyCycles, so LinkLatencyCycles+1 entries never limit the
	// bandwidth.
	wire := sim.NewChan[TLP](e, name+".wire", cfg.LinkLatencyCycles+2, cfg.LinkLatencyCycles)
	l := &Link{name: name, cfg: cfg, In: in, Out: out, wire: wire}
	l.CounterSet = sim.Declare(name, &l.stats)
	return l
}

// Name is the link's name.
func (l *Link) Name() string { return l.name }

// Config is the configuration the link was made with.
func (l *Link) Config() Config { return l.cfg }

// Stats returns the counters.
func (l *Link) Stats() LinkStats { return l.stats }

// Connections lists the channels the link pops and pushes: its ports and
// its wire, both ends of which it holds (sim.Connected).
func (l *Link) Connections() (in, out []sim.Port) {
	return []sim.Port{l.In, l.wire}, []sim.Port{l.Out, l.wire}
}

// Wire is the internal channel of TLPs in flight (for tracers).
func (l *Link) Wire() *sim.Chan[TLP] { return l.wire }

// Eval moves a visible TLP from the wire to Out, finishes or continues the
// serialization in progress, or takes the next TLP from In. It counts
// what it does as it decides it (a TLP taken, a stalled cycle): the
// counters hold this cycle's events once Eval returns.
func (l *Link) Eval(now uint64) bool {
	busy, stalled := l.step(now)
	l.stats.StallCycles.Note(now, stalled)
	return busy
}

// step is Eval but for the stall count: it reports whether the link has
// work of its own next cycle and whether the serializer stalled.
func (l *Link) step(now uint64) (busy, stalled bool) {
	if l.wire.Valid() && l.Out.Ready() {
		l.Out.Push(*l.wire.Peek())
		l.wire.Pop()
	}
	l.latch = false
	if l.holding {
		if now >= l.doneAt {
			if l.wire.Ready() {
				l.wire.Push(l.cur)
				l.latch, l.nHolding, l.nCur, l.nDoneAt = true, false, TLP{}, 0
				// The serializer is free from the next cycle: take the
				// next TLP then if one waits.
				return l.In.Valid(), false
			}
			// The wire frees a slot with a pop, which wakes the link.
			return false, true
		}
		// Serializing: nothing to do until the last cycle.
		l.WakeAt(l.doneAt)
		return false, false
	}
	if !l.In.Valid() {
		return false, false
	}
	t := *l.In.Peek()
	l.In.Pop()
	s := l.count(&t)
	if s == 1 && l.wire.Ready() {
		l.wire.Push(t)
		return false, false
	}
	l.latch, l.nHolding, l.nCur, l.nDoneAt = true, true, t, now+uint64(s)-1
	l.WakeAt(l.nDoneAt)
	return false, false
}

// count counts the TLP t taken from In and returns its serialization
// cycles.
func (l *Link) count(t *TLP) int {
	payload := t.PayloadBytes()
	wire := t.HeaderBytes() + payload + FramingBytes // t.WireBytes(), computed once
	if t.Type.Valid() {
		c := &l.stats.PerType[t.Type]
		c.TLPs++
		c.WireBytes += uint64(wire)
		c.PayloadBytes += uint64(payload)
		l.stats.TLPs++
		l.stats.WireBytes += uint64(wire)
		l.stats.PayloadBytes += uint64(payload)
	}
	s := l.cfg.SerializationCycles(wire)
	l.stats.BusyCycles += uint64(s)
	return s
}

// Entered is the number of TLPs that had entered the link by the end of
// the last cycle: a register, so that what a monitor reads of it does not
// depend on the order of evaluation.
func (l *Link) Entered() uint64 { return l.entered }

// Commit latches the serializer and Entered.
func (l *Link) Commit() {
	l.entered = l.stats.TLPs
	if l.latch {
		l.holding, l.cur, l.doneAt = l.nHolding, l.nCur, l.nDoneAt
	}
}
