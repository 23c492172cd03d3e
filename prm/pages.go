package prm

import "slices"

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

// PageRefs counts the created objects that use each ICM page, kept as
// sorted disjoint ranges of pages with a count each (at least 1), so that
// its size follows the objects created, not the pages they use (a list's
// capacity may span 2^24 pages). A page is backed while its count is not
// zero: an MKC page while one of its 64 indexes is created, a list page
// while a list (its own or an overlapping one) covers it.
type PageRefs struct{ s []pageRun }

// pageRun is a run of pages that n objects use.
type pageRun struct {
	PageRange
	n uint32
}

// find is the index of the first run that ends after k.
func (c *PageRefs) find(k uint64) int {
	lo, hi := 0, len(c.s)
	for lo < hi {
		m := (lo + hi) / 2
		if c.s[m].Hi <= k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Has reports whether page k is backed (used by an object).
func (c *PageRefs) Has(k uint64) bool {
	i := c.find(k)
	return i < len(c.s) && c.s[i].Lo <= k
}

// Count is how many objects use page k.
func (c *PageRefs) Count(k uint64) uint32 {
	if i := c.find(k); i < len(c.s) && c.s[i].Lo <= k {
		return c.s[i].n
	}
	return 0
}

// Missing lists the parts of r no object uses, in increasing order.
func (c *PageRefs) Missing(r PageRange) []PageRange {
	var out []PageRange
	at := r.Lo
	for i := c.find(r.Lo); i < len(c.s) && c.s[i].Lo < r.Hi && at < r.Hi; i++ {
		if c.s[i].Lo > at {
			out = append(out, PageRange{at, c.s[i].Lo})
		}
		at = max(at, c.s[i].Hi)
	}
	if at < r.Hi {
		out = append(out, PageRange{at, r.Hi})
	}
	return out
}

// Only lists the parts of r that exactly one object uses (the pages a
// Release of r would free), in increasing order, touching ranges joined.
func (c *PageRefs) Only(r PageRange) []PageRange {
	var out []PageRange
	for i := c.find(r.Lo); i < len(c.s) && c.s[i].Lo < r.Hi; i++ {
		if c.s[i].n != 1 {
			continue
		}
		g := PageRange{max(c.s[i].Lo, r.Lo), min(c.s[i].Hi, r.Hi)}
		if n := len(out); n > 0 && out[n-1].Hi == g.Lo {
			out[n-1].Hi = g.Hi
		} else {
			out = append(out, g)
		}
	}
	return out
}

// split makes k the start of a run, when a run straddles it.
func (c *PageRefs) split(k uint64) {
	if i := c.find(k); i < len(c.s) && c.s[i].Lo < k {
		c.s = slices.Insert(c.s, i+1, pageRun{PageRange{k, c.s[i].Hi}, c.s[i].n})
		c.s[i].Hi = k
	}
}

// Add counts one more object on every page of r.
func (c *PageRefs) Add(r PageRange) {
	if r.Lo >= r.Hi {
		return
	}
	c.split(r.Lo)
	c.split(r.Hi)
	i := c.find(r.Lo)
	var out []pageRun
	at, j := r.Lo, i
	for ; j < len(c.s) && c.s[j].Lo < r.Hi; j++ {
		if c.s[j].Lo > at {
			out = append(out, pageRun{PageRange{at, c.s[j].Lo}, 1})
		}
		out = append(out, pageRun{c.s[j].PageRange, c.s[j].n + 1})
		at = c.s[j].Hi
	}
	if at < r.Hi {
		out = append(out, pageRun{PageRange{at, r.Hi}, 1})
	}
	c.s = slices.Replace(c.s, i, j, out...)
	c.merge(i-1, i+len(out)+1)
}

// Release counts one object less on every page of r and returns the
// pages no object uses any more (in increasing order, touching ranges
// joined). Pages of r no object used are left as they are.
func (c *PageRefs) Release(r PageRange) []PageRange {
	if r.Lo >= r.Hi {
		return nil
	}
	c.split(r.Lo)
	c.split(r.Hi)
	i := c.find(r.Lo)
	var out []pageRun
	var freed []PageRange
	j := i
	for ; j < len(c.s) && c.s[j].Lo < r.Hi; j++ {
		if c.s[j].n > 1 {
			out = append(out, pageRun{c.s[j].PageRange, c.s[j].n - 1})
		} else if n := len(freed); n > 0 && freed[n-1].Hi == c.s[j].Lo {
			freed[n-1].Hi = c.s[j].Hi
		} else {
			freed = append(freed, c.s[j].PageRange)
		}
	}
	c.s = slices.Replace(c.s, i, j, out...)
	c.merge(i-1, i+len(out)+1)
	return freed
}

// merge joins the touching runs of equal count among runs lo..hi.
func (c *PageRefs) merge(lo, hi int) {
	lo, hi = max(lo, 0), min(hi, len(c.s)-1)
	for k := hi; k > lo; k-- {
		if a, b := c.s[k-1], c.s[k]; a.Hi == b.Lo && a.n == b.n {
			c.s[k-1].Hi = b.Hi
			c.s = slices.Delete(c.s, k, k+1)
		}
	}
}

// Backed is the pages some object uses, as sorted disjoint ranges
// (touching ranges joined).
func (c *PageRefs) Backed() []PageRange {
	var out []PageRange
	for _, s := range c.s {
		if n := len(out); n > 0 && out[n-1].Hi == s.Lo {
			out[n-1].Hi = s.Hi
		} else {
			out = append(out, s.PageRange)
		}
	}
	return out
}

// Runs is how many runs of equal count it keeps (its size).
func (c *PageRefs) Runs() int { return len(c.s) }

// MKCPageKey names the ICM page of MKC index among the list pages (page
// numbers below 2^36): bit 63 set, the page's number in the MKC table.
func MKCPageKey(index uint32) uint64 { return 1<<63 | uint64(index/MKCsPerPage) }

// The two host pages below the translation lists' region (4 GiB): the
// page an ICM page not backed reads in the scattered order (zeros), and
// below it the pages event queue, where the HCA writes its Pages Request
// Events (64 entries of EQESize bytes).
const (
	ZeroPage = 0xFFFF_F000
	PagesEQ  = ZeroPage - PageBytes
	// PagesEQEntries is the pages event queue's entries (a power of two).
	PagesEQEntries = PageBytes / EQESize
)

// PagePoolLimit: a page a MANAGE_PAGES list gives must end by it (the
// pages event queue's page, then the zero page, then the translation
// lists' region) and lie outside the MKC table, so that no page the host
// picks for the ICM can be one of them.
const PagePoolLimit = PagesEQ

// BoundIn lists the ICM pages of r that bound (ICM page -> the page given
// by list that backs it) holds, in no particular order: by the range when
// it is the smaller, else by the map (a list's capacity may span 2^24
// pages; the pages given by list are few).
func BoundIn(bound map[uint64]uint64, r PageRange) []uint64 {
	var out []uint64
	if r.Len() <= uint64(len(bound)) {
		for k := r.Lo; k < r.Hi; k++ {
			if _, ok := bound[k]; ok {
				out = append(out, k)
			}
		}
		return out
	}
	for k := range bound {
		if k >= r.Lo && k < r.Hi {
			out = append(out, k)
		}
	}
	return out
}
