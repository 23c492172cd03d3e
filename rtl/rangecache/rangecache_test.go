package rangecache

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"mkeysim/rtl/linecache"
)

// TestSizesShareTheWays: ranges of 4 KiB, 2 MiB and 1 GiB sit in one
// array and each is found from any address of it, in its own tag only; a
// full set evicts by the policy, never a pinned or hidden entry; an
// invalidation hides what its owner keeps and frees the rest.
func TestSizesShareTheWays(t *testing.T) {
	a := New[int](4, 0, linecache.LRU, 0)
	fill := func(tag, base uint64, log uint8, v int, pinned func(int) bool) int {
		t.Helper()
		i, _, ok := a.Fill(tag, base, log, v, pinned)
		if !ok {
			t.Fatalf("fill %#x: no room", base)
		}
		return i
	}
	small := fill(1, 0x1000, 12, 1, nil)
	big := fill(1, 0x20_0000, 21, 2, nil)
	huge := fill(2, 0x4000_0000, 30, 3, nil)
	for _, tc := range []struct {
		tag, addr uint64
		want      int
	}{{1, 0x1fff, small}, {1, 0x2000, -1}, {1, 0x3f_ffff, big}, {2, 0x20_0000, -1}, {2, 0x7fff_ffff, huge}, {1, 0x4000_0000, -1}} {
		if got := a.Lookup(tc.tag, tc.addr); got != tc.want {
			t.Errorf("lookup tag %d %#x: entry %d, want %d", tc.tag, tc.addr, got, tc.want)
		}
	}
	a.Use(small) // LRU order now: big, huge, small
	fill(1, 0x9000, 12, 4, nil)
	// Full: the victim is big, the least recently used; pinned, the
	// lowest way not pinned (small's) is taken instead.
	i, evicted, ok := a.Fill(1, 0xa000, 12, 5, func(i int) bool { return i == big })
	if !ok || !evicted || i != small || a.Lookup(1, 0x1000) != -1 || a.Lookup(1, 0x20_0000) != big || a.Lookup(1, 0xa000) != i {
		t.Errorf("fill past full with big pinned: entry %d (small %d), evicted %v, ok %v", i, small, evicted, ok)
	}
	// Invalidate 0..0x40_0000 of tag 1: big, 0x9000 and 0xa000; the
	// owner keeps big, hidden.
	if n := a.Invalidate(1, false, 0, 0x40_0000, func(i int) bool { return i == big }); n != 3 {
		t.Errorf("invalidated %d entries, want 3", n)
	}
	if !a.HiddenIn(0x20_0000, 0x20_1000) || a.Lookup(1, 0x20_0000) != -1 || a.Lookup(2, 0x4000_0000) != huge || a.Held() != 2 {
		t.Errorf("after the invalidation: hidden %v, lookups %d %d, held %d (want hidden, -1, huge, 2)",
			a.HiddenIn(0x20_0000, 0x20_1000), a.Lookup(1, 0x20_0000), a.Lookup(2, 0x4000_0000), a.Held())
	}
	for k := range 2 {
		fill(3, uint64(k+1)<<12, 12, 10+k, nil)
	}
	if _, _, ok := a.Fill(3, 0xc000, 12, 7, func(i int) bool { return i != big }); ok {
		t.Errorf("every way pinned or hidden: the fill must wait")
	}
	a.Free(big)
	if a.HiddenIn(0, 1<<63) || a.Held() != 3 {
		t.Errorf("after freeing the hidden entry: held %d", a.Held())
	}
}

// TestRandom fills, looks up and invalidates random ranges in several
// geometries and checks every lookup against a plain list of the live
// ranges: a hit is a live range of its tag holding the address, a miss
// means there is none, and no two live ranges of a tag meet.
func TestRandom(t *testing.T) {
	for _, g := range []struct{ entries, ways int }{{8, 0}, {16, 4}, {32, 2}, {4, 1}} {
		for seed := int64(1); seed <= 10; seed++ {
			t.Run(fmt.Sprintf("%dx%d/%d", g.entries, g.ways, seed), func(t *testing.T) {
				rng := rand.New(rand.NewSource(seed))
				a := New[uint64](g.entries, g.ways, []string{linecache.LRU, linecache.PLRU, linecache.NRU, linecache.Random}[seed%4], uint64(seed))
				for step := range 2000 {
					tag := uint64(rng.Intn(3))
					log := []uint8{12, 21, 30}[rng.Intn(3)]
					addr := uint64(rng.Intn(1<<33)) &^ 7
					base := addr &^ (1<<log - 1)
					switch rng.Intn(4) {
					case 0, 1:
						if a.Lookup(tag, addr) < 0 && !meets(a, tag, base, base+1<<log) {
							a.Fill(tag, base, log, base^0x5a5a, nil)
						}
					case 2:
						a.Invalidate(tag, rng.Intn(5) == 0, base, base+1<<log, nil)
					}
					got := a.Lookup(tag, addr)
					want := -1
					for i := range a.Len() {
						if e := a.At(i); e.Valid && !e.Hidden && e.Tag == tag && e.Contains(addr) {
							want = i
						}
					}
					if got != want || got >= 0 && a.At(got).Val != a.At(got).Base^0x5a5a {
						t.Fatalf("step %d: lookup tag %d %#x: entry %d, the list says %d", step, tag, addr, got, want)
					}
				}
			})
		}
	}
}

// meets reports whether a live range of tag meets [lo, hi).
func meets(a *Array[uint64], tag, lo, hi uint64) bool {
	for i := range a.Len() {
		if e := a.At(i); e.Valid && !e.Hidden && e.Tag == tag && e.Overlaps(lo, hi) {
			return true
		}
	}
	return false
}

// TestConfigValidate: each bad geometry is named under its prefix.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Entries: 0, Replacement: "lru"}, "x.entries = 0"},
		{Config{Entries: 8, Ways: 9, Replacement: "lru"}, "x.ways = 9"},
		{Config{Entries: 8, Ways: 3, Replacement: "lru"}, "not a whole number of sets"},
		{Config{Entries: 24, Ways: 4, Replacement: "lru"}, "sets = x.entries / x.ways = 6"},
		{Config{Entries: 8, Replacement: "fifo"}, `x.replacement = "fifo"`},
		{Config{Entries: 12, Replacement: "plru"}, "plru: needs a power-of-two number of ways, not 12"},
	} {
		if err := tc.c.Validate("x"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %q", tc.c, err, tc.want)
		}
	}
	if err := (Config{Entries: 64, Replacement: "lru"}).Validate("x"); err != nil {
		t.Errorf("64 entries, fully associative: %v", err)
	}
}
