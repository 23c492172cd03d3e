// Package iommu is the host's IOMMU (issue 36): host side, beside the
// root complex, not an HCA unit. It translates the IOVAs of the HCA's
// untranslated memory requests (and answers ATS Translation Requests)
// from the I/O page tables of package pagetable, which live in host
// memory, one table per requester ID and per PASID.
//
//	In (Request) ──> [ IOTLB ] ──hit──────────────────> Out (Response)
//	                     │ miss
//	                     └─> [ walkers + page-walk cache ] ──> host memory
//	Inval (the driver's, after an unmap) ──> InvalOK
//
// A request hits an IOTLB entry of its space (a leaf of 4 KiB, 2 MiB or
// 1 GiB: the entries share one rangecache array, tagged by requester ID
// or PASID) and is answered at once; a miss starts a walk of its 4 KiB
// page (misses of a page being walked wait for it) if one of Walkers is
// free. A walk reads, at walk_latency_cycles a level, the levels whose
// entry the page-walk cache does not hold (it keeps the upper levels'
// pointers to the next table, least recently used out); its leaf fills
// the IOTLB and answers every request waiting. An IOVA not mapped, or
// without the permission the request needs (R for a read, W for a
// write), is a fault: no translation, nothing kept. The walk takes the
// tables as they are when it starts; a driver's invalidation drops the
// range's IOTLB entries and the space's page-walk cache entries, and a
// walk of the range in flight walks again when it ends, so no answer
// after the invalidation's completion comes from the old mapping.
//
// One cycle: an invalidation is taken and completed, the walks due end,
// one request is taken, one answer leaves.
//
// Registers: the IOTLB, the page-walk cache, the walks (page, end cycle,
// result, stale, requests waiting), the answers waiting; written in
// place during Eval: the unit has no Commit.
//
// In the bench (tb/platform.go) the IOMMU sits in the root complex behind
// its Gate (gate.go), which asks it for every untranslated memory TLP of
// the HCA and lets the TLPs go in arrival order: a refused MRd is
// answered UR by the root complex, a refused MWr is dropped. Its
// parameters are Config's, iommu.* in the configuration.
package iommu
