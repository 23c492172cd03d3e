package stimulus

import (
	"strings"
	"testing"

	"mkeysim/pagetable"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// iommuWorkload is a small mixed workload with an IOMMU.
func iommuWorkload(seed int64, mode string, unmaps int, page uint64) Workload {
	w := DefaultWorkload()
	w.Seed, w.Keys, w.Accesses = seed, 256, 20_000
	w.TranslationMode, w.IOMMUUnmapPerMille, w.IOMMUPageBytes, w.IOMMU = mode, unmaps, page, true
	return w
}

// iommuRun is what checkIOMMURun saw.
type iommuRun struct {
	ops, unmaps, faults int
	leaves              uint64                           // leaves mapped at the start
	modes               map[prm.AccessMode]map[uint8]int // keys by access mode and translation mode
	pasids              map[uint32]bool
}

// checkMappings: the iommu section's mappings are aligned to the leaf
// size and, table by table, in order and apart.
func checkMappings(t *testing.T, w Workload, io *scenario.IOMMU) {
	t.Helper()
	if io == nil {
		t.Fatalf("seed %d: no iommu section", w.Seed)
	}
	if io.RequesterID != IOMMURequesterID {
		t.Errorf("seed %d: requester id %#x, want %#x", w.Seed, io.RequesterID, IOMMURequesterID)
	}
	page := w.iommuPage()
	end := map[pagetable.Space]uint64{}
	for i, m := range io.Mappings {
		if m.IOVA%page != 0 || m.Size%page != 0 || m.Size == 0 || m.PA != m.IOVA+iommuPA(page) || !m.R || !m.W {
			t.Errorf("seed %d: mapping %d %v [%#x, +%#x) -> %#x: want aligned to %d, PA = IOVA + %#x, rw", w.Seed, i, m.Space, m.IOVA, m.Size, m.PA, page, iommuPA(page))
		}
		if e, ok := end[m.Space]; ok && m.IOVA < e {
			t.Errorf("seed %d: mapping %d %v at %#x meets or precedes the one before it (ending at %#x)", w.Seed, i, m.Space, m.IOVA, e)
		}
		end[m.Space] = m.IOVA + m.Size
		if m.IOVA+m.Size > 1<<pagetable.IOVABits || m.PA+m.Size > scenario.IOMMUTableBase {
			t.Errorf("seed %d: mapping %d %v [%#x, +%#x) -> %#x reaches the tables' region or past 2^48", w.Seed, i, m.Space, m.IOVA, m.Size, m.PA)
		}
	}
}

// checkIOMMURun generates w, runs it through the golden model (with
// hca_cap.ats) and checks it against an oracle of its own: every key is
// created and no UMR is refused for its translation mode, every unmap
// passes and names a leaf not unmapped before, and an access ends in
// IOMMU_FAULT only at an IOVA of a leaf unmapped before it.
func checkIOMMURun(t *testing.T, w Workload) iommuRun {
	t.Helper()
	sc := Generate(w)
	checkMappings(t, w, sc.IOMMU)
	run := iommuRun{ops: len(sc.Ops), modes: map[prm.AccessMode]map[uint8]int{}, pasids: map[uint32]bool{}}
	for _, m := range sc.IOMMU.Mappings {
		run.leaves += m.Size / w.iommuPage()
	}
	mkcs := map[uint32]prm.MKC{}
	for _, k := range sc.MKeys {
		mkcs[k.Index] = k.MKC
		if run.modes[k.MKC.AccessMode] == nil {
			run.modes[k.MKC.AccessMode] = map[uint8]int{}
		}
		run.modes[k.MKC.AccessMode][k.MKC.MATranslationMode]++
		if k.MKC.MATranslationMode == maCAPI {
			run.pasids[k.MKC.PASID] = true
		}
	}
	m := ref.New(ref.Config{MaxIndirection: 4, ATS: true})
	if err := m.Load(sc); err != nil {
		t.Fatalf("seed %d: %v", w.Seed, err)
	}
	page := w.iommuPage()
	unmapped := map[pagetable.Space]map[uint64]bool{}
	fault := func(r scenario.Result) {
		if r.Status != prm.IOMMUFault {
			return
		}
		run.faults++
		k := mkcs[r.FaultKey.Index()]
		sp := pagetable.Space{ID: IOMMURequesterID}
		if k.MATranslationMode == maCAPI {
			sp = pagetable.Space{PASID: true, ID: k.PASID}
		}
		if !unmapped[sp][r.FaultAddr&^(page-1)] {
			t.Errorf("seed %d: op %d: IOMMU_FAULT of key %#x at %v iova %#x, in no leaf unmapped before", w.Seed, r.Seq, uint32(r.FaultKey), sp, r.FaultAddr)
		}
	}
	for i := range sc.Ops {
		op := &sc.Ops[i]
		res := m.Apply(i, op)
		switch op.Kind {
		case scenario.OpIOMMUUnmap:
			run.unmaps++
			u := op.Unmap
			if res.Status != prm.OK {
				t.Errorf("seed %d: op %d: iommu_unmap %v [%#x, +%#x): %v %s", w.Seed, i, u.Space, u.IOVA, u.Size, res.Status, res.Reason)
			}
			if u.Size != page || u.IOVA%page != 0 {
				t.Errorf("seed %d: op %d: iommu_unmap [%#x, +%#x): want one leaf of %d", w.Seed, i, u.IOVA, u.Size, page)
			}
			if unmapped[u.Space] == nil {
				unmapped[u.Space] = map[uint64]bool{}
			}
			if unmapped[u.Space][u.IOVA] {
				t.Errorf("seed %d: op %d: %v iova %#x unmapped twice", w.Seed, i, u.Space, u.IOVA)
			}
			unmapped[u.Space][u.IOVA] = true
		case scenario.OpUMR:
			if strings.Contains(res.Reason, "translation_mode") {
				t.Errorf("seed %d: op %d: UMR refused: %s", w.Seed, i, res.Reason)
			}
		}
		fault(res)
		for _, r := range res.Resumed {
			fault(r)
		}
	}
	return run
}

// TestIOMMUWorkloads: for each translation mode and leaf size, a mixed
// workload with an IOMMU runs through the golden model with no IOMMU_FAULT
// but at leaves it unmapped, its keys have the translation modes asked
// for, and its unmaps come at about the rate asked.
func TestIOMMUWorkloads(t *testing.T) {
	cases := []struct {
		mode   string
		unmaps int
		page   uint64
	}{
		{TranslationNone, 0, 4096},
		{TranslationNone, 20, 4096},
		{TranslationMixed, 0, 4096},
		{TranslationCAPI, 0, 2 << 20},
		{TranslationATS, 20, 4096},
		{TranslationCAPI, 20, 4096},
		{TranslationMixed, 20, 4096},
		{TranslationMixed, 50, 2 << 20},
		{TranslationCAPI, 50, 2 << 20},
		{TranslationMixed, 5, 1 << 30},
	}
	faults := 0
	for _, c := range cases {
		for _, seed := range []int64{1, 2, 3} {
			w := iommuWorkload(seed, c.mode, c.unmaps, c.page)
			run := checkIOMMURun(t, w)
			faults += run.faults
			if run.unmaps > int(run.leaves) {
				t.Errorf("seed %d, %s: %d unmaps of %d leaves", seed, c.mode, run.unmaps, run.leaves)
			}
			if c.unmaps == 0 && run.faults > 0 {
				t.Errorf("seed %d, %s: %d IOMMU_FAULTs without unmaps", seed, c.mode, run.faults)
			}
			if want := float64(c.unmaps) / 1000 * float64(run.ops); float64(run.leaves) > 2*want && (float64(run.unmaps) < 0.75*want || float64(run.unmaps) > 1.25*want) {
				t.Errorf("seed %d, %s: %d unmaps in %d operations, want about %.0f", seed, c.mode, run.unmaps, run.ops, want)
			}
			pa, mtt := run.modes[prm.ModePA], run.modes[prm.ModeMTT]
			switch c.mode {
			case TranslationNone:
				if pa[maNone] != sum(pa) || mtt[maNone] != sum(mtt) {
					t.Errorf("seed %d, none: PA keys by mode %v, MTT keys %v", seed, pa, mtt)
				}
			case TranslationATS:
				if pa[maATS] != sum(pa) || mtt[maATS] != sum(mtt) {
					t.Errorf("seed %d, ats: PA keys by mode %v, MTT keys %v: want all ATS", seed, pa, mtt)
				}
			case TranslationCAPI:
				if pa[maCAPI] != sum(pa) || mtt[maNone] != sum(mtt) || len(run.pasids) < 2 {
					t.Errorf("seed %d, capi: PA keys by mode %v, MTT keys %v, PASIDs %v: want every PA key CAPI over several PASIDs", seed, pa, mtt, run.pasids)
				}
			case TranslationMixed:
				if pa[maNone] == 0 || pa[maATS] == 0 || pa[maCAPI] == 0 || mtt[maNone] == 0 || mtt[maATS] == 0 || mtt[maCAPI] != 0 {
					t.Errorf("seed %d, mixed: PA keys by mode %v, MTT keys %v: want every legal mode", seed, pa, mtt)
				}
			}
			for am, by := range run.modes {
				if am != prm.ModePA && am != prm.ModeMTT && by[maNone] != sum(by) {
					t.Errorf("seed %d, %s: %v keys by translation mode %v: want none", seed, c.mode, am, by)
				}
			}
			for p := range run.pasids {
				if p < 1 || p > capiPASIDs {
					t.Errorf("seed %d, %s: PASID %d, want 1..%d", seed, c.mode, p, capiPASIDs)
				}
			}
		}
	}
	t.Logf("%d IOMMU_FAULTs in all", faults)
	if faults == 0 {
		t.Error("no IOMMU_FAULT in any run: the unmaps hit nothing the accesses touch")
	}
}

func sum(m map[uint8]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestIOMMUMeasurementWorkloads: the measurement and trace kinds' regions
// are mapped, their accesses pass but at leaves unmapped before, and ats
// makes every region ATS.
func TestIOMMUMeasurementWorkloads(t *testing.T) {
	for _, k := range []string{KindUniform, KindZipf, KindSequential, KindStrided, KindTrace} {
		for _, mode := range []string{TranslationNone, TranslationATS, TranslationMixed} {
			w := measWorkload(k, 20_000, func(w *Workload) {
				w.IOMMU, w.TranslationMode, w.IOMMUUnmapPerMille = true, mode, 10
				if k == KindTrace {
					w.TraceFile = "../../examples/traces/small.csv"
				}
			})
			if err := w.Check(); err != nil {
				t.Fatalf("%s %s: %v", k, mode, err)
			}
			run := checkIOMMURun(t, w)
			if run.unmaps == 0 {
				t.Errorf("seed %d, %s %s: no unmaps", w.Seed, k, mode)
			}
			if mode == TranslationATS && run.modes[prm.ModeMTT][maATS] != w.MRs {
				t.Errorf("seed %d, %s ats: MTT keys by mode %v", w.Seed, k, run.modes[prm.ModeMTT])
			}
		}
	}
}

// TestIOMMUDefaultOff: the knobs at their defaults make no iommu section
// and no unmaps, and translation_mode none without IOMMU makes the same
// scenario as the workload with IOMMU but for the section and the DMA
// addresses' fold.
func TestIOMMUDefaultOff(t *testing.T) {
	w := DefaultWorkload()
	w.Accesses = 5000
	sc := Generate(w)
	if sc.IOMMU != nil {
		t.Error("an iommu section without Workload.IOMMU")
	}
	w.IOMMU = true
	sc2 := Generate(w)
	if len(sc2.Ops) != len(sc.Ops) || len(sc2.MKeys) != len(sc.MKeys) {
		t.Errorf("seed %d: IOMMU changed the operations: %d ops, %d keys, want %d, %d", w.Seed, len(sc2.Ops), len(sc2.MKeys), len(sc.Ops), len(sc.MKeys))
	}
}

// TestIOMMUTablesFit: the mixed kind's tables fit in the tables' region
// with many keys in every translation mode (iommu.go's bound), and the
// golden model builds them.
func TestIOMMUTablesFit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large tables")
	}
	for _, mode := range []string{TranslationNone, TranslationCAPI, TranslationMixed} {
		w := iommuWorkload(5, mode, 0, 4096)
		w.Keys, w.Accesses = 1<<15, 100
		sc := Generate(w)
		bySpace := map[pagetable.Space][]scenario.IOMMUMapping{}
		for _, m := range sc.IOMMU.Mappings {
			bySpace[m.Space] = append(bySpace[m.Space], m)
		}
		var need uint64
		for _, ms := range bySpace {
			need += tablesFor(ms, 4096)
		}
		if room := uint64(scenario.IOMMUTableSize / pagetable.PageBytes); need > room*2/3 {
			t.Errorf("seed %d, %s: %d keys need %d tables, want well below the %d there is room for", w.Seed, mode, w.Keys, need, room)
		}
		t.Logf("seed %d, %s: %d keys need %d tables", w.Seed, mode, w.Keys, need)
		if err := ref.New(ref.Config{MaxIndirection: 4, ATS: true}).Load(sc); err != nil {
			t.Errorf("seed %d, %s: %v", w.Seed, mode, err)
		}
	}
}

