// Package tooltest lets a test that runs an outside tool (GTKWave, Icarus
// Verilog, vcd2fst) skip, naming the tool, when it is not installed: plain
// "go test ./..." needs none of them. MKEYSIM_REQUIRE_TOOLS=1 (what
// "make test" sets after installing them) turns the skip into a failure,
// so that CI cannot pass by skipping.
package tooltest

import (
	"os"
	"os/exec"
	"testing"
)

// Required reports whether a missing tool fails the test instead of
// skipping it.
func Required() bool { return os.Getenv("MKEYSIM_REQUIRE_TOOLS") == "1" }

// Need skips t (or fails it, when Required) at the first of tools that is
// not on PATH, naming it and what installs it.
func Need(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if Required() {
				t.Fatalf("%s not on PATH and MKEYSIM_REQUIRE_TOOLS=1 (scripts/install-tools.sh installs it)", tool)
			}
			t.Skipf("%s not on PATH: skipped (scripts/install-tools.sh installs it; MKEYSIM_REQUIRE_TOOLS=1 makes this a failure)", tool)
		}
	}
}

// GTKWave is the tools the waveform tests run: GTKWave under a virtual X
// server, and its VCD to FST converter.
var GTKWave = []string{"gtkwave", "xvfb-run", "vcd2fst"}

// Slurm is what the job-array test runs: a one-node cluster's daemons
// (munge's, the controller's, the node's) and sbatch.
var Slurm = []string{"munged", "slurmctld", "slurmd", "sbatch", "sinfo"}

// Tshark is what the capture tests run: Wireshark's command-line decoder.
var Tshark = []string{"tshark"}
