package tb

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"mkeysim/cover"
	"mkeysim/pagetable"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// suiteRun is one scenario of the coverage suite and the configuration
// it runs in. A clocked-only run is not checked against the golden model
// (overlapping invalidation lets an access that has not passed its key
// check see the invalidation, which scenario order forbids), and only the
// clocked model's coverage counts.
type suiteRun struct {
	name        string
	sc          *scenario.Scenario
	cfg         rtl.Config
	clockedOnly bool
	// gap is the offered load of a clocked-only run (Bench.InterArrival).
	gap uint64
}

// coverageSuite lists the scenarios the coverage suite runs through both
// models: the examples, the shared conformance scenarios (when they are
// beside the repository), a fixed-seed random suite and KLM trees.
func coverageSuite(t testing.TB) []suiteRun {
	var runs []suiteRun
	files, _ := filepath.Glob("../examples/*.json")
	shared, _ := filepath.Glob("../../shared/conformance/*.json")
	for _, f := range append(files, shared...) {
		sc, err := scenario.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := ConfigFor(rtl.DefaultConfig(), sc)
		runs = append(runs, suiteRun{name: f, sc: sc, cfg: cfg})
	}
	w := stimulus.DefaultWorkload()
	w.Seed, w.Keys, w.Accesses = 11, 400, 20_000
	runs = append(runs, suiteRun{name: "random seed 11", sc: stimulus.Generate(w), cfg: rtl.DefaultConfig()})
	w = stimulus.DefaultWorkload()
	w.Seed, w.Keys, w.Accesses, w.HotPerMille = 12, 2000, 20_000, 200
	w.UMRPerMille, w.InvalPerMille, w.ResumePerMille, w.BadPerMille = 20, 10, 50, 150
	runs = append(runs, suiteRun{name: "random seed 12, tiny caches", sc: stimulus.Generate(w), cfg: SmallConfigs()["tiny"]})
	runs = append(runs, suiteRun{name: "KLM trees", sc: stimulus.KLMTrees(13, 4, 2000), cfg: rtl.DefaultConfig()})
	runs = append(runs, suiteRun{name: "directed: every status and mode at every level", sc: statusLevelScenario(rtl.DefaultConfig().KLM.MaxIndirection), cfg: rtl.DefaultConfig()})
	// ma_translation_mode's refusals (issue 36) on a device without ATS
	// and on one with it, where an ATS key exists for a UMR to refuse.
	tm, _ := translationModeScenario()
	runs = append(runs, suiteRun{name: "directed: ma_translation_mode without hca_cap.ats", sc: tm, cfg: rtl.DefaultConfig()})
	ats := rtl.DefaultConfig()
	ats.HCACap.ATS = true
	runs = append(runs, suiteRun{name: "directed: ma_translation_mode with hca_cap.ats", sc: tm, cfg: ats})
	faults := iommuFaultScenario(rtl.DefaultConfig().KLM.MaxIndirection)
	withIOMMU, _ := ConfigFor(rtl.DefaultConfig(), faults)
	runs = append(runs, suiteRun{name: "directed: IOMMU_FAULT at every level, iommu_unmap", sc: faults, cfg: withIOMMU})
	// An IOTLB of one entry: every new leaf replaces the last.
	small := withIOMMU
	small.IOMMU.IOTLB.Entries = 1
	runs = append(runs, suiteRun{name: "directed: IOMMU_FAULT at every level, an IOTLB of one entry", sc: faults, cfg: small})
	// The same on a device with ATS: its ATS keys go through the ATC.
	withATS := withIOMMU
	withATS.HCACap.ATS = true
	runs = append(runs, suiteRun{name: "directed: IOMMU_FAULT at every level, with ATS", sc: faults, cfg: withATS})
	// Random traffic through a small ATC: ATS keys, unmapped pages.
	aw := stimulus.DefaultWorkload()
	aw.Seed, aw.Keys, aw.Accesses = 12, 200, 3000
	aw.IOMMU, aw.TranslationMode, aw.IOMMUUnmapPerMille = true, stimulus.TranslationATS, 20
	small.HCACap.ATS, small.IOMMU.IOTLB.Entries, small.ATC.Cache.Entries = true, 64, 4
	atsSc := stimulus.Generate(aw)
	smallATS, _ := ConfigFor(small, atsSc)
	runs = append(runs, suiteRun{name: "random: ATS keys through an ATC of 4 entries, pages unmapped", sc: atsSc, cfg: smallATS})
	// RDMA READ responses under the small fence (issue 37), data path on.
	fw := stimulus.DefaultWorkload()
	fw.Kind, fw.AccessType, fw.AccessBytes, fw.Accesses, fw.SmallFence = stimulus.KindUniform, "REMOTE_READ", 8192, 200, true
	fenceCfg := rtl.DefaultConfig()
	fenceCfg.Data.Enabled = true
	runs = append(runs, suiteRun{name: "measurement: RDMA READ responses under the small fence", sc: stimulus.Generate(fw), cfg: fenceCfg})
	// RDMA WRITEs into host memory that takes 100 to 500 cycles to accept
	// each write (issue 37 part 4): every other region's key has
	// relaxed_ordering_write, so that writes without RO are held behind
	// slower ones and writes with RO pass them.
	rw := stimulus.DefaultWorkload()
	rw.Kind, rw.AccessType, rw.AccessBytes, rw.Accesses, rw.RelaxedOrdering = stimulus.KindUniform, "REMOTE_WRITE", 8192, 200, stimulus.ROWrite
	roSc := stimulus.Generate(rw)
	for i := range roSc.MKeys {
		roSc.MKeys[i].MKC.RelaxedOrderingWrite = i%2 == 0
	}
	roCfg := rtl.DefaultConfig()
	roCfg.Data.Enabled = true
	roCfg.Host.WriteLatencyCycles, roCfg.Host.WriteLatencySpreadCycles = 100, 400
	runs = append(runs, suiteRun{name: "measurement: RDMA WRITEs, half with relaxed ordering, host memory slow to accept writes", sc: roSc, cfg: roCfg})
	// The firmware's pages (issue 37): the examples of examples/pages on
	// a host that answers after its latency, in scattered pages, and the
	// capped refusal; random page commands on a capped host.
	pagesCfg := rtl.DefaultConfig()
	pagesCfg.Host.PagePolicy, pagesCfg.Host.ICMPageOrder = rtl.PolicyOnEvent, rtl.OrderScattered
	pageFiles, _ := filepath.Glob("../examples/pages/*.json")
	for _, f := range pageFiles {
		sc, err := scenario.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, suiteRun{name: f + ", on_event, scattered", sc: sc, cfg: pagesCfg})
	}
	cappedSc, err := scenario.ReadFile("../examples/pages/capped.json")
	if err != nil {
		t.Fatal(err)
	}
	capped := rtl.DefaultConfig()
	capped.Host.PagePolicy, capped.Host.MaxPages = rtl.PolicyCapped, 5
	runs = append(runs, suiteRun{name: "../examples/pages/capped.json, capped at 5 pages", sc: cappedSc, cfg: capped})
	pw := stimulus.DefaultWorkload()
	pw.Seed, pw.Keys, pw.Accesses, pw.PagesPerMille = 14, 200, 5000, 50
	capped.Host.MaxPages = 200
	runs = append(runs, suiteRun{name: "random: page commands on a host capped at 200 pages", sc: stimulus.Generate(pw), cfg: capped})
	overlap := rtl.DefaultConfig()
	overlap.OverlapInvalidate = true
	runs = append(runs, suiteRun{name: "directed: an invalidation reaches an MKC read in flight", sc: invalidateInFlightScenario(), cfg: overlap, clockedOnly: true})
	// An iommu_unmap 500 cycles into a 256 KiB read through the ATC:
	// the read holds translations of the range, and asks for others.
	atsOverlap := overlap
	atsOverlap.HCACap.ATS = true
	unmapSc := unmapInFlightScenario()
	atsOverlap, _ = ConfigFor(atsOverlap, unmapSc)
	runs = append(runs, suiteRun{name: "directed: an iommu_unmap meets an ATS read in flight", sc: unmapSc, cfg: atsOverlap, clockedOnly: true, gap: 500})
	return runs
}

