package sim

import "slices"

// ByKey counts hits and misses per key, a protection domain: a unit's
// statistics per tenant. Keys below 4096 are counted in a slice (a
// tenant's PD is small), the others in a map.
type ByKey struct {
	small [][2]uint64
	big   map[uint32]*[2]uint64
}

// KeyCount is one key's counts.
type KeyCount struct {
	Key          uint32
	Hits, Misses uint64
}

const byKeySmall = 4096

// Add counts a hit (hit true) or a miss of key.
func (b *ByKey) Add(key uint32, hit bool) {
	i := 1
	if hit {
		i = 0
	}
	if key < byKeySmall {
		if int(key) >= len(b.small) {
			b.small = append(b.small, make([][2]uint64, int(key)+1-len(b.small))...)
		}
		b.small[key][i]++
		return
	}
	if b.big == nil {
		b.big = map[uint32]*[2]uint64{}
	}
	c := b.big[key]
	if c == nil {
		c = new([2]uint64)
		b.big[key] = c
	}
	c[i]++
}

// Counts lists the keys counted, in key order.
func (b *ByKey) Counts() []KeyCount {
	var out []KeyCount
	for k, c := range b.small {
		if c[0]+c[1] > 0 {
			out = append(out, KeyCount{uint32(k), c[0], c[1]})
		}
	}
	var big []KeyCount
	for k, c := range b.big {
		big = append(big, KeyCount{k, c[0], c[1]})
	}
	slices.SortFunc(big, func(a, b KeyCount) int { return int(int64(a.Key) - int64(b.Key)) })
	return append(out, big...)
}
