package linecache

import "math/bits"

// Policy is a replacement policy's state for every set. Lines are
// numbered across the array: set s holds lines s*ways .. s*ways+ways-1,
// and a way is a line's number within its set. The cache fills an invalid
// way first (the lowest), so a policy is asked for a victim only when its
// set is full. Other arrays of the model (the ATC's entries) use the same
// policies through NewPolicy.
type Policy interface {
	// Touch records a use of way (a hit, or the fill that made it valid).
	Touch(set, way int)
	// Drop records that way became invalid.
	Drop(set, way int)
	// Victim picks the way to evict from a full set.
	Victim(set int) int
}

// NewPolicy returns the state of policy name (LRU, PLRU, NRU or Random;
// anything else is LRU) for sets x ways lines.
func NewPolicy(name string, sets, ways int, seed uint64) Policy {
	switch name {
	case PLRU:
		return &plru{ways: ways, bits: make([]uint64, (sets*ways+63)/64)}
	case NRU:
		return &nru{ways: ways, ref: make([]uint64, (sets*ways+63)/64), n: make([]int32, sets)}
	case Random:
		return &random{ways: ways, s: seed}
	default:
		l := &lru{ways: ways, prev: make([]int32, sets*ways), next: make([]int32, sets*ways),
			in: make([]bool, sets*ways), head: make([]int32, sets), tail: make([]int32, sets)}
		for i := range l.head {
			l.head[i], l.tail[i] = -1, -1
		}
		return l
	}
}

// lru keeps each set's valid lines in a list, most recently used first:
// a use moves a line to the front and the victim is the back, each in
// constant time, however many ways a set has.
type lru struct {
	ways       int
	prev, next []int32 // by line; -1 ends the list
	in         []bool  // by line: on its set's list
	head, tail []int32 // by set; -1: empty
}

func (l *lru) unlink(set, i int) {
	p, n := l.prev[i], l.next[i]
	if p >= 0 {
		l.next[p] = n
	} else {
		l.head[set] = n
	}
	if n >= 0 {
		l.prev[n] = p
	} else {
		l.tail[set] = p
	}
	l.in[i] = false
}

func (l *lru) Touch(set, way int) {
	i := set*l.ways + way
	if l.in[i] {
		if l.head[set] == int32(i) {
			return
		}
		l.unlink(set, i)
	}
	h := l.head[set]
	l.prev[i], l.next[i] = -1, h
	if h >= 0 {
		l.prev[h] = int32(i)
	} else {
		l.tail[set] = int32(i)
	}
	l.head[set] = int32(i)
	l.in[i] = true
}

func (l *lru) Drop(set, way int) {
	if i := set*l.ways + way; l.in[i] {
		l.unlink(set, i)
	}
}

func (l *lru) Victim(set int) int { return int(l.tail[set]) - set*l.ways }

// plru is tree pseudo-LRU: set s's ways-1 node bits are bits
// s*ways+1 .. s*ways+ways-1, node k's children 2k and 2k+1 and way w
// the leaf ways+w. A node's bit says which child the victim is under
// (1: the right one); a use points every node on the way's path away
// from it.
type plru struct {
	ways int
	bits []uint64
}

func (p *plru) get(i int) bool { return p.bits[i>>6]&(1<<(i&63)) != 0 }

func (p *plru) put(i int, b bool) {
	if b {
		p.bits[i>>6] |= 1 << (i & 63)
	} else {
		p.bits[i>>6] &^= 1 << (i & 63)
	}
}

func (p *plru) Touch(set, way int) {
	base := set * p.ways
	for k := p.ways + way; k > 1; k >>= 1 {
		p.put(base+k>>1, k&1 == 0) // used the left child: the victim is right
	}
}

func (p *plru) Drop(int, int) {}

func (p *plru) Victim(set int) int {
	base := set * p.ways
	k := 1
	for k < p.ways {
		k *= 2
		if p.get(base + k/2) {
			k++
		}
	}
	return k - p.ways
}

// nru keeps a referenced bit per line; the victim is the lowest way
// without it. When a use would leave no way without it, the others'
// are cleared.
type nru struct {
	ways int
	ref  []uint64 // by line
	n    []int32  // by set: lines with the bit
}

func (r *nru) Touch(set, way int) {
	i := set*r.ways + way
	if r.ref[i>>6]&(1<<(i&63)) != 0 {
		return
	}
	r.ref[i>>6] |= 1 << (i & 63)
	if r.n[set]++; int(r.n[set]) < r.ways {
		return
	}
	base := set * r.ways
	for j := base; j < base+r.ways; j++ {
		r.ref[j>>6] &^= 1 << (j & 63)
	}
	r.ref[i>>6] |= 1 << (i & 63)
	r.n[set] = 1
}

func (r *nru) Drop(set, way int) {
	i := set*r.ways + way
	if r.ref[i>>6]&(1<<(i&63)) != 0 {
		r.ref[i>>6] &^= 1 << (i & 63)
		r.n[set]--
	}
}

func (r *nru) Victim(set int) int {
	base := set * r.ways
	if i := firstIn(r.ref, base, base+r.ways, false); i >= 0 {
		return i - base
	}
	return 0 // one way: it is always referenced
}

// random draws the victim from a splitmix64 sequence.
type random struct {
	ways int
	s    uint64
}

func (r *random) Touch(int, int) {}
func (r *random) Drop(int, int)  {}

func (r *random) Victim(int) int {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	hi, _ := bits.Mul64(z, uint64(r.ways))
	return int(hi)
}

// firstIn returns the lowest i in [lo, hi) whose bit in b is set (want)
// or clear (!want), or -1: a word at a time.
func firstIn(b []uint64, lo, hi int, want bool) int {
	for i := lo; i < hi; i = (i | 63) + 1 {
		w := b[i>>6]
		if !want {
			w = ^w
		}
		if w >>= uint(i & 63); w != 0 {
			if j := i + bits.TrailingZeros64(w); j < hi {
				return j
			}
			return -1
		}
	}
	return -1
}
