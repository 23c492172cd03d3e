package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mkeysim/config"
	"mkeysim/internal/bounded"
	"mkeysim/internal/tinyfs"
	"mkeysim/scenario"
	"mkeysim/tb/tlpcap"
	"mkeysim/tb/wire"
	"mkeysim/vcd"
)

// The fault-injection suite (issue 46): every writing command against
// /dev/full, against a file system that fills up, against a reader that
// closes early, and with SIGINT and SIGTERM at several points of a run, a
// sweep, a replay and a vector generation. Each case asserts the exit
// status and the message, and that every file left behind is complete
// and valid by the tool's own strict readers, or absent; and, where the
// command says what it kept, that the disk holds exactly that. Every case
// runs the binary through internal/bounded. The counts are logged (go
// test -v -run Fault) and given in the README's section Reliability.

// faultTally counts the cases run and the files checked, for the README.
var faultTally struct{ cases, files atomic.Int64 }

// faultRun runs the binary with args under a deadline and an output cap;
// stdout is where its standard output goes (nil: captured).
func faultRun(t *testing.T, dir string, stdout io.Writer, args ...string) *bounded.Result {
	t.Helper()
	faultTally.cases.Add(1)
	c := bounded.Command(binary(t), args...)
	c.Dir = dir
	c.Deadline = 2 * time.Minute
	c.Output = 1 << 20
	c.FileSize = 256 << 20
	if stdout != nil {
		c.Stdout = stdout
	}
	r := c.Run()
	if r.TimedOut || r.ExitCode < 0 && r.Signal == 0 {
		t.Fatalf("%v: %s", args, r.String())
	}
	return &r
}

// checkLeft walks dir and checks every file left: no temporary name, and
// each one whole by its kind's strict reader. It returns the files, by
// path relative to dir.
func checkLeft(t *testing.T, dir string) map[string]bool {
	t.Helper()
	left := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(d.Name(), ".") || strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("a temporary is left: %s", rel)
		}
		if d.IsDir() || d.Name() == "filler" || d.Name() == "cap.pcap" || d.Name() == "setup.json" || d.Name() == "ops.json" {
			return nil
		}
		left[rel] = true
		faultTally.files.Add(1)
		if err := validFile(p); err != nil {
			t.Errorf("%s is left broken: %v", rel, err)
		}
		return nil
	})
	return left
}

// validFile reads path back with the reader of its kind and reports why
// it is not whole.
func validFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	base := filepath.Base(path)
	switch ext := filepath.Ext(path); {
	case ext == ".jsonl":
		_, err = scenario.ReadResults(bytes.NewReader(data))
	case ext == ".json":
		var v any
		err = json.Unmarshal(data, &v)
	case ext == ".vcd":
		_, err = vcd.Parse(bytes.NewReader(data))
	case ext == ".csv":
		r := csv.NewReader(bytes.NewReader(data))
		var recs [][]string
		if recs, err = r.ReadAll(); err == nil && len(recs) < 2 {
			err = fmt.Errorf("%d records, want a header and rows", len(recs))
		}
	case ext == ".png":
		_, err = png.Decode(bytes.NewReader(data))
	case base == "tlp.pcap":
		var r *tlpcap.Reader
		if r, err = tlpcap.NewReader(bytes.NewReader(data), config.Default().Model.ClockPS); err == nil {
			for err == nil {
				_, err = r.Next()
			}
			if err == io.EOF {
				err = nil
			}
		}
	case ext == ".pcap":
		_, err = wire.ReadPcapFrom(bytes.NewReader(data), path)
	case ext == ".hex", ext == ".md", ext == ".gtkw", ext == ".txt", ext == ".sv", ext == ".v", ext == ".sbatch", ext == ".sh", ext == ".cpp", ext == ".py", ext == "":
		// Text: whole when it ends a line.
		if len(data) == 0 || data[len(data)-1] != '\n' {
			err = fmt.Errorf("%d bytes, not ending a line", len(data))
		}
	default:
		err = fmt.Errorf("no reader for this kind of file")
	}
	return err
}

