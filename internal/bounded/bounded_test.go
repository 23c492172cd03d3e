package bounded

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDeadlineAndOutputCap: a command that writes without end is killed
// at its deadline, with its whole process group; the test keeps only the
// cap of what it wrote, and counts the rest.
func TestDeadlineAndOutputCap(t *testing.T) {
	c := Command("sh", "-c", "yes & yes; wait")
	c.Deadline, c.Output = 500*time.Millisecond, 1000
	r := c.Run()
	if !r.TimedOut || len(r.Stdout) != 1000 || r.StdoutBytes <= 1000 || !r.Truncated() {
		t.Fatalf("timed out %v, kept %d of %d bytes; want killed at the deadline, 1000 kept of more", r.TimedOut, len(r.Stdout), r.StdoutBytes)
	}
	if r.Elapsed > 5*time.Second {
		t.Errorf("took %v to stop", r.Elapsed)
	}
	// The background yes is gone too: its group was killed (and, an
	// orphan, is reaped by init soon after).
	for start := time.Now(); syscall.Kill(-c.Process.Pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 3*time.Second {
			t.Fatal("the process group is still alive")
		}
	}
}

// TestFileSizeCap: a command that writes a file past FileSize dies of
// SIGXFSZ, and the file stops at the cap.
func TestFileSizeCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	c := Command("dd", "if=/dev/zero", "of="+path, "bs=64k", "count=100")
	c.FileSize = 1 << 20
	r := c.Run()
	if r.Signal != syscall.SIGXFSZ {
		t.Fatalf("%s\nwant a death by SIGXFSZ", r.String())
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 1<<20 {
		t.Errorf("file: %v, %v; want 1 MiB", st, err)
	}
}

// TestExitAndSignal: an exit status comes back as it is; a command that
// ignores SIGTERM is still ended at the deadline.
func TestExitAndSignal(t *testing.T) {
	if r := Command("sh", "-c", "echo out; echo err >&2; exit 3").Run(); r.ExitCode != 3 || string(r.Stdout) != "out\n" || string(r.Stderr) != "err\n" || r.TimedOut {
		t.Errorf("%s", r.String())
	}
	c := Command("sh", "-c", "trap '' TERM; echo ready; sleep 30")
	c.Deadline = time.Second
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); c.StdoutNow() == ""; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("not ready after 5 s: %s", c.StderrNow())
		}
	}
	c.Signal(syscall.SIGTERM)
	r := c.Wait()
	if !r.TimedOut || r.Signal != syscall.SIGKILL || !strings.Contains(r.String(), "deadline") {
		t.Errorf("%s\nwant a kill at the deadline", r.String())
	}
}
