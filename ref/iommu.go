package ref

import (
	"fmt"

	"mkeysim/pagetable"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// The host IOMMU (issue 36): when a scenario has an iommu section, every
// dma segment of a translated access is an IOVA, which the IOMMU's I/O
// page tables map to a physical address. The golden model keeps the
// tables in host memory of its own, the region scenario.IOMMUTableBase
// .. +IOMMUTableSize, which no ICM list reaches; it reads MKCs and
// translation lists untranslated (the driver maps the ICM; the clocked
// model will map it one to one).

// iommu is the IOMMU's state: its tables, the memory they live in, and
// the HCA's requester ID.
type iommu struct {
	mem    Memory
	tables *pagetable.Tables
	rid    uint16
}

// loadIOMMU makes the tables of a scenario's iommu section; a mapping the
// tables refuse is a scenario error naming it (scenario.Parse has
// refused it already for a parsed scenario).
func (m *Model) loadIOMMU(io *scenario.IOMMU) error {
	st := &iommu{rid: io.RequesterID}
	st.tables = pagetable.New(&st.mem, scenario.IOMMUTableBase, scenario.IOMMUTableSize)
	for i, mp := range io.Mappings {
		if err := scenario.MapChecked(st.tables, mp); err != nil {
			return &scenario.Error{Path: fmt.Sprintf("iommu.mappings[%d]", i), Msg: err.Error()}
		}
	}
	m.io = st
	return nil
}

// HasIOMMU reports whether the model translates DMA addresses through an
// IOMMU (its scenario had an iommu section).
func (m *Model) HasIOMMU() bool { return m.io != nil }

// IOMMUWalk translates iova in s through the IOMMU's tables
// (pagetable.Walk); a model without an IOMMU maps nothing.
func (m *Model) IOMMUWalk(s pagetable.Space, iova uint64) pagetable.Result {
	if m.io == nil {
		return pagetable.Result{}
	}
	return m.io.tables.Walk(s, iova)
}

// IOMMUSpace is the table that translates the DMA addresses of a key:
// the PASID table of its pasid (MKC 08h) for ma_translation_mode CAPI
// (3), else the table of the HCA's requester ID (None 0, ATS 1). A
// pasid wider than 20 bits names a table that maps nothing.
func (m *Model) IOMMUSpace(mkc *prm.MKC) pagetable.Space {
	if mkc.MATranslationMode == prm.TranslationCAPI {
		return pagetable.Space{PASID: true, ID: mkc.PASID}
	}
	var rid uint16
	if m.io != nil {
		rid = m.io.rid
	}
	return pagetable.Space{ID: uint32(rid)}
}

// IOMMUUnmap runs an iommu_unmap: the range is unmapped from its table,
// or, when a part of it is not mapped, a leaf lies only partly inside it
// or it is not 4 KiB-aligned, nothing changes and BAD_PARAM names the
// reason (pagetable.Tables.Unmap).
func (m *Model) IOMMUUnmap(u scenario.IOMMUUnmap) *Refusal {
	if m.io == nil {
		return badParam("no IOMMU: the scenario has no iommu section")
	}
	if err := m.io.tables.Unmap(u.Space, u.IOVA, u.Size); err != nil {
		return badParam("%v", err)
	}
	return nil
}

// dma emits the dma segment [addr, addr+n) that the key at level
// translated at byte offset off of the request. With an IOMMU, the
// segment is cut where its physical addresses stop being contiguous,
// each piece carrying its PA; the first byte the IOMMU does not map, or
// maps without the permission the access needs, is remembered as the
// request's IOMMU_FAULT, which it reports only if every check of
// translation.md 4 passes for the whole request (the walk goes on). It
// returns false when the walk is abandoned (Config.Stop).
func (w *walker) dma(level int, key prm.Key, mkc *prm.MKC, addr, n, off uint64) bool {
	io := w.m.io
	if io == nil {
		return w.emit(prm.SpaceDMA, addr, n, off)
	}
	if w.ioFault.set {
		return true // the request faults: only translation.md 4's checks matter now
	}
	sp := w.m.IOMMUSpace(mkc)
	for t := uint64(0); t < n; {
		a := addr + t
		r := io.tables.Walk(sp, a)
		if !w.permitted(r) {
			w.ioFault = ioFault{set: true, level: level, off: off + t, key: key, addr: a}
			return true
		}
		// The leaf holds a; the next leaves join the piece while their
		// physical addresses follow on.
		k := min(n-t, r.Size-a&(r.Size-1))
		for t+k < n {
			next := io.tables.Walk(sp, a+k)
			if !w.permitted(next) || next.PA != r.PA+k {
				break
			}
			k = min(n-t, k+next.Size)
		}
		if !w.emitSeg(prm.Segment{Space: prm.SpaceDMA, HasPA: true, Addr: a, Len: k, PA: r.PA}, off+t) {
			return false
		}
		t += k
	}
	return true
}

// ioFault is the first byte of a request the IOMMU refused: the level of
// the key whose segment it lies in, its offset in the request, that key,
// and its IOVA.
type ioFault struct {
	set       bool
	level     int
	off, addr uint64
	key       prm.Key
}

// outcome is the request's IOMMU_FAULT.
func (f *ioFault) outcome() Outcome {
	return Outcome{Status: prm.IOMMUFault, Level: f.level, Offset: f.off, FaultKey: f.key, FaultAddr: f.addr}
}

// permitted reports whether a walk's leaf grants the access: R to read,
// W to write, both for an atomic.
func (w *walker) permitted(r pagetable.Result) bool {
	return r.OK && (r.R || !w.typ.NeedsRead()) && (r.W || !w.typ.NeedsWrite())
}
