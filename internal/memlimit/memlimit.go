// Package memlimit runs a test again in a child process under a limit on
// its address space, so that a test of streaming proves its memory bound
// by dying when it allocates what it should stream, not by taking the
// machine's memory. ref, tb and cmd/mkeysim test their huge QUERY_MKEY
// lists with it.
package memlimit

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// env names the test that a child process runs under a limit.
const env = "MKEYSIM_MEMLIMIT_TEST"

// Under runs test t again in a child process whose address space may grow
// by at most limit bytes (RLIMIT_AS above what the child has mapped when
// it starts, so that it also holds under the race detector), and fails t
// if the child fails: a test that allocates a list it should stream dies
// there with "out of memory". It returns true in the child, where the
// test's body runs, and false in the parent.
func Under(t *testing.T, limit uint64) bool {
	t.Helper()
	if os.Getenv(env) == t.Name() {
		cur := vmSize(t)
		lim := &syscall.Rlimit{Cur: cur + limit, Max: cur + limit}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			t.Fatalf("setrlimit: %v", err)
		}
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("under a limit of %d MB more address space:\n%s", limit>>20, out)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return false
}

// vmSize is the process's mapped address space in bytes.
func vmSize(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := strconv.ParseUint(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * uint64(os.Getpagesize())
}

// PeakRSS is the process's peak resident set as /proc reports it
// ("123456 kB"), or "?" where it cannot be read.
func PeakRSS() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
