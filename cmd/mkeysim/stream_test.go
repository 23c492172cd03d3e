//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"mkeysim/internal/memlimit"
)

// hugeQueryScenario (236 bytes) creates a free MTT object of capacity
// 0xFFFFFFFC octwords (2 x 0xFFFFFFFC entries, 64 GB of list) and queries
// it: the query line is 340 GB of JSON.
const hugeQueryScenario = `{"qps":[{"qpn":1,"pd":5}],"ops":[
{"op":"create_mkey","index":3,"mkc":{"access_mode":"MTT","log_entity_size":12,"pd":5,"lr":1,"free":1,"translations_octword_size":"0xfffffffc"},"mtt":[{"ptag":"0x5000"}]},
{"op":"query_mkey","index":3}]}`

// brokenPipe is a standard output that fails after limit bytes; it keeps
// the first MB.
type brokenPipe struct {
	head     []byte
	n, limit int
}

var errBrokenPipe = errors.New("write /dev/stdout: broken pipe")

func (w *brokenPipe) Write(b []byte) (int, error) {
	k := min(len(b), w.limit-w.n)
	if len(w.head) < 1<<20 {
		w.head = append(w.head, b[:min(k, 1<<20-len(w.head))]...)
	}
	w.n += k
	if k < len(b) {
		return k, errBrokenPipe
	}
	return k, nil
}

func (w *brokenPipe) String() string { return string(w.head) }

// hugeQueryStart and hugeQueryLeft are how the query line of
// hugeQueryScenario starts and what it holds: the first scenario.MaxQueryEntries entries, and the rest of the
// capacity left out.
const (
	hugeQueryStart = `{"seq":1,"op":"query_mkey","status":"OK","mkc_hex":"`
	hugeQueryLeft  = `"entries_left_out":8589930488,"mtt":[{"ptag":"0x5000","rd_en":1,"wr_en":1},{"ptag":"0x0","rd_en":0,"wr_en":0},`
)