// lines counts the lines of a file.
func lines(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// keptFiles reads "kept A, B, C" from a run's message and returns the
// files named, relative to dir, checking that "N results in FILE" has N
// lines.
func keptFiles(t *testing.T, dir, stderr string) map[string]bool {
	t.Helper()
	m := regexp.MustCompile(`; kept (.*)\n`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no 'kept' in:\n%s", stderr)
	}
	kept := map[string]bool{}
	if m[1] == "nothing" {
		return kept
	}
	for _, item := range strings.Split(m[1], ", ") {
		f := strings.Fields(item)
		path := f[len(f)-1]
		if path == "output" { // N results on standard output
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		rel, _ := filepath.Rel(dir, path)
		kept[rel] = true
		if n, err := strconv.Atoi(f[0]); err == nil && f[1] == "results" {
			if got := lines(t, path); got != n {
				t.Errorf("the message says %d results in %s, the file has %d", n, rel, got)
			}
		}
		if strings.HasSuffix(rel, ".vcd") {
			gtkw, filters := strings.TrimSuffix(rel, ".vcd")+".gtkw", strings.TrimSuffix(rel, ".vcd")+".filters"
			kept[gtkw] = true
			entries, _ := os.ReadDir(filepath.Join(dir, filters))
			for _, e := range entries {
				kept[filepath.Join(filters, e.Name())] = true
			}
		}
	}
	return kept
}

// sameSet fails t unless the files left are those said kept.
func sameSet(t *testing.T, left, kept map[string]bool) {
	t.Helper()
	for f := range left {
		if !kept[f] {
			t.Errorf("%s is on disk but the message does not say it was kept", f)
		}
	}
	for f := range kept {
		if !left[f] {
			t.Errorf("the message says %s was kept; it is not on disk", f)
		}
	}
}

// TestFaultDevFull: each file a command writes, pointed at /dev/full, and
// standard output sent there: exit 1, the flag, the file and the reason
// said, and every other file whole.
func TestFaultDevFull(t *testing.T) {
	ex := example(t, "klm-nested.json")
	for _, c := range []struct {
		name string
		args []string
		want string // on standard error
	}{
		{"run --out", []string{"run", ex, "--out", "/dev/full", "--stats", "s.json"}, "--out /dev/full: write failed: no space left on device"},
		{"run --stats", []string{"run", ex, "--stats", "/dev/full", "--out", "r.jsonl"}, "--stats /dev/full: write failed: no space left on device"},
		{"run --coverage", []string{"run", ex, "--coverage", "/dev/full", "--out", "r.jsonl"}, "--coverage /dev/full: write failed: no space left on device"},
		{"run --tlp-out", []string{"run", ex, "--tlp-out", "/dev/full", "--out", "r.jsonl"}, "--tlp-out /dev/full: write failed: no space left on device"},
		{"run --pcap-out", []string{"run", ex, "--front", "wire", "--pcap-out", "/dev/full", "--out", "r.jsonl"}, "--pcap-out /dev/full: write failed: no space left on device"},
		{"run stdout", []string{"run", ex, "--stats", "s.json"}, "standard output: write failed: no space left on device"},
		{"ref stdout", []string{"ref", ex}, "mkeysim ref: standard output: write failed: no space left on device"},
		{"ref --coverage", []string{"ref", ex, "--coverage", "/dev/full"}, "--coverage /dev/full: write failed: no space left on device"},
		{"compare stdout", []string{"compare", example(t, "klm-nested.expected.jsonl"), example(t, "klm-nested.expected.jsonl")}, "mkeysim compare: standard output: write failed"},
		{"config stdout", []string{"config", "--defaults"}, "mkeysim config: standard output: write failed: no space left on device"},
		{"mkc stdout", []string{"mkc", "unpack", strings.Repeat("0", 128)}, "standard output: write failed: no space left on device"},
		{"vectors stdout", []string{"vectors", "--unit", "protcheck", "--count", "64", "--examples", "", "--out", "v"}, "the files are written, but not their list: standard output: write failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Skip("no /dev/full:", err)
			}
			defer full.Close()
			stdout := io.Writer(nil)
			if !slices.Contains(c.args, "/dev/full") {
				stdout = full
			}
			r := faultRun(t, dir, stdout, c.args...)
			if r.ExitCode != 1 || !strings.Contains(string(r.Stderr), c.want) {
				t.Fatalf("%v: %s\nwant exit 1 and %q", c.args, r.String(), c.want)
			}
			checkLeft(t, dir)
		})
	}
}

