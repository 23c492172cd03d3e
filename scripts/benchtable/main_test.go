package main

import (
	"strings"
	"testing"
)

// TestTable: medians and spreads of go test -bench lines (the
// -GOMAXPROCS suffix dropped), and the tracing row from the side-by-side
// benchmark when it ran, else from the two benchmarks' medians.
func TestTable(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"side by side", `BenchmarkHotWorkload-2  10  1 ns/op  1000 cpu-ns/cycle  2000000 translations/cpu-s
BenchmarkHotWorkload-2  10  1 ns/op  500 cpu-ns/cycle  1000000 translations/cpu-s
BenchmarkHotWorkload-2  10  1 ns/op  700 cpu-ns/cycle  1500000 translations/cpu-s
BenchmarkTraceCost-2 2 1 ns/op 6.0 traced/untraced-cpu 3.5 traced/untraced-wall
BenchmarkTraceCost-2 2 1 ns/op 5.0 traced/untraced-cpu 3.0 traced/untraced-wall
BenchmarkTraceCost-2 2 1 ns/op 7.0 traced/untraced-cpu 4.0 traced/untraced-wall
`, []string{
			"| clocked, hit-bound (HotWorkload) | 1.50 M translations per CPU-s | 1.00–2.00 |",
			"| clocked, hit-bound | 700 CPU ns per cycle | 500–1000 |",
			"| tracing the default workload, side by side (BenchmarkTraceCost; whole VCD to io.Discard) | 3.50x the wall time, 6.00x the CPU | 3.00–4.00, 5.00–7.00 |",
			"3 runs of each benchmark.",
		}},
		{"medians", `BenchmarkDefaultWorkload-2 5 100 ns/op 10 cpu-ns/cycle
BenchmarkTracedDefaultWorkload-2 5 300 ns/op 40 cpu-ns/cycle
`, []string{
			"| tracing the default workload (whole VCD to io.Discard) | 3.00x the wall time, 4.00x the CPU | of the medians |",
		}},
	}
	for _, c := range cases {
		var b strings.Builder
		table(&b, parse(strings.NewReader(c.in)))
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no line %q in\n%s", c.name, w, b.String())
			}
		}
	}
}
