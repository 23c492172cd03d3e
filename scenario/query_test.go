package scenario

import (
	"math"
	"testing"

	"mkeysim/prm"
)

// TestQueryRange pins the window of scenario.md's query_mkey row: from
// the offset, at most count, never past the capacity, never more than
// 4,096, the rest of the range asked left out; an offset past the
// capacity is refused, one at the capacity lists nothing.
func TestQueryRange(t *testing.T) {
	const huge = 2 * 0xFFFFFFFC
	for _, c := range []struct {
		name     string
		w        *QueryWindow
		capacity uint64
		want     QueryRange
		err      bool
	}{
		{"default, small", nil, 10, QueryRange{0, 10, 0}, false},
		{"default, huge", nil, huge, QueryRange{0, 4096, huge - 4096}, false},
		{"default, exactly 4096", nil, 4096, QueryRange{0, 4096, 0}, false},
		{"default, 4097", nil, 4097, QueryRange{0, 4096, 1}, false},
		{"no list", nil, 0, QueryRange{}, false},
		{"zero window", &QueryWindow{}, huge, QueryRange{0, 4096, huge - 4096}, false},
		{"offset and count", &QueryWindow{Offset: 2, Count: 3, HasCount: true}, huge, QueryRange{2, 3, 0}, false},
		{"count 0", &QueryWindow{Offset: 2, HasCount: true}, huge, QueryRange{2, 0, 0}, false},
		{"count past the end", &QueryWindow{Offset: huge - 4, Count: 10, HasCount: true}, huge, QueryRange{huge - 4, 4, 0}, false},
		{"count above 4096", &QueryWindow{Offset: 1, Count: 5000, HasCount: true}, huge, QueryRange{1, 4096, 904}, false},
		{"count of 2^64-1", &QueryWindow{Offset: 7, Count: math.MaxUint64, HasCount: true}, huge, QueryRange{7, 4096, huge - 7 - 4096}, false},
		{"offset only", &QueryWindow{Offset: huge - 4100}, huge, QueryRange{huge - 4100, 4096, 4}, false},
		{"offset at the capacity", &QueryWindow{Offset: huge}, huge, QueryRange{huge, 0, 0}, false},
		{"offset past the capacity", &QueryWindow{Offset: huge + 1}, huge, QueryRange{}, true},
		{"offset 2^64-1", &QueryWindow{Offset: math.MaxUint64, Count: math.MaxUint64, HasCount: true}, huge, QueryRange{}, true},
		{"offset past an empty list", &QueryWindow{Offset: 1}, 0, QueryRange{}, true},
	} {
		got, err := c.w.Range(c.capacity)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v, error %v", c.name, got, err, c.want, c.err)
		}
	}
}

// TestParseQueryWindow: offset and count are 64-bit numbers, each
// optional; a query without them has no window.
func TestParseQueryWindow(t *testing.T) {
	sc, err := Parse([]byte(`{"qps":[{"qpn":1,"pd":1}],"ops":[
{"op":"query_mkey","index":1},
{"op":"query_mkey","index":1,"offset":"8589934584"},
{"op":"query_mkey","index":1,"count":"0xffffffffffffffff"},
{"op":"query_mkey","index":1,"offset":2,"count":0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []*QueryWindow{nil, {Offset: 8589934584}, {Count: math.MaxUint64, HasCount: true}, {Offset: 2, HasCount: true}}
	for i, w := range want {
		g := sc.Ops[i].Query
		if (g == nil) != (w == nil) || g != nil && *g != *w {
			t.Errorf("ops[%d]: window %+v, want %+v", i, g, w)
		}
	}
}

// TestSegmentSum: the digest of the segments left out of a line does not
// depend on the order they are added in (the clocked model gathers them
// out of order), and changes with any field of any segment.
func TestSegmentSum(t *testing.T) {
	segs := []prm.Segment{{Addr: 0x1000, Len: 4096}, {Addr: 0x1000, Len: 4096}, {Space: prm.SpaceMEMIC, Addr: 0x40, Len: 7}}
	offs := []uint64{0, 4096, 8192}
	var fwd, back SegmentSum
	for i := range segs {
		fwd.Add(offs[i], segs[i])
		back.Add(offs[len(segs)-1-i], segs[len(segs)-1-i])
	}
	if fwd != back || fwd == 0 {
		t.Fatalf("forward %#x, backward %#x", uint64(fwd), uint64(back))
	}
	for _, c := range []struct {
		name string
		i    int
		off  uint64
		s    prm.Segment
	}{
		{"addr", 1, 4096, prm.Segment{Addr: 0x2000, Len: 4096}},
		{"len", 1, 4096, prm.Segment{Addr: 0x1000, Len: 4095}},
		{"space", 1, 4096, prm.Segment{Space: prm.SpaceSWICM, Addr: 0x1000, Len: 4096}},
		{"offset", 1, 4097, segs[1]},
	} {
		var d SegmentSum
		for i := range segs {
			if i == c.i {
				d.Add(c.off, c.s)
			} else {
				d.Add(offs[i], segs[i])
			}
		}
		if d == fwd {
			t.Errorf("a different %s gives the same digest", c.name)
		}
	}
	// Two segments swapped in place (the same set, other offsets) differ.
	var sw SegmentSum
	sw.Add(0, segs[2])
	sw.Add(4096, segs[1])
	sw.Add(8192, segs[0])
	if sw == fwd {
		t.Error("segments in another order give the same digest")
	}
}
