package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"

	"mkeysim/rtl/sim"
)

// TestLatencyHistogram: power-of-two buckets from [1, 1] to the largest
// latency's, contiguous; [0, 0] only for a latency of 0; none for none.
func TestLatencyHistogram(t *testing.T) {
	histogram := func(lat []uint64) []LatencyBucket {
		t := sim.TallyOf(lat)
		return latencyHistogram(&t)
	}
	b := func(lo, hi, n uint64) LatencyBucket { return LatencyBucket{lo, hi, n} }
	for _, c := range []struct {
		lat  []uint64
		want []LatencyBucket
	}{
		{nil, []LatencyBucket{}},
		{[]uint64{1}, []LatencyBucket{b(1, 1, 1)}},
		{[]uint64{2, 3}, []LatencyBucket{b(1, 1, 0), b(2, 3, 2)}},
		{[]uint64{1, 4, 7, 8, 3}, []LatencyBucket{b(1, 1, 1), b(2, 3, 1), b(4, 7, 2), b(8, 15, 1)}},
		{[]uint64{0, 0, 1}, []LatencyBucket{b(0, 0, 2), b(1, 1, 1)}},
		{[]uint64{0}, []LatencyBucket{b(0, 0, 1), b(1, 1, 0)}},
		{[]uint64{1024, 2047}, []LatencyBucket{b(1, 1, 0), b(2, 3, 0), b(4, 7, 0), b(8, 15, 0), b(16, 31, 0), b(32, 63, 0),
			b(64, 127, 0), b(128, 255, 0), b(256, 511, 0), b(512, 1023, 0), b(1024, 2047, 2)}},
	} {
		got := histogram(c.lat)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("histogram(%v) = %v, want %v", c.lat, got, c.want)
		}
	}
	h := histogram([]uint64{math.MaxUint64, 1 << 63})
	if last := h[len(h)-1]; len(h) != 64 || last != b(1<<63, math.MaxUint64, 2) {
		t.Errorf("the top bucket: %d buckets, last %v", len(h), last)
	}
}

// TestLatencyQuantiles: the quantiles of a tally are those of the
// samples, sorted, as gonum's empirical quantile gives them (what the
// statistics printed when they kept every latency), on random samples
// with repeats and values past the tally's dense array (seeded).
func TestLatencyQuantiles(t *testing.T) {
	const seed = 5
	rng := rand.New(rand.NewPCG(seed, 0))
	for round := range 300 {
		vs := make([]uint64, 1+rng.IntN(500))
		for i := range vs {
			if rng.IntN(20) == 0 {
				vs[i] = 1<<16 + rng.Uint64N(1<<30)
			} else {
				vs[i] = rng.Uint64N(uint64(1 + rng.IntN(3000)))
			}
		}
		tl := sim.TallyOf(vs)
		got := latencyQuantiles(&tl)
		lat := make([]float64, len(vs))
		for i, v := range vs {
			lat[i] = float64(v)
		}
		slices.Sort(lat)
		want := Latency{
			P50: stat.Quantile(0.50, stat.Empirical, lat, nil),
			P90: stat.Quantile(0.90, stat.Empirical, lat, nil),
			P95: stat.Quantile(0.95, stat.Empirical, lat, nil),
			P99: stat.Quantile(0.99, stat.Empirical, lat, nil),
			Max: lat[len(lat)-1],
		}
		if got != want {
			t.Fatalf("seed %d round %d (%d samples): %+v, want %+v", seed, round, len(vs), got, want)
		}
	}
	if got := latencyQuantiles(&sim.Tally{}); got != (Latency{}) {
		t.Errorf("no latency: %+v, want zeros", got)
	}
}
