package rtl

import (
	"math/rand"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/scenario"
)

// TestROBSegmentWindow: however the walkers' outcomes arrive (in order,
// reversed, shuffled, in interleaved runs), a request's result lists its
// first scenario.MaxSegments segments in request order, counts the rest
// in segments_left_out and digests them as the golden model does; the
// entry never holds more than keepMax segments. Seeds are printed on
// failure.
func TestROBSegmentWindow(t *testing.T) {
	const n = scenario.MaxSegments + 20000
	segs := make([]bus.Outcome, n)
	var want scenario.SegmentSum
	for i := range segs {
		segs[i] = bus.Outcome{Offset: uint64(i) * 64, Len: 64, Seg: prm.Segment{Addr: uint64(i*7919) << 6, Len: 64}}
		if i >= scenario.MaxSegments {
			want.Add(segs[i].Offset, segs[i].Seg)
		}
	}
	orders := map[string]func(r *rand.Rand, o []int){
		"in order": func(*rand.Rand, []int) {},
		"reversed": func(_ *rand.Rand, o []int) {
			for i, j := 0, len(o)-1; i < j; i, j = i+1, j-1 {
				o[i], o[j] = o[j], o[i]
			}
		},
		"shuffled": func(r *rand.Rand, o []int) { r.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] }) },
		"two walkers": func(_ *rand.Rand, o []int) { // evens then odds, as two interleaved streams drained one after the other
			k := 0
			for _, par := range []int{0, 1} {
				for i := par; i < n; i += 2 {
					o[k] = i
					k++
				}
			}
		},
	}
	for name, order := range orders {
		for seed := int64(1); seed <= 2; seed++ {
			r := rand.New(rand.NewSource(seed))
			o := make([]int, n)
			for i := range o {
				o[i] = i
			}
			order(r, o)
			e := robEntry{acc: scenario.Access{Len: n * 64}}
			most := 0
			for _, i := range o {
				e.add(&segs[i])
				most = max(most, len(e.segs))
			}
			res := e.result(func(prm.Key) bool { return false })
			if res.Status != prm.OK || len(res.Segments) != scenario.MaxSegments || res.SegmentsLeftOut != n-scenario.MaxSegments || res.LeftOutSum != want {
				t.Fatalf("%s, seed %d: %v, %d segments, %d left out, digest %#x; want OK, %d, %d, %#x",
					name, seed, res.Status, len(res.Segments), res.SegmentsLeftOut, uint64(res.LeftOutSum), scenario.MaxSegments, n-scenario.MaxSegments, uint64(want))
			}
			for i, s := range res.Segments {
				if s != segs[i].Seg {
					t.Fatalf("%s, seed %d: segment %d is %+v, want %+v", name, seed, i, s, segs[i].Seg)
				}
			}
			if most > keepMax {
				t.Errorf("%s, seed %d: the entry held %d segments, more than %d", name, seed, most, keepMax)
			}
		}
	}
}
