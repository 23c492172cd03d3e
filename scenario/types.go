package scenario

import (
	"mkeysim/pagetable"
	"mkeysim/prm"
)

// Scenario is a parsed scenario file: the QPs, the MKeys created before the
// first operation, the host IOMMU's mappings, and the operations in order.
type Scenario struct {
	QPs   []QP
	MKeys []MKey
	// IOMMU is the iommu section; nil when the scenario has none, and
	// then DMA addresses are physical, as before issue 36.
	IOMMU *IOMMU
	Ops   []Op
}

// IOMMU is a scenario's iommu section (issue 36): the host IOMMU's
// mappings before the first operation, and the requester ID of the HCA,
// whose table translates the DMA addresses of keys without a PASID.
type IOMMU struct {
	RequesterID uint16
	Mappings    []IOMMUMapping
}

// IOMMUMapping maps [IOVA, IOVA+Size) of a table to [PA, PA+Size) with
// the permissions R and W.
type IOMMUMapping struct {
	Space          pagetable.Space
	IOVA, PA, Size uint64
	R, W           bool
}

// IOMMUUnmap is an iommu_unmap operation: [IOVA, IOVA+Size) of a table
// is unmapped.
type IOMMUUnmap struct {
	Space      pagetable.Space
	IOVA, Size uint64
}

// QP is a queue pair on whose behalf accesses and commands are made.
type QP struct {
	QPN    uint32
	PD     uint32
	RegUMR bool // type REG_UMR: may change an MKey's PD by UMR
}

// MKey is an MKey to create: the fields of CREATE_MKEY.
type MKey struct {
	Index    uint32
	HasIndex bool // false: the lowest index not created
	MKC      prm.MKC
	MTT      []prm.MTTEntry
	KLM      []prm.KLMEntry
	PgAccess bool // store the MTT entries' rd_en/wr_en as given
	ODP      bool // an on-demand-paging registration
}

// OpKind names an operation.
type OpKind uint8

// The operations of scenario.md.
const (
	OpAccess OpKind = iota
	OpCreateMKey
	OpDestroyMKey
	OpQueryMKey
	OpUMR
	OpLocalInvalidate
	OpSendWithInvalidate
	OpPageFaultResume
	OpIOMMUUnmap
	OpQueryPages  // QUERY_PAGES (issue 37, seed 2.3)
	OpManagePages // MANAGE_PAGES
	numOpKind
)

var opNames = [numOpKind]string{"access", "create_mkey", "destroy_mkey", "query_mkey", "umr", "local_invalidate", "send_with_invalidate", "page_fault_resume", "iommu_unmap", "query_pages", "manage_pages"}

// String is the op's scenario name.
func (k OpKind) String() string {
	if k < numOpKind {
		return opNames[k]
	}
	return "op?"
}

// ParseOpKind maps a scenario op name to its kind.
func ParseOpKind(s string) (OpKind, bool) {
	for i, n := range opNames {
		if n == s {
			return OpKind(i), true
		}
	}
	return 0, false
}

// Access is a memory reference: key, address, length and type, on behalf of
// a QP.
type Access struct {
	QPN  uint32
	Key  prm.Key
	Addr uint64
	Len  uint32
	Type prm.AccessType
}

// UMR is a UMR WQE posted on the send queue of QPN.
type UMR struct {
	QPN       uint32
	Key       prm.Key
	CheckFree prm.CheckFree
	Mask      prm.MKeyMask
	Image     prm.MKC
	Offset    uint64 // translation_offset in 16-byte units
	MTT       []prm.MTTEntry
	KLM       []prm.KLMEntry
}

