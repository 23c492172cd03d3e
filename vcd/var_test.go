package vcd

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// TestVarSize: a Var is one cache line (var.go keeps the hot data of a
// few hundred variables in the first-level cache).
func TestVarSize(t *testing.T) {
	if n := unsafe.Sizeof(Var{}); n != 64 {
		t.Errorf("a Var is %d bytes, want 64", n)
	}
}

// TestWideSetOrder: on a variable wider than 64 bits, whose Set waits in
// the variable until the time step, the last setter of a cycle wins
// whatever the mix of Set, SetBits and SetBytes, before Begin too.
func TestWideSetOrder(t *testing.T) {
	ones := []uint64{^uint64(0), ^uint64(0)}
	for _, tc := range []struct {
		name   string
		before func(v *Var) // before Begin
		during func(v *Var) // in cycle 1
		want   string       // value at cycle 1, 128 digits
	}{
		{"set", nil, func(v *Var) { v.Set(5) }, "101"},
		{"bits then set", nil, func(v *Var) { v.SetBits(ones); v.Set(2) }, "10"},
		{"set then bits", nil, func(v *Var) { v.Set(2); v.SetBits(ones) }, strings.Repeat("1", 128)},
		{"set then bytes", nil, func(v *Var) { v.Set(2); v.SetBytes([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0}) }, "1" + strings.Repeat("0", 64)},
		{"set, bits, set", nil, func(v *Var) { v.Set(2); v.SetBits(ones); v.Set(3) }, "11"},
		{"set before begin", func(v *Var) { v.Set(6) }, nil, "110"},
		{"bits before begin, set", func(v *Var) { v.SetBits(ones) }, func(v *Var) { v.Set(1) }, "1"},
		{"set back to the value written", func(v *Var) { v.Set(6) }, func(v *Var) { v.SetBits(ones); v.Set(6) }, "110"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, Options{})
			v := w.Root("top").Var("v", 128)
			if tc.before != nil {
				tc.before(v)
			}
			if err := w.Begin(); err != nil {
				t.Fatal(err)
			}
			w.At(1)
			if tc.during != nil {
				tc.during(v)
			}
			w.At(2)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			want := strings.Repeat("0", 128-len(tc.want)) + tc.want
			if got, _ := mustParse(t, buf.Bytes()).ValueAt("top.v", 1); got != want {
				t.Errorf("value %s, want %s\n%s", got, want, buf.String())
			}
		})
	}
}

// TestSetWide: Set on a variable wider than 64 bits whose width is not a
// multiple of 64 keeps all 64 bits of the value in the low word (it used
// to mask them with the top word's mask: Set(1<<40) on 100 bits wrote 0).
func TestSetWide(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{})
	v := w.Root("top").Var("wide", 100)
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	w.At(1)
	v.Set(1 << 40)
	w.At(2)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want := "b1" + strings.Repeat("0", 40) + " "; !strings.Contains(buf.String(), want) {
		t.Fatalf("Set(1<<40) on 100 bits is not written as %q:\n%s", want, buf.String())
	}
}

// TestUpdateWritesWhatSetWrites: Update marks a variable only when its
// value changes; the file must be byte for byte the one Set writes, on
// random values over few distinct ones (so that a cycle often sets a
// variable back to the value last written), for widths of 1, 7, 64 and
// 128 bits, mixed with SetBits on the widest, with a fixed seed.
func TestUpdateWritesWhatSetWrites(t *testing.T) {
	const seed = 20261203
	widths := []int{1, 7, 64, 128}
	run := func(update bool) string {
		rng := rand.New(rand.NewPCG(seed, 0))
		var buf bytes.Buffer
		w := NewWriter(&buf, Options{Clock: true})
		var vs []*Var
		for i, wd := range widths {
			vs = append(vs, w.Root("top").Var(fmt.Sprintf("v%d", i), wd))
		}
		if err := w.Begin(); err != nil {
			t.Fatal(err)
		}
		for c := uint64(1); c < 400; c++ {
			w.At(c)
			for range rng.IntN(6) {
				k := rng.IntN(len(vs))
				x := uint64(rng.IntN(3)) << (rng.IntN(2) * 62)
				switch {
				case widths[k] > 64 && rng.IntN(4) == 0:
					vs[k].SetBits([]uint64{x, x})
				case update:
					vs[k].Update(x)
				default:
					vs[k].Set(x)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	set, upd := run(false), run(true)
	if set != upd {
		t.Fatalf("seed %d: Update wrote another file than Set (%d and %d bytes)", seed, len(upd), len(set))
	}
	if n := strings.Count(set, "\n#"); n < 200 {
		t.Fatalf("seed %d: only %d time steps written: the test changes too little", seed, n)
	}
}
