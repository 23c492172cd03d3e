package stimulus

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"slices"
	"sort"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// This file is the workload's side of the host IOMMU (issue 36): the
// translation modes of the keys it makes (workload.translation_mode), the
// iommu section of the scenario when the caller sets Workload.IOMMU from
// iommu.enabled, and iommu_unmap operations (iommu_unmap_per_mille).
//
// The iommu section maps every DMA byte a key of the workload can reach:
// a PA key's [start_addr, +len), each MTT entry's page (a UMR's new
// entries name pages some MTT key of the same page size had at its
// creation, so they are mapped too), in the requester ID's table for
// keys of translation mode none or ATS and in the PASID's table for CAPI
// keys. The ranges of a table are rounded out to iommu_page_bytes and
// merged, so that no two mappings meet, and mapped IOVA to IOVA +
// iommuPA(page): the offset is 2^40, plus iommu_page_bytes below 1 GiB so
// that the IOMMU's tables, which make each leaf as large as the IOVA and
// PA alignment allows, make leaves of iommu_page_bytes exactly (an unmap
// of one never cuts a larger one).
//
// The tables must fit in scenario.IOMMUTableSize. The mixed kind's DMA
// addresses are drawn over 2^50 bytes of host memory (random 4 KiB pages
// there would need three tables each): with IOMMU set they are folded into
// the first iommuWindow bytes of IOVA space (the same draws, so the rest
// of the workload is as without IOMMU), where the requester ID's table and
// each of the capiPASIDs tables need at most about 1030 tables of 4 KiB
// leaves, 9,300 in all: the mixed kind always fits. The measurement and
// trace kinds map their regions' pages as they lie (from physBase on), and
// Check names the parameters to change when they do not fit.

// The translation modes of workload.translation_mode.
const (
	TranslationNone  = "none"
	TranslationATS   = "ats"
	TranslationCAPI  = "capi"
	TranslationMixed = "mixed"
)

// The values of ma_translation_mode (MKC 00h 5:4, seed 2.2.1).
const (
	maNone = 0
	maATS  = 1
	maCAPI = 3
)

const (
	// IOMMURequesterID is the HCA's requester ID in a generated iommu
	// section: the table of keys of translation mode none and ATS.
	IOMMURequesterID = 0x300
	// IOMMUPABase is what a generated mapping adds to an IOVA to make its
	// PA (and iommu_page_bytes below 1 GiB: iommuPA).
	IOMMUPABase = 1 << 40
	// iommuWindow holds the mixed kind's DMA addresses with IOMMU set.
	iommuWindow = 1 << 31
	// capiPASIDs: CAPI keys get PASIDs 1..capiPASIDs.
	capiPASIDs = 8
	// The seeds of the translation modes' and the unmaps' draws, mixed
	// with workload.seed: apart from the workload's own draws.
	translationSeed = 0x36_7a
	unmapSeed       = 0x36_0f
)

// The shape of the IOMMU's tables (pagetable, which this package reaches
// only through scenario: internal/layers): a table of 512 entries of 4
// KiB, four levels, a leaf at level l mapping 1 << levelShift(l) bytes.
const (
	tablePageBytes = 4096
	tableLevels    = 4
)

func levelShift(l int) uint { return 12 + 9*uint(l-1) }

// ioSpace names a table: the requester ID's or a PASID's (the
// pagetable.Space of scenario's mappings).
type ioSpace struct {
	pasid bool
	id    uint32
}

// iommuPA is the offset of a generated mapping's PA from its IOVA for
// leaves of page bytes: 2^40, plus page when page is below 1 GiB, so that
// IOVA and PA never share an alignment above page.
func iommuPA(page uint64) uint64 {
	if page >= 1<<30 {
		return IOMMUPABase
	}
	return IOMMUPABase + page
}

