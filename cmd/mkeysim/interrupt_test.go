package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mkeysim/config"
	"mkeysim/internal/bounded"
	"mkeysim/internal/tooltest"
	"mkeysim/scenario"
	"mkeysim/tb/score"
	"mkeysim/tb/stimulus"
	"mkeysim/vcd"
)

// TestProgressOnlyOnTerminal: the bar is off on a file or a pipe (a CI
// log), on with --progress, and off with --quiet whatever else.
func TestProgressOnlyOnTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, c := range []struct {
		name         string
		w            interface{ Write([]byte) (int, error) }
		quiet, force bool
		on           bool
	}{
		{"buffer", &bytes.Buffer{}, false, false, false},
		{"pipe", w, false, false, false},
		{"pipe --progress", w, false, true, true},
		{"pipe --quiet --progress", w, true, true, false},
		{"buffer --progress", &bytes.Buffer{}, false, true, true},
	} {
		if got := newProgress(c.w, 10, "x", c.quiet, c.force) != nil; got != c.on {
			t.Errorf("%s: bar %v, want %v", c.name, got, c.on)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start starts bin with args under the bounds of every test that runs
// mkeysim (internal/bounded: 3 minutes, then its process group is
// killed), its standard error in a buffer readable while it runs; done
// receives Wait's error.
func start(t *testing.T, bin string, args ...string) (cmd *exec.Cmd, stderr *lockedBuffer, done <-chan error) {
	t.Helper()
	b := bounded.Command(bin, args...)
	b.Deadline = 3 * time.Minute
	stderr = &lockedBuffer{}
	b.Stderr = stderr
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	go func() { ch <- b.Wait().Err }()
	return b.Cmd, stderr, ch
}

// TestInterrupt: SIGINT or SIGTERM stops a long run at a cycle boundary
// and exits 130 or 143 (128 + the signal), saying what it kept: every result retired (each one
// right, by the golden model), the statistics up to that cycle, and a
// VCD that ends at that cycle and that the strict reader and GTKWave
// accept; no temporary file is left. With --progress the bar shows its
// rate and the time left before the signal; without it, on a pipe, no
// bar at all.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a simulation for a few seconds")
	}
	bin := binary(t)
	// Long enough that the run is still going when the signal comes,
	// 1.5 s after its first results: at 0.7 M accesses a second (the
	// kernel of issue 10), a million accesses sometimes ended first.
	const accesses = 3000000
	for _, c := range []struct {
		sig            syscall.Signal
		progress, wave bool
	}{
		{syscall.SIGINT, true, true},
		{syscall.SIGTERM, false, false},
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out") // made by the run
			args := []string{"run", "--workload.accesses", strconv.Itoa(accesses),
				"--out", filepath.Join(out, "r.jsonl"), "--stats", filepath.Join(out, "s.json"),
				"--coverage", filepath.Join(out, "c.json")}
			if c.wave {
				args = append(args, "--vcd", filepath.Join(out, "w.vcd"), "--vcd-scope", "top.tb", "--clock-ps", "1000")
			}
			if c.progress {
				args = append(args, "--progress")
			}
			cmd, stderr, done := start(t, bin, args...)
			// Signal once the run is well under way: the bar is up, or
			// results have been written and a second has passed.
			deadline := time.After(2 * time.Minute)
			var firstResults time.Time
		wait:
			for {
				select {
				case err := <-done:
					t.Fatalf("the run ended before the signal: %v\n%s", err, stderr.String())
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("no progress after 2 minutes:\n%s", stderr.String())
				case <-time.After(20 * time.Millisecond):
				}
				if c.progress {
					if strings.Contains(stderr.String(), "simulating") {
						break wait
					}
					continue
				}
				if firstResults.IsZero() {
					tmp, _ := filepath.Glob(filepath.Join(out, ".r.jsonl.*.tmp"))
					if len(tmp) == 1 {
						if st, err := os.Stat(tmp[0]); err == nil && st.Size() > 0 {
							firstResults = time.Now()
						}
					}
				} else if time.Since(firstResults) > 1500*time.Millisecond {
					break wait
				}
			}
			cmd.Process.Signal(c.sig)
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after %v", c.sig)
			}
			var ee *exec.ExitError
			if want := 128 + int(c.sig); !errors.As(err, &ee) || ee.ExitCode() != want {
				t.Fatalf("exit %v, want %d\n%s", err, want, stderr.String())
			}
			errs := stderr.String()
			if c.progress && !regexp.MustCompile(`simulating.*it/s.*\[\d+s:\d+s\]`).MatchString(errs) {
				t.Errorf("--progress: no bar with a rate and the time left in\n%s", errs)
			}
			if !c.progress && (strings.Contains(errs, "simulating") || strings.Contains(errs, "\r")) {
				t.Errorf("a bar on a pipe:\n%s", errs)
			}
			said := `interrupted at cycle (\d+); kept (\d+) results in \S+/r.jsonl, the statistics \S+/s.json, the coverage \S+/c.json\n`
			if c.wave {
				said = strings.Replace(said, "r.jsonl, ", "r.jsonl, the waveform \\S+/w.vcd, ", 1)
			}
			m := regexp.MustCompile(said).FindStringSubmatch(errs)
			if m == nil {
				t.Fatalf("stderr does not say what was kept:\n%s", errs)
			}
			stopped, _ := strconv.ParseUint(m[1], 10, 64)
			kept, _ := strconv.Atoi(m[2])

			// Exactly the files asked for; nothing temporary.
			var names []string
			filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if p != out && !strings.HasPrefix(p, filepath.Join(out, "w.filters")+string(filepath.Separator)) {
					names = append(names, strings.TrimPrefix(p, out+string(filepath.Separator)))
				}
				return err
			})
			want := []string{"c.json", "r.jsonl", "s.json"}
			if c.wave {
				want = append(want, "w.filters", "w.gtkw", "w.vcd")
			}
			if !slices.Equal(names, want) {
				t.Errorf("%s holds %v, want %v", out, names, want)
			}

			// The results: as many as said, each retired by the stop and
			// each what the golden model says.
			f, err := os.Open(filepath.Join(out, "r.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			results, err := scenario.ReadResults(f)
			f.Close()
			if err != nil || len(results) != kept || kept == 0 || kept >= accesses {
				t.Fatalf("%d results (%v), stderr says %d", len(results), err, kept)
			}
			cfg := config.Default()
			cfg.Workload.Accesses = accesses
			sc := stimulus.Generate(cfg.Workload)
			board, err := score.NewBoard(sc, refConfig(cfg.Model))
			if err != nil {
				t.Fatal(err)
			}
			for i := range results {
				if results[i].Cycle > stopped {
					t.Fatalf("result %d completed at cycle %d, after the stop at %d", i, results[i].Cycle, stopped)
				}
				if d := board.Check(&results[i]); d != "" {
					t.Fatalf("result %d: %s", i, d)
				}
			}

			// The statistics are those of the cycles run.
			var st struct {
				Cycles uint64 `json:"cycles"`
			}
			data, _ := os.ReadFile(filepath.Join(out, "s.json"))
			if err := json.Unmarshal(data, &st); err != nil || st.Cycles != stopped {
				t.Errorf("stats: cycles %d (%v), want %d", st.Cycles, err, stopped)
			}
			var cov map[string]any
			if data, _ := os.ReadFile(filepath.Join(out, "c.json")); json.Unmarshal(data, &cov) != nil {
				t.Errorf("coverage file is not JSON")
			}

			if !c.wave {
				return
			}
			// The waveform: strict, time in ns is the cycle number, and it
			// ends in the cycle the run stopped at.
			vf, err := os.Open(filepath.Join(out, "w.vcd"))
			if err != nil {
				t.Fatal(err)
			}
			w, err := vcd.Parse(vf)
			vf.Close()
			if err != nil {
				t.Fatalf("the VCD of the interrupted run: %v", err)
			}
			if w.Timescale != "100ps" {
				t.Errorf("--clock-ps 1000: timescale %s, want 100ps (a cycle is 10 units, 1 ns)", w.Timescale)
			}
			changes := w.Changes("top.cycle")
			if len(changes) == 0 {
				t.Fatal("no top.cycle")
			}
			for _, ch := range changes {
				n, err := strconv.ParseUint(ch.Value, 2, 64)
				if err != nil || ch.Time != 10*n {
					t.Fatalf("top.cycle is %q at time %d (100ps units): time in ns is not the cycle", ch.Value, ch.Time)
				}
			}
			if last := changes[len(changes)-1].Time / 10; last != stopped-1 && last != stopped {
				t.Errorf("the VCD's last cycle is %d, the run stopped at %d", last, stopped)
			}
			t.Run("gtkwave", func(t *testing.T) {
				tooltest.Need(t, tooltest.GTKWave...)
				out, err := exec.Command("bash", filepath.Join(repoRoot, "scripts/gtkwave-check.sh"), filepath.Join(dir, "out/w.vcd"), filepath.Join(dir, "out/w.gtkw")).CombinedOutput()
				if err != nil {
					t.Fatalf("gtkwave-check: %v\n%s", err, out)
				}
			})
		})
	}
}

