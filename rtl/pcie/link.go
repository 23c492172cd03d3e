package pcie

import "mkeysim/rtl/sim"

// TypeCount counts the TLPs of one type that crossed a link.
type TypeCount struct {
	TLPs         uint64 `json:"tlps"`
	WireBytes    uint64 `json:"wire_bytes"`    // header + payload + framing
	PayloadBytes uint64 `json:"payload_bytes"` // data only
}

// LinkStats are a link direction's counters.
type LinkStats struct {
	PerType [NumTypes]TypeCount `json:"per_type"` // indexed by Type
	// BusyCycles counts the cycles the link spent serializing: divided by
	// the cycles run it is the link's utilization.
	BusyCycles uint64 `json:"busy_cycles"`
	// StallCycles counts cycles a serialized TLP waited for room on the
	// wire because the far end did not take what arrived.
	StallCycles uint64 `json:"stall_cycles"`
}

// Total sums the counts over all types.
func (s *LinkStats) Total() TypeCount {
	var t TypeCount
	for _, c := range s.PerType {
		t.TLPs += c.TLPs
		t.WireBytes += c.WireBytes
		t.PayloadBytes += c.PayloadBytes
	}
	return t
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
	name string
	cfg  Config
	// In and Out are the ports (set by NewLink).
	In, Out *sim.Chan[TLP]
	wire    *sim.Chan[TLP]

	// registers
	holding bool
	cur     TLP
	doneAt  uint64 // last serialization cycle of cur
	stats   LinkStats
	stall   sim.Stalls // StallCycles

	// staged this cycle
	nHolding bool
	latch    bool // the serializer registers change at this commit
	nCur     TLP
	nDoneAt  uint64
	took     bool // a TLP was taken from In (count it)
	taken    TLP
	stalled  bool
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
	return &Link{name: name, cfg: cfg, In: in, Out: out, wire: wire}
}

// Name is the link's name.
func (l *Link) Name() string { return l.name }

// Config is the configuration the link was made with.
func (l *Link) Config() Config { return l.cfg }

// Stats returns the counters.
func (l *Link) Stats() LinkStats {
	s := l.stats
	s.StallCycles = l.stall.Count()
	return s
}

// Connections lists the channels the link pops and pushes: its ports and
// its wire, both ends of which it holds (sim.Connected).
func (l *Link) Connections() (in, out []sim.Port) {
	return []sim.Port{l.In, l.wire}, []sim.Port{l.Out, l.wire}
}

// linkCounters declares the link's counters, in the order of
// CounterValues: the one place that says what each counts.
var linkCounters = [...]sim.Counter{
	{Name: "tlps", Unit: "TLPs", Help: "TLPs that entered the link's serializer"},
	{Name: "wire_bytes", Unit: "bytes", Help: "bytes those TLPs took on the wire, headers and framing included"},
	{Name: "payload_bytes", Unit: "bytes", Help: "payload bytes those TLPs carried"},
	{Name: "busy_cycles", Unit: "cycles", Help: "cycles the serializer was sending: divided by the cycles run, the link's utilization"},
	{Name: "stall_cycles", Unit: "cycles", Wait: true, Help: "cycles a serialized TLP waited for room on the wire because the far end did not take what arrived"},
}

// Counters lists the link's counters under its name (pcie.up, pcie.down):
// the totals over TLP types.
func (l *Link) Counters() []sim.Counter {
	vs := l.CounterValues(make([]uint64, 0, len(linkCounters)))
	out := linkCounters
	for i := range out {
		out[i].Name, out[i].Value = l.name+"."+out[i].Name, vs[i]
	}
	return out[:]
}

// CounterValues appends the values of Counters (sim.CounterValuer).
func (l *Link) CounterValues(vs []uint64) []uint64 {
	t := l.stats.Total()
	return append(vs, t.TLPs, t.WireBytes, t.PayloadBytes, l.stats.BusyCycles, l.stall.Count())
}

// Wire is the internal channel of TLPs in flight (for tracers).
func (l *Link) Wire() *sim.Chan[TLP] { return l.wire }

// Eval moves a visible TLP from the wire to Out, finishes or continues the
// serialization in progress, or takes the next TLP from In.
func (l *Link) Eval(now uint64) bool {
	if l.wire.Valid() && l.Out.Ready() {
		l.Out.Push(*l.wire.Peek())
		l.wire.Pop()
	}
	l.latch, l.took, l.stalled = false, false, false
	if l.holding {
		if now >= l.doneAt {
			if l.wire.Ready() {
				l.wire.Push(l.cur)
				l.latch, l.nHolding, l.nCur, l.nDoneAt = true, false, TLP{}, 0
				// The serializer is free from the next cycle: take the
				// next TLP then if one waits.
				return l.In.Valid()
			}
			// The wire frees a slot with a pop, which wakes the link.
			l.stalled = true
			return false
		}
		// Serializing: nothing to do until the last cycle.
		l.WakeAt(l.doneAt)
		return false
	}
	if !l.In.Valid() {
		return false
	}
	t := *l.In.Peek()
	l.In.Pop()
	l.took, l.taken = true, t
	s := l.cfg.SerializationCycles(t.WireBytes())
	if s == 1 && l.wire.Ready() {
		l.wire.Push(t)
		return false
	}
	l.latch, l.nHolding, l.nCur, l.nDoneAt = true, true, t, now+uint64(s)-1
	l.WakeAt(l.nDoneAt)
	return false
}

// Commit latches the serializer and the counters.
func (l *Link) Commit() {
	if l.took {
		t := &l.taken
		if t.Type.Valid() {
			c := &l.stats.PerType[t.Type]
			c.TLPs++
			c.WireBytes += uint64(t.WireBytes())
			c.PayloadBytes += uint64(t.PayloadBytes())
		}
		l.stats.BusyCycles += uint64(l.cfg.SerializationCycles(t.WireBytes()))
	}
	l.stall.Note(l.Now(), l.stalled)
	if l.latch {
		l.holding, l.cur, l.doneAt = l.nHolding, l.nCur, l.nDoneAt
	}
	l.took, l.stalled = false, false
}
