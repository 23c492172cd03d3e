package sweep

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mkeysim/config"
)

func TestGridProductAndOrder(t *testing.T) {
	axes := []Axis{
		{Name: "mkc_cache.ways", Values: []string{"1", "2"}},
		{Name: "mkc_cache.replacement", Values: []string{"lru", "random", "x"}},
		{Name: "workload.seed", Values: []string{"7"}},
	}
	pts := Grid(axes)
	want := [][]string{
		{"1", "lru", "7"}, {"1", "random", "7"}, {"1", "x", "7"},
		{"2", "lru", "7"}, {"2", "random", "7"}, {"2", "x", "7"},
	}
	if len(pts) != len(want) || Count(axes) != len(want) {
		t.Fatalf("%d points, Count %d; want %d", len(pts), Count(axes), len(want))
	}
	for i, p := range pts {
		if p.Index != i || !reflect.DeepEqual(p.Values, want[i]) {
			t.Errorf("point %d = %d %v; want %d %v", i, p.Index, p.Values, i, want[i])
		}
	}
	if got := pts[4].Describe(axes); got != "mkc_cache.ways=2, mkc_cache.replacement=random, workload.seed=7" {
		t.Errorf("Describe = %q", got)
	}
	if n := Count(nil); n != 1 {
		t.Errorf("Count(no axes) = %d; want 1", n)
	}
	if n := Count([]Axis{{Values: nil}}); n != 0 {
		t.Errorf("Count(empty axis) = %d; want 0", n)
	}
	big := make([]string, 1<<16)
	huge := []Axis{{Values: big}, {Values: big}, {Values: big}, {Values: big}, {Values: big}}
	if n := Count(huge); n != math.MaxInt {
		t.Errorf("Count saturates at MaxInt, got %d", n)
	}
}

func TestApply(t *testing.T) {
	axes := []Axis{{Name: "mkc_cache.ways", Values: []string{"8"}}, {Name: "workload.keys", Values: []string{"64"}}}
	s := Sweep{Base: smallConfig(), Axes: axes}
	c, err := s.config(Grid(axes)[0])
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.MKCCache.Ways != 8 || c.Workload.Keys != 64 {
		t.Errorf("applied %+v", c)
	}
	if s.Base.Model.MKCCache.Ways == 8 {
		t.Errorf("Apply changed the base")
	}
}

