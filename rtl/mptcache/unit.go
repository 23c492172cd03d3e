package mptcache

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// Ports are the unit's channels, made by the top and named by role.
type Ports struct {
	In      *sim.Chan[bus.Piece]    // new level-0 pieces
	Loop    *sim.Chan[bus.Piece]    // loop-back pieces (Level > 0) from the KLM walker
	Out     *sim.Chan[bus.Lookup]   // level-0 virtual channel, with invalidation tokens
	OutLoop *sim.Chan[bus.Lookup]   // loop virtual channel
	MemReq  *sim.Chan[pcie.ReadReq] // MKC reads, ID = MSHR number
	MemResp *sim.Chan[pcie.ReadResp]
	Ctrl    *sim.Chan[bus.Inval] // invalidations by Index (or All)
}

// Stats counts the unit's events; the strobes show the same events per
// cycle. Each field's tags are the counter's one definition (sim.Counter);
// the unit lists them as the group mkc_cache. A lookup is one piece taking
// its turn at the tag array: Hits + Misses of them.
type Stats struct {
	Hits uint64 `counter:"hits" unit:"lookups" help:"lookups that found a valid line of their index in the tag array" cover:"hit" coverdesc:"an MKC lookup found its index's line"`
	// Misses counts every lookup that did not hit, once: those that
	// allocated an MSHR and those merged into one (MergedMisses).
	Misses       uint64 `counter:"misses" unit:"lookups" help:"lookups that found no line of their index, whether they allocated an MSHR or merged into one" cover:"miss" coverminus:"merged_misses" coverdesc:"an MKC lookup missed and took an MSHR, which read the context (a primary miss)"`
	MergedMisses uint64 `counter:"merged_misses" unit:"lookups" help:"misses that joined the MSHR already reading their index (secondary misses); misses - merged_misses allocated an MSHR" cover:"merged_miss" coverdesc:"an MKC lookup missed and joined the MSHR already reading its index (a secondary miss)"`
	Reads        uint64 `counter:"reads" unit:"reads" help:"64-byte MKC reads sent to PCIe: one per MSHR allocated, plus refetches"`
	Refetches    uint64 `counter:"refetches" unit:"reads" help:"reads sent again because an invalidation of the index arrived while the read was in flight or the line was replaying" cover:"refetch" coverdesc:"an invalidation reached an MKC read in flight (or its line replaying): the stale fill was dropped and the context read again"`
	ReadErrors   uint64 `counter:"read_errors" unit:"reads" help:"reads answered with an error completion (UR, CA): nothing installed, targets leave as for an index never created"`
	Fills        uint64 `counter:"fills" unit:"lines" help:"lines installed from a read completion that was not stale"`
	Evictions    uint64 `counter:"evictions" unit:"lines" help:"fills that replaced a valid line of another index" cover:"eviction" coverdesc:"an MKC fill replaced the valid line of another index"`
	// Invalidations are lines dropped; InvalCommands the commands.
	Invalidations uint64     `counter:"invalidations" unit:"lines" help:"valid lines dropped by invalidation commands" cover:"invalidation" coverdesc:"a command dropped a valid MKC line"`
	InvalCommands uint64     `counter:"inval_commands" unit:"commands" help:"invalidation commands carried out on the control port, each answered by a token"`
	StallCycles   sim.Stalls `counter:"stall_cycles" unit:"cycles" kind:"wait" help:"cycles in which a piece waited at the head of In or Loop and no lookup completed (output busy, no MSHR, targets full, MemReq busy)"`
	// The stall's causes: a head that waited in a cycle counts under its
	// cause (two heads, In and Loop, may wait for different ones).
	OutputStalls sim.Stalls    `counter:"output_stall_cycles" unit:"cycles" kind:"wait" help:"cycles in which a piece at the head of In or Loop hit but the protection checker's input was full"`
	MSHRStalls   sim.Stalls    `counter:"mshr_stall_cycles" unit:"cycles" kind:"wait" help:"cycles in which a piece at the head of In or Loop missed and no MSHR was free for it (level-0 pieces: the mshrs; loop pieces: their reserve too)"`
	TargetStalls sim.Stalls    `counter:"target_stall_cycles" unit:"cycles" kind:"wait" help:"cycles in which a piece at the head of In or Loop missed on an index being read whose MSHR had no target free for it"`
	ReadStalls   sim.Stalls    `counter:"read_port_stall_cycles" unit:"cycles" kind:"wait" help:"cycles in which a piece at the head of In or Loop could take an MSHR but the read port (MemReq) was busy"`
	MSHRCycles   sim.Occupancy `counter:"mshr_cycles" unit:"MSHR-cycles" kind:"occupancy" mean:"mean_mshrs_in_use" help:"MSHRs in use, summed over the cycles (mean_mshrs_in_use = mshr_cycles / cycles)"`
}

