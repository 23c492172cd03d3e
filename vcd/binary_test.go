package vcd

import (
	"math/big"
	"math/rand"
	"strings"
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

// TestSetOrderDoesNotMatter: the same values set in a different order
// within a cycle give the same file, byte for byte.
func TestSetOrderDoesNotMatter(t *testing.T) {
	write := func(reverse bool) string {
		var b strings.Builder
		w := NewWriter(&b, Options{TimescalePS: 4000, Date: "d", Version: "v"})
		s := w.Root("top")
		vars := []*Var{s.Var("a", 1), s.Var("b", 8), s.Var("c", 64)}
		if err := w.Begin(); err != nil {
			t.Fatal(err)
		}
		for c := uint64(1); c < 20; c++ {
			w.At(c)
			for i := range vars {
				j := i
				if reverse {
					j = len(vars) - 1 - i
				}
				vars[j].Set(c * uint64(j+1) % 3)
			}
		}
		w.Close()
		return b.String()
	}
	if a, b := write(false), write(true); a != b {
		t.Fatalf("the order of Set calls changed the file:\n%s\n---\n%s", a, b)
	}
}
