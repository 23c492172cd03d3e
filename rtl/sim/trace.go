package sim

// Touched appends to ids the numbers (Port.ID) of the channels with a
// push or a pop staged this cycle, the only ones whose handshake,
// occupancy or head can change at the next edge (besides a head reaching
// its latency). Call it from an OnCycle hook. Tracers use it to look at a
// few channels a cycle instead of all of them.
func (e *Engine) Touched(ids []int) []int {
	for _, l := range e.dirty {
		ids = append(ids, l.id)
	}
	return ids
}

// HeadAt returns the cycle from which the head payload is visible to the
// consumer, if the channel holds one (for tracers, which look at a
// channel again only when something about it can change).
func (c *link) HeadAt() (uint64, bool) { return c.nextVisible() }

// ChanState is what a tracer samples of a channel in a cycle, read in
// one call: the cycle's handshakes, whether the consumer sees a head, the
// committed occupancy, and when the head becomes visible (HasHead false:
// the channel is empty).
type ChanState struct {
	Pushed, Popped, HeadValid, HasHead bool
	Len                                int
	HeadAt                             uint64
}

// ChanState returns the ChanState of the channel numbered id (Port.ID):
// what State returns, read without a call through the Port interface (a
// tracer samples several channels a cycle).
func (e *Engine) ChanState(id int) ChanState { return e.links[id].State() }

// State returns the channel's ChanState (for tracers).
func (c *link) State() ChanState {
	s := ChanState{Pushed: c.pushed, Popped: c.popped, Len: c.n}
	if c.n > 0 {
		s.HasHead, s.HeadAt = true, c.headAt
		s.HeadValid = s.HeadAt <= c.clk.now
	}
	return s
}