// Keys of the directed scenarios: QP 1 and its REG_UMR twin QP 2 have PD
// 1, QP 3 has PD 2.
var directedQPs = []scenario.QP{{QPN: 1, PD: 1}, {QPN: 2, PD: 1, RegUMR: true}, {QPN: 3, PD: 2}}

// statusLevelScenario reaches what the examples and the random suite
// leave out: every status of translation.md 4 at every level where it can
// arise under the depth limit, and every mode at every level. Each
// case is a leaf key made to end one LOCAL_WRITE of 64 bytes with its
// status (or to translate it in its mode), reached at level L through a
// chain of L keys, variable KLM and Fixed Buffer Size in turn, each
// mapping the piece to the key below; the chains of depth+1 KLM or Fixed
// Buffer Size keys put those modes at every level and end in
// INDIRECTION_DEPTH at depth+1.
func statusLevelScenario(depth int) *scenario.Scenario {
	sc := &scenario.Scenario{QPs: directedQPs}
	next := uint32(1)
	// add creates a key of PD 1 with every right, unbound, and returns it.
	add := func(m prm.MKC, odp bool, mtt []prm.MTTEntry, klm []prm.KLMEntry, edit func(*prm.MKC)) prm.Key {
		m.PD, m.QPN, m.Variant = 1, prm.QPNNone, uint8(next)
		m.LR, m.LW, m.RR, m.RW, m.A, m.UMREn = true, true, true, true, true, true
		if edit != nil {
			edit(&m)
		}
		m.TranslationsOctwordSize = max(m.TranslationsOctwordSize, scenario.OctwordsFor(len(mtt), len(klm)))
		sc.MKeys = append(sc.MKeys, scenario.MKey{Index: next, HasIndex: true, MKC: m, MTT: mtt, KLM: klm, PgAccess: true, ODP: odp})
		next++
		return prm.MakeKey(next-1, m.Variant)
	}
	// chain puts levels keys above the leaf key, whose piece starts at
	// addr, and returns the key at level 0.
	chain := func(levels int, fixed bool, leaf prm.Key, addr uint64) prm.Key {
		for l := 0; l < levels; l++ {
			if fixed {
				leaf = add(prm.MKC{AccessMode: prm.ModeFixedBufferSize, LogEntitySize: 12, Len: 4096}, false, nil,
					[]prm.KLMEntry{{MKey: leaf, Address: addr}}, nil)
			} else {
				leaf = add(prm.MKC{AccessMode: prm.ModeKLM, Len: 64}, false, nil,
					[]prm.KLMEntry{{ByteCount: 64, MKey: leaf, Address: addr}}, nil)
			}
			addr, fixed = 0, !fixed
		}
		return leaf
	}
	access := func(key prm.Key, addr uint64) {
		sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{
			QPN: 1, Key: key, Addr: addr, Len: 64, Type: prm.LocalWrite}})
	}
	pa := func(mode prm.AccessMode, edit func(*prm.MKC)) prm.Key {
		return add(prm.MKC{AccessMode: mode, StartAddr: 0x10000, Len: 0x1000}, false, nil, nil, edit)
	}
	page := func(rd, wr bool) []prm.MTTEntry { return []prm.MTTEntry{{PTag: 0x5000, RdEn: rd, WrEn: wr}} }
	mtt := func(odp bool, ents []prm.MTTEntry, edit func(*prm.MKC)) prm.Key {
		return add(prm.MKC{AccessMode: prm.ModeMTT, StartAddr: 0x10000, Len: 0x1000, LogEntitySize: 12}, odp, ents, nil, edit)
	}
	cases := []func() prm.Key{
		func() prm.Key { return pa(prm.ModePA, nil) },
		func() prm.Key { return pa(prm.ModeSWICM, nil) },
		func() prm.Key { return pa(prm.ModeMEMIC, nil) },
		func() prm.Key { return mtt(false, page(true, true), nil) },
		func() prm.Key { return prm.MakeKey(0xfffff0, 0) },   // BAD_KEY_INDEX
		func() prm.Key { return pa(prm.ModePA, nil) ^ 0x80 }, // KEY_MISMATCH
		func() prm.Key { return pa(prm.ModePA, func(m *prm.MKC) { m.Free = true }) },
		func() prm.Key { return pa(prm.ModePA, func(m *prm.MKC) { m.PD = 2 }) },
		func() prm.Key { return pa(prm.ModePA, func(m *prm.MKC) { m.QPN = 3 }) },
		func() prm.Key { return pa(prm.ModePA, func(m *prm.MKC) { m.Len = 32 }) },   // OUT_OF_RANGE
		func() prm.Key { return pa(prm.ModePA, func(m *prm.MKC) { m.LW = false }) }, // ACCESS_DENIED
		func() prm.Key { // BAD_ACCESS_MODE: a UMR writes log_entity_size 11
			k := mtt(false, page(true, true), nil)
			sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{QPN: 1, Key: k,
				Mask: prm.MaskLogEntitySize, Image: prm.MKC{LogEntitySize: 11}}})
			return k
		},
		func() prm.Key { // TRANSLATION_RANGE: page 0 of a key that starts 8 pages before its list ends
			return mtt(false, page(true, true), func(m *prm.MKC) { m.StartAddr, m.Len = 0x10000-8<<12, 9<<12 })
		},
		func() prm.Key { return mtt(false, page(true, false), nil) }, // PAGE_ACCESS
		func() prm.Key { return mtt(true, page(false, false), nil) }, // PAGE_FAULT
	}
	for i, leaf := range cases {
		for l := 0; l <= depth; l++ {
			top := chain(l, (i+l)%2 == 1, leaf(), 0x10000)
			if l == 0 {
				access(top, 0x10000)
			} else {
				access(top, 0)
			}
		}
	}
	for _, fixed := range []bool{false, true} {
		access(chain(depth+1, fixed, pa(prm.ModePA, nil), 0x10000), 0)
	}
	return sc
}