// TestFaultFullFileSystem: the outputs on a file system that fills up
// (a tmpfs of 48 KiB): exit 1, the file and the reason said, and what is
// left is whole and is what the message says was kept; a sweep's or the
// vectors' directory gets nothing.
func TestFaultFullFileSystem(t *testing.T) {
	fsys := tinyfs.Mount(t, 48<<10)
	for i, c := range []struct {
		name string
		args []string
		want string
		kept bool // the command says what it kept
		// within, if not 0, is how soon the command must give up: a
		// run whose waveform no longer fits stops instead of
		// simulating its three million accesses (about 30 s here).
		within time.Duration
	}{
		{"run stops when its waveform fails", []string{"run", "--workload.accesses", "3000000", "--quiet", "--out", "/dev/null", "--stats", "{}/s.json", "--vcd", "{}/w.vcd"}, "--vcd {}/w.vcd: write failed: no space left on device", true, 5 * time.Second},
		{"run, every file", []string{"run", "--workload.accesses", "20000", "--quiet", "--out", "{}/r.jsonl", "--stats", "{}/s.json", "--coverage", "{}/c.json", "--vcd", "{}/w.vcd", "--tlp-out", "{}/tlp.pcap"}, "write failed: no space left on device", true, 0},
		{"run, results first", []string{"run", "--workload.accesses", "20000", "--quiet", "--out", "{}/r.jsonl", "--stats", "{}/s.json"}, "--out {}/r.jsonl: write failed: no space left on device", true, 0},
		{"ref --coverage", []string{"ref", example(t, "klm-nested.json"), "--coverage", "{}/c.json"}, "--coverage {}/c.json: write failed: no space left on device", false, 0},
		{"sweep", []string{"sweep", "--vary", "mkc_cache.ways=1,2", "--workload.accesses", "3000", "--quiet", "--out", "{}/sweep"}, "write failed: no space left on device; nothing written to {}/sweep", false, 0},
		{"vectors", []string{"vectors", "--unit", "all", "--count", "512", "--examples", "", "--out", "{}/vec"}, "write failed: no space left on device; nothing written to {}/vec", false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(fsys, strconv.Itoa(i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			args := make([]string, len(c.args))
			for k, a := range c.args {
				args[k] = strings.ReplaceAll(a, "{}", dir)
			}
			r := faultRun(t, dir, nil, args...)
			want := strings.ReplaceAll(c.want, "{}", dir)
			if r.ExitCode != 1 || !strings.Contains(string(r.Stderr), want) {
				t.Fatalf("%v: %s\nwant exit 1 and %q", args, r.String(), want)
			}
			if c.within > 0 && r.Elapsed > c.within {
				t.Errorf("gave up after %.1f s, want within %v", r.Elapsed.Seconds(), c.within)
			}
			left := checkLeft(t, dir)
			if c.kept {
				sameSet(t, left, keptFiles(t, dir, string(r.Stderr)))
			} else if len(left) > 0 {
				t.Errorf("left %v, want nothing", left)
			}
		})
	}
}

// TestFaultEarlyReader: a reader that closes standard output early (as
// head does) ends the command quietly with 141 (128 + SIGPIPE) and
// leaves none of its files, not even a temporary.
func TestFaultEarlyReader(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "--workload.accesses", "200000", "--quiet", "--no-summary", "--stats", "s.json", "--vcd", "w.vcd", "--vcd-scope", "top.tb"}},
		{"ref", []string{"ref", "big.json", "--coverage", "c.json"}},
		{"run --out /dev/stdout", []string{"run", "big.json", "--quiet", "--no-summary", "--out", "/dev/stdout", "--stats", "s.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bigScenario(t, dir)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				buf := make([]byte, 512)
				io.ReadFull(pr, buf) // head -c 512
				pr.Close()
			}()
			r := faultRun(t, dir, pw, c.args...)
			pw.Close()
			if r.ExitCode != exitPipe || len(r.Stderr) > 0 {
				t.Fatalf("%v: %s\nwant exit %d and nothing said", c.args, r.String(), exitPipe)
			}
			if left := checkLeft(t, dir); len(left) > 3 { // the inputs: big.json, big.jsonl, other.jsonl
				t.Errorf("left %v", left)
			}
		})
	}
}

