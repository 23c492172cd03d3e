package linecache

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand"
	"slices"
	"strings"
)

// This file holds the reference models the cache is compared with, and
// the driver that runs the same random operations on both.

// refGeom is the shape of cfg, worked out from the fields alone: the
// line's bytes, the sets and the lines of a set.
func refGeom(cfg Config, entryBytes int) (lb uint64, sets, ways int) {
	lines := cfg.Entries / cfg.EntriesPerLine
	ways = cfg.Ways
	if ways == 0 {
		ways = lines
	}
	return uint64(cfg.EntriesPerLine * entryBytes), lines / ways, ways
}

// refOverlaps: the line of lb bytes at a holds a byte of [lo, hi),
// counted without wrapping (a+lb may be 2^64).
func refOverlaps(a, lb, lo, hi uint64) bool { return a < hi && a+(lb-1) >= lo }

// refPad is data as a line of lb bytes holds it: cut, or padded with 0.
func refPad(data []byte, lb uint64) []byte {
	d := make([]byte, lb)
	copy(d, data)
	return d
}

// refModel is a reference cache, addressed by line number (address / line
// bytes).
type refModel interface {
	// lookup counts a lookup (as Probe then Use): a hit makes the line
	// the most recently used.
	lookup(la uint64, merged bool) ([]byte, bool)
	// useHit counts a hit of a line the context may hold only in its
	// slot: the line is touched if the cache holds it.
	useHit(la uint64)
	fill(la uint64, data []byte)
	invalidate(lo, hi uint64, all bool)
	stats() Stats
	// check compares the cache with the model: the set of line la, or
	// every set when all.
	check(c *Cache, la uint64, all bool) error
}

// refLRU is the LRU reference: per set, the lines held, most recently
// used first, and their data. It knows nothing of ways.
type refLRU struct {
	lb         uint64
	sets, ways int
	order      [][]uint64 // per set, MRU first
	data       map[uint64][]byte
	st         Stats
}

func newRefLRU(cfg Config, entryBytes int) *refLRU {
	lb, sets, ways := refGeom(cfg, entryBytes)
	return &refLRU{lb: lb, sets: sets, ways: ways, order: make([][]uint64, sets), data: map[uint64][]byte{}}
}

func (r *refLRU) set(la uint64) int { return int(la % uint64(r.sets)) }

func (r *refLRU) touch(la uint64) {
	s := r.set(la)
	i := slices.Index(r.order[s], la)
	r.order[s] = slices.Delete(r.order[s], i, i+1)
	r.order[s] = slices.Insert(r.order[s], 0, la)
}

func (r *refLRU) lookup(la uint64, merged bool) ([]byte, bool) {
	if slices.Contains(r.order[r.set(la)], la) {
		r.touch(la)
		r.st.Hits++
		return r.data[la], true
	}
	r.st.Misses++
	if merged {
		r.st.MergedMisses++
	}
	return nil, false
}

func (r *refLRU) useHit(la uint64) {
	r.st.Hits++
	if slices.Contains(r.order[r.set(la)], la) {
		r.touch(la)
	}
}

// fill evicts the least recently used line of a full set.
func (r *refLRU) fill(la uint64, d []byte) {
	s := r.set(la)
	r.st.Fills++
	r.data[la] = refPad(d, r.lb)
	if slices.Contains(r.order[s], la) {
		r.touch(la)
		return
	}
	if len(r.order[s]) == r.ways {
		delete(r.data, r.order[s][r.ways-1])
		r.order[s] = r.order[s][:r.ways-1]
		r.st.Evictions++
	}
	r.order[s] = slices.Insert(r.order[s], 0, la)
}

func (r *refLRU) invalidate(lo, hi uint64, all bool) {
	for s := range r.order {
		kept := r.order[s][:0]
		for _, la := range r.order[s] {
			if all || refOverlaps(la*r.lb, r.lb, lo, hi) {
				delete(r.data, la)
				r.st.Invalidations++
				continue
			}
			kept = append(kept, la)
		}
		r.order[s] = kept
	}
}

func (r *refLRU) stats() Stats { return r.st }

func (r *refLRU) valid() int {
	n := 0
	for _, o := range r.order {
		n += len(o)
	}
	return n
}

