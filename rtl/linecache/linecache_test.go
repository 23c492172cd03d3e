package linecache

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"mkeysim/rtl/sim"
)

// lineSize is the line of the Geometry(sets, ways, 8) caches of MTT
// entries (entryBytes 8) that most directed tests use.
const lineSize = 64

// newGeom is the cache of sets x ways 64-byte lines, LRU.
func newGeom(t testing.TB, sets, ways int) *Cache {
	return newValid(t, Geometry(sets, ways, 8), 8)
}

// newValid is New(cfg, entryBytes), failing the test if cfg is invalid.
func newValid(t testing.TB, cfg Config, entryBytes int) *Cache {
	t.Helper()
	if err := cfg.Validate("test.", entryBytes); err != nil {
		t.Fatalf("%+v: %v", cfg, err)
	}
	return New(cfg, entryBytes)
}

// fullyAssoc is a fully associative config of lines lines.
func fullyAssoc(lines, entriesPerLine int, replacement string) Config {
	return Config{Entries: lines * entriesPerLine, EntriesPerLine: entriesPerLine, Replacement: replacement}
}

// lookup probes addr and counts the lookup as a context with no fill of
// its own in flight would.
func lookup(c *Cache, addr uint64) ([]byte, bool) {
	var s Slot
	data, ok := c.Probe(addr)
	c.Use(&s, addr, ok, false)
	return data, ok
}

// TestLRUDirected walks one 4-way set through the classic sequence.
func TestLRUDirected(t *testing.T) {
	c := newGeom(t, 1, 4)
	line := func(n uint64) uint64 { return n * lineSize }
	for n := uint64(0); n < 4; n++ {
		c.Fill(line(n), []byte{byte(n)})
	}
	// Use order now 0,1,2,3 (3 most recent). Touch 0 and 2.
	for _, n := range []uint64{0, 2} {
		if _, ok := lookup(c, line(n)+17); !ok {
			t.Fatalf("line %d missing", n)
		}
	}
	// LRU is 1, then 3.
	c.Fill(line(4), []byte{4})
	if _, ok := lookup(c, line(1)); ok {
		t.Fatal("line 1 (LRU) was not the victim")
	}
	c.Fill(line(5), []byte{5})
	if _, ok := lookup(c, line(3)); ok {
		t.Fatal("line 3 was not the second victim")
	}
	for _, n := range []uint64{0, 2, 4, 5} {
		d, ok := lookup(c, line(n))
		if !ok || d[0] != byte(n) {
			t.Fatalf("line %d: ok %v data %v", n, ok, d)
		}
	}
	// The victims took the ways of 1 and 3.
	if got, want := c.setString(0), "[0x0 0x4 0x2 0x5]"; got != want {
		t.Fatalf("set %s, want %s", got, want)
	}
	// Refill of a held line replaces its data in place: no eviction.
	ev := c.Stats.Evictions
	c.Fill(line(0), []byte{99})
	if d, ok := lookup(c, line(0)); !ok || d[0] != 99 || c.Stats.Evictions != ev || c.Valid() != 4 {
		t.Fatalf("refill: ok %v data %v evictions %d->%d valid %d", ok, d, ev, c.Stats.Evictions, c.Valid())
	}
	want := Stats{Hits: 7, Misses: 2, Fills: 7, Evictions: 2}
	if c.Stats != want {
		t.Fatalf("stats %+v, want %+v", c.Stats, want)
	}
}

