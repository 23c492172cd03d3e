package tb

import (
	"fmt"
	"strings"
	"testing"

	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/stats"
	"mkeysim/tb/stimulus"
)

// TestMeasurementReach: uniform reads over a footprint within the MTT
// cache's reach (lines x 8 entries x page) hit once warm; over a footprint
// k times the reach, about 1/k of the lookups hit (the clocked model,
// checked against the golden model as it runs). One region, so that its
// list is contiguous: the lists of many regions lie at power-of-two
// distances and share sets, which a sweep over mrs shows.
func TestMeasurementReach(t *testing.T) {
	cfg := rtl.DefaultConfig()
	reach := uint64(cfg.MTT.Cache.Entries) * 4096
	for _, tc := range []struct {
		footprint uint64
		lo, hi    float64
	}{
		{reach / 2, 0.85, 1},
		{8 * reach, 0.125 - 0.03, 0.125 + 0.03},
	} {
		t.Run(fmt.Sprint(tc.footprint>>20, "MB"), func(t *testing.T) {
			w := measWorkload(stimulus.KindUniform, 20000, func(w *stimulus.Workload) { w.MRs, w.MRBytes, w.FootprintBytes = 1, 64<<20, tc.footprint })
			st := runBench(t, cfg, stimulus.Generate(w)).Stats(0)
			rate, _ := st.HitRate("mtt_cache")
			if rate < tc.lo || rate > tc.hi {
				t.Errorf("footprint %d MB, reach %d MB: MTT hit rate %.3f, want %.3f..%.3f", tc.footprint>>20, reach>>20, rate, tc.lo, tc.hi)
			}
		})
	}
}