// check: every line the reference holds is held with its data, and the
// cache holds as many lines (so no other).
func (r *refLRU) check(c *Cache, la uint64, all bool) error {
	for s := range r.order {
		if !all && s != r.set(la) {
			continue
		}
		for _, l := range r.order[s] {
			got, ok := c.Probe(l*r.lb + uint64(l)%r.lb)
			if !ok {
				return fmt.Errorf("line %#x (set %d) missing; reference set MRU first %#x", l*r.lb, s, r.order[s])
			}
			if !bytes.Equal(got, r.data[l]) {
				return fmt.Errorf("line %#x data % x, reference % x", l*r.lb, got, r.data[l])
			}
		}
	}
	if v := c.Valid(); v != r.valid() {
		return fmt.Errorf("Valid %d, reference %d", v, r.valid())
	}
	return nil
}

// refPol is a reference replacement policy: the state of every set.
type refPol interface {
	touch(set, way int)
	drop(set, way int)
	victim(set int) int
}

// refLRUPol: per set, the valid ways, most recently used first.
type refLRUPol struct{ order [][]int }

func (p *refLRUPol) touch(s, w int) {
	p.drop(s, w)
	p.order[s] = slices.Insert(p.order[s], 0, w)
}

func (p *refLRUPol) drop(s, w int) {
	if i := slices.Index(p.order[s], w); i >= 0 {
		p.order[s] = slices.Delete(p.order[s], i, i+1)
	}
}

func (p *refLRUPol) victim(s int) int { return p.order[s][len(p.order[s])-1] }

// refPLRUPol: per set, the node bits of the tree, node 1 the root over
// every way and node k's children 2k (lower half) and 2k+1 (upper half);
// true says the victim is in the upper half. Walked from the root down.
type refPLRUPol struct {
	ways int
	bits [][]bool // [set][node], node 1..ways-1
}

func (p *refPLRUPol) touch(s, w int) {
	node, lo, hi := 1, 0, p.ways
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if w < mid { // used the lower half: the victim is in the upper one
			p.bits[s][node] = true
			node, hi = 2*node, mid
		} else {
			p.bits[s][node] = false
			node, lo = 2*node+1, mid
		}
	}
}

func (p *refPLRUPol) drop(int, int) {}

func (p *refPLRUPol) victim(s int) int {
	node, lo, hi := 1, 0, p.ways
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if p.bits[s][node] {
			node, lo = 2*node+1, mid
		} else {
			node, hi = 2*node, mid
		}
	}
	return lo
}

// refNRUPol: per set, a referenced flag per way.
type refNRUPol struct{ ref [][]bool }

func (p *refNRUPol) touch(s, w int) {
	p.ref[s][w] = true
	if !slices.Contains(p.ref[s], false) {
		clear(p.ref[s])
		p.ref[s][w] = true
	}
}

func (p *refNRUPol) drop(s, w int) { p.ref[s][w] = false }

func (p *refNRUPol) victim(s int) int { return max(slices.Index(p.ref[s], false), 0) }

