package stimulus

import (
	"math/rand"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// The firmware's pages in the mixed workload (issue 37 part 1): with
// PagesPerMille, that many operations per thousand (drawn before each of
// the others) are QUERY_PAGES, MANAGE_PAGES gives and takes (by count, or
// a list of pages from a small pool, so that some are given twice, not
// given, or hold ICM), a page given by list that the rules refuse, a
// CREATE_MKEY of a key of its own (at an index among 16 MKC pages, so
// that keys share MKC pages and an index may be taken; a third with an
// MTT list of up to 8 pages, half of those at an mtt_handle of a small
// pool, so that lists overlap, and a third of the lists with no entries,
// reading what the ICM holds), its DESTROY_MKEY (which frees the pages no
// other key uses: the HCA gives them back) or a LOCAL_READ through it.
// Drawn from a source of their own, so that with PagesPerMille 0 the
// workload is what it was.

// pagesSeed seeds the pages' draws (with the workload's seed).
const pagesSeed = 0x37_01

// The pages' pool: pages given and taken by list lie at pagePool and the
// 63 pages above; the keys created at run time at indexes of the 16 MKC
// pages from pagesIndex; the pooled lists at handles from handlePool, 1
// KiB apart over 16 pages.
const (
	pagePool     = 0x4000_0000
	pagePoolSize = 64
	pagesIndex   = 1 << 23
	pagesKeys    = 16 * prm.MKCsPerPage
	handlePool   = 0x10_0000_0000
)

type genPages struct {
	r       *rand.Rand
	created []pagesKey // the keys created and not destroyed
	live    map[uint32]bool
}

// pagesKey is a key the page operations created: its index and length.
type pagesKey struct {
	index uint32
	len   uint64
}

// startPages sets up the pages' draws, when w asks for them.
func (g *gen) startPages() {
	if g.w.PagesPerMille > 0 {
		g.pg = &genPages{r: rand.New(rand.NewSource(g.w.Seed ^ pagesSeed)), live: map[uint32]bool{}}
	}
}

// pages appends a page operation, PagesPerMille times in a thousand, and
// reports whether it did.
func (g *gen) pages() bool {
	p := g.pg
	if p == nil || p.r.Intn(1000) >= g.w.PagesPerMille {
		return false
	}
	r := p.r
	pool := func(n int) []uint64 {
		l := make([]uint64, n)
		for i := range l {
			l[i] = pagePool + uint64(r.Intn(pagePoolSize))*prm.PageBytes
		}
		return l
	}
	op := scenario.Op{Kind: scenario.OpManagePages}
	switch x := r.Intn(100); {
	case x < 15:
		op = scenario.Op{Kind: scenario.OpQueryPages, Pages: &scenario.Pages{Kind: scenario.PagesKind(r.Intn(3))}}
	case x < 23:
		op.Pages = &scenario.Pages{Count: uint64(1 + r.Intn(2))}
	case x < 35:
		op.Pages = &scenario.Pages{List: pool(1 + r.Intn(2))}
	case x < 37:
		// Refused: a page in the MKC table, or one past the pool's limit.
		a := uint64(r.Intn(1<<18)) * prm.PageBytes
		if r.Intn(2) == 0 {
			a = prm.PagePoolLimit + uint64(r.Intn(16))*prm.PageBytes
		}
		op.Pages = &scenario.Pages{List: []uint64{a}}
	case x < 55:
		op.Pages = &scenario.Pages{Take: true, Count: uint64(1 + r.Intn(4))}
	case x < 65:
		op.Pages = &scenario.Pages{Take: true, List: pool(1 + r.Intn(2))}
	case x < 85:
		idx := pagesIndex + uint32(r.Intn(pagesKeys))
		k := &scenario.MKey{Index: idx, HasIndex: true, MKC: prm.MKC{QPN: prm.QPNNone, PD: 1, LR: true, AccessMode: prm.ModePA, Len: prm.PageBytes}}
		if r.Intn(3) == 0 {
			k.MKC.AccessMode, k.MKC.LogEntitySize, k.MKC.Len = prm.ModeMTT, 12, 2*prm.PageBytes
			k.MKC.TranslationsOctwordSize = 4 * uint32(1+r.Intn(512)) // a list of up to 8 pages
			if r.Intn(2) == 0 {
				k.MKC.MTTHandle = handlePool + uint64(r.Intn(64))*1024
			}
			if r.Intn(3) > 0 {
				k.MTT = []prm.MTTEntry{{PTag: 0x1000, RdEn: true}, {PTag: 0x2000 + uint64(r.Intn(16))<<12, RdEn: true}}
			}
		}
		if !p.live[idx] { // else refused: the index is taken
			p.live[idx] = true
			p.created = append(p.created, pagesKey{idx, k.MKC.Len})
		}
		op = scenario.Op{Kind: scenario.OpCreateMKey, Create: k}
	case x < 95 && len(p.created) > 0:
		i := r.Intn(len(p.created))
		op = scenario.Op{Kind: scenario.OpDestroyMKey, Index: p.created[i].index}
		delete(p.live, p.created[i].index)
		p.created = append(p.created[:i], p.created[i+1:]...)
	case len(p.created) > 0:
		k := p.created[r.Intn(len(p.created))]
		op = scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(k.index, 0), Addr: uint64(r.Intn(int(k.len - 16))), Len: 16, Type: prm.LocalRead}}
	default:
		op = scenario.Op{Kind: scenario.OpQueryPages, Pages: &scenario.Pages{Kind: scenario.PagesRegular}}
	}
	g.sc.Ops = append(g.sc.Ops, op)
	return true
}
