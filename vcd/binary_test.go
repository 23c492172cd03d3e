package vcd

import (
	"math/big"
	"math/rand"
	"testing"
)

// TestAppendBinary: the digits of a wide value equal math/big's, without
// leading zeros, for values with every count of leading zero bits.
func TestAppendBinaryBig(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		words := make([]uint64, 1+r.Intn(8))
		for j := range words {
			words[j] = r.Uint64() >> uint(r.Intn(65)%64)
			if r.Intn(4) == 0 {
				words[j] = 0
			}
		}
		want := new(big.Int)
		for j := len(words) - 1; j >= 0; j-- {
			want.Lsh(want, 64).Or(want, new(big.Int).SetUint64(words[j]))
		}
		if got := string(appendBinary(nil, words)); got != want.Text(2) {
			t.Fatalf("seed 1 case %d: %x gives %s, want %s", i, words, got, want.Text(2))
		}
	}
}
