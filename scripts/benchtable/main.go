// Command benchtable reads the output of go test -bench (with -count N)
// of the ref and tb benchmarks and prints the speed table of the README:
// each figure's median over the N runs and its spread (lowest and
// highest), and the traced run's cost measured side by side.
//
//	go test -run XXX -bench . -count 5 ./ref ./tb | go run ./scripts/benchtable
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// row is one line of the table: a benchmark's metric, scaled.
type row struct {
	what   string
	bench  string // name without the -GOMAXPROCS suffix
	metric string // the unit go test prints
	scale  float64
	unit   string
}

var rows = []row{
	{"golden model, 1K MTT keys", "BenchmarkTranslateMTT1K", "translations/s", 1e-6, "M translations/s"},
	{"golden model, 1M MTT keys", "BenchmarkTranslateMTT1M", "translations/s", 1e-6, "M translations/s"},
	{"golden model, 1M MTT keys, in batches of 32 read ahead", "BenchmarkTranslateMTT1MBatch", "translations/s", 1e-6, "M translations/s"},
	{"golden model, KLM over MTT", "BenchmarkTranslateKLM", "translations/s", 1e-6, "M translations/s"},
	{"clocked, hit-bound (HotWorkload)", "BenchmarkHotWorkload", "translations/cpu-s", 1e-6, "M translations per CPU-s"},
	{"clocked, hit-bound", "BenchmarkHotWorkload", "cycles/s", 1e-6, "M cycles/s"},
	{"clocked, hit-bound", "BenchmarkHotWorkload", "cpu-ns/cycle", 1, "CPU ns per cycle"},
	{"clocked, miss-bound (MissWorkload)", "BenchmarkMissWorkload", "translations/cpu-s", 1e-6, "M translations per CPU-s"},
	{"clocked, miss-bound", "BenchmarkMissWorkload", "cycles/s", 1e-6, "M cycles/s"},
	{"clocked, miss-bound", "BenchmarkMissWorkload", "cpu-ns/cycle", 1, "CPU ns per cycle"},
	{"clocked, default workload", "BenchmarkDefaultWorkload", "translations/cpu-s", 1e-6, "M translations per CPU-s"},
	{"clocked, default workload", "BenchmarkDefaultWorkload", "cycles/s", 1e-6, "M cycles/s"},
	{"clocked, default workload", "BenchmarkDefaultWorkload", "cpu-ns/cycle", 1, "CPU ns per cycle"},
	{"clocked, default workload, data path on (sweep BenchmarkDataWorkload)", "BenchmarkDataWorkload", "translations/cpu-s", 1e-3, "k translations per CPU-s"},
	{"clocked, data path on", "BenchmarkDataWorkload", "cpu-ns/cycle", 1, "CPU ns per cycle"},
	{"clocked, default workload, host IOMMU on, CAPI keys (sweep BenchmarkIOMMUWorkload)", "BenchmarkIOMMUWorkload", "translations/cpu-s", 1e-3, "k translations per CPU-s"},
	{"clocked, host IOMMU on", "BenchmarkIOMMUWorkload", "cycles/s", 1e-6, "M cycles/s"},
	{"clocked, host IOMMU on", "BenchmarkIOMMUWorkload", "cpu-ns/cycle", 1, "CPU ns per cycle"},
	{"clocked, an idle cycle (BenchmarkIdle)", "BenchmarkIdle", "cpu-ns/cycle", 1, "CPU ns per cycle"},
}

// parse collects every value of every metric of every benchmark.
func parse(r io.Reader) map[string]map[string][]float64 {
	out := map[string]map[string][]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		m := out[name]
		if m == nil {
			m = map[string][]float64{}
			out[name] = m
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				m[f[i+1]] = append(m[f[i+1]], v)
			}
		}
	}
	return out
}

// stats returns the median, the lowest and the highest of vs (sorted).
func stats(vs []float64) (med, lo, hi float64) {
	slices.Sort(vs)
	n := len(vs)
	med = vs[n/2]
	if n%2 == 0 {
		med = (vs[n/2-1] + vs[n/2]) / 2
	}
	return med, vs[0], vs[n-1]
}

func num(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case x >= 0.01:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}

func main() {
	data := parse(os.Stdin)
	if len(data) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark lines on standard input (pipe go test -bench into it)")
		os.Exit(2)
	}
	table(os.Stdout, data)
}

// table prints the table of data (parse) to w.
func table(w io.Writer, data map[string]map[string][]float64) {
	runs := 0
	fmt.Fprintln(w, "| measure | median | spread (lowest–highest) |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rows {
		vs := data[r.bench][r.metric]
		if len(vs) == 0 {
			continue
		}
		runs = max(runs, len(vs))
		med, lo, hi := stats(slices.Clone(vs))
		fmt.Fprintf(w, "| %s | %s %s | %s–%s |\n", r.what, num(med*r.scale), r.unit, num(lo*r.scale), num(hi*r.scale))
	}
	// The traced run against the untraced: measured side by side
	// (BenchmarkTraceCost, each iteration both, alternating), else the
	// ratio of the two benchmarks' medians.
	if cost := data["BenchmarkTraceCost"]; len(cost["traced/untraced-wall"]) > 0 && len(cost["traced/untraced-cpu"]) > 0 {
		wall, wlo, whi := stats(slices.Clone(cost["traced/untraced-wall"]))
		cpu, clo, chi := stats(slices.Clone(cost["traced/untraced-cpu"]))
		runs = max(runs, len(cost["traced/untraced-wall"]))
		fmt.Fprintf(w, "| tracing the default workload, side by side (BenchmarkTraceCost; whole VCD to io.Discard) | %sx the wall time, %sx the CPU | %s–%s, %s–%s |\n",
			num(wall), num(cpu), num(wlo), num(whi), num(clo), num(chi))
	} else if plain, traced := data["BenchmarkDefaultWorkload"], data["BenchmarkTracedDefaultWorkload"]; len(plain["ns/op"]) > 0 && len(traced["ns/op"]) > 0 {
		pw, _, _ := stats(slices.Clone(plain["ns/op"]))
		tw, _, _ := stats(slices.Clone(traced["ns/op"]))
		pc, _, _ := stats(slices.Clone(plain["cpu-ns/cycle"]))
		tc, _, _ := stats(slices.Clone(traced["cpu-ns/cycle"]))
		fmt.Fprintf(w, "| tracing the default workload (whole VCD to io.Discard) | %sx the wall time, %sx the CPU | of the medians |\n", num(tw/pw), num(tc/pc))
	}
	fmt.Fprintf(w, "\n%d runs of each benchmark.\n", runs)
}
