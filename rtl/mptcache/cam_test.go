package mptcache

import (
	"math/rand"
	"testing"
)

// TestCAM adds and removes random indices, many of them close together or
// colliding in the table, and checks every index against a map after each
// step: found where added and not removed, not found otherwise.
func TestCAM(t *testing.T) {
	for _, tc := range []struct {
		mshrs  int
		spread uint32 // indices drawn from [0, spread)
		seed   int64
	}{
		{1, 4, 1},
		{16, 64, 2},
		{16, 1 << 24, 3},
		{100, 300, 4},
		{1024, 4096, 5},
	} {
		r := rand.New(rand.NewSource(tc.seed))
		c := newCAM(tc.mshrs)
		held := map[uint32]int{} // index -> MSHR position
		free := make([]int, tc.mshrs)
		for i := range free {
			free[i] = i
		}
		for step := range 20000 {
			index := uint32(r.Int63n(int64(tc.spread)))
			if id, ok := held[index]; ok {
				c.remove(index)
				delete(held, index)
				free = append(free, id)
			} else if len(free) > 0 {
				k := r.Intn(len(free))
				id := free[k]
				free = append(free[:k], free[k+1:]...)
				c.add(index, id)
				held[index] = id
			}
			for probe := range 8 {
				x := uint32(r.Int63n(int64(tc.spread)))
				if probe == 0 {
					x = index
				}
				want, ok := held[x]
				if !ok {
					want = -1
				}
				if got := c.find(x); got != want {
					t.Fatalf("%d MSHRs, seed %d, step %d: find(%d) = %d, want %d", tc.mshrs, tc.seed, step, x, got, want)
				}
			}
		}
	}
}
