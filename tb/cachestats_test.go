package tb

import (
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/tb/stimulus"
)

// TestCacheGeometryMonotonic: on one fixed workload with LRU, more MKC
// cache sets or ways never lower the MKC hit rate, and a working set that
// fits the cache hits after warm-up.
func TestCacheGeometryMonotonic(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Keys, w.Accesses, w.UMRPerMille, w.InvalPerMille, w.QueryPerMille = 512, 20_000, 0, 0, 0
	sc := stimulus.Generate(w)
	rate := func(sets, ways int) float64 {
		cfg := rtl.DefaultConfig()
		cfg.MKCCache.Sets, cfg.MKCCache.Ways = sets, ways
		s := runBench(t, cfg, sc).Stats(time.Second)
		r, _ := s.HitRate("mkc_cache")
		return r
	}
	prev := -1.0
	for _, sets := range []int{4, 8, 16, 32, 64, 128, 256} {
		r := rate(sets, 2)
		t.Logf("sets %d ways 2: MKC hit rate %.4f", sets, r)
		if r < prev {
			t.Fatalf("seed %d: %d sets lowered the MKC hit rate to %.4f from %.4f", w.Seed, sets, r, prev)
		}
		prev = r
	}
	prev = -1
	for _, ways := range []int{1, 2, 4, 8, 16} {
		r := rate(16, ways)
		t.Logf("sets 16 ways %d: MKC hit rate %.4f", ways, r)
		if r < prev {
			t.Fatalf("seed %d: %d ways lowered the MKC hit rate to %.4f from %.4f", w.Seed, ways, r, prev)
		}
		prev = r
	}
	// 512 keys in a 1024-entry cache: only compulsory misses after warm-up.
	if r := rate(256, 4); r < 0.95 {
		t.Fatalf("seed %d: a working set smaller than the cache hits only %.3f", w.Seed, r)
	}
}
