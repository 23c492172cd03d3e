// Package linecache is the tag and data array of a cache of lines of
// host memory: the storage that the MTT and KLM walkers keep their list
// entries in. Architects size it in entries, entries per line and ways
// (fully associative when ways is 0), with LRU, tree pseudo-LRU, NRU or
// random replacement (config.go, policy.go). It is a library, not a unit:
// it has no ports and no clock.
package linecache

// Stats counts what happened to the array. A lookup is one list entry a
// walker context needs (an MTT page, a KLM entry stepped over or used);
// each is counted once, when the context acts on it: a hit if its line was
// there, a miss if the context had to send a read for it. The lookup a
// context repeats once its own read has filled the line is neither: it
// was already counted as the miss that caused the fill. Each field's tags
// are the counter's one definition (sim.Counter); the walker lists them
// under its cache's group (mtt_cache, klm_cache).
type Stats struct {
	Hits          uint64 `counter:"hits" unit:"lookups" help:"entry lookups whose line was in the cache or the context's own line buffer, with no read needed" cover:"hit" coverdesc:"an entry lookup found its line, with no read"`
	Misses        uint64 `counter:"misses" unit:"lookups" help:"entry lookups whose line was absent, so the context sent a read of the line or joined the read of it another context had in flight (merged_misses); the lookup repeated after the line arrived is not counted again" cover:"miss" coverdesc:"an entry lookup missed: the walker context read the 64-byte line"`
	MergedMisses  uint64 `counter:"merged_misses" unit:"lookups" help:"misses whose line another context was already reading: the context waited for that read instead of sending its own (misses - merged_misses sent a read)"`
	Fills         uint64 `counter:"fills" unit:"lines" help:"lines installed from a successful read completion that was not stale"`
	Evictions     uint64 `counter:"evictions" unit:"lines" help:"fills that replaced a valid line of another address" cover:"eviction" coverdesc:"a line fill replaced a valid line of another address"`
	Invalidations uint64 `counter:"invalidations" unit:"lines" help:"valid lines dropped by invalidation commands (a UMR or a destroy rewrote list bytes they held)" cover:"invalidation" coverdesc:"a command that rewrote list bytes dropped a valid line"`
	Refetches     uint64 `counter:"refetches" unit:"reads" help:"reads sent again because an invalidation overlapped the line while its read was in flight (the data may predate it)" cover:"refetch" coverdesc:"an invalidation overlapped a line while its read was in flight: the stale fill was dropped and read again" coverwhy:"only a command rewrites a list, and a command drains the pipeline first (overlap_invalidate overlaps invalidations only, which rewrite no list): no scenario reaches it; the walkers' TestInvalidateDuringFetch drives it"`
}

// Cache is the array. Line i of the array is way i%ways of set i/ways;
// a line's tag is its line address + 1 (0: invalid).
type Cache struct {
	cfg        Config
	shift      uint // log2 of the line's bytes
	lineBytes  int
	sets, ways int
	tags       []uint64
	data       []byte   // line i is data[i*lineBytes : (i+1)*lineBytes]
	free       []uint64 // bit i: line i is invalid
	nfree      []int32  // by set: invalid lines
	index      map[uint64]int32
	pol        Policy
	Stats      Stats
}

// indexWays is the associativity above which a set is looked up through
// a map of its tags rather than by comparing them all (a CAM).
const indexWays = 16

// New makes an empty cache of entries of entryBytes bytes; cfg must be
// valid (Config.Validate).
func New(cfg Config, entryBytes int) *Cache {
	lines, ways := cfg.Lines(), cfg.SetWays()
	c := &Cache{cfg: cfg, lineBytes: cfg.EntriesPerLine * entryBytes, sets: lines / ways, ways: ways,
		tags: make([]uint64, lines), free: make([]uint64, (lines+63)/64), nfree: make([]int32, lines/ways)}
	c.shift = log2(c.lineBytes)
	c.data = make([]byte, lines*c.lineBytes)
	for i := range lines {
		c.free[i>>6] |= 1 << (i & 63)
	}
	for s := range c.nfree {
		c.nfree[s] = int32(ways)
	}
	if ways > indexWays {
		c.index = make(map[uint64]int32, lines)
	}
	c.pol = NewPolicy(cfg.Replacement, c.sets, ways, cfg.Seed)
	return c
}

// LineBytes is the size of a line: what a miss reads.
func (c *Cache) LineBytes() int { return c.lineBytes }

// LineAddr is the address of the line holding addr.
func (c *Cache) LineAddr(addr uint64) uint64 { return addr &^ uint64(c.lineBytes-1) }

// find returns the array index of the line at line address la, or -1.
func (c *Cache) find(la uint64) int {
	if c.index != nil {
		if i, ok := c.index[la]; ok {
			return int(i)
		}
		return -1
	}
	base := int(la&uint64(c.sets-1)) * c.ways
	for i, t := range c.tags[base : base+c.ways] {
		if t == la+1 {
			return base + i
		}
	}
	return -1
}

