package rtl

import (
	"fmt"
	"slices"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
)

// This file is the firmware's pages (issue 37, seed 2.3): the host gives
// the HCA 4 KiB pages (MANAGE_PAGES); the firmware's own page table maps
// each 4 KiB page of its ICM (a page of 64 MKCs, a page of a translation
// list) to the host page that backs it, and the clocked units' ICM reads
// go to the host page (the requester looks the table up as it issues an
// ICM read: Top.icmHost). A CREATE_MKEY whose ICM pages outrun the pages
// given raises a Pages Request Event, a DESTROY_MKEY that frees pages one
// giving them back; under eager the host answers at once, else through
// the pages event queue (eq.go): the command waits for the host's
// MANAGE_PAGES, and a create refused it fails NO_RESOURCES (capped).

// The host's page policies (host.page_policy) and ICM page orders
// (host.icm_page_order).
const (
	PolicyEager      = "eager"
	PolicyOnEvent    = "on_event"
	PolicyCapped     = "capped"
	OrderContiguous  = "contiguous"
	OrderScattered   = "scattered"
	scatterBits      = 18                 // scattered pages move within aligned blocks of 2^18 pages (1 GiB)
	scatterMask      = 1<<scatterBits - 1 // a page number's place in its block
	zeroPage         = prm.ZeroPage       // the page an ICM page not backed reads (scattered): zeros
	mkcTablePages    = MKCTableSize / prm.PageBytes
	maxHostPagesBits = 52
)

// HostConfig is the [host] table: host memory's acceptance of posted
// writes (pcie.HostConfig, issue 37 part 4; its keys in the table itself)
// and the host driver's side of the firmware's pages.
type HostConfig struct {
	pcie.HostConfig        `toml:"memory,flat"`
	PagePolicy             string `toml:"page_policy" json:"page_policy" range:"eager, on_event or capped" help:"how the driver answers the HCA's Pages Request Events: eager gives every page asked at once (no event written, no wait); on_event answers each entry of the pages event queue with a MANAGE_PAGES host.page_event_latency_cycles after its interrupt; capped likewise but refuses past host.max_pages (the create then fails NO_RESOURCES)"`
	ICMPageOrder           string `toml:"icm_page_order" json:"icm_page_order" range:"contiguous or scattered" help:"the host pages backing the ICM: contiguous (each ICM page at the host page of the same address, the layout before issue 37) or scattered (a seeded permutation within each 1 GiB block: neighbouring ICM pages in unrelated host pages)"`
	ICMPageSeed            uint64 `toml:"icm_page_seed" json:"icm_page_seed" range:"0..2^64-1" help:"seed of the scattered order's permutation"`
	MaxPages               uint64 `toml:"max_pages" json:"max_pages" range:"0..2^40" help:"capped: the most pages the host gives in all, boot and init pages included (the device asks 2 at initialisation)"`
	PageEventLatencyCycles int    `toml:"page_event_latency_cycles" json:"page_event_latency_cycles" range:"0..2^24" help:"cycles the driver takes from reading a Pages Request Event's entry (on the event queue's interrupt) to its MANAGE_PAGES answer (on_event, capped; eager answers at once)"`
}

// DefaultHostConfig: a memory that accepts writes at once
// (pcie.DefaultHostConfig); pages eager, contiguous.
func DefaultHostConfig() HostConfig {
	return HostConfig{HostConfig: pcie.DefaultHostConfig(), PagePolicy: PolicyEager, ICMPageOrder: OrderContiguous, ICMPageSeed: 1, MaxPages: 1 << 20, PageEventLatencyCycles: 2000}
}

// Validate names a bad value.
func (h HostConfig) Validate() error {
	if err := h.HostConfig.Validate(); err != nil {
		return err
	}
	switch h.PagePolicy {
	case PolicyEager, PolicyOnEvent, PolicyCapped:
	default:
		return fmt.Errorf("host.page_policy = %q: want eager, on_event or capped", h.PagePolicy)
	}
	switch h.ICMPageOrder {
	case OrderContiguous, OrderScattered:
	default:
		return fmt.Errorf("host.icm_page_order = %q: want contiguous or scattered", h.ICMPageOrder)
	}
	return nil
}