// TestSetIndexing: lines land in set (addr/line bytes) mod sets; other
// sets are untouched by a set's evictions; a line holds exactly its bytes.
func TestSetIndexing(t *testing.T) {
	for _, g := range []struct{ epl, eb int }{{8, 8}, {1, 8}, {2, 8}, {1, 16}, {4, 16}, {8, 16}} {
		lb := uint64(g.epl * g.eb)
		t.Run(fmt.Sprintf("%dB", lb), func(t *testing.T) {
			c := newValid(t, Geometry(4, 1, g.epl), g.eb)
			if c.LineBytes() != int(lb) {
				t.Fatalf("LineBytes %d, want %d", c.LineBytes(), lb)
			}
			c.Fill(0*lb, nil)
			c.Fill(1*lb, nil)
			c.Fill(4*lb, nil) // set 0 again: evicts line 0
			if _, ok := lookup(c, 0); ok {
				t.Fatal("line 0 survived a conflicting fill in a 1-way set")
			}
			if _, ok := lookup(c, 1*lb); !ok {
				t.Fatal("line 1 (set 1) was evicted by a fill of set 0")
			}
			if d, ok := lookup(c, 4*lb+lb-1); !ok || len(d) != int(lb) {
				t.Fatalf("last byte of line 4: hit %v, %d bytes", ok, len(d))
			}
			if _, ok := lookup(c, 4*lb+lb); ok {
				t.Fatal("byte after line 4 hit")
			}
			if _, ok := lookup(c, 4*lb-1); ok {
				t.Fatal("byte before line 4 hit")
			}
			if got := c.setString(0) + c.setString(1) + c.setString(2); got != "[0x4][0x1][-]" {
				t.Fatalf("sets 0..2: %s", got)
			}
		})
	}
}

// TestInvalidateRanges: [lo, hi) drops exactly the lines it overlaps,
// whether the cache looks the range's lines up one by one (fewer than
// its sets, or a map index) or scans every line.
func TestInvalidateRanges(t *testing.T) {
	cases := []struct {
		name   string
		lo, hi uint64
		all    bool
		gone   []uint64 // line numbers dropped, of lines 0..7 held
	}{
		{name: "empty range", lo: 128, hi: 128},
		{name: "one byte", lo: 130, hi: 131, gone: []uint64{2}},
		{name: "exact line", lo: 128, hi: 192, gone: []uint64{2}},
		{name: "line end exclusive", lo: 64, hi: 128, gone: []uint64{1}},
		{name: "straddles", lo: 127, hi: 129, gone: []uint64{1, 2}},
		{name: "several", lo: 100, hi: 300, gone: []uint64{1, 2, 3, 4}},
		{name: "below all", lo: 0, hi: 0},
		{name: "above all", lo: 512, hi: 1 << 40},
		{name: "hi reversed", lo: 300, hi: 100},
		{name: "hi just below lo, in one line", lo: 100, hi: 90, gone: []uint64{1}},
		{name: "as many lines as sets", lo: 0, hi: 8 * lineSize, gone: []uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "one line fewer than sets", lo: lineSize, hi: 8 * lineSize, gone: []uint64{1, 2, 3, 4, 5, 6, 7}},
		{name: "all", all: true, gone: []uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "all ignores the range", lo: 5, hi: 6, all: true, gone: []uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "whole space", lo: 0, hi: ^uint64(0), gone: []uint64{0, 1, 2, 3, 4, 5, 6, 7}},
	}
	geoms := []struct {
		name string
		cfg  Config
	}{
		{"8x2", Geometry(8, 2, 8)},
		{"1x8", Geometry(1, 8, 8)},
		{"fully associative 16", fullyAssoc(16, 8, LRU)},
		{"fully associative 24 (indexed)", fullyAssoc(24, 8, LRU)},
		{"2x32 (indexed)", Geometry(2, 32, 8)},
	}
	for _, g := range geoms {
		for _, tc := range cases {
			t.Run(g.name+"/"+tc.name, func(t *testing.T) {
				c := newValid(t, g.cfg, 8)
				for n := uint64(0); n < 8; n++ {
					c.Fill(n*lineSize, []byte{byte(n)})
				}
				c.Invalidate(tc.lo, tc.hi, tc.all)
				if c.Stats.Invalidations != uint64(len(tc.gone)) || c.Valid() != 8-len(tc.gone) {
					t.Fatalf("invalidations %d valid %d, want %d dropped", c.Stats.Invalidations, c.Valid(), len(tc.gone))
				}
				for n := uint64(0); n < 8; n++ {
					_, ok := lookup(c, n*lineSize)
					if ok == slices.Contains(tc.gone, n) {
						t.Errorf("line %d held=%v after Invalidate(%#x, %#x, %v)", n, ok, tc.lo, tc.hi, tc.all)
					}
				}
				// A dropped line is refilled with no eviction, into the
				// lowest invalid way of its set.
				ev := c.Stats.Evictions
				for _, n := range tc.gone {
					c.Fill(n*lineSize+1, nil)
				}
				if c.Stats.Evictions != ev || c.Valid() != 8 {
					t.Fatalf("refill into invalidated ways: evictions %d->%d, valid %d", ev, c.Stats.Evictions, c.Valid())
				}
			})
		}
	}
}

