// Package scripts_test checks the shell scripts the Makefile runs.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stubs makes a directory of executable stubs (name -> shell body), to be
// the whole PATH of a script under test.
func stubs(t *testing.T, bodies map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range bodies {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runInstall runs install-tools.sh with PATH set to dir only.
func runInstall(t *testing.T, dir string) (int, string) {
	t.Helper()
	cmd := exec.Command("/bin/bash", "install-tools.sh")
	cmd.Env = []string{"PATH=" + dir, "MKEYSIM_SCAPY_PYTHON=" + filepath.Join(dir, "python3")}
	out, err := cmd.CombinedOutput()
	return exitCode(t, err), string(out)
}

// exitCode is the exit status of a command that ran with error err (0 for
// nil); a command that could not run fails the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

var allTools = []string{"gtkwave", "xvfb-run", "iverilog", "verilator", "import", "python3", "gcc", "g++", "make", "jq", "tshark", "slurmctld", "slurmd", "sbatch", "munged"}

// TestInstallTools: with every tool present the script does nothing;
// as root it installs what is missing with apt-get; as a user it uses
// sudo -n when that works; when it does not, it prints the one
// apt-get line to run as root, says why each package is needed, and
// exits 1 without running apt-get.
func TestInstallTools(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	t.Run("all present", func(t *testing.T) {
		b := map[string]string{"id": "echo 1000", "apt-get": "echo apt-get ran; exit 3"}
		for _, tool := range allTools {
			b[tool] = "true"
		}
		if code, out := runInstall(t, stubs(t, b)); code != 0 || out != "" {
			t.Fatalf("exit %d, output %q; want 0 and nothing", code, out)
		}
	})
	t.Run("root", func(t *testing.T) {
		dir := stubs(t, map[string]string{"id": "echo 0", "gtkwave": "true", "python3": "true",
			"apt-get": `echo "apt-get $*" >> "${0%/*}/log"`})
		code, out := runInstall(t, dir)
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		if code != 0 || !strings.Contains(string(log), "install -y -qq xvfb iverilog verilator imagemagick") || strings.Contains(string(log), "gtkwave") {
			t.Fatalf("exit %d, output %q, apt-get calls %q", code, out, log)
		}
	})
	t.Run("sudo works", func(t *testing.T) {
		dir := stubs(t, map[string]string{"id": "echo 1000",
			"sudo":    `[ "$1" = -n ] || exit 9; shift; "$@"`,
			"apt-get": `echo "apt-get $*" >> "${0%/*}/log"`})
		code, out := runInstall(t, dir)
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		if code != 0 || !strings.Contains(string(log), "install -y -qq gtkwave xvfb iverilog verilator imagemagick python3") {
			t.Fatalf("exit %d, output %q, apt-get calls %q", code, out, log)
		}
	})
	for name, sudo := range map[string]string{"sudo needs a password": "exit 1", "no sudo": ""} {
		t.Run(name, func(t *testing.T) {
			b := map[string]string{"id": "echo 1000", "gtkwave": "true",
				"apt-get": `echo ran >> "${0%/*}/log"`}
			if sudo != "" {
				b["sudo"] = sudo
			}
			dir := stubs(t, b)
			code, out := runInstall(t, dir)
			if _, err := os.Stat(filepath.Join(dir, "log")); err == nil {
				t.Error("apt-get ran without root")
			}
			if code != 1 || !strings.Contains(out, "apt-get install -y xvfb iverilog verilator imagemagick python3") ||
				!strings.Contains(out, "iverilog: replays the golden vectors") || strings.Contains(out, "sudo: command not found") {
				t.Fatalf("exit %d, output:\n%s", code, out)
			}
		})
	}
}
