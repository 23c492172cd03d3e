package tb

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/tb/stimulus"
)

// TestTraceWorkloadClocked: traces run through the clocked model, every
// result checked against the golden model as the run goes (runBoth), the
// ones that fail on purpose included: the example trace wrapped around,
// and accesses crossing pages of every size the regions take.
func TestTraceWorkloadClocked(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Kind, w.TraceFile, w.Accesses = stimulus.KindTrace, "../examples/traces/small.csv", 3000
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	sc := stimulus.Generate(w)
	got := runBoth(t, "small.csv", sc, rtl.DefaultConfig(), nil)
	want := smallStatuses()
	for i := range got {
		if got[i].Status != want[i%len(want)] {
			t.Fatalf("access %d: %v, want %v", i, got[i].Status, want[i%len(want)])
		}
	}
	// Page-crossing accesses over 4 KiB to 1 GiB pages, both forms of
	// address, in a JSON-lines trace.
	var b strings.Builder
	for i := range 40 {
		page := uint64(4096) << (3 * (i % 7))
		off := page*uint64(1+i%3) - uint64(8*(i+1))
		if i%2 == 0 {
			b.WriteString(`{"qpn":1,"key":"r` + strconv.Itoa(1+i%4) + `","offset":` + strconv.FormatUint(off, 10) + `,"len":` + strconv.Itoa(64*(i+1)) + `,"type":"REMOTE_WRITE"}` + "\n")
		} else {
			b.WriteString(`{"qpn":2,"key":` + strconv.Itoa((1+i%4)<<8) + `,"addr":"` + "0x" + strconv.FormatUint(regionBase(i%4)+off, 16) + `","len":` + strconv.Itoa(64*(i+1)) + `,"type":"local_read"}` + "\n")
		}
	}
	for _, page := range []uint64{4096, 2 << 20, 1 << 30} {
		t.Run(strconv.FormatUint(page>>10, 10)+"KiB pages", func(t *testing.T) {
			w := traceWorkload(t, "t.jsonl", b.String(), 200, func(w *stimulus.Workload) { w.MRs, w.MRBytes, w.PageBytes = 4, 4<<30, page })
			if err := w.Check(); err != nil {
				t.Fatal(err)
			}
			sc := stimulus.Generate(w)
			for i, r := range runBoth(t, "t.jsonl", sc, rtl.DefaultConfig(), nil) {
				if r.Status != prm.OK {
					t.Fatalf("access %d (%+v): %v, want OK", i, sc.Ops[i].Access, r.Status)
				}
			}
		})
	}
}

// traceWorkload writes body to a trace file NAME in a temporary
// directory and returns a trace workload of it with n accesses (the
// defaults otherwise: 64 regions of 1 MiB in 4 KiB pages), tweaked.
func traceWorkload(t *testing.T, name, body string, n int, tweak func(*stimulus.Workload)) stimulus.Workload {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	w := stimulus.DefaultWorkload()
	w.Kind, w.TraceFile, w.Accesses = stimulus.KindTrace, path, n
	if tweak != nil {
		tweak(&w)
	}
	return w
}

// regionBase is the virtual address of region i (index i+1) of a trace
// or measurement workload, as docs/workloads.md gives it: (i+1) x 2^40.
func regionBase(i int) uint64 { return uint64(i+1) << 40 }

// smallStatuses are the statuses of examples/traces/small.csv, as
// docs/workloads.md gives them.
func smallStatuses() []prm.Status {
	s := make([]prm.Status, 9, 12)
	return append(s, prm.MisalignedAtomic, prm.PDMismatch, prm.KeyMismatch)
}
