package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plotSweep runs the small sweep of the brief into dir/sw and returns it.
func plotSweep(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "sw")
	if code, _, stderr := runSweep("--quiet", "--no-summary", "--vary", "mkc_cache.ways=1,2,4", "--workload.accesses", "2000", "--out", out); code != 0 {
		t.Fatalf("sweep: exit %d, %s", code, stderr)
	}
	return out
}

// TestCLIPlot: 'mkeysim plot' redraws a figure of a sweep from its
// directory or its sweep.json, with and without a reference, as a PNG,
// and says what it drew.
func TestCLIPlot(t *testing.T) {
	dir := t.TempDir()
	sw := plotSweep(t, dir)
	ref := filepath.Join(dir, "hw.csv")
	os.WriteFile(ref, []byte("ways,hit_rate\n1,0.5\n2,0.7\n4,0.85\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{sw, "--x", "mkc_cache.ways", "--y", "mkc_hit_rate"}, "mkc_hit_rate against mkc_cache.ways, 1 line(s); wrote "},
		{[]string{filepath.Join(sw, "sweep.json"), "--x", "mkc_cache.ways", "--y", "latency_ns.p99", "--reference", ref}, "latency_ns.p99 against mkc_cache.ways, 1 line(s) and hw.csv (3 points); wrote "},
	} {
		out := filepath.Join(dir, "p.png")
		os.Remove(out)
		code, stdout, stderr := runCLI(append(append([]string{"plot"}, c.args...), "--out", out)...)
		if code != 0 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("plot %q: exit %d, stdout %q, stderr %q; want %q", c.args, code, stdout, stderr, c.want)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// One panel, 4.2 in high under a 0.35 in banner at 96 dpi: 437
		// pixels; 6 in (576 pixels) wide, and the legend's width.
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil || img.Bounds().Dx() < 576 || img.Bounds().Dy() != 437 {
			t.Errorf("plot %q: not a PNG of one panel: %v", c.args, err)
		}
	}
	if got := listDir(t, dir); strings.Join(got, " ") != "hw.csv p.png sw" {
		t.Errorf("left %v", got)
	}
}

// TestCLIPlotErrors: bad input ends with exit 2, nothing on standard
// output, an error naming the file and line or the value and the
// choices, and nothing written.
func TestCLIPlotErrors(t *testing.T) {
	dir := t.TempDir()
	sw := plotSweep(t, dir)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	numbers := write("numbers.csv", "1,2\n3,4\n")
	word := write("word.csv", "x,y\n1,2\n2,x\n")
	one := write("one.csv", "x,y\n1,2\n")
	out := filepath.Join(dir, "p.png")
	ok := []string{sw, "--x", "mkc_cache.ways", "--y", "cycles", "--out", out}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--x", "mkc_cache.ways", "--y", "cycles", "--out", out}, "want RESULTS (a sweep's output directory or its sweep.json), got 0 argument(s)"},
		{[]string{sw, "--y", "cycles", "--out", out}, "mkeysim plot: want --x"},
		{[]string{sw, "--x", "mkc_cache.ways", "--out", out}, "mkeysim plot: want --y"},
		{[]string{sw, "--x", "mkc_cache.ways", "--y", "cycles"}, "mkeysim plot: want --out"},
		{[]string{sw, "--x", "ways", "--y", "cycles", "--out", out}, `--x "ways": not a parameter this sweep varies; the choices are mkc_cache.ways`},
		{[]string{sw, "--x", "mkc_cache.ways", "--y", "hits", "--out", out}, `--y "hits": not a figure of the sweep; the choices are cycles, simulated_ns, `},
		{[]string{sw, "--x", "mkc_cache.ways", "--y", "cycles", "--group", "mtt.walkers", "--out", out}, `--group "mtt.walkers": not a parameter this sweep varies`},
		{append(ok, "--reference", filepath.Join(dir, "nosuch.csv")), "--reference " + filepath.Join(dir, "nosuch.csv") + ": no such file or directory"},
		{append(ok, "--reference", numbers), "--reference " + numbers + ":1: want a header naming the two columns"},
		{append(ok, "--reference", word), "--reference " + word + `:3: y "x" is not a number`},
		{append(ok, "--reference", one), "--reference " + one + ": 1 line(s) of x,y; want at least 2"},
		{[]string{dir, "--x", "mkc_cache.ways", "--y", "cycles", "--out", out}, dir + ": not a sweep output: no sweep.json"},
		{[]string{filepath.Join(dir, "nosuch"), "--x", "mkc_cache.ways", "--y", "cycles", "--out", out}, "nosuch: no such file or directory"},
		{[]string{sw, "--x", "mkc_cache.ways", "--y", "cycles", "--out", filepath.Join(dir, "no", "p.png")}, "no directory " + filepath.Join(dir, "no")},
		{[]string{sw, "--x", "mkc_cache.ways", "--y", "cycles", "--out", dir}, "a directory; want a file name"},
	} {
		code, stdout, stderr := runCLI(append([]string{"plot"}, c.args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("plot %q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
		if got := listDir(t, dir); len(got) != 4 {
			t.Errorf("plot %q: left %v", c.args, got)
		}
	}
}
