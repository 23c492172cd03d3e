package prm_test

import (
	"math/rand"
	"reflect"
	"testing"

	"mkeysim/prm"
)

// TestPageRefs: the count of objects on each ICM page as runs: what a
// new range misses, membership, counts that rise and fall where ranges
// overlap, and the pages a release frees (only those no object uses).
func TestPageRefs(t *testing.T) {
	var s prm.PageRefs
	r := func(lo, hi uint64) prm.PageRange { return prm.PageRange{Lo: lo, Hi: hi} }
	if got := s.Missing(r(10, 20)); !reflect.DeepEqual(got, []prm.PageRange{r(10, 20)}) {
		t.Fatalf("empty set misses %v", got)
	}
	s.Add(r(10, 20))
	s.Add(r(30, 40))
	if got, want := s.Missing(r(5, 45)), []prm.PageRange{r(5, 10), r(20, 30), r(40, 45)}; !reflect.DeepEqual(got, want) {
		t.Errorf("Missing(5, 45) = %v, want %v", got, want)
	}
	if got := s.Missing(r(12, 18)); got != nil {
		t.Errorf("Missing(12, 18) = %v, want none", got)
	}
	s.Add(r(20, 30)) // touches both: one range backed, one run
	if got, want := s.Backed(), []prm.PageRange{r(10, 40)}; !reflect.DeepEqual(got, want) || s.Runs() != 1 {
		t.Errorf("backed %v in %d runs, want %v in 1", got, s.Runs(), want)
	}
	s.Add(r(50, 51))
	s.Add(r(0, 5))
	for k, want := range map[uint64]bool{0: true, 4: true, 5: false, 9: false, 10: true, 39: true, 40: false, 50: true, 51: false} {
		if s.Has(k) != want {
			t.Errorf("Has(%d) = %v", k, !want)
		}
	}
	// Two objects share pages 15..24: releasing one frees only the pages
	// the other does not use.
	s.Add(r(15, 25))
	if s.Count(14) != 1 || s.Count(15) != 2 || s.Count(24) != 2 || s.Count(25) != 1 {
		t.Errorf("counts 14..25: %d %d %d %d, want 1 2 2 1", s.Count(14), s.Count(15), s.Count(24), s.Count(25))
	}
	if got, want := s.Release(r(10, 20)), []prm.PageRange{r(10, 15)}; !reflect.DeepEqual(got, want) {
		t.Errorf("Release(10, 20) freed %v, want %v", got, want)
	}
	if got, want := s.Release(r(15, 25)), []prm.PageRange{r(15, 20)}; !reflect.DeepEqual(got, want) {
		t.Errorf("Release(15, 25) freed %v, want %v", got, want)
	}
	if got, want := s.Release(r(20, 40)), []prm.PageRange{r(20, 40)}; !reflect.DeepEqual(got, want) {
		t.Errorf("Release(20, 40) freed %v, want %v (touching runs joined)", got, want)
	}
	if got, want := s.Backed(), []prm.PageRange{r(0, 5), r(50, 51)}; !reflect.DeepEqual(got, want) {
		t.Errorf("backed %v, want %v", got, want)
	}
	if got := s.Release(r(60, 70)); got != nil {
		t.Errorf("releasing pages no object uses freed %v", got)
	}
	// A list of 2^32-1 octwords (64 GiB, 2^24 pages) is one range.
	got := prm.ICMPagesOf(130, 1<<32+64, 1<<32-1)
	want := []prm.PageRange{r(prm.MKCPageKey(130), prm.MKCPageKey(130)+1), r(1<<20, 1<<20+1<<24+1)} // ends 48 bytes into page 2^20+2^24
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ICMPagesOf = %v, want %v", got, want)
	}
	if prm.MKCPageKey(130) != 1<<63|2 {
		t.Errorf("MKC 130's page key %#x", prm.MKCPageKey(130))
	}
}

// TestPageRefsRandom checks PageRefs against a count per page on random
// adds and releases of the objects added (fixed seeds, printed on failure).
func TestPageRefsRandom(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var s prm.PageRefs
		count := map[uint64]int{}
		var live []prm.PageRange
		for step := 0; step < 400; step++ {
			if len(live) == 0 || rng.Intn(5) < 3 {
				lo := uint64(rng.Intn(200))
				r := prm.PageRange{Lo: lo, Hi: lo + 1 + uint64(rng.Intn(12))}
				want := map[uint64]bool{}
				for k := r.Lo; k < r.Hi; k++ {
					if count[k] == 0 {
						want[k] = true
					}
				}
				for _, g := range s.Missing(r) {
					for k := g.Lo; k < g.Hi; k++ {
						if !want[k] {
							t.Fatalf("seed %d step %d: Missing(%v) has page %d, used %d times", seed, step, r, k, count[k])
						}
						delete(want, k)
					}
				}
				if len(want) > 0 {
					t.Fatalf("seed %d step %d: Missing(%v) lacks %v", seed, step, r, want)
				}
				s.Add(r)
				for k := r.Lo; k < r.Hi; k++ {
					count[k]++
				}
				live = append(live, r)
			} else {
				i := rng.Intn(len(live))
				r := live[i]
				live = append(live[:i], live[i+1:]...)
				var freed []uint64
				for k := r.Lo; k < r.Hi; k++ {
					if count[k]--; count[k] == 0 {
						freed = append(freed, k)
					}
				}
				if only := pagesIn(s.Only(r)); !reflect.DeepEqual(only, freed) {
					t.Fatalf("seed %d step %d: Only(%v) = %v, want %v", seed, step, r, only, freed)
				}
				if got := pagesIn(s.Release(r)); !reflect.DeepEqual(got, freed) {
					t.Fatalf("seed %d step %d: Release(%v) freed %v, want %v", seed, step, r, got, freed)
				}
			}
			for k := uint64(0); k < 215; k++ {
				if got := s.Count(k); got != uint32(count[k]) {
					t.Fatalf("seed %d step %d: Count(%d) = %d, want %d", seed, step, k, got, count[k])
				}
			}
			if runs, max := s.Runs(), 2*len(live)+1; runs > max {
				t.Fatalf("seed %d step %d: %d runs for %d objects: touching runs of equal count not joined", seed, step, runs, len(live))
			}
		}
	}
}

// pagesIn lists the pages of rs, in order.
func pagesIn(rs []prm.PageRange) []uint64 {
	var out []uint64
	for _, g := range rs {
		for k := g.Lo; k < g.Hi; k++ {
			out = append(out, k)
		}
	}
	return out
}