// TestWarmup: with a warm-up, the statistics are the whole run's minus
// the state at the end of the warm-up (cycles, every counter but the
// high-water marks, the latencies), the results are unchanged, and a warm
// footprint inside the MTT cache's reach shows no miss at all; the
// warm-up counts access results across the chunks of a streamed run.
func TestWarmup(t *testing.T) {
	w := measWorkload(stimulus.KindUniform, 6000, func(w *stimulus.Workload) { w.MRs, w.MRBytes, w.FootprintBytes = 1, 64<<20, 1<<20 })
	run := func(warm int, chunks int) (*Bench, []scenario.Result) {
		g := stimulus.NewGenerator(w)
		sc := g.Setup()
		b, err := New(rtl.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		b.Warmup(warm)
		if err := b.Load(sc); err != nil {
			t.Fatal(err)
		}
		var res []scenario.Result
		base := 0
		for ops := g.Next(w.Accesses / chunks); ops != nil; ops = g.Next(w.Accesses / chunks) {
			err := b.Stream(ops, RunOptions{SeqBase: base, OnResult: func(r *scenario.Result) error {
				res = append(res, r.Clone())
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			base += len(ops)
		}
		return b, res
	}
	for _, chunks := range []int{1, 3} {
		full, fullRes := run(0, chunks)
		warm, warmRes := run(2000, chunks)
		if len(warmRes) != len(fullRes) {
			t.Fatalf("%d chunks: %d results with the warm-up, %d without", chunks, len(warmRes), len(fullRes))
		}
		for i := range fullRes {
			if d := scenario.Diff(&warmRes[i], &fullRes[i]); d != "" {
				t.Fatalf("%d chunks: the warm-up changed result %d: %s", chunks, i, d)
			}
		}
		n, cycles, ok := warm.Warmed()
		if !ok || n != 2000 || cycles == 0 {
			t.Fatalf("%d chunks: Warmed() = %d, %d, %v", chunks, n, cycles, ok)
		}
		fs, ws := full.Stats(0), warm.Stats(0)
		if ws.Cycles != fs.Cycles-cycles {
			t.Errorf("%d chunks: %d cycles measured, want %d - %d", chunks, ws.Cycles, fs.Cycles, cycles)
		}
		snap := warm.warm.counters
		for i, c := range ws.Counters {
			want := fs.Counters[i].Value - snap[i].Value
			if c.Max {
				want = fs.Counters[i].Value
			}
			if c.Value != want {
				t.Errorf("%d chunks: %s = %d after the warm-up, want %d", chunks, c.Name, c.Value, want)
			}
		}
		var hist uint64
		for _, b := range ws.LatencyHistogram {
			hist += b.Count
		}
		all := full.Top.Latencies()
		if want := all.N() - warm.warm.latencies.N(); hist != want || want == 0 {
			t.Errorf("%d chunks: %d latencies measured, want %d", chunks, hist, want)
		}
		if m, _ := ws.Count("mtt_cache.misses"); m != 0 {
			t.Errorf("%d chunks: %d MTT misses after warming a 1 MiB footprint (reach 8 MiB)", chunks, m)
		}
		if m, _ := fs.Count("mtt_cache.misses"); m == 0 {
			t.Errorf("the cold run has no MTT miss: the test shows nothing")
		}
	}
	w.WarmupAccesses = w.Accesses
	if err := w.Check(); err == nil || !strings.Contains(err.Error(), "workload.warmup_accesses = 6000: want fewer than accesses = 6000") {
		t.Errorf("warm-up as long as the run: %v", err)
	}
}

// TestInterArrival: with an offered load of one operation every g cycles
// a warm model retires exactly one access every g cycles, the results are
// those of the unthrottled run, and the schedule (idle cycles skipped)
// gives what evaluating every unit every cycle gives.
func TestInterArrival(t *testing.T) {
	w := measWorkload(stimulus.KindUniform, 3000, func(w *stimulus.Workload) { w.MRs, w.MRBytes, w.FootprintBytes = 1, 64<<20, 1<<20 })
	sc := stimulus.Generate(w)
	run := func(gap uint64, noSkip bool) (stats.Report, []scenario.Result) {
		b, err := New(rtl.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		b.Eng.NoSkip = noSkip
		b.Warmup(1000)
		b.InterArrival(gap)
		if err := b.Load(sc); err != nil {
			t.Fatal(err)
		}
		res, err := b.Run(sc.Ops, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b.Stats(0), res
	}
	_, base := run(0, false)
	for _, gap := range []uint64{2, 3, 7, 50} {
		st, res := run(gap, false)
		for i := range base {
			if d := scenario.Diff(&res[i], &base[i]); d != "" {
				t.Fatalf("gap %d: result %d differs from the unthrottled run: %s", gap, i, d)
			}
		}
		if got, want := float64(st.Cycles)/float64(st.Translations), float64(gap); got < want*0.99 || got > want*1.01 {
			t.Errorf("gap %d: %.3f cycles an access once warm, want %d", gap, got, gap)
		}
		all, allRes := run(gap, true)
		if all.Cycles != st.Cycles || fmt.Sprint(all.Counters) != fmt.Sprint(st.Counters) {
			t.Errorf("gap %d: evaluating every cycle gives %d cycles, the schedule %d (or counters differ)", gap, all.Cycles, st.Cycles)
		}
		for i := range allRes {
			if allRes[i].Cycle != res[i].Cycle {
				t.Fatalf("gap %d: result %d at cycle %d evaluating all, %d scheduled", gap, i, allRes[i].Cycle, res[i].Cycle)
			}
		}
	}
}

// TestTenants: each tenant has its PD, its QP and its regions; access n
// is tenant n mod tenants's; every access passes; the caches' counts by
// PD add up to their totals, and each tenant sees its share; one tenant
// is the workload of before, operation for operation.
func TestTenants(t *testing.T) {
	for _, kind := range []string{stimulus.KindUniform, stimulus.KindZipf, stimulus.KindSequential, stimulus.KindStrided} {
		w := measWorkload(kind, 4000, func(w *stimulus.Workload) { w.Tenants, w.MRs, w.MRBytes = 4, 8, 1<<18 })
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		sc := stimulus.Generate(w)
		if len(sc.QPs) != 4 || len(sc.MKeys) != 32 {
			t.Fatalf("%s: %d QPs, %d keys; want 4 and 32", kind, len(sc.QPs), len(sc.MKeys))
		}
		for _, k := range sc.MKeys {
			if want := (k.Index-1)/8 + 1; k.MKC.PD != want {
				t.Fatalf("%s: key %d of PD %d, want %d", kind, k.Index, k.MKC.PD, want)
			}
		}
		for i, op := range sc.Ops {
			a := op.Access
			tenant := uint32(i%4) + 1
			if a.QPN != tenant || (a.Key.Index()-1)/8+1 != tenant {
				t.Fatalf("%s: access %d on QP %d, key %#x; want tenant %d's", kind, i, a.QPN, a.Key, tenant)
			}
		}
		b := runBench(t, rtl.DefaultConfig(), sc)
		s := b.Stats(0)
		var mkcH, mkcM, mttH, mttM uint64
		for i, ten := range s.Tenants {
			if ten.PD != uint32(i+1) || ten.MKCHits+ten.MKCMisses != 1000 {
				t.Errorf("%s: tenant %+v, want PD %d with 1000 MKC lookups", kind, ten, i+1)
			}
			mkcH, mkcM, mttH, mttM = mkcH+ten.MKCHits, mkcM+ten.MKCMisses, mttH+ten.MTTHits, mttM+ten.MTTMisses
		}
		for name, want := range map[string]uint64{"mkc_cache.hits": mkcH, "mkc_cache.misses": mkcM, "mtt_cache.hits": mttH, "mtt_cache.misses": mttM} {
			if got, _ := s.Count(name); got != want || len(s.Tenants) != 4 {
				t.Errorf("%s: %s %d, the tenants' add up to %d (%d tenants)", kind, name, got, want, len(s.Tenants))
			}
		}
		one := measWorkload(kind, 500, nil)
		before := stimulus.Generate(one)
		one.Tenants = 1
		if after := stimulus.Generate(one); fmt.Sprint(after.Ops) != fmt.Sprint(before.Ops) || fmt.Sprint(after.QPs) != fmt.Sprint(before.QPs) {
			t.Errorf("%s: one tenant changed the workload", kind)
		}
	}
}

// measWorkload is a measurement workload of kind k with n accesses.
func measWorkload(k string, n int, tweak func(*stimulus.Workload)) stimulus.Workload {
	w := stimulus.DefaultWorkload()
	w.Kind, w.Accesses = k, n
	if tweak != nil {
		tweak(&w)
	}
	return w
}
