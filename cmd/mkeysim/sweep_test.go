package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

func runSweep(args ...string) (code int, stdout, stderr string) {
	return runCLI(append([]string{"sweep"}, args...)...)
}

// small are flags for a quick workload and a small MKC cache.
var small = []string{"-workload.keys", "64", "-workload.accesses", "2000", "-workload.hot_keys", "16", "-mkc_cache.sets", "4"}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestCLI: a 2-D sweep writes every file, prints the Markdown table and
// takes parameters from -config and flags.
func TestCLI(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "my.toml")
	os.WriteFile(cfg, []byte("[mtt]\nwalkers = 3\n"), 0o644)
	out := filepath.Join(dir, "out", "sub")
	args := append([]string{"-config", cfg, "--quiet", "--no-summary", "-vary", "model.mkc_cache.ways=1..4*2", "-vary", "pcie.link_latency_cycles=25,100", "-out", out}, small...)
	code, stdout, stderr := runSweep(args...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := []string{"hit_rates.png", "latency.png", "sweep.csv", "sweep.json", "sweep.md", "throughput.png"}
	if got := listDir(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("files %v; want %v", got, want)
	}
	md, _ := os.ReadFile(filepath.Join(out, "sweep.md"))
	if stdout != string(md) || !strings.Contains(stdout, "| mkc_cache.ways | pcie.link_latency_cycles |") {
		t.Errorf("stdout is not sweep.md:\n%s", stdout)
	}
	f, _ := os.Open(filepath.Join(out, "sweep.csv"))
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 7 {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
	if got := strings.Join(recs[0][:3], ","); got != "point,mkc_cache.ways,pcie.link_latency_cycles" {
		t.Errorf("CSV header %s", got)
	}
	if recs[6][1] != "4" || recs[6][2] != "100" || recs[6][len(recs[6])-1] != "0" {
		t.Errorf("CSV last row %v", recs[6])
	}
	js, _ := os.ReadFile(filepath.Join(out, "sweep.json"))
	for _, s := range []string{`"mtt.walkers": 3`, `"workload.accesses": 2000`, `"mkc_cache.sets": 4`} {
		if !bytes.Contains(js, []byte(s)) {
			t.Errorf("sweep.json lacks %s", s)
		}
	}
	for _, p := range []string{"hit_rates.png", "throughput.png", "latency.png"} {
		data, _ := os.ReadFile(filepath.Join(out, p))
		if img, err := png.Decode(bytes.NewReader(data)); err != nil || img.Bounds().Dx() < 500 || img.Bounds().Dy() < 350 {
			t.Errorf("%s: not a plot of at least 500x350: %v", p, err)
		}
	}

	// Again in the same directory with more lines than a plot shows: the
	// old plots go, the tables are replaced, the note says why.
	code, _, stderr = runSweep(append([]string{"-vary", "mkc_cache.ways=1", "-vary", "pcie.link_latency_cycles=10..22", "-workload.accesses", "200", "-out", out}, small[:2]...)...)
	if code != 0 || !strings.Contains(stderr, "no plots: 13 lines") || !strings.Contains(stderr, "13 points") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if got := listDir(t, out); !reflect.DeepEqual(got, []string{"sweep.csv", "sweep.json", "sweep.md"}) {
		t.Errorf("files %v", got)
	}
}

func TestCLIScenario(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runSweep("-quiet", "-scenario", "../../examples/klm-nested.json", "-vary", "klm.contexts=12,16", "-out", out)
	if code != 0 || !strings.Contains(stdout, "scenario ../../examples/klm-nested.json") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestCLIHelp(t *testing.T) {
	code, stdout, stderr := runSweep("--help")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "--mkc-cache.ways") {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCLIErrors: bad input ends with exit 2, nothing on standard output,
// an error naming the flag and the value, and nothing written.
func TestCLIErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	badCfg := filepath.Join(dir, "bad.toml")
	os.WriteFile(badCfg, []byte("[mkc_cache]\nwayz = 4\n"), 0o644)
	badSc := filepath.Join(dir, "bad.json")
	os.WriteFile(badSc, []byte(`{"qps": [], "mkeys": [], "ops": [{"op": "frob"}]}`), 0o644)
	out := filepath.Join(dir, "out")
	ok := "mkc_cache.ways=1,2"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-out", out}, []string{"want at least one --vary"}},
		{[]string{"-vary", ok}, []string{"want --out DIR"}},
		{[]string{"-vary", "nosuch.param=1,2", "-out", out}, []string{`--vary "nosuch.param=1,2"`, `unknown parameter "nosuch.param"`}},
		{[]string{"-vary", "ways=1,2", "-out", out}, []string{`--vary "ways=1,2"`, "did you mean mkc_cache.ways"}},
		{[]string{"-vary", "mkc_cache.ways=1,x", "-out", out}, []string{`--vary "mkc_cache.ways=1,x"`, `mkc_cache.ways = "x": want an integer`}},
		{[]string{"-vary", "mkc_cache.ways=", "-out", out}, []string{`--vary "mkc_cache.ways="`, "empty list"}},
		{[]string{"-vary", "mkc_cache.ways", "-out", out}, []string{`--vary "mkc_cache.ways"`, "want PARAM=V1,V2"}},
		{[]string{"-vary", "mkc_cache.ways=4..1", "-out", out}, []string{`--vary "mkc_cache.ways=4..1"`, "start 4 is above end 1"}},
		{[]string{"-vary", ok, "-vary", "mkc_cache.ways=8", "-out", out}, []string{`--vary "mkc_cache.ways=8"`, "already varied"}},
		{[]string{"-vary", "mkc_cache.sets=16,48", "-out", out}, []string{"-vary", "point mkc_cache.sets=48", "sets = 48"}},
		{[]string{"-vary", "mkc_cache.replacement=lru,fifo", "-out", out}, []string{"-vary", "point mkc_cache.replacement=fifo", "fifo"}},
		{[]string{"-vary", "mkc_cache.sets=1..4096*2", "-vary", "mkc_cache.ways=1..100", "-out", out}, []string{"-vary", "1300 points", "mkc_cache.sets: 13 × mkc_cache.ways: 100", "--max-points 1000"}},
		{[]string{"-vary", "mkc_cache.ways=1..10", "-max-points", "5", "-out", out}, []string{"10 points", "--max-points 5"}},
		{[]string{"-vary", ok, "-max-points", "0", "-out", out}, []string{"--max-points 0"}},
		{[]string{"-vary", ok, "-workers", "0", "-out", out}, []string{"--workers 0"}},
		{[]string{"-vary", ok, "-out", file}, []string{"-out", file, "not a directory"}},
		{[]string{"-vary", ok, "-out", filepath.Join(file, "sub")}, []string{"-out", filepath.Join(file, "sub"), "not a directory"}},
		{[]string{"-vary", ok, "-out", out, "extra.toml"}, []string{`extra.toml: no such file`}},
		{[]string{"-vary", ok, "-out", out, "a.toml", "b.toml"}, []string{`want at most one sweep file SWEEP.toml, got 2 argument(s)`}},
		{[]string{"-vary", ok, "-out", out, "-mkc_cache.ways", "zz"}, []string{"mkc_cache.ways", "zz"}},
		{[]string{"-vary", ok, "-out", out, "-rob_entries", "0"}, []string{"rob_entries = 0"}},
		{[]string{"-vary", ok, "-out", out, "-config", badCfg}, []string{"-config", "bad.toml", "wayz"}},
		{[]string{"-vary", ok, "-out", out, "-scenario", filepath.Join(dir, "missing.json")}, []string{"-scenario", "missing.json", "no such file"}},
		{[]string{"-vary", ok, "-out", out, "-scenario", badSc}, []string{"-scenario", "bad.json", "ops[0]"}},
		{[]string{"-vary", "workload.keys=64,128", "-out", out, "-scenario", "../../examples/klm-nested.json"}, []string{`--vary "workload.keys=64,128"`, "no effect with --scenario"}},
		{[]string{"-vary", ok, "-out", out, "-nosuchflag"}, []string{"nosuchflag"}},
	} {
		code, stdout, stderr := runSweep(c.args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want 2 and nothing", c.args, code, stdout)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: stderr %q lacks %q", c.args, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: created %s", c.args, out)
			os.RemoveAll(out)
		}
		if got := listDir(t, dir); len(got) != 3 {
			t.Errorf("%q: wrote %v", c.args, got)
		}
	}
}

// TestSweepDocErrors: the bad-input session of docs/sweep.md is what the
// command prints, line for line (run from the repository, as shown).
func TestSweepDocErrors(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	t.Chdir(repoRoot)
	n := 0
	for i, l := range lines {
		cmd, ok := strings.CutPrefix(l, "$ mkeysim ")
		if !ok || i+1 >= len(lines) {
			continue
		}
		n++
		code, stdout, stderr := runCLI(strings.Fields(cmd)...)
		if code != exitUsage || stdout != "" || strings.TrimSpace(stderr) != lines[i+1] {
			t.Errorf("docs/sweep.md line %d: %s\nexit %d, stdout %q\nprints: %s\nthe page: %s", i+1, l, code, stdout, strings.TrimSpace(stderr), lines[i+1])
		}
	}
	if n < 5 {
		t.Errorf("docs/sweep.md shows %d failing commands; want the bad-input session", n)
	}
	if _, err := os.Stat("out/x"); err == nil {
		t.Errorf("a refused sweep made out/x")
	}
}

// dropWall removes the columns that vary from run to run from CSV text
// and the lines that hold them from JSON text.
func dropWall(t *testing.T, name string, data []byte) string {
	t.Helper()
	if strings.HasSuffix(name, ".json") {
		var keep []string
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.Contains(l, `"wall_seconds`) && !strings.Contains(l, `"cycles_per_second`) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range recs {
		var keep []string
		for i, v := range r {
			if h := strings.TrimSuffix(recs[0][i], "_sd"); h != "wall_seconds" && h != "cycles_per_second" {
				keep = append(keep, v)
			}
		}
		lines = append(lines, strings.Join(keep, ","))
	}
	return strings.Join(lines, "\n")
}

// TestCLIShardMerge: a sweep run as 3 slices (tables, no plots) and
// merged writes the files of the unsharded run, the same bytes but for
// wall time, and the same plots.
func TestCLIShardMerge(t *testing.T) { testShardMerge(t) }

// TestCLIShardMergeSeeds: the same with --seeds 2.
func TestCLIShardMergeSeeds(t *testing.T) { testShardMerge(t, "--seeds", "2") }

func testShardMerge(t *testing.T, extra ...string) {
	dir := t.TempDir()
	grid := append([]string{"--quiet", "--vary", "mkc_cache.ways=1,2,4", "--vary", "mtt.walkers=1,2", "--workload.accesses", "2000"}, small[:2]...)
	grid = append(grid, extra...)
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runSweep(append(grid, "--out", whole)...); code != 0 {
		t.Fatalf("unsharded: exit %d, %s", code, stderr)
	}
	var slices []string
	points := 0
	for i := 1; i <= 3; i++ {
		out := filepath.Join(dir, fmt.Sprintf("s%d", i))
		code, stdout, stderr := runSweep(append(grid, "--shard", fmt.Sprintf("%d/3", i), "--out", out)...)
		if code != 0 || !strings.Contains(stderr, fmt.Sprintf("slice %d/3: no plots", i)) || !strings.Contains(stdout, fmt.Sprintf("2 points of slice %d/3 (of 6 points)", i)) {
			t.Fatalf("slice %d: exit %d, stdout %q, stderr %q", i, code, stdout, stderr)
		}
		if got := listDir(t, out); !reflect.DeepEqual(got, []string{"sweep.csv", "sweep.json", "sweep.md"}) {
			t.Errorf("slice %d wrote %v", i, got)
		}
		data, _ := os.ReadFile(filepath.Join(out, "sweep.csv"))
		recs, _ := csv.NewReader(bytes.NewReader(data)).ReadAll()
		for _, r := range recs[1:] {
			if r[0] != fmt.Sprint(i-1) && r[0] != fmt.Sprint(i+2) {
				t.Errorf("slice %d holds point %s", i, r[0])
			}
			points++
		}
		slices = append(slices, out)
	}
	if points != 6 {
		t.Errorf("the slices hold %d points; want 6", points)
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, stderr := runCLI(append([]string{"merge", merged}, slices[2], slices[0], slices[1])...)
	if code != 0 || !strings.Contains(stderr, "6 points from 3 slices") {
		t.Fatalf("merge: exit %d, stderr %q", code, stderr)
	}
	if got, want := listDir(t, merged), listDir(t, whole); !reflect.DeepEqual(got, want) {
		t.Errorf("merge wrote %v; want %v", got, want)
	}
	md, _ := os.ReadFile(filepath.Join(merged, "sweep.md"))
	if stdout != string(md) {
		t.Errorf("stdout is not sweep.md")
	}
	for _, name := range listDir(t, whole) {
		a, _ := os.ReadFile(filepath.Join(whole, name))
		b, _ := os.ReadFile(filepath.Join(merged, name))
		switch name {
		case "sweep.csv", "sweep.json":
			if dropWall(t, name, a) != dropWall(t, name, b) {
				t.Errorf("%s differs:\n%s\n---\n%s", name, a, b)
			}
		case "sweep.md":
			cut := regexp.MustCompile(`[0-9.]+( ± [0-9.]+)? \|\n`)
			if cut.ReplaceAllString(string(a), "\n") != cut.ReplaceAllString(string(b), "\n") {
				t.Errorf("%s differs:\n%s\n---\n%s", name, a, b)
			}
		default:
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs", name)
			}
		}
	}
}

// TestCLIShardErrors: a bad --shard is refused with exit 2, naming the
// flag and the value, and nothing is written.
func TestCLIShardErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for shard, want := range map[string]string{
		"0/4": "slice 0 of 4", "5/4": "slice 5 of 4", "x/y": "want I/N", "1/0": "at least 1 slice",
		"2": "want I/N", "": "want I/N", "1/5": "5 slices of a grid of 4 points",
	} {
		code, stdout, stderr := runSweep("--vary", "mkc_cache.ways=1,2,4,8", "--shard", shard, "--out", out)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, fmt.Sprintf("--shard %q: ", shard)) || !strings.Contains(stderr, want) {
			t.Errorf("--shard %q: exit %d, stdout %q, stderr %q; want 2 and %q", shard, code, stdout, stderr, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--shard %q made %s", shard, out)
			os.RemoveAll(out)
		}
	}
}

// TestCLIMergeErrors: merge refuses, with exit 2, naming the directory
// and the reason and writing nothing, what is not the slices of one
// sweep.
func TestCLIMergeErrors(t *testing.T) {
	dir := t.TempDir()
	slice := func(name, shard string, more ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"--quiet", "--vary", "mkc_cache.ways=1,2,4", "--workload.accesses", "300", "--shard", shard, "--out", out}, small[:2]...)
		if code, _, stderr := runSweep(append(args, more...)...); code != 0 {
			t.Fatalf("%s: exit %d, %s", name, code, stderr)
		}
		return out
	}
	a1, a2 := slice("a1", "1/2"), slice("a2", "2/2")
	b2 := slice("b2", "2/2", "--mtt.walkers", "3")
	c3 := slice("c3", "3/3")
	notSlice := filepath.Join(dir, "whole")
	if code, _, _ := runSweep("--quiet", "--vary", "mkc_cache.ways=1,2", "--workload.accesses", "300", "--out", notSlice); code != 0 {
		t.Fatal("unsharded sweep failed")
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{out}, "want OUT_DIR and at least one SLICE_DIR"},
		{[]string{}, "want OUT_DIR and at least one SLICE_DIR"},
		{[]string{out, a1}, "point 1 (mkc_cache.ways=2) is in no slice given: it is of slice 2/2; given 1/2 in " + a1},
		{[]string{out, a1, a2, a2}, a2 + ": point 1 (mkc_cache.ways=2) is also in " + a2},
		{[]string{out, a1, c3}, c3 + ": point 2 (mkc_cache.ways=4) is also in " + a1},
		{[]string{out, a1, b2}, b2 + ": not a slice of the same sweep as " + a1 + ": its base configuration differs: mtt.walkers = 3, not 8"},
		{[]string{out, a1, notSlice}, notSlice + ": not a slice"},
		{[]string{out, a1, empty}, empty + ": not a sweep output: no sweep.json"},
		{[]string{out, filepath.Join(dir, "nosuch")}, "nosuch: no such file or directory"},
		{[]string{a1, a1, a2}, "OUT_DIR " + a1 + " is also a SLICE_DIR"},
	} {
		code, stdout, stderr := runCLI(append([]string{"merge"}, c.args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("merge %q made %s", c.args, out)
			os.RemoveAll(out)
		}
	}
	if code, _, stderr := runCLI("merge", "--no-summary", out, a2, a1); code != 0 || stderr != "" {
		t.Errorf("merge of the good slices: exit %d, %q", code, stderr)
	}
}

