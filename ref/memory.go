package ref

import "sort"

// pageShift is the granule of the sparse memory: 4 KB pages allocated on
// first write.
const pageShift = 12
const pageSize = 1 << pageShift

// Memory is sparse host memory (the ICM): bytes never written read as zero.
type Memory struct {
	pages map[uint64]*[pageSize]byte
	keys  []uint64 // page numbers present, sorted: to skip holes quickly
}

// NewMemory returns an empty memory.
func NewMemory() *Memory {
	return &Memory{pages: make(map[uint64]*[pageSize]byte)}
}

// Read fills b from address a (wrapping at 2^64).
func (m *Memory) Read(a uint64, b []byte) {
	for len(b) > 0 {
		off := a & (pageSize - 1)
		n := copy(b, zeroPage[:pageSize-off])
		if p := m.pages[a>>pageShift]; p != nil {
			copy(b[:n], p[off:])
		}
		b = b[n:]
		a += uint64(n)
	}
}

var zeroPage [pageSize]byte

// Write stores b at address a (wrapping at 2^64).
func (m *Memory) Write(a uint64, b []byte) {
	for len(b) > 0 {
		off := a & (pageSize - 1)
		pn := a >> pageShift
		p := m.pages[pn]
		if p == nil {
			if allZero(b[:min(len(b), int(pageSize-off))]) {
				n := min(len(b), int(pageSize-off))
				b = b[n:]
				a += uint64(n)
				continue
			}
			p = new([pageSize]byte)
			m.pages[pn] = p
			i := sort.Search(len(m.keys), func(i int) bool { return m.keys[i] >= pn })
			m.keys = append(m.keys, 0)
			copy(m.keys[i+1:], m.keys[i:])
			m.keys[i] = pn
		}
		n := copy(p[off:], b)
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
	pn := a >> pageShift
	if m.pages[pn] != nil {
		return a, true
	}
	i := sort.Search(len(m.keys), func(i int) bool { return m.keys[i] >= pn })
	if i == len(m.keys) {
		return 0, false
	}
	return m.keys[i] << pageShift, true
}

// Pages is the number of 4 KB pages allocated.
func (m *Memory) Pages() int { return len(m.pages) }