var suiteCover struct {
	once            sync.Once
	golden, clocked *cover.Collector
}

// suiteCoverage runs the coverage suite once and returns what each model
// collected. Each part of the clocked model that hits points gets a
// collector of its own, and a part that hits a point it does not declare
// (cover.Unit.Covers) fails the suite: a unit says what it covers.
func suiteCoverage(t *testing.T) (golden, clocked *cover.Collector) {
	suiteCover.once.Do(func() {
		g, c := cover.New(), cover.New()
		for _, r := range coverageSuite(t) {
			var finish func()
			collect := func(b *Bench) { finish = collectUnits(t, r.name, b, c) }
			switch {
			case r.clockedOnly:
				runClockedOnly(t, r, collect)
			default:
				runBoth(t, r.name, r.sc, r.cfg, collect)
				rc := refConfig(r.cfg)
				rc.Coverage = g
				if _, err := ref.Run(r.sc, rc); err != nil {
					t.Fatal(err)
				}
			}
			finish()
		}
		suiteCover.golden, suiteCover.clocked = g, c
	})
	if suiteCover.golden == nil {
		t.Fatal("the coverage suite failed")
	}
	return suiteCover.golden, suiteCover.clocked
}

// collectUnits gives each part of b's model that hits points a collector
// of its own; the function it returns, called after the run, checks that
// each hit only the points it declares and adds them, and the points
// derived from the run's counters, to total.
func collectUnits(t *testing.T, name string, b *Bench, total *cover.Collector) func() {
	units := b.Top.CoverUnits()
	cs := make([]*cover.Collector, len(units))
	for i, u := range units {
		cs[i] = cover.New()
		u.SetCoverage(cs[i])
	}
	return func() {
		for i, u := range units {
			declared := map[cover.ID]bool{}
			for _, id := range u.Covers() {
				declared[id] = true
			}
			for id := cover.ID(0); id < cover.NumIDs; id++ {
				if cs[i].Count(id) > 0 && !declared[id] {
					t.Errorf("%s: %T hit %s, which it does not declare", name, u, cover.NameOf(id))
				}
			}
			total.Add(cs[i])
		}
		if err := b.Top.CoverCounters(total); err != nil {
			t.Fatal(err)
		}
	}
}

