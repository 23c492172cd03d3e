package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mkeysim/internal/bounded"
	"mkeysim/scenario"
)

// hazardDir holds the shared hazards with their expected lines, beside
// the repository; testdata/hazards holds copies of the scenarios, so that
// the bounds are checked even without it.
const hazardDir = "../../../shared/hazards"

// TestHazards replays every hazard scenario (inputs that made an earlier
// build write hundreds of GB without stopping) through both models as
// subprocesses with a deadline of 20 s, 8 MiB of output kept and a file
// cap, and kills their process group at the end: on a build without the
// bounds this fails in seconds. Each must exit 0 well inside the deadline,
// its lines within scenario.md's bounds (4,096 entries, 65,536 segments),
// and, where ../shared/hazards is there, equal to the expected lines.
func TestHazards(t *testing.T) {
	bin := binary(t)
	files, _ := filepath.Glob(filepath.Join(hazardDir, "*.json"))
	if len(files) == 0 {
		t.Logf("no %s: the repository's copies, without expected lines", hazardDir)
		files, _ = filepath.Glob("testdata/hazards/*.json")
	}
	if len(files) < 3 {
		t.Fatalf("%d hazard scenarios", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		for _, mode := range []string{"ref", "run"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				c := bounded.Command(bin, mode, f)
				if mode == "run" {
					c.Args = append(c.Args, "--quiet")
				}
				c.Deadline, c.Output, c.FileSize = 20*time.Second, 8<<20, 64<<20
				r := c.Run()
				if r.ExitCode != 0 || r.Truncated() || r.Elapsed > 10*time.Second {
					t.Fatalf("%s\nwant exit 0 in under 10 s with under 8 MiB out", r.String())
				}
				got := readLines(t, r.Stdout)
				for i := range got {
					checkBounds(t, &got[i])
				}
				exp := filepath.Join(filepath.Dir(f), name+".expected.jsonl")
				if _, err := os.Stat(exp); err != nil {
					return
				}
				data, err := os.ReadFile(exp)
				if err != nil {
					t.Fatal(err)
				}
				want := readLines(t, data)
				if len(got) != len(want) {
					t.Fatalf("%d lines, want %d", len(got), len(want))
				}
				for i := range want {
					if d := scenario.Diff(&got[i], &want[i]); d != "" {
						t.Errorf("line %d: %s", i+1, d)
					}
				}
			})
		}
	}
}