// States of the FSM summary shown in waveforms (State).
const (
	StateIdle   uint8 = iota // nothing to do
	StateLookup              // a hit left, or a piece waits at an input
	StateMiss                // a miss this cycle, or MSHRs wait for memory
	StateReplay              // a fill or a replayed target this cycle
	StateInval               // an invalidation ran or waits at Ctrl
)

// StateNames names the values of State, for translate filters.
func StateNames() map[uint64]string {
	return map[uint64]string{
		uint64(StateIdle):   "IDLE",
		uint64(StateLookup): "LOOKUP",
		uint64(StateMiss):   "MISS",
		uint64(StateReplay): "REPLAY",
		uint64(StateInval):  "INVAL",
	}
}

// StateEnum names the values of State in waveforms.
var StateEnum = &sim.Enum{Name: "mptcache_state", Width: 3, Names: StateNames()}

// Describe lists what the unit shows in its waveform scope: the FSM
// summary, the MSHRs in use and the cycle's strobes (sim.Described).
func (u *Unit) Describe() sim.Description {
	return sim.Description{Scope: u.name, Title: "MKC cache",
		Signals: []sim.Signal{{Name: "state", Enum: StateEnum}, {Name: "mshrs", Width: sim.WidthFor(u.cfg.MSHRs + u.cfg.LoopMSHRs)},
			sim.Bit("hit"), sim.Bit("miss"), sim.Bit("fill"), sim.Bit("inval")},
		Sample: func(vs []uint64) {
			h, m, f, i := u.Strobes()
			vs[0], vs[1], vs[2], vs[3], vs[4], vs[5] = uint64(u.State()), uint64(u.inUseQ), sim.B(h), sim.B(m), sim.B(f), sim.B(i)
		}}
}

// Unit is the MKC cache. The engine evaluates it only in the cycles
// something happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under mkc_cache
	name           string
	cfg            Config
	p              Ports
	arr            *array
	mshrs          *mshrFile
	stats          Stats
	why            [numCauses]*sim.Stalls // the stalls by cause: Stats.OutputStalls ...
	cause          uint8                  // this cycle's causes, a bit each
	lastCause      uint8                  // the causes noted last
	byPD           sim.ByKey              // hits and misses by the piece\'s PD

	// Registers seen by waveforms: the values during the current cycle.
	inUseQ int
	// Per-cycle outputs of Eval, for waveforms and statistics.
	state                        uint8
	hit, miss, fill, invalStrobe bool
}

// New makes the unit with an empty cache. cfg must be valid (the top calls
// Config.Validate first) and every port set; New panics otherwise, naming
// the problem.
func New(name string, cfg Config, p Ports) *Unit {
	if err := cfg.Validate(); err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	for _, port := range []struct {
		name    string
		missing bool
	}{
		{"In", p.In == nil}, {"Loop", p.Loop == nil}, {"Out", p.Out == nil},
		{"OutLoop", p.OutLoop == nil}, {"MemReq", p.MemReq == nil},
		{"MemResp", p.MemResp == nil}, {"Ctrl", p.Ctrl == nil},
	} {
		if port.missing {
			panic(fmt.Sprintf("mptcache: %s: port %s not connected", name, port.name))
		}
	}
	u := &Unit{name: name, cfg: cfg, p: p, arr: newArray(&cfg), mshrs: newMSHRFile(&cfg)}
	u.why = [numCauses]*sim.Stalls{causeOutput: &u.stats.OutputStalls, causeMSHR: &u.stats.MSHRStalls,
		causeTarget: &u.stats.TargetStalls, causeRead: &u.stats.ReadStalls}
	u.CounterSet = sim.Declare("mkc_cache", &u.stats)
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// Config returns the parameters in force.
func (u *Unit) Config() Config { return u.cfg }

// Stats returns the counters.
func (u *Unit) Stats() Stats { return u.stats }

// Connections lists the channels the unit pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	p := &u.p
	return []sim.Port{p.In, p.Loop, p.MemResp, p.Ctrl}, []sim.Port{p.Out, p.OutLoop, p.MemReq}
}

