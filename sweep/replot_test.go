package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readBack runs the sweep of specs, writes its sweep.json into a fresh
// directory and reads it back with Read, as 'mkeysim plot' does.
func readBack(t *testing.T, shard Shard, specs ...string) (run, read *Result, dir string) {
	t.Helper()
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, specs...), Shard: shard}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := WriteFiles(dir, []File{{Name: "sweep.json", Data: res.JSON()}}, nil); err != nil {
		t.Fatal(err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return res, back, dir
}

// runValue is the figure name of the run's row where every axis has the
// values given.
func runValue(t *testing.T, r *Result, name string, params map[string]string) (float64, bool) {
	t.Helper()
	for _, row := range r.Rows {
		match := true
		for _, p := range row.Params {
			if params[p.Name] != p.Text {
				match = false
			}
		}
		if match {
			return row.Value(name)
		}
	}
	t.Fatalf("no row %v", params)
	return 0, false
}

// TestLines: the series drawn are one per combination of the other axes
// (the group first), each with the run's values at every x, labelled by
// the other axes' values; a file path reads as its directory.
func TestLines(t *testing.T) {
	run, back, dir := readBack(t, Shard{}, "mkc_cache.ways=1,2,4", "mtt.walkers=1,2")
	fromFile, err := Read(filepath.Join(dir, "sweep.json"))
	if err != nil || len(fromFile.Rows) != 6 {
		t.Fatalf("Read(sweep.json): %v", err)
	}
	for _, c := range []struct {
		x, y, group string
		labels      []string
		xs          []float64
		other       string
	}{
		{"mkc_cache.ways", "mkc_hit_rate", "", []string{"mtt.walkers=1", "mtt.walkers=2"}, []float64{1, 2, 4}, "mtt.walkers"},
		{"model.mkc_cache.ways", "latency_ns.p99", "mtt.walkers", []string{"mtt.walkers=1", "mtt.walkers=2"}, []float64{1, 2, 4}, "mtt.walkers"},
		{"mtt.walkers", "throughput_maps", "", []string{"mkc_cache.ways=1", "mkc_cache.ways=2", "mkc_cache.ways=4"}, []float64{1, 2}, "mkc_cache.ways"},
		{"mtt.walkers", "cycles", "mkc_cache.ways", []string{"mkc_cache.ways=1", "mkc_cache.ways=2", "mkc_cache.ways=4"}, []float64{1, 2}, "mkc_cache.ways"},
	} {
		l, err := back.Lines(c.x, c.y, c.group)
		if err != nil {
			t.Fatalf("%s vs %s: %v", c.y, c.x, err)
		}
		var labels []string
		for _, s := range l.Series {
			labels = append(labels, s.Label)
			if !reflect.DeepEqual(s.X, c.xs) {
				t.Errorf("%s vs %s, %s: x %v; want %v", c.y, c.x, s.Label, s.X, c.xs)
			}
			for i, x := range s.X {
				want, ok := runValue(t, run, c.y, map[string]string{
					strings.TrimPrefix(c.x, "model."): strconv.FormatFloat(x, 'f', -1, 64),
					c.other:                           strings.TrimPrefix(s.Label, c.other+"="),
				})
				if !ok || s.Y[i] != want {
					t.Errorf("%s vs %s, %s, x=%g: y %g; the run's %g (%v)", c.y, c.x, s.Label, x, s.Y[i], want, ok)
				}
			}
		}
		if !reflect.DeepEqual(labels, c.labels) {
			t.Errorf("%s vs %s (group %q): lines %q; want %q", c.y, c.x, c.group, labels, c.labels)
		}
	}
	l, err := back.Lines("mkc_cache.ways", "mtt_hit_rate", "")
	if err != nil || l.Unit != "fraction" || l.X.Name != "mkc_cache.ways" {
		t.Errorf("unit %q, x %q, %v", l.Unit, l.X.Name, err)
	}
	l, err = back.Lines("mkc_cache.ways", "latency_p99_ns", "")
	if err != nil || l.Unit != "ns" {
		t.Errorf("latency_p99_ns: unit %q, %v", l.Unit, err)
	}
}

// TestLinesThreeAxes: with --group, the group's values vary slowest in
// the legend and lead every label; one axis alone gives one unlabelled
// line; a slice's rows give the points it holds.
func TestLinesThreeAxes(t *testing.T) {
	_, back, _ := readBack(t, Shard{}, "mkc_cache.ways=1,2", "mtt.walkers=1,2", "pcie.link_latency_cycles=25,75")
	l, err := back.Lines("mkc_cache.ways", "cycles", "pcie.link_latency_cycles")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, s := range l.Series {
		labels = append(labels, s.Label)
	}
	want := []string{
		"pcie.link_latency_cycles=25, mtt.walkers=1", "pcie.link_latency_cycles=25, mtt.walkers=2",
		"pcie.link_latency_cycles=75, mtt.walkers=1", "pcie.link_latency_cycles=75, mtt.walkers=2",
	}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("lines %q; want %q", labels, want)
	}

	_, one, _ := readBack(t, Shard{}, "workload.footprint_bytes=1048576,4194304")
	l, err = one.Lines("workload.footprint_bytes", "mkc_hit_rate", "")
	if err != nil || len(l.Series) != 1 || l.Series[0].Label != "" || !reflect.DeepEqual(l.Series[0].X, []float64{1 << 20, 1 << 22}) {
		t.Errorf("one axis: %+v, %v", l, err)
	}

	_, sl, _ := readBack(t, Shard{Index: 2, Count: 2}, "mkc_cache.ways=1,2,4", "mtt.walkers=1,2")
	// Points 1, 3, 5: walkers=2 at every ways value.
	l, err = sl.Lines("mkc_cache.ways", "cycles", "")
	if err != nil || len(l.Series) != 1 || l.Series[0].Label != "mtt.walkers=2" || len(l.Series[0].X) != 3 {
		t.Errorf("slice 2/2: %+v, %v", l, err)
	}
}