// CheckPlatform names the first workload parameter that the platform
// refuses: a translation mode other than none or iommu_unmap_per_mille
// above 0 without an IOMMU (iommuEnabled, the caller's iommu.enabled),
// and ats or mixed (which make ATS keys) on a device without hca_cap.ats
// (atsCap), whose CREATE_MKEY would refuse the keys. The caller also sets
// w.IOMMU from iommu.enabled.
func (w *Workload) CheckPlatform(iommuEnabled, atsCap bool) error {
	mode := w.translationMode()
	switch {
	case mode != TranslationNone && !iommuEnabled:
		return fmt.Errorf("workload.translation_mode = %s needs iommu.enabled = true (a key's translation mode names the IOMMU table of its DMA addresses)", mode)
	case w.IOMMUUnmapPerMille > 0 && !iommuEnabled:
		return fmt.Errorf("workload.iommu_unmap_per_mille = %d needs iommu.enabled = true (it unmaps pages of the IOMMU's tables)", w.IOMMUUnmapPerMille)
	case (mode == TranslationATS || mode == TranslationMixed) && !atsCap:
		return fmt.Errorf("workload.translation_mode = %s needs hca_cap.ats = true (CREATE_MKEY refuses an ATS key on a device without ATS)", mode)
	}
	return nil
}

// translationMode is w's translation mode, "" read as none.
func (w *Workload) translationMode() string {
	if w.TranslationMode == "" {
		return TranslationNone
	}
	return w.TranslationMode
}

// iommuPage is w's leaf size, 0 read as 4 KiB.
func (w *Workload) iommuPage() uint64 {
	if w.IOMMUPageBytes == 0 {
		return tablePageBytes
	}
	return w.IOMMUPageBytes
}

// checkTranslationMode refuses capi for the kinds whose keys are MTT keys
// (the measurement kinds and trace): CAPI is for PA keys only.
func (w *Workload) checkTranslationMode() error {
	if w.translationMode() == TranslationCAPI && w.Kind != KindMixed && w.Kind != "" {
		return fmt.Errorf("workload.translation_mode = capi: kind = %s makes its regions MTT keys, and ma_translation_mode CAPI is for PA keys only (seed 2.2.1): want none, ats or mixed, or kind = mixed", w.Kind)
	}
	return nil
}

// regionBytes is the host memory the regions of a measurement or trace
// workload take, from physBase on (makeRegions).
// (at most 2^64 - 1: a trace workload's tenants are not bounded by the
// MTT entries' limit).
func regionBytes(w *Workload) uint64 {
	pages := (w.MRBytes + w.PageBytes - 1) / w.PageBytes
	n := uint64(1)
	for _, f := range []uint64{pages, w.PageBytes, uint64(w.MRs), uint64(max(w.Tenants, 1))} {
		hi, lo := bits.Mul64(n, f)
		if hi != 0 {
			return math.MaxUint64
		}
		n = lo
	}
	return n
}

// checkRegionTables names the parameters to change when the IOMMU's
// mapping of a measurement or trace workload's regions would not fit:
// its PAs must stay below the tables' region (scenario.IOMMUTableBase),
// and its tables in scenario.IOMMUTableSize.
func (w *Workload) checkRegionTables() error {
	if !w.IOMMU {
		return nil
	}
	page := w.iommuPage()
	size := regionBytes(w)
	lo, hi := physBase&^(page-1), (physBase+size+page-1)&^(page-1)
	if size > scenario.IOMMUTableBase || hi+iommuPA(page) > scenario.IOMMUTableBase {
		return fmt.Errorf("workload.mrs x tenants x mr_bytes = %d bytes of regions, from IOVA %#x on, would map PAs up to %#x, past %#x where the IOMMU's tables lie: want fewer or smaller regions",
			size, uint64(physBase), hi+iommuPA(page), uint64(scenario.IOMMUTableBase))
	}
	need := tablesFor([]scenario.IOMMUMapping{{IOVA: lo, Size: hi - lo}}, page)
	if room := uint64(scenario.IOMMUTableSize / tablePageBytes); need > room {
		return fmt.Errorf("workload.mrs x tenants x mr_bytes = %d bytes of regions need %d I/O page tables of leaves of workload.iommu_page_bytes = %d: want at most %d (larger iommu_page_bytes, or fewer or smaller regions)",
			size, need, page, room)
	}
	return nil
}

