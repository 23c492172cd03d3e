package vectors

import (
	"slices"

	"mkeysim/rtl"
)

// prngStep is the random replacement's xorshift64 step, as the manifest,
// the package and docs/vectors-mptcache.md write it.
const prngStep = "x ^= x << 13; x ^= x >> 7; x ^= x << 17 (64-bit, shifts fill with zeros)"

// The operations of an mptcache trace.
const (
	OpLookup   = 0 // look the index up; a hit makes its line the most recently used
	OpFill     = 1 // install the index's line (after a miss)
	OpInval    = 2 // drop the index's line, if present
	OpInvalAll = 3 // drop every line
)

var cacheOpNames = []string{"LOOKUP", "FILL", "INVAL", "INVAL_ALL"}

// MPTCacheVector is one operation of a trace on the MKC cache's tag array,
// and what the array does.
type MPTCacheVector struct {
	Op    uint8
	Index uint32 // MKey index, 24 bits
	// Expected, from the reference array.
	Hit        bool   // LOOKUP: a line holds the index; INVAL: one was dropped
	Way        uint8  // LOOKUP hit: its way; FILL: the way written; INVAL hit: the way dropped
	Evict      bool   // FILL: a valid line of another index was replaced
	EvictIndex uint32 // FILL with evict: that index
	Count      uint32 // INVAL_ALL: the lines dropped
}

// cacheArray is the reference model of rtl/mptcache's tag array
// (rtl/mptcache/cache.go, documented in its doc.go): set = index mod Sets,
// the tag is the full index; a fill writes the index's own line if present,
// else the first invalid way, else the victim: the least recently used way
// (a hit or a fill makes a line the most recently used), or for "random"
// the way xorshift64() mod Ways, the xorshift64 state starting at
// splitmix64(seed) (0x9e3779b97f4a7c15 if that is 0) and advancing only
// when a victim is drawn. rtl/mptcache keeps its array unexported; this is
// the documented behaviour written once more, small enough to check by
// reading.
type cacheArray struct {
	sets, ways int
	random     bool
	prng       uint64
	clock      uint64
	valid      []bool
	tag        []uint32
	used       []uint64
}

func newCacheArray(sets, ways int, random bool, seed uint64) *cacheArray {
	a := &cacheArray{sets: sets, ways: ways, random: random, prng: splitmix64(seed),
		valid: make([]bool, sets*ways), tag: make([]uint32, sets*ways), used: make([]uint64, sets*ways)}
	if a.prng == 0 {
		a.prng = 0x9e3779b97f4a7c15
	}
	return a
}

// splitmix64 is rtl/mptcache's seed spreader.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (a *cacheArray) base(index uint32) int { return int(index&uint32(a.sets-1)) * a.ways }

func (a *cacheArray) find(index uint32) int {
	b := a.base(index)
	for w := range a.ways {
		if a.valid[b+w] && a.tag[b+w] == index {
			return w
		}
	}
	return -1
}

func (a *cacheArray) touch(i int) {
	a.clock++
	a.used[i] = a.clock
}

func (a *cacheArray) apply(v *MPTCacheVector) {
	v.Hit, v.Way, v.Evict, v.EvictIndex, v.Count = false, 0, false, 0, 0
	b := a.base(v.Index)
	switch v.Op {
	case OpLookup:
		if w := a.find(v.Index); w >= 0 {
			v.Hit, v.Way = true, uint8(w)
			a.touch(b + w)
		}
	case OpFill:
		w := a.find(v.Index)
		if w < 0 {
			for x := range a.ways {
				if !a.valid[b+x] {
					w = x
					break
				}
			}
		}
		if w < 0 {
			if a.random {
				x := a.prng
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				a.prng = x
				w = int(x % uint64(a.ways))
			} else {
				w = 0
				for x := 1; x < a.ways; x++ {
					if a.used[b+x] < a.used[b+w] {
						w = x
					}
				}
			}
			v.Evict, v.EvictIndex = true, a.tag[b+w]
		}
		v.Way = uint8(w)
		a.valid[b+w], a.tag[b+w] = true, v.Index
		a.touch(b + w)
	case OpInval:
		if w := a.find(v.Index); w >= 0 {
			v.Hit, v.Way = true, uint8(w)
			a.valid[b+w] = false
		}
	case OpInvalAll:
		for i := range a.valid {
			if a.valid[i] {
				v.Count++
				a.valid[i] = false
			}
		}
	}
}

