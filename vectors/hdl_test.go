package vectors

import (
	"mkeysim/internal/tooltest"
	"os/exec"
	"regexp"
	"testing"
)

// TestVerilogReplay runs scripts/vectors-check.sh: the example DUTs of
// hdl/ pass their vectors under Icarus Verilog and Verilator, the broken
// ones fail, the harness refuses malformed files. It runs when the tools
// are installed (and must, with MKEYSIM_REQUIRE_TOOLS=1); -short skips it
// unless MKEYSIM_REQUIRE_TOOLS=1.
func TestVerilogReplay(t *testing.T) {
	tooltest.Need(t, "bash", "iverilog", "vvp", "verilator", "jq", "python3")
	if testing.Short() && !tooltest.Required() {
		t.Skip("-short: the replay takes about half a minute")
	}
	cmd := exec.Command("bash", "scripts/vectors-check.sh", cli(t))
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("scripts/vectors-check.sh: %v", err)
	}
	if !regexp.MustCompile(`(?m)^vectors-check: [1-9][0-9]* runs as expected, 0 not`).Match(out) {
		t.Fatalf("no summary line")
	}
}
