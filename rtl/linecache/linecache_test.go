package linecache

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// refLRU is the reference: per set, the tags held, most recently used
// first, and their data.
type refLRU struct {
	sets, ways int
	order      [][]uint64 // per set, MRU first
	data       map[uint64][LineSize]byte
	stats      Stats
}

func newRef(cfg Config) *refLRU {
	return &refLRU{sets: cfg.Sets, ways: cfg.Ways, order: make([][]uint64, cfg.Sets), data: map[uint64][LineSize]byte{}}
}

func (r *refLRU) set(la uint64) int { return int(la % uint64(r.sets)) }

func (r *refLRU) touch(la uint64) {
	s := r.set(la)
	i := slices.Index(r.order[s], la)
	r.order[s] = slices.Delete(r.order[s], i, i+1)
	r.order[s] = slices.Insert(r.order[s], 0, la)
}

func (r *refLRU) lookup(addr uint64) ([LineSize]byte, bool) {
	la := addr / LineSize
	if slices.Contains(r.order[r.set(la)], la) {
		r.touch(la)
		r.stats.Hits++
		return r.data[la], true
	}
	r.stats.Misses++
	return [LineSize]byte{}, false
}

// fill returns the evicted tag, if any.
func (r *refLRU) fill(addr uint64, d [LineSize]byte) (uint64, bool) {
	la := addr / LineSize
	s := r.set(la)
	r.stats.Fills++
	r.data[la] = d
	if slices.Contains(r.order[s], la) {
		r.touch(la)
		return 0, false
	}
	var ev uint64
	evicted := false
	if len(r.order[s]) == r.ways {
		ev = r.order[s][r.ways-1]
		r.order[s] = r.order[s][:r.ways-1]
		delete(r.data, ev)
		r.stats.Evictions++
		evicted = true
	}
	r.order[s] = slices.Insert(r.order[s], 0, la)
	return ev, evicted
}

func (r *refLRU) invalidate(lo, hi uint64, all bool) {
	for s := range r.order {
		kept := r.order[s][:0]
		for _, la := range r.order[s] {
			a := la * LineSize
			// overlap of [a, a+64) and [lo, hi), computed without wrap
			if all || a < hi && a+(LineSize-1) >= lo {
				delete(r.data, la)
				r.stats.Invalidations++
				continue
			}
			kept = append(kept, la)
		}
		r.order[s] = kept
	}
}

func (r *refLRU) valid() int {
	n := 0
	for _, o := range r.order {
		n += len(o)
	}
	return n
}

func lineData(seed int64, la uint64, v int) [LineSize]byte {
	var d [LineSize]byte
	for i := range d {
		d[i] = byte(uint64(seed) ^ la*31 ^ uint64(v)*7 ^ uint64(i)*13)
	}
	return d
}

func TestValidate(t *testing.T) {
	cases := []struct {
		cfg Config
		ok  bool
	}{
		{Config{Sets: 1, Ways: 1}, true},
		{Config{Sets: 64, Ways: 4}, true},
		{Config{Sets: 1024, Ways: 64}, true},
		{Config{Sets: 0, Ways: 4}, false},
		{Config{Sets: 3, Ways: 4}, false},
		{Config{Sets: 6, Ways: 4}, false},
		{Config{Sets: -4, Ways: 4}, false},
		{Config{Sets: 4, Ways: 0}, false},
		{Config{Sets: 4, Ways: 65}, false},
	}
	for _, tc := range cases {
		err := tc.cfg.Validate("x.")
		if (err == nil) != tc.ok {
			t.Errorf("%+v: err %v, want ok=%v", tc.cfg, err, tc.ok)
		}
	}
}

// TestLRUDirected walks one 4-way set through the classic sequence.
func TestLRUDirected(t *testing.T) {
	c := New(Config{Sets: 1, Ways: 4})
	line := func(n uint64) uint64 { return n * LineSize }
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
			t.Fatalf("line %d: ok %v data %d", n, ok, d[0])
		}
	}
	// Refill of a held line replaces its data in place: no eviction.
	ev := c.Stats.Evictions
	c.Fill(line(0), []byte{99})
	if d, ok := lookup(c, line(0)); !ok || d[0] != 99 || c.Stats.Evictions != ev || c.Valid() != 4 {
		t.Fatalf("refill: ok %v data %d evictions %d->%d valid %d", ok, d[0], ev, c.Stats.Evictions, c.Valid())
	}
	want := Stats{Hits: 7, Misses: 2, Fills: 7, Evictions: 2}
	if c.Stats != want {
		t.Fatalf("stats %+v, want %+v", c.Stats, want)
	}
}

// TestSetIndexing: lines land in set (addr/64) mod sets; other sets are
// untouched by a set's evictions.
func TestSetIndexing(t *testing.T) {
	c := New(Config{Sets: 4, Ways: 1})
	c.Fill(0*LineSize, nil)
	c.Fill(1*LineSize, nil)
	c.Fill(4*LineSize, nil) // set 0 again: evicts line 0
	if _, ok := lookup(c, 0); ok {
		t.Fatal("line 0 survived a conflicting fill in a 1-way set")
	}
	if _, ok := lookup(c, 1*LineSize); !ok {
		t.Fatal("line 1 (set 1) was evicted by a fill of set 0")
	}
	if _, ok := lookup(c, 4*LineSize+63); !ok {
		t.Fatal("last byte of line 4 missed")
	}
	if _, ok := lookup(c, 4*LineSize+64); ok {
		t.Fatal("byte after line 4 hit")
	}
}