// Refuses reports whether the host refuses to give ask more pages when
// it has given given in all, boot and init included: capped, past
// max_pages.
func (h HostConfig) Refuses(ask, given uint64) bool {
	return h.PagePolicy == PolicyCapped && given+ask > h.MaxPages
}

// Refusal is the host's reason for refusing ask more pages (Refuses).
func (h HostConfig) Refusal(ask, given uint64) string {
	return fmt.Sprintf("the host refuses %d more pages (host.max_pages %d, %d given)", ask, h.MaxPages, given)
}

// PageStats are the firmware's page counters (group pages).
type PageStats struct {
	Given     uint64 `counter:"given" unit:"pages" help:"pages the host gave (MANAGE_PAGES give: boot and init pages at initialisation, the answers to Pages Request Events, scenario gives)"`
	Asked     uint64 `counter:"asked" unit:"pages" help:"pages the HCA asked in Pages Request Events (num_pages > 0)"`
	Returned  uint64 `counter:"returned" unit:"pages" help:"pages the host took back (MANAGE_PAGES take: the scenario's, and the answers to Pages Request Events giving pages back)"`
	Offered   uint64 `counter:"offered" unit:"pages" help:"pages the HCA gave back in Pages Request Events (num_pages < 0): ICM pages a DESTROY_MKEY freed (no created object used them any more), which the host took (counted in returned too)"`
	Events    uint64 `counter:"events" unit:"events" help:"Pages Request Events: CREATE_MKEYs whose new ICM pages outran the free pages given (num_pages > 0), and DESTROY_MKEYs that freed ICM pages (num_pages < 0)"`
	Refused   uint64 `counter:"refused" unit:"events" help:"Pages Request Events the host refused (host.page_policy = capped, past host.max_pages): the command failed NO_RESOURCES"`
	EventWait uint64 `counter:"event_wait_cycles" unit:"cycles" help:"cycles commands waited in state PAGES, from raising a Pages Request Event (writing its entry to the pages event queue) to taking the host's MANAGE_PAGES answer (on_event, capped)"`
}

// fwPages is the firmware's page table and the pages given.
type fwPages struct {
	cfg    HostConfig
	base   uint64                     // mkc_cache.icm_base
	mem    ICM                        // host memory (a freed page's bytes are cleared there)
	backed prm.PageRefs               // ICM pages backed (prm.ICMPagesOf), counted by object
	uses   map[uint32][]prm.PageRange // the ICM pages of each created index
	bound  map[uint64]uint64          // ICM page -> host address of its page, for the pages given by list (the others: hostPage)
	listed map[uint64]bool            // pages given by list: true when bound
	free   []uint64                   // pages given by list, free, in the order given
	anon   uint64                     // pages given by count, free
	given  uint64                     // pages given in all, boot and init included
	stats  PageStats
	cov    *cover.Collector
	// deferred: a Pages Request Event goes through the pages event queue
	// (set while the command path runs a command, under on_event and
	// capped); pending is then the event to raise (num_pages: > 0 asks,
	// < 0 gives back), offered the pages given back that the host has
	// not taken yet.
	deferred bool
	pending  int64
	offered  uint64
	// onBind, if set, is told of every range of ICM pages the firmware
	// backs (the bench maps their host pages, HostPage, in the IOMMU).
	onBind func(r prm.PageRange)
	inv    []uint32 // scattered: the inverse of scatter (PresentPages)
}

func newPages(cfg HostConfig, base uint64, mem ICM) *fwPages {
	p := &fwPages{cfg: cfg, base: base, mem: mem, uses: map[uint32][]prm.PageRange{}, bound: map[uint64]uint64{}, listed: map[uint64]bool{}, given: prm.BootPages + prm.InitPages}
	p.stats.Given = p.given
	return p
}

// scatter is the seeded permutation of a page's place in its block: an
// odd multiplier, a xor and a rotation of 18 bits, each a bijection.
func (p *fwPages) scatter(v uint64) uint64 {
	s := p.cfg.ICMPageSeed
	v = (v*(2*(s|1)+0x9e37) ^ s>>7) & scatterMask
	v = (v<<7 | v>>(scatterBits-7)) & scatterMask
	return (v*0x2f5 + s) & scatterMask
}