// TestInvalidateTopOfAddressSpace: the line at 2^64-lb overlaps any range
// [lo, hi) with lo < 2^64 and hi > 2^64-lb; it must be dropped.
func TestInvalidateTopOfAddressSpace(t *testing.T) {
	for _, g := range []struct {
		cfg Config
		eb  int
	}{
		{Geometry(4, 2, 8), 8}, {Geometry(4, 2, 1), 8}, {Geometry(2, 2, 8), 16},
		{fullyAssoc(20, 2, LRU), 16}, {fullyAssoc(3, 4, LRU), 8},
	} {
		lb := uint64(g.cfg.EntriesPerLine * g.eb)
		top := ^uint64(0) - (lb - 1)
		cases := []struct{ lo, hi uint64 }{
			{top, ^uint64(0)},
			{top - 2*lb, ^uint64(0)},
			{top + lb/2, top + lb/2 + 1},
			{^uint64(0) - 1, ^uint64(0)},
			{0, ^uint64(0)},
		}
		for _, tc := range cases {
			c := newValid(t, g.cfg, g.eb)
			c.Fill(top, []byte{1})
			c.Fill(top-lb, []byte{2})
			c.Invalidate(tc.lo, tc.hi, false)
			if _, ok := lookup(c, top); ok {
				t.Errorf("%dB lines %+v: Invalidate(%#x, %#x): line %#x (overlapping) still held", lb, g.cfg, tc.lo, tc.hi, top)
			}
			if _, ok := lookup(c, top-lb); ok != (tc.lo >= top) {
				t.Errorf("%dB lines %+v: Invalidate(%#x, %#x): line %#x held %v", lb, g.cfg, tc.lo, tc.hi, top-lb, ok)
			}
		}
	}
}

// TestFillData: a fill of fewer bytes than a line clears the rest, of
// more keeps a line's worth; a refill replaces the data in place.
func TestFillData(t *testing.T) {
	for _, eb := range []int{8, 16} {
		c := newValid(t, fullyAssoc(2, 4, LRU), eb)
		lb := c.LineBytes()
		long := lineData(1, 0, 1, lb+5)
		c.Fill(0, long)
		if d, _ := c.Probe(3); !slices.Equal(d, long[:lb]) {
			t.Fatalf("%dB: long fill kept % x", lb, d)
		}
		c.Fill(1, []byte{7, 8})
		want := make([]byte, lb)
		want[0], want[1] = 7, 8
		if d, _ := c.Probe(0); !slices.Equal(d, want) {
			t.Fatalf("%dB: short refill kept % x, want % x", lb, d, want)
		}
		c.Fill(uint64(lb), nil)
		if d, _ := c.Probe(uint64(lb)); !slices.Equal(d, make([]byte, lb)) {
			t.Fatalf("%dB: nil fill kept % x", lb, d)
		}
		if c.Valid() != 2 || c.Stats.Fills != 3 || c.Stats.Evictions != 0 {
			t.Fatalf("%dB: valid %d stats %+v", lb, c.Valid(), c.Stats)
		}
	}
}

// TestLineGeometry: line bytes are entries per line x entry bytes, and a
// line's address is its first byte's.
func TestLineGeometry(t *testing.T) {
	for _, epl := range []int{1, 2, 4, 8} {
		for _, eb := range []int{8, 16} {
			c := newValid(t, Geometry(2, 2, epl), eb)
			lb := epl * eb
			if c.LineBytes() != lb {
				t.Errorf("%d x %dB: LineBytes %d", epl, eb, c.LineBytes())
			}
			for _, a := range []uint64{0, 1, 7, 8, 0x12345, 0x1000 - 1, ^uint64(0)} {
				want := a / uint64(lb) * uint64(lb)
				if got := c.LineAddr(a); got != want {
					t.Errorf("%dB lines: LineAddr(%#x) = %#x, want %#x", lb, a, got, want)
				}
				var s Slot
				if got := c.Start(&s, a); got != want || !s.Awaits(want) {
					t.Errorf("%dB lines: Start(%#x) = %#x, want %#x", lb, a, got, want)
				}
			}
		}
	}
}

