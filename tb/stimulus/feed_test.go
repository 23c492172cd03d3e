package stimulus

import (
	"fmt"
	"reflect"
	"testing"

	"mkeysim/scenario"
)

// TestFeedOf: a feed of a slice numbers it from its base, holds it whole
// until forgotten, and has nothing outside it.
func TestFeedOf(t *testing.T) {
	ops := make([]scenario.Op, 5)
	for i := range ops {
		ops[i].Index = uint32(i)
	}
	f := FeedOf(ops, 10)
	if f.First() != 10 || f.Made() != 15 || !f.Done() {
		t.Fatalf("first %d made %d done %v, want 10 15 true", f.First(), f.Made(), f.Done())
	}
	for seq, want := range map[int]int{10: 0, 12: 2, 14: 4, 9: -1, 15: -1, -1: -1} {
		op := f.At(seq)
		switch {
		case want < 0 && op != nil:
			t.Errorf("At(%d) = op %d, want none", seq, op.Index)
		case want >= 0 && (op == nil || op.Index != uint32(want)):
			t.Errorf("At(%d) = %v, want op %d", seq, op, want)
		}
	}
	if got := len(f.From(13)); got != 2 {
		t.Errorf("From(13) holds %d operations, want 2", got)
	}
	f.Forget(14) // the chunk still holds 14
	if f.At(10) == nil {
		t.Error("Forget(14) dropped a chunk that holds operation 14")
	}
	f.Forget(15)
	if f.At(14) != nil || f.First() != 15 || f.Made() != 15 {
		t.Errorf("after Forget(15): At(14) %v, first %d, made %d; want none, 15, 15", f.At(14), f.First(), f.Made())
	}
	if e := FeedOf(nil, 3); e.First() != 3 || e.Made() != 3 || !e.Done() || e.At(3) != nil {
		t.Errorf("empty feed: first %d made %d done %v", e.First(), e.Made(), e.Done())
	}
}

// TestGeneratorFeed: a generator's feed makes the operations Generate
// makes, in the same order, a chunk at a time, for every workload kind
// and lengths around the chunk's; it holds only the chunks not forgotten.
func TestGeneratorFeed(t *testing.T) {
	for _, c := range []struct {
		name string
		w    func() Workload
	}{
		{"mixed", DefaultWorkload},
		{"uniform", func() Workload { w := DefaultWorkload(); w.Kind = KindUniform; return w }},
		{"commands", func() Workload {
			w := DefaultWorkload()
			w.Keys, w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 64, 100, 50, 50, 200
			return w
		}},
	} {
		for _, n := range []int{1, FeedChunk - 1, FeedChunk, 2*FeedChunk + 7} {
			w := c.w()
			w.Accesses = n
			want := Generate(w).Ops
			f := NewGenerator(w).Feed()
			var got []scenario.Op
			for seq := 0; ; {
				ops := f.From(seq)
				if ops == nil {
					break
				}
				got = append(got, ops...)
				seq += len(ops)
				f.Forget(seq)
				if len(f.chunks) > 1 {
					t.Fatalf("%s, %d accesses: %d chunks held after forgetting all but the last", c.name, n, len(f.chunks))
				}
			}
			if !f.Done() || f.Made() != len(want) {
				t.Errorf("%s, %d accesses: done %v, made %d, want true, %d", c.name, n, f.Done(), f.Made(), len(want))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %d accesses: the feed's %d operations differ from Generate's %d", c.name, n, len(got), len(want))
			}
		}
	}
}

// TestFeedMap: a mapped feed holds fn of each operation with its number,
// made a chunk of its source at a time; forgetting in it forgets in the
// source; an error from fn ends it before the chunk that holds that
// operation and is kept.
func TestFeedMap(t *testing.T) {
	src := &Feed{first: 100, made: 100}
	var chunks [][]scenario.Op
	for k := range 3 {
		c := make([]scenario.Op, 4)
		for i := range c {
			c[i].Index = uint32(4*k + i)
		}
		chunks = append(chunks, c)
	}
	src.more = func([]scenario.Op) []scenario.Op {
		if len(chunks) == 0 {
			return nil
		}
		c := chunks[0]
		chunks = chunks[1:]
		return c
	}
	seen := map[int]bool{}
	m := src.Map(func(seq int, op *scenario.Op) (scenario.Op, error) {
		if seen[seq] {
			t.Errorf("operation %d mapped twice", seq)
		}
		seen[seq] = true
		if int(op.Index) != seq-100 {
			t.Errorf("operation %d handed with index %d", seq, op.Index)
		}
		if seq == 109 {
			return scenario.Op{}, fmt.Errorf("operation %d: no", seq)
		}
		out := *op
		out.QPN = uint32(seq)
		return out, nil
	})
	if op := m.At(105); op == nil || op.QPN != 105 || op.Index != 5 {
		t.Fatalf("At(105) = %+v, want operation 5 mapped", op)
	}
	if src.Made() != 108 || m.Made() != 108 {
		t.Errorf("made %d in the source, %d mapped after At(105): want 108 both (two chunks)", src.Made(), m.Made())
	}
	m.Forget(104)
	if src.At(103) != nil || m.At(103) != nil || src.At(104) == nil || m.At(104) == nil {
		t.Error("Forget(104) in the mapped feed did not forget the first chunk in both, or forgot more")
	}
	if op := m.At(109); op != nil {
		t.Errorf("At(109) = %+v past the error, want none", op)
	}
	if m.Made() != 108 || !m.Done() || m.Err() == nil || m.Err().Error() != "operation 109: no" {
		t.Errorf("after the error: made %d, done %v, Err %v; want 108 (its chunk dropped), true, operation 109: no", m.Made(), m.Done(), m.Err())
	}
	if len(seen) != 10 {
		t.Errorf("%d operations mapped, want 10 (100..109)", len(seen))
	}
}