// TestRefBoundsHugeQuery: mkeysim ref on a scenario whose whole list
// would be a 340 GB line prints the first 4,096 entries and
// entries_left_out (about 140 KB) and exits 0, under an address-space
// limit of 1 GB above the test's own; when standard output fails after
// 64 KB it reports the error and exits 1, with no panic.
func TestRefBoundsHugeQuery(t *testing.T) {
	if !memlimit.Under(t, 1<<30) {
		return
	}
	path := filepath.Join(t.TempDir(), "huge.json")
	if err := os.WriteFile(path, []byte(hugeQueryScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1 << 20, 64 << 10} {
		out := &brokenPipe{limit: limit}
		var errs bytes.Buffer
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code := run([]string{"ref", path}, out, &errs)
		runtime.ReadMemStats(&after)
		lines := strings.Split(out.String(), "\n")
		if lines[0] != `{"seq":0,"op":"create_mkey","status":"OK","index":3,"key":"0x300"}` {
			t.Errorf("first line %q", lines[0])
		}
		if !strings.HasPrefix(lines[1], hugeQueryStart) || !strings.Contains(lines[1], hugeQueryLeft) {
			t.Errorf("the query line does not start as it should: %.400s", lines[1])
		}
		if limit == 1<<20 {
			if code != 0 || len(lines) != 3 || lines[2] != "" || strings.Count(lines[1], "ptag") != 4096 {
				t.Errorf("exit %d, %d lines, %d entries (stderr %q); want 0, two whole lines and 4096 entries", code, len(lines)-1, strings.Count(lines[1], "ptag"), errs.String())
			}
		} else {
			if code != 1 || !strings.Contains(errs.String(), errBrokenPipe.Error()) || strings.Contains(errs.String(), "panic") {
				t.Errorf("exit %d, stderr %q; want 1 and the write error", code, errs.String())
			}
			if out.n != out.limit {
				t.Errorf("%d bytes out before the error, want %d", out.n, out.limit)
			}
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("ref, output cut at %d bytes: %d bytes allocated, peak RSS %s", limit, alloc, memlimit.PeakRSS())
		if alloc > 8<<20 {
			t.Errorf("%d bytes allocated", alloc)
		}
	}
}

// TestRunBoundsHugeQuery: mkeysim run does the same: the clocked model
// answers the query with the same window, checked against the golden
// model, and a standard output that fails ends it with status 1.
func TestRunBoundsHugeQuery(t *testing.T) {
	if !memlimit.Under(t, 1<<30) {
		return
	}
	path := filepath.Join(t.TempDir(), "huge.json")
	if err := os.WriteFile(path, []byte(hugeQueryScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &brokenPipe{limit: 1 << 20}
	var errs bytes.Buffer
	if code := run([]string{"run", "--quiet", path}, out, &errs); code != 0 {
		t.Errorf("exit %d, stderr %q; want 0", code, errs.String())
	}
	if !strings.Contains(out.String(), hugeQueryStart) || !strings.Contains(out.String(), hugeQueryLeft) || out.n > 200<<10 {
		t.Errorf("%d bytes; the query line does not start as it should: %.300s", out.n, out.String())
	}
	out = &brokenPipe{limit: 64 << 10}
	errs.Reset()
	code := run([]string{"run", "-quiet", path}, out, &errs)
	if code != 1 || !strings.Contains(errs.String(), errBrokenPipe.Error()) || strings.Contains(errs.String(), "panic") {
		t.Errorf("exit %d, stderr %q; want 1 and the write error", code, errs.String())
	}
	t.Logf("run: peak RSS %s", memlimit.PeakRSS())
}

// oversized are scenarios of a few hundred bytes whose objects claim far
// more than they write: lists of 64 GB with a few entries written, 4 GB
// accesses whose first page or entry fails, a hundred lists of 64 GB each
// written at their far end by a UMR.
func oversized() map[string]string {
	const head = `{"qps":[{"qpn":1,"pd":5}],"ops":[`
	var ends strings.Builder
	for i := 1; i <= 100; i++ {
		if i > 1 {
			ends.WriteByte(',')
		}
		ends.WriteString(`{"op":"create_mkey","index":` + strconv.Itoa(i) + `,"mkc":{"access_mode":"KLM","pd":5,"lr":1,"umr_en":1,"free":1,"translations_octword_size":"0xfffffffc"}},`)
		ends.WriteString(`{"op":"umr","qpn":1,"key":"` + fmt.Sprintf("%#x", i<<8) + `","translation_offset":"0xfffffff8","klm":[{"byte_count":1,"mkey":"0x100","address":"0x0"}]}`)
	}
	return map[string]string{
		"mtt-query": hugeQueryScenario,
		"klm-query": head + `{"op":"create_mkey","index":3,"mkc":{"access_mode":"KLM","pd":5,"lr":1,"translations_octword_size":"0xfffffffc"},"klm":[{"byte_count":16,"mkey":"0x300","address":"0"}]},{"op":"query_mkey","index":3}]}`,
		"mtt-4gb": head + `{"op":"create_mkey","index":3,"mkc":{"access_mode":"MTT","log_entity_size":12,"pd":5,"lr":1,"len":"0x100000000","translations_octword_size":"0xfffffffc"}},` +
			`{"op":"access","qpn":1,"key":"0x300","addr":"0x0","len":"0xffffffff","type":"LOCAL_READ"}]}`,
		"fbs-4gb": head + `{"op":"create_mkey","index":3,"mkc":{"access_mode":"FIXED_BUFFER_SIZE","log_entity_size":12,"pd":5,"lr":1,"len":"0x100000000","translations_octword_size":"0xfffffffc"}},` +
			`{"op":"access","qpn":1,"key":"0x300","addr":"0x0","len":"0xffffffff","type":"LOCAL_READ"}]}`,
		"hundred-far-ends": head + ends.String() + `]}`,
	}
}

// TestOversizedClaimsBoundedMemory: both models, through mkeysim ref and
// mkeysim run, on scenarios whose objects claim terabytes and write a few
// bytes, under an address-space limit of 1 GB above the test's own, with
// every output line but 20 MB of it thrown away: no run dies, and the
// peak resident memory of all of them together stays under 200 MB (the
// objects and list bytes written, plus a constant).
func TestOversizedClaimsBoundedMemory(t *testing.T) {
	if !memlimit.Under(t, 1<<30) {
		return
	}
	dir := t.TempDir()
	for name, text := range oversized() {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"ref", "run"} {
			out := &brokenPipe{limit: 20 << 20}
			var errs bytes.Buffer
			args := []string{cmd, path}
			if cmd == "run" {
				args = []string{cmd, "-quiet", path}
			}
			code := run(args, out, &errs)
			if strings.Contains(errs.String(), "panic") || code == 2 || code == 1 && !strings.Contains(errs.String(), errBrokenPipe.Error()) {
				t.Errorf("%s %s: exit %d: %s", cmd, name, code, errs.String())
			}
		}
	}
	kb, err := strconv.Atoi(strings.Fields(memlimit.PeakRSS())[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS of all runs: %d kB", kb)
	if kb > 200<<10 {
		t.Errorf("peak RSS %d kB, want under 200 MB", kb)
	}
}
