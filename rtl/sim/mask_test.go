package sim

import (
	"math/rand/v2"
	"testing"
)

// TestMaskAgainstScan: Next and Round visit what a scan of a []bool
// visits, on random sets of random sizes, with f changing the set as it
// goes.
func TestMaskAgainstScan(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 1 + rng.IntN(300)
		m, ref := NewMask(n), make([]bool, n)
		for range rng.IntN(2 * n) {
			i := rng.IntN(n)
			if rng.IntN(3) == 0 {
				m.Clear(i)
				ref[i] = false
			} else {
				m.Set(i)
				ref[i] = true
			}
		}
		for i := range n {
			if m.Has(i) != ref[i] {
				t.Fatalf("seed %d: Has(%d) = %v, want %v", seed, i, m.Has(i), ref[i])
			}
			want := -1
			for j := i; j < n; j++ {
				if ref[j] {
					want = j
					break
				}
			}
			if got := m.Next(i); got != want {
				t.Fatalf("seed %d n %d: Next(%d) = %d, want %d", seed, n, i, got, want)
			}
		}
		if m.Next(n) != -1 || m.Next(-1) != -1 {
			t.Fatalf("seed %d: Next out of range is not -1", seed)
		}
		// Round with an f that flips random members and accepts one at
		// random, against the scan it stands for.
		start := rng.IntN(n)
		acceptAt := rng.IntN(n + 1)
		flips := make([]int, n)
		for i := range flips {
			flips[i] = rng.IntN(n)
		}
		mRef := append([]bool(nil), ref...)
		var want []int
		wantAcc := -1
		for k := range n {
			i := (start + k) % n
			if !mRef[i] {
				continue
			}
			want = append(want, i)
			mRef[flips[i]] = !mRef[flips[i]]
			if len(want) == acceptAt {
				wantAcc = i
				break
			}
		}
		var got []int
		acc := m.Round(start, func(i int) bool {
			got = append(got, i)
			if m.Has(flips[i]) {
				m.Clear(flips[i])
			} else {
				m.Set(flips[i])
			}
			return len(got) == acceptAt
		})
		if acc != wantAcc || len(got) != len(want) {
			t.Fatalf("seed %d: Round(%d) visited %v accepted %d, scan %v accepted %d", seed, start, got, acc, want, wantAcc)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("seed %d: Round(%d) visited %v, scan %v", seed, start, got, want)
			}
		}
	}
}