// TestInvalidateRanges: [lo, hi) drops exactly the lines it overlaps.
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
		{name: "as many lines as sets", lo: 0, hi: 8 * LineSize, gone: []uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "one line fewer than sets", lo: LineSize, hi: 8 * LineSize, gone: []uint64{1, 2, 3, 4, 5, 6, 7}},
		{name: "all", all: true, gone: []uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "whole space", lo: 0, hi: ^uint64(0), gone: []uint64{0, 1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Config{Sets: 8, Ways: 2})
			for n := uint64(0); n < 8; n++ {
				c.Fill(n*LineSize, []byte{byte(n)})
			}
			c.Invalidate(tc.lo, tc.hi, tc.all)
			if c.Stats.Invalidations != uint64(len(tc.gone)) || c.Valid() != 8-len(tc.gone) {
				t.Fatalf("invalidations %d valid %d, want %d dropped", c.Stats.Invalidations, c.Valid(), len(tc.gone))
			}
			for n := uint64(0); n < 8; n++ {
				_, ok := lookup(c, n*LineSize)
				if ok == slices.Contains(tc.gone, n) {
					t.Errorf("line %d held=%v after Invalidate(%#x, %#x, %v)", n, ok, tc.lo, tc.hi, tc.all)
				}
			}
			// A dropped way is the first one refilled: no eviction.
			ev := c.Stats.Evictions
			if len(tc.gone) > 0 {
				c.Fill(tc.gone[0]*LineSize, nil)
				if c.Stats.Evictions != ev {
					t.Fatal("refill into an invalidated way evicted a line")
				}
			}
		})
	}
}

// TestInvalidateTopOfAddressSpace: the line at 2^64-64 overlaps any range
// [lo, hi) with lo < 2^64 and hi > 2^64-64; it must be dropped.
func TestInvalidateTopOfAddressSpace(t *testing.T) {
	top := ^uint64(0) - (LineSize - 1) // 0xffff_ffff_ffff_ffc0
	cases := []struct{ lo, hi uint64 }{
		{top, ^uint64(0)},
		{top - 128, ^uint64(0)},
		{top + 8, top + 16},
		{0, ^uint64(0)},
	}
	for _, tc := range cases {
		c := New(Config{Sets: 4, Ways: 2})
		c.Fill(top, []byte{1})
		c.Invalidate(tc.lo, tc.hi, false)
		if _, ok := lookup(c, top); ok {
			t.Errorf("Invalidate(%#x, %#x): line %#x (overlapping) still held", tc.lo, tc.hi, top)
		}
	}
}

// TestRandomVsReference runs random lookups, fills and invalidations over
// small geometries and compares every answer, every victim and the
// counters with the reference LRU lists.
func TestRandomVsReference(t *testing.T) {
	geoms := []Config{{1, 1}, {1, 2}, {1, 4}, {2, 3}, {4, 4}, {8, 2}, {16, 8}}
	for gi, g := range geoms {
		for k := range int64(8) {
			seed := int64(gi)*100 + k + 1
			rng := rand.New(rand.NewSource(seed))
			c := New(g)
			r := newRef(g)
			// A pool of lines a few times the capacity, some far apart.
			nLines := g.Sets*g.Ways*3 + 2
			pool := make([]uint64, nLines)
			for i := range pool {
				switch rng.Intn(4) {
				case 0:
					pool[i] = uint64(rng.Int63n(1<<20)) * LineSize
				case 1:
					pool[i] = (uint64(rng.Int63()) % (1 << 57)) * LineSize // high addresses
				default:
					pool[i] = uint64(i) * LineSize
				}
			}
			version := 0
			for op := range 3000 {
				a := pool[rng.Intn(nLines)] + uint64(rng.Intn(LineSize))
				ctx := func() string { return fmt.Sprintf("seed %d geom %+v op %d", seed, g, op) }
				switch x := rng.Intn(10); {
				case x < 5:
					got, ok := lookup(c, a)
					want, wok := r.lookup(a)
					if ok != wok {
						t.Fatalf("%s: Lookup(%#x) hit %v, reference %v", ctx(), a, ok, wok)
					}
					if ok && *got != want {
						t.Fatalf("%s: Lookup(%#x) data differs", ctx(), a)
					}
				case x < 9:
					version++
					d := lineData(seed, a/LineSize, version)
					c.Fill(a, d[:])
					r.fill(a, d)
				default:
					lo := pool[rng.Intn(nLines)] + uint64(rng.Intn(LineSize))
					hi := lo + uint64(rng.Intn(4*LineSize))
					all := rng.Intn(20) == 0
					c.Invalidate(lo, hi, all)
					r.invalidate(lo, hi, all)
				}
				if c.Stats != r.stats {
					t.Fatalf("%s: stats %+v, reference %+v", ctx(), c.Stats, r.stats)
				}
				if c.Valid() != r.valid() {
					t.Fatalf("%s: Valid %d, reference %d", ctx(), c.Valid(), r.valid())
				}
			}
			// Every line the reference holds is held, with its data; no
			// other line of the pool is.
			for _, la := range pool {
				want, wok := r.lookup(la)
				got, ok := lookup(c, la)
				if ok != wok || ok && *got != want {
					t.Fatalf("seed %d geom %+v: final line %#x held %v, reference %v", seed, g, la, ok, wok)
				}
			}
		}
	}
}

// lookup probes addr and counts the lookup as a context with no fill of
// its own in flight would.
func lookup(c *Cache, addr uint64) (*[LineSize]byte, bool) {
	var s Slot
	data, ok := c.Probe(addr)
	c.Use(&s, addr, ok)
	return data, ok
}
