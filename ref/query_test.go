//go:build linux

package ref_test

import (
	"bufio"
	"errors"
	"runtime"
	"testing"

	"mkeysim/internal/memlimit"
	"mkeysim/internal/querytest"
	"mkeysim/prm"
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
		sc, err := scenario.Parse([]byte(querytest.HugeScenario(mode)))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := ref.Run(sc, ref.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		for i := range res[:2] {
			if res[i].Status != prm.OK {
				t.Fatalf("%s seq %d: %v %s", mode, i, res[i].Status, res[i].Reason)
			}
		}
		querytest.CheckHuge(t, mode, &res[2])
		w := &querytest.FailAfter{Limit: 50 << 20}
		bw := bufio.NewWriter(w)
		err = res[2].WriteLine(bw)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, querytest.ErrFull) || w.N != w.Limit {
			t.Errorf("%s: streaming the line: %v after %d bytes, want the writer's error after %d", mode, err, w.N, w.Limit)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: run and 50 MB of the query line: %d bytes allocated, heap obtained from the OS %d MB, peak RSS %s",
			mode, alloc, after.HeapSys>>20, memlimit.PeakRSS())
		if alloc > 16<<20 {
			t.Errorf("%s: %d bytes allocated, want a few MB", mode, alloc)
		}
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
