package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// coverageFile is the JSON of -coverage as a script reads it.
type coverageFile struct {
	MaxIndirection int      `json:"max_indirection"`
	Models         []string `json:"models"`
	Points         []struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		CollectedBy []string          `json:"collected_by"`
		Required    bool              `json:"required"`
		Counts      map[string]uint64 `json:"counts"`
	} `json:"points"`
}

func readCoverage(t *testing.T, path string) (coverageFile, map[string]map[string]uint64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f coverageFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	counts := map[string]map[string]uint64{}
	for _, p := range f.Points {
		if p.Name == "" || p.Description == "" || len(p.CollectedBy) == 0 {
			t.Errorf("%s: a point without name, description or models: %+v", path, p)
		}
		counts[p.Name] = p.Counts
	}
	return f, counts
}

// TestCoverageFlag: run -coverage writes every point with the counts of
// both models (the golden model's from the check), ref -coverage the
// golden model's, which are the same as run's; with -check=false only the
// clocked model's. The summary says how much each model reached.
func TestCoverageFlag(t *testing.T) {
	dir := t.TempDir()
	sc := "../../examples/odp-page-fault.json"
	both, clocked, golden := filepath.Join(dir, "both.json"), filepath.Join(dir, "clocked.json"), filepath.Join(dir, "golden.json")
	code, _, errs := runCLI("run", "-coverage", both, sc)
	if code != 0 || !strings.Contains(errs, "coverage, golden model: ") || !strings.Contains(errs, "coverage, clocked model: ") {
		t.Fatalf("run -coverage: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI("run", "-quiet", "-check=false", "-coverage", clocked, sc); code != 0 {
		t.Fatalf("run -check=false -coverage: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI("ref", "-coverage", golden, sc); code != 0 {
		t.Fatalf("ref -coverage: exit %d: %s", code, errs)
	}
	fb, cb := readCoverage(t, both)
	fc, cc := readCoverage(t, clocked)
	fg, cg := readCoverage(t, golden)
	if !slices.Equal(fb.Models, []string{"golden", "clocked"}) || !slices.Equal(fc.Models, []string{"clocked"}) || !slices.Equal(fg.Models, []string{"golden"}) {
		t.Errorf("models: %v, %v, %v", fb.Models, fc.Models, fg.Models)
	}
	// The golden model's report holds the catalog's points; a report with
	// the clocked model adds the points its units' counters declare.
	if fb.MaxIndirection != 4 || len(fb.Points) != len(fc.Points) || len(fg.Points) >= len(fb.Points) {
		t.Errorf("max_indirection %d; %d, %d, %d points", fb.MaxIndirection, len(fb.Points), len(fc.Points), len(fg.Points))
	}
	for _, p := range fb.Points[len(fg.Points):] {
		if _, ok := cg[p.Name]; ok || !slices.Equal(p.CollectedBy, []string{"clocked"}) {
			t.Errorf("%s: after the catalog's points, collected by %v (in ref's report: %v)", p.Name, p.CollectedBy, ok)
		}
	}
	// odp-page-fault: faults at levels 0 and 1, a resume that runs three
	// accesses again, one that ends two, and resumes with nothing stalled.
	for _, name := range []string{"status.PAGE_FAULT.L0", "status.PAGE_FAULT.L1", "odp.resume_ok.pass", "odp.resume_ok.refault",
		"odp.resume_error", "odp.resume_many", "cmd.page_fault_resume.BAD_PARAM", "mtt.page_cross"} {
		if cb[name]["golden"] == 0 || cb[name]["clocked"] == 0 || cc[name]["clocked"] == 0 {
			t.Errorf("%s: run %v, run -check=false %v: want hits in both models", name, cb[name], cc[name])
		}
	}
	if _, ok := cb["mkc_cache.miss"]["golden"]; ok || cb["mkc_cache.miss"]["clocked"] == 0 {
		t.Errorf("mkc_cache.miss: %v, want clocked hits only", cb["mkc_cache.miss"])
	}
	for name, c := range cg {
		if _, ok := c["clocked"]; ok {
			t.Errorf("ref -coverage: %s has a clocked count", name)
		}
		if c["golden"] != cb[name]["golden"] {
			t.Errorf("%s: ref counted %d, run's check %d", name, c["golden"], cb[name]["golden"])
		}
		if _, ok := cc[name]["golden"]; ok {
			t.Errorf("run -check=false: %s has a golden count", name)
		}
	}
}

// TestCoveragePathCheckedFirst: a -coverage path that cannot be written
// is refused before anything runs (exit 2, nothing on standard output),
// naming the flag, in run and in ref.
func TestCoveragePathCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker") // a file where a directory goes
	os.WriteFile(blocker, nil, 0o644)
	sc := "../../examples/mtt-one-page.json"
	for _, path := range []string{filepath.Join(blocker, "such", "c.json"), dir} {
		for _, args := range [][]string{{"run", "-coverage", path, sc}, {"ref", "-coverage", path, sc}} {
			code, out, errs := runCLI(args...)
			if code != exitUsage || out != "" || !strings.Contains(errs, "-coverage") || strings.Contains(errs, "operations") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming -coverage before any run", args, code, out, errs)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}