// TestCLISeeds: --seeds 1 writes what no --seeds does (wall time aside);
// --seeds 3 adds NAME_sd columns and mean ± sd; a bad --seeds, or more
// than one with --scenario, is refused with exit 2 naming the flag and
// the value, and nothing is written.
func TestCLISeeds(t *testing.T) {
	dir := t.TempDir()
	grid := []string{"--quiet", "--no-summary", "--vary", "mkc_cache.ways=1,4", "--workload.accesses", "1000"}
	outs := map[string]string{}
	for _, seeds := range []string{"", "1", "3"} {
		out := filepath.Join(dir, "s"+seeds)
		args := append(append([]string{}, grid...), "--out", out)
		if seeds != "" {
			args = append(args, "--seeds", seeds)
		}
		code, stdout, stderr := runSweep(args...)
		if code != 0 {
			t.Fatalf("--seeds %q: exit %d, %s", seeds, code, stderr)
		}
		outs[seeds] = stdout
	}
	a, b := filepath.Join(dir, "s"), filepath.Join(dir, "s1")
	for _, name := range listDir(t, a) {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		switch name {
		case "sweep.csv", "sweep.json":
			if dropWall(t, name, x) != dropWall(t, name, y) {
				t.Errorf("--seeds 1: %s differs:\n%s\n---\n%s", name, x, y)
			}
		case "sweep.md":
			cut := regexp.MustCompile(`[0-9.]+ \|\n`)
			if cut.ReplaceAllString(string(x), "\n") != cut.ReplaceAllString(string(y), "\n") {
				t.Errorf("--seeds 1: %s differs:\n%s\n---\n%s", name, x, y)
			}
		default:
			if !bytes.Equal(x, y) {
				t.Errorf("--seeds 1: %s differs", name)
			}
		}
	}
	csv3, _ := os.ReadFile(filepath.Join(dir, "s3", "sweep.csv"))
	if !bytes.Contains(csv3, []byte(",cycles,cycles_sd,")) || !strings.Contains(outs["3"], " ± ") {
		t.Errorf("--seeds 3: no cycles_sd column or no mean ± sd:\n%s", outs["3"])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "0"}, `--seeds "0": want a whole number of seeds, at least 1`},
		{[]string{"--seeds", "x"}, `--seeds "x": want a whole number of seeds, at least 1`},
		{[]string{"--seeds", "2", "--scenario", "../../examples/klm-nested.json"}, "--seeds 2: a scenario has no seed to vary"},
	} {
		out := filepath.Join(dir, "bad")
		code, _, stderr := runSweep(append([]string{"--vary", "mkc_cache.ways=1,2", "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", c.args, out)
		}
	}
}

