// Package pagetable is the host IOMMU's I/O page tables, as both models
// read them (issue 36): the golden model translates a DMA address (an
// IOVA) to a physical address with Walk, and the clocked IOMMU's walker
// reads the same entries from host memory, level by level, at the
// addresses Walk names.
//
// A table maps a 48-bit IOVA space in four levels of 512 entries of 8
// bytes, each level's index 9 bits of the IOVA (level 4: bits 47:39,
// level 3: 38:30, level 2: 29:21, level 1: 20:12), as Intel VT-d's
// second-stage tables and x86-64's page tables do. An entry (little-endian
// in memory, as those are) is
//
//	bit 0       R: read permission (and, with W clear, present)
//	bit 1       W: write permission
//	bit 7       PS: a leaf above level 1 (a 2 MiB page at level 2, 1 GiB
//	            at level 3); at level 1 the entry is always a leaf
//	bits 51:12  the physical address of the next table or of the page
//
// An entry with neither R nor W maps nothing. Every other bit is reserved
// and written 0; Walk ignores them, as the hardware does. The tables of
// one IOMMU live in a region of host memory that Tables allocates page by
// page; there is one table per requester ID and one per PASID, built by
// Map from what a scenario or workload says is mapped, and changed by
// Unmap (a scenario's IOMMU_UNMAP).
package pagetable
