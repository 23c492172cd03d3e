package pcie

import "slices"

// PresentPages returns, in increasing order, the numbers (address /
// MemPageBytes) of the allocated pages p with lo <= p < hi: the pages ever
// written. It looks up each page of the range or walks the page map,
// whichever is smaller, so a query of a list of 64 GB in a memory of a
// few pages costs a few pages (scenario.SparseMemory).
func (m *Memory) PresentPages(lo, hi uint64) []uint64 {
	if hi <= lo {
		return nil
	}
	var out []uint64
	if hi-lo <= uint64(len(m.pages)) {
		for p := lo; p < hi; p++ {
			if m.pages[p] != nil {
				out = append(out, p)
			}
		}
		return out
	}
	for p := range m.pages {
		if p >= lo && p < hi {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
