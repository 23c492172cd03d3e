package sim

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// each lists a tally as (value, count) pairs in the order Each gives.
func each(t *Tally) [][2]uint64 {
	var out [][2]uint64
	t.Each(func(v, n uint64) { out = append(out, [2]uint64{v, n}) })
	return out
}

func TestTally(t *testing.T) {
	cases := []struct {
		in   []uint64
		want [][2]uint64
	}{
		{nil, nil},
		{[]uint64{0}, [][2]uint64{{0, 1}}},
		{[]uint64{5, 3, 5, 5, 0}, [][2]uint64{{0, 1}, {3, 1}, {5, 3}}},
		// past the dense array, and the largest value
		{[]uint64{1 << 40, tallyDense, tallyDense - 1, 1 << 40, ^uint64(0), 7},
			[][2]uint64{{7, 1}, {tallyDense - 1, 1}, {tallyDense, 1}, {1 << 40, 2}, {^uint64(0), 1}}},
	}
	for _, c := range cases {
		tl := TallyOf(c.in)
		if got := each(&tl); !reflect.DeepEqual(got, c.want) {
			t.Errorf("TallyOf(%v): %v, want %v", c.in, got, c.want)
		}
		if tl.N() != uint64(len(c.in)) {
			t.Errorf("TallyOf(%v).N() = %d", c.in, tl.N())
		}
	}
}

// TestTallySince: the tally of the samples after a Clone is the tally of
// those samples alone, whatever the split (seeded; the seed is printed).
func TestTallySince(t *testing.T) {
	const seed = 11
	rng := rand.New(rand.NewPCG(seed, 0))
	for round := range 200 {
		vs := make([]uint64, rng.IntN(300))
		for i := range vs {
			switch rng.IntN(10) {
			case 0:
				vs[i] = rng.Uint64()
			case 1:
				vs[i] = tallyDense - 2 + rng.Uint64N(4)
			default:
				vs[i] = rng.Uint64N(2000)
			}
		}
		cut := 0
		if len(vs) > 0 {
			cut = rng.IntN(len(vs) + 1)
		}
		var tl Tally
		for _, v := range vs[:cut] {
			tl.Add(v)
		}
		before := tl.Clone()
		for _, v := range vs[cut:] {
			tl.Add(v)
		}
		since, want := tl.Since(&before), TallyOf(vs[cut:])
		if got, w := each(&since), each(&want); !reflect.DeepEqual(got, w) || since.N() != want.N() {
			t.Fatalf("seed %d round %d: Since gives %v (n %d), want %v (n %d)", seed, round, got, since.N(), w, want.N())
		}
		// The clone did not move with the tally.
		if b, w := each(&before), TallyOf(vs[:cut]); !reflect.DeepEqual(b, each(&w)) {
			t.Fatalf("seed %d round %d: the clone changed", seed, round)
		}
		// Each is increasing and sums to N.
		var sum uint64
		got := each(&tl)
		if !slices.IsSortedFunc(got, func(a, b [2]uint64) int {
			switch {
			case a[0] < b[0]:
				return -1
			case a[0] > b[0]:
				return 1
			}
			return 0
		}) {
			t.Fatalf("seed %d round %d: Each not in increasing order: %v", seed, round, got)
		}
		for _, p := range got {
			sum += p[1]
		}
		if sum != tl.N() || tl.N() != uint64(len(vs)) {
			t.Fatalf("seed %d round %d: counts sum to %d, N %d, want %d", seed, round, sum, tl.N(), len(vs))
		}
	}
}

// TestTallyAddAllocates: once its values have their slots, counting them
// again allocates nothing (the reorder buffer counts one a translation).
func TestTallyAddAllocates(t *testing.T) {
	var tl Tally
	for v := range uint64(3000) {
		tl.Add(v)
	}
	if n := testing.AllocsPerRun(100, func() {
		for v := range uint64(3000) {
			tl.Add(v)
		}
	}); n != 0 {
		t.Errorf("Add allocates %v times per 3000 values already seen", n)
	}
}
