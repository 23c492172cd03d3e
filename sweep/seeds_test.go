package sweep

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// seededSweep is a tiny sweep (1000 accesses) of two points, checked.
func seededSweep(t *testing.T, seeds int) Sweep {
	base := smallConfig()
	base.Workload.Accesses = 1000
	base.Workload.Seed = 7
	return Sweep{Base: base, Axes: mustVary(t, "mkc_cache.ways=1,4"), Check: true, Seeds: seeds}
}

// TestSeedsMeanSD: with 3 seeds, each row's figures are the mean and the
// sample standard deviation of those of three single-seed runs of the
// point, with seeds s, s+1 and s+2; mismatches add up.
func TestSeedsMeanSD(t *testing.T) {
	s := seededSweep(t, 3)
	res, err := s.Run(Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Seeds != 3 || len(res.Rows) != 2 || !strings.Contains(res.Workload, "seeds 7..9") {
		t.Fatalf("seeds %d, %d rows, workload %q", res.Seeds, len(res.Rows), res.Workload)
	}
	spread := false
	for i, p := range s.Points() {
		var runs []Row
		for k := range 3 {
			one := seededSweep(t, 1)
			one.Base.Workload.Seed += int64(k)
			r, err := one.RunPoint(p)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		row := &res.Rows[i]
		bad := 0
		for _, r := range runs {
			bad += *r.Mismatches
		}
		if row.Mismatches == nil || *row.Mismatches != bad {
			t.Errorf("point %d: mismatches %v, want %d", i, row.Mismatches, bad)
		}
		for _, f := range runs[0].Figures {
			if !f.Scalar() || f.Name == "wall_seconds" || f.Name == "cycles_per_second" {
				continue
			}
			var xs []float64
			for _, r := range runs {
				if v, ok := r.Value(f.Name); ok {
					xs = append(xs, v)
				}
			}
			mean, sd := stat.MeanStdDev(xs, nil)
			got, ok := row.Value(f.Name)
			if len(xs) == 0 {
				if ok {
					t.Errorf("point %d: %s = %v, want undefined", i, f.Name, got)
				}
				continue
			}
			gotSD, okSD := row.SDValue(f.Name)
			if !ok || !okSD || math.Abs(got-mean) > 1e-9*math.Abs(mean) || math.Abs(gotSD-sd) > 1e-9*math.Abs(sd) {
				t.Errorf("point %d: %s = %v ± %v (%v %v), want %v ± %v of %v", i, f.Name, got, gotSD, ok, okSD, mean, sd, xs)
			}
			if f.Name == "cycles" && sd > 0 {
				spread = true
			}
		}
	}
	if !spread {
		t.Error("cycles the same with every seed: the seeds were not varied")
	}
	// The files: NAME_sd after every figure and alias.
	csvHead := strings.SplitN(string(res.CSV()), "\n", 2)[0]
	for _, c := range []string{",cycles,cycles_sd,", ",mkc_hit_rate,mkc_hit_rate_sd,", ",latency_ns.p99,latency_ns.p99_sd,"} {
		if !strings.Contains(csvHead, c) {
			t.Errorf("CSV header lacks %s: %s", c, csvHead)
		}
	}
	if js := res.JSON(); !bytes.Contains(js, []byte(`"seeds": 3`)) || !bytes.Contains(js, []byte(`"cycles_sd": `)) {
		t.Errorf("sweep.json lacks seeds or cycles_sd")
	}
	if md := string(res.Markdown()); !strings.Contains(md, " ± ") || !strings.Contains(md, "mean ± sample standard deviation of 3 seeds") {
		t.Errorf("Markdown without mean ± sd:\n%s", md)
	}
	if _, _, err := res.Plots(); err != nil {
		t.Errorf("plots: %v", err)
	}
}

// TestSeedsOne: Seeds 1 is a sweep without seeds, byte for byte (wall
// time aside).
func TestSeedsOne(t *testing.T) {
	s0 := seededSweep(t, 0)
	a, err := s0.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := seededSweep(t, 1)
	b, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Rows {
		for k, f := range b.Rows[i].Figures {
			if f.Name == "wall_seconds" || f.Name == "cycles_per_second" {
				b.Rows[i].Figures[k] = a.Rows[i].Figures[k]
			}
		}
	}
	if !bytes.Equal(a.CSV(), b.CSV()) || !bytes.Equal(a.JSON(), b.JSON()) || !bytes.Equal(a.Markdown(), b.Markdown()) {
		t.Errorf("Seeds 1 differs from no seeds:\n%s\n%s", a.Markdown(), b.Markdown())
	}
}

// TestMergeSeeds: slices of a sweep of 2 seeds merge into the rows of the
// unsharded run (wall time aside); a slice of another number of seeds is
// refused.
func TestMergeSeeds(t *testing.T) {
	s := seededSweep(t, 2)
	s.Axes = mustVary(t, "mkc_cache.ways=1,2,4")
	whole, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	dirs := writeSlices(t, s, 2)
	merged, err := Merge(readSlices(t, dirs), dirs)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Seeds != 2 {
		t.Errorf("merged seeds %d", merged.Seeds)
	}
	for i := range merged.Rows {
		for k, f := range merged.Rows[i].Figures {
			if f.Name == "wall_seconds" || f.Name == "cycles_per_second" {
				merged.Rows[i].Figures[k], merged.Rows[i].SD[k] = whole.Rows[i].Figures[k], whole.Rows[i].SD[k]
			}
		}
	}
	if !bytes.Equal(merged.CSV(), whole.CSV()) || !bytes.Equal(merged.JSON(), whole.JSON()) || !bytes.Equal(merged.Markdown(), whole.Markdown()) {
		t.Errorf("merged differs:\n%s\nwant\n%s", merged.Markdown(), whole.Markdown())
	}
	p1, _, err1 := merged.Plots()
	p2, _, err2 := whole.Plots()
	if err1 != nil || err2 != nil || !reflect.DeepEqual(p1, p2) {
		t.Errorf("merged plots differ (%v, %v)", err1, err2)
	}

	one := s
	one.Seeds = 1
	other := writeSlices(t, one, 2)
	_, err = Merge(readSlices(t, []string{dirs[0], other[1]}), []string{dirs[0], other[1]})
	if err == nil || !strings.Contains(err.Error(), "it ran --seeds 1, not --seeds 2") {
		t.Errorf("merging slices of 2 and 1 seeds: %v", err)
	}
}

// TestSeedsScenario: a scenario has no seed: more than one is refused.
func TestSeedsScenario(t *testing.T) {
	s := Sweep{Base: smallConfig(), Axes: mustVary(t, "klm.contexts=12,16"), Scenario: []byte("{}"), ScenarioName: "k.json", Seeds: 2}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "2 seeds: k.json has no seed") {
		t.Errorf("Validate: %v", err)
	}
}

// TestLinesSeeds: 'mkeysim plot' of a sweep of several seeds draws each
// point's standard deviation over the seeds as its error bar; of one
// seed, none.
func TestLinesSeeds(t *testing.T) {
	for _, seeds := range []int{1, 2} {
		s := seededSweep(t, seeds)
		res, err := s.Run(Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		l, err := res.Lines("mkc_cache.ways", "mkc_hit_rate", "")
		if err != nil {
			t.Fatal(err)
		}
		ser := l.Series[0]
		if seeds == 1 {
			if ser.SD != nil {
				t.Errorf("one seed: error bars %v", ser.SD)
			}
			continue
		}
		if len(ser.SD) != len(ser.Y) {
			t.Fatalf("%d seeds: %d error bars for %d points", seeds, len(ser.SD), len(ser.Y))
		}
		for i := range res.Rows {
			want, _ := res.Rows[i].SDValue("mkc_cache.hit_rate")
			if ser.SD[i] != want {
				t.Errorf("%d seeds: point %d's error bar %v, want the row's sd %v", seeds, i, ser.SD[i], want)
			}
		}
		if _, err := l.Draw("", nil); err != nil {
			t.Fatal(err)
		}
	}
}
