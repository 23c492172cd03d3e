package tb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/score"
	"mkeysim/tb/stimulus"
)

// runBoth runs a scenario through the clocked model and checks every
// result on the scoreboard against the golden model, failing on the first
// difference or a missing result.
func runBoth(t testing.TB, name string, sc *scenario.Scenario, cfg rtl.Config, tweak func(*Bench)) []scenario.Result {
	t.Helper()
	board, err := score.NewBoard(sc, refConfig(cfg))
	if err != nil {
		t.Fatalf("%s: golden model: %v", name, err)
	}
	board.Overlap = cfg.OverlapInvalidate
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(b)
	}
	if err := b.Load(sc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := make([]scenario.Result, 0, len(sc.Ops))
	err = b.Stream(sc.Ops, RunOptions{OnResult: func(r *scenario.Result) error {
		if d := board.Check(r); d != "" {
			return fmt.Errorf("clocked model differs from the golden model: %s", d)
		}
		got = append(got, r.Clone())
		return nil
	}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if missing, n := board.Missing(3); n > 0 {
		t.Fatalf("%s: %d operations without a result: %v", name, n, missing)
	}
	if !cfg.OverlapInvalidate {
		for i := range got {
			if !got[i].HasCycle || i > 0 && got[i].Cycle < got[i-1].Cycle {
				t.Fatalf("%s: seq %d completes at cycle %d, before seq %d", name, i, got[i].Cycle, i-1)
			}
		}
	}
	return got
}

// TestConformance replays the shared conformance scenarios through the
// clocked model and compares with the expected lines.
func TestConformance(t *testing.T) {
	files, _ := filepath.Glob("../../shared/conformance/*.json")
	if len(files) == 0 {
		t.Skip("no shared conformance scenarios beside the repository")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc, err := scenario.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := runBoth(t, f, sc, rtl.DefaultConfig(), nil)
			data, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".expected.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			want, err := scenario.ReadResults(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if d := scenario.DiffLegal(&got[i], &want[i]); d != "" {
					t.Fatalf("expected file: %s", d)
				}
			}
		})
	}
}

// TestExamples runs every example scenario through both models; one
// with an iommu section runs with the host IOMMU (ConfigFor).
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.json")
	for _, f := range files {
		sc, err := scenario.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := ConfigFor(rtl.DefaultConfig(), sc)
		runBoth(t, f, sc, cfg, nil)
	}
}

// SmallConfigs are geometries that stress the pipeline: tiny caches,
// shallow FIFOs, few tags and credits, long and short links (exported
// for schedule_test.go, which is package tb_test).
func SmallConfigs() map[string]rtl.Config {
	out := map[string]rtl.Config{"default": rtl.DefaultConfig()}
	c := rtl.DefaultConfig()
	c.FIFODepth, c.ROBEntries = 1, 2
	c.MKCCache.Sets, c.MKCCache.Ways, c.MKCCache.MSHRs, c.MKCCache.LoopMSHRs = 1, 1, 1, 1
	c.MTT.Cache.Entries, c.MTT.Cache.EntriesPerLine, c.MTT.Cache.Ways = 1, 1, 1
	c.KLM.Cache.Entries, c.KLM.Cache.EntriesPerLine, c.KLM.Cache.Ways = 4, 4, 0
	c.KLM.Contexts, c.KLM.NestedContexts = 5, 4
	out["tiny"] = c
	c = rtl.DefaultConfig()
	c.MKCCache.Replacement = "random"
	c.ROBEntries, c.StageLat = 128, 3
	out["wide-random"] = c
	return out
}

// TestRandomWorkloads runs constrained-random scenarios, in several
// geometries, through both models.
func TestRandomWorkloads(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	for name, cfg := range SmallConfigs() {
		for seed := int64(1); seed <= 3; seed++ {
			w := stimulus.DefaultWorkload()
			w.Seed, w.Keys, w.Accesses = seed, 300, n
			sc := stimulus.Generate(w)
			t.Logf("%s seed %d: %d operations", name, seed, len(sc.Ops))
			runBoth(t, name, sc, cfg, nil)
		}
	}
}

// TestTickOrderIndependent runs one workload with the components
// evaluated in a different random order every cycle, with and without idle
// skipping: every result and every completion cycle must be the same.
func TestTickOrderIndependent(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Keys, w.Accesses = 200, 3000
	sc := stimulus.Generate(w)
	cfg := rtl.DefaultConfig()
	base := runBoth(t, "in order", sc, cfg, nil)
	for _, seed := range []int64{1, 2, 3} {
		got := runBoth(t, "shuffled", sc, cfg, func(b *Bench) { b.Eng.Shuffle(seed); b.Eng.NoSkip = seed == 2 })
		for i := range base {
			if got[i].Cycle != base[i].Cycle {
				t.Fatalf("shuffle seed %d: seq %d completes at cycle %d, in order at %d", seed, i, got[i].Cycle, base[i].Cycle)
			}
		}
	}
	// Under back-pressure too: the stalls depend on the channel and the
	// cycle, never on the order of evaluation.
	press := runBoth(t, "back-pressure", sc, cfg, func(b *Bench) { b.Eng.Backpressure(5, 200) })
	for _, seed := range []int64{4, 5} {
		got := runBoth(t, "back-pressure, shuffled", sc, cfg, func(b *Bench) { b.Eng.Backpressure(5, 200); b.Eng.Shuffle(seed) })
		for i := range press {
			if got[i].Cycle != press[i].Cycle {
				t.Fatalf("back-pressure, shuffle seed %d: seq %d completes at cycle %d, in order at %d", seed, i, got[i].Cycle, press[i].Cycle)
			}
		}
	}
	if press[len(press)-1].Cycle <= base[len(base)-1].Cycle {
		t.Fatalf("back-pressure did not slow the run: %d cycles, %d without", press[len(press)-1].Cycle, base[len(base)-1].Cycle)
	}
}

// TestGenerateDeterministic: the same workload seed gives the same
// scenario, operation for operation.
func TestGenerateDeterministic(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Keys, w.Accesses = 100, 5000
	a, b := stimulus.Generate(w), stimulus.Generate(w)
	if len(a.Ops) != len(b.Ops) || len(a.MKeys) != len(b.MKeys) {
		t.Fatalf("seed %d: %d/%d ops, %d/%d keys", w.Seed, len(a.Ops), len(b.Ops), len(a.MKeys), len(b.MKeys))
	}
	for i := range a.Ops {
		if a.Ops[i].Kind != b.Ops[i].Kind || a.Ops[i].Access != b.Ops[i].Access || a.Ops[i].Key != b.Ops[i].Key {
			t.Fatalf("seed %d: op %d differs", w.Seed, i)
		}
	}
}