// TestLinesErrors: an unknown parameter or figure is an InputError naming
// it and listing the choices; so are a group on the x axis and too many
// lines.
func TestLinesErrors(t *testing.T) {
	_, back, _ := readBack(t, Shard{}, "mkc_cache.ways=1,2", "mtt.walkers=1,2")
	for _, c := range []struct{ x, y, group, want string }{
		{"ways", "cycles", "", `--x "ways": not a parameter this sweep varies; the choices are mkc_cache.ways, mtt.walkers`},
		{"mkc_cache.ways", "hit_rate", "", `--y "hit_rate": not a figure of the sweep; the choices are cycles, simulated_ns,`},
		{"mkc_cache.ways", "latency_histogram", "", `--y "latency_histogram": not a figure`},
		{"mkc_cache.ways", "cycles", "mtt.walker", `--group "mtt.walker": not a parameter this sweep varies; the choices are mkc_cache.ways, mtt.walkers`},
		{"mkc_cache.ways", "cycles", "mkc_cache.ways", `--group "mkc_cache.ways": the x axis itself; the other choices are mtt.walkers`},
	} {
		_, err := back.Lines(c.x, c.y, c.group)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Lines(%q, %q, %q): %v; want %q", c.x, c.y, c.group, err, c.want)
		}
	}
	_, many, _ := readBack(t, Shard{}, "mkc_cache.ways=1,2", "workload.seed=1..13")
	if _, err := many.Lines("mkc_cache.ways", "cycles", ""); err == nil || !strings.Contains(err.Error(), "13 lines (one per combination of workload.seed), at most 12") {
		t.Errorf("13 lines: %v", err)
	}
}