// readLines parses result lines.
func readLines(t *testing.T, b []byte) []scenario.Result {
	t.Helper()
	var out []scenario.Result
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		r, err := scenario.ParseResult(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkBounds checks a line against scenario.md's windows.
func checkBounds(t *testing.T, r *scenario.Result) {
	t.Helper()
	if n := r.List.Len(); n > scenario.MaxQueryEntries {
		t.Errorf("seq %d: %d entries listed", r.Seq, n)
	}
	if n := len(r.Segments); n > scenario.MaxSegments || r.SegmentsLeftOut > 0 && n != scenario.MaxSegments {
		t.Errorf("seq %d: %d segments listed, %d left out", r.Seq, n, r.SegmentsLeftOut)
	}
	for _, s := range r.Resumed {
		checkBounds(t, &s)
	}
}

// manySegments writes a scenario of one access of 2^32-1 bytes through a
// Fixed Buffer Size key whose 2^20 unwritten entries (4 KiB each) all
// resolve to key 0, a KLM key of 4096/piece entries of piece bytes over a
// PA key: with pieces of 64 bytes 2^26 segments, a line of 2.5 GB without
// the window; of 16 bytes 2^28. It returns the file's path.
func manySegments(t *testing.T, piece int) string {
	t.Helper()
	var klm []string
	for i := range 4096 / piece {
		klm = append(klm, fmt.Sprintf(`{"byte_count":%d,"mkey":"0x100","address":"%#x"}`, piece, i*piece))
	}
	sc := `{"qps":[{"qpn":1,"pd":1}],"mkeys":[
{"index":1,"mkc":{"access_mode":"PA","pd":1,"lr":1,"length64":1}},
{"index":0,"mkc":{"access_mode":"KLM","pd":1,"lr":1,"len":4096},"klm":[` + strings.Join(klm, ",") + `]},
{"index":2,"mkc":{"access_mode":"FIXED_BUFFER_SIZE","pd":1,"lr":1,"len":"0x100000000","log_entity_size":12,"translations_octword_size":"0x100000"}}],
"ops":[{"op":"access","qpn":1,"key":"0x200","addr":0,"len":"0xffffffff","type":"LOCAL_READ"}]}`
	if !json.Valid([]byte(sc)) {
		t.Fatal("bad scenario")
	}
	path := filepath.Join(t.TempDir(), "segments-2e26.json")
	if err := os.WriteFile(path, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestManySegmentsFlatMemory: the golden model translates an access of
// 2^26 segments whole, prints the first 65,536 and segments_left_out,
// with a peak resident memory far under 1 GiB (the whole list would be
// 1.5 GB of segments and a 2.5 GB line).
func TestManySegmentsFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two seconds of translation")
	}
	bin := binary(t)
	seg := manySegments(t, 64)
	_, noTime := os.Stat("/usr/bin/time")
	c := bounded.Command("/usr/bin/time", "-f", "maxrss_kb=%M", bin, "ref", seg)
	if noTime != nil {
		c = bounded.Command(bin, "ref", seg)
	}
	c.Deadline, c.Output = time.Minute, 8<<20
	r := c.Run()
	if r.ExitCode != 0 || r.Truncated() {
		t.Fatalf("%s", r.String())
	}
	got := readLines(t, r.Stdout)
	if len(got) != 1 || len(got[0].Segments) != scenario.MaxSegments || got[0].SegmentsLeftOut != 1<<26-scenario.MaxSegments {
		t.Fatalf("%d lines; want one of %d segments and %d left out", len(got), scenario.MaxSegments, 1<<26-scenario.MaxSegments)
	}
	if noTime != nil {
		t.Skipf("no /usr/bin/time to measure the peak memory with (Debian's package time): %v", noTime)
	}
	var kb int
	at := bytes.LastIndex(r.Stderr, []byte("maxrss_kb="))
	if at < 0 {
		t.Fatalf("/usr/bin/time printed no peak memory:\n%s", r.Stderr)
	}
	if _, err := fmt.Sscanf(string(r.Stderr[at:]), "maxrss_kb=%d", &kb); err != nil {
		t.Fatalf("/usr/bin/time's peak memory: %v\n%s", err, r.Stderr)
	}
	t.Logf("2^26 segments in %.1f s, peak RSS %d MB", r.Elapsed.Seconds(), kb>>10)
	if kb > 256<<10 {
		t.Errorf("peak RSS %d MB, want well under 1 GiB (256 MB)", kb>>10)
	}
}

// TestSignalStopsLongWork: SIGTERM or SIGINT stops a command within 2 s
// of the signal, whatever it is doing: the golden model in the middle of
// an access of 2^28 segments (seven seconds of work), the clocked model in a run of ten million
// accesses; the status is 128 + the signal (143, 130), and standard error
// says what was kept. Two SIGINTs in a row exit 130 too.
func TestSignalStopsLongWork(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs commands for seconds")
	}
	bin := binary(t)
	seg := manySegments(t, 16)
	// The same access as an example the vectors take directed vectors
	// from: the golden model walks it before any vector is made.
	exdir := t.TempDir()
	if data, err := os.ReadFile(seg); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(exdir, "many.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		args  []string
		sigs  []syscall.Signal
		code  int
		after time.Duration
		said  string
	}{
		{"ref SIGTERM", []string{"ref", seg}, []syscall.Signal{syscall.SIGTERM}, 143, 300 * time.Millisecond, "interrupted after 0 of 1 operations"},
		{"ref SIGINT", []string{"ref", seg}, []syscall.Signal{syscall.SIGINT}, 130, 300 * time.Millisecond, "interrupted after 0 of 1 operations"},
		{"run SIGTERM", []string{"run", "--quiet", "--workload.accesses", "10000000"}, []syscall.Signal{syscall.SIGTERM}, 143, 2 * time.Second, "kept"},
		{"run SIGINT", []string{"run", "--quiet", "--workload.accesses", "10000000"}, []syscall.Signal{syscall.SIGINT}, 130, time.Second, "kept"},
		{"run SIGINT twice", []string{"run", "--quiet", "--workload.accesses", "10000000"}, []syscall.Signal{syscall.SIGINT, syscall.SIGINT}, 130, time.Second, "SIGINT"},
		{"run SIGTERM, the 2^28 check", []string{"run", "--quiet", seg}, []syscall.Signal{syscall.SIGTERM}, 143, 1500 * time.Millisecond, "kept"},
		{"vectors SIGTERM, an example of 2^28 segments", []string{"vectors", "--unit", "top", "--count", "16", "--examples", exdir, "--out", filepath.Join(exdir, "vec")},
			[]syscall.Signal{syscall.SIGTERM}, 143, 1500 * time.Millisecond, "nothing written"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := bounded.Command(bin, c.args...)
			cmd.Deadline, cmd.Output = time.Minute, 1<<20
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(c.after)
			sent := time.Now()
			for _, s := range c.sigs {
				cmd.Signal(s)
				time.Sleep(50 * time.Millisecond)
			}
			r := cmd.Wait()
			stop := time.Since(sent)
			if r.ExitCode != c.code || stop > 2*time.Second || !strings.Contains(string(r.Stderr), c.said) {
				t.Fatalf("%s\nstopped %.2f s after the signal; want exit %d within 2 s, saying %q", r.String(), stop.Seconds(), c.code, c.said)
			}
			t.Logf("exit %d %.3f s after the signal", r.ExitCode, stop.Seconds())
		})
	}
}