// TestSweepResume: --resume keeps the points an earlier run of the same
// sweep left in --out and runs only the others; the output of another
// sweep is refused (exit 2), naming the directory and what differs, and
// left as it was.
func TestSweepResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"--quiet", "-vary", "mkc_cache.ways=1,2,4", "-out", out}, small...)
	if code, _, stderr := runSweep(args...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	first, _ := os.ReadFile(filepath.Join(out, "sweep.json"))
	code, _, stderr := runSweep(append(args, "--resume")...)
	if code != 0 || !strings.Contains(stderr, "3 points, 3 of them already in "+out+" (--resume)") {
		t.Fatalf("resume: exit %d, stderr %q", code, stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "sweep.json")); !bytes.Equal(again, first) {
		t.Error("resuming a complete sweep changed its rows")
	}
	other := append([]string{"--quiet", "--resume", "-vary", "mkc_cache.ways=1,2", "-out", out}, small...)
	code, _, stderr = runSweep(other...)
	if code != 2 || !strings.Contains(stderr, "--resume: "+out+": not an output of the same sweep: its values of mkc_cache.ways are 1,2,4, not 1,2") {
		t.Errorf("resume from another sweep: exit %d, stderr %q", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "sweep.json")); !bytes.Equal(after, first) {
		t.Error("a refused --resume changed the output")
	}
}

