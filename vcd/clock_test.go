package vcd

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
)

// TestClock: the clock rises at every cycle and falls halfway through it,
// the cycle counter follows, through the cycles At skipped and only
// inside the window; a period of 1 ns gets a 100 ps timescale so that a
// half cycle is a whole number of units, and time in ns is still the
// cycle number.
func TestClock(t *testing.T) {
	for _, tc := range []struct {
		periodPS       uint64
		unit           string
		mult           uint64
		from, to, last uint64
	}{
		{1000, "100ps", 10, 0, 0, 9},
		{4000, "1ns", 4, 0, 0, 9},
		{4000, "1ns", 4, 3, 7, 9},
	} {
		t.Run(fmt.Sprint(tc.periodPS, tc.from, tc.to), func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, Options{TimescalePS: tc.periodPS, Clock: true, From: tc.from, To: tc.to})
			top := w.Root("top")
			w.Clock(top)
			x := top.Scope("u").Var("x", 8)
			if err := w.Begin(); err != nil {
				t.Fatal(err)
			}
			for _, c := range []uint64{0, 1, 2, 6, tc.last} { // 3..5 and 7..8 skipped
				w.At(c)
				x.Set(c)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := Parse(&buf)
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if f.Timescale != tc.unit {
				t.Fatalf("timescale %s, want %s", f.Timescale, tc.unit)
			}
			lo, hi := tc.from, tc.last
			if tc.to != 0 {
				hi = tc.to
			}
			for c := lo; c <= hi; c++ {
				rise, fall := c*tc.mult, c*tc.mult+tc.mult/2
				if v, _ := f.ValueAt("top.clk", rise); v != "1" {
					t.Errorf("cycle %d: clk %s at its start, want 1", c, v)
				}
				if v, _ := f.ValueAt("top.clk", fall); v != "0" {
					t.Errorf("cycle %d: clk %s halfway, want 0", c, v)
				}
				v, _ := f.ValueAt("top.cycle", rise)
				if n, err := strconv.ParseUint(v, 2, 64); err != nil || n != c {
					t.Errorf("cycle %d: cycle counter %s", c, v)
				}
			}
			if tc.to != 0 {
				for _, ch := range f.Changes("top.clk") {
					if ch.Time > 0 && ch.Time > (tc.to+1)*tc.mult {
						t.Errorf("clk changes at %d, after the window", ch.Time)
					}
				}
			}
		})
	}
}
