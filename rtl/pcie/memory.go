package pcie

// MemPageBytes is the allocation unit of Memory.
const MemPageBytes = 4096

type memPage [MemPageBytes]byte

// Memory is sparse host memory (the ICM and data buffers the device reaches
// over PCIe): a 64-bit byte-addressed space whose 4 KB pages are allocated
// on first write; bytes never written read as 0. A million 64-byte MKCs
// packed in ICM take 64 MB in 16384 pages. Addresses wrap at 2^64.
//
// Memory is not safe for concurrent use; in the model only the RootComplex
// and the testbench (between cycles) touch it.
type Memory struct {
	pages map[uint64]*memPage
	// one-entry lookup cache: consecutive accesses hit the same page
	lastN uint64
	lastP *memPage
}

// NewMemory returns an empty memory.
func NewMemory() *Memory { return &Memory{pages: make(map[uint64]*memPage)} }

func (m *Memory) page(n uint64, alloc bool) *memPage {
	if m.lastP != nil && m.lastN == n {
		return m.lastP
	}
	p := m.pages[n]
	if p == nil {
		if !alloc {
			return nil
		}
		p = new(memPage)
		m.pages[n] = p
	}
	m.lastN, m.lastP = n, p
	return p
}

// Read fills p with the bytes at addr.
func (m *Memory) Read(addr uint64, p []byte) {
	for len(p) > 0 {
		off := int(addr % MemPageBytes)
		n := min(len(p), MemPageBytes-off)
		if pg := m.page(addr/MemPageBytes, false); pg != nil {
			copy(p[:n], pg[off:])
		} else {
			clear(p[:n])
		}
		p = p[n:]
		addr += uint64(n)
	}
}

// Write stores p at addr.
func (m *Memory) Write(addr uint64, p []byte) {
	for len(p) > 0 {
		off := int(addr % MemPageBytes)
		n := min(len(p), MemPageBytes-off)
		copy(m.page(addr/MemPageBytes, true)[off:], p[:n])
		p = p[n:]
		addr += uint64(n)
	}
}

// Pages is the number of 4 KB pages allocated.
func (m *Memory) Pages() int { return len(m.pages) }
