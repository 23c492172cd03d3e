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

// ChanState is what a tracer samples of a channel in a cycle, packed in
// one word so that it comes back in a register (a tracer reads several
// channels a cycle; a struct came back through memory, copied): the
// cycle's handshakes, whether the consumer sees a head, whether the
// channel holds one, and its committed occupancy. ChanHeadAt says when a
// head not yet visible will be.
type ChanState uint64

const (
	csPushed ChanState = 1 << iota
	csPopped
	csHeadValid
	csHasHead
	csLenShift = 8
)

// Pushed reports a push staged this cycle (the input side's handshake).
func (s ChanState) Pushed() bool { return s&csPushed != 0 }

// Popped reports a pop staged this cycle (the output side's handshake).
func (s ChanState) Popped() bool { return s&csPopped != 0 }

// HeadValid reports whether the consumer sees a payload this cycle,
// ignoring a pop staged (link.HeadValid).
func (s ChanState) HeadValid() bool { return s&csHeadValid != 0 }

// HasHead reports whether the channel holds a payload, visible or not.
func (s ChanState) HasHead() bool { return s&csHasHead != 0 }

// Len is the committed occupancy.
func (s ChanState) Len() int { return int(s >> csLenShift) }

// ChanState returns the ChanState of the channel numbered id (Port.ID):
// what State returns, read without a call through the Port interface.
func (e *Engine) ChanState(id int) ChanState { return e.links[id].State() }

// ChanHeadAt returns the cycle the head of the channel numbered id
// becomes visible; call it only when the channel holds one (HasHead).
func (e *Engine) ChanHeadAt(id int) uint64 { return e.links[id].headAt }

// State returns the channel's ChanState (for tracers).
func (c *link) State() ChanState {
	s := ChanState(B(c.pushed))*csPushed | ChanState(B(c.popped))*csPopped | ChanState(c.n)<<csLenShift
	if c.n > 0 {
		s |= csHasHead | ChanState(B(c.headAt <= c.clk.now))*csHeadValid
	}
	return s
}
