package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
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
		{[]string{"-vary", ok, "-out", out, "extra.json"}, []string{`unexpected argument "extra.json"`}},
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
