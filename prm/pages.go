package prm

// The firmware's pages (seed 2.3, issue 37): the host gives the HCA 4 KiB
// pages with MANAGE_PAGES; the HCA's ICM (MKCs, MTT and KLM lists) lives
// in them. The model's device asks BootPages at QUERY_PAGES boot and
// InitPages at init, pages of its own that hold no MKC or list, and the
// rest at run time (regular), one page for each 4 KiB page of ICM a
// CREATE_MKEY first uses: the page of MKCs 64j..64j+63 (MKC i is
// MKCSize bytes), and the 4 KiB pages of [mtt_handle, mtt_handle +
// 16 * translations_octword_size).
const (
	PageBytes = 4096
	BootPages = 1
	InitPages = 1
	// MKCsPerPage is how many contexts a page holds.
	MKCsPerPage = PageBytes / MKCSize
)

// PageRange is the ICM pages [Lo, Hi) (page numbers, or MKCPageKey keys).
type PageRange struct{ Lo, Hi uint64 }

// Len is the number of pages of r.
func (r PageRange) Len() uint64 { return r.Hi - r.Lo }

// ICMPagesOf is the ICM pages a created object uses, in the order the
// firmware backs them: the MKC page of index (as MKCPageKey), then the
// list's pages in increasing address (page numbers, handle >> 12). A
// range, never a list of pages: a list's capacity may span 2^24 pages.
func ICMPagesOf(index uint32, handle uint64, octwords uint32) []PageRange {
	k := MKCPageKey(index)
	out := []PageRange{{k, k + 1}}
	if octwords > 0 {
		end := handle + 16*uint64(octwords)
		out = append(out, PageRange{handle / PageBytes, (end + PageBytes - 1) / PageBytes})
	}
	return out
}

// PageSet is a set of ICM pages kept as sorted disjoint ranges, so that
// its size is the number of objects created, not of pages backed.
type PageSet struct{ r []PageRange }

// find is the index of the first range that ends after k.
func (s *PageSet) find(k uint64) int {
	lo, hi := 0, len(s.r)
	for lo < hi {
		m := (lo + hi) / 2
		if s.r[m].Hi <= k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Has reports whether page k is in the set.
func (s *PageSet) Has(k uint64) bool {
	i := s.find(k)
	return i < len(s.r) && s.r[i].Lo <= k
}

// Missing lists the parts of r not in the set, in increasing order.
func (s *PageSet) Missing(r PageRange) []PageRange {
	var out []PageRange
	at := r.Lo
	for i := s.find(r.Lo); i < len(s.r) && s.r[i].Lo < r.Hi && at < r.Hi; i++ {
		if s.r[i].Lo > at {
			out = append(out, PageRange{at, s.r[i].Lo})
		}
		at = max(at, s.r[i].Hi)
	}
	if at < r.Hi {
		out = append(out, PageRange{at, r.Hi})
	}
	return out
}

// Add puts the pages of r in the set, merging the ranges it touches.
func (s *PageSet) Add(r PageRange) {
	if r.Lo >= r.Hi {
		return
	}
	i := s.find(r.Lo)
	if i > 0 && s.r[i-1].Hi == r.Lo {
		i--
	}
	j := i
	for j < len(s.r) && s.r[j].Lo <= r.Hi {
		r.Lo, r.Hi = min(r.Lo, s.r[j].Lo), max(r.Hi, s.r[j].Hi)
		j++
	}
	s.r = append(s.r[:i], append([]PageRange{r}, s.r[j:]...)...)
}

// Ranges is the set's ranges, sorted and disjoint (not to be changed).
func (s *PageSet) Ranges() []PageRange { return s.r }

// MKCPageKey names the ICM page of MKC index among the list pages (page
// numbers below 2^36): bit 63 set, the page's number in the MKC table.
func MKCPageKey(index uint32) uint64 { return 1<<63 | uint64(index/MKCsPerPage) }

// PagePoolLimit: a page a MANAGE_PAGES list gives must end by it (4 GiB
// less a page: the translation lists' region starts at 4 GiB, and the
// page below it is the one an ICM page not backed reads in the scattered
// order) and lie outside the MKC table, so that no page the host picks
// for the ICM can be one of them.
const PagePoolLimit = 0xFFFF_F000
