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
// itself: the count must repeat to within 0.2 % (what makes it worth
// having), a failing command must fail the script naming it, and a
// missing executable is a usage error.
func TestInstrCount(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed (instr-count.sh is a developer's tool, not part of make test's tools)")
	}
	bin := filepath.Join(t.TempDir(), "mkeysim")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/mkeysim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) (int, string) {
		out, err := exec.Command("/bin/bash", append([]string{"instr-count.sh"}, args...)...).CombinedOutput()
		return exitCode(t, err), string(out)
	}

	code, out := run(bin, bin, "run", "--workload.accesses", "2000", "--no-summary", "--quiet", "--out", filepath.Join(t.TempDir(), "r.jsonl"))
	m := regexp.MustCompile(`(?m)^old (\d+)\nnew (\d+)\nnew/old ([0-9.]+)$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	a, _ := strconv.ParseFloat(m[1], 64)
	b, _ := strconv.ParseFloat(m[2], 64)
	if a < 1e6 || b/a < 0.998 || b/a > 1.002 {
		t.Errorf("the same build counted %s and %s instructions: not repeatable to 0.2 %%", m[1], m[2])
	}

	if code, out := run(bin, bin, "run", "--no-such-flag"); code != 1 || !strings.Contains(out, "failed (exit 2)") || !strings.Contains(out, "unknown flag") {
		t.Errorf("a failing command: exit %d, output:\n%s", code, out)
	}
	if code, out := run("/nonexistent", bin); code != 2 || !strings.Contains(out, "/nonexistent is not an executable") {
		t.Errorf("a missing build: exit %d, output:\n%s", code, out)
	}
}
