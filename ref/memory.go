package ref

// pageShift is the granule of the sparse memory: 4 KB pages allocated on
// first write.
const pageShift = 12
const pageSize = 1 << pageShift

// Memory is sparse host memory (the ICM): bytes never written read as zero.
// Its pages are found through a directory shaped like page tables (see
// pageDir).
type Memory struct {
	dir pageDir
}

// NewMemory returns an empty memory.
func NewMemory() *Memory { return &Memory{} }

// Read fills b from address a (wrapping at 2^64).
func (m *Memory) Read(a uint64, b []byte) {
	for len(b) > 0 {
		off := a & (pageSize - 1)
		n := min(len(b), int(pageSize-off))
		if p := m.dir.page(a >> pageShift); p != nil {
			copy(b[:n], p[off:])
		} else {
			clear(b[:n])
		}
		b = b[n:]
		a += uint64(n)
	}
}

// zeroPage is what a page never written reads as.
var zeroPage page

// peek returns the len(buf) bytes at a without copying them when they lie
// in one page: then the result is the page's own bytes (or zeros), which
// the caller must only read. Bytes that cross a page are read into buf.
// The walkers read every MTT and KLM entry this way.
func (m *Memory) peek(a uint64, buf []byte) []byte {
	off := a & (pageSize - 1)
	end := off + uint64(len(buf))
	if end > pageSize {
		m.Read(a, buf)
		return buf
	}
	if p := m.dir.page(a >> pageShift); p != nil {
		return p[off:end]
	}
	return zeroPage[off:end]
}

// Write stores b at address a (wrapping at 2^64). A page that would hold
// only zeros is not made.
func (m *Memory) Write(a uint64, b []byte) {
	for len(b) > 0 {
		off := a & (pageSize - 1)
		n := min(len(b), int(pageSize-off))
		pn := a >> pageShift
		if p := m.dir.page(pn); p != nil {
			copy(p[off:], b[:n])
		} else if !allZero(b[:n]) {
			copy(m.dir.pageOrNew(pn)[off:], b[:n])
		}
		b = b[n:]
		a += uint64(n)
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// NextPresent returns the lowest address >= a that lies in a page ever
// written, and false if there is none.
func (m *Memory) NextPresent(a uint64) (uint64, bool) {
	if m.dir.page(a>>pageShift) != nil {
		return a, true
	}
	pn, ok := m.dir.next(a >> pageShift)
	return pn << pageShift, ok
}

// Pages is the number of 4 KB pages allocated.
func (m *Memory) Pages() int { return m.dir.len() }
