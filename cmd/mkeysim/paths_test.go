package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputPathsCheckedFirst: -out, -stats and -vcd paths that cannot be
// written are refused before the simulation starts (exit 2, nothing on
// standard output, nothing left behind), naming the flag and the path;
// a good run leaves the files and no temporary ones.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "dir", "x.json")
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
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	res, st := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "s.json")
	if code, _, errs := runCLI("run", "-quiet", "-out", res, "-stats", st, sc); code != 0 {
		t.Fatalf("good run: exit %d: %s", code, errs)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
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