// TestReadReference: a measured curve is read with its comments and
// spaces; every bad file is refused naming the file, the line and why.
func TestReadReference(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	good := write("hw.csv", "# measured on a testbed\nwindow_bytes, throughput_maps\n4096, 30.5\n8192,29\n1e6,2.5e1\n")
	ref, err := ReadReference(good)
	if err != nil || ref.Name != "hw.csv" || !reflect.DeepEqual(ref.X, []float64{4096, 8192, 1e6}) || !reflect.DeepEqual(ref.Y, []float64{30.5, 29, 25}) {
		t.Errorf("%+v, %v", ref, err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"numbers.csv", "1,2\n3,4\n5,6\n", "numbers.csv:1: want a header naming the two columns"},
		{"wide.csv", "x,y,z\n1,2,3\n", "wide.csv:1: 3 fields; want 2 on every header (x,y)"},
		{"short.csv", "x,y\n1,2\n3\n", "short.csv:3: 1 fields; want 2 on every line (x,y)"},
		{"word.csv", "x,y\n1,2\n3,fast\n", `word.csv:3: y "fast" is not a number`},
		{"nan.csv", "x,y\n1,2\nNaN,4\n", `nan.csv:3: x "NaN" is not a number`},
		{"one.csv", "x,y\n1,2\n", "one.csv: 1 line(s) of x,y; want at least 2"},
		{"empty.csv", "", "empty.csv: empty; want a header line and at least 2 lines of x,y"},
		{"quote.csv", "x,y\n1,\"2\n", "quote.csv:2: "},
	} {
		_, err := ReadReference(write(c.name, c.text))
		var re *ReferenceError
		if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), filepath.Join(dir, c.want)) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	if _, err := ReadReference(filepath.Join(dir, "nosuch.csv")); err == nil || err.Error() != filepath.Join(dir, "nosuch.csv")+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}

// TestDraw: the plot is a PNG of one panel and its legend, with or
// without a reference; a reference an axis cannot place is refused.
func TestDraw(t *testing.T) {
	_, back, _ := readBack(t, Shard{}, "mkc_cache.ways=1,2,4,8", "mtt.walkers=1,2")
	l, err := back.Lines("mkc_cache.ways", "throughput_maps", "")
	if err != nil {
		t.Fatal(err)
	}
	ref := &Reference{Name: "hw.csv", X: []float64{1, 16}, Y: []float64{10, 20}}
	wantH := int(math.Ceil(float64((panelH + bannerH) / 72 * dpi)))
	for _, r := range []*Reference{nil, ref} {
		data, err := l.Draw(back.Workload, r)
		if err != nil {
			t.Fatal(err)
		}
		checkPNG(t, "plot", data, 0, 0)
		img, _ := png.Decode(bytes.NewReader(data))
		if b := img.Bounds(); b.Dy() != wantH || b.Dx() <= int(float64(panelW)/72*dpi) {
			t.Errorf("reference %v: %dx%d; want %d high and wider than a panel (%d)", r != nil, b.Dx(), b.Dy(), wantH, int(float64(panelW)/72*dpi))
		}
	}
	bad := &Reference{Name: "neg.csv", X: []float64{0, 16}, Y: []float64{10, 20}}
	if _, err := l.Draw("", bad); err == nil || !strings.Contains(err.Error(), "neg.csv: x = 0 on a log2 axis") {
		t.Errorf("x = 0 on a log axis: %v", err)
	}
	_, cat, _ := readBack(t, Shard{}, "mkc_cache.replacement=lru,random")
	lc, err := cat.Lines("mkc_cache.replacement", "cycles", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Draw("", ref); err == nil || !strings.Contains(err.Error(), "values that are not numbers") {
		t.Errorf("reference on categories: %v", err)
	}
}

// TestNormalize: each line divided by its first value, spreads too; a
// line that starts at 0 is refused naming it.
func TestNormalize(t *testing.T) {
	l := &Lines{X: Axis{Name: "workload.footprint_bytes"}, Y: "throughput_maps", Unit: "M accesses/s",
		Series: []Series{{Label: "a", X: []float64{1, 2, 4}, Y: []float64{50, 25, 5}, SD: []float64{5, 1, 0}},
			{Label: "b", X: []float64{1, 2}, Y: []float64{2, 3}}}}
	if err := l.Normalize(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(l.Series[0].Y, l.Series[0].SD, l.Series[1].Y) != "[1 0.5 0.1] [0.1 0.02 0] [1 1.5]" || !strings.Contains(l.Unit, "first point") {
		t.Errorf("normalised %+v, unit %q", l.Series, l.Unit)
	}
	z := &Lines{X: Axis{Name: "x"}, Y: "y", Series: []Series{{Label: "walkers=1", X: []float64{4}, Y: []float64{0}}}}
	if err := z.Normalize(); err == nil || !strings.Contains(err.Error(), "walkers=1 is 0 at the first point (x = 4)") {
		t.Errorf("a line starting at 0: %v", err)
	}
}
