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

// ICMPagesOf lists the ICM pages a created object uses, in the order the
// firmware backs them: the MKC page of index (as MKCPageKey), then the
// list's pages in increasing address (page numbers, handle >> 12).
func ICMPagesOf(index uint32, handle uint64, octwords uint32) []uint64 {
	out := []uint64{MKCPageKey(index)}
	if octwords > 0 {
		end := handle + 16*uint64(octwords)
		for p := handle / PageBytes; p*PageBytes < end; p++ {
			out = append(out, p)
		}
	}
	return out
}

// MKCPageKey names the ICM page of MKC index among the list pages (page
// numbers below 2^36): bit 63 set, the page's number in the MKC table.
func MKCPageKey(index uint32) uint64 { return 1<<63 | uint64(index/MKCsPerPage) }

// PagePoolLimit: a page a MANAGE_PAGES list gives must end by it (4 GiB
// less a page: the translation lists' region starts at 4 GiB, and the
// page below it is the one an ICM page not backed reads in the scattered
// order) and lie outside the MKC table, so that no page the host picks
// for the ICM can be one of them.
const PagePoolLimit = 0xFFFF_F000
