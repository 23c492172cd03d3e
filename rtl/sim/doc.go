// Package sim is the clock and the bus of the clocked model.
//
// The clock is two-phase, as RTL is: on every cycle each component's Eval
// reads only registered state (its own registers and the committed contents
// of its input channels) and stages its next state and channel pushes and
// pops; then Commit latches everything at once. So the order in which
// components are evaluated changes nothing.
//
// A Chan is a valid/ready channel with a registered FIFO of some depth and
// a latency: a payload pushed at cycle c is visible to the consumer at cycle
// c+latency; a push is allowed while the committed occupancy is below the
// depth (the producer sees the consumer's pop one cycle later, like a FIFO
// whose full flag is registered).
//
// The engine skips cycles in which nothing can happen: when no component
// is busy and no channel has a visible payload, time jumps to the next
// cycle at which a payload becomes visible. Results are the same with and
// without skipping because an idle component's Eval does nothing.
package sim