// example is the absolute path of examples/name.
func example(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join(repoRoot, "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bigScenario writes into dir big.json, a scenario of 20,000 accesses
// (a few MB of result lines), big.jsonl its golden results with every
// address off by one page (other.jsonl), for the commands of
// TestFaultEarlyReader.
func bigScenario(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"qps": [{"qpn": 1, "pd": 5}], "mkeys": [{"index": 1, "variant": "0x11", "mkc": {"access_mode": "PA", "pd": 5, "start_addr": "0x1000", "len": "0x10000000", "lr": 1, "lw": 1}}], "ops": [`)
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"op": "access", "qpn": 1, "key": "0x111", "addr": "0x%x", "len": 64, "type": "LOCAL_READ"}`, 0x1000+64*i)
	}
	b.WriteString("]}")
	os.WriteFile(filepath.Join(dir, "big.json"), []byte(b.String()), 0o644)
	var lines bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&lines, `{"seq":%d,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x%x","len":64}]}`+"\n", i, 0x1000+64*i)
	}
	os.WriteFile(filepath.Join(dir, "big.jsonl"), lines.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "other.jsonl"), bytes.ReplaceAll(lines.Bytes(), []byte(`"addr":"0x`), []byte(`"addr":"0x1`)), 0o644)
}

// TestFaultSignals: SIGINT and SIGTERM at several points of a run, a
// sweep, a replay and a vector generation (soon after the start, and
// later): the status is 130 or 143 (or 0 if the command finished first),
// and the files left are whole; a run's message says exactly what is on
// disk; the vectors and a sweep stopped before a point finished leave
// nothing.
func TestFaultSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: sends signals to commands running for seconds")
	}
	capDir := t.TempDir()
	replayInputs(t, capDir)
	for _, c := range []struct {
		name string
		args []string
		kept bool // says what it kept, in run's words
	}{
		{"run", []string{"run", "--workload.accesses", "400000", "--quiet", "--out", "r.jsonl", "--stats", "s.json", "--coverage", "c.json", "--vcd", "w.vcd", "--vcd-scope", "top.tb", "--tlp-out", "tlp.pcap"}, true},
		{"run --front wire", []string{"run", "--workload.accesses", "100000", "--quiet", "--front", "wire", "--out", "r.jsonl", "--pcap-out", "p.pcap"}, true},
		{"replay", []string{"replay", filepath.Join(capDir, "cap.pcap"), "--scenario", filepath.Join(capDir, "setup.json"), "--quiet", "--out", "r.jsonl", "--pcap-out", "p.pcap", "--stats", "s.json"}, true},
		{"sweep", []string{"sweep", "--vary", "mkc_cache.ways=1,2,4,8", "--workload.accesses", "60000", "--quiet", "--workers", "1", "--out", "sweep"}, false},
		{"vectors", []string{"vectors", "--unit", "all", "--count", "16384", "--examples", "", "--out", "vec"}, false},
	} {
		// The whole command first: how long it takes (the signals come
		// at a tenth, a half and nine tenths of that), and its files.
		dir := t.TempDir()
		r := faultRun(t, dir, io.Discard, c.args...)
		if r.ExitCode != 0 {
			t.Fatalf("%s: %s", c.name, r.String())
		}
		checkLeft(t, dir)
		whole := r.Elapsed
		interrupted := 0
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			for _, at := range []float64{0.1, 0.5, 0.9} {
				// Not before 250 ms: a signal that comes before the Go
				// runtime has installed the handler (a loaded machine
				// can take tens of milliseconds to start a process)
				// kills the command outright, which says nothing of it.
				after := max(time.Duration(at*float64(whole)), 250*time.Millisecond)
				t.Run(fmt.Sprintf("%s/%v/%.0f%%", c.name, sig, 100*at), func(t *testing.T) {
					dir := t.TempDir()
					faultTally.cases.Add(1)
					cmd := bounded.Command(binary(t), c.args...)
					cmd.Dir = dir
					cmd.Deadline = 2 * time.Minute
					cmd.FileSize = 256 << 20
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					timer := time.AfterFunc(after, func() { cmd.Process.Signal(sig) })
					r := cmd.Wait()
					timer.Stop()
					errs := string(r.Stderr)
					switch r.ExitCode {
					case 0:
						// Finished before the signal: every file whole.
						checkLeft(t, dir)
						return
					case 128 + int(sig):
						interrupted++
					default:
						t.Fatalf("%v after %v: %s", sig, after, r.String())
					}
					if !strings.Contains(errs, "interrupted") {
						t.Errorf("no word of the interruption:\n%s", errs)
					}
					left := checkLeft(t, dir)
					switch {
					case c.kept:
						sameSet(t, left, keptFiles(t, dir, errs))
					case strings.Contains(errs, "nothing written"):
						if len(left) > 0 {
							t.Errorf("the message says nothing was written; left %v", left)
						}
					}
				})
			}
		}
		// A signal at a tenth of the command's time must find it running
		// at least once in two.
		if interrupted == 0 {
			t.Errorf("%s: no signal found the command running (it takes %v): the cases test nothing", c.name, whole)
		}
	}
	t.Logf("fault injection: %d cases, %d files checked", faultTally.cases.Load(), faultTally.files.Load())
}

