package vectors

import "math/bits"

// rng is the generator's only source of randomness: splitmix64, written out
// here so that a seed gives the same vectors with every Go release (the
// standard library does not promise stable streams for its bounded
// methods).
type rng struct{ s uint64 }

func newRNG(seed uint64, stream uint64) *rng {
	return &rng{s: seed ^ stream*0xd1342543de82ef95}
}

// u64 returns the next 64 random bits.
func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	x := r.s
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// n returns a number in [0, n); n 0 returns 0.
func (r *rng) n(n uint64) uint64 {
	hi, _ := bits.Mul64(r.u64(), n)
	return hi
}

// intn is n for ints.
func (r *rng) intn(n int) int { return int(r.n(uint64(n))) }

// rangeIn returns a number in [lo, hi] (inclusive).
func (r *rng) rangeIn(lo, hi uint64) uint64 {
	if hi-lo == ^uint64(0) {
		return r.u64()
	}
	return lo + r.n(hi-lo+1)
}

// pct is true with probability p/100.
func (r *rng) pct(p int) bool { return r.n(100) < uint64(p) }

// bool is a fair coin.
func (r *rng) bool() bool { return r.u64()&1 != 0 }

// bits returns a number of w random bits.
func (r *rng) bits(w int) uint64 {
	if w >= 64 {
		return r.u64()
	}
	return r.u64() & (1<<uint(w) - 1)
}

// pick returns one of the weights' indexes, each with probability
// proportional to its weight.
func (r *rng) pick(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := r.intn(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// len32 draws a piece length in 1..2^32-1 that favours small values,
// powers of two and the largest length.
func (r *rng) len32() uint32 {
	switch r.pick(40, 20, 15, 10, 10, 5) {
	case 0:
		return uint32(r.rangeIn(1, 64))
	case 1:
		return uint32(r.rangeIn(1, 8192))
	case 2:
		return uint32(1) << r.n(32)
	case 3:
		return uint32(r.rangeIn(1, 1<<24))
	case 4:
		return uint32(r.rangeIn(1, 1<<32-1))
	default:
		return 1<<32 - 1
	}
}
