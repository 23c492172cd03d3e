package vcd

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// formatValues are values around every power of two and ten, the edges
// of the formatting's chunks and carries, then random ones of every bit
// length.
func formatValues() []uint64 {
	xs := []uint64{0, 1, 2, 3, 7, 8, 9, 10, 99, 100, 255, 256, math.MaxInt64, math.MaxUint64}
	for k := 1; k < 64; k++ {
		xs = append(xs, 1<<k-1, 1<<k, 1<<k+1)
	}
	for p := uint64(10); p < math.MaxUint64/10; p *= 10 {
		xs = append(xs, p-1, p, p+1)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		xs = append(xs, r.Uint64()>>uint(r.IntN(64)))
	}
	return xs
}

// TestAppendWordLine: "b", the digits of strconv.FormatUint(x, 2) and the
// packed line end, after any content, with no leading zeros.
func TestAppendWordLine(t *testing.T) {
	for _, id := range []string{"!", "~~", "!!!!!!"} {
		tail := " " + id + "\n"
		for _, x := range formatValues() {
			b := make([]byte, 3, 3+wordLineRoom)
			copy(b, "xyz")
			got := string(appendWordLine(b, x, packTail(tail), len(tail)))
			if want := "xyzb" + strconv.FormatUint(x, 2) + tail; got != want {
				t.Fatalf("appendWordLine(%#x, %q) = %q, want %q", x, tail, got, want)
			}
		}
	}
}

// TestAppendTimeLine: "#", the digits of strconv.FormatUint(u, 10) and
// a newline, after any content, for every count of digits.
func TestAppendTimeLine(t *testing.T) {
	for _, u := range append(formatValues(), seq(0, 20000, 1)...) {
		b := make([]byte, 2, 2+timeLineRoom)
		got := string(appendTimeLine(b, u))
		if want := "\x00\x00#" + strconv.FormatUint(u, 10) + "\n"; got != want {
			t.Fatalf("time %d: %q, want %q", u, got, want)
		}
	}
}

// TestEightDigits compares eightDigits with digits taken one by one, for
// the first 10^5 values and every 7th up to 10^8.
func TestEightDigits(t *testing.T) {
	check := func(x uint64) {
		var want uint64
		y := x
		for k := 7; k >= 0; k-- {
			want |= ('0' + y%10) << uint(8*k)
			y /= 10
		}
		if got := eightDigits(x); got != want {
			t.Fatalf("eightDigits(%d) = %#x, want %#x", x, got, want)
		}
	}
	for x := uint64(0); x < 1e5; x++ {
		check(x)
	}
	for x := uint64(1e5); x < 1e8; x += 7 {
		check(x)
	}
	check(1e8 - 1)
}

// seq returns from, from+step, ... below to.
func seq(from, to, step uint64) []uint64 {
	var xs []uint64
	for x := from; x < to; x += step {
		xs = append(xs, x)
	}
	return xs
}

// TestGrowShortBuffer: the formatting grows a buffer without the room it
// expects instead of failing.
func TestGrowShortBuffer(t *testing.T) {
	w := NewWriter(nil, Options{})
	v, bit := w.Root("top").Var("v", 64), w.Root("top").Var("b", 1)
	v.Set(1 << 63)
	bit.Set(1)
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"value", w.appendValue(nil, v), "b" + strconv.FormatUint(1<<63, 2) + " !\n"},
		{"bit", w.appendValue(nil, bit), "1\"\n"},
		{"word", appendWordLine(nil, 6, packTail(" !\n"), 3), "b110 !\n"},
		{"time", appendTimeLine(nil, 42), "#42\n"},
	} {
		if string(tc.got) != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
