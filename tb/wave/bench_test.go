package wave

import (
	"io"
	"syscall"
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/tb/stimulus"
	"mkeysim/vcd"
)

// The waveform's benchmarks, beside tb's (tb/bench_bench_test.go) and
// measured the same way: one workload through a fresh bench per
// iteration, simulated cycles and translations per wall and CPU second.

// BenchmarkTracedDefaultWorkload is tb's BenchmarkDefaultWorkload with the
// whole waveform written (to io.Discard): what --vcd costs the loop, the
// clock and the writer goroutine included.
func BenchmarkTracedDefaultWorkload(b *testing.B) {
	benchRun(b, stimulus.Generate(stimulus.DefaultWorkload()), true)
}

// BenchmarkTraceCost is what the waveform costs, measured side by side:
// each iteration runs the default workload without a tracer and with one
// (the whole VCD to io.Discard), in alternating order, and the metrics
// are the ratios of the traced runs' total wall and CPU time to the
// untraced runs'. Pairing keeps the ratio meaningful on a machine whose
// speed drifts from one minute to the next.
func BenchmarkTraceCost(b *testing.B) {
	sc := stimulus.Generate(stimulus.DefaultWorkload())
	var wall, cpu [2]time.Duration // untraced, traced
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range 2 {
			traced := (i+k)%2 == 1
			_, w, c := timedRun(b, sc, traced)
			wall[sim.B(traced)] += w
			cpu[sim.B(traced)] += c
		}
	}
	b.ReportMetric(wall[1].Seconds()/wall[0].Seconds(), "traced/untraced-wall")
	b.ReportMetric(cpu[1].Seconds()/cpu[0].Seconds(), "traced/untraced-cpu")
}

// timedRun runs sc through a fresh bench, traced to io.Discard or not,
// and returns the bench and the wall and CPU time of the run loop (the
// tracer's Close included); building and loading the bench are outside
// the benchmark's timer.
func timedRun(b *testing.B, sc *scenario.Scenario, traced bool) (bench *tb.Bench, wall, cpu time.Duration) {
	b.StopTimer()
	bench = loadedBench(b, rtl.DefaultConfig(), sc)
	var tr *Tracer
	if traced {
		var err error
		if tr, err = New(bench, io.Discard, vcd.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StartTimer()
	start, startCPU := time.Now(), cpuTime()
	if err := bench.Stream(sc.Ops, tb.RunOptions{OnResult: func(*scenario.Result) error { return nil }}); err != nil {
		b.Fatal(err)
	}
	if tr != nil {
		if err := tr.Close(); err != nil {
			b.Fatal(err)
		}
	}
	return bench, time.Since(start), cpuTime() - startCPU
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchRun(b *testing.B, sc *scenario.Scenario, traced bool) {
	var cycles, translations uint64
	var wall, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bench, w, c := timedRun(b, sc, traced)
		wall += w
		cpu += c
		cycles += bench.Eng.Now()
		translations += bench.Top.Translations()
	}
	b.ReportMetric(float64(cycles)/wall.Seconds(), "cycles/s")
	b.ReportMetric(float64(translations)/wall.Seconds(), "translations/s")
	b.ReportMetric(float64(translations)/cpu.Seconds(), "translations/cpu-s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(cycles), "cpu-ns/cycle")
}