// State is the FSM summary of the current cycle (StateIdle..StateInval);
// sample it between Eval and Commit (sim.Engine.OnCycle). In a cycle the
// unit did not run it is what Eval would have found: an invalidation or a
// piece waiting at an input, or MSHRs waiting for memory.
func (u *Unit) State() uint8 {
	if u.Ran() {
		return u.state
	}
	switch p := &u.p; {
	case p.Ctrl.HeadValid():
		return StateInval
	case p.In.HeadValid() || p.Loop.HeadValid():
		return StateLookup
	case u.inUseQ > 0:
		return StateMiss
	}
	return StateIdle
}

// MSHRsInUse is the number of busy MSHRs during the current cycle (the
// registered count: an allocation shows from the next cycle on).
func (u *Unit) MSHRsInUse() int { return u.inUseQ }

// Strobes report this cycle's events: a lookup hit, a lookup missed
// (primary or merged), a line was filled, an invalidation ran. They are
// cleared at the start of every Eval.
func (u *Unit) Strobes() (hit, miss, fill, inval bool) {
	if !u.Ran() {
		return false, false, false, false
	}
	return u.hit, u.miss, u.fill, u.invalStrobe
}

// Lines counts the valid lines (for tests and end-of-run reports; it
// walks the arrays).
func (u *Unit) Lines() int { return u.arr.occupancy() }

// out is the output channel of virtual channel vc.
func (u *Unit) out(vc int) *sim.Chan[bus.Lookup] {
	if vc == vcLoop {
		return u.p.OutLoop
	}
	return u.p.Out
}

// Eval runs one cycle, stages from the back of the pipeline to the front,
// so that a stage frees its slot before the stage ahead of it fills it:
// fill, invalidation, replay, reissue, lookup. Every output channel takes
// at most one push a cycle (a Chan is not Ready after a push), and the
// stages that come first here have priority on it.
func (u *Unit) Eval(now uint64) bool {
	u.hit, u.miss, u.fill, u.invalStrobe = false, false, false, false
	u.state = StateIdle
	p := &u.p
	inValid, loopValid := p.In.Valid(), p.Loop.Valid()
	if u.mshrs.inUse > 0 {
		u.state = StateMiss
	}
	// Waiting for a read is not work: the fill arrives on a channel, which
	// wakes the engine.
	pending := u.mshrs.issuing+u.mshrs.replaying > 0
	if !pending && !inValid && !loopValid && !p.Ctrl.Valid() && !p.MemResp.Valid() {
		u.stats.StallCycles.Note(now, false)
		u.noteCauses(now, 0)
		u.stats.MSHRCycles.NoteN(now, uint64(u.mshrs.inUse))
		return false
	}
	moves := u.Handshakes()
	replayed := u.fillStage()
	invalState := u.invalStage()
	if u.replayStage() {
		replayed = true
	}
	u.issueStage()
	if loopValid || inValid {
		u.state = StateLookup
	}
	u.cause = 0
	u.stats.StallCycles.Note(now, u.lookupStage(loopValid, inValid))
	u.noteCauses(now, u.cause)
	if u.miss {
		u.state = StateMiss
	}
	if replayed {
		u.state = StateReplay
	}
	if invalState {
		u.state = StateInval
	}
	u.stats.MSHRCycles.NoteN(now, uint64(u.mshrs.inUse))
	// A cycle that moved anything may have freed what a waiting piece
	// needs (an MSHR, a target slot): look again in the next one.
	return u.mshrs.issuing+u.mshrs.replaying > 0 || u.Handshakes() != moves
}

