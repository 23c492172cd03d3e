package tb

import (
	"errors"
	"testing"

	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
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

// TestStreamStop: closing RunOptions.Stop ends the run at a cycle boundary
// at most stopEvery cycles stepped later, with ErrStopped and the results
// handed over so far; a Stop closed before the run stops it after its
// first cycle.
func TestStreamStop(t *testing.T) {
	w := HotWorkload()
	w.Accesses = 2000
	sc := stimulus.Generate(w)
	for _, at := range []int{0, 1, 100} {
		b := loadedBench(t, rtl.DefaultConfig(), sc)
		stop := make(chan struct{})
		if at == 0 {
			close(stop)
		}
		var got int
		var closedAt uint64
		err := b.Stream(sc.Ops, RunOptions{Stop: stop, OnResult: func(*scenario.Result) error {
			if got++; got == at {
				close(stop)
				closedAt = b.Eng.Now()
			}
			return nil
		}})
		if !errors.Is(err, ErrStopped) {
			t.Fatalf("stop after %d results: err = %v, want ErrStopped", at, err)
		}
		if got >= len(sc.Ops) || got < at {
			t.Errorf("stop after %d results: %d of %d results handed over", at, got, len(sc.Ops))
		}
		// The hot workload steps every cycle: stopped within stopEvery.
		if now := b.Eng.Now(); now > closedAt+stopEvery+1 {
			t.Errorf("stop after %d results: closed at cycle %d, stopped at %d, more than %d later", at, closedAt, now, stopEvery)
		}
	}
}
