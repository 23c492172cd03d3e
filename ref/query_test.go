//go:build linux

package ref_test

import (
	"testing"

	"mkeysim/internal/memlimit"
	"mkeysim/internal/querytest"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// TestQueryHugeCapacity: QUERY_MKEY of an object of capacity 0xFFFFFFFC
// octwords in the golden model answers OK with every entry of the
// capacity, without allocating the list (64 GB): the run and 50 MB of its
// streamed line allocate a few MB, under an address-space limit of 1 GB
// above the test's own. The rest of the line is cut by the writer's error.
func TestQueryHugeCapacity(t *testing.T) {
	if !memlimit.Under(t, 1<<30) {
		return
	}
	for _, mode := range []string{"MTT", "KLM"} {
		querytest.RunHuge(t, mode, 16<<20, func(sc *scenario.Scenario) []scenario.Result {
			res, err := ref.Run(sc, ref.DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			return res
		})
	}
}

// TestQuerySnapshotBeforeUMR: a query's line shows the list as it was when
// the query ran, even when a UMR rewrites the list before the line is
// written.
func TestQuerySnapshotBeforeUMR(t *testing.T) {
	sc, err := scenario.Parse([]byte(querytest.Scenario))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ref.Run(sc, ref.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	querytest.CheckLines(t, res)
}