// Commit latches the registers that waveforms show, and only them.
// Everything else the unit keeps is private to it and was updated in
// place by Eval (no other component can read it, so that is the same as
// latching it here), its counters among them; the channels latch their
// own pushes and pops.
func (u *Unit) Commit() { u.inUseQ = u.mshrs.inUse }

// fillStage takes one read completion. A fresh one installs the line and
// starts the MSHR's replay (a failed one starts it without installing
// anything, with the zero MKC and Created false); a stale one (an invalidation of the index
// arrived while the read was in flight, so the data may predate it) is
// dropped and the MSHR sends its read again. It reports a fill.
func (u *Unit) fillStage() bool {
	p := &u.p
	if !p.MemResp.Valid() {
		return false
	}
	r := p.MemResp.Peek()
	if int(r.ID) >= len(u.mshrs.m) {
		panic(fmt.Sprintf("%s: read completion ID %d names no MSHR", u.name, r.ID))
	}
	m := &u.mshrs.m[r.ID]
	if m.state != mshrWait || r.Addr != u.cfg.addr(m.index) {
		panic(fmt.Sprintf("%s: read completion ID %d addr %#x does not match its MSHR (state %d, index %#x)",
			u.name, r.ID, r.Addr, m.state, m.index))
	}
	if r.Status == pcie.SC && len(r.Data) < prm.MKCSize {
		panic(fmt.Sprintf("%s: read completion ID %d carries %d bytes, want %d", u.name, r.ID, len(r.Data), prm.MKCSize))
	}
	p.MemResp.Pop()
	if m.stale {
		m.stale = false
		u.mshrs.setState(m, mshrIssue)
		u.stats.Refetches++
		return false
	}
	if r.Status != pcie.SC {
		// A failed read installs nothing: its targets leave as for an
		// index never created, and the next lookup reads again.
		m.mkc, m.created = prm.MKC{}, false
		u.mshrs.setState(m, mshrReplay)
		u.stats.ReadErrors++
		return true
	}
	img := r.Data[:prm.MKCSize]
	prm.DecodeMKCInto(&m.mkc, img)
	m.created = prm.ICMCreated(img)
	if u.arr.install(m.index, m.mkc, m.created) {
		u.stats.Evictions++
	}
	u.mshrs.setState(m, mshrReplay)
	u.stats.Fills++
	u.fill = true
	return true
}

// invalStage carries out the invalidation at the head of Ctrl when Out can
// take its token this cycle: it drops the line (or every line), marks the
// index's read in flight stale, sends a replaying MSHR of the index back
// to fetch (its remaining targets then see the new context, after the
// token), and pushes the token. It reports whether an invalidation ran or
// waits.
func (u *Unit) invalStage() bool {
	p := &u.p
	if !p.Ctrl.Valid() {
		return false
	}
	if !p.Out.Ready() {
		return true
	}
	iv := *p.Ctrl.Peek()
	p.Ctrl.Pop()
	if iv.All {
		u.stats.Invalidations += uint64(u.arr.dropAll())
	} else if u.arr.drop(iv.Index) {
		u.stats.Invalidations++
	}
	if iv.All {
		busy := &u.mshrs.busy
		for i := busy.Next(0); i >= 0; i = busy.Next(i + 1) {
			u.invalidateMSHR(&u.mshrs.m[i])
		}
	} else if m := u.mshrs.find(iv.Index); m != nil {
		u.invalidateMSHR(m)
	}
	p.Out.Push(bus.Lookup{Token: true, TokenID: iv.ID})
	u.stats.InvalCommands++
	u.invalStrobe = true
	return true
}

// invalidateMSHR applies an invalidation to a busy MSHR of its index: a
// read in flight will be dropped when it lands, a line being replayed is
// fetched again.
func (u *Unit) invalidateMSHR(m *mshr) {
	switch m.state {
	case mshrWait:
		m.stale = true
	case mshrReplay:
		u.mshrs.setState(m, mshrIssue)
		u.stats.Refetches++
	}
}

