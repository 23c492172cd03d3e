package tb

import (
	"errors"
	"runtime"
	"testing"

	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/score"
	"mkeysim/tb/stimulus"
)

// TestSteadyStateAllocations: in steady state the clocked model allocates
// nothing per translation: results, channel payloads, ROB entries,
// walker contexts and MSHRs are reused, and the PCIe model carves read
// buffers and completion payloads from 16 KB chunks (one allocation per
// hundreds of reads, the bytes reclaimed by the collector); the
// scoreboard that checks the results reuses its golden results and their
// segment slices. Counted between the 20,000th and the 50,000th result of
// the hit-bound, the miss-bound and the default workload (the last also
// checked): one allocation per translation would count 1. The bytes
// allocated are bounded too: the generator's feed makes its operations
// in the chunks it forgot (a new chunk a time was about 63 bytes a
// translation), so a hit-bound run allocates almost nothing, and the
// others what the PCIe model's chunks and the commands take.
func TestSteadyStateAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 x 60,000 accesses")
	}
	for _, c := range []struct {
		name  string
		w     stimulus.Workload
		check bool
		max   float64 // allocations per translation
		bytes float64 // bytes allocated per translation
	}{
		{"hit-bound", HotWorkload(), false, 0.01, 16},
		{"miss-bound", MissWorkload(), false, 0.05, 450},
		// Commands allocate (a UMR's list, a query's result): a few
		// per thousand operations.
		{"default", stimulus.DefaultWorkload(), false, 0.1, 90},
		{"default, checked", stimulus.DefaultWorkload(), true, 0.15, 100},
	} {
		c.w.Accesses = 60_000
		g := stimulus.NewGenerator(c.w)
		setup, f := g.Setup(), g.Feed()
		cfg := rtl.DefaultConfig()
		b := loadedBench(t, cfg, setup)
		var board *score.Board
		if c.check {
			var err error
			if board, err = score.NewBoard(setup, refConfig(cfg)); err != nil {
				t.Fatal(err)
			}
			board.Follow(f)
		}
		var m0, m1 runtime.MemStats
		var tr0, tr1 uint64
		err := b.StreamFeed(f, RunOptions{OnResult: func(r *scenario.Result) error {
			if board != nil && board.Check(r) != "" {
				return errors.New(board.Summary())
			}
			switch r.Seq {
			case 20_000:
				runtime.ReadMemStats(&m0)
				tr0 = b.Top.Translations()
			case 50_000:
				runtime.ReadMemStats(&m1)
				tr1 = b.Top.Translations()
			}
			return nil
		}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := float64(tr1 - tr0)
		per, bytes := float64(m1.Mallocs-m0.Mallocs)/n, float64(m1.TotalAlloc-m0.TotalAlloc)/n
		t.Logf("%s: %.4f allocations and %.0f bytes per translation over %.0f translations", c.name, per, bytes, n)
		if per > c.max {
			t.Errorf("%s: %.4f allocations per translation in steady state, want at most %g", c.name, per, c.max)
		}
		if bytes > c.bytes {
			t.Errorf("%s: %.0f bytes allocated per translation in steady state, want at most %g", c.name, bytes, c.bytes)
		}
	}
}
