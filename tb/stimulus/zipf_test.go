package stimulus

import (
	"math"
	"math/rand"
	"testing"
)

// TestZipfDistribution: the sampler's rank frequencies match
// k^-s / H(n, s) within a few standard errors, for exponents below, at
// and above 1 (seeded: a failure names the seed).
func TestZipfDistribution(t *testing.T) {
	const n, draws, seed = 1000, 200000, 7
	for _, s := range []float64{0.5, 0.99, 1, 1.5, 3} {
		z := newZipf(rand.New(rand.NewSource(seed)), s, n)
		counts := make([]int, n+1)
		for range draws {
			k := z.next()
			if k < 1 || k > n {
				t.Fatalf("s %v seed %d: rank %d outside 1..%d", s, seed, k, n)
			}
			counts[k]++
		}
		var hn float64
		for k := 1; k <= n; k++ {
			hn += math.Pow(float64(k), -s)
		}
		for _, k := range []int{1, 2, 3, 10, 100, 1000} {
			p := math.Pow(float64(k), -s) / hn
			want := p * draws
			sd := math.Sqrt(draws * p * (1 - p))
			if got := float64(counts[k]); math.Abs(got-want) > 5*sd+1 {
				t.Errorf("s %v seed %d: rank %d drawn %v times, want %.1f +- %.1f", s, seed, k, got, want, 5*sd)
			}
		}
	}
}

// TestScatterIsABijection: the zipf workload's rank-to-block map hits
// every block once, for sizes prime to the multiplier and not.
func TestScatterIsABijection(t *testing.T) {
	for _, n := range []uint64{1, 2, 7, 64, 1000, 4096, 2654435761 * 2 / 2654435761 * 3, 12289} {
		seen := make([]bool, n)
		for r := range n {
			b := scatter(r, n)
			if b >= n || seen[b] {
				t.Fatalf("n %d: rank %d maps to block %d, outside or taken", n, r, b)
			}
			seen[b] = true
		}
	}
	if scatter(1, 2654435761*2) == scatter(1+2, 2654435761*2) {
		t.Error("n a multiple of the first prime: two ranks share a block")
	}
}
