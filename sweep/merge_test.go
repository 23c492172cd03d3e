package sweep

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, s := range []string{"1/1", "1/4", "4/4", " 2 / 3 "} {
		if _, err := ParseShard(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for s, want := range map[string]string{
		"0/4": "slice 0 of 4", "5/4": "slice 5 of 4", "-1/4": "slice -1 of 4",
		"x/y": "whole numbers", "1/x": "whole numbers", "1/0": "at least 1 slice",
		"3": "want I/N", "": "want I/N", "1/2/3": "whole numbers",
	} {
		if _, err := ParseShard(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v; want %q", s, err, want)
		}
	}
}

// TestShardsCover: the slices of a grid are disjoint, cover it, and are
// balanced (their sizes differ by at most one).
func TestShardsCover(t *testing.T) {
	axes := mustVary(t, "mkc_cache.ways=1..7", "mtt.walkers=1,2")
	for n := 1; n <= 14; n++ {
		seen := map[int]int{}
		lo, hi := 1<<30, 0
		for i := 1; i <= n; i++ {
			s := &Sweep{Base: smallConfig(), Axes: axes, Shard: Shard{i, n}}
			pts := s.Points()
			lo, hi = min(lo, len(pts)), max(hi, len(pts))
			for _, p := range pts {
				seen[p.Index]++
			}
		}
		if len(seen) != 14 || hi-lo > 1 {
			t.Errorf("%d slices: cover %d points, sizes %d..%d", n, len(seen), lo, hi)
		}
		for p, k := range seen {
			if k != 1 {
				t.Errorf("%d slices: point %d in %d slices", n, p, k)
			}
		}
	}
}

// writeSlices runs s as n slices and writes each slice's sweep.json in a
// directory of its own, as 'mkeysim sweep --shard' does.
func writeSlices(t *testing.T, s Sweep, n int) []string {
	t.Helper()
	var dirs []string
	for i := 1; i <= n; i++ {
		s.Shard = Shard{i, n}
		res, err := s.Run(Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "slice")
		os.Mkdir(dir, 0o755)
		if err := WriteFiles(dir, []File{{"sweep.json", res.JSON()}}, nil); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

func readSlices(t *testing.T, dirs []string) []*Result {
	t.Helper()
	var parts []*Result
	for _, d := range dirs {
		r, err := ReadSlice(d)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r)
	}
	return parts
}

// TestMerge: a sweep run as 3 slices, written, read back and merged
// (given in any order) gives the CSV, JSON and Markdown of the unsharded
// run but for wall time, and the same plots.
func TestMerge(t *testing.T) {
	s := Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2,4", "mtt.walkers=1,2"), Check: true}
	whole, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	dirs := writeSlices(t, s, 3)
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		var ds []string
		for _, i := range order {
			ds = append(ds, dirs[i])
		}
		merged, err := Merge(readSlices(t, ds), ds)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := withoutWall(t, merged.CSV()), withoutWall(t, whole.CSV()); !reflect.DeepEqual(got, want) {
			t.Errorf("merged CSV:\n%v\nwant\n%v", got, want)
		}
		for i := range merged.Rows {
			if merged.Rows[i].Point != i {
				t.Errorf("row %d is point %d", i, merged.Rows[i].Point)
			}
		}
		// With the wall time of the unsharded run, every byte is the same.
		for i := range merged.Rows {
			for k, f := range merged.Rows[i].Figures {
				if f.Name == "wall_seconds" || f.Name == "cycles_per_second" {
					merged.Rows[i].Figures[k] = whole.Rows[i].Figures[k]
				}
			}
		}
		if !bytes.Equal(merged.CSV(), whole.CSV()) {
			t.Errorf("merged CSV differs:\n%s\nwant\n%s", merged.CSV(), whole.CSV())
		}
		if !bytes.Equal(merged.JSON(), whole.JSON()) {
			t.Errorf("merged JSON differs")
		}
		if !bytes.Equal(merged.Markdown(), whole.Markdown()) {
			t.Errorf("merged Markdown:\n%s\nwant\n%s", merged.Markdown(), whole.Markdown())
		}
		p1, _, err1 := merged.Plots()
		p2, _, err2 := whole.Plots()
		if err1 != nil || err2 != nil || !reflect.DeepEqual(p1, p2) {
			t.Errorf("merged plots differ (%v, %v)", err1, err2)
		}
	}
}

// TestMergeErrors: every refusal names the directory and the reason.
func TestMergeErrors(t *testing.T) {
	s := Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2", "mtt.walkers=1,2"), Check: true}
	dirs := writeSlices(t, s, 2)
	parts := readSlices(t, dirs)

	other := s
	other.Axes = mustVary(t, "mkc_cache.ways=1,4", "mtt.walkers=1,2")
	otherAxes := writeSlices(t, other, 2)
	other = s
	other.Base.Model.PCIe.LinkLatencyCycles = 30
	otherCfg := writeSlices(t, other, 2)
	other = s
	other.Check = false
	unchecked := writeSlices(t, other, 2)
	sc, err := os.ReadFile("../examples/klm-nested.json")
	if err != nil {
		t.Fatal(err)
	}
	scen := Sweep{Base: smallConfig(), Axes: mustVary(t, "klm.contexts=12,16"), Scenario: sc, ScenarioName: "k.json"}
	scenA := writeSlices(t, scen, 2)
	scen.Scenario = bytes.Replace(sc, []byte(`"klm"`), []byte(`"klm" `), 1)
	if bytes.Equal(scen.Scenario, sc) {
		t.Fatal("scenario not changed")
	}
	scenB := writeSlices(t, scen, 2)

	for _, c := range []struct {
		name string
		dirs []string
		want string
	}{
		{"missing point", dirs[:1], "point 1 (mkc_cache.ways=1, mtt.walkers=2) is in no slice given: it is of slice 2/2"},
		{"duplicated point", []string{dirs[0], dirs[1], dirs[0]}, dirs[0] + ": point 0 (mkc_cache.ways=1, mtt.walkers=1) is also in " + dirs[0]},
		{"other axes", []string{dirs[0], otherAxes[1]}, otherAxes[1] + ": not a slice of the same sweep as " + dirs[0] + ": its values of mkc_cache.ways are 1,4, not 1,2"},
		{"other config", []string{dirs[0], otherCfg[1]}, otherCfg[1] + ": not a slice of the same sweep as " + dirs[0] + ": its base configuration differs: pcie.link_latency_cycles = 30, not 75"},
		{"other check", []string{dirs[0], unchecked[1]}, unchecked[1] + ": not a slice of the same sweep as " + dirs[0] + ": checked against the golden model: false, not true"},
		{"other scenario", []string{scenA[0], scenB[1]}, scenB[1] + ": not a slice of the same sweep as " + scenA[0] + ": it ran another scenario"},
	} {
		_, err := Merge(readSlices(t, c.dirs), c.dirs)
		var me *MergeError
		if err == nil || !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want %q", c.name, err, c.want)
		}
	}
	if _, err := Merge(readSlices(t, []string{scenA[1], scenA[0]}), []string{scenA[1], scenA[0]}); err != nil {
		t.Errorf("scenario slices: %v", err)
	}

	// An interrupted slice.
	stopped := *parts[1]
	stopped.Stopped, stopped.Rows = true, stopped.Rows[:1]
	if _, err := Merge([]*Result{parts[0], &stopped}, []string{dirs[0], "stopped"}); err == nil || !strings.Contains(err.Error(), "stopped: slice 2/2 was interrupted: it holds 1 of its 2 points") {
		t.Errorf("interrupted slice: %v", err)
	}

	// Directories that are not slices.
	tmp := t.TempDir()
	write := func(name, text string) string {
		d := filepath.Join(tmp, name)
		os.Mkdir(d, 0o755)
		os.WriteFile(filepath.Join(d, "sweep.json"), []byte(text), 0o644)
		return d
	}
	whole, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dirs[0], "sweep.json"))
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	for dir, want := range map[string]string{
		filepath.Join(tmp, "nosuch"):         "no such file or directory",
		file:                                 "not a directory",
		empty:                                "not a sweep output: no sweep.json",
		write("junk", "{not json"):           "not a sweep output: sweep.json:",
		write("other", `{"a": 1}`):           "not a sweep output: sweep.json lacks",
		write("whole", string(whole.JSON())): "not a slice: its sweep.json is of a whole grid",
		write("badrow", strings.Replace(string(data), `"operations"`, `"operationz"`, 1)):         "row 0: operations: want a whole number",
		write("badfig", strings.Replace(string(data), `"mkc_cache.hits"`, `"mkc_cache.hitz"`, 1)): "row 0: no figure mkc_cache.hits",
		write("badpoint", strings.Replace(string(data), `"point": 0`, `"point": 1`, 1)):           "row 0: params",
		write("badcfg", strings.Replace(string(data), `"fifo_depth": 4`, `"fifo_depthz": 4`, 1)):  "config: no fifo_depth",
	} {
		_, err := ReadSlice(dir)
		if err == nil || !strings.HasPrefix(err.Error(), dir+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v; want %q", filepath.Base(dir), err, want)
		}
	}
	if !slices.Equal(parts[0].Varied, []string{"mkc_cache.ways", "mtt.walkers"}) {
		t.Errorf("varied %v", parts[0].Varied)
	}
}