// hostPage is the host page the host's order puts ICM page k at.
func (p *fwPages) hostPage(k uint64) uint64 {
	if k&(1<<63) != 0 {
		j := k &^ (1 << 63)
		if p.cfg.ICMPageOrder == OrderScattered {
			j = p.scatter(j)
		}
		return p.base + j*prm.PageBytes
	}
	if p.cfg.ICMPageOrder == OrderScattered {
		k = k&^scatterMask | p.scatter(k&scatterMask)
	}
	return k * prm.PageBytes
}

// icmHost is where ICM address a is in host memory: through the page
// table, or for a page not backed, where it was before issue 37
// (contiguous) or the zero page (scattered: a page not backed must not
// read another's).
func (p *fwPages) icmHost(a uint64) uint64 {
	if p.cfg.ICMPageOrder == OrderContiguous && len(p.bound) == 0 {
		return a // identity, backed or not
	}
	var k, off uint64
	if a-p.base < MKCTableSize && a >= p.base {
		k, off = prm.MKCPageKey(uint32((a-p.base)/prm.MKCSize)), (a-p.base)%prm.PageBytes
	} else {
		k, off = a/prm.PageBytes, a%prm.PageBytes
	}
	if h, ok := p.HostPage(k); ok {
		return h + off
	}
	if p.cfg.ICMPageOrder == OrderContiguous {
		return a
	}
	return zeroPage + off
}

// HostPage is the host address of the page that backs ICM page k, and
// whether one does.
func (p *fwPages) HostPage(k uint64) (uint64, bool) {
	if len(p.bound) > 0 {
		if h, ok := p.bound[k]; ok {
			return h, true
		}
	}
	if !p.backed.Has(k) {
		return 0, false
	}
	return p.hostPage(k), true
}

// need backs the ICM pages of a new object. When they outnumber the free
// pages, the firmware raises a Pages Request Event: deferred (the pages
// event queue, host.page_policy on_event or capped), it changes nothing
// and leaves the pages to ask in pending, and the command runs again
// once the host has given them (asked reports it); else the host answers
// at once (eager, and the scenario's initial keys, made before the run),
// refusing past host.max_pages when capped: NO_RESOURCES.
func (p *fwPages) need(index uint32, handle uint64, octwords uint32) (asked bool, r *refusal) {
	var need []prm.PageRange
	n := uint64(0)
	uses := prm.ICMPagesOf(index, handle, octwords)
	for _, r := range uses {
		for _, g := range p.backed.Missing(r) {
			need, n = append(need, g), n+g.Len()
		}
	}
	free := uint64(len(p.free)) + p.anon
	if n > free {
		ask := n - free
		p.stats.Events++
		p.stats.Asked += ask
		p.cov.Hit(cover.PagesEvent)
		if p.deferred {
			p.pending = int64(ask)
			return true, nil
		}
		if p.cfg.Refuses(ask, p.given) {
			p.stats.Refused++
			return false, &refusal{st: prm.NoResources, reason: p.cfg.Refusal(ask, p.given)}
		}
		p.give(ask)
	}
	// The pages given by list are bound first, in the order given, to the
	// first pages needed; the rest are pages given by count (hostPage).
	l := min(n, uint64(len(p.free)))
	i := uint64(0)
	for _, g := range need {
		for k := g.Lo; k < g.Hi && i < l; k++ {
			h := p.free[i]
			p.listed[h], p.bound[k] = true, h
			i++
		}
	}
	p.free = p.free[l:]
	p.anon -= n - l
	for _, r := range uses {
		p.backed.Add(r)
	}
	p.uses[index] = uses
	if p.onBind != nil {
		for _, g := range need {
			p.onBind(g)
		}
	}
	return false, nil
}

// held is the pages given past boot and init (bound or free): those a
// MANAGE_PAGES take may ask for.
func (p *fwPages) held() uint64 { return p.given - prm.BootPages - prm.InitPages }

// give takes n pages the host gave in answer to a Pages Request Event
// (MANAGE_PAGES give by count).
func (p *fwPages) give(n uint64) {
	p.given += n
	p.anon += n
	p.stats.Given += n
}

// take hands the host n of the pages offered back (its MANAGE_PAGES take
// answering a Pages Request Event with num_pages negative).
func (p *fwPages) take(n uint64) {
	n = min(n, p.offered)
	p.offered -= n
	p.returned(n)
}