func TestParseVary(t *testing.T) {
	for _, c := range []struct {
		spec, name string
		values     []string
	}{
		{"mkc_cache.ways=1,2,4,8", "mkc_cache.ways", []string{"1", "2", "4", "8"}},
		{"model.mkc_cache.ways=4", "mkc_cache.ways", []string{"4"}},
		{" mtt.cache.entries = 16..256*2 ", "mtt.cache.entries", []string{"16", "32", "64", "128", "256"}},
		{"mkc_cache.sets=16..200*2", "mkc_cache.sets", []string{"16", "32", "64", "128"}},
		{"mtt.walkers=1..4", "mtt.walkers", []string{"1", "2", "3", "4"}},
		{"pcie.link_latency_cycles=25..100+25,200", "pcie.link_latency_cycles", []string{"25", "50", "75", "100", "200"}},
		{"pcie.link_latency_cycles=10..20+7", "pcie.link_latency_cycles", []string{"10", "17"}},
		{"mkc_cache.ways=0x10", "mkc_cache.ways", []string{"16"}},
		{"mkc_cache.replacement=lru,random", "mkc_cache.replacement", []string{"lru", "random"}},
		{"pcie.split_on_all_rcb=false,true", "pcie.split_on_all_rcb", []string{"false", "true"}},
		{"workload.accesses=1000,2000", "workload.accesses", []string{"1000", "2000"}},
		{"clock_ps=2000,4000", "clock_ps", []string{"2000", "4000"}},
		// Ranges as sweep.md writes them, with any integers.
		{"mtt.walkers=1..8", "mtt.walkers", []string{"1", "2", "3", "4", "5", "6", "7", "8"}},
		{"mtt.walkers=1..64*2", "mtt.walkers", []string{"1", "2", "4", "8", "16", "32", "64"}},
		{"mkc_cache.sets=0x10..0x40*2", "mkc_cache.sets", []string{"16", "32", "64"}},
		{"workload.seed=-2..1", "workload.seed", []string{"-2", "-1", "0", "1"}},
		{"workload.accesses=1_000..3_000+1_000", "workload.accesses", []string{"1000", "2000", "3000"}},
		// A path, or any value of a string parameter, is taken as written.
		{"workload.trace_file=../a.csv", "workload.trace_file", []string{"../a.csv"}},
		{"workload.trace_file=../a.csv,../../t/b.jsonl", "workload.trace_file", []string{"../a.csv", "../../t/b.jsonl"}},
		{"workload.trace-file=/data/run..2/t.csv,..", "workload.trace_file", []string{"/data/run..2/t.csv", ".."}},
		{"workload.trace_file=1..8", "workload.trace_file", []string{"1..8"}},
		{"workload.trace_file=1..8*2,a.csv", "workload.trace_file", []string{"1..8*2", "a.csv"}},
		{"workload.kind=uniform,zipf,trace", "workload.kind", []string{"uniform", "zipf", "trace"}},
		{"workload.access_type=LOCAL_READ,REMOTE_WRITE", "workload.access_type", []string{"LOCAL_READ", "REMOTE_WRITE"}},
	} {
		a, err := ParseVary(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if a.Name != c.name || !reflect.DeepEqual(a.Values, c.values) {
			t.Errorf("%q = %s %v; want %s %v", c.spec, a.Name, a.Values, c.name, c.values)
		}
	}
}

func TestParseVaryErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"mkc_cache.ways", "want PARAM=V1,V2"},
		{"=1,2", "want PARAM=V1,V2"},
		{"nosuch=1", `unknown parameter "nosuch" (see 'mkeysim config --defaults')`},
		{"mtt.cache.sets=64", `unknown parameter "mtt.cache.sets": the MTT cache is sized in entries now: mtt.cache.entries = sets x ways x 8 (mtt.cache.entries_per_line)`},
		{"ways=1,2", "did you mean mkc_cache.ways or mtt.cache.ways or klm.cache.ways"},
		{"mkc_cache.wayz=1", "did you mean mkc_cache.ways"},
		{"mkc_cache.ways=", "mkc_cache.ways: empty list"},
		{"mkc_cache.ways= ", "mkc_cache.ways: empty list"},
		{"mkc_cache.ways=1,,2", `empty value in "1,,2"`},
		{"mkc_cache.ways=1,", `empty value`},
		{"mkc_cache.ways=x", `mkc_cache.ways = "x": want an integer`},
		{"clock_ps=-1", `clock_ps = "-1": want an unsigned integer`},
		{"pcie.split_on_all_rcb=maybe", `"maybe": want true or false`},
		{"mkc_cache.ways=4,2,4", "value 4 given twice"},
		{"mkc_cache.ways=4,0x4", "value 4 given twice"},
		{"mkc_cache.ways=8..1", "start 8 is above end 1"},
		{"mkc_cache.ways=1..8*1", "factor 1: want >= 2"},
		{"mkc_cache.ways=0..8*2", "start >= 1"},
		{"mkc_cache.ways=1..8+0", "step 0: want >= 1"},
		{"mkc_cache.ways=1..x", `range "1..x": want A..B`},
		{"mkc_cache.ways=1..8*2..4", `range "1..8*2..4"`},
		{"mkc_cache.ways=../a.csv", `mkc_cache.ways: range "../a.csv": want A..B, A..B+STEP or A..B*FACTOR with integers`},
		{"workload.zipf_s=0.5..2", `range "0.5..2": want A..B`},
		{"pcie.split_on_all_rcb=false..true", `range "false..true": want A..B`},
		{"workload.trace_file=../a.csv,../a.csv", "value ../a.csv given twice"},
		{"workload.trace_file=../a.csv,", "empty value"},
		{"mkc_cache.ways=1..1000000000", "more than 100000 values"},
	} {
		_, err := ParseVary(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v; want %q", c.spec, err, c.want)
		}
	}
}

