package pcie

import (
	"fmt"

	"mkeysim/rtl/sim"
)

// LinkConfig is one link direction's parameters.
type LinkConfig struct {
	// LatencyCycles is the flight time after serialization (>= 1; default
	// 75 cycles, 300 ns at 4 ns, so 150 cycles of wire time per round trip).
	// It stands for PHY, data link layer and any switch in between.
	LatencyCycles int `toml:"latency_cycles" json:"latency_cycles"`
	// BytesPerCycle is the bandwidth (>= 1; default 32: 8 GB/s at 250 MHz,
	// about Gen3 x8 or Gen4 x4 after line coding).
	BytesPerCycle int `toml:"bytes_per_cycle" json:"bytes_per_cycle"`
}

// WithDefaults returns c with zero fields set to their defaults.
func (c LinkConfig) WithDefaults() LinkConfig {
	def(&c.LatencyCycles, DefaultLinkLatency)
	def(&c.BytesPerCycle, DefaultBytesPerCycle)
	return c
}

// Validate reports parameters out of range (after defaults).
func (c LinkConfig) Validate() error {
	c = c.WithDefaults()
	if c.LatencyCycles < 1 || c.LatencyCycles > MaxLatency {
		return fmt.Errorf("pcie.link_latency_cycles = %d: want 1..%d", c.LatencyCycles, MaxLatency)
	}
	if c.BytesPerCycle < 1 || c.BytesPerCycle > 4096 {
		return fmt.Errorf("pcie.link_bytes_per_cycle = %d: want 1..4096", c.BytesPerCycle)
	}
	return nil
}

// MaxLatency bounds the link and host latencies: the channels that model
// them hold one slot per cycle of flight.
const MaxLatency = 1 << 16

// SerializationCycles is the number of cycles a TLP of wireBytes occupies
// the link: ceil(wireBytes / BytesPerCycle), at least 1.
func (c LinkConfig) SerializationCycles(wireBytes int) int {
	c = c.WithDefaults()
	return max(1, (wireBytes+c.BytesPerCycle-1)/c.BytesPerCycle)
}

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
//	In --> [serializer] --> wire (LatencyCycles) --> Out
//
// The serializer takes the TLP at the head of In and holds it for
// S = ceil(WireBytes/BytesPerCycle) cycles; in the last of them it enters
// the wire, an internal channel of LatencyCycles latency, and leaves it for
// Out as soon as it is visible and Out is ready. So a TLP taken from In at
// cycle t (the link being free) is pushed onto Out at cycle
// t + S - 1 + LatencyCycles and seen by Out's consumer Out-latency cycles
// later: t + S + LatencyCycles with a latency-1 Out. The next TLP is taken
// at t + S at the earliest, so back-to-back TLPs use the full bandwidth.
// The link is in order and lossless; when Out is full, TLPs queue on the
// wire (at most LatencyCycles+2 of them, standing for the receiver's
// buffer) and then stall the serializer (flow control, counted in
// StallCycles).
//
// While nothing is being serialized the link reports itself idle: TLPs in
// flight sit in the wire channel, so the engine skips straight to their
// arrival.
type Link struct {
	sim.Base
	name string
	cfg  LinkConfig
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

// NewLink makes a link direction from in to out. The internal wire channel
// is registered with e; add the link to e yourself. Zero config fields take
// their defaults; it panics on an invalid config (see Validate).
func NewLink(e *sim.Engine, name string, cfg LinkConfig, in, out *sim.Chan[TLP]) *Link {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	// At most one TLP enters the wire a cycle and each stays LatencyCycles,
	// so LatencyCycles+1 entries never limit the bandwidth.
	wire := sim.NewChan[TLP](e, name+".wire", cfg.LatencyCycles+2, cfg.LatencyCycles)
	return &Link{name: name, cfg: cfg, In: in, Out: out, wire: wire}
}

// Name is the link's name.
func (l *Link) Name() string { return l.name }

// Config is the link's configuration (defaults filled in).
func (l *Link) Config() LinkConfig { return l.cfg }

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
