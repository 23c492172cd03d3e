package linecache

import (
	"fmt"
	"testing"
)

// TestSlot: a fetch invalidated in flight is stale and fetched again; a
// filled line is kept for the context after the shared cache evicts it,
// and dropped by an invalidation of its range.
func TestSlot(t *testing.T) {
	c := newGeom(t, 1, 1)
	var s Slot
	if a := c.Start(&s, 0x1234); a != 0x1200 || !s.Awaits(0x1200) || s.Awaits(0x1240) {
		t.Fatalf("Start(0x1234) = %#x", a)
	}
	if a, ok := s.Fetching(); a != 0x1200 || !ok {
		t.Fatalf("Fetching() = %#x, %v", a, ok)
	}
	c.InvalidateSlot(&s, 0x2000, 0x3000, false)
	if s.Stale() {
		t.Fatal("an invalidation elsewhere made the fetch stale")
	}
	c.InvalidateSlot(&s, 0x1230, 0x1231, false)
	if !s.Stale() || c.Refetch(&s) != 0x1200 || s.Stale() || c.Stats.Refetches != 1 {
		t.Fatal("an overlapping invalidation did not make the fetch stale, or Refetch did not clear it")
	}
	line := make([]byte, lineSize)
	line[0x34] = 0xab
	s.Filled(line, true)
	if _, ok := s.Fetching(); ok {
		t.Fatal("Filled left the fetch")
	}
	c.Fill(0x1200, line)
	c.Fill(0x9900, make([]byte, lineSize)) // evicts 0x1200 from the one-line cache
	if _, ok := c.Probe(0x1234); ok {
		t.Fatal("the one-line cache kept two lines")
	}
	if d, ok := c.Get(&s, 0x1234); !ok || d[0x34] != 0xab || len(d) != lineSize {
		t.Fatal("the slot did not keep its filled line")
	}
	c.InvalidateSlot(&s, 0, 0, true)
	if _, ok := c.Get(&s, 0x1234); ok {
		t.Fatal("InvalidateSlot(all) left the kept line")
	}
	var f Slot
	c.Start(&f, 0x40)
	f.Filled(nil, false)
	if _, ok := c.Get(&f, 0x40); ok || f.Awaits(0x40) {
		t.Fatal("a failed read left a line or a fetch")
	}
}

// TestSlotLineSizes: the slot's fetch, kept line and invalidation follow
// the cache's line, from 8 to 128 bytes.
func TestSlotLineSizes(t *testing.T) {
	for _, g := range []struct{ epl, eb int }{{1, 8}, {2, 8}, {4, 8}, {8, 8}, {1, 16}, {8, 16}} {
		lb := uint64(g.epl * g.eb)
		t.Run(fmt.Sprintf("%dB", lb), func(t *testing.T) {
			c := newValid(t, Geometry(1, 1, g.epl), g.eb)
			var s Slot
			base := 100 * lb
			if a := c.Start(&s, base+lb-1); a != base {
				t.Fatalf("Start(%#x) = %#x, want %#x", base+lb-1, a, base)
			}
			// The bytes just outside the line do not make it stale.
			c.InvalidateSlot(&s, base+lb, base+2*lb, false)
			c.InvalidateSlot(&s, base-lb, base, false)
			if s.Stale() {
				t.Fatal("an invalidation next to the line made it stale")
			}
			c.InvalidateSlot(&s, base+lb-1, base+lb, false)
			if !s.Stale() {
				t.Fatal("an invalidation of the line's last byte did not make it stale")
			}
			c.Refetch(&s)
			data := lineData(3, base/lb, 1, int(lb))
			s.Filled(data, true)
			c.Fill(base, data)
			c.Fill(base+lb, nil) // evicts it
			d, ok := c.Get(&s, base+lb/2)
			if !ok || string(d) != string(data) {
				t.Fatalf("kept line: ok %v % x, want % x", ok, d, data)
			}
			if _, ok := c.Get(&s, base+lb); !ok {
				t.Fatal("the cached line was not found through Get")
			}
			if _, ok := c.Get(&s, base-1); ok {
				t.Fatal("Get of the byte before the kept line hit")
			}
			c.InvalidateSlot(&s, base+lb, base+2*lb, false)
			if _, ok := c.Get(&s, base); !ok {
				t.Fatal("an invalidation past the kept line dropped it")
			}
			c.InvalidateSlot(&s, base, base+1, false)
			if _, ok := c.Get(&s, base); ok {
				t.Fatal("an invalidation of the kept line's first byte left it")
			}
		})
	}
}

// TestUseCounting: the lookup repeated after the context's own fill counts
// nothing (its miss was counted); a merged miss counts as a miss and a
// merged one; a hit on the slot's line alone counts and touches nothing.
func TestUseCounting(t *testing.T) {
	c := newGeom(t, 1, 2)
	var s, o Slot
	c.Use(&s, 0x40, false, false) // s sends a read
	c.Start(&s, 0x40)
	c.Use(&o, 0x44, false, true) // o joins it
	c.Start(&o, 0x44)
	want := Stats{Misses: 2, MergedMisses: 1}
	if c.Stats != want {
		t.Fatalf("stats %+v, want %+v", c.Stats, want)
	}
	data := make([]byte, lineSize)
	c.Fill(0x40, data)
	s.Filled(data, true)
	o.Filled(data, true)
	c.Use(&s, 0x48, true, false) // the replay of s's miss
	c.Use(&o, 0x48, true, false) // and of o's
	want.Fills = 1
	if c.Stats != want {
		t.Fatalf("replays counted: stats %+v, want %+v", c.Stats, want)
	}
	c.Use(&s, 0x48, true, false) // a new lookup
	want.Hits = 1
	if c.Stats != want {
		t.Fatalf("stats %+v, want %+v", c.Stats, want)
	}
	// Line 0x80 fills the other way; a hit of 0x40 through the cache
	// makes 0x80 the LRU one, a hit of an absent line touches nothing.
	c.Fill(0x80, nil)
	c.Use(&s, 0x40, true, false)
	c.Use(&s, 0x1000, true, false)
	c.Fill(0xc0, nil)
	if _, ok := c.Probe(0x80); ok {
		t.Fatal("0x80 (LRU) survived")
	}
	if _, ok := c.Probe(0x40); !ok {
		t.Fatal("0x40 (MRU) was evicted")
	}
	want.Hits, want.Fills, want.Evictions = 3, 3, 1
	if c.Stats != want {
		t.Fatalf("stats %+v, want %+v", c.Stats, want)
	}
}