// traceDir makes a trace file a.csv and b.jsonl (the example trace, 12
// accesses) in a temporary directory and makes its subdirectory sub the
// working directory, so that ../a.csv names a trace.
func traceDir(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for from, to := range map[string]string{"small.csv": "a.csv", "small.jsonl": "b.jsonl"} {
		data, err := os.ReadFile(filepath.Join("../examples/traces", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "sub"))
}

// TestTraceFileAxis (issue 46, item 3): a trace file is an axis like any
// parameter, its paths taken as written (../a.csv), and a base that
// leaves workload.trace_file to the axis is checked as its points: each
// point's configuration, the axis's value set, not the base alone.
// BaseError is what every point shares with the base (a command reports
// it as the base's); what the axes change is Validate's, point by point.
func TestTraceFileAxis(t *testing.T) {
	traceDir(t)
	trace := func(c *config.Config) { c.Workload.Kind, c.Workload.Accesses = "trace", 0 }
	for _, tc := range []struct {
		name     string
		base     func(c *config.Config)
		vary     []string
		baseErr  string // "" for none
		pointErr string // "" for a sweep that runs
	}{
		{"file from the axis", trace, []string{"workload.trace_file=../a.csv,../b.jsonl"}, "", ""},
		{"file from the axis, second", trace, []string{"mkc_cache.ways=1,2", "workload.trace_file=../b.jsonl"}, "", ""},
		{"file in the base, page size varied", func(c *config.Config) { trace(c); c.Workload.TraceFile = "../a.csv" },
			[]string{"workload.page_bytes=4096,8192"}, "", ""},
		{"no file anywhere", trace, []string{"mkc_cache.ways=1,2"},
			`workload.trace_file = "": want the path of the trace to replay (workload.kind = trace)`, "-"},
		{"a point's file missing", trace, []string{"workload.trace_file=../a.csv,../none.csv"},
			"", "point workload.trace_file=../none.csv: workload.trace_file: open ../none.csv: no such file"},
		{"kind varied, no file", func(c *config.Config) { c.Workload.Accesses = 0 }, []string{"workload.kind=uniform,trace"},
			"", `point workload.kind=trace: workload.trace_file = "": want the path`},
		{"the first point fixes the base, another not", func(c *config.Config) { c.Workload.WarmupAccesses = 3000 },
			[]string{"workload.accesses=4000,2000"}, "", "point workload.accesses=2000: workload.warmup_accesses = 3000: want fewer than accesses = 2000"},
		{"an error no axis changes", func(c *config.Config) { c.Workload.WarmupAccesses = 3000 },
			[]string{"mkc_cache.ways=1,2"}, "workload.warmup_accesses = 3000: want fewer than accesses = 2000 (nothing would be measured)", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := smallConfig()
			tc.base(&base)
			s := &Sweep{Base: base, Axes: mustVary(t, tc.vary...)}
			err := s.BaseError(&s.Base)
			if tc.baseErr == "" && err != nil || tc.baseErr != "" && (err == nil || err.Error() != tc.baseErr) {
				t.Fatalf("BaseError: %v, want %q", err, tc.baseErr)
			}
			err = s.Validate()
			switch {
			case tc.pointErr == "-": // the base's error, every point's too
				if err == nil || !strings.Contains(err.Error(), tc.baseErr) {
					t.Errorf("Validate: %v, want every point to say %q", err, tc.baseErr)
				}
				return
			case tc.pointErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.pointErr) {
					t.Errorf("Validate: %v, want %q", err, tc.pointErr)
				}
				return
			case err != nil:
				t.Fatalf("Validate: %v", err)
			}
			res, err := s.Run(Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != Count(s.Axes) {
				t.Fatalf("%d rows, want %d", len(res.Rows), Count(s.Axes))
			}
			for _, r := range res.Rows {
				if r.Operations != 12 {
					t.Errorf("point %d (%v): %d operations, want the trace's 12", r.Point, r.Params, r.Operations)
				}
			}
			if tc.vary[0] == "workload.trace_file=../a.csv,../b.jsonl" && (res.Rows[0].Params[0].Text != "../a.csv" || res.Rows[1].Params[0].Text != "../b.jsonl") {
				t.Errorf("rows name %v, %v; want ../a.csv, ../b.jsonl", res.Rows[0].Params, res.Rows[1].Params)
			}
		})
	}
}

// TestSpecLeavesTheBaseToItsPoints: a sweep file may leave
// workload.trace_file to its axis: ReadSpec reads its parameters without
// validating them, and its points validate.
func TestSpecLeavesTheBaseToItsPoints(t *testing.T) {
	traceDir(t)
	if err := os.WriteFile("s.toml", []byte("[workload]\nkind = \"trace\"\naccesses = 0\n[sweep]\nvary = [\"workload.trace_file=../a.csv,../b.jsonl\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := ReadSpec("s.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sweep{Base: spec.Config, Axes: mustVary(t, spec.Vary...)}
	if err := s.BaseError(&s.Base); err != nil {
		t.Errorf("BaseError: %v", err)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