// TestInterruptedBeforeStart: a context cancelled before any cycle runs
// (a signal during start-up) still ends every command that simulates with
// exit 130 and no temporary file; ref writes the lines it ran (none),
// sweep, with no point finished, writes nothing.
func TestInterruptedBeforeStart(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"run", "../../examples/klm-nested.json", "--out", filepath.Join(dir, "r.jsonl"), "--stats", filepath.Join(dir, "s.json")},
		{"ref", "../../examples/klm-nested.json"},
		{"sweep", "--vary", "mkc_cache.ways=1,2", "--out", filepath.Join(dir, "sweep")},
	} {
		var so, se bytes.Buffer
		if code := execute(ctx, args, strings.NewReader(""), &so, &se); code != exitInterrupted {
			t.Errorf("%q: exit %d, want 130; stderr %q", args, code, se.String())
		}
		if !strings.Contains(se.String(), "interrupted") {
			t.Errorf("%q: stderr does not say it was interrupted: %q", args, se.String())
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if _, err := os.Stat(filepath.Join(dir, "sweep")); err == nil || len(left) > 0 {
		t.Errorf("left behind: %v, sweep dir: %v", left, err)
	}
}

// TestInterruptSweep: SIGINT in the middle of a sweep keeps the points
// that finished as tables (no plots: the grid has holes) and exits 130.
func TestInterruptSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a sweep for a few seconds")
	}
	bin := binary(t)
	out := filepath.Join(t.TempDir(), "sw")
	// Points of 400,000 accesses, about half a second each: the bar shows
	// after a second, and the sweep must still be running then.
	cmd, stderr, done := start(t, bin, "sweep", "--vary", "mkc_cache.ways=1,2,4,8,16,32,64,128", "--workload.accesses", "400000", "--workers", "1", "--progress", "--out", out)
	deadline := time.After(2 * time.Minute)
	// The bar ("points  25% |...| (2/8, ...)") shows a point done.
	for pointDone := regexp.MustCompile(`points.*\([1-7]/8`); !pointDone.MatchString(stderr.String()); {
		select {
		case err := <-done:
			t.Fatalf("the sweep ended before the signal: %v\n%s", err, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no point done after 2 minutes:\n%s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := <-done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want 130\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`interrupted: kept the (\d+) finished points of 8 in \S+ \(sweep.csv, sweep.json, sweep.md; no plots\)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("stderr does not say what was kept:\n%s", stderr.String())
	}
	kept, _ := strconv.Atoi(m[1])
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"sweep.csv", "sweep.json", "sweep.md"}) {
		t.Errorf("%s holds %v", out, names)
	}
	csvData, _ := os.ReadFile(filepath.Join(out, "sweep.csv"))
	if lines := strings.Count(string(csvData), "\n"); lines != kept+1 || kept < 1 || kept >= 8 {
		t.Errorf("sweep.csv has %d lines for %d points kept", lines, kept)
	}
}
