package stimulus

import (
	"math"
	"math/rand"
)

// zipf draws ranks 1..n with P(k) proportional to k^-s, for any exponent
// s > 0 (math/rand's Zipf needs s > 1, and the skews measured on real
// traffic are often below 1): the rejection-inversion method of Hörmann
// and Derflinger (1996), as Apache Commons RNG implements it. Each draw
// costs a few logarithms and exponentials and, rarely, a second try.
type zipf struct {
	n      float64
	s      float64 // the exponent
	hX1    float64 // hIntegral(1.5) - 1
	hN     float64 // hIntegral(n + 0.5)
	accept float64 // the shortcut bound of the acceptance test
	rng    *rand.Rand
}

// newZipf returns the sampler of ranks 1..n with exponent s > 0.
func newZipf(r *rand.Rand, s float64, n uint64) *zipf {
	z := &zipf{n: float64(n), s: s, rng: r}
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(z.n + 0.5)
	z.accept = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

// next draws a rank.
func (z *zipf) next() uint64 {
	for {
		u := z.hN + z.rng.Float64()*(z.hX1-z.hN)
		x := z.hIntegralInverse(u)
		k := math.Floor(x + 0.5)
		k = max(1, min(k, z.n))
		if k-x <= z.accept || u >= z.hIntegral(k+0.5)-z.h(k) {
			return uint64(k)
		}
	}
}

// h is k^-s.
func (z *zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// hIntegral is an integral of h: (x^(1-s) - 1) / (1-s), log x at s = 1.
func (z *zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return expm1OverX((1-z.s)*lx) * lx
}

// hIntegralInverse is the inverse of hIntegral.
func (z *zipf) hIntegralInverse(x float64) float64 {
	t := max(x*(1-z.s), -1) // rounding may take it below -1
	return math.Exp(log1pOverX(t) * x)
}

// log1pOverX is log(1+x)/x, exact near 0.
func log1pOverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// expm1OverX is (e^x - 1)/x, exact near 0.
func expm1OverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}