// tablesFor counts the I/O page tables that ms, the mappings of one
// table, need with leaves of page bytes, as pagetable.Tables.Map makes
// them: the root, and at each level from the leaves' to 3 one table for
// each block of 512 of its entries that a mapping touches. ms is sorted
// and its mappings do not meet.
func tablesFor(ms []scenario.IOMMUMapping, page uint64) uint64 {
	n := uint64(1)
	leaf := 1 + (bits.TrailingZeros64(page)-12)/9
	for l := leaf; l < tableLevels; l++ {
		block := uint64(1) << levelShift(l+1) // the IOVAs of a table at level l
		var last uint64
		for i, m := range ms {
			first, end := m.IOVA/block, (m.IOVA+m.Size-1)/block
			n += end - first + 1
			if i > 0 && first == last {
				n-- // the previous mapping's last table
			}
			last = end
		}
	}
	return n
}

// genIOMMU is the IOMMU's side of a generator: the DMA ranges of the keys
// as they are made, by table; then the mappings, and the leaves unmapped.
type genIOMMU struct {
	page  uint64
	spans map[ioSpace][]span // DMA ranges, merged now and then
	// pool holds the MTT entries' page addresses by log2 page size: the
	// pages a UMR's new entries take.
	pool map[uint8][]uint64

	r        *rand.Rand // the unmaps' draws
	perMille int
	sec      *scenario.IOMMU
	cum      []uint64 // leaves of the mappings before mapping i; the last: all
	unmapped map[uint64]bool
}

// span is the IOVAs [lo, hi).
type span struct{ lo, hi uint64 }

// rid is the requester ID's table.
func (io *genIOMMU) rid() ioSpace { return ioSpace{id: IOMMURequesterID} }

// startIOMMU sets up the draws of the translation modes and the IOMMU's
// state, as w asks.
func (g *gen) startIOMMU() {
	if g.w.translationMode() != TranslationNone {
		g.tr = rand.New(rand.NewSource(g.w.Seed ^ translationSeed))
	}
	if g.w.IOMMU {
		g.io = &genIOMMU{page: g.w.iommuPage(), spans: map[ioSpace][]span{}, pool: map[uint8][]uint64{},
			r: rand.New(rand.NewSource(g.w.Seed ^ unmapSeed)), perMille: g.w.IOMMUUnmapPerMille, unmapped: map[uint64]bool{}}
	}
}

// dmaAddr is a DMA address a key is made with: folded into the IOMMU's
// window when there is one, so that its tables fit.
func (g *gen) dmaAddr(a uint64) uint64 {
	if g.io == nil {
		return a
	}
	return a & (iommuWindow - 1)
}

// umrPage is the page address of a UMR's new MTT entry of a key of
// 2^log-byte pages, from the draw x: x's page without an IOMMU, else a
// page that an MTT key of that page size was made with, which the IOMMU
// maps.
func (g *gen) umrPage(x uint64, log uint8) uint64 {
	if g.io == nil {
		return x &^ (uint64(1)<<log - 1)
	}
	pool := g.io.pool[log] // holds at least the key's own pages
	return pool[x%uint64(len(pool))]
}

// translationMode gives m the translation mode the workload asks for, and
// a PASID for CAPI: only where the access mode allows it (ATS on PA and
// MTT keys, CAPI on PA keys).
func (g *gen) translationMode(m *prm.MKC) {
	if g.tr == nil || (m.AccessMode != prm.ModePA && m.AccessMode != prm.ModeMTT) {
		return
	}
	pa := m.AccessMode == prm.ModePA
	switch g.w.translationMode() {
	case TranslationATS:
		m.MATranslationMode = maATS
	case TranslationCAPI:
		if pa {
			m.MATranslationMode = maCAPI
		}
	case TranslationMixed:
		choices := []uint8{maNone, maATS}
		if pa {
			choices = append(choices, maCAPI)
		}
		m.MATranslationMode = choices[g.tr.Intn(len(choices))]
	}
	if m.MATranslationMode == maCAPI {
		m.PASID = uint32(1 + g.tr.Intn(capiPASIDs))
	}
}

