// Package querytest holds the QUERY_MKEY scenarios and the checks of
// their result lines, which both models' tests run (ref's and tb's): one
// scenario, one expectation, for the golden and the clocked model. The
// snapshot scenario reads small lists; the huge one a list of 64 GB.
package querytest

import (
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

// HugeScenario is a scenario of about 400 bytes that creates a free
// object of capacity 0xFFFFFFFC octwords (2 x 0xFFFFFFFC MTT entries, or
// 0xFFFFFFFC KLM entries: 64 GB of list) with one entry, writes two more
// near the end of the capacity by UMR, and queries it three times: the
// default window (the first scenario.MaxQueryEntries entries), a window
// of three entries at the end, and an offset past the capacity.
func HugeScenario(mode string) string {
	entry, deep, off := `"mtt":[{"ptag":"0x5000"}]`, `"mtt":[{"ptag":"0x7000"},{"ptag":"0x8000"}]`, "0x1fffffff0"
	if mode == "KLM" {
		entry, deep, off = `"klm":[{"byte_count":4096,"mkey":"0x100","address":"0x0"}]`, `"klm":[{"byte_count":7,"mkey":"0x200","address":"0x40"}]`, "0xfffffff8"
	}
	return `{"qps":[{"qpn":1,"pd":5}],"ops":[
{"op":"create_mkey","index":3,"mkc":{"access_mode":"` + mode + `","log_entity_size":12,"pd":5,"lr":1,"free":1,"umr_en":1,"translations_octword_size":"0xfffffffc"},` + entry + `},
{"op":"umr","qpn":1,"key":"0x300","translation_offset":"0xfffffff8",` + deep + `},
{"op":"query_mkey","index":3},
{"op":"query_mkey","index":3,"offset":"` + off + `","count":3},
{"op":"query_mkey","index":3,"offset":"0x200000000"}]}`
}

// CheckHuge checks the query lines of HugeScenario (res[2:5]): the first
// window with entries_left_out the rest of the capacity, the entries
// written where they were written and zero entries elsewhere, and
// BAD_PARAM for the offset past the capacity (MTT; in KLM mode that
// offset is past it too).
func CheckHuge(t *testing.T, mode string, res []scenario.Result) {
	t.Helper()
	first, end, past := &res[2], &res[3], &res[4]
	for _, r := range []*scenario.Result{first, end} {
		if r.Status != prm.OK || r.List == nil {
			t.Fatalf("%s query seq %d: status %v %s, list %v", mode, r.Seq, r.Status, r.Reason, r.List)
		}
	}
	if past.Status != prm.BadParam {
		t.Errorf("%s query past the capacity: %v, want BAD_PARAM", mode, past.Status)
	}
	capacity := uint64(0xFFFFFFFC)
	kind := scenario.ListKLM
	if mode == "MTT" {
		capacity, kind = 2*0xFFFFFFFC, scenario.ListMTT
	}
	if l := first.List; l.Kind() != kind || l.Len() != scenario.MaxQueryEntries || first.EntriesLeftOut != capacity-scenario.MaxQueryEntries {
		t.Fatalf("%s query: %v list of %d entries, %d left out; want %v of %d, %d left out", mode, l.Kind(), l.Len(), first.EntriesLeftOut,
			kind, scenario.MaxQueryEntries, capacity-scenario.MaxQueryEntries)
	}
	if l := end.List; l.Len() != 3 || end.EntriesLeftOut != 0 {
		t.Fatalf("%s query at the end: %d entries, %d left out; want 3, 0", mode, l.Len(), end.EntriesLeftOut)
	}
	if mode == "MTT" {
		for _, c := range []struct {
			l    *scenario.List
			i    uint64
			want prm.MTTEntry
		}{
			{first.List, 0, prm.MTTEntry{PTag: 0x5000, RdEn: true, WrEn: true}},
			{first.List, 1, prm.MTTEntry{}},
			{first.List, scenario.MaxQueryEntries - 1, prm.MTTEntry{}},
			{end.List, 0, prm.MTTEntry{PTag: 0x7000, RdEn: true, WrEn: true}},
			{end.List, 1, prm.MTTEntry{PTag: 0x8000, RdEn: true, WrEn: true}},
			{end.List, 2, prm.MTTEntry{}},
		} {
			if g := c.l.MTT(c.i); g != c.want {
				t.Errorf("mtt[%d] = %+v, want %+v", c.i, g, c.want)
			}
		}
		return
	}
	for _, c := range []struct {
		l    *scenario.List
		i    uint64
		want prm.KLMEntry
	}{
		{first.List, 0, prm.KLMEntry{ByteCount: 4096, MKey: 0x100}},
		{first.List, 1, prm.KLMEntry{}},
		{end.List, 0, prm.KLMEntry{ByteCount: 7, MKey: 0x200, Address: 0x40}},
		{end.List, 1, prm.KLMEntry{}},
		{end.List, 2, prm.KLMEntry{}},
	} {
		if g := c.l.KLM(c.i); g != c.want {
			t.Errorf("klm[%d] = %+v, want %+v", c.i, g, c.want)
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

// maxQueryLine bounds a query's line: 4,096 KLM entries of about 60
// bytes and the context.
const maxQueryLine = 300 << 10

// RunHuge runs HugeScenario(mode) through a model (run), checks that its
// two commands pass and its queries' lines (CheckHuge), writes the lines
// and checks that each is under 300 KB, and fails t when the run and the
// writing allocate more than maxAlloc bytes: the list of 64 GB must never
// be built. It returns the scenario and the results, for a model's own
// further checks.
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
	CheckHuge(t, mode, res)
	for i := range res {
		w := &FailAfter{Limit: maxQueryLine}
		if err := res[i].WriteLine(w); err != nil {
			t.Errorf("%s seq %d: the line is longer than %d bytes (%v)", mode, i, maxQueryLine, err)
		}
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%s: run and the lines: %d bytes allocated, heap obtained from the OS %d MB, peak RSS %s",
		mode, alloc, after.HeapSys>>20, memlimit.PeakRSS())
	if alloc > maxAlloc {
		t.Errorf("%s: %d bytes allocated, want a few MB", mode, alloc)
	}
	return sc, res
}
