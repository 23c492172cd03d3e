package stimulus

import (
	"slices"
	"time"

	"mkeysim/scenario"
)

// Feed is a run's operations by number, made a chunk at a time as the
// model takes them and forgotten once every result before them is in:
// a run of any length holds a few chunks of operations, not all of them
// (a million-access run held 56 MB of operations before it started, and
// twice that in heap). How a run is fed changes none of its results,
// cycles or counters: the model's input sees the same operations in the
// same cycles.
//
// Operations stay where they were made: the model keeps pointers to the
// operations in flight. A chunk is forgotten only once every operation
// in it has its result, so nothing reads it again, and a feed that makes
// its chunks makes the next one in it (spare) instead of in new memory:
// a hit-bound run then stops growing its heap, whose new pages were a
// third of its page faults.
type Feed struct {
	chunks [][]scenario.Op // the chunks held, oldest first
	first  int             // the number of chunks[0][0] (made when none is held)
	made   int             // the number after the last operation made
	// more makes the next chunk, in spare's array if it is large enough
	// (spare is empty: nil, or a forgotten chunk); nil when there is none.
	more   func(spare []scenario.Op) []scenario.Op
	done   bool          // more has returned nil (or there is none)
	making time.Duration // the time spent in more
	// src is the feed a Map feed maps (nil for none): it forgets what
	// this one forgets. err is why the map stopped early.
	src *Feed
	err error
	// spare is the largest chunk forgotten since more last ran, emptied
	// (nil for none); a feed that makes no more chunks (done) keeps none.
	spare []scenario.Op
}

// FeedOf feeds ops, numbered from base on.
func FeedOf(ops []scenario.Op, base int) *Feed {
	f := &Feed{first: base, made: base, done: true}
	if len(ops) > 0 {
		f.chunks, f.made = [][]scenario.Op{ops}, base+len(ops)
	}
	return f
}

// NewFeed returns a feed of the operations that more makes, numbered from
// 0, a chunk at a time as the feed's reader takes them. more is handed
// the number of the chunk's first operation (the operations made so far)
// and spare, an empty slice whose array it may fill (nil, or a forgotten
// chunk's); it returns nil when there are no more operations, or an
// error that ends the feed there (Err returns it). It is not called again
// after either.
func NewFeed(more func(spare []scenario.Op, next int) ([]scenario.Op, error)) *Feed {
	f := &Feed{}
	f.more = func(spare []scenario.Op) []scenario.Op {
		ops, err := more(spare, f.made)
		if err != nil {
			f.err = err
			return nil
		}
		return ops
	}
	return f
}

// FeedChunk is how many accesses a generator's feed makes at a time:
// about 230 KB of operations, far more than a reorder buffer holds in
// flight, so that the chunks held are two or three.
const FeedChunk = 4096

// Feed returns a feed of the generator's operations (Next), numbered from
// 0, made FeedChunk accesses at a time; call it before any Next.
func (g *Generator) Feed() *Feed {
	f := &Feed{more: func(spare []scenario.Op) []scenario.Op { return g.nextInto(spare, FeedChunk) }}
	f.grow()
	return f
}

// Map returns a feed of f's operations, each passed through fn with its
// number, a chunk of f at a time as the new feed's reader takes them.
// Forgetting operations in the new feed forgets them in f too, so f's
// other readers (a Scoreboard) see them as long as the run needs them.
// An error from fn ends the new feed before the chunk of f that holds
// that operation (before any operation, for a feed of one slice: bad
// input runs nothing); Err returns it. The new feed's Making counts fn's
// time as well as f's.
func (f *Feed) Map(fn func(seq int, op *scenario.Op) (scenario.Op, error)) *Feed {
	m := &Feed{first: f.first, made: f.first, src: f}
	next := f.first
	m.more = func(spare []scenario.Op) []scenario.Op {
		ops := f.From(next)
		if ops == nil || m.err != nil {
			return nil
		}
		out := slices.Grow(spare, len(ops))[:len(ops)]
		for k := range ops {
			var err error
			if out[k], err = fn(next+k, &ops[k]); err != nil {
				m.err = err
				return nil
			}
		}
		next += len(out)
		return out
	}
	return m
}

// Err is why a Map feed ended before its source did, or why the chunks
// of a NewFeed feed ended early (nil if neither).
func (f *Feed) Err() error { return f.err }

// grow makes the next chunk; it reports false when there is none.
func (f *Feed) grow() bool {
	for !f.done {
		start := time.Now()
		ops := f.more(f.spare)
		f.making += time.Since(start)
		f.spare = nil
		// What is left of a forgotten chunk's array past the new one
		// would keep its commands' payloads alive.
		clear(ops[len(ops):cap(ops)])
		if ops == nil {
			f.done = true
			return false
		}
		if len(ops) > 0 {
			if len(f.chunks) == 0 {
				f.first = f.made
			}
			f.chunks = append(f.chunks, ops)
			f.made += len(ops)
			return true
		}
	}
	return false
}

// Making is the time spent making operations: a run's loop that makes
// them as it goes subtracts it from its own (the statistics'
// wall_seconds time the model alone).
func (f *Feed) Making() time.Duration { return f.making }

// First is the number of the oldest operation held (Made when none is).
func (f *Feed) First() int { return f.first }

// Made is the number after the last operation made so far.
func (f *Feed) Made() int { return f.made }

// Chunks is how many chunks of operations the feed holds: a few,
// whatever the run's length, when its reader forgets what it has done.
func (f *Feed) Chunks() int { return len(f.chunks) }

// Done reports whether every operation of the run is made.
func (f *Feed) Done() bool { return f.done }

// From returns the operations from number seq to the end of the chunk
// that holds it, making chunks up to it; nil when the run has no
// operation seq or it was forgotten.
func (f *Feed) From(seq int) []scenario.Op {
	if c, i := f.find(seq); c != nil {
		return c[i:]
	}
	return nil
}

// At returns operation seq, making chunks up to it; nil when the run has
// no such operation or it was forgotten.
func (f *Feed) At(seq int) *scenario.Op {
	if c, i := f.find(seq); c != nil {
		return &c[i]
	}
	return nil
}

// find returns the chunk that holds operation seq and seq's index in it,
// making chunks up to it; a nil chunk when the run has no operation seq
// or it was forgotten.
func (f *Feed) find(seq int) ([]scenario.Op, int) {
	for seq >= f.made {
		if !f.grow() {
			return nil, 0
		}
	}
	if seq < f.first {
		return nil, 0
	}
	at := f.first
	for _, c := range f.chunks {
		if seq < at+len(c) {
			return c, seq - at
		}
		at += len(c)
	}
	return nil, 0
}

// Forget drops the chunks whose operations all come before seq (and, in
// a Map feed, its source's). The sink calls it for every result: the test
// stays small enough to be inlined there.
func (f *Feed) Forget(seq int) {
	if len(f.chunks) > 0 && f.first+len(f.chunks[0]) <= seq {
		f.forget(seq)
	}
}

func (f *Feed) forget(seq int) {
	if f.src != nil {
		// A Map feed's chunks are its source's, one for one: the source
		// has a chunk to drop exactly when this one does.
		f.src.Forget(seq)
	}
	k := 0
	for k < len(f.chunks) && f.first+len(f.chunks[k]) <= seq {
		f.first += len(f.chunks[k])
		if c := f.chunks[k]; !f.done && cap(c) > cap(f.spare) {
			f.spare = c[:0]
		}
		k++
	}
	n := copy(f.chunks, f.chunks[k:])
	clear(f.chunks[n:])
	f.chunks = f.chunks[:n]
}
