package tb

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/wire"
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
		for _, n := range []int{1, feedChunk - 1, feedChunk, 2*feedChunk + 7} {
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

// TestStreamFeed: a run fed a chunk at a time gives the results, in the
// same cycles, and the counters of the same run over every operation at
// once, and the scoreboard that follows the feed finds no difference;
// the feed holds at most three chunks at any moment. Overlapping
// invalidation (results out of order) and an offered load are covered.
func TestStreamFeed(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  func(*rtl.Config)
		gap  uint64
	}{
		{"default", func(*rtl.Config) {}, 0},
		{"overlap", func(c *rtl.Config) { c.OverlapInvalidate = true }, 0},
		{"offered load", func(*rtl.Config) {}, 3},
	} {
		w := DefaultWorkload()
		w.Seed, w.Keys, w.Accesses = 5, 64, 3*feedChunk+100
		w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 20, 20, 5, 50
		cfg := rtl.DefaultConfig()
		c.cfg(&cfg)

		sc := Generate(w)
		whole := loadedBench(t, cfg, sc)
		whole.InterArrival(c.gap)
		want, err := whole.Run(sc.Ops, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}

		g := NewGenerator(w)
		setup, f := g.Setup(), g.Feed()
		fed := loadedBench(t, cfg, setup)
		fed.InterArrival(c.gap)
		board, err := NewScoreboard(setup, ref.Config{MaxIndirection: cfg.KLM.MaxIndirection})
		if err != nil {
			t.Fatal(err)
		}
		board.Overlap = cfg.OverlapInvalidate
		board.Follow(f)
		var got []scenario.Result
		held := 0
		err = fed.StreamFeed(f, RunOptions{OnResult: func(r *scenario.Result) error {
			board.Check(r)
			got = append(got, r.Clone())
			held = max(held, len(f.chunks))
			return nil
		}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if board.Mismatches > 0 || board.Checked() != len(sc.Ops) {
			t.Errorf("%s: %s (%d checked of %d)", c.name, board.Summary(), board.Checked(), len(sc.Ops))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the fed run's %d results differ from the whole run's %d", c.name, len(got), len(want))
		}
		if a, b := fed.Stats(time.Second), whole.Stats(time.Second); !reflect.DeepEqual(a.Counters, b.Counters) || a.Cycles != b.Cycles {
			t.Errorf("%s: counters or cycles differ (%d against %d cycles)", c.name, a.Cycles, b.Cycles)
		}
		if held > 3 {
			t.Errorf("%s: the feed held %d chunks at once, want at most 3", c.name, held)
		}
	}
}

// TestFedRunMemory: the heap a fed run keeps does not grow with its
// length or its progress: nine tenths into a run of ten times the
// accesses it keeps less than a megabyte more (the whole workload's
// operations would be about 56 bytes each, 8 MB more; the wire front's
// messages, kept to the end, more again).
func TestFedRunMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 495,000 accesses")
	}
	for _, c := range []struct {
		front  Front
		stream func(b *Bench, f *Feed, opt RunOptions) error
	}{
		{FrontDirect, func(b *Bench, f *Feed, opt RunOptions) error { return b.StreamFeed(f, opt) }},
		{FrontWire, func(b *Bench, f *Feed, opt RunOptions) error {
			_, err := b.StreamWireFeed(f, opt, WireOptions{})
			return err
		}},
		{FrontHost, func(b *Bench, f *Feed, opt RunOptions) error {
			_, err := b.StreamHostFeed(f, opt)
			return err
		}},
	} {
		live := func(accesses int) uint64 {
			w := DefaultWorkload()
			w.Accesses = accesses
			g := NewGenerator(w)
			setup, f := g.Setup(), g.Feed()
			b := loadedBench(t, rtl.DefaultConfig(), setup)
			var m runtime.MemStats
			if err := c.stream(b, f, RunOptions{OnResult: func(r *scenario.Result) error {
				// Nine tenths in: state that grows with the run's progress
				// (a window never emptied) shows as well as operations
				// made ahead.
				if r.Seq == accesses*9/10 {
					runtime.GC()
					runtime.ReadMemStats(&m)
				}
				return nil
			}}); err != nil {
				t.Fatal(err)
			}
			return m.HeapAlloc
		}
		short, long := live(15_000), live(150_000)
		t.Logf("%s front: heap in use at operation 13,500 of a run of 15,000 accesses: %.1f MB; at 135,000 of 150,000: %.1f MB", c.front, float64(short)/1e6, float64(long)/1e6)
		if long > short+1<<20 {
			t.Errorf("%s front: a run of 150,000 accesses keeps %.1f MB, one of 15,000 %.1f MB: operations or what is kept of them are held, not fed and forgotten", c.front, float64(long)/1e6, float64(short)/1e6)
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

// TestStreamWireFeed: the wire front fed a chunk at a time gives the
// results, cycles, frames and counts of the same run over every operation
// at once, page faults resumed (an access answered twice) and SENDs with
// invalidate included (TestFedRunMemory checks what it keeps).
func TestStreamWireFeed(t *testing.T) {
	w := DefaultWorkload()
	w.Seed, w.Keys, w.Accesses = 9, 64, 3*feedChunk+100
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 20, 20, 5, 50
	sc := Generate(w)
	// answers is how many answer packets the result r of an operation a
	// wire carries calls for: an RNR NAK for a page fault (the access is
	// answered again when a resume runs it), a NAK for a failure, the
	// response packets of a read, else one acknowledgement.
	answers := func(r *scenario.Result) int {
		op := &sc.Ops[r.Seq]
		switch {
		case !wire.Carries(op):
			return 0
		case r.Status == prm.OK && op.Kind == scenario.OpAccess && op.Access.Type == prm.RemoteRead:
			return int(wire.MessagePackets(op.Access.Len))
		}
		return 1
	}
	do := func(sc *scenario.Scenario, stream func(*Bench, RunOptions, WireOptions) (WireStats, error)) wireRunOut {
		want := 0
		r := collect(t, sc, func(b *Bench, o RunOptions, wo WireOptions) (WireStats, error) {
			inner := o.OnResult
			o.OnResult = func(res *scenario.Result) error {
				want += answers(res)
				for k := range res.Resumed {
					want += answers(&res.Resumed[k])
				}
				return inner(res)
			}
			return stream(b, o, wo)
		})
		if r.st.Answers != want {
			t.Errorf("%d answer packets, the results call for %d", r.st.Answers, want)
		}
		return r
	}
	whole := do(sc, func(b *Bench, o RunOptions, wo WireOptions) (WireStats, error) {
		return b.StreamWire(sc.Ops, o, wo)
	})
	g := NewGenerator(w)
	setup, f := g.Setup(), g.Feed()
	held := 0
	fed := do(setup, func(b *Bench, o RunOptions, wo WireOptions) (WireStats, error) {
		inner := o.OnResult
		o.OnResult = func(r *scenario.Result) error {
			held = max(held, len(f.chunks))
			return inner(r)
		}
		return b.StreamWireFeed(f, o, wo)
	})
	sameRun(t, "the fed wire run against the whole one", fed, whole)
	resumed := 0
	for _, l := range whole.lines {
		resumed += strings.Count(l, "PAGE_FAULT")
	}
	if resumed == 0 || whole.st.RecvCQEs == 0 {
		t.Errorf("%d page faults and %d receive CQEs: the workload does not exercise the answers kept", resumed, whole.st.RecvCQEs)
	}
	if held > 3 {
		t.Errorf("the generator's feed held %d chunks at once, want at most 3", held)
	}
}