// replayInputs writes into dir a setup scenario and cap.pcap, a capture
// of 30,000 remote reads that the wire front makes (a replay of a few
// seconds).
func replayInputs(t *testing.T, dir string) {
	t.Helper()
	setup := `{"qps": [{"qpn": 1, "pd": 5}], "mkeys": [{"index": 16, "variant": "0x2a",
	  "mkc": {"access_mode": "PA", "pd": 5, "start_addr": "0x10000", "len": "0x40000000", "lr": 1, "lw": 1, "rr": 1, "rw": 1}}]`
	os.WriteFile(filepath.Join(dir, "setup.json"), []byte(setup+"}"), 0o644)
	var b strings.Builder
	b.WriteString(setup + `, "ops": [`)
	for i := range 30000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"op": "access", "qpn": 1, "key": "0x102a", "addr": "0x%x", "len": 64, "type": "REMOTE_READ"}`, 0x10000+64*i)
	}
	b.WriteString("]}")
	ops := filepath.Join(dir, "ops.json")
	os.WriteFile(ops, []byte(b.String()), 0o644)
	r := faultRun(t, dir, io.Discard, "run", "--quiet", "--no-summary", "--front", "wire", "--pcap-out", filepath.Join(dir, "cap.pcap"), ops)
	if r.ExitCode != 0 {
		t.Fatalf("making the capture: %s", r.String())
	}
}

// TestFaultSecondSignal: a second SIGINT, sent as soon as the run says
// it is stopping (it is then putting its files in place: the waveform's
// sync alone takes a while), quits at once and removes the files being
// written: none is left half, and no temporary is left. A signal can
// come too late (the files were in place) or, on a busy machine, be
// merged by the kernel with the first: up to three tries must see the
// second one take effect.
func TestFaultSecondSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: sends signals to a run of a second")
	}
	bin := binary(t)
	again := 0
	for try := 0; try < 3 && again == 0; try++ {
		dir := t.TempDir()
		faultTally.cases.Add(1)
		args := []string{"run", "--workload.accesses", "1000000", "--quiet", "--out", filepath.Join(dir, "r.jsonl"), "--stats", filepath.Join(dir, "s.json"),
			"--vcd", filepath.Join(dir, "w.vcd"), "--tlp-out", filepath.Join(dir, "tlp.pcap")}
		cmd, stderr, done := start(t, bin, args...)
		time.Sleep(700 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "stopping at the next safe point") && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGINT)
		err := <-done
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("exit %v, want 130:\n%s", err, stderr.String())
		}
		checkLeft(t, dir)
		errs := stderr.String()
		if strings.Contains(errs, "SIGINT again") {
			again++
			if !regexp.MustCompile(`SIGINT again: quitting at once; the \d+ files being written are removed`).MatchString(errs) {
				t.Errorf("the second signal does not say what it removed:\n%s", errs)
			}
		}
	}
	if again == 0 {
		t.Errorf("in three tries the second signal never found the run still writing")
	}
}
