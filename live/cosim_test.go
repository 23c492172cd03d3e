package live

import (
	"os/exec"
	"regexp"
	"testing"

	"mkeysim/internal/tooltest"
)

// TestCosimCheck runs scripts/cosim-check.sh: the C test of the library,
// and the live scoreboard under Verilator (DPI-C) and Icarus Verilog
// (VPI) against the example DUTs, good ones passing and broken ones
// caught with their first mismatch, and cosim/README.md's seven-line
// recipe pasted into a testbench under both. It runs when the tools are installed
// (and must, with MKEYSIM_REQUIRE_TOOLS=1); -short skips it otherwise.
func TestCosimCheck(t *testing.T) {
	tooltest.Need(t, "bash", "go", "gcc", "g++", "iverilog", "iverilog-vpi", "vvp", "verilator")
	if testing.Short() && !tooltest.Required() {
		t.Skip("-short: the co-simulation builds take about a minute")
	}
	cmd := exec.Command("bash", "scripts/cosim-check.sh")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("scripts/cosim-check.sh: %v", err)
	}
	if !regexp.MustCompile(`(?m)^cosim-check: [1-9][0-9]* steps as expected, 0 not`).Match(out) {
		t.Fatalf("no summary line")
	}
}