// Op is one operation; the fields that apply depend on Kind. The rare
// big operations (create_mkey, umr, iommu_unmap) hang off pointers, so
// that a scenario of millions of accesses costs 72 bytes an operation.
type Op struct {
	Access Access       // access
	Create *MKey        // create_mkey
	UMR    *UMR         // umr
	Unmap  *IOMMUUnmap  // iommu_unmap
	Pages  *Pages       `json:",omitempty"` // query_pages, manage_pages (omitempty: a generated scenario's digest is that of before them)
	Query  *QueryWindow // query_mkey: the entries asked for; nil asks for the default
	Index  uint32       // destroy_mkey, query_mkey
	QPN    uint32       // local_invalidate, send_with_invalidate
	Key    prm.Key      // local_invalidate, send_with_invalidate, page_fault_resume
	Kind   OpKind
	OK     bool // page_fault_resume
	// Fence is the WQE's fence mode (access of a local type, umr,
	// local_invalidate) when HasFence; without one, each model posts the
	// mode the Linux driver would (prm.KernelUMRFence, KernelNextFence).
	// (omitempty: a digest of a generated scenario, which has none, is
	// that of before them.)
	Fence    prm.FenceMode `json:",omitempty"`
	HasFence bool          `json:",omitempty"`
}

// IsWQE reports whether the operation is a work request of its QP's send
// queue: an access of a local type, a UMR or a local invalidate. Only
// these have a fence mode.
func (o *Op) IsWQE() bool {
	switch o.Kind {
	case OpAccess:
		return o.Access.Type == prm.LocalRead || o.Access.Type == prm.LocalWrite
	case OpUMR, OpLocalInvalidate:
		return true
	}
	return false
}

// IsRegistration reports whether the operation is a UMR or a local
// invalidate: a WQE that changes a key, which the fences order.
func (o *Op) IsRegistration() bool { return o.Kind == OpUMR || o.Kind == OpLocalInvalidate }

// FenceMode is the fence mode WQE o is posted with on a device whose
// umr_fence is c: its own, else the Linux driver's (prm.KernelUMRFence on
// a registration; prm.KernelNextFence on another WQE, the initiator small
// fence when the WQE before it on its queue, afterRegistration, was one).
func (o *Op) FenceMode(c prm.UMRFenceCap, afterRegistration bool) prm.FenceMode {
	switch {
	case o.HasFence:
		return o.Fence
	case o.IsRegistration():
		return prm.KernelUMRFence(c)
	}
	return prm.KernelNextFence(afterRegistration)
}

// PagesKind is the page count a query_pages asks for (seed 2.3).
type PagesKind uint8

// The kinds of query_pages.
const (
	PagesBoot PagesKind = iota
	PagesInit
	PagesRegular
)

var pagesKindNames = []string{"boot", "init", "regular"}

// String is the kind's scenario name.
func (k PagesKind) String() string {
	if int(k) < len(pagesKindNames) {
		return pagesKindNames[k]
	}
	return "kind?"
}

// Pages is a query_pages or manage_pages operation: the kind a query
// asks for; a MANAGE_PAGES give (Take false) or take of Count pages the
// host picks (List nil) or of the 4 KiB pages at the addresses in List.
type Pages struct {
	Kind  PagesKind
	Take  bool
	Count uint64
	List  []uint64
}

// N is the number of pages a manage_pages moves.
func (p *Pages) N() uint64 {
	if p.List != nil {
		return uint64(len(p.List))
	}
	return p.Count
}

// QP is the QP the operation names: an access's, a UMR's SQ, the QP of a
// local or remote invalidation; 0 for a command that names none.
func (o *Op) QP() uint32 {
	switch o.Kind {
	case OpAccess:
		return o.Access.QPN
	case OpUMR:
		return o.UMR.QPN
	}
	return o.QPN
}

// OctwordsFor is the default translations_octword_size for a list: the
// least multiple of 4 octwords that holds it.
func OctwordsFor(mtt, klm int) uint32 {
	bytes := uint64(mtt)*prm.MTTEntrySize + uint64(klm)*prm.KLMEntrySize
	return uint32((bytes + 63) / 64 * 4)
}
