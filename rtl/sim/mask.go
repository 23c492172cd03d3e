package sim

import "math/bits"

// Mask is a set of the numbers 0..n-1 (a unit's contexts, walkers,
// entries) kept as a bitmask, so that the searches a unit makes every
// cycle (the lowest free context, the next context ready after the
// round-robin pointer) cost a word per 64 numbers, not a look at each:
// with thousands of contexts, a scan of them was most of a cycle's work.
type Mask struct {
	w []uint64
	n int
}

// NewMask returns an empty set of the numbers 0..n-1.
func NewMask(n int) Mask { return Mask{w: make([]uint64, (n+63)/64), n: n} }

// Set adds i.
func (m *Mask) Set(i int) { m.w[i>>6] |= 1 << (i & 63) }

// Clear removes i.
func (m *Mask) Clear(i int) { m.w[i>>6] &^= 1 << (i & 63) }

// Has reports whether i is in the set.
func (m *Mask) Has(i int) bool { return m.w[i>>6]&(1<<(i&63)) != 0 }

// Next returns the lowest member >= i, or -1 if there is none.
func (m *Mask) Next(i int) int {
	if i >= m.n || i < 0 {
		return -1
	}
	k := i >> 6
	word := m.w[k] & (^uint64(0) << (i & 63))
	for {
		if word != 0 {
			return k<<6 + bits.TrailingZeros64(word)
		}
		if k++; k == len(m.w) {
			return -1
		}
		word = m.w[k]
	}
}

// Round calls f on the members in round-robin order from start (start,
// start+1, ..., n-1, 0, ..., start-1) until f returns true, and returns
// the member f accepted, or -1. Each number is looked up as the order
// reaches it, so f may add or remove members: Round then visits what a
// scan of the numbers in that order, testing each, would visit.
func (m *Mask) Round(start int, f func(i int) bool) int {
	for i := m.Next(start); i >= 0; i = m.Next(i + 1) {
		if f(i) {
			return i
		}
	}
	for i := m.Next(0); i >= 0 && i < start; i = m.Next(i + 1) {
		if f(i) {
			return i
		}
	}
	return -1
}

// Wrap returns i mod n for i in [0, 2n): a ring buffer's next index
// without a division (a few per translation on the hot path).
func Wrap(i, n int) int {
	if i >= n {
		return i - n
	}
	return i
}
