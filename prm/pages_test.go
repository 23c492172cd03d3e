package prm_test

import (
	"reflect"
	"testing"

	"mkeysim/prm"
)

// TestPageSet: the set of backed ICM pages as ranges: what a new range
// misses, merging on add (touching ranges become one), membership.
func TestPageSet(t *testing.T) {
	var s prm.PageSet
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
	s.Add(r(20, 30)) // touches both: one range
	if got, want := s.Ranges(), []prm.PageRange{r(10, 40)}; !reflect.DeepEqual(got, want) {
		t.Errorf("ranges %v, want %v", got, want)
	}
	s.Add(r(50, 51))
	s.Add(r(0, 5))
	for k, want := range map[uint64]bool{0: true, 4: true, 5: false, 9: false, 10: true, 39: true, 40: false, 50: true, 51: false} {
		if s.Has(k) != want {
			t.Errorf("Has(%d) = %v", k, !want)
		}
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
