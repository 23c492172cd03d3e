package tb

import (
	"io"
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/vcd"
)

// BenchmarkDefaultWorkload runs the default workload (as `make run` does,
// without the golden-model check) and reports simulated cycles and
// translations per wall second.
func BenchmarkDefaultWorkload(b *testing.B) {
	sc := Generate(DefaultWorkload())
	benchRun(b, sc)
}

// BenchmarkTracedDefaultWorkload is BenchmarkDefaultWorkload with the
// whole waveform written (to io.Discard): what --vcd costs the loop, the
// clock and the writer goroutine included.
func BenchmarkTracedDefaultWorkload(b *testing.B) {
	sc := Generate(DefaultWorkload())
	benchRunTraced(b, sc, true)
}

func benchRun(b *testing.B, sc *scenario.Scenario) { benchRunTraced(b, sc, false) }

func benchRunTraced(b *testing.B, sc *scenario.Scenario, traced bool) {
	var cycles, translations uint64
	var wall time.Duration
	for i := 0; i < b.N; i++ {
		bench, err := New(rtl.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := bench.Load(sc); err != nil {
			b.Fatal(err)
		}
		var tr *Tracer
		if traced {
			if tr, err = Trace(bench, io.Discard, vcd.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if _, err := bench.Run(sc.Ops, nil); err != nil {
			b.Fatal(err)
		}
		if tr != nil {
			if err := tr.Close(); err != nil {
				b.Fatal(err)
			}
		}
		wall += time.Since(start)
		cycles += bench.Eng.Now()
		translations += bench.Top.Translations()
	}
	b.ReportMetric(float64(cycles)/wall.Seconds(), "cycles/s")
	b.ReportMetric(float64(translations)/wall.Seconds(), "translations/s")
}

// BenchmarkHotWorkload is the default workload with every access to a
// cached working set and no commands: the pipeline's peak rate.
func BenchmarkHotWorkload(b *testing.B) {
	w := DefaultWorkload()
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.HotPerMille = 0, 0, 0, 1000
	benchRun(b, Generate(w))
}