// mapDMA records the DMA ranges of a key made with m (and mtt, its MTT
// entries) for the IOMMU's mappings.
func (g *gen) mapDMA(m *prm.MKC, mtt []prm.MTTEntry) {
	io := g.io
	if io == nil {
		return
	}
	switch m.AccessMode {
	case prm.ModePA:
		sp := io.rid()
		if m.MATranslationMode == maCAPI {
			sp = ioSpace{pasid: true, id: m.PASID}
		}
		io.add(sp, m.StartAddr, m.Len)
	case prm.ModeMTT:
		p := uint64(1) << m.LogEntitySize
		for _, e := range mtt {
			io.add(io.rid(), e.PTag, p)
			io.pool[m.LogEntitySize] = append(io.pool[m.LogEntitySize], e.PTag)
		}
	}
}

// add records [a, a+n) of table sp, rounded out to the leaves.
func (io *genIOMMU) add(sp ioSpace, a, n uint64) {
	if n == 0 {
		return
	}
	s := append(io.spans[sp], span{a &^ (io.page - 1), (a + n + io.page - 1) &^ (io.page - 1)})
	if len(s) >= 1<<16 && len(s)&(len(s)-1) == 0 {
		s = merge(s) // a table's spans stay about as many as its distinct leaves
	}
	io.spans[sp] = s
}

// merge sorts s and joins the spans that meet or touch.
func merge(s []span) []span {
	slices.SortFunc(s, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}

// finishIOMMU makes the iommu section from the keys' DMA ranges: the
// requester ID's table first, then the PASIDs' in order.
func (g *gen) finishIOMMU() {
	io := g.io
	if io == nil {
		return
	}
	spaces := make([]ioSpace, 0, len(io.spans))
	for sp := range io.spans {
		spaces = append(spaces, sp)
	}
	sort.Slice(spaces, func(i, j int) bool {
		if spaces[i].pasid != spaces[j].pasid {
			return !spaces[i].pasid
		}
		return spaces[i].id < spaces[j].id
	})
	io.sec = &scenario.IOMMU{RequesterID: IOMMURequesterID}
	io.cum = []uint64{0}
	off := iommuPA(io.page)
	for _, sp := range spaces {
		for _, s := range merge(io.spans[sp]) {
			m := scenario.IOMMUMapping{IOVA: s.lo, PA: s.lo + off, Size: s.hi - s.lo, R: true, W: true}
			m.Space.PASID, m.Space.ID = sp.pasid, sp.id
			io.sec.Mappings = append(io.sec.Mappings, m)
			io.cum = append(io.cum, io.cum[len(io.cum)-1]+(s.hi-s.lo)/io.page)
		}
	}
	io.spans = nil
	g.sc.IOMMU = io.sec
}

// unmap appends, with the chance iommu_unmap_per_mille asks, an
// iommu_unmap of a leaf that is mapped and was never unmapped, and
// reports whether it did (none is left to unmap: it does not).
func (g *gen) unmap() bool {
	io := g.io
	if io == nil || io.perMille == 0 || io.r.Intn(1000) >= io.perMille {
		return false
	}
	all := io.cum[len(io.cum)-1]
	if uint64(len(io.unmapped)) >= all {
		return false
	}
	i := uint64(io.r.Int63n(int64(all)))
	for io.unmapped[i] {
		if i++; i == all {
			i = 0
		}
	}
	io.unmapped[i] = true
	j := sort.Search(len(io.cum)-1, func(j int) bool { return io.cum[j+1] > i })
	m := io.sec.Mappings[j]
	u := &scenario.IOMMUUnmap{Space: m.Space, IOVA: m.IOVA + (i-io.cum[j])*io.page, Size: io.page}
	g.sc.Ops = append(g.sc.Ops, scenario.Op{Kind: scenario.OpIOMMUUnmap, Unmap: u})
	return true
}