// returned counts n pages the host took back.
func (p *fwPages) returned(n uint64) {
	p.given -= n
	p.stats.Returned += n
}

// release runs the firmware's part of DESTROY_MKEY on the pages: the
// index's ICM pages that no created object uses any more are cleared
// (their host pages read zeros: a page backed again starts empty),
// unbound and given back to the host (a Pages Request Event with
// num_pages negative; the host takes them). It returns the ICM addresses
// [lo, hi) spanning the freed list pages (lo == hi: none), whose cached
// lines are stale.
func (p *fwPages) release(index uint32) (lo, hi uint64) {
	uses, ok := p.uses[index]
	if !ok {
		return 0, 0
	}
	delete(p.uses, index)
	var zeros [prm.PageBytes]byte
	wipe := func(k uint64) { // k is still backed: the table finds its host page
		h, _ := p.HostPage(k)
		p.mem.Write(h, zeros[:])
	}
	kept, n := false, uint64(0)
	for _, r := range uses {
		// The pages this object alone uses are cleared while still
		// backed (found through the table), then freed.
		freed := p.backed.Only(r)
		f := uint64(0)
		for _, g := range freed {
			f += g.Len()
			if g.Lo&(1<<63) != 0 {
				wipe(g.Lo) // an MKC page: one
			} else {
				for _, k := range (icmView{p.mem, p}).PresentPages(g.Lo, g.Hi) {
					wipe(k)
				}
				if lo == hi {
					lo = g.Lo * prm.PageBytes
				}
				lo, hi = min(lo, g.Lo*prm.PageBytes), max(hi, g.Hi*prm.PageBytes)
			}
			for _, k := range prm.BoundIn(p.bound, g) {
				delete(p.listed, p.bound[k])
				delete(p.bound, k)
			}
		}
		p.backed.Release(r)
		kept = kept || f < r.Len()
		n += f
	}
	if kept {
		p.cov.Hit(cover.PagesKept)
	}
	if n > 0 {
		p.stats.Events++
		p.stats.Offered += n
		p.cov.Hit(cover.PagesGiveBack)
		if p.deferred {
			p.pending, p.offered = -int64(n), p.offered+n
		} else {
			p.returned(n)
		}
	}
	return lo, hi
}

// query runs QUERY_PAGES.
func (p *fwPages) query(k scenario.PagesKind) int64 {
	switch k {
	case scenario.PagesBoot:
		return prm.BootPages
	case scenario.PagesInit:
		return prm.InitPages
	}
	return -int64(uint64(len(p.free)) + p.anon)
}

// manage runs MANAGE_PAGES.
func (p *fwPages) manage(pg *scenario.Pages) *refusal {
	seen := map[uint64]bool{}
	if !pg.Take {
		for _, a := range pg.List {
			_, listed := p.listed[a]
			switch {
			case a > prm.PagePoolLimit-prm.PageBytes:
				return bad("page %#x: a page given by list must end by %#x", a, uint64(prm.PagePoolLimit))
			case a+prm.PageBytes > p.base && a < p.base+MKCTableSize:
				return bad("page %#x lies in the MKC table", a)
			case listed || seen[a]:
				return bad("page %#x given twice", a)
			}
			seen[a] = true
		}
		p.free = append(p.free, pg.List...)
		for _, a := range pg.List {
			p.listed[a] = false
		}
		if pg.List == nil {
			p.anon += pg.Count
		}
		n := pg.N()
		p.given += n
		p.stats.Given += n
		return nil
	}
	if pg.List == nil {
		n := pg.Count
		free := uint64(len(p.free)) + p.anon
		switch {
		case n > p.held():
			return bad("take of %d pages: %d given", n, p.held())
		case n > free:
			return &refusal{st: prm.BadResState, reason: fmt.Sprintf("take of %d pages: %d free, the others hold ICM", n, free)}
		}
		a := min(n, p.anon)
		p.anon -= a
		for i := a; i < n; i++ {
			last := p.free[len(p.free)-1]
			p.free = p.free[:len(p.free)-1]
			delete(p.listed, last)
		}
		p.returned(n)
		return nil
	}
	for _, a := range pg.List {
		bound, ok := p.listed[a]
		switch {
		case !ok || seen[a]:
			return bad("page %#x not given", a)
		case bound:
			return &refusal{st: prm.BadResState, reason: fmt.Sprintf("page %#x holds ICM", a)}
		}
		seen[a] = true
	}
	kept := p.free[:0]
	for _, a := range p.free {
		if !seen[a] {
			kept = append(kept, a)
		}
	}
	p.free = kept
	for _, a := range pg.List {
		delete(p.listed, a)
	}
	p.returned(uint64(len(pg.List)))
	return nil
}

