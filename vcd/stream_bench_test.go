package vcd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The stream BenchmarkWriterStream replays: shaped after the default
// run's trace (419 signals, about 10 changes a cycle on average and 21 in
// a cycle where anything changes, two thirds of the value lines vectors,
// 64-bit values of about 30 significant bits), but denser, so that the
// writer is measured on its busy cycles.
const (
	streamCycles  = 200_000 // cycles the stream spans
	streamPerStep = 30      // changes in a cycle At visits
	streamPeriod  = 4096    // cycles of changes generated, then replayed
)

// streamClass is a group of variables of the benchmark stream: how many,
// their widths, their share of the changes and the range of the bit
// length of the values they take.
type streamClass struct {
	count      int
	widths     []int
	share      int // of 100 changes
	minL, maxL int // bit length of a value; 0 maxL: up to the width
}

var streamClasses = []streamClass{
	{120, []int{1}, 33, 1, 1},
	{130, []int{2, 3, 3, 4, 5, 7, 8}, 24, 0, 0},
	{100, []int{10, 16, 16, 24, 32, 32}, 30, 0, 0},
	{50, []int{64}, 13, 20, 56},
}

// benchStream is a prepared stream: variables' widths, and per cycle of
// the period the changes (variable, value) in the order they are Set.
type benchStream struct {
	widths []int
	minL   []int
	maxL   []int
	steps  [][]streamChange
	gaps   []uint64 // cycles from one visited cycle to the next (skipping)
}

type streamChange struct {
	v int
	x uint64
}

// newBenchStream draws the stream from a fixed seed: each visited cycle
// changes streamPerStep distinct variables, picked by class share, in
// random order. With skip, the cycle after a visited one is visited with
// probability 1/2, and each further one with probability 1/2, so about
// half the cycles are visited and At jumps over the others.
func newBenchStream(skip bool) *benchStream {
	r := rand.New(rand.NewPCG(1, 2))
	s := &benchStream{}
	var byClass [][]int
	for _, c := range streamClasses {
		var ids []int
		for i := 0; i < c.count; i++ {
			ids = append(ids, len(s.widths))
			w := c.widths[i%len(c.widths)]
			s.widths = append(s.widths, w)
			lo, hi := c.minL, c.maxL
			if hi == 0 {
				lo, hi = 1, w
			}
			s.minL, s.maxL = append(s.minL, lo), append(s.maxL, hi)
		}
		byClass = append(byClass, ids)
	}
	for range streamPeriod {
		seen := map[int]bool{}
		var step []streamChange
		for len(step) < streamPerStep {
			k, p := 0, r.IntN(100)
			for p >= streamClasses[k].share {
				p -= streamClasses[k].share
				k++
			}
			v := byClass[k][r.IntN(len(byClass[k]))]
			if seen[v] {
				continue
			}
			seen[v] = true
			l := s.minL[v] + r.IntN(s.maxL[v]-s.minL[v]+1)
			x := r.Uint64() >> uint(64-l) // l bits, top one often set
			step = append(step, streamChange{v, x})
		}
		s.steps = append(s.steps, step)
		gap := uint64(1)
		for skip && r.IntN(2) == 0 {
			gap++
		}
		s.gaps = append(s.gaps, gap)
	}
	return s
}

// countWriter counts the bytes written to it and drops them.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// run writes the whole stream, with a clock, to out and returns the
// number of value changes it made.
func (s *benchStream) run(b *testing.B, out *countWriter) int {
	w := NewWriter(out, Options{TimescalePS: 4000, Clock: true, Version: "bench"})
	top := w.Root("top")
	w.Clock(top)
	vars := make([]*Var, len(s.widths))
	for i, width := range s.widths {
		vars[i] = top.Scope(fmt.Sprintf("u%d", i%16)).Var(fmt.Sprintf("v%d", i), width)
	}
	cur := make([]uint64, len(vars))
	if err := w.Begin(); err != nil {
		b.Fatal(err)
	}
	changes := 0
	k := 0
	for cycle := uint64(1); cycle < streamCycles; cycle += s.gaps[k] {
		k = int(cycle % streamPeriod)
		w.At(cycle)
		for _, c := range s.steps[k] {
			x := c.x
			if x == cur[c.v] {
				x ^= 1 // every Set is a change
			}
			cur[c.v] = x
			vars[c.v].Set(x)
		}
		changes += len(s.steps[k])
	}
	w.At(streamCycles - 1)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return changes
}

// BenchmarkWriterStream measures the writer on a stream shaped like a
// traced run's (see streamClasses): a clock and 400 variables of 1 to 64
// bits, 30 changes in every cycle visited, over 200k cycles, visiting
// every cycle or (skip) about half of them, At jumping over the others
// while the clock runs through them. One op is the whole stream; MB/s is
// VCD text written, ns/change the time per Set.
func BenchmarkWriterStream(b *testing.B) {
	for _, skip := range []bool{false, true} {
		b.Run(fmt.Sprintf("skip=%v", skip), func(b *testing.B) {
			s := newBenchStream(skip)
			var out countWriter
			changes := s.run(b, &out)
			b.SetBytes(out.n)
			b.ReportAllocs()
			for b.Loop() {
				s.run(b, &countWriter{})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(changes), "ns/change")
		})
	}
}

// BenchmarkWriterSkip measures the cycles At skips, in which only the
// clock and the cycle counter change: 400 variables declared, At jumping
// 1000 cycles at a time. ns/cycle is the time per cycle skipped.
func BenchmarkWriterSkip(b *testing.B) {
	out := &countWriter{}
	w := NewWriter(out, Options{TimescalePS: 4000, Clock: true})
	top := w.Root("top")
	w.Clock(top)
	for i := range 400 {
		top.Var(fmt.Sprint("v", i), 8)
	}
	if err := w.Begin(); err != nil {
		b.Fatal(err)
	}
	c := uint64(0)
	for b.Loop() {
		c += 1000
		w.At(c)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(c), "ns/cycle")
	b.ReportMetric(float64(out.n)/1e6/b.Elapsed().Seconds(), "MB/s")
}
