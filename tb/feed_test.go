package tb

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/score"
	"mkeysim/tb/stimulus"
	"mkeysim/tb/wire"
)

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
		w := stimulus.DefaultWorkload()
		w.Seed, w.Keys, w.Accesses = 5, 64, 3*stimulus.FeedChunk+100
		w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 20, 20, 5, 50
		cfg := rtl.DefaultConfig()
		c.cfg(&cfg)

		sc := stimulus.Generate(w)
		whole := loadedBench(t, cfg, sc)
		whole.InterArrival(c.gap)
		want, err := whole.Run(sc.Ops, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}

		g := stimulus.NewGenerator(w)
		setup, f := g.Setup(), g.Feed()
		fed := loadedBench(t, cfg, setup)
		fed.InterArrival(c.gap)
		board, err := score.NewBoard(setup, refConfig(cfg))
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
			held = max(held, f.Chunks())
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
		stream func(b *Bench, f *stimulus.Feed, opt RunOptions) error
	}{
		{FrontDirect, func(b *Bench, f *stimulus.Feed, opt RunOptions) error { return b.StreamFeed(f, opt) }},
		{FrontWire, func(b *Bench, f *stimulus.Feed, opt RunOptions) error {
			_, err := b.StreamWireFeed(f, opt, WireOptions{})
			return err
		}},
		{FrontHost, func(b *Bench, f *stimulus.Feed, opt RunOptions) error {
			_, err := b.StreamHostFeed(f, opt)
			return err
		}},
	} {
		live := func(accesses int) uint64 {
			w := stimulus.DefaultWorkload()
			w.Accesses = accesses
			g := stimulus.NewGenerator(w)
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

// TestStreamWireFeed: the wire front fed a chunk at a time gives the
// results, cycles, frames and counts of the same run over every operation
// at once, page faults resumed (an access answered twice) and SENDs with
// invalidate included (TestFedRunMemory checks what it keeps).
func TestStreamWireFeed(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Seed, w.Keys, w.Accesses = 9, 64, 3*stimulus.FeedChunk+100
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 20, 20, 5, 50
	sc := stimulus.Generate(w)
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
	g := stimulus.NewGenerator(w)
	setup, f := g.Setup(), g.Feed()
	held := 0
	fed := do(setup, func(b *Bench, o RunOptions, wo WireOptions) (WireStats, error) {
		inner := o.OnResult
		o.OnResult = func(r *scenario.Result) error {
			held = max(held, f.Chunks())
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
