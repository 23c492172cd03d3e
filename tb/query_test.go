//go:build linux

package tb

import (
	"bufio"
	"errors"
	"runtime"
	"testing"

	"mkeysim/internal/memlimit"
	"mkeysim/internal/querytest"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// hugeScenario is a scenario of about 300 bytes that creates a free object
// of capacity 0xFFFFFFFC octwords (2 x 0xFFFFFFFC MTT entries, or
// 0xFFFFFFFC KLM entries: 64 GB of list) with one entry, writes one more
// near the end of the capacity by UMR, and queries it.
func hugeScenario(mode string) string {
	entry, deep := `"mtt":[{"ptag":"0x5000"}]`, `"mtt":[{"ptag":"0x7000"},{"ptag":"0x8000"}]`
	if mode == "KLM" {
		entry, deep = `"klm":[{"byte_count":4096,"mkey":"0x100","address":"0x0"}]`, `"klm":[{"byte_count":7,"mkey":"0x200","address":"0x40"}]`
	}
	return `{"qps":[{"qpn":1,"pd":5}],"ops":[
{"op":"create_mkey","index":3,"mkc":{"access_mode":"` + mode + `","log_entity_size":12,"pd":5,"lr":1,"free":1,"umr_en":1,"translations_octword_size":"0xfffffffc"},` + entry + `},
{"op":"umr","qpn":1,"key":"0x300","translation_offset":"0xfffffff8",` + deep + `},
{"op":"query_mkey","index":3}]}`
}

// checkHugeQuery checks the query line of hugeScenario: OK, the count of
// the whole capacity, the entries written where they were written and
// zero entries elsewhere.
func checkHugeQuery(t *testing.T, mode string, res *scenario.Result) {
	t.Helper()
	if res.Status != prm.OK || res.List == nil {
		t.Fatalf("%s query: status %v, list %v", mode, res.Status, res.List)
	}
	l := res.List
	if mode == "MTT" {
		if l.Kind() != scenario.ListMTT || l.Len() != 2*0xFFFFFFFC {
			t.Fatalf("MTT query: %v list of %d entries, want mtt of %d", l.Kind(), l.Len(), uint64(2*0xFFFFFFFC))
		}
		want := map[uint64]prm.MTTEntry{
			0:                {PTag: 0x5000, RdEn: true, WrEn: true},
			1:                {},
			2 * 0xFFFFFFF8:   {PTag: 0x7000, RdEn: true, WrEn: true},
			2*0xFFFFFFF8 + 1: {PTag: 0x8000, RdEn: true, WrEn: true},
			2*0xFFFFFFF8 + 2: {},
			2*0xFFFFFFFC - 1: {},
			0x8000_0000:      {},
		}
		for i, w := range want {
			if g := l.MTT(i); g != w {
				t.Errorf("mtt[%d] = %+v, want %+v", i, g, w)
			}
		}
		return
	}
	if l.Kind() != scenario.ListKLM || l.Len() != 0xFFFFFFFC {
		t.Fatalf("KLM query: %v list of %d entries, want klm of %d", l.Kind(), l.Len(), uint64(0xFFFFFFFC))
	}
	want := map[uint64]prm.KLMEntry{
		0:              {ByteCount: 4096, MKey: 0x100},
		1:              {},
		0xFFFFFFF8:     {ByteCount: 7, MKey: 0x200, Address: 0x40},
		0xFFFFFFF8 + 1: {},
		0xFFFFFFFC - 1: {},
	}
	for i, w := range want {
		if g := l.KLM(i); g != w {
			t.Errorf("klm[%d] = %+v, want %+v", i, g, w)
		}
	}
}

// failAfter is a writer that fails once it has taken limit bytes.
type failAfter struct{ n, limit int }

var errStreamFull = errors.New("writer full")

func (w *failAfter) Write(b []byte) (int, error) {
	if w.n+len(b) > w.limit {
		k := w.limit - w.n
		w.n = w.limit
		return k, errStreamFull
	}
	w.n += len(b)
	return len(b), nil
}

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
		sc, err := scenario.Parse([]byte(hugeScenario(mode)))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := runClocked(t, sc)
		for i := range res[:2] {
			if res[i].Status != prm.OK {
				t.Fatalf("%s seq %d: %v %s", mode, i, res[i].Status, res[i].Reason)
			}
		}
		checkHugeQuery(t, mode, &res[2])
		w := &failAfter{limit: 50 << 20}
		bw := bufio.NewWriter(w)
		err = res[2].WriteLine(bw)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, errStreamFull) || w.n != w.limit {
			t.Errorf("%s: streaming the line: %v after %d bytes, want the writer's error after %d", mode, err, w.n, w.limit)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: run and 50 MB of the query line: %d bytes allocated, heap obtained from the OS %d MB, peak RSS %s",
			mode, alloc, after.HeapSys>>20, memlimit.PeakRSS())
		if alloc > 64<<20 {
			t.Errorf("%s: %d bytes allocated, want a few MB", mode, alloc)
		}
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
