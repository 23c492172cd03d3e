package stimulus

import (
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
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
