package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mkeysim/config"
	"mkeysim/sweep"
)

// small runs a sweep of a short workload over the axes given and writes
// its sweep.json in a fresh directory, which it returns.
func small(t *testing.T, specs ...string) string {
	t.Helper()
	c := config.Default()
	c.Workload.Keys, c.Workload.Accesses, c.Workload.HotKeys = 64, 500, 16
	s := &sweep.Sweep{Base: c}
	for _, v := range specs {
		a, err := sweep.ParseVary(v)
		if err != nil {
			t.Fatal(err)
		}
		s.Axes = append(s.Axes, a)
	}
	res, err := s.Run(sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := sweep.WriteFiles(dir, []sweep.File{{Name: "sweep.json", Data: res.JSON()}}, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOverlay: the lines of two sweeps over the same x go into one PNG;
// sweeps over other x values, and bad arguments, are refused with exit
// status 2 and nothing written.
func TestOverlay(t *testing.T) {
	a := small(t, "mkc_cache.ways=1,2", "mtt.walkers=1,2")
	b := small(t, "mkc_cache.ways=1,2")
	out := filepath.Join(t.TempDir(), "o.png")
	var stderr bytes.Buffer
	if code := run([]string{"--x", "mkc_cache.ways", "--y", "cycles", "--out", out, a + "=A:mtt.walkers", b + "=B"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("the figure is not a PNG: %v", err)
	}

	other := small(t, "mkc_cache.ways=1,4")
	bad := filepath.Join(t.TempDir(), "bad.png")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--x", "mkc_cache.ways", "--y", "cycles", "--out", bad, a}, "usage"},
		{[]string{"--x", "mkc_cache.ways", "--y", "cycles", "--out", bad, b, other}, "over [1 4]"},
		{[]string{"--x", "mkc_cache.ways", "--y", "cycles", "--out", bad, b, filepath.Join(t.TempDir(), "none")}, "none"},
		{[]string{"--x", "nothing", "--y", "cycles", "--out", bad, b, b}, "nothing"},
	} {
		stderr.Reset()
		if code := run(c.args, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%v: wrote %s", c.args, bad)
		}
	}
}
