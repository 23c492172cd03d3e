package ref

import (
	"slices"

	"mkeysim/internal/hugemem"
)

// pageDir finds the 4 KB pages of the sparse ICM by page number, the way
// the HCA's own ICM page tables do: a 64-bit address names a 4 GB region
// (its top 32 bits, looked up in a keyTable), the region a 2 MB leaf (a
// dense array), the leaf a page (a dense array). The few regions and
// leaves of a model stay in cache, so reading an MTT entry costs the
// entry's own line; a page is allocated only when first written, so a
// model with pages scattered over the 2^64 bytes stays small.
//
// As in hardware page tables, nothing is ever missing on the way down:
// a region with no page yet in a leaf points that leaf at noLeaf, whose
// pages are all nil, and a region never written is noRegion, whose leaves
// are all noLeaf. So a lookup is three loads and no test. (It is not
// inlined: its cost, 111, is over the compiler's budget of 80, and
// inlining it by hand into the MTT walk measured no gain.)
type pageDir struct {
	// first is the first region made, numbered firstNum (nil before):
	// nearly every model's lists lie in one region (the allocator's lists
	// start at 4 GB), and it is found without hashing.
	first    *region
	firstNum uint32
	regions  keyTable[*region] // every region, the first too, by number
	order    []uint32          // the region numbers present, increasing (for next)
	pages    int               // pages present
	slab     []page            // pages not yet handed out (newPage)
}

// slabPages is how many pages newPage takes from the allocator at once
// once a directory holds slabPages of them: 8 MB, on huge pages
// (hugemem), so that a large ICM read at random does not miss the TLB on
// nearly every entry. A smaller one allocates its pages one by one.
const slabPages = 2048

// newPage returns a page of zeros for the directory.
func (d *pageDir) newPage() *page {
	if d.pages < slabPages {
		return new(page)
	}
	if len(d.slab) == 0 {
		d.slab = hugemem.Make[page](slabPages)
	}
	p := &d.slab[0]
	d.slab = d.slab[1:]
	return p
}

const (
	leafShift    = 9                              // pages per leaf: 512, 2 MB
	regionShift  = 20                             // pages per region: 2^20, 4 GB
	leafPages    = 1 << leafShift                 // pages in a leaf
	regionLeaves = 1 << (regionShift - leafShift) // leaves in a region: 2048
)

// A page holds 4 KB of ICM; a leaf the pages of 2 MB, nil where none was
// written; a region the leaves of 4 GB, noLeaf where no page was written.
type (
	page   = [pageSize]byte
	leaf   [leafPages]*page
	region [regionLeaves]*leaf
)

// noLeaf and noRegion stand for the leaves and regions with no page; they
// are shared by every pageDir and never written.
var (
	noLeaf   leaf
	noRegion = newRegion()
)

// newRegion returns a region with no page.
func newRegion() *region {
	reg := new(region)
	for l := range reg {
		reg[l] = &noLeaf
	}
	return reg
}

// splitPage cuts page number pn into its region number, leaf in the region
// and page in the leaf.
func splitPage(pn uint64) (r uint32, l, p uint64) {
	return uint32(pn >> regionShift), pn >> leafShift & (regionLeaves - 1), pn & (leafPages - 1)
}

// page returns page pn, or nil if it was never written.
func (d *pageDir) page(pn uint64) *page {
	r, l, p := splitPage(pn)
	reg := d.first
	if r != d.firstNum || reg == nil {
		reg = d.region(r)
	}
	return reg[l][p]
}

// region returns region r, noRegion if none of its pages was written.
func (d *pageDir) region(r uint32) *region {
	if reg := d.regions.get(r); reg != nil {
		return *reg
	}
	return noRegion
}

// pageOrNew returns page pn, making a page of zeros if it is not present.
func (d *pageDir) pageOrNew(pn uint64) *page {
	r, l, p := splitPage(pn)
	reg := d.region(r)
	if reg == noRegion {
		reg = newRegion()
		if d.first == nil {
			d.first, d.firstNum = reg, r
		}
		d.regions.put(r, reg)
		i, _ := slices.BinarySearch(d.order, r)
		d.order = slices.Insert(d.order, i, r)
	}
	if reg[l] == &noLeaf {
		reg[l] = new(leaf)
	}
	if reg[l][p] == nil {
		reg[l][p] = d.newPage()
		d.pages++
	}
	return reg[l][p]
}

// next returns the lowest page number >= pn of a present page, and false
// if there is none. Leaves and regions exist only with a page in them, so
// the search reads at most a region's leaf array and two leaves.
func (d *pageDir) next(pn uint64) (uint64, bool) {
	r0, l0, p0 := splitPage(pn)
	i, _ := slices.BinarySearch(d.order, r0)
	for ; i < len(d.order); i++ {
		r := d.order[i]
		if r != r0 {
			l0, p0 = 0, 0
		}
		reg := d.region(r)
		for l := l0; l < regionLeaves; l, p0 = l+1, 0 {
			lf := reg[l]
			for p := p0; p < leafPages && lf != &noLeaf; p++ {
				if lf[p] != nil {
					return uint64(r)<<regionShift | l<<leafShift | p, true
				}
			}
		}
	}
	return 0, false
}

// len is the number of pages present.
func (d *pageDir) len() int { return d.pages }