// icmView is the ICM as the firmware reads and writes it: through its
// page table to host memory, a page at a time.
type icmView struct {
	mem ICM
	p   *fwPages
}

func (v icmView) split(addr uint64, n int, f func(host uint64, lo, hi int)) {
	for i := 0; i < n; {
		a := addr + uint64(i)
		step := int(min(uint64(n-i), prm.PageBytes-a%prm.PageBytes))
		if a >= v.p.base && a-v.p.base < MKCTableSize {
			step = int(min(uint64(n-i), prm.PageBytes-(a-v.p.base)%prm.PageBytes))
		}
		f(v.p.icmHost(a), i, i+step)
		i += step
	}
}

// Read reads len(b) bytes of ICM at addr.
func (v icmView) Read(addr uint64, b []byte) {
	v.split(addr, len(b), func(h uint64, lo, hi int) { v.mem.Read(h, b[lo:hi]) })
}

// Write writes b to ICM at addr.
func (v icmView) Write(addr uint64, b []byte) {
	v.split(addr, len(b), func(h uint64, lo, hi int) { v.mem.Write(h, b[lo:hi]) })
}

// PresentPages lists the ICM pages of [lo, hi) (scenario.SnapshotPageSize
// pages of list addresses) whose host page holds data. Its cost follows
// the pages present, not the range (a list's capacity may span 2^24
// pages), when the host memory is sparse; another memory is scanned a
// page at a time through the page table.
func (v icmView) PresentPages(lo, hi uint64) []uint64 {
	sp, sparse := v.mem.(scenario.SparseMemory)
	if !sparse {
		return scanICM{v}.PresentPages(lo, hi)
	}
	present := func(h uint64) bool { return len(sp.PresentPages(h/prm.PageBytes, h/prm.PageBytes+1)) > 0 }
	var out []uint64
	if v.p.cfg.ICMPageOrder == OrderContiguous {
		// Identity, but for the pages given by list.
		for _, k := range sp.PresentPages(lo, hi) {
			if _, moved := v.p.bound[k]; !moved {
				out = append(out, k)
			}
		}
	} else {
		// Scattered: the host pages present in the blocks of the range,
		// back through the inverse permutation; a page not backed reads
		// the zero page.
		inv := v.p.inverse()
		for blk := lo >> scatterBits; blk<<scatterBits < hi; blk++ {
			for _, h := range sp.PresentPages(blk<<scatterBits, (blk+1)<<scatterBits) {
				k := blk<<scatterBits | uint64(inv[h&scatterMask])
				if _, moved := v.p.bound[k]; k >= lo && k < hi && !moved && v.p.backed.Has(k) {
					out = append(out, k)
				}
			}
		}
	}
	for k, h := range v.p.bound {
		if k >= lo && k < hi && present(h) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// inverse is the inverse of scatter, built once (2^18 entries).
func (p *fwPages) inverse() []uint32 {
	if p.inv == nil {
		p.inv = make([]uint32, 1<<scatterBits)
		for v := uint64(0); v < 1<<scatterBits; v++ {
			p.inv[p.scatter(v)] = uint32(v)
		}
	}
	return p.inv
}

// OnICMBind makes the firmware tell f of every range of ICM pages it
// backs, as it backs them (before any read of them): the bench's host
// driver maps their host pages (ICMHostPage) in the IOMMU
// (iommu.translate_icm). Setting it again replaces f.
func (t *Top) OnICMBind(f func(r prm.PageRange)) { t.fw.pg.onBind = f }

// ICMHostPage is the host address of the page backing ICM page k (a page
// number of a list address, or prm.MKCPageKey of an MKC index), and
// whether one does.
func (t *Top) ICMHostPage(k uint64) (uint64, bool) { return t.fw.pg.HostPage(k) }

// ICMZeroPage is the host page an ICM page not backed reads in the
// scattered order (zeros).
const ICMZeroPage = zeroPage
