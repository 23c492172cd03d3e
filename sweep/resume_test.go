package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// writeOutput writes res's sweep.json in a new directory, as a sweep's
// --out, and returns the directory.
func writeOutput(t *testing.T, res *Result) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sweep.json"), res.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// withoutTimes is withoutWall without the spreads of the wall figures too
// (a sweep of several seeds).
func withoutTimes(t *testing.T, data []byte) [][]string {
	recs := withoutWall(t, data)
	for _, name := range []string{"wall_seconds_sd", "cycles_per_second_sd"} {
		if col := slices.Index(recs[0], name); col >= 0 {
			for i := range recs {
				recs[i] = append(recs[i][:col:col], recs[i][col+1:]...)
			}
		}
	}
	return recs
}

// TestResume: a sweep interrupted after some points, resumed from what it
// wrote, runs only the other points and gives the rows of a run of the
// whole grid, whole or sliced, with one seed or several.
func TestResume(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Sweep
	}{
		{"grid", Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2,4", "mtt.walkers=1,2"), Check: true}},
		{"seeds", Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2"), Seeds: 2}},
		{"slice", Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2,4,8"), Shard: Shard{2, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, err := tc.s.Run(Options{})
			if err != nil {
				t.Fatal(err)
			}
			// What an interruption after every other point leaves.
			part := *whole
			part.Rows, part.Stopped = nil, true
			for i, r := range whole.Rows {
				if i%2 == 0 {
					part.Rows = append(part.Rows, r)
				}
			}
			dir := writeOutput(t, &part)
			prev, err := Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			done, err := tc.s.Resume(prev, dir)
			if err != nil {
				t.Fatal(err)
			}
			ran := 0
			res, err := tc.s.Run(Options{Done: done, Progress: func(int, int) { ran++ }})
			if err != nil {
				t.Fatal(err)
			}
			if want := len(whole.Rows) - len(part.Rows); ran != want {
				t.Errorf("resumed sweep ran %d points, want %d", ran, want)
			}
			if got, want := withoutTimes(t, res.CSV()), withoutTimes(t, whole.CSV()); !reflect.DeepEqual(got, want) {
				t.Errorf("resumed CSV:\n%v\nwant\n%v", got, want)
			}
			// A complete output resumes to itself, running nothing.
			prev, _ = Read(writeOutput(t, res))
			done, _ = tc.s.Resume(prev, dir)
			ran = 0
			again, err := tc.s.Run(Options{Done: done, Progress: func(int, int) { ran++ }})
			if err != nil || ran != 0 || string(again.CSV()) != string(res.CSV()) {
				t.Errorf("resuming a complete output ran %d points (%v)", ran, err)
			}
		})
	}
}

// TestResumeRefusesAnotherSweep: resuming from the output of a different
// sweep names the directory and what differs.
func TestResumeRefusesAnotherSweep(t *testing.T) {
	base := Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2"), Check: true}
	res, err := base.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeOutput(t, res)
	prev, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	other := smallConfig()
	other.Model.PCIe.Tags = 7
	for _, tc := range []struct {
		s    Sweep
		want string
	}{
		{Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2,4"), Check: true}, "its values of mkc_cache.ways are 1,2, not 1,2,4"},
		{Sweep{Base: smallConfig(), Axes: mustVary(t, "mtt.walkers=1,2"), Check: true}, "it varies mkc_cache.ways, not mtt.walkers"},
		{Sweep{Base: other, Axes: mustVary(t, "mkc_cache.ways=1,2"), Check: true}, "pcie.tags = 32, not 7"},
		{Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2"), Check: false}, "checked against the golden model"},
		{Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2"), Check: true, Seeds: 3}, "seeds"},
		{Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2"), Check: true, Shard: Shard{1, 2}}, "it is of the whole grid, and this sweep is slice 1/2"},
	} {
		_, err := tc.s.Resume(prev, dir)
		if err == nil || !strings.HasPrefix(err.Error(), dir) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s and saying %q", tc.s.Axes, err, dir, tc.want)
		}
	}
}

// TestReadAny: the output of an older mkeysim (a parameter and a figure it
// did not have, one this mkeysim no longer makes) is refused by Read,
// which merge and resume use, and read by ReadAny, which plot uses: the
// missing parameter takes its default, the missing figure is undefined.
func TestReadAny(t *testing.T) {
	s := Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2")}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(res.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["config"].(map[string]any), "workload.tenants")
	for _, r := range doc["rows"].([]any) {
		row := r.(map[string]any)
		delete(row, "core.rob_cycles")
		row["mttwalk.an_old_counter"] = 7
	}
	old, _ := json.Marshal(doc)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "sweep.json"), old, 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "no workload.tenants") {
		t.Errorf("Read of an older output: %v", err)
	}
	got, err := ReadAny(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := got.Rows[1].Figure("core.rob_cycles"); !ok || f.Value != nil {
		t.Errorf("a figure the older output lacks: %+v, want undefined", f)
	}
	if v, _ := got.Rows[1].Value("mkc_cache.hits"); v != float64(res.Rows[1].Figures[indexOfFigure(res.Rows[1], "mkc_cache.hits")].Value.(uint64)) {
		t.Errorf("mkc_cache.hits read as %v", v)
	}
}

func indexOfFigure(r Row, name string) int {
	for i, f := range r.Figures {
		if f.Name == name {
			return i
		}
	}
	return -1
}