// line is the data of array line i (its capacity ends with it: an append
// cannot reach the next line).
func (c *Cache) line(i int) []byte {
	return c.data[i*c.lineBytes : (i+1)*c.lineBytes : (i+1)*c.lineBytes]
}

// Probe returns the line holding addr without counting anything or
// touching the replacement state: a unit that may stall probes first and
// calls Use once it acts.
func (c *Cache) Probe(addr uint64) ([]byte, bool) {
	if i := c.find(addr >> c.shift); i >= 0 {
		return c.line(i), true
	}
	return nil, false
}

// Use counts a lookup of addr that the context of s acted on: a hit
// (making the line the most recently used, if it is still cached: a
// context may have used its own copy of a line just filled) or a miss
// (the context sends a read, or joins one in flight: merged). The first
// lookup after the context's own fill counts nothing when it hits: its
// miss was counted already.
func (c *Cache) Use(s *Slot, addr uint64, hit, merged bool) Counted {
	replay := s.replay
	s.replay = false
	if !hit {
		c.Stats.Misses++
		if merged {
			c.Stats.MergedMisses++
		}
		return CountedMiss
	}
	counted := CountedNothing
	if !replay {
		c.Stats.Hits++
		counted = CountedHit
	}
	la := addr >> c.shift
	if i := c.find(la); i >= 0 {
		// The set from the address (sets is a power of two): no division.
		set := int(la & uint64(c.sets-1))
		c.pol.Touch(set, i-set*c.ways)
	}
	return counted
}

// Counted is what Use counted: nothing (a replay), a hit or a miss.
type Counted uint8

// What Use counted.
const (
	CountedNothing Counted = iota
	CountedHit
	CountedMiss
)

// Overlaps reports whether the line of n bytes at line address a holds
// any byte of [lo, hi); it does not wrap at 2^64.
func Overlaps(a uint64, n int, lo, hi uint64) bool { return a < hi && a+uint64(n-1) >= lo }

// Fill installs the line at addr (its line address): into the line that
// holds it already, else the lowest invalid way of its set, else the
// policy's victim.
func (c *Cache) Fill(addr uint64, data []byte) {
	la := addr >> c.shift
	i := c.find(la)
	if i < 0 {
		set := int(la & uint64(c.sets-1))
		base := set * c.ways
		if c.nfree[set] > 0 {
			i = firstIn(c.free, base, base+c.ways, true)
			c.free[i>>6] &^= 1 << (i & 63)
			c.nfree[set]--
		} else {
			i = base + c.pol.Victim(set)
			c.Stats.Evictions++
			if c.index != nil {
				delete(c.index, c.tags[i]-1)
			}
		}
		c.tags[i] = la + 1
		if c.index != nil {
			c.index[la] = int32(i)
		}
	}
	c.pol.Touch(i/c.ways, i%c.ways)
	l := c.line(i)
	clear(l[copy(l, data):])
	c.Stats.Fills++
}

// drop invalidates array line i.
func (c *Cache) drop(i int) {
	if c.index != nil {
		delete(c.index, c.tags[i]-1)
	}
	c.tags[i] = 0
	c.free[i>>6] |= 1 << (i & 63)
	c.nfree[i/c.ways]++
	c.pol.Drop(i/c.ways, i%c.ways)
	c.Stats.Invalidations++
}

// Invalidate drops every line overlapping [lo, hi); all drops everything.
// A range of fewer lines than a scan would look at is looked up line by
// line, so that a UMR's few lines do not cost a scan of a large cache.
func (c *Cache) Invalidate(lo, hi uint64, all bool) {
	if !all && hi > 0 {
		// The lines overlapping [lo, hi) are first..last (Overlaps).
		first, last := lo>>c.shift, (hi-1)>>c.shift
		if first > last {
			return
		}
		if n := last - first; n < uint64(c.sets) || (c.index != nil && n < uint64(len(c.tags))) {
			for la := first; ; la++ {
				if i := c.find(la); i >= 0 {
					c.drop(i)
				}
				if la == last {
					return
				}
			}
		}
	}
	for i, t := range c.tags {
		if t != 0 && (all || Overlaps((t-1)<<c.shift, c.lineBytes, lo, hi)) {
			c.drop(i)
		}
	}
}

// Refetch restarts the stale fetch of s (see Slot.Stale), counting it, and
// returns the line's address to read again.
func (c *Cache) Refetch(s *Slot) uint64 {
	c.Stats.Refetches++
	return s.Restart()
}

// Valid is the number of valid lines.
func (c *Cache) Valid() int {
	n := 0
	for _, t := range c.tags {
		if t != 0 {
			n++
		}
	}
	return n
}
