// Package linecache is the tag and data array of a set-associative cache
// of 64-byte lines of host memory, with LRU replacement: the storage that
// the MTT and KLM walkers keep their list entries in. It is a library, not
// a unit: it has no ports and no clock.
package linecache

import (
	"fmt"

	"mkeysim/rtl/sim"
)

// LineSize is the size of a cached line; lists are fetched in such lines.
const LineSize = 64

// Config is the geometry of a line cache.
type Config struct {
	Sets int `toml:"sets" json:"sets" range:"power of two in 1..2^20" help:"sets of 64-byte lines; lines = sets x ways (at most 2^20)"`
	Ways int `toml:"ways" json:"ways" range:"1..64" help:"ways per set (LRU replacement)"`
}

// Validate names the first bad field (prefix, then its key), with its
// value and what it may be: the bounds of the range tags above, and the
// rule that ties the two together.
func (c Config) Validate(prefix string) error {
	if c.Sets < 1 || c.Sets > 1<<20 || c.Sets&(c.Sets-1) != 0 {
		return fmt.Errorf("%ssets = %d: want power of two in 1..2^20", prefix, c.Sets)
	}
	if c.Ways < 1 || c.Ways > 64 {
		return fmt.Errorf("%sways = %d: want 1..64", prefix, c.Ways)
	}
	if c.Sets > 1<<20/c.Ways {
		return fmt.Errorf("%ssets x ways = %d x %d: want at most 2^20 lines", prefix, c.Sets, c.Ways)
	}
	return nil
}

// Stats counts what happened to the array. A lookup is one list entry a
// walker context needs (an MTT page, a KLM entry stepped over or used);
// each is counted once, when the context acts on it: a hit if its line was
// there, a miss if the context had to send a read for it. The lookup a
// context repeats once its own read has filled the line is neither: it
// was already counted as the miss that caused the fill. Each field's tags
// are the counter's one definition (sim.Counter); the walker lists them
// under its cache's group (mtt_cache, klm_cache).
type Stats struct {
	Hits          uint64 `counter:"hits" unit:"lookups" help:"entry lookups whose line was in the cache or the context's own line buffer, with no read needed"`
	Misses        uint64 `counter:"misses" unit:"lookups" help:"entry lookups whose line was absent, so the context sent a 64-byte read (the lookup repeated after that read filled the line is not counted again)"`
	Fills         uint64 `counter:"fills" unit:"lines" help:"lines installed from a successful read completion that was not stale"`
	Evictions     uint64 `counter:"evictions" unit:"lines" help:"fills that replaced a valid line of another address"`
	Invalidations uint64 `counter:"invalidations" unit:"lines" help:"valid lines dropped by invalidation commands (a UMR or a destroy rewrote list bytes they held)"`
	Refetches     uint64 `counter:"refetches" unit:"reads" help:"reads sent again because an invalidation overlapped the line while its read was in flight (the data may predate it)"`
}

type line struct {
	valid bool
	tag   uint64 // line address / LineSize
	used  uint64 // LRU stamp
	data  [LineSize]byte
}

// Cache is the array.
type Cache struct {
	cfg   Config
	lines []line
	clock uint64
	Stats Stats
	cread sim.CounterReader // reads stats for CounterValues
}

// New makes an empty cache; cfg must be valid.
func New(cfg Config) *Cache {
	return &Cache{cfg: cfg, lines: make([]line, cfg.Sets*cfg.Ways)}
}

func (c *Cache) set(la uint64) []line {
	s := int(la & uint64(c.cfg.Sets-1))
	return c.lines[s*c.cfg.Ways : (s+1)*c.cfg.Ways]
}

// Probe returns the line holding addr without counting anything or
// touching the replacement state: a unit that may stall probes first and
// calls Use once it acts.
func (c *Cache) Probe(addr uint64) (*[LineSize]byte, bool) {
	la := addr / LineSize
	set := c.set(la)
	for i := range set {
		if set[i].valid && set[i].tag == la {
			return &set[i].data, true
		}
	}
	return nil, false
}

// Use counts a lookup of addr that the context of s acted on: a hit
// (making the line the most recently used, if it is still cached: a
// context may have used its own copy of a line just filled) or a miss
// (the context sends a read). The first lookup after the context's own
// fill counts nothing when it hits: its miss was counted already.
func (c *Cache) Use(s *Slot, addr uint64, hit bool) {
	replay := s.replay
	s.replay = false
	if !hit {
		c.Stats.Misses++
		return
	}
	if !replay {
		c.Stats.Hits++
	}
	la := addr / LineSize
	set := c.set(la)
	for i := range set {
		if set[i].valid && set[i].tag == la {
			c.clock++
			set[i].used = c.clock
			return
		}
	}
}

// Overlaps reports whether the line at line address a (a multiple of
// LineSize) holds any byte of [lo, hi); it does not wrap at 2^64.
func Overlaps(a, lo, hi uint64) bool { return a < hi && a+(LineSize-1) >= lo }

// Fill installs the line at addr, replacing the least recently used way.
func (c *Cache) Fill(addr uint64, data []byte) {
	la := addr / LineSize
	set := c.set(la)
	v := victim(set, la)
	if set[v].valid && set[v].tag != la {
		c.Stats.Evictions++
	}
	c.clock++
	set[v] = line{valid: true, tag: la, used: c.clock}
	copy(set[v].data[:], data)
	c.Stats.Fills++
}

// Invalidate drops every line overlapping [lo, hi); all drops everything.
// A range of fewer lines than the cache has sets is looked up line by
// line, so that a UMR's few lines do not cost a scan of a large cache.
func (c *Cache) Invalidate(lo, hi uint64, all bool) {
	if !all && hi > 0 {
		// The lines overlapping [lo, hi) are first..last (Overlaps).
		first, last := lo/LineSize, (hi-1)/LineSize
		if first > last {
			return
		}
		if last-first < uint64(c.cfg.Sets) {
			for la := first; ; la++ {
				set := c.set(la)
				for i := range set {
					if set[i].valid && set[i].tag == la {
						set[i].valid = false
						c.Stats.Invalidations++
					}
				}
				if la == last {
					return
				}
			}
		}
	}
	for i := range c.lines {
		l := &c.lines[i]
		if !l.valid {
			continue
		}
		if all || Overlaps(l.tag*LineSize, lo, hi) {
			l.valid = false
			c.Stats.Invalidations++
		}
	}
}

// Counters lists the counters under group (mtt_cache, klm_cache).
func (c *Cache) Counters(group string) []sim.Counter { return sim.CountersOf(group, &c.Stats) }

// CounterValues appends the values of Counters, in its order.
func (c *Cache) CounterValues(vs []uint64) []uint64 { return c.cread.Values(&c.Stats, vs) }

// Refetch restarts the stale fetch of s (see Slot.Stale), counting it, and
// returns the line's address to read again.
func (c *Cache) Refetch(s *Slot) uint64 {
	c.Stats.Refetches++
	return s.Restart()
}

// Valid is the number of valid lines.
func (c *Cache) Valid() int {
	n := 0
	for i := range c.lines {
		if c.lines[i].valid {
			n++
		}
	}
	return n
}

// victim picks the way for line la: the one holding it, else an invalid
// one, else the least recently used.
func victim(set []line, la uint64) int {
	inv, lru := -1, 0
	for i := range set {
		switch {
		case set[i].valid && set[i].tag == la:
			return i
		case !set[i].valid:
			if inv < 0 {
				inv = i
			}
		case set[i].used < set[lru].used || !set[lru].valid:
			lru = i
		}
	}
	if inv >= 0 {
		return inv
	}
	return lru
}
