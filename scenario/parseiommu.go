package scenario

import (
	"fmt"

	"mkeysim/pagetable"
)

// The iommu section and the iommu_unmap operation (issue 36).

// The region of host memory that holds the I/O page tables of a
// scenario's IOMMU: past the reach of every ICM list (an mtt_handle and
// its list end at or below 2^48) and of every IOVA a table maps (below
// 2^48), below 2^52, the reach of a table entry's address. The golden
// model builds the tables there; a mapping that needs more tables than
// the region holds is a scenario error.
const (
	IOMMUTableBase = 1 << 48
	IOMMUTableSize = 64 << 20 // 16,384 tables of 4 KiB
)

// iommuMappingFields are the fields of a mapping.
var iommuMappingFields = []string{"rid", "pasid", "iova", "pa", "size", "perm"}

// space reads o's rid or pasid (at most one): the table a mapping or an
// unmap names; neither names the HCA's own requester ID, hca.
func (p *parser) space(at path, o *obj, hca uint16) pagetable.Space {
	rv, hasRID := o.get("rid")
	pv, hasPASID := o.get("pasid")
	switch {
	case hasRID && hasPASID:
		p.fail(at.dot("pasid"), "give rid or pasid, not both")
	case hasPASID:
		return pagetable.Space{PASID: true, ID: uint32(p.number(at.dot("pasid"), pv, 20))}
	case hasRID:
		return pagetable.Space{ID: uint32(p.number(at.dot("rid"), rv, 16))}
	}
	return pagetable.Space{ID: uint32(hca)}
}

// iommu parses the iommu section and checks its mappings by making them
// in tables of its own, as the golden model will: a mapping that the
// tables refuse (overlapping one before it in its table, not 4 KiB-aligned,
// past 2^48, or without room) is an error at its path with the tables'
// reason.
func (p *parser) iommu(at path, v value) *IOMMU {
	o := p.object(at, v, "requester_id", "mappings")
	if !o.ok {
		return nil
	}
	io := &IOMMU{}
	if v, ok := o.get("requester_id"); ok {
		io.RequesterID = uint16(p.number(at.dot("requester_id"), v, 16))
	}
	mv, ok := o.get("mappings")
	if !ok || p.err != nil {
		return io
	}
	p.array(at.dot("mappings"), mv)
	io.Mappings = makeFor[IOMMUMapping](mv, len(`{"iova":0,"pa":0,"size":0,"perm":"r"}`))
	tables := pagetable.New(&scratchMemory{}, IOMMUTableBase, IOMMUTableSize)
	for i, e := range mv.elems() {
		ep := at.dot("mappings").at(i)
		eo := p.object(ep, e, iommuMappingFields...)
		var m IOMMUMapping
		m.Space = p.space(ep, &eo, io.RequesterID)
		if v, ok := p.required(ep, &eo, "iova"); ok {
			m.IOVA = p.number(ep.dot("iova"), v, 64)
		}
		if v, ok := p.required(ep, &eo, "pa"); ok {
			m.PA = p.number(ep.dot("pa"), v, 64)
		}
		if v, ok := p.required(ep, &eo, "size"); ok {
			m.Size = p.number(ep.dot("size"), v, 64)
		}
		if v, ok := p.required(ep, &eo, "perm"); ok {
			switch n := p.name(ep.dot("perm"), v); string(n) {
			case "r":
				m.R = true
			case "w":
				m.W = true
			case "rw":
				m.R, m.W = true, true
			default:
				if p.err == nil {
					p.fail(ep.dot("perm"), "unknown perm %s (want r, w or rw)", quote(n))
				}
			}
		}
		if p.err != nil {
			return io
		}
		if err := MapChecked(tables, m); err != nil {
			p.fail(ep, "%v", err)
			return io
		}
		io.Mappings = append(io.Mappings, m)
	}
	return io
}

// MapChecked makes mapping m in t (pagetable.Tables.Map), first refusing
// one whose leaves alone need more tables than t's region holds, which
// Map would find only after counting them one by one (a misaligned
// mapping of 2^48 bytes has 2^36 leaves of 4 KiB).
func MapChecked(t *pagetable.Tables, m IOMMUMapping) error {
	if m.Size%pagetable.PageBytes == 0 && m.IOVA%pagetable.PageBytes == 0 && m.PA%pagetable.PageBytes == 0 {
		if need := leafTables(m.IOVA, m.PA, m.Size); need > IOMMUTableSize/pagetable.PageBytes {
			return fmt.Errorf("%v: [%#x, +%#x) needs at least %d I/O page tables, more than the %d the tables' region holds",
				m.Space, m.IOVA, m.Size, need, uint64(IOMMUTableSize/pagetable.PageBytes))
		}
	}
	return t.Map(m.Space, m.IOVA, m.PA, m.Size, m.R, m.W)
}

// leafTables is a lower bound of the tables that hold the leaves of a
// mapping of size bytes from iova to pa (all 4 KiB-aligned), each leaf as
// large as its alignment allows (pagetable.Map): a table holds 512
// leaves of one level. It counts the leaves a run at a time, a few steps
// a mapping.
func leafTables(iova, pa, size uint64) uint64 {
	var leaves [pagetable.Levels + 1]uint64
	for done := uint64(0); done < size; {
		a, b, rest := iova+done, pa+done, size-done
		level := 1
		for l := 3; l > 1; l-- {
			n := uint64(1) << pagetable.Shift(l)
			if a%n == 0 && b%n == 0 && rest >= n {
				level = l
				break
			}
		}
		step := uint64(1) << pagetable.Shift(level)
		k := rest / step
		if level < 3 {
			// The run of leaves of this level ends where a larger leaf
			// can start: at the next boundary of the level above, when
			// iova and pa lie alike in it.
			up := step << 9
			if a%up == b%up && a%up != 0 {
				k = min(k, (up-a%up)/step)
			}
		}
		leaves[level] += k
		done += k * step
	}
	var n uint64
	for _, c := range leaves {
		n += (c + 511) / 512
	}
	return n
}

// unmap parses an iommu_unmap operation.
func (p *parser) unmap(at path, o *obj, io *IOMMU) *IOMMUUnmap {
	u := &IOMMUUnmap{}
	var hca uint16
	if io != nil {
		hca = io.RequesterID
	}
	u.Space = p.space(at, o, hca)
	if v, ok := p.required(at, o, "iova"); ok {
		u.IOVA = p.number(at.dot("iova"), v, 64)
	}
	if v, ok := p.required(at, o, "size"); ok {
		u.Size = p.number(at.dot("size"), v, 64)
	}
	return u
}

// scratchMemory is sparse memory for the tables that check a scenario's
// mappings: bytes never written read as zero.
type scratchMemory struct {
	pages map[uint64]*[pagetable.PageBytes]byte
}

func (m *scratchMemory) Read(addr uint64, b []byte) {
	for i := range b {
		a := addr + uint64(i)
		if pg := m.pages[a/pagetable.PageBytes]; pg != nil {
			b[i] = pg[a%pagetable.PageBytes]
		} else {
			b[i] = 0
		}
	}
}

func (m *scratchMemory) Write(addr uint64, b []byte) {
	if m.pages == nil {
		m.pages = map[uint64]*[pagetable.PageBytes]byte{}
	}
	for i, c := range b {
		a := addr + uint64(i)
		pg := m.pages[a/pagetable.PageBytes]
		if pg == nil {
			pg = new([pagetable.PageBytes]byte)
			m.pages[a/pagetable.PageBytes] = pg
		}
		pg[a%pagetable.PageBytes] = c
	}
}
