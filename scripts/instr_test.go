package scripts_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestInstrCount runs instr-count.sh on one build of mkeysim against
// itself: the count must repeat to within 0.5 %, what makes it worth
// having where timings move by 20 % (a short run under make test's load
// differs by a few tenths: the runtime's monitor thread works as long as
// the run lasts); a failing command must fail the script naming it, and
// a missing executable is a usage error.
func TestInstrCount(t *testing.T) {
	bin := buildForValgrind(t)
	run := func(args ...string) (int, string) {
		out, err := exec.Command("/bin/bash", append([]string{"instr-count.sh"}, args...)...).CombinedOutput()
		return exitCode(t, err), string(out)
	}

	code, out := run(bin, bin, "run", "--workload.accesses", "5000", "--no-summary", "--quiet", "--out", filepath.Join(t.TempDir(), "r.jsonl"))
	m := regexp.MustCompile(`(?m)^old (\d+)\nnew (\d+)\nnew/old ([0-9.]+)$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	a, _ := strconv.ParseFloat(m[1], 64)
	b, _ := strconv.ParseFloat(m[2], 64)
	if a < 1e6 || b/a < 0.995 || b/a > 1.005 {
		t.Errorf("the same build counted %s and %s instructions: not repeatable to 0.5 %%", m[1], m[2])
	}

	if code, out := run(bin, bin, "run", "--no-such-flag"); code != 1 || !strings.Contains(out, "failed (exit 2)") || !strings.Contains(out, "unknown flag") {
		t.Errorf("a failing command: exit %d, output:\n%s", code, out)
	}
	if code, out := run("/nonexistent", bin); code != 2 || !strings.Contains(out, "/nonexistent is not an executable") {
		t.Errorf("a missing build: exit %d, output:\n%s", code, out)
	}
}

// buildForValgrind builds mkeysim for the counting scripts' tests, which
// it skips where valgrind is not installed (the scripts are developers'
// tools, not part of make test's tools).
func buildForValgrind(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
	bin := filepath.Join(t.TempDir(), "mkeysim")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/mkeysim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestInstrBench runs instr-bench.sh on small runs: a row per workload
// with a count in the range these workloads take (thousands of
// instructions an access, tens of thousands miss-bound), the traced run
// costing more than the untraced one, the table by layer adding up to
// the same counts, and a bad N refused.
func TestInstrBench(t *testing.T) {
	bin := buildForValgrind(t)
	out, err := exec.Command("/bin/bash", "instr-bench.sh", bin, "1000").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rows := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\| ([^|]+) \| (\d+) \|$`).FindAllStringSubmatch(string(out), -1) {
		rows[m[1]], _ = strconv.Atoi(m[2])
	}
	for name, lim := range map[string][2]int{
		"hit-bound (HotWorkload)":          {1000, 50000},
		"miss-bound (MissWorkload)":        {5000, 500000},
		"default workload":                 {1000, 100000},
		"default workload, traced (--vcd)": {1000, 500000},
	} {
		if n, ok := rows[name]; !ok || n < lim[0] || n > lim[1] {
			t.Errorf("%s: %d instructions an access (row found %v), want %d..%d\n%s", name, n, ok, lim[0], lim[1], out)
		}
	}
	if rows["default workload, traced (--vcd)"] <= rows["default workload"] {
		t.Errorf("tracing costs no instructions:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^traced / untraced: [0-9.]+x the instructions$`).Match(out) {
		t.Errorf("no traced/untraced line:\n%s", out)
	}
	// The table by layer splits the same counts: its totals are the rows
	// above (rounded, where those are truncated), the waveform costs
	// only the traced run, the units every run.
	layer := func(name string) []int {
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(name) + `[^|]* \|(.*)$`).FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("no row %q in the table by layer:\n%s", name, out)
		}
		var vs []int
		for _, f := range regexp.MustCompile(`(-?[0-9,]+)( \([-0-9]+ %\))? \|`).FindAllStringSubmatch(m[1], -1) {
			v, _ := strconv.Atoi(strings.ReplaceAll(f[1], ",", ""))
			vs = append(vs, v)
		}
		if len(vs) != 4 {
			t.Fatalf("row %q: %d workloads, want 4:\n%s", name, len(vs), out)
		}
		return vs
	}
	totals := layer("total")
	for i, name := range []string{"hit-bound (HotWorkload)", "miss-bound (MissWorkload)", "default workload", "default workload, traced (--vcd)"} {
		if d := totals[i] - rows[name]; d < 0 || d > 1 {
			t.Errorf("%s: %d instructions an access by layer, %d in total:\n%s", name, totals[i], rows[name], out)
		}
	}
	if w := layer("waveform"); w[0] != 0 || w[1] != 0 || w[2] != 0 || w[3] < rows["default workload"] {
		t.Errorf("the waveform's row: %v:\n%s", w, out)
	}
	for i, v := range layer("units") {
		if v <= 0 {
			t.Errorf("the units cost %d instructions an access in workload %d:\n%s", v, i, out)
		}
	}
	out, err = exec.Command("/bin/bash", "instr-bench.sh", bin, "12x").CombinedOutput()
	if exitCode(t, err) != 2 || !strings.Contains(string(out), "not '12x'") {
		t.Errorf("N 12x: %v\n%s", err, out)
	}
}
