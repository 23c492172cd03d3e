//go:build linux

package tb

import (
	"testing"

	"mkeysim/internal/memlimit"
	"mkeysim/internal/querytest"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// runClocked runs a scenario through the clocked model.
func runClocked(t *testing.T, sc *scenario.Scenario) []scenario.Result {
	t.Helper()
	b := loadedBench(t, rtl.DefaultConfig(), sc)
	res, err := b.Run(sc.Ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestQueryHugeCapacity: QUERY_MKEY of an object of capacity 0xFFFFFFFC
// octwords in the clocked model answers OK with every entry of the
// capacity, without allocating the list (64 GB): the run and 50 MB of its
// streamed line allocate a few MB, under an address-space limit of 1 GB
// above the test's own; the line agrees with the golden model's (Diff
// streams both lists of 8.6 billion entries, skipping their zero runs).
func TestQueryHugeCapacity(t *testing.T) {
	if !memlimit.Under(t, 1<<30) {
		return
	}
	for _, mode := range []string{"MTT", "KLM"} {
		sc, res := querytest.RunHuge(t, mode, 64<<20, func(sc *scenario.Scenario) []scenario.Result { return runClocked(t, sc) })
		want, err := ref.Run(sc, ref.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if d := scenario.Diff(&res[i], &want[i]); d != "" {
				t.Errorf("%s: clocked model differs from the golden model: %s", mode, d)
			}
		}
	}
}

// TestQuerySnapshotBeforeUMR: in the clocked model too, a query's line
// shows the list as it was when the query ran, even when a UMR rewrites
// the list before the line is written.
func TestQuerySnapshotBeforeUMR(t *testing.T) {
	sc, err := scenario.Parse([]byte(querytest.Scenario))
	if err != nil {
		t.Fatal(err)
	}
	querytest.CheckLines(t, runClocked(t, sc))
}
