package tb

import (
	"testing"

	"mkeysim/rtl"
	"mkeysim/scenario"
)

// loadedBench returns a new bench of cfg with sc's QPs and MKeys loaded;
// an error fails the test.
func loadedBench(t testing.TB, cfg rtl.Config, sc *scenario.Scenario) *Bench {
	t.Helper()
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	return b
}

// runBench runs sc through a new bench of cfg, every result checked by
// Run's own rules, and returns the bench for its statistics; any error
// fails the test.
func runBench(t *testing.T, cfg rtl.Config, sc *scenario.Scenario) *Bench {
	t.Helper()
	b := loadedBench(t, cfg, sc)
	if _, err := b.Run(sc.Ops, nil); err != nil {
		t.Fatal(err)
	}
	return b
}