// replayStage sends, on each virtual channel whose output is ready, the
// next target of the replaying MSHR filled first, and frees an MSHR whose
// targets are all gone. The two channels are served independently, so a
// full Out never holds up a loop target. It reports a replay.
func (u *Unit) replayStage() bool {
	f := u.mshrs
	if f.replaying == 0 {
		return false
	}
	sent := false
	for vc := 0; vc < numVC; vc++ {
		out := u.out(vc)
		if !out.Ready() {
			continue
		}
		m := f.oldestReplay(vc)
		if m == nil {
			continue
		}
		q := &m.q[vc]
		out.Push(bus.Lookup{Piece: *q.front(), MKC: m.mkc, Created: m.created})
		q.pop()
		sent = true
		if m.targets() == 0 {
			f.setState(m, mshrFree)
		}
	}
	return sent
}

// issueStage sends the read of the lowest MSHR that must fetch again.
func (u *Unit) issueStage() {
	if u.mshrs.issuing == 0 || !u.p.MemReq.Ready() {
		return
	}
	i := u.mshrs.firstIssue()
	m := &u.mshrs.m[i]
	u.p.MemReq.Push(pcie.ReadReq{ID: uint32(i), Addr: u.cfg.addr(m.index), Len: prm.MKCSize})
	u.mshrs.setState(m, mshrWait)
	u.stats.Reads++
}

// lookupStage completes at most one lookup: the head of Loop if it can
// complete, else the head of In, so loop pieces go first and a loop piece
// that must wait never holds up level-0 pieces (nor the reverse: a level-0
// piece never takes a resource reserved for the loop). It reports a stall:
// a piece waited and none completed.
func (u *Unit) lookupStage(loopValid, inValid bool) bool {
	if !loopValid && !inValid {
		return false
	}
	if loopValid && u.lookup(u.p.Loop, vcLoop) {
		return false
	}
	if inValid && u.lookup(u.p.In, vcLevel0) {
		return false
	}
	return true
}

// lookup tries the piece at the head of ch; it reports whether the piece
// left the input.
func (u *Unit) lookup(ch *sim.Chan[bus.Piece], vc int) bool {
	piece := ch.Peek()
	index := piece.Key.Index()
	if l := u.arr.find(index); l != nil {
		out := u.out(vc)
		if !out.Ready() {
			u.cause |= 1 << causeOutput
			return false
		}
		out.Push(bus.Lookup{Piece: *piece, MKC: l.mkc, Created: l.created})
		u.arr.touch(l)
		ch.Pop()
		u.stats.Hits++
		u.byPD.Add(piece.PD, true)
		u.hit = true
		return true
	}
	if m := u.mshrs.find(index); m != nil {
		if !u.mshrs.canMerge(m, vc) {
			u.cause |= 1 << causeTarget
			return false
		}
		m.q[vc].push(*piece)
		ch.Pop()
		u.stats.Misses++
		u.byPD.Add(piece.PD, false)
		u.stats.MergedMisses++
		u.miss = true
		return true
	}
	if !u.mshrs.canAlloc(vc) {
		u.cause |= 1 << causeMSHR
		return false
	}
	if !u.p.MemReq.Ready() {
		u.cause |= 1 << causeRead
		return false
	}
	id := u.mshrs.alloc(index, *piece)
	u.p.MemReq.Push(pcie.ReadReq{ID: id, Addr: u.cfg.addr(index), Len: prm.MKCSize})
	ch.Pop()
	u.stats.Misses++
	u.byPD.Add(piece.PD, false)
	u.stats.Reads++
	u.miss = true
	return true
}

// Why a piece at the head of an input waited (Stats.OutputStalls ...).
const (
	causeOutput = iota
	causeMSHR
	causeTarget
	causeRead
	numCauses
)

// noteCauses counts this cycle's stalls by cause (a bit of mask each).
func (u *Unit) noteCauses(now uint64, mask uint8) {
	if mask == 0 && u.lastCause == 0 {
		return // nothing waited then or now: nothing to count
	}
	u.lastCause = mask
	for c := range u.why {
		u.why[c].Note(now, mask>>c&1 != 0)
	}
}

// ByPD is the lookups' hits and misses by the piece's PD (a tenant), as
// Stats counts them.
func (u *Unit) ByPD() []sim.KeyCount { return u.byPD.Counts() }
