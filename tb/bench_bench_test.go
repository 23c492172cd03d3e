package tb

import (
	"syscall"
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// The clocked model's benchmarks: each runs one workload through a fresh
// bench per iteration (results handed to a no-op, as a run that streams
// them) and reports simulated cycles and translations per wall second and
// per CPU second (the process's user + system time, the garbage
// collector's included), and nanoseconds of CPU per simulated cycle. The
// workload is generated once, outside the timing.

// BenchmarkDefaultWorkload is the default run (make run's workload)
// without the golden-model check.
func BenchmarkDefaultWorkload(b *testing.B) {
	benchRun(b, stimulus.Generate(stimulus.DefaultWorkload()))
}

// timedRun runs sc through a fresh bench and returns the bench and the
// wall and CPU time of the run loop; building and loading the bench are
// outside the benchmark's timer. (tb/wave's benchmarks run the same with
// a tracer.)
func timedRun(b *testing.B, cfg rtl.Config, sc *scenario.Scenario) (bench *Bench, wall, cpu time.Duration) {
	b.StopTimer()
	bench = loadedBench(b, cfg, sc)
	b.StartTimer()
	start, startCPU := time.Now(), cpuTime()
	if err := bench.Stream(sc.Ops, RunOptions{OnResult: func(*scenario.Result) error { return nil }}); err != nil {
		b.Fatal(err)
	}
	return bench, time.Since(start), cpuTime() - startCPU
}

// BenchmarkHotWorkload is hit-bound: every access to a cached working set
// of 128 keys, no commands: the pipeline's peak rate.
func BenchmarkHotWorkload(b *testing.B) { benchRun(b, stimulus.Generate(HotWorkload())) }

// BenchmarkMissWorkload is miss-bound: 100k accesses spread evenly over
// 64K keys, no commands, so that almost every access misses the MKC cache
// and its MTT line and waits for PCIe round trips.
func BenchmarkMissWorkload(b *testing.B) { benchRun(b, stimulus.Generate(MissWorkload())) }

// HotWorkload is the hit-bound measurement workload.
func HotWorkload() stimulus.Workload {
	w := stimulus.DefaultWorkload()
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille, w.HotPerMille = 0, 0, 0, 0, 1000
	return w
}

// MissWorkload is the miss-bound measurement workload.
func MissWorkload() stimulus.Workload {
	w := stimulus.DefaultWorkload()
	w.Keys, w.HotPerMille = 1<<16, 0
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 0, 0, 0, 0
	return w
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchRun(b *testing.B, sc *scenario.Scenario) { benchRunOn(b, rtl.DefaultConfig(), sc) }

// benchRunOn is benchRun on a bench of cfg; it returns the host IOMMU's
// walks summed over the iterations (0 without it).
func benchRunOn(b *testing.B, cfg rtl.Config, sc *scenario.Scenario) (walks uint64) {
	var cycles, translations uint64
	var wall, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bench, w, c := timedRun(b, cfg, sc)
		wall += w
		cpu += c
		cycles += bench.Eng.Now()
		translations += bench.Top.Translations()
		if c, ok := sim.Find(bench.Eng.Counters(), "iommu.walks"); ok {
			walks += c.Value
		}
	}
	b.ReportMetric(float64(cycles)/wall.Seconds(), "cycles/s")
	b.ReportMetric(float64(translations)/wall.Seconds(), "translations/s")
	b.ReportMetric(float64(translations)/cpu.Seconds(), "translations/cpu-s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(cycles), "cpu-ns/cycle")
	return walks
}

// BenchmarkIOMMUWorkload is the clocked model with the host IOMMU on
// (issue 36): the default workload with translation_mode capi (every PA
// key CAPI, its TLPs translated through its PASID's table, the others
// through the requester ID's), its iommu section mapping every DMA
// address in 4 KiB leaves, through a bench with iommu.enabled and
// data.enabled (the IOMMU translates the data path's TLPs, and the ICM
// reads).
func BenchmarkIOMMUWorkload(b *testing.B) {
	w := stimulus.DefaultWorkload()
	w.IOMMU, w.TranslationMode = true, stimulus.TranslationCAPI
	sc := stimulus.Generate(w)
	cfg := rtl.DefaultConfig()
	cfg.IOMMU.Enabled, cfg.Data.Enabled = true, true
	cfg, _ = ConfigFor(cfg, sc)
	if walks := benchRunOn(b, cfg, sc); walks == 0 {
		b.Fatal("the IOMMU walked no page: it is not in the bench")
	}
}

// BenchmarkDataWorkload is BenchmarkIOMMUWorkload's yardstick: the
// default workload with the data path on and the IOMMU off, so that the
// two rows side by side tell what the IOMMU costs from what moving the
// bytes costs.
func BenchmarkDataWorkload(b *testing.B) {
	cfg := rtl.DefaultConfig()
	cfg.Data.Enabled = true
	benchRunOn(b, cfg, stimulus.Generate(stimulus.DefaultWorkload()))
}

// BenchmarkIdle measures what a cycle in which nothing happens costs: an
// access, then 64 queries each of which waits 2^24 cycles of firmware
// latency with the pipeline empty, so the engine skips about a billion
// cycles. It reports nanoseconds of CPU per simulated cycle.
func BenchmarkIdle(b *testing.B) {
	sc, err := scenario.ReadFile("../examples/mtt-one-page.json")
	if err != nil {
		b.Fatal(err)
	}
	for range 64 {
		sc.Ops = append(sc.Ops, sc.Ops[2])
	}
	cfg := rtl.DefaultConfig()
	cfg.CmdLatency = 1 << 24
	var cycles uint64
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bench, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := bench.Load(sc); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		startCPU := cpuTime()
		if err := bench.Stream(sc.Ops, RunOptions{OnResult: func(*scenario.Result) error { return nil }}); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - startCPU
		cycles += bench.Eng.Now()
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(cycles), "cpu-ns/cycle")
}
