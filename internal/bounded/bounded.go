// Package bounded runs a command from a test inside hard limits, as
// ../shared/tools/bounded does from a shell: a deadline, after which the
// command's whole process group is killed; a cap on the output kept (the
// rest is read, counted and thrown away, so the command never blocks on a
// full pipe and the test never holds more than the cap); and a cap on the
// size of any file the command writes (RLIMIT_FSIZE: past it the command
// gets SIGXFSZ). Every test that runs mkeysim, or a script that does,
// runs it through this package, so that a build that runs away (a line of
// 300 GB, a signal ignored) fails the test in seconds instead of filling
// the disk.
//
//	r := bounded.Command(bin, "ref", "x.json").Run()
//	if r.Err != nil || r.TimedOut { ... }
package bounded

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The limits of a Cmd unless set otherwise.
const (
	DefaultDeadline = 2 * time.Minute
	DefaultOutput   = 4 << 20 // bytes of standard output kept, and as many of standard error
	DefaultFileSize = 1 << 30 // the largest file the command may write
)

// Cmd is a command with its limits. Set the fields of Cmd (Dir, Env,
// Stdin) and the limits before Start or Run.
type Cmd struct {
	*exec.Cmd
	Deadline time.Duration // wall time before the process group is killed
	Output   int           // bytes kept of each of standard output and error
	FileSize int64         // RLIMIT_FSIZE of the command, in bytes

	stdout, stderr *capped
	timer          *time.Timer
	start          time.Time
	mu             sync.Mutex
	timedOut       bool
}

// Command is exec.Command with the default limits.
func Command(name string, args ...string) *Cmd {
	c := &Cmd{Cmd: exec.Command(name, args...), Deadline: DefaultDeadline, Output: DefaultOutput, FileSize: DefaultFileSize}
	return c
}

// Result is how a bounded command ended.
type Result struct {
	Stdout, Stderr []byte // what was kept: at most Cmd.Output bytes each
	// StdoutBytes and StderrBytes count everything the command wrote.
	StdoutBytes, StderrBytes int64
	ExitCode                 int // -1 when a signal ended it
	Signal                   syscall.Signal
	TimedOut                 bool // the deadline killed it
	Elapsed                  time.Duration
	Err                      error // Wait's error, or the start's
}

// Truncated reports whether some output was thrown away.
func (r *Result) Truncated() bool {
	return r.StdoutBytes > int64(len(r.Stdout)) || r.StderrBytes > int64(len(r.Stderr))
}

// String describes the end in a test's words: "exit 0 after 0.2 s", with
// the start of standard error.
func (r *Result) String() string {
	end := fmt.Sprintf("exit %d", r.ExitCode)
	switch {
	case r.TimedOut:
		end = "killed at the deadline"
	case r.Signal != 0:
		end = "killed by " + r.Signal.String()
	case r.Err != nil && r.ExitCode < 0:
		end = r.Err.Error()
	}
	errs := r.Stderr
	if len(errs) > 2000 {
		errs = errs[:2000]
	}
	return fmt.Sprintf("%s after %.2f s, %d bytes out, standard error:\n%s", end, r.Elapsed.Seconds(), r.StdoutBytes, errs)
}

// Start starts the command in its own process group, with its limits.
func (c *Cmd) Start() error {
	c.stdout = &capped{limit: c.Output}
	c.stderr = &capped{limit: c.Output}
	if c.Cmd.Stdout == nil {
		c.Cmd.Stdout = c.stdout
	}
	if c.Cmd.Stderr == nil {
		c.Cmd.Stderr = c.stderr
	}
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.Setpgid = true
	// The file-size limit is set before the command runs by util-linux's
	// prlimit, which then execs it (the same process); what it starts
	// inherits the limit. Without prlimit, it is set on the child just
	// after it starts (it may write for microseconds unlimited; the
	// Makefile's ulimit -f covers that).
	// A limit above the hard limit this process runs under (a make test
	// under ulimit -f) cannot be set: the lower one holds.
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &cur); err == nil && cur.Max != unix.RLIM_INFINITY && uint64(c.FileSize) > cur.Max {
		c.FileSize = int64(cur.Max)
	}
	wrapped := false
	if c.Err == nil {
		if p, err := exec.LookPath("prlimit"); err == nil {
			fsize := fmt.Sprintf("--fsize=%d:%d", c.FileSize, c.FileSize)
			c.Args = append([]string{p, fsize, "--", c.Path}, c.Args[1:]...)
			c.Path, wrapped = p, true
		}
	}
	c.start = time.Now()
	if err := c.Cmd.Start(); err != nil {
		return err
	}
	if !wrapped {
		lim := unix.Rlimit{Cur: uint64(c.FileSize), Max: uint64(c.FileSize)}
		if err := unix.Prlimit(c.Process.Pid, unix.RLIMIT_FSIZE, &lim, nil); err != nil && !errors.Is(err, unix.ESRCH) {
			c.killGroup()
			return fmt.Errorf("bounded: setting the file-size limit: %v", err)
		}
	}
	c.timer = time.AfterFunc(c.Deadline, func() {
		c.mu.Lock()
		c.timedOut = true
		c.mu.Unlock()
		c.killGroup()
	})
	return nil
}

// Signal sends sig to the command (not its group).
func (c *Cmd) Signal(sig os.Signal) error { return c.Process.Signal(sig) }

// killGroup kills the command's process group.
func (c *Cmd) killGroup() {
	if c.Process != nil {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}

// Wait waits for the command, then kills what is left of its process
// group, and returns how it ended.
func (c *Cmd) Wait() Result {
	err := c.Cmd.Wait()
	c.timer.Stop()
	c.killGroup()
	c.mu.Lock()
	r := Result{TimedOut: c.timedOut, Elapsed: time.Since(c.start), Err: err, ExitCode: c.ProcessState.ExitCode()}
	c.mu.Unlock()
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Signal = ws.Signal()
	}
	r.Stdout, r.StdoutBytes = c.stdout.kept(), c.stdout.total()
	r.Stderr, r.StderrBytes = c.stderr.kept(), c.stderr.total()
	return r
}

// Run starts the command and waits for it.
func (c *Cmd) Run() Result {
	if err := c.Start(); err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	return c.Wait()
}

// StderrNow is what the command has written to standard error so far
// (while it runs).
func (c *Cmd) StderrNow() string { return string(c.stderr.kept()) }

// StdoutNow is what it has written to standard output so far.
func (c *Cmd) StdoutNow() string { return string(c.stdout.kept()) }

// capped keeps the first limit bytes written to it and counts the rest;
// it never fails, so the writer is never blocked nor broken.
type capped struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	n     int64
	limit int
}

func (w *capped) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += int64(len(b))
	if room := w.limit - w.buf.Len(); room > 0 {
		w.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

func (w *capped) kept() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

func (w *capped) total() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}
