package sweep

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"
	"testing"
)

// checkPNG decodes data as a PNG of at least minW x minH pixels that is
// not blank.
func checkPNG(t *testing.T, name string, data []byte, minW, minH int) {
	t.Helper()
	if len(data) < 8000 {
		t.Errorf("%s: %d bytes, too small to hold a plot", name, len(data))
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b := img.Bounds()
	if b.Dx() < minW || b.Dy() < minH {
		t.Errorf("%s: %dx%d; want at least %dx%d", name, b.Dx(), b.Dy(), minW, minH)
	}
	colors := map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	if len(colors) < 4 {
		t.Errorf("%s: %d colours: blank", name, len(colors))
	}
}

func TestPlots(t *testing.T) {
	for _, c := range []struct {
		specs  []string
		panels int // panels of hit_rates.png
	}{
		{[]string{"mkc_cache.ways=1,2,4,8"}, 1},                  // log2 axis
		{[]string{"pcie.link_latency_cycles=25,75"}, 1},          // linear axis
		{[]string{"mkc_cache.replacement=lru,random"}, 1},        // categories
		{[]string{"mkc_cache.ways=1,2,4", "mtt.walkers=2,8"}, 3}, // one line per walkers value
		{[]string{"mkc_cache.ways=1", "mkc_cache.sets=4,8"}, 3},  // one x value
		{[]string{"mtt.walkers=2,4", "mkc_cache.ways=1,2", "pcie.split_on_all_rcb=false,true"}, 3},
	} {
		name := strings.Join(c.specs, " ")
		s := &Sweep{Base: smallConfig(), Axes: mustVary(t, c.specs...)}
		res, err := s.Run(Options{})
		if err != nil {
			t.Fatal(err)
		}
		files, note, err := res.Plots()
		if err != nil || note != "" {
			t.Fatalf("%s: %v %q", name, err, note)
		}
		if len(files) != len(PlotFiles) {
			t.Fatalf("%s: %d plots; want %d", name, len(files), len(PlotFiles))
		}
		for i, f := range files {
			if f.Name != PlotFiles[i] {
				t.Errorf("%s: plot %d is %s; want %s", name, i, f.Name, PlotFiles[i])
			}
			w := 500
			if f.Name == "hit_rates.png" {
				w *= c.panels
			}
			checkPNG(t, name+": "+f.Name, f.Data, w, 350)
		}
	}
}

// TestPlotsTooManyLines: more than MaxSeries lines per plot give tables
// only, and say so.
func TestPlotsTooManyLines(t *testing.T) {
	var vals []string
	for i := range MaxSeries + 1 {
		vals = append(vals, fmt.Sprint(10+i))
	}
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1", "pcie.link_latency_cycles="+strings.Join(vals, ","))}
	s.Base.Workload.Accesses = 100
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, note, err := res.Plots()
	if err != nil || len(files) != 0 || !strings.Contains(note, "13 lines") {
		t.Errorf("%d files, note %q, %v", len(files), note, err)
	}
}

func TestXAxis(t *testing.T) {
	for _, c := range []struct {
		values []string
		log    bool
		ticks  int
	}{
		{[]string{"1", "2", "4", "8"}, true, 4},
		{[]string{"4", "8"}, false, 2},         // too few for a log axis
		{[]string{"16", "32", "64"}, false, 3}, // a span under 8x
		{[]string{"1", "3", "9"}, false, 3},
		{[]string{"lru", "random"}, false, 2},
	} {
		x := newXAxis(Axis{Name: "mkc_cache.ways", Values: c.values})
		if x.log != c.log || len(x.ticks) != c.ticks {
			t.Errorf("%v: log %v, %d ticks; want %v, %d", c.values, x.log, len(x.ticks), c.log, c.ticks)
		}
	}
	var many []string
	for v := 1; v <= 1<<20; v *= 2 {
		many = append(many, fmt.Sprint(v))
	}
	x := newXAxis(Axis{Name: "x", Values: many})
	labels := 0
	for _, t := range x.ticks {
		if t.Label != "" {
			labels++
		}
	}
	if !x.log || len(x.ticks) != 21 || labels < 5 || labels > 11 {
		t.Errorf("powers of two to 2^20: log %v, %d ticks, %d labelled", x.log, len(x.ticks), labels)
	}
}

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{{4096, "4 KiB"}, {2097152, "2 MiB"}, {1 << 30, "1 GiB"}, {3 << 30, "3 GiB"}, {1536, "1536 B"}, {3072, "3 KiB"}, {1000, "1000 B"}, {0, "0 B"}, {1.5, "1.5"}, {1 << 62, "4 EiB"}} {
		if got := byteSize(tc.f); got != tc.want {
			t.Errorf("byteSize(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
