package tb

import (
	"fmt"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// measWorkload is a measurement workload of kind k with n accesses.
func measWorkload(k string, n int, tweak func(*Workload)) Workload {
	w := DefaultWorkload()
	w.Kind, w.Accesses = k, n
	if tweak != nil {
		tweak(&w)
	}
	return w
}

// TestMeasurementWorkloadsPass: every access of every measurement kind
// passes in the golden model, lies in its region's part of the footprint
// and has the size and type asked for, over region and page shapes from
// 4096 regions of 512 bytes to one region of 1 GiB in 2 MB pages.
func TestMeasurementWorkloadsPass(t *testing.T) {
	shapes := []struct {
		name  string
		tweak func(*Workload)
	}{
		{"default", nil},
		{"4096 MRs x 512 B", func(w *Workload) { w.MRs, w.MRBytes, w.AccessBytes = 4096, 512, 64 }},
		{"1 GiB in 2 MB pages", func(w *Workload) { w.MRs, w.MRBytes, w.PageBytes = 1, 1<<30, 2<<20 }},
		{"footprint 1 MB", func(w *Workload) { w.FootprintBytes = 1 << 20 }},
		{"odd footprint and stride", func(w *Workload) { w.FootprintBytes, w.StrideBytes, w.AccessBytes = 1000003, 4099, 100 }},
		{"atomics", func(w *Workload) {
			w.AccessType, w.AccessBytes, w.StrideBytes, w.FootprintBytes = "REMOTE_ATOMIC", 8, 1001, 640001
		}},
		{"writes, 1 GB pages", func(w *Workload) { w.AccessType, w.MRs, w.MRBytes, w.PageBytes = "REMOTE_WRITE", 3, 3<<30, 1<<30 }},
	}
	for _, kind := range []string{KindUniform, KindZipf, KindSequential, KindStrided} {
		for _, sh := range shapes {
			t.Run(kind+"/"+sh.name, func(t *testing.T) {
				w := measWorkload(kind, 3000, sh.tweak)
				if err := w.Check(); err != nil {
					t.Fatal(err)
				}
				sc := Generate(w)
				if len(sc.MKeys) != w.MRs || len(sc.Ops) != w.Accesses {
					t.Fatalf("%d keys and %d operations, want %d and %d", len(sc.MKeys), len(sc.Ops), w.MRs, w.Accesses)
				}
				res, err := ref.Run(sc, ref.DefaultConfig())
				if err != nil {
					t.Fatal(err)
				}
				typ, _ := prm.ParseAccessType(w.AccessType)
				for i, op := range sc.Ops {
					a := op.Access
					if op.Kind != scenario.OpAccess || a.Type != typ || a.Len != w.AccessBytes {
						t.Fatalf("operation %d: %+v, want a %v access of %d bytes", i, op, typ, w.AccessBytes)
					}
					region := int(a.Key.Index()) - 1
					in := a.Addr - regionBase(region)
					if region < 0 || region >= w.MRs || in+uint64(a.Len) > w.window() {
						t.Fatalf("operation %d: %#x in region %d is outside the region's %d bytes of footprint", i, a.Addr, region, w.window())
					}
					if res[i].Status != prm.OK {
						t.Fatalf("operation %d (%+v): %v, want OK", i, a, res[i].Status)
					}
				}
			})
		}
	}
}

// TestMeasurementAddresses: the first accesses of each kind are where
// the definition puts them.
func TestMeasurementAddresses(t *testing.T) {
	w := measWorkload(KindSequential, 6, func(w *Workload) { w.MRs, w.MRBytes, w.FootprintBytes, w.AccessBytes = 2, 1<<20, 256, 64 })
	// Two regions of 128 footprint bytes each: two blocks of 64 each.
	want := []struct {
		region int
		in     uint64
	}{{0, 0}, {0, 64}, {1, 0}, {1, 64}, {0, 0}, {0, 64}}
	for i, op := range Generate(w).Ops {
		if a := op.Access; a.Key != prm.MakeKey(uint32(want[i].region+1), 0) || a.Addr != regionBase(want[i].region)+want[i].in {
			t.Errorf("sequential access %d: key %v addr %#x, want region %d + %d", i, a.Key, a.Addr, want[i].region, want[i].in)
		}
	}
	w = measWorkload(KindStrided, 5, func(w *Workload) {
		w.MRs, w.MRBytes, w.FootprintBytes, w.AccessBytes, w.StrideBytes = 2, 1<<20, 2000, 64, 700
	})
	// Regions of 1000 footprint bytes; offsets 0, 700, 1400, 2100 mod 2000 = 100, 2800 mod 2000 = 800.
	wantS := []struct {
		region int
		in     uint64
	}{{0, 0}, {0, 700}, {1, 400}, {0, 100}, {0, 800}}
	for i, op := range Generate(w).Ops {
		if a := op.Access; a.Key != prm.MakeKey(uint32(wantS[i].region+1), 0) || a.Addr != regionBase(wantS[i].region)+wantS[i].in {
			t.Errorf("strided access %d: key %v addr %#x, want region %d + %d", i, a.Key, a.Addr, wantS[i].region, wantS[i].in)
		}
	}
	// Uniform: reproducible from the seed, every block reached.
	w = measWorkload(KindUniform, 4000, func(w *Workload) { w.MRs, w.FootprintBytes, w.AccessBytes = 4, 4096, 64 })
	a, b := Generate(w), Generate(w)
	seen := map[uint64]bool{}
	for i := range a.Ops {
		if a.Ops[i].Access != b.Ops[i].Access {
			t.Fatalf("uniform access %d differs between two runs of seed %d", i, w.Seed)
		}
		seen[a.Ops[i].Access.Addr] = true
	}
	if len(seen) != 64 {
		t.Errorf("uniform reached %d of the 64 blocks in 4000 accesses", len(seen))
	}
	w.Seed++
	if c := Generate(w); c.Ops[0].Access == a.Ops[0].Access && c.Ops[1].Access == a.Ops[1].Access {
		t.Errorf("seeds %d and %d start with the same accesses", w.Seed-1, w.Seed)
	}
}

// TestMeasurementCheck: a measurement workload whose parameters do not
// fit together is refused naming the parameter and the values.
func TestMeasurementCheck(t *testing.T) {
	for _, tc := range []struct {
		tweak func(*Workload)
		want  string
	}{
		{func(w *Workload) { w.MRs, w.MRBytes = 1<<20, 1<<30 }, "workload.mrs x mr_bytes / page_bytes = 1048576 x 262144 pages"},
		{func(w *Workload) { w.FootprintBytes = 65<<20 + 1 }, "workload.footprint_bytes = 68157441: want at most mrs x mr_bytes = 67108864"},
		{func(w *Workload) { w.FootprintBytes, w.AccessBytes = 64*32, 64 }, "workload.access_bytes = 64: want at most footprint_bytes / mrs = 32"},
		{func(w *Workload) { w.AccessType = "REMOTE_ATOMIC" }, "workload.access_bytes = 64: want 8 for REMOTE_ATOMIC"},
		{func(w *Workload) { w.Tenants, w.MRs, w.MRBytes = 3, 1<<19, 1<<15 }, "workload.tenants x mrs x mr_bytes / page_bytes = 3 x 524288 x 8 pages"},
	} {
		w := measWorkload(KindUniform, 10, tc.tweak)
		err := w.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one with %q", w, err, tc.want)
		}
		w.Kind = KindMixed
		if err := w.Check(); err != nil {
			t.Errorf("the mixed workload ignores the measurement parameters, but: %v", err)
		}
	}
}

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
			w := measWorkload(KindUniform, 20000, func(w *Workload) { w.MRs, w.MRBytes, w.FootprintBytes = 1, 64<<20, tc.footprint })
			st := runBench(t, cfg, Generate(w)).Stats(0)
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
	w := measWorkload(KindUniform, 6000, func(w *Workload) { w.MRs, w.MRBytes, w.FootprintBytes = 1, 64<<20, 1<<20 })
	run := func(warm int, chunks int) (*Bench, []scenario.Result) {
		g := NewGenerator(w)
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
	w := measWorkload(KindUniform, 3000, func(w *Workload) { w.MRs, w.MRBytes, w.FootprintBytes = 1, 64<<20, 1<<20 })
	sc := Generate(w)
	run := func(gap uint64, noSkip bool) (Stats, []scenario.Result) {
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
	for _, kind := range []string{KindUniform, KindZipf, KindSequential, KindStrided} {
		w := measWorkload(kind, 4000, func(w *Workload) { w.Tenants, w.MRs, w.MRBytes = 4, 8, 1<<18 })
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		sc := Generate(w)
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
		before := Generate(one)
		one.Tenants = 1
		if after := Generate(one); fmt.Sprint(after.Ops) != fmt.Sprint(before.Ops) || fmt.Sprint(after.QPs) != fmt.Sprint(before.QPs) {
			t.Errorf("%s: one tenant changed the workload", kind)
		}
	}
}
