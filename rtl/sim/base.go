package sim

import "strconv"

// Base is embedded in a component that the engine should evaluate only in
// the cycles something happens to it (Connected): it holds the
// component's place in its engine, from which the component learns the
// current cycle, whether it ran in it, and sets timers of its own.
type Base struct {
	eng *Engine
	idx int
}

func (b *Base) base() *Base { return b }

// Ran reports whether the engine evaluated the component in the current
// cycle. Tracers sample between evaluation and commit; a component's
// strobes (events of the cycle) are low in the cycles it did not run.
func (b *Base) Ran() bool { return b.eng != nil && b.eng.ran[b.idx] == b.eng.now+1 }

// Now is the current cycle (0 before the component is added to an engine).
func (b *Base) Now() uint64 {
	if b.eng == nil {
		return 0
	}
	return b.eng.now
}

// Handshakes counts the pushes and pops staged in the engine so far: the
// difference across a component's Eval is its own handshakes of the
// cycle. A component whose next step depends on more than its channels
// (a free MSHR, a tag returned) returns busy after a cycle it moved
// anything, so that it looks again in the next one.
func (b *Base) Handshakes() uint64 {
	if b.eng == nil {
		return 0
	}
	return b.eng.handshakes
}

// WakeAt makes the component due at cycle at (a timer of its own: a
// firmware latency, a serializer busy for some cycles), or in the next
// cycle if at is not after this one. A timer counts as pending work for
// the watchdog until it fires.
func (b *Base) WakeAt(at uint64) {
	if b.eng != nil {
		b.eng.schedule(b.idx, max(at, b.eng.now+1))
	}
}

// Wake makes the component due in the current cycle, when called between
// two cycles (a testbench handing its source new work).
func (b *Base) Wake() {
	if b.eng != nil {
		b.eng.due.set(b.idx)
	}
}

// Stalls counts the cycles a component waits for something (an output to
// free, a resource), including those in which the engine does not
// evaluate it: nothing it waits on changed then, so it waited through
// them as it did in the cycle it last ran. Note the condition once in
// every Eval.
//
// A Stalls is a counter field of a unit's stats (kind:"wait" or
// kind:"occupancy", see Counter), read where it is kept.
type Stalls struct {
	n    uint64 // the count: the first word (CountersOf reads it there)
	k    uint64 // what the last Note counted for its cycle
	last uint64
}

// Note records whether the component waits in cycle now (once per Eval).
func (s *Stalls) Note(now uint64, waiting bool) {
	var k uint64
	if waiting {
		k = 1
	}
	s.NoteN(now, k)
}

// NoteN records that k things (contexts, requests) wait in cycle now
// (once per Eval); the cycles skipped since the last Note count as many.
func (s *Stalls) NoteN(now uint64, k uint64) {
	if s.k > 0 && now > s.last+1 {
		s.n += s.k * (now - s.last - 1)
	}
	s.n += k
	s.k, s.last = k, now
}

// Occupancy sums a level over the cycles (how many contexts, MSHRs or
// tags were in use in each), exact through the cycles the engine skips,
// in which the level holds: NoteN(now, level) once in every Eval, with
// the level the cycle leaves. It is a Stalls that counts use, not waits.
type Occupancy = Stalls

// String is the count, in decimal: a Stalls prints as the number it
// counted (%v of a unit's stats shows its count, not its bookkeeping).
func (s Stalls) String() string { return strconv.FormatUint(s.n, 10) }

// Count is the number counted, up to the last Note.
func (s Stalls) Count() uint64 { return s.n }