// refRandomPol: splitmix64 from the seed, one draw per victim whatever
// its set, scaled to the ways as floor(z * ways / 2^64).
type refRandomPol struct {
	ways  int
	state uint64
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (p *refRandomPol) touch(int, int) {}
func (p *refRandomPol) drop(int, int)  {}

func (p *refRandomPol) victim(int) int {
	z := new(big.Int).SetUint64(splitmix64(&p.state))
	z.Mul(z, big.NewInt(int64(p.ways)))
	return int(z.Rsh(z, 64).Int64())
}

func newRefPol(cfg Config, sets, ways int) refPol {
	switch cfg.Replacement {
	case LRU:
		return &refLRUPol{order: make([][]int, sets)}
	case PLRU:
		p := &refPLRUPol{ways: ways, bits: make([][]bool, sets)}
		for s := range p.bits {
			p.bits[s] = make([]bool, ways)
		}
		return p
	case NRU:
		p := &refNRUPol{ref: make([][]bool, sets)}
		for s := range p.ref {
			p.ref[s] = make([]bool, ways)
		}
		return p
	case Random:
		return &refRandomPol{ways: ways, state: cfg.Seed}
	}
	panic("no reference for replacement " + cfg.Replacement)
}

type refLine struct {
	valid bool
	la    uint64
	data  []byte
}

// refCache is the reference of any policy, way by way: the lowest
// invalid way of a set is filled first, else the policy's victim.
type refCache struct {
	lb         uint64
	sets, ways int
	lines      [][]refLine // [set][way]
	pol        refPol
	st         Stats
}

func newRefCache(cfg Config, entryBytes int) *refCache {
	lb, sets, ways := refGeom(cfg, entryBytes)
	r := &refCache{lb: lb, sets: sets, ways: ways, lines: make([][]refLine, sets), pol: newRefPol(cfg, sets, ways)}
	for s := range r.lines {
		r.lines[s] = make([]refLine, ways)
	}
	return r
}

func (r *refCache) find(la uint64) (s, w int) {
	s = int(la % uint64(r.sets))
	for w, l := range r.lines[s] {
		if l.valid && l.la == la {
			return s, w
		}
	}
	return s, -1
}

func (r *refCache) lookup(la uint64, merged bool) ([]byte, bool) {
	s, w := r.find(la)
	if w < 0 {
		r.st.Misses++
		if merged {
			r.st.MergedMisses++
		}
		return nil, false
	}
	r.st.Hits++
	r.pol.touch(s, w)
	return r.lines[s][w].data, true
}

func (r *refCache) useHit(la uint64) {
	r.st.Hits++
	if s, w := r.find(la); w >= 0 {
		r.pol.touch(s, w)
	}
}

func (r *refCache) fill(la uint64, data []byte) {
	r.st.Fills++
	s, w := r.find(la)
	if w < 0 {
		w = slices.IndexFunc(r.lines[s], func(l refLine) bool { return !l.valid })
		if w < 0 {
			w = r.pol.victim(s)
			r.st.Evictions++
		}
	}
	r.lines[s][w] = refLine{valid: true, la: la, data: refPad(data, r.lb)}
	r.pol.touch(s, w)
}

func (r *refCache) invalidate(lo, hi uint64, all bool) {
	for s := range r.lines {
		for w := range r.lines[s] {
			if l := &r.lines[s][w]; l.valid && (all || refOverlaps(l.la*r.lb, r.lb, lo, hi)) {
				*l = refLine{}
				r.pol.drop(s, w)
				r.st.Invalidations++
			}
		}
	}
}

func (r *refCache) stats() Stats { return r.st }

// check compares way by way: the cache's line s*ways+w is way w of set s
// (the array layout documented on Cache), so victims match exactly.
func (r *refCache) check(c *Cache, la uint64, all bool) error {
	n := 0
	for s := range r.lines {
		for _, l := range r.lines[s] {
			if l.valid {
				n++
			}
		}
		if !all && s != int(la%uint64(r.sets)) {
			continue
		}
		for w, l := range r.lines[s] {
			i := s*r.ways + w
			var want uint64
			if l.valid {
				want = l.la + 1
			}
			if c.tags[i] != want {
				return fmt.Errorf("set %d way %d: tag %#x, reference %#x (set %s, reference %s)", s, w, c.tags[i], want, c.setString(s), r.setString(s))
			}
			if l.valid && !bytes.Equal(c.line(i), l.data) {
				return fmt.Errorf("set %d way %d (line %#x): data % x, reference % x", s, w, l.la*r.lb, c.line(i), l.data)
			}
			if !l.valid {
				continue
			}
			if got, ok := c.Probe(l.la * r.lb); !ok || !bytes.Equal(got, l.data) {
				return fmt.Errorf("set %d way %d: Probe(%#x) hit %v", s, w, l.la*r.lb, ok)
			}
		}
	}
	if v := c.Valid(); v != n {
		return fmt.Errorf("Valid %d, reference %d", v, n)
	}
	return nil
}

func (r *refCache) setString(s int) string {
	var b strings.Builder
	for _, l := range r.lines[s] {
		if l.valid {
			fmt.Fprintf(&b, " %#x", l.la)
		} else {
			b.WriteString(" -")
		}
	}
	return "[" + strings.TrimSpace(b.String()) + "]"
}

// setString shows the line numbers of set s by way ("-": invalid).
func (c *Cache) setString(s int) string {
	var b strings.Builder
	for _, t := range c.tags[s*c.ways : (s+1)*c.ways] {
		if t != 0 {
			fmt.Fprintf(&b, " %#x", t-1)
		} else {
			b.WriteString(" -")
		}
	}
	return "[" + strings.TrimSpace(b.String()) + "]"
}

// opSource draws the random choices of a run.
type opSource interface {
	intn(n int) int
	more() bool
}

type rngSource struct{ r *rand.Rand }

func (s rngSource) intn(n int) int { return s.r.Intn(n) }
func (s rngSource) more() bool     { return true }

// byteSource draws from fuzz bytes: one byte for a choice of up to 256,
// else four; 0 once they run out.
type byteSource struct{ b []byte }

func (s *byteSource) more() bool { return len(s.b) > 0 }

func (s *byteSource) intn(n int) int {
	k := 1
	if n > 256 {
		k = 4
	}
	var v uint64
	for ; k > 0 && len(s.b) > 0; k-- {
		v = v<<8 | uint64(s.b[0])
		s.b = s.b[1:]
	}
	return int(v % uint64(n))
}

// makePool picks the line addresses of a run: a few times the lines of
// the cache, mostly consecutive (spread over the sets), some far apart,
// some at the top of the address space.
func makePool(src opSource, lb uint64, lines int) []uint64 {
	pool := make([]uint64, 3*lines+2)
	top := ^uint64(0) &^ (lb - 1)
	for i := range pool {
		switch src.intn(8) {
		case 0:
			pool[i] = uint64(src.intn(1<<20)) * lb
		case 1:
			pool[i] = (uint64(src.intn(1<<30))<<30 | uint64(src.intn(1<<30))) * lb // high
		case 2:
			pool[i] = top - uint64(src.intn(4))*lb
		default:
			pool[i] = uint64(i) * lb
		}
	}
	return pool
}

// satAdd is a+b, or 2^64-1 if that wraps.
func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// lineData is the version v of line la's data (n bytes).
func lineData(seed int64, la uint64, v, n int) []byte {
	d := make([]byte, n)
	for i := range d {
		d[i] = byte(uint64(seed) ^ la*31 ^ uint64(v)*7 ^ uint64(i)*13)
	}
	return d
}

// drive runs up to nOps random operations on c and on each model, and
// compares every answer, the counters and the models' state after each.
func drive(c *Cache, models []refModel, src opSource, nOps int, pool []uint64, seed int64) error {
	lb := uint64(c.LineBytes())
	lines := len(c.tags)
	var s Slot
	version := 0
	for op := 0; op < nOps && src.more(); op++ {
		a := pool[src.intn(len(pool))] + uint64(src.intn(int(lb)))
		la := a / lb
		all := false
		var what string
		switch x := src.intn(16); {
		case x < 7:
			merged := src.intn(2) == 0
			what = fmt.Sprintf("lookup %#x merged=%v", a, merged)
			got, ok := c.Probe(a)
			got = slices.Clone(got)
			c.Use(&s, a, ok, merged)
			for _, m := range models {
				want, wok := m.lookup(la, merged)
				if ok != wok {
					return fmt.Errorf("op %d %s: hit %v, reference %T %v", op, what, ok, m, wok)
				}
				if ok && !bytes.Equal(got, want) {
					return fmt.Errorf("op %d %s: data % x, reference %T % x", op, what, got, m, want)
				}
			}
		case x < 8:
			what = fmt.Sprintf("Use(%#x, hit) (the slot's line)", a)
			c.Use(&s, a, true, false)
			for _, m := range models {
				m.useHit(la)
			}
		case x < 14:
			n := int(lb)
			switch src.intn(6) {
			case 0:
				n = 0
			case 1:
				n = src.intn(int(lb))
			case 2:
				n = int(lb) + 1 + src.intn(8)
			}
			version++
			d := lineData(seed, la, version, n)
			what = fmt.Sprintf("Fill(%#x, %d bytes)", a, n)
			c.Fill(a, d)
			for _, m := range models {
				m.fill(la, d)
			}
		default:
			lo, hi := a, satAdd(a, uint64(src.intn(int(4*lb))))
			switch src.intn(10) {
			case 0:
				all = true
			case 1: // reversed, maybe within one line
				hi = lo - min(lo, uint64(src.intn(int(2*lb))))
			case 2: // from 0
				lo, hi = 0, uint64(src.intn(int(4*lb)))
			case 3: // many lines: past the line-by-line lookups
				hi = satAdd(lo, uint64(1+src.intn(2*lines+2))*lb)
			case 4:
				hi = ^uint64(0)
			}
			what = fmt.Sprintf("Invalidate(%#x, %#x, %v)", lo, hi, all)
			c.Invalidate(lo, hi, all)
			for _, m := range models {
				m.invalidate(lo, hi, all)
			}
			all = true // check every set
		}
		for _, m := range models {
			if c.Stats != m.stats() {
				return fmt.Errorf("op %d %s: stats %+v, reference %T %+v", op, what, c.Stats, m, m.stats())
			}
			if err := m.check(c, la, all); err != nil {
				return fmt.Errorf("op %d %s: %T: %v", op, what, m, err)
			}
		}
	}
	for _, m := range models {
		if err := m.check(c, 0, true); err != nil {
			return fmt.Errorf("at the end: %T: %v", m, err)
		}
	}
	return nil
}