func mptcacheLayout() *Layout {
	return newLayout([]Field{
		{Name: "op", Width: 2, Dir: DirInput, Enum: "cache_op", Meaning: "0 LOOKUP, 1 FILL, 2 INVAL (one index), 3 INVAL_ALL (enums.cache_op)"},
		{Name: "index", Width: 24, Dir: DirInput, Meaning: "mkey_index, MKey bits 31:8 (set = index mod SETS, the tag is the whole index); ignored by INVAL_ALL"},
		{Name: "hit", Width: 1, Dir: DirExpected, CompareWhen: "op != 2'd1 && op != 2'd3", Meaning: "LOOKUP: a valid line holds index; INVAL: one did (and is dropped)"},
		{Name: "way", Width: 8, Dir: DirExpected, CompareWhen: "op == 2'd1 || (op != 2'd3 && exp_hit)", Meaning: "LOOKUP or INVAL hit: the line's way; FILL: the way written (the index's own line, else the first invalid way, else the victim)"},
		{Name: "evict", Width: 1, Dir: DirExpected, CompareWhen: "op == 2'd1", Meaning: "FILL: a valid line of another index was replaced"},
		{Name: "evict_index", Width: 24, Dir: DirExpected, CompareWhen: "op == 2'd1 && exp_evict", Meaning: "FILL with evict: the index whose line was replaced"},
		{Name: "count", Width: 24, Dir: DirExpected, CompareWhen: "op == 2'd3", Meaning: "INVAL_ALL: the number of valid lines dropped"},
	})
}

func (v *MPTCacheVector) encode(l *Layout, ln Line) {
	l.set(ln, "op", uint64(v.Op))
	l.set(ln, "index", uint64(v.Index))
	l.set(ln, "hit", b2u(v.Hit))
	l.set(ln, "way", uint64(v.Way))
	l.set(ln, "evict", b2u(v.Evict))
	l.set(ln, "evict_index", uint64(v.EvictIndex))
	l.set(ln, "count", uint64(v.Count))
}

func decodeMPTCache(l *Layout, ln Line) MPTCacheVector {
	return MPTCacheVector{Op: uint8(l.Get(ln, "op")), Index: uint32(l.Get(ln, "index")), Hit: l.Get(ln, "hit") == 1,
		Way: uint8(l.Get(ln, "way")), Evict: l.Get(ln, "evict") == 1, EvictIndex: uint32(l.Get(ln, "evict_index")), Count: uint32(l.Get(ln, "count"))}
}

// mptcacheDirected is a fixed prologue: fill one set past its ways, touch
// the oldest line, fill again (LRU keeps it), invalidate a line and refill
// the hole (an invalid way is used before any victim), fill an index that
// is present, invalidate a missing index, and drop everything.
func mptcacheDirected(sets, ways int) []MPTCacheVector {
	var vs []MPTCacheVector
	idx := func(k int) uint32 { return uint32(k*sets+3%sets) & 0xffffff }
	add := func(op uint8, k int) { vs = append(vs, MPTCacheVector{Op: op, Index: idx(k)}) }
	vs = append(vs, MPTCacheVector{Op: OpInvalAll})
	for k := range ways + 1 {
		add(OpLookup, k)
		add(OpFill, k)
	}
	add(OpLookup, 1)
	add(OpFill, ways+1)
	add(OpLookup, 1)
	add(OpInval, 2)
	add(OpInval, 2)
	add(OpFill, ways+2)
	add(OpFill, 1)
	add(OpLookup, ways+7)
	add(OpInval, ways+7)
	vs = append(vs, MPTCacheVector{Op: OpInvalAll})
	add(OpLookup, 1)
	return vs
}

