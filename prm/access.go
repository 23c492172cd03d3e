package prm

// AccessType is the kind of memory reference a request makes
// (translation.md 1).
type AccessType uint8

// The access types.
const (
	LocalRead AccessType = iota
	LocalWrite
	RemoteRead
	RemoteWrite
	RemoteAtomic
	numAccessType
)

var accessNames = [numAccessType]string{"LOCAL_READ", "LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE", "REMOTE_ATOMIC"}

// String is the scenario name of the access type.
func (t AccessType) String() string {
	if t < numAccessType {
		return accessNames[t]
	}
	return "ACCESS_TYPE_?"
}

// AccessTypes lists every access type, by value.
func AccessTypes() []AccessType {
	return []AccessType{LocalRead, LocalWrite, RemoteRead, RemoteWrite, RemoteAtomic}
}

// ParseAccessType maps a scenario name to its access type.
func ParseAccessType(name string) (AccessType, bool) {
	for i, n := range accessNames {
		if n == name {
			return AccessType(i), true
		}
	}
	return 0, false
}

// Permitted reports whether m grants the right the access type needs.
func (t AccessType) Permitted(m *MKC) bool {
	switch t {
	case LocalRead:
		return m.LR
	case LocalWrite:
		return m.LW
	case RemoteRead:
		return m.RR
	case RemoteWrite:
		return m.RW
	case RemoteAtomic:
		return m.A
	}
	return false
}

// NeedsRead reports whether the access needs rd_en in the MTT page.
func (t AccessType) NeedsRead() bool {
	return t == LocalRead || t == RemoteRead || t == RemoteAtomic
}

// NeedsWrite reports whether the access needs wr_en in the MTT page.
func (t AccessType) NeedsWrite() bool {
	return t == LocalWrite || t == RemoteWrite || t == RemoteAtomic
}

// PageAllows reports whether an MTT entry has the page bits the access needs.
func (t AccessType) PageAllows(e MTTEntry) bool {
	return (!t.NeedsRead() || e.RdEn) && (!t.NeedsWrite() || e.WrEn)
}

// PageBits is the page bits (MTTRdEn, MTTWrEn) the access needs in an
// MTT entry: PageAllows(e) is whether an entry read as w by MTTWord has
// w&PageBits() == PageBits().
func (t AccessType) PageBits() uint64 {
	var b uint64
	if t.NeedsRead() {
		b |= MTTRdEn
	}
	if t.NeedsWrite() {
		b |= MTTWrEn
	}
	return b
}

// Space is the address space a translated segment lies in.
type Space uint8

// The segment spaces.
const (
	SpaceDMA Space = iota
	SpaceSWICM
	SpaceMEMIC
)

// String is the result-line name of the space.
func (s Space) String() string {
	switch s {
	case SpaceDMA:
		return "dma"
	case SpaceSWICM:
		return "sw_icm"
	case SpaceMEMIC:
		return "memic"
	}
	return "space?"
}

// Segment is one piece of a translated request. When the host's IOMMU
// translated it (a scenario with an iommu section, issue 36), HasPA is set
// and PA is the physical address of its first byte: [PA, PA+Len) is
// contiguous.
type Segment struct {
	Space Space
	HasPA bool
	Addr  uint64
	Len   uint64
	PA    uint64
}
