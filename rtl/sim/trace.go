package sim

// Touched lists the channels with a push or a pop staged this cycle, the
// only ones whose handshake, occupancy or head can change at the next
// edge (besides a head reaching its latency). Call it from an OnCycle
// hook; the slice belongs to the engine and is valid until the commit.
// Tracers use it to look at a few channels a cycle instead of all of them.
func (e *Engine) Touched() []Port { return e.dirty }

// HeadAt returns the cycle from which the head payload is visible to the
// consumer, if the channel holds one (for tracers, which look at a
// channel again only when something about it can change).
func (c *Chan[T]) HeadAt() (uint64, bool) { return c.nextVisible() }
