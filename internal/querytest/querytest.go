// Package querytest holds the QUERY_MKEY scenarios and the checks of
// their result lines, which both models' tests run (ref's and tb's): one
// scenario, one expectation, for the golden and the clocked model. The
// snapshot scenario reads small lists; the huge one a list of 64 GB.
package querytest

import (
	"bufio"
	"errors"
	"runtime"
	"strings"
	"testing"

	"mkeysim/internal/memlimit"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// Scenario queries an MTT and a KLM object, rewrites both lists by UMR,
// and queries again.
const Scenario = `{"qps":[{"qpn":1,"pd":5}],
"mkeys":[
 {"index":1,"mkc":{"access_mode":"MTT","log_entity_size":12,"pd":5,"lr":1,"umr_en":1,"len":"0x2000"},"mtt":[{"ptag":"0x5000"},{"ptag":"0x6000"}]},
 {"index":2,"mkc":{"access_mode":"KLM","pd":5,"lr":1,"umr_en":1,"len":"0x10"},"klm":[{"byte_count":16,"mkey":"0x100","address":"0x0"}]}],
"ops":[
 {"op":"query_mkey","index":1},
 {"op":"query_mkey","index":2},
 {"op":"umr","qpn":1,"key":"0x100","mtt":[{"ptag":"0x9000"}]},
 {"op":"umr","qpn":1,"key":"0x200","klm":[{"byte_count":8,"mkey":"0x100","address":"0x1000"}]},
 {"op":"query_mkey","index":1},
 {"op":"query_mkey","index":2}]}`

// CheckLines checks the result lines of Scenario: each query's list shows
// the entries it holds at that point, then the padding a UMR leaves.
func CheckLines(t *testing.T, res []scenario.Result) {
	t.Helper()
	if len(res) != 6 {
		t.Fatalf("%d results", len(res))
	}
	var lines []string
	for i := range res {
		var b strings.Builder
		if err := res[i].WriteLine(&b); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b.String())
	}
	for _, c := range []struct {
		seq  int
		want string
	}{
		{0, `"mtt":[{"ptag":"0x5000","rd_en":1,"wr_en":1},{"ptag":"0x6000","rd_en":1,"wr_en":1},{"ptag":"0x0","rd_en":0,"wr_en":0},`},
		{1, `"klm":[{"byte_count":16,"mkey":"0x100","address":"0x0"},{"byte_count":0,"mkey":"0x0","address":"0x0"},`},
		{4, `"mtt":[{"ptag":"0x9000","rd_en":1,"wr_en":1},{"ptag":"0x0","rd_en":0,"wr_en":0},`},
		{5, `"klm":[{"byte_count":8,"mkey":"0x100","address":"0x1000"},{"byte_count":0,"mkey":"0x0","address":"0x0"},`},
	} {
		if !strings.Contains(lines[c.seq], c.want) {
			t.Errorf("seq %d: %s\n want it to hold %s", c.seq, lines[c.seq], c.want)
		}
	}
}

// HugeScenario is a scenario of about 300 bytes that creates a free object
// of capacity 0xFFFFFFFC octwords (2 x 0xFFFFFFFC MTT entries, or
// 0xFFFFFFFC KLM entries: 64 GB of list) with one entry, writes one more
// near the end of the capacity by UMR, and queries it.
func HugeScenario(mode string) string {
	entry, deep := `"mtt":[{"ptag":"0x5000"}]`, `"mtt":[{"ptag":"0x7000"},{"ptag":"0x8000"}]`
	if mode == "KLM" {
		entry, deep = `"klm":[{"byte_count":4096,"mkey":"0x100","address":"0x0"}]`, `"klm":[{"byte_count":7,"mkey":"0x200","address":"0x40"}]`
	}
	return `{"qps":[{"qpn":1,"pd":5}],"ops":[
{"op":"create_mkey","index":3,"mkc":{"access_mode":"` + mode + `","log_entity_size":12,"pd":5,"lr":1,"free":1,"umr_en":1,"translations_octword_size":"0xfffffffc"},` + entry + `},
{"op":"umr","qpn":1,"key":"0x300","translation_offset":"0xfffffff8",` + deep + `},
{"op":"query_mkey","index":3}]}`
}

// CheckHuge checks the query line of HugeScenario: OK, the count of
// the whole capacity, the entries written where they were written and
// zero entries elsewhere.
func CheckHuge(t *testing.T, mode string, res *scenario.Result) {
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

// FailAfter is a writer that fails with ErrFull once it has taken Limit
// bytes (N so far): a result stream cut short.
type FailAfter struct{ N, Limit int }

// ErrFull is the error of a FailAfter that is full.
var ErrFull = errors.New("writer full")

// Write takes b, or what is left of Limit and fails.
func (w *FailAfter) Write(b []byte) (int, error) {
	if w.N+len(b) > w.Limit {
		k := w.Limit - w.N
		w.N = w.Limit
		return k, ErrFull
	}
	w.N += len(b)
	return len(b), nil
}

// RunHuge runs HugeScenario(mode) through a model (run), checks that its
// two accesses pass and its query's line (CheckHuge), streams that line
// into a writer that fails after 50 MB and checks that the writer's error
// comes back, and fails t when the run and the streaming allocate more
// than maxAlloc bytes: the list of 64 GB must never be built. It returns
// the scenario and the results, for a model's own further checks.
func RunHuge(t *testing.T, mode string, maxAlloc uint64, run func(*scenario.Scenario) []scenario.Result) (*scenario.Scenario, []scenario.Result) {
	t.Helper()
	sc, err := scenario.Parse([]byte(HugeScenario(mode)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := run(sc)
	for i := range res[:2] {
		if res[i].Status != prm.OK {
			t.Fatalf("%s seq %d: %v %s", mode, i, res[i].Status, res[i].Reason)
		}
	}
	CheckHuge(t, mode, &res[2])
	w := &FailAfter{Limit: 50 << 20}
	bw := bufio.NewWriter(w)
	err = res[2].WriteLine(bw)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFull) || w.N != w.Limit {
		t.Errorf("%s: streaming the line: %v after %d bytes, want the writer's error after %d", mode, err, w.N, w.Limit)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%s: run and 50 MB of the query line: %d bytes allocated, heap obtained from the OS %d MB, peak RSS %s",
		mode, alloc, after.HeapSys>>20, memlimit.PeakRSS())
	if alloc > maxAlloc {
		t.Errorf("%s: %d bytes allocated, want a few MB", mode, alloc)
	}
	return sc, res
}