// TestCounters: the counters are the Stats fields, merged misses among
// them, in the same order as their words.
func TestCounters(t *testing.T) {
	c := newGeom(t, 1, 1)
	var s Slot
	c.Use(&s, 0, false, true)
	c.Use(&s, 0, false, false)
	c.Fill(0, nil)
	c.Use(&s, 0, true, false)
	cs := sim.CountersOf("mtt_cache", &c.Stats)
	var vs []uint64
	for _, w := range sim.WordsOf(&c.Stats) {
		vs = append(vs, w...)
	}
	want := map[string]uint64{"mtt_cache.hits": 1, "mtt_cache.misses": 2, "mtt_cache.merged_misses": 1, "mtt_cache.fills": 1,
		"mtt_cache.evictions": 0, "mtt_cache.invalidations": 0, "mtt_cache.refetches": 0}
	if len(cs) != len(want) || len(vs) != len(cs) {
		t.Fatalf("%d counters, %d values, want %d", len(cs), len(vs), len(want))
	}
	for i, k := range cs {
		if w, ok := want[k.Name]; !ok || k.Value != w || vs[i] != w {
			t.Errorf("counter %s = %d (value %d), want %d (known %v)", k.Name, k.Value, vs[i], w, ok)
		}
	}
}

// refGeoms are the geometries compared with the references: sets x ways
// of line sizes 8..128 bytes (MTT entries of 8 bytes, KLM of 16), fully
// associative ones of any number of lines, and sets of more than 16 ways
// (looked up through the map index).
var refGeoms = []struct {
	cfg Config
	eb  int
}{
	// The 64-byte geometries of Config{Sets, Ways}.
	{Geometry(1, 1, 8), 8}, {Geometry(1, 2, 8), 8}, {Geometry(1, 4, 8), 8}, {Geometry(2, 3, 8), 8},
	{Geometry(4, 4, 8), 8}, {Geometry(8, 2, 8), 8}, {Geometry(16, 8, 8), 8},
	// Other line sizes.
	{Geometry(4, 2, 1), 8}, {Geometry(2, 3, 2), 8}, {Geometry(8, 1, 4), 8}, {Geometry(2, 4, 1), 16},
	{Geometry(4, 2, 2), 16}, {Geometry(2, 2, 4), 16}, {Geometry(4, 3, 8), 16},
	// Fully associative.
	{fullyAssoc(1, 1, LRU), 8}, {fullyAssoc(3, 2, LRU), 8}, {fullyAssoc(5, 8, LRU), 16},
	{fullyAssoc(16, 4, LRU), 8}, {fullyAssoc(17, 1, LRU), 16}, {fullyAssoc(24, 8, LRU), 8},
	{fullyAssoc(100, 1, LRU), 16}, {fullyAssoc(100, 8, LRU), 16},
	// More than 16 ways in several sets.
	{Geometry(2, 20, 1), 8}, {Geometry(4, 17, 2), 16}, {Geometry(2, 33, 8), 8},
}

// TestRandomVsReference runs random lookups, fills and invalidations over
// small geometries and compares every answer, every victim and the
// counters with the reference LRU lists.
func TestRandomVsReference(t *testing.T) {
	for gi, g := range refGeoms {
		for k := range int64(8) {
			seed := int64(gi)*100 + k + 1
			src := rngSource{rand.New(rand.NewSource(seed))}
			c := newValid(t, g.cfg, g.eb)
			lb, _, _ := refGeom(g.cfg, g.eb)
			pool := makePool(src, lb, g.cfg.Lines())
			if err := drive(c, []refModel{newRefLRU(g.cfg, g.eb)}, src, 3000, pool, seed); err != nil {
				t.Fatalf("seed %d geometry %+v entry bytes %d: %v", seed, g.cfg, g.eb, err)
			}
		}
	}
}