// runClockedOnly runs a clocked-only run of the suite, tweak setting up
// the bench: every access of it must end OK or, having seen an
// overlapping invalidation of its key, MKEY_FREE (translation.md 3.2's
// in-flight rule), and every command OK.
func runClockedOnly(t *testing.T, r suiteRun, tweak func(*Bench)) {
	b, err := New(r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	tweak(b)
	b.InterArrival(r.gap)
	if err := b.Load(r.sc); err != nil {
		t.Fatal(err)
	}
	res, err := b.Run(r.sc.Ops, nil)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	for _, x := range res {
		if x.Status != prm.OK && !(x.Op == scenario.OpAccess && (x.Status == prm.MKeyFree || x.Status == prm.IOMMUFault)) {
			t.Fatalf("%s: seq %d %v ended %v", r.name, x.Seq, x.Op, x.Status)
		}
	}
}

// TestCoverage: the suite reaches every required point in both models,
// and the two models reach the same points among those both collect (the
// counts differ: the clocked model walks some pieces past a request's
// deciding failure). docs/coverage.md is the suite's report: -update
// rewrites it.
func TestCoverage(t *testing.T) {
	g, c := suiteCoverage(t)
	depth := rtl.DefaultConfig().KLM.MaxIndirection
	r := cover.NewReport(depth, g, c)
	for _, u := range r.Unreached {
		t.Errorf("the coverage suite does not reach %s", u)
	}
	for _, p := range cover.Points(depth) {
		if p.Models == cover.Both && (g.Count(p.ID) > 0) != (c.Count(p.ID) > 0) {
			t.Errorf("%s: golden model %d hits, clocked model %d: one model reaches it and the other not", p.Name, g.Count(p.ID), c.Count(p.ID))
		}
	}
	var doc bytes.Buffer
	doc.WriteString(coverageDocHead)
	r.WriteMarkdown(&doc)
	const path = "../docs/coverage.md"
	if *updateDocs {
		if err := os.WriteFile(path, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, doc.Bytes()) {
		t.Errorf("%s is not the coverage suite's report: run go test ./tb -run TestCoverage -update", path)
	}
	// The README shows the report's grid of statuses by level.
	grid := doc.Bytes()[bytes.Index(doc.Bytes(), []byte("| status | L0 |")):]
	grid = grid[:bytes.Index(grid, []byte("\n\n"))+1]
	if readme, err := os.ReadFile("../README.md"); err != nil || !bytes.Contains(readme, grid) {
		t.Errorf("README.md's Coverage section does not show the grid of statuses by level of %s (%v): copy it from there", path, err)
	}
}

const coverageDocHead = `# Coverage

What the tests reach, point by point, in both models. Each point is named
once, in package ` + "`cover`" + ` (` + "`cover/points.go`" + `), with the event it
counts and the models that collect it: the golden model (` + "`ref`" + `) and the
clocked model (` + "`rtl`" + ` and its units, each of which declares the points it
hits); or, for a point a unit's counter reaches (a cache's hits, misses,
evictions), in the tags of that counter in the unit's Stats struct
(` + "`rtl/sim.CoverPoint`" + `), so that a unit's points come with it. A point is *required* when the coverage suite must reach it;
` + "`make test`" + ` fails (` + "`tb`" + `'s ` + "`TestCoverage`" + `) naming every required point
that either model left at zero, or that one model reaches and the other
not. This page is the suite's report, generated by
` + "`go test ./tb -run TestCoverage -update`" + `; a test fails when it is not current.

The suite: every scenario of ` + "`examples/`" + ` and of ` + "`../shared/conformance/`" + `,
two fixed-seed random workloads (` + "`stimulus.Generate`" + `, one of them in the tiny
cache geometry), KLM trees at the depth limit (` + "`stimulus.KLMTrees`" + `), and
directed scenarios of ` + "`tb`" + `: every status and every mode at
every level, through chains of variable KLM and Fixed Buffer Size keys;
the ma_translation_mode refusals of CREATE_MKEY and UMR
(` + "`tb/translationmode_test.go`" + `), on a device without ` + "`hca_cap.ats`" + ` and on one
with it; ` + "`IOMMU_FAULT`" + ` at every level and ` + "`iommu_unmap`" + ` (issue 36: the golden
model only, as the examples with an ` + "`iommu`" + ` section are, for the clocked model
does not model the IOMMU yet); and an invalidation that reaches an MKC read in flight
(` + "`overlap_invalidate`" + `, the clocked model only: it is not checked against
the golden model).

` + "`mkeysim run --coverage FILE.json`" + ` and ` + "`mkeysim ref --coverage FILE.json`" + ` write
any run's counts as JSON: every point with its name, event, models,
whether it is required, and its count in each model that ran.

Not points, because no input reaches them: an access with a QP that is not
declared (BAD_PARAM; a scenario refuses it), a KLM or Fixed Buffer Size
position d + t past 2^64 (the first part of a piece starts at d < 2^64,
and a later part needs the parts before it found in a list, which cannot
span 2^64 bytes), a read answered with an error completion (the root
complex answers every read the model makes).

`

// iommuFaultScenario (issue 36; the golden model's only) ends an access
// with IOMMU_FAULT at every level 0..depth: a PA key whose address the
// IOMMU does not map, reached through a chain of L KLM keys; and runs
// iommu_unmap to OK and to BAD_PARAM.
func iommuFaultScenario(depth int) *scenario.Scenario {
	sc := &scenario.Scenario{QPs: directedQPs, IOMMU: &scenario.IOMMU{RequesterID: 0x100, Mappings: []scenario.IOMMUMapping{
		{Space: pagetable.Space{ID: 0x100}, IOVA: 0x20000, PA: 0x8000_0000, Size: 0x1000, R: true, W: true}}}}
	all := prm.MKC{PD: 1, QPN: prm.QPNNone, LR: true, LW: true, RR: true, RW: true, A: true}
	leaf := all
	leaf.AccessMode, leaf.StartAddr, leaf.Len, leaf.Variant = prm.ModePA, 0x10000, 0x1000, 1
	sc.MKeys = append(sc.MKeys, scenario.MKey{Index: 1, HasIndex: true, MKC: leaf})
	next := uint32(2)
	for l := 0; l <= depth; l++ {
		key, addr := prm.MakeKey(1, 1), uint64(0x10000)
		for range l {
			k := all
			k.AccessMode, k.Len, k.Variant = prm.ModeKLM, 64, 1
			k.TranslationsOctwordSize = scenario.OctwordsFor(0, 1)
			sc.MKeys = append(sc.MKeys, scenario.MKey{Index: next, HasIndex: true, MKC: k,
				KLM: []prm.KLMEntry{{ByteCount: 64, MKey: key, Address: addr}}})
			key, addr = prm.MakeKey(next, 1), 0
			next++
		}
		sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{
			QPN: 1, Key: key, Addr: addr, Len: 64, Type: prm.LocalWrite}})
	}
	unmap := &scenario.IOMMUUnmap{Space: pagetable.Space{ID: 0x100}, IOVA: 0x20000, Size: 0x1000}
	sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpIOMMUUnmap, Unmap: unmap}, scenario.Op{Kind: scenario.OpIOMMUUnmap, Unmap: unmap})
	return sc
}