// fullEpisodeLines bounds the caches whose traces fill every line before
// some clears: a bigger cache would spend the whole trace filling.
const fullEpisodeLines = 4096

func genMPTCache(o *Options) (*unitResult, error) {
	l := mptcacheLayout()
	random := o.Replacement == rtl.ReplRandom
	res := &unitResult{
		desc:   "MKC cache tag array: lookups, fills and invalidations with hit, way and victim (docs/vectors-mptcache.md)",
		layout: l,
		enums:  append(commonEnums(), Enum{Name: "cache_op", Width: 2, Values: []EnumValue{{"LOOKUP", OpLookup}, {"FILL", OpFill}, {"INVAL", OpInval}, {"INVAL_ALL", OpInvalAll}}}),
		params: []Param{
			{Name: "SETS", Value: Hex64(uint64(o.Sets)), DUT: true, Meaning: "sets, a power of two"},
			{Name: "WAYS", Value: Hex64(uint64(o.Ways)), DUT: true, Meaning: "ways per set"},
			{Name: "REPL_RANDOM", Value: Hex64(b2u(random)), DUT: true, Meaning: "0: the victim is the set's least recently used line (true LRU); 1: the victim is way x mod WAYS of the random generator (PRNG_INIT)"},
			{Name: "REPL_SEED", Value: Hex64(o.ReplSeed), Meaning: "--mkc-cache.seed, the seed of the random replacement: PRNG_INIT = splitmix64(REPL_SEED) (docs/vectors-mptcache.md); not passed to the DUT"},
			{Name: "PRNG_INIT", Value: Hex64(newCacheArray(1, 1, true, o.ReplSeed).prng), DUT: true, Meaning: "the random replacement's 64-bit state x after reset: splitmix64(REPL_SEED), or 0x9e3779b97f4a7c15 if that is 0. One generator for the whole cache; a FILL that needs a victim first steps it, " + prngStep + ", then takes way x mod WAYS"},
		},
		sources: []string{"directed prologue (docs/vectors-mptcache.md)"},
		points: []CoveragePoint{
			{"LOOKUP_HIT", "LOOKUP of an index a valid line holds"},
			{"LOOKUP_MISS", "LOOKUP of an index no valid line holds"},
			{"FILL", "FILL into way 0 without an eviction"},
			{"FILL_WAY_N", "FILL into a way > 0 without an eviction"},
			{"FILL_EVICT", "FILL that replaces a valid line of another index (the victim)"},
			{"FILL_PRESENT", "FILL of an index a valid line already holds: that line is rewritten and becomes the most recently used"},
			{"INVAL_HIT", "INVAL of an index a valid line holds"},
			{"INVAL_MISS", "INVAL of an index no valid line holds"},
			{"INVAL_ALL", "INVAL_ALL"},
			{"INVAL_ALL_FULL", "INVAL_ALL of a full cache: count = SETS x WAYS"},
		},
	}
	if o.Ways == 1 {
		res.points = slices.DeleteFunc(res.points, func(p CoveragePoint) bool { return p.Name == "FILL_WAY_N" })
	}
	ps := []Port{
		{Name: "clk", Direction: "input", Width: 1, Meaning: "clock: the operation presented during a cycle takes effect at its rising edge"},
		{Name: "rst", Direction: "input", Width: 1, Meaning: "synchronous reset, active high, held for the first two rising edges: every line invalid, every set's age order empty, the random generator's state x = PRNG_INIT"},
		{Name: "op_valid", Direction: "input", Width: 1, Meaning: "an operation is presented this cycle (low during reset)"},
	}
	res.dut = DUT{Module: "mkeysim_mptcache", Handshake: "clocked",
		Description: Timing("clocked") + " The harness passes the parameters SETS, WAYS, REPL_RANDOM and PRNG_INIT (all 64-bit) to the DUT instance.",
		Ports:       append(ps, ports(l)...)}
	vs := mptcacheDirected(o.Sets, o.Ways)
	if len(vs) > o.Count {
		vs = vs[:o.Count]
	}
	res.directed = len(vs)
	r := newRNG(o.Seed, 4)
	lines := o.Sets * o.Ways
	// A working set about 1.5 times the cache, crowded into a few sets
	// half of the time, and occasional indexes from anywhere.
	hot := make([]uint32, max(lines+lines/2, 4))
	for i := range hot {
		if r.bool() {
			hot[i] = uint32(r.n(64))*uint32(o.Sets) + uint32(r.n(uint64(min(o.Sets, 4))))
		} else {
			hot[i] = uint32(r.bits(24))
		}
		hot[i] &= 0xffffff
	}
	arr := newCacheArray(o.Sets, o.Ways, random, o.ReplSeed)
	for i := range vs {
		arr.apply(&vs[i])
	}
	add := func(v MPTCacheVector) {
		if len(vs) < o.Count {
			arr.apply(&v)
			vs = append(vs, v)
		}
	}
	for k := 0; len(vs) < o.Count; k++ {
		if k%1024 == 0 && o.stopped() {
			return nil, ErrStopped
		}
		// Now and then (about once per max(lines, 20) operations, in caches
		// of at most fullEpisodeLines lines) fill every invalid line with
		// an index of its set and clear the full cache: INVAL_ALL's count
		// reaches SETS x WAYS.
		if lines <= fullEpisodeLines && r.n(uint64(max(lines, 20))) == 0 {
			for s := range o.Sets {
				for w := range o.Ways {
					if arr.valid[s*o.Ways+w] {
						continue
					}
					idx := uint32(s)
					for k := 0; k == 0 || arr.find(idx) >= 0; k++ {
						idx = (uint32(r.n(uint64(1<<24/o.Sets)))*uint32(o.Sets) + uint32(s)) & 0xffffff
					}
					add(MPTCacheVector{Op: OpFill, Index: idx})
				}
			}
			add(MPTCacheVector{Op: OpInvalAll, Index: uint32(r.bits(24))})
			continue
		}
		var v MPTCacheVector
		switch r.pick(70, 10, 12, 1, 7, 4) {
		case 0, 1:
			v.Op = OpLookup
			if r.pct(90) {
				v.Index = hot[r.intn(len(hot))]
			} else {
				v.Index = uint32(r.bits(24))
			}
			if r.pct(10) {
				v.Op = OpFill // a fill without a lookup: present or not
			}
		case 2:
			v.Op, v.Index = OpInval, hot[r.intn(len(hot))]
		case 3:
			v.Op, v.Index = OpInvalAll, uint32(r.bits(24))
		case 5: // FILL or INVAL of the index of a line, valid or not
			i := r.intn(lines)
			v.Op, v.Index = OpFill, arr.tag[i]
			if r.bool() {
				v.Op = OpInval
			}
			if !arr.valid[i] {
				v.Op, v.Index = OpLookup, hot[r.intn(len(hot))]
			}
		default:
			v.Op, v.Index = OpLookup, uint32(r.bits(24))
		}
		arr.apply(&v)
		vs = append(vs, v)
		if v.Op == OpLookup && !v.Hit && len(vs) < o.Count { // a miss is filled, as the cache does
			f := MPTCacheVector{Op: OpFill, Index: v.Index}
			arr.apply(&f)
			vs = append(vs, f)
		}
	}
	replay := newCacheArray(o.Sets, o.Ways, random, o.ReplSeed) // for the state before each op
	return encodeAll(res, l, vs, func(v *MPTCacheVector, cov coverage) {
		if v.Op == OpFill && replay.find(v.Index) >= 0 {
			cov["FILL_PRESENT"]++
		}
		if v.Op == OpInvalAll && int(v.Count) == lines {
			cov["INVAL_ALL_FULL"]++
		}
		w := *v
		replay.apply(&w)
		name := cacheOpNames[v.Op]
		switch {
		case v.Op == OpFill && v.Evict:
			name += "_EVICT"
		case v.Op == OpFill && v.Way > 0:
			name += "_WAY_N"
		case (v.Op == OpLookup || v.Op == OpInval) && v.Hit:
			name += "_HIT"
		case v.Op == OpLookup || v.Op == OpInval:
			name += "_MISS"
		}
		cov[name]++
	})
}
