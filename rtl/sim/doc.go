// Package sim is the clock and the bus of the clocked model.
//
// The clock is two-phase, as RTL is: on every cycle each component's Eval
// reads only registered state (its own registers and the committed contents
// of its input channels) and stages its next state and channel pushes and
// pops; then Commit latches everything at once. So the order in which
// components are evaluated changes nothing.
//
// Commit has one meaning everywhere: it latches a next state that Eval
// staged apart from the registered one. A component's registers are the
// state another component or a tracer can see (through Describe or an
// accessor) and the state that outlives the cycle; each unit's doc says
// which of its fields they are. A component whose registers are read only
// by itself, and only before it writes them in the cycle (a walker's
// contexts, a cache's arrays), may write them in place during Eval, as a
// next-state function computed from the registered values would: it has
// no Commit, and its Describe samples after Eval, the next state (the
// documented "value from cycle c on").
//
// Counters (Counter) are not registers and Commit never touches them: Eval
// counts each event as it decides it, and notes its waits and occupancies
// (Stalls) with the level the cycle leaves. The engine commits a
// component only in the cycles its Eval ran, so the count at the end of
// the cycle is the one a Commit would have made, and a counter changes
// only in the cycles its unit runs, in the cycle of its event (which is
// what the waveform shows and samples).
//
// A Chan is a valid/ready channel with a registered FIFO of some depth and
// a latency: a payload pushed at cycle c is visible to the consumer at cycle
// c+latency; a push is allowed while the committed occupancy is below the
// depth (the producer sees the consumer's pop one cycle later, like a FIFO
// whose full flag is registered).
//
// The engine pays for activity, not for time. A component that embeds
// Base and lists its channels (Connected) is evaluated only in the cycles
// something happens to it: a payload became visible at one of its inputs,
// an output that refused it can take again, it reported itself busy, or a
// timer of its own came due (Base.WakeAt).
// Cycles in which no component is due are skipped. A component's Eval
// must do nothing in the other cycles, which is what makes the schedule
// exact: results, completion cycles, counters and waveforms are those of
// evaluating every component in every cycle (Engine.NoSkip), and
// Engine.Audit checks the rule while a test runs. What a unit shows in
// the cycles it did not run follows from that: strobes are low (Base.Ran),
// registers hold, and a wait counts its skipped cycles (Stalls).
package sim
