package sweep

import (
	"syscall"
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/tb/stimulus"
)

// BenchmarkIOMMUWorkload is the clocked model with the host IOMMU on
// (issue 36): the default workload with translation_mode capi (every PA
// key CAPI, its TLPs translated through its PASID's table, the others
// through the requester ID's), its iommu section mapping every DMA
// address in 4 KiB leaves, through a bench with iommu.enabled and
// data.enabled (which the IOMMU needs: it translates the data path's
// TLPs, and the ICM reads). Measured as tb's BenchmarkDefaultWorkload
// is, so that make bench puts it beside that row: a fresh bench per
// iteration, results handed to a no-op, no golden-model check; cycles and
// translations per wall second and per CPU second, CPU nanoseconds per
// simulated cycle. (It lives here rather than in tb's
// bench_bench_test.go only because it needs nothing of tb's insides.)
func BenchmarkIOMMUWorkload(b *testing.B) {
	w := stimulus.DefaultWorkload()
	w.IOMMU, w.TranslationMode = true, stimulus.TranslationCAPI
	sc := stimulus.Generate(w)
	if sc.IOMMU == nil {
		b.Fatal("the workload carries no iommu section")
	}
	cfg := rtl.DefaultConfig()
	cfg.IOMMU.Enabled, cfg.Data.Enabled = true, true
	cfg, _ = tb.ConfigFor(cfg, sc)
	if walks := platformRun(b, cfg, sc); walks == 0 {
		b.Fatal("the IOMMU walked no page: it is not in the bench")
	}
}

// BenchmarkDataWorkload is BenchmarkIOMMUWorkload's yardstick: the
// default workload through a bench with the data path on and the IOMMU
// off, so that the two rows side by side tell what the IOMMU costs from
// what moving the bytes costs.
func BenchmarkDataWorkload(b *testing.B) {
	sc := stimulus.Generate(stimulus.DefaultWorkload())
	cfg := rtl.DefaultConfig()
	cfg.Data.Enabled = true
	platformRun(b, cfg, sc)
}

// platformRun runs sc through a fresh bench of cfg per iteration, as tb's
// benchRun does, reports the same metrics, and returns the IOMMU's walks
// summed over the iterations.
func platformRun(b *testing.B, cfg rtl.Config, sc *scenario.Scenario) (walks uint64) {
	var cycles, translations uint64
	var wall, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bench, err := tb.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := bench.Load(sc); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, startCPU := time.Now(), cpuTime()
		if err := bench.Stream(sc.Ops, tb.RunOptions{OnResult: func(*scenario.Result) error { return nil }}); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		cpu += cpuTime() - startCPU
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

// cpuTime is the process's user + system CPU time so far (as tb's
// benchmarks take it).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