// TestSweepFile: 'mkeysim sweep SWEEP.toml' runs the sweep the file
// describes (examples/sweeps), flags winning over it; --config beside a
// sweep file, and a bad file, exit 2 naming the file.
func TestSweepFile(t *testing.T) {
	const file = "../../examples/sweeps/replacement-loop.toml"
	out := filepath.Join(t.TempDir(), "loop")
	code, stdout, stderr := runSweep(file, "--quiet", "--no-summary", "--workload.accesses", "6000", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| mtt.cache.replacement |", "| lru ", "| plru ", "| nru ", "| random "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	recs := readCSVFile(t, filepath.Join(out, "sweep.csv"))
	col := slices.Index(recs[0], "mtt_cache.hit_rate")
	if len(recs) != 5 || col < 0 || recs[1][col] != "0" {
		t.Errorf("sweep.csv: %d rows, LRU hit rate %q (want 4 rows, 0: the loop is larger than the cache)", len(recs)-1, recs[1][col])
	}
	// --vary replaces the file's axes.
	code, _, stderr = runSweep(file, "--quiet", "--no-summary", "--workload.accesses", "2000", "--vary", "mtt.cache.replacement=lru,random", "--out", out)
	if recs := readCSVFile(t, filepath.Join(out, "sweep.csv")); code != 0 || len(recs) != 3 {
		t.Errorf("--vary over the file: exit %d, %d rows: %s", code, len(recs)-1, stderr)
	}
	code, _, stderr = runSweep(file, "--config", file, "--out", out)
	if code != 2 || !strings.Contains(stderr, "the sweep file is the configuration") {
		t.Errorf("--config with a sweep file: exit %d, %q", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[sweep]\nvary = [\"mtt.cache.entries=3\"]\n"), 0o644)
	code, _, stderr = runSweep(bad, "--out", out)
	if code != 2 || !strings.Contains(stderr, bad+": [sweep] vary: point mtt.cache.entries=3") {
		t.Errorf("bad point in a sweep file: exit %d, %q", code, stderr)
	}
	code, _, stderr = runSweep(file, file)
	if code != 2 || !strings.Contains(stderr, "at most one sweep file") {
		t.Errorf("two sweep files: exit %d, %q", code, stderr)
	}
}

// readCSVFile reads a CSV file's records.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
