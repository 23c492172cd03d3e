package sweep

import (
	"math"
	"reflect"
	"strings"
	"testing"
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
		{"mkc_cache.ways=1..1000000000", "more than 100000 values"},
	} {
		_, err := ParseVary(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v; want %q", c.spec, err, c.want)
		}
	}
}
