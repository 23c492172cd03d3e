package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputPathsCheckedFirst: --out, --stats and --vcd paths that cannot
// be written are refused before the simulation starts (exit 2, nothing on
// standard output, nothing left behind), naming the flag and the path;
// missing directories are made, and removed again when the run is
// refused; a good run leaves the files and no temporary ones.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker") // a file where a directory goes
	os.WriteFile(blocker, nil, 0o644)
	missing := filepath.Join(blocker, "dir", "x.json")
	sc := "../../examples/mtt-one-page.json"
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"-out", missing}, "-out"},
		{[]string{"-stats", missing}, "-stats"},
		{[]string{"-stats", dir}, "-stats"},
		{[]string{"-out", dir}, "-out"},
		{[]string{"-vcd", missing}, "-vcd"},
	} {
		code, out, errs := runCLI(append(append([]string{"run", "-quiet"}, c.args...), sc)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.flag) || strings.Contains(errs, "operations") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s before any simulation", c.args, code, out, errs, c.flag)
		}
	}
	// A run refused after its directories were made takes them back.
	if code, _, _ := runCLI("run", "--out", filepath.Join(dir, "made", "deeper", "r.jsonl"), "--vcd", filepath.Join(dir, "made2", "w.vcd"), "--vcd-scope", "top.nosuch", sc); code != exitUsage {
		t.Errorf("a bad --vcd-scope: exit %d", code)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
	res, st := filepath.Join(dir, "made", "r.jsonl"), filepath.Join(dir, "s.json")
	if code, _, errs := runCLI("run", "-quiet", "-out", res, "-stats", st, sc); code != 0 {
		t.Fatalf("good run: exit %d: %s", code, errs)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", ".*"))
	if more, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left)+len(more) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, f := range []string{res, st} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestOverlapChecked: with overlapping invalidation results leave out of
// order; the check matches them by sequence number and finds no
// difference on a correct run (it used to compare by position and report
// hundreds).
func TestOverlapChecked(t *testing.T) {
	code, _, errs := runCLI("run", "-overlap_invalidate", "-workload.accesses", "20000", "-workload.inval_per_mille", "20", "-out", filepath.Join(t.TempDir(), "r.jsonl"))
	if code != 0 || strings.Contains(errs, "differ") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// TestOutputToSpecialFile: -out and -stats naming something that is not
// a regular file (a FIFO here, as /dev/null or /dev/stdout would be) are
// written directly, not replaced by a renamed file; -vcd, which writes
// files beside its name, refuses one.
func TestOutputToSpecialFile(t *testing.T) {
	dir := t.TempDir()
	read := func(path string) chan int {
		got := make(chan int, 1)
		go func() {
			f, err := os.Open(path)
			if err != nil {
				got <- 0
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- len(b)
		}()
		return got
	}
	var fifos []string
	for _, name := range []string{"results", "stats"} {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("no FIFO here:", err)
		}
		fifos = append(fifos, p)
	}
	results, stats := read(fifos[0]), read(fifos[1])
	code, _, errs := runCLI("run", "-quiet", "-out", fifos[0], "-stats", fifos[1], "../../examples/mtt-one-page.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r, s := <-results, <-stats; r == 0 || s == 0 {
		t.Errorf("%d bytes of results and %d of statistics came through the FIFOs", r, s)
	}
	for _, p := range fifos {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s was replaced: %v %v", p, fi.Mode(), err)
		}
	}
	if code, _, errs := runCLI("run", "-quiet", "-vcd", fifos[0], "../../examples/mtt-one-page.json"); code != exitUsage || !strings.Contains(errs, "not a regular file") {
		t.Errorf("-vcd FIFO: exit %d: %s", code, errs)
	}
}
