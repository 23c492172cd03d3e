package mptcache

import "mkeysim/prm"

// line is one way of one set: a tag (the full MKey index, so a line never
// aliases whatever the set count), the decoded MKC with the firmware's
// created flag, and the replacement state.
type line struct {
	valid   bool
	index   uint32
	created bool
	mkc     prm.MKC
	// used is the value of the array's use counter at the line's last
	// install or hit: the smallest in a set is the least recently used.
	// Hardware keeps a few age bits per way; a counter orders the ways
	// the same way and never wraps in a run.
	used uint64
}

// array is the tag and data arrays: Sets x Ways lines, with the victim
// choice of the configured replacement policy.
type array struct {
	ways   int
	mask   uint32 // Sets - 1
	lines  []line // set s is lines[s*ways : (s+1)*ways]
	random bool
	prng   uint64 // xorshift64 state, never 0
	clock  uint64 // use counter for LRU
}

func newArray(c *Config) *array {
	a := &array{
		ways:   c.Ways,
		mask:   uint32(c.Sets - 1),
		lines:  make([]line, c.Sets*c.Ways),
		random: c.Replacement == ReplRandom,
		prng:   splitmix64(c.Seed),
	}
	if a.prng == 0 {
		a.prng = 0x9e3779b97f4a7c15
	}
	return a
}

// splitmix64 spreads a seed over 64 bits (so seeds 0, 1, 2 give unrelated
// sequences).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// next advances the PRNG (Marsaglia's xorshift64, a linear feedback shift
// register in disguise). It advances only when a victim is drawn, never on
// idle cycles, so runs with and without idle skipping draw the same ways.
func (a *array) next() uint64 {
	x := a.prng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	a.prng = x
	return x
}

func (a *array) set(index uint32) []line {
	s := int(index & a.mask)
	return a.lines[s*a.ways : (s+1)*a.ways]
}

// find returns the valid line of index, or nil.
func (a *array) find(index uint32) *line {
	set := a.set(index)
	for w := range set {
		if set[w].valid && set[w].index == index {
			return &set[w]
		}
	}
	return nil
}

// touch makes l the most recently used line of its set.
func (a *array) touch(l *line) {
	a.clock++
	l.used = a.clock
}

// install writes the MKC of index into its set, choosing the way: the line
// of index if it is somehow present, else the first invalid way, else the
// replacement policy's victim. It reports whether a valid line of another
// index was evicted.
func (a *array) install(index uint32, mkc prm.MKC, created bool) (evicted bool) {
	set := a.set(index)
	victim := -1
	for w := range set {
		if set[w].valid && set[w].index == index {
			victim = w
			break
		}
	}
	if victim < 0 {
		for w := range set {
			if !set[w].valid {
				victim = w
				break
			}
		}
	}
	if victim < 0 {
		evicted = true
		if a.random {
			victim = int(a.next() % uint64(a.ways))
		} else {
			victim = 0
			for w := 1; w < len(set); w++ {
				if set[w].used < set[victim].used {
					victim = w
				}
			}
		}
	}
	l := &set[victim]
	*l = line{valid: true, index: index, created: created, mkc: mkc}
	a.touch(l)
	return evicted
}

// drop invalidates the line of index and reports whether there was one.
func (a *array) drop(index uint32) bool {
	if l := a.find(index); l != nil {
		l.valid = false
		return true
	}
	return false
}

// dropAll invalidates every line and returns how many were valid.
func (a *array) dropAll() int {
	n := 0
	for i := range a.lines {
		if a.lines[i].valid {
			a.lines[i].valid = false
			n++
		}
	}
	return n
}

// occupancy counts the valid lines (for tests and statistics, not used on
// the clocked path).
func (a *array) occupancy() int {
	n := 0
	for i := range a.lines {
		if a.lines[i].valid {
			n++
		}
	}
	return n
}