// invalidateInFlightScenario is an access whose MKC read is in flight
// when an invalidation of its key reaches the MKC cache (with
// overlap_invalidate): the read's data may predate the invalidation, so
// the cache drops it and reads the context again.
// unmapInFlightScenario is a 256 KiB read through an ATS key whose range
// the next operation unmaps (run with overlap_invalidate and a gap: the
// unmap meets the read in flight).
func unmapInFlightScenario() *scenario.Scenario {
	key := prm.MakeKey(1, 1)
	return &scenario.Scenario{
		QPs: directedQPs,
		MKeys: []scenario.MKey{{Index: 1, HasIndex: true, MKC: prm.MKC{AccessMode: prm.ModePA, PD: 1, QPN: prm.QPNNone,
			Variant: 1, LR: true, LW: true, Len: 1 << 20, MATranslationMode: 1}}},
		IOMMU: &scenario.IOMMU{RequesterID: 0x100, Mappings: []scenario.IOMMUMapping{
			{Space: pagetable.Space{ID: 0x100}, IOVA: 0, PA: 1 << 32, Size: 1 << 20, R: true, W: true}}},
		Ops: []scenario.Op{
			{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: key, Len: 256 << 10, Type: prm.LocalRead}},
			{Kind: scenario.OpIOMMUUnmap, Unmap: &scenario.IOMMUUnmap{Space: pagetable.Space{ID: 0x100}, IOVA: 0, Size: 256 << 10}},
		},
	}
}

func invalidateInFlightScenario() *scenario.Scenario {
	key := prm.MakeKey(1, 1)
	return &scenario.Scenario{
		QPs: directedQPs,
		MKeys: []scenario.MKey{{Index: 1, HasIndex: true, MKC: prm.MKC{AccessMode: prm.ModePA, PD: 1, QPN: prm.QPNNone,
			Variant: 1, LR: true, LW: true, Len: 1 << 20}}},
		Ops: []scenario.Op{
			{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: key, Len: 64, Type: prm.LocalRead}},
			{Kind: scenario.OpLocalInvalidate, QPN: 1, Key: key},
		},
	}
}
