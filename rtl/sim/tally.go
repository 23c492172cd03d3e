package sim

import (
	"maps"
	"slices"
)

// Tally counts how often each value occurred (a request's latency in
// cycles): exact quantiles and histograms in the memory of the distinct
// values rather than of the samples, so that a run of ten million
// accesses keeps a few kilobytes and adding one allocates nothing once
// the values seen so far have their slots.
type Tally struct {
	dense  []uint64          // dense[v]: occurrences of v, for v < len(dense)
	sparse map[uint64]uint64 // occurrences of the values from tallyDense on
	n      uint64
}

// tallyDense bounds the values counted in the dense array (512 KiB at
// most); larger ones, rare, go to a map.
const tallyDense = 1 << 16

// Add counts one occurrence of v.
func (t *Tally) Add(v uint64) {
	t.n++
	if v < uint64(len(t.dense)) {
		t.dense[v]++
		return
	}
	if v < tallyDense {
		// Grow to the next power of two that holds v: a few steps for
		// the whole run.
		n := max(64, len(t.dense))
		for uint64(n) <= v {
			n *= 2
		}
		t.dense = append(t.dense, make([]uint64, n-len(t.dense))...)
		t.dense[v]++
		return
	}
	if t.sparse == nil {
		t.sparse = map[uint64]uint64{}
	}
	t.sparse[v]++
}

// N is the number of occurrences counted.
func (t *Tally) N() uint64 { return t.n }

// Clone returns an independent copy of t.
func (t *Tally) Clone() Tally {
	return Tally{dense: slices.Clone(t.dense), sparse: maps.Clone(t.sparse), n: t.n}
}

// Since returns the occurrences counted in t after before, an earlier
// Clone of t.
func (t *Tally) Since(before *Tally) Tally {
	d := t.Clone()
	for v, c := range before.dense {
		d.dense[v] -= c
	}
	for v, c := range before.sparse {
		if d.sparse[v] -= c; d.sparse[v] == 0 {
			delete(d.sparse, v)
		}
	}
	d.n -= before.n
	return d
}

// Each calls f with every value counted, in increasing order, and how
// often it occurred.
func (t *Tally) Each(f func(v, count uint64)) {
	for v, c := range t.dense {
		if c > 0 {
			f(uint64(v), c)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(t.sparse)) {
		f(v, t.sparse[v])
	}
}

// TallyOf returns the tally of vs.
func TallyOf(vs []uint64) Tally {
	var t Tally
	for _, v := range vs {
		t.Add(v)
	}
	return t
}
