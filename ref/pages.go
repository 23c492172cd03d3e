package ref

import (
	"fmt"

	"mkeysim/cover"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// PagesConfig is the host's side of the firmware's pages (issue 37) as far
// as results depend on it: whether the host caps the pages it gives, and
// where the MKC table lies (a page a MANAGE_PAGES list gives must lie
// outside it). The zero value is the default host: eager, no cap, the
// table at 0.
type PagesConfig struct {
	Capped   bool   // host.page_policy = capped
	MaxPages uint64 // host.max_pages: the most pages given in all, boot and init included
	ICMBase  uint64 // mkc_cache.icm_base
}

// pageBook is the golden model's account of the firmware's pages (the
// rule of docs/formats.md, "Firmware pages"): which ICM pages are backed
// and by how many created objects, the pages given by list (bound or
// free, in the order given, and which ICM page each bound one backs), and
// the pages given by count not yet bound.
type pageBook struct {
	started  bool
	backed   prm.PageRefs               // ICM pages backed (prm.ICMPagesOf), counted by object
	uses     map[uint32][]prm.PageRange // the ICM pages of each created index
	bound    map[uint64]uint64          // ICM page -> the page given by list that backs it
	listed   map[uint64]bool            // pages given by list: true when bound
	free     []uint64                   // pages given by list, free, in the order given
	anon     uint64                     // pages given by count, free
	given    uint64                     // pages given in all, boot and init included
	refusals uint64
}

func (b *pageBook) start() {
	if !b.started {
		b.started = true
		b.listed = map[uint64]bool{}
		b.bound = map[uint64]uint64{}
		b.uses = map[uint32][]prm.PageRange{}
		b.given = prm.BootPages + prm.InitPages
	}
}

// held is the pages given past boot and init (bound or free): those a
// MANAGE_PAGES take may ask for.
func (b *pageBook) held() uint64 { return b.given - prm.BootPages - prm.InitPages }

// need backs the pages of a new object: nil, or NO_RESOURCES when the
// host refuses the pages the HCA asks.
func (m *Model) needPages(index uint32, handle uint64, octwords uint32) *Refusal {
	b := &m.pages
	b.start()
	var need []prm.PageRange
	n := uint64(0)
	uses := prm.ICMPagesOf(index, handle, octwords)
	for _, r := range uses {
		for _, g := range b.backed.Missing(r) {
			need, n = append(need, g), n+g.Len()
		}
	}
	free := uint64(len(b.free)) + b.anon
	if n > free {
		ask := n - free
		if m.cfg.Pages.Capped && b.given+ask > m.cfg.Pages.MaxPages {
			b.refusals++
			return &Refusal{Status: prm.NoResources, Reason: fmt.Sprintf("the host refuses %d more pages (host.max_pages %d, %d given)", ask, m.cfg.Pages.MaxPages, b.given)}
		}
		b.given += ask
		b.anon += ask
	}
	// The pages given by list are bound first, in the order given, to the
	// first pages needed; the rest are pages given by count.
	l := min(n, uint64(len(b.free)))
	i := uint64(0)
	for _, g := range need {
		for k := g.Lo; k < g.Hi && i < l; k++ {
			h := b.free[i]
			b.listed[h], b.bound[k] = true, h
			i++
		}
	}
	b.free = b.free[l:]
	b.anon -= n - l
	for _, r := range uses {
		b.backed.Add(r)
	}
	b.uses[index] = uses
	return nil
}

// releasePages runs the firmware's part of DESTROY_MKEY: the index's ICM
// pages that no created object uses any more are given back to the host
// (a Pages Request Event with num_pages negative, which the host answers
// by taking them), and the translation lists' bytes in them are lost (a
// page backed again reads zeros until written).
func (m *Model) releasePages(index uint32) {
	b := &m.pages
	b.start()
	uses, ok := b.uses[index]
	if !ok {
		return
	}
	delete(b.uses, index)
	kept, n := false, uint64(0)
	for _, r := range uses {
		freed := b.backed.Release(r)
		f := uint64(0)
		for _, g := range freed {
			f += g.Len()
			for _, k := range prm.BoundIn(b.bound, g) {
				delete(b.listed, b.bound[k])
				delete(b.bound, k)
			}
			if g.Lo&(1<<63) == 0 {
				m.clearICM(g.Lo*prm.PageBytes, g.Hi*prm.PageBytes)
			}
		}
		kept = kept || f < r.Len()
		n += f
	}
	b.given -= n
	if kept {
		m.cfg.Coverage.Hit(cover.PagesKept)
	}
	if n > 0 {
		m.cfg.Coverage.Hit(cover.PagesGiveBack)
	}
}

// clearICM zeroes the bytes of the ICM pages of [lo, hi) that were ever
// written (a range of 2^24 pages costs the pages present, not the range).
func (m *Model) clearICM(lo, hi uint64) {
	var zeros [prm.PageBytes]byte
	for a, ok := m.icm.NextPresent(lo); ok && a < hi; a, ok = m.icm.NextPresent(a + prm.PageBytes) {
		m.icm.Write(a&^(prm.PageBytes-1), zeros[:])
		if a+prm.PageBytes < a {
			break
		}
	}
}

// QueryPages runs QUERY_PAGES: boot and init are the device's constants,
// regular minus the pages given and not bound (the HCA could give them
// back).
func (m *Model) QueryPages(k scenario.PagesKind) int64 {
	b := &m.pages
	b.start()
	switch k {
	case scenario.PagesBoot:
		return prm.BootPages
	case scenario.PagesInit:
		return prm.InitPages
	}
	return -int64(uint64(len(b.free)) + b.anon)
}

// ManagePages runs MANAGE_PAGES (give or take, by count or list).
func (m *Model) ManagePages(pg *scenario.Pages) *Refusal {
	b := &m.pages
	b.start()
	seen := map[uint64]bool{}
	if !pg.Take {
		for _, a := range pg.List {
			switch {
			case a > prm.PagePoolLimit-prm.PageBytes:
				return badParam("page %#x: a page given by list must end by %#x", a, uint64(prm.PagePoolLimit))
			case a+prm.PageBytes > m.cfg.Pages.ICMBase && a < m.cfg.Pages.ICMBase+prm.MKCSize*(prm.MaxIndex+1):
				return badParam("page %#x lies in the MKC table", a)
			case b.given0(a) || seen[a]:
				return badParam("page %#x given twice", a)
			}
			seen[a] = true
		}
		b.free = append(b.free, pg.List...)
		for _, a := range pg.List {
			b.listed[a] = false
		}
		if pg.List == nil {
			b.anon += pg.Count
		}
		n := pg.N()
		b.given += n
		return nil
	}
	if pg.List == nil {
		n := pg.Count
		free := uint64(len(b.free)) + b.anon
		switch {
		case n > b.held():
			return badParam("take of %d pages: %d given", n, b.held())
		case n > free:
			return &Refusal{Status: prm.BadResState, Reason: fmt.Sprintf("take of %d pages: %d free, the others hold ICM", n, free)}
		}
		a := min(n, b.anon)
		b.anon -= a
		for i := a; i < n; i++ {
			last := b.free[len(b.free)-1]
			b.free = b.free[:len(b.free)-1]
			delete(b.listed, last)
		}
		b.given -= n
		return nil
	}
	for _, a := range pg.List {
		bound, ok := b.listed[a]
		switch {
		case !ok || seen[a]:
			return badParam("page %#x not given", a)
		case bound:
			return &Refusal{Status: prm.BadResState, Reason: fmt.Sprintf("page %#x holds ICM", a)}
		}
		seen[a] = true
	}
	kept := b.free[:0]
	for _, a := range b.free {
		if !seen[a] {
			kept = append(kept, a)
		}
	}
	b.free = kept
	for _, a := range pg.List {
		delete(b.listed, a)
	}
	n := uint64(len(pg.List))
	b.given -= n
	return nil
}

// given0 reports whether a is a page given by list (bound or free).
func (b *pageBook) given0(a uint64) bool {
	_, ok := b.listed[a]
	return ok
}