// TestTablesFor: tablesFor counts the tables pagetable.Tables.Map makes,
// with the tables' shape as pagetable has it.
func TestTablesFor(t *testing.T) {
	if tablePageBytes != pagetable.PageBytes || tableLevels != pagetable.Levels {
		t.Fatalf("the tables' shape: %d-byte tables of %d levels, pagetable's %d, %d", tablePageBytes, tableLevels, pagetable.PageBytes, pagetable.Levels)
	}
	for l := 1; l <= tableLevels; l++ {
		if levelShift(l) != pagetable.Shift(l) {
			t.Errorf("levelShift(%d) = %d, pagetable.Shift %d", l, levelShift(l), pagetable.Shift(l))
		}
	}
	for _, page := range []uint64{4096, 2 << 20, 1 << 30} {
		ms := []scenario.IOMMUMapping{
			{IOVA: 0, Size: 3 * page}, {IOVA: 7 * page, Size: page}, {IOVA: 1 << 40, Size: 5 * page},
			{IOVA: 1<<41 - page, Size: 2 * page}, {IOVA: 1 << 44, Size: 600 * page},
		}
		mem := &sparse{}
		tb := pagetable.New(mem, scenario.IOMMUTableBase, scenario.IOMMUTableSize)
		for _, m := range ms {
			m.PA = m.IOVA + iommuPA(page)
			if err := tb.Map(pagetable.Space{}, m.IOVA, m.PA, m.Size, true, true); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := tablesFor(ms, page), mem.tables(); got != want {
			t.Errorf("page %d: tablesFor %d, the tables made %d", page, got, want)
		}
	}
}

// sparse is host memory that counts the tables written.
type sparse struct{ pages map[uint64][]byte }

func (m *sparse) Read(a uint64, b []byte) {
	for i := range b {
		if p := m.pages[(a+uint64(i))/4096]; p != nil {
			b[i] = p[(a+uint64(i))%4096]
		} else {
			b[i] = 0
		}
	}
}

func (m *sparse) Write(a uint64, b []byte) {
	if m.pages == nil {
		m.pages = map[uint64][]byte{}
	}
	for i, c := range b {
		p := m.pages[(a+uint64(i))/4096]
		if p == nil {
			p = make([]byte, 4096)
			m.pages[(a+uint64(i))/4096] = p
		}
		p[(a+uint64(i))%4096] = c
	}
}

// tables counts the table pages: the root is written once a space has a
// first leaf, and every other table once it holds one.
func (m *sparse) tables() uint64 { return uint64(len(m.pages)) }

// TestIOMMUWorkloadErrors: bad values and combinations are refused with
// the parameters to change named.
func TestIOMMUWorkloadErrors(t *testing.T) {
	cases := []struct {
		name      string
		tweak     func(*Workload)
		iommu     bool
		ats       bool
		wantError string
	}{
		{"unknown mode", func(w *Workload) { w.TranslationMode = "pasid" }, true, true, `workload.translation_mode = "pasid": want none, ats, capi or mixed`},
		{"page size", func(w *Workload) { w.IOMMUPageBytes = 8192 }, true, true, "workload.iommu_page_bytes = 8192: want 4096, 2097152 or 1073741824"},
		{"unmaps past 1000", func(w *Workload) { w.IOMMUUnmapPerMille = 1001 }, true, true, "workload.iommu_unmap_per_mille = 1001: want 0..1000"},
		{"ats without IOMMU", func(w *Workload) { w.TranslationMode = "ats" }, false, true, "workload.translation_mode = ats needs iommu.enabled = true"},
		{"capi without IOMMU", func(w *Workload) { w.TranslationMode = "capi" }, false, false, "workload.translation_mode = capi needs iommu.enabled = true"},
		{"unmaps without IOMMU", func(w *Workload) { w.IOMMUUnmapPerMille = 3 }, false, true, "workload.iommu_unmap_per_mille = 3 needs iommu.enabled = true"},
		{"ats without hca_cap.ats", func(w *Workload) { w.TranslationMode = "ats" }, true, false, "workload.translation_mode = ats needs hca_cap.ats = true"},
		{"mixed without hca_cap.ats", func(w *Workload) { w.TranslationMode = "mixed" }, true, false, "workload.translation_mode = mixed needs hca_cap.ats = true"},
		{"capi on MTT regions", func(w *Workload) { w.TranslationMode, w.Kind = "capi", KindZipf }, true, true,
			"workload.translation_mode = capi: kind = zipf makes its regions MTT keys, and ma_translation_mode CAPI is for PA keys only"},
		{"regions' tables", func(w *Workload) { w.Kind, w.MRs, w.MRBytes, w.PageBytes = KindUniform, 4096, 16<<20, 2<<20 }, true, true,
			"workload.mrs x tenants x mr_bytes = 68719476736 bytes of regions need 32834 I/O page tables of leaves of workload.iommu_page_bytes = 4096: want at most 16384"},
		{"regions past the tables", func(w *Workload) {
			w.Kind, w.MRs, w.MRBytes, w.PageBytes, w.IOMMUPageBytes = KindUniform, 2048, 1<<37, 1<<31, 1<<30
		}, true, true, "past 0x1000000000000 where the IOMMU's tables lie: want fewer or smaller regions"},
	}
	for _, c := range cases {
		w := DefaultWorkload()
		w.IOMMU = c.iommu
		c.tweak(&w)
		err := rtl.CheckRanges(&w, "workload.")
		if err == nil {
			err = w.CheckPlatform(c.iommu, c.ats)
		}
		if err == nil {
			err = w.Check()
		}
		if err == nil || !strings.Contains(err.Error(), c.wantError) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.wantError)
		}
	}
	// The good ones pass.
	for _, mode := range []string{TranslationNone, TranslationATS, TranslationCAPI, TranslationMixed} {
		w := iommuWorkload(1, mode, 10, 2<<20)
		if err := rtl.CheckRanges(&w, "workload."); err != nil {
			t.Error(err)
		}
		if err := w.CheckPlatform(true, true); err != nil {
			t.Error(err)
		}
		if err := w.Check(); err != nil {
			t.Error(err)
		}
	}
}
