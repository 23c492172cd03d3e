package vectors

import (
	"fmt"
	"math/bits"

	"mkeysim/prm"
)

// The ATC (rtl/atc) has no golden model in ref: its function is a cache's,
// so the vectors' oracle is atcRef below, the ATC's function written
// untimed, small enough to check by reading. Its rules, from rtl/atc's
// doc.go, with the host's mapping and the Invalidate Requests as the only
// inputs that matter:
//
//   - A lookup's result is the host's current translation of its address:
//     OK with translated base + (addr - range base) when the mapping grants
//     the access (R for a read, W for a write), else no translation. The
//     host invalidates every range whose mapping it changes before any
//     later lookup, so a translation the ATC kept can only be the current
//     one: which lookups hit is the unit's business, not the result.
//   - An OK result holds its translation until its release. An Invalidate
//     Request marks every held result whose translation range meets its
//     range as dying; its Invalidate Completion leaves once no dying held
//     result meets its range, and the completions leave in the order the
//     requests came (a later request never completes before an earlier).
//
// The vectors run one operation at a time (LOOKUP, RELEASE, INVAL): the
// harness serves the DUT's Translation Request of a LOOKUP with the host's
// answer the vector carries, and collects the Invalidate Completions each
// operation lets leave.

// The operations of an ATC trace.
const (
	ATCLookup  = 0 // a lookup from the data path (bus.ATSLookup)
	ATCRelease = 1 // the data path gives back the entry of an earlier OK result (bus.ATSRelease)
	ATCInval   = 2 // an Invalidate Request from the host (bus.ATSInval)
)

var atcOpNames = []string{"LOOKUP", "RELEASE", "INVAL"}

// ATCMaxHeld bounds the OK results held at once in the vectors: a DUT
// with fewer free ways than this in a set could not fill and would stall.
const ATCMaxHeld = 8

// ATCSettle is the cycles the harness waits after each operation (after
// the result of a LOOKUP) for the Invalidate Completions it lets leave:
// all 32 ITags may complete at once, and rtl/atc sends one completion a
// cycle.
const ATCSettle = 40

// ATCVector is one operation on the ATC and what it must do.
type ATCVector struct {
	Op uint8
	// Ref is, for RELEASE, the number of the LOOKUP vector whose OK result
	// is given back: the harness drives the entry the DUT gave it.
	Ref uint32
	// LOOKUP: the lookup (bus.ATSLookup).
	Tag   uint16
	Addr  uint64
	Len   uint32
	Write bool
	// LOOKUP: the host's answer to a Translation Request for Addr's page,
	// as the host maps it now: TCOK false is UR; else the completion's
	// data entry (prm.ATSCompletionEntry).
	TCOK    bool
	TCEntry prm.ATSCompletionEntry
	// INVAL: the Invalidate Request: its ITag and payload.
	ITag    uint8
	InvBody prm.ATSInvalidateBody
	// Expected, from atcRef.
	TRAddr   prm.ATSTranslationRequestAddr // LOOKUP: the Translation Request a miss sends (its page, NW 0)
	OutOK    bool
	OutAddr  uint64
	OutLen   uint32
	OutTag   uint16
	DoneMask uint32 // the ITags whose Invalidate Completion this operation lets leave
}

// atcHeld is an OK result the data path holds.
type atcHeld struct {
	seq   uint32
	rng   prm.ATSRange
	dying bool
}

// atcPending is an Invalidate Request waiting for its completion.
type atcPending struct {
	itag uint8
	rng  prm.ATSRange
}

// atcRef is the untimed ATC: the results held and the invalidations
// pending. The host's mapping comes with each lookup (the vector's
// completion), so atcRef keeps no copy of it.
type atcRef struct {
	held    []atcHeld
	pending []atcPending
}

// apply fills in v's expected values and advances the state; seq is v's
// number (a LOOKUP's result is released by it).
func (a *atcRef) apply(v *ATCVector, seq uint32) error {
	v.TRAddr, v.OutOK, v.OutAddr, v.OutLen, v.OutTag, v.DoneMask = prm.ATSTranslationRequestAddr{}, false, 0, 0, 0, 0
	switch v.Op {
	case ATCLookup:
		v.OutTag, v.OutLen = v.Tag, v.Len
		v.TRAddr = prm.ATSTranslationRequestAddr{Addr: v.Addr &^ (prm.ATSPageSize - 1)}
		e := v.TCEntry
		r, ok := e.Range()
		if !v.TCOK || !ok || !(e.R || e.W) || v.Write && !e.W || !v.Write && !e.R {
			break // no translation: UR, no access, or not the one needed
		}
		mask := ^uint64(0) // the range's offset bits
		if r.Log2 < 64 {
			mask = uint64(1)<<r.Log2 - 1
		}
		v.OutOK = true
		v.OutAddr = r.Base | v.Addr&mask
		a.held = append(a.held, atcHeld{seq: seq, rng: prm.ATSRange{Base: v.Addr &^ mask, Log2: r.Log2}})
	case ATCRelease:
		k := a.find(v.Ref)
		if k < 0 {
			return fmt.Errorf("vectors: atc vector %d releases vector %d, which holds nothing", seq, v.Ref)
		}
		a.held = append(a.held[:k], a.held[k+1:]...)
	case ATCInval:
		r, ok := v.InvBody.Range()
		if !ok {
			return fmt.Errorf("vectors: atc vector %d: the invalidate payload names no range", seq)
		}
		for _, p := range a.pending {
			if p.itag == v.ITag {
				return fmt.Errorf("vectors: atc vector %d reuses ITag %d, still pending", seq, v.ITag)
			}
		}
		for i := range a.held {
			if a.held[i].rng.Overlaps(r) {
				a.held[i].dying = true
			}
		}
		a.pending = append(a.pending, atcPending{itag: v.ITag, rng: r})
	}
	for len(a.pending) > 0 && !a.dyingIn(a.pending[0].rng) {
		v.DoneMask |= 1 << a.pending[0].itag
		a.pending = a.pending[1:]
	}
	return nil
}

func (a *atcRef) find(seq uint32) int {
	for k, h := range a.held {
		if h.seq == seq {
			return k
		}
	}
	return -1
}

// dyingIn reports whether a dying held result's translation meets r.
func (a *atcRef) dyingIn(r prm.ATSRange) bool {
	for _, h := range a.held {
		if h.dying && h.rng.Overlaps(r) {
			return true
		}
	}
	return false
}

func atcLayout() *Layout {
	lk := "op == 2'd0"
	return newLayout([]Field{
		{Name: "op", Width: 2, Dir: DirFrame, Enum: "atc_op", Meaning: "the operation: 0 LOOKUP (in_*), 1 RELEASE (rel_*), 2 INVAL (inv_*) (enums.atc_op); the harness raises that channel's valid"},
		{Name: "rel_vector", Width: 32, Dir: DirFrame, Meaning: "RELEASE: the number of the LOOKUP vector whose OK result is given back; the harness drives rel_entry with the out_entry the DUT gave that lookup"},
		{Name: "in_tag", Width: 16, Dir: DirInput, Meaning: "LOOKUP (bus.ATSLookup tag): the lookup's tag, returned with its result"},
		{Name: "in_addr", Width: 64, Dir: DirInput, Meaning: "LOOKUP (bus.ATSLookup addr): the untranslated address; in_addr + in_len crosses no 4 KiB boundary"},
		{Name: "in_len", Width: 32, Dir: DirInput, Meaning: "LOOKUP (bus.ATSLookup len): bytes, 1..4096"},
		{Name: "in_write", Width: 1, Dir: DirInput, Meaning: "LOOKUP (bus.ATSLookup write): 1, the access writes host memory (the translation must grant W); 0, it reads (R)"},
		{Name: "tc_ok", Width: 1, Dir: DirInput, Meaning: "LOOKUP: the host's Translation Completion for in_addr's page as the host maps it now, served on tc_* if the DUT asks: 1 Successful Completion with tc_entry; 0 Unsupported Request (no translation)"},
		{Name: "tc_entry", Width: 64, Dir: DirInput, Format: "ats_tc_entry", Meaning: "LOOKUP, tc_ok 1: the Translation Completion Data Entry, 8-byte image in wire order (formats.ats_tc_entry: translated address and S give the range, R and W the rights)"},
		{Name: "inv_itag", Width: 5, Dir: DirInput, Meaning: "INVAL (bus.ATSInval itag): the Invalidate Request's ITag, never reused while its completion is due"},
		{Name: "inv_body", Width: 64, Dir: DirInput, Format: "ats_inv_req_body", Meaning: "INVAL: the Invalidate Request's payload, 8-byte image in wire order (formats.ats_inv_req_body: untranslated address and S give the range)"},
		{Name: "tr_addr", Width: 64, Dir: DirExpected, CompareWhen: lk, Meaning: "LOOKUP: the Translation Request a miss sends: the address dwords of formats.ats_tr_addr for in_addr's 4 KiB page, NW 0; compared whenever tr_valid is high during the lookup (a hit sends none)", Format: "ats_tr_addr"},
		{Name: "out_ok", Width: 1, Dir: DirExpected, CompareWhen: lk, Meaning: "LOOKUP (bus.ATSResult ok): 1, translated; 0, the host gives no translation with the right the lookup needs"},
		{Name: "out_addr", Width: 64, Dir: DirExpected, CompareWhen: lk + " && exp_out_ok", Meaning: "LOOKUP, OK (bus.ATSResult addr): the translated address of in_addr: the range's translated base + in_addr mod the range's size"},
		{Name: "out_len", Width: 32, Dir: DirExpected, CompareWhen: lk, Meaning: "LOOKUP (bus.ATSResult len): in_len"},
		{Name: "out_tag", Width: 16, Dir: DirExpected, CompareWhen: lk, Meaning: "LOOKUP (bus.ATSResult tag): in_tag"},
		{Name: "done_itag_vector", Width: 32, Dir: DirExpected, Meaning: "every operation: bit i set for each Invalidate Completion of ITag i that leaves between the operation and the end of its settle window (formats.ats_inv_cpl_hdr itag_vector; the harness ORs done_itag_vector over every cycle done_valid is high)"},
	})
}

func (v *ATCVector) encode(l *Layout, ln Line) {
	l.set(ln, "op", uint64(v.Op))
	l.set(ln, "rel_vector", uint64(v.Ref))
	l.set(ln, "in_tag", uint64(v.Tag))
	l.set(ln, "in_addr", v.Addr)
	l.set(ln, "in_len", uint64(v.Len))
	l.set(ln, "in_write", b2u(v.Write))
	l.set(ln, "tc_ok", b2u(v.TCOK))
	var b [8]byte
	v.TCEntry.Put(b[:])
	l.setImage(ln, "tc_entry", b[:])
	l.set(ln, "inv_itag", uint64(v.ITag))
	v.InvBody.Put(b[:])
	l.setImage(ln, "inv_body", b[:])
	v.TRAddr.Put(b[:])
	l.setImage(ln, "tr_addr", b[:])
	l.set(ln, "out_ok", b2u(v.OutOK))
	l.set(ln, "out_addr", v.OutAddr)
	l.set(ln, "out_len", uint64(v.OutLen))
	l.set(ln, "out_tag", uint64(v.OutTag))
	l.set(ln, "done_itag_vector", uint64(v.DoneMask))
}

// decodeATC reads a line back; the images are parsed through prm's tables
// (a set reserved bit is an error).
func decodeATC(l *Layout, ln Line) (ATCVector, error) {
	v := ATCVector{Op: uint8(l.Get(ln, "op")), Ref: uint32(l.Get(ln, "rel_vector")), Tag: uint16(l.Get(ln, "in_tag")), Addr: l.Get(ln, "in_addr"),
		Len: uint32(l.Get(ln, "in_len")), Write: l.Get(ln, "in_write") == 1, TCOK: l.Get(ln, "tc_ok") == 1, ITag: uint8(l.Get(ln, "inv_itag")),
		OutOK: l.Get(ln, "out_ok") == 1, OutAddr: l.Get(ln, "out_addr"), OutLen: uint32(l.Get(ln, "out_len")), OutTag: uint16(l.Get(ln, "out_tag")),
		DoneMask: uint32(l.Get(ln, "done_itag_vector"))}
	var err1, err2, err3 error
	v.TCEntry, err1 = prm.ParseATSCompletionEntry(l.GetImage(ln, "tc_entry"))
	v.InvBody, err2 = prm.ParseATSInvalidateBody(l.GetImage(ln, "inv_body"))
	v.TRAddr, err3 = prm.ParseATSTranslationRequestAddr(l.GetImage(ln, "tr_addr"))
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return v, err
		}
	}
	return v, nil
}

// atcRegion is one range of the host's map in the random stimulus: 2^log
// bytes at base, mapped to pa with r and w, or not mapped.
type atcRegion struct {
	base   uint64
	log    uint8
	mapped bool
	pa     uint64
	r, w   bool
}

func (g *atcRegion) rng() prm.ATSRange { return prm.ATSRange{Base: g.base, Log2: g.log} }

// answer is the host's Translation Completion for an address of g (nil g:
// of no region, UR). A mapping that grants nothing is sometimes a
// completion with R = W = 0 rather than UR: the host may answer either.
func (g *atcRegion) answer(r *rng) (bool, prm.ATSCompletionEntry) {
	if g == nil || !g.mapped {
		if g != nil && r.pct(30) {
			var e prm.ATSCompletionEntry
			_ = e.SetRange(prm.ATSRange{Base: r.bits(40) << 12, Log2: 12})
			return true, e // a completion that grants no access
		}
		return false, prm.ATSCompletionEntry{}
	}
	e := prm.ATSCompletionEntry{R: g.r, W: g.w, N: r.pct(10), Global: r.pct(10)}
	if err := e.SetRange(prm.ATSRange{Base: g.pa, Log2: g.log}); err != nil {
		panic(err)
	}
	return true, e
}

// atcWorld is the host's map of the random stimulus: ranges of 4 KiB,
// 64 KiB, 2 MiB and 1 GiB, disjoint, and an unmapped window.
type atcWorld struct {
	regions []atcRegion
	fresh   uint64
}

const atcUnmapped = 0x7f00_0000_0000 // a window no region holds

func newATCWorld(r *rng) *atcWorld {
	w := &atcWorld{fresh: 0x10_0000_0000}
	add := func(base uint64, log uint8) {
		g := atcRegion{base: base, log: log, mapped: r.pct(90), r: true, w: r.pct(70)}
		if r.pct(10) {
			g.r = false // write-only: a read of it has no translation
			g.w = true
		}
		g.pa = w.newPA(log)
		w.regions = append(w.regions, g)
	}
	for i := range 3 {
		add(0x40_0000_0000+uint64(i)<<30, 30)
	}
	for i := range 6 {
		add(0x50_0000_0000+uint64(i)<<21, 21)
	}
	for i := range 6 {
		add(0x58_0000_0000+uint64(i)<<16, 16)
	}
	for i := range 16 {
		add(0x60_0000_0000+uint64(2*i)<<12, 12) // every other page: neighbours unmapped
	}
	return w
}

// newPA is a fresh translated base for a range of 2^log bytes.
func (w *atcWorld) newPA(log uint8) uint64 {
	w.fresh = (w.fresh + 1<<30 + (uint64(1)<<log - 1)) &^ (uint64(1)<<log - 1)
	return w.fresh
}

// find returns the region holding addr, nil if none.
func (w *atcWorld) find(addr uint64) *atcRegion {
	for k := range w.regions {
		if g := &w.regions[k]; g.rng().Contains(addr) {
			return g
		}
	}
	return nil
}

// atcDirected is a fixed prologue on a 2 MiB region R mapped read-write
// at P and a 4 KiB read-only page Q: a lookup miss and a hit in the same
// range, a write to the read-only page (no translation), an invalidation
// of R while two results hold it (its completion waits), a lookup of R
// after it (the new mapping), the releases (the completion leaves with
// the second), a second invalidation with nothing held (it completes at
// once), and a lookup of an unmapped page.
func atcDirected() []ATCVector {
	const R, P, P2, Q, QP = 0x30_0000_0000, 0x8000_0000, 0xa000_0000, 0x38_0000_0000, 0x9000_0000 // outside the random world's ranges
	e := func(base uint64, log uint8, rd, wr bool) prm.ATSCompletionEntry {
		x := prm.ATSCompletionEntry{R: rd, W: wr}
		_ = x.SetRange(prm.ATSRange{Base: base, Log2: log})
		return x
	}
	inv := func(base uint64, log uint8) prm.ATSInvalidateBody {
		var b prm.ATSInvalidateBody
		_ = b.SetRange(prm.ATSRange{Base: base, Log2: log})
		return b
	}
	lk := func(tag uint16, addr uint64, n uint32, write, ok bool, te prm.ATSCompletionEntry) ATCVector {
		return ATCVector{Op: ATCLookup, Tag: tag, Addr: addr, Len: n, Write: write, TCOK: ok, TCEntry: te}
	}
	return []ATCVector{
		lk(0, R+0x1234, 64, false, true, e(P, 21, true, true)),          // 0: miss, fill 2 MiB
		lk(1, R+0x1f_f000, 4096, true, true, e(P, 21, true, true)),      // 1: hit in the same range
		lk(2, Q+8, 8, true, true, e(QP, 12, true, false)),               // 2: write without W: none
		lk(3, Q+16, 8, false, true, e(QP, 12, true, false)),             // 3: read: OK
		{Op: ATCRelease, Ref: 3},                                        // 4
		{Op: ATCInval, ITag: 5, InvBody: inv(R, 21)},                    // 5: 0 and 1 hold R: waits
		lk(6, R+0x40, 16, false, true, e(P2, 21, true, false)),          // 6: the new mapping
		{Op: ATCRelease, Ref: 0},                                        // 7: 1 still holds
		{Op: ATCRelease, Ref: 1},                                        // 8: completion 5 leaves
		{Op: ATCRelease, Ref: 6},                                        // 9
		{Op: ATCInval, ITag: 6, InvBody: inv(Q, 12)},                    // 10: nothing held: at once
		lk(11, atcUnmapped, 32, false, false, prm.ATSCompletionEntry{}), // 11: UR
	}
}

func genATC(o *Options) (*unitResult, error) {
	l := atcLayout()
	res := &unitResult{
		desc:   "ATS translation cache (rtl/atc): lookups, releases and Invalidate Requests, one at a time, with each lookup's result and the Invalidate Completions each operation lets leave (the untimed reference atcRef)",
		layout: l,
		enums:  append(commonEnums(), Enum{Name: "atc_op", Width: 2, Values: []EnumValue{{"LOOKUP", ATCLookup}, {"RELEASE", ATCRelease}, {"INVAL", ATCInval}}}),
		formats: []Format{formatOf(prm.ATSCompletionEntryLayout.Format()), formatOf(prm.ATSTranslationRequestAddrLayout.Format()),
			formatOf(prm.ATSInvalidateBodyLayout.Format()), formatOf(prm.ATSInvalidateCompletionHeaderLayout.Format())},
		params: []Param{
			{Name: "MAX_HELD", Value: ATCMaxHeld, Meaning: "OK results held (not yet released) at most at once: the DUT must be able to fill a translation while this many entries are held"},
			{Name: "SETTLE", Value: ATCSettle, Meaning: "cycles the harness waits after each operation (after a lookup's result) for the Invalidate Completions it lets leave"},
			{Name: "ITAGS", Value: prm.ATSMaxITag + 1, Meaning: "ITags (0..31); an ITag is not reused while its Invalidate Completion is due"},
		},
		sources: []string{"directed prologue (vectors/atc.go atcDirected)"},
		points: []CoveragePoint{
			{"LOOKUP_OK_READ", "LOOKUP, a read, translated"},
			{"LOOKUP_OK_WRITE", "LOOKUP, a write, translated"},
			{"LOOKUP_OK_LARGE", "LOOKUP translated through a range larger than 4 KiB (S = 1)"},
			{"LOOKUP_UR", "LOOKUP the host answers UR (not mapped): no translation"},
			{"LOOKUP_NO_ACCESS", "LOOKUP the host answers with R = W = 0: no translation"},
			{"LOOKUP_NO_WRITE", "LOOKUP, a write, of a mapping without W: no translation"},
			{"LOOKUP_NO_READ", "LOOKUP, a read, of a write-only mapping: no translation"},
			{"LOOKUP_AFTER_HELD_INVAL", "LOOKUP in the range of an invalidation whose completion waits: the new mapping, never the dying one"},
			{"RELEASE", "RELEASE of a held result"},
			{"RELEASE_COMPLETES", "RELEASE that lets an Invalidate Completion leave"},
			{"INVAL_AT_ONCE", "INVAL whose completion leaves at once (nothing held in its range)"},
			{"INVAL_HELD", "INVAL whose completion waits for held results"},
			{"INVAL_BEHIND", "INVAL that meets no held result but waits behind an earlier pending one (completions leave in order)"},
			{"INVAL_WIDE", "INVAL of a range wider than the host's range it covers"},
			{"DONE_MULTI", "an operation that lets two or more Invalidate Completions leave"},
		},
	}
	res.dut = DUT{Module: "mkeysim_atc", Handshake: "ats", Description: Timing("ats"), Ports: atcPorts(l)}
	vs := atcDirected()
	if len(vs) > o.Count {
		vs = vs[:o.Count]
	}
	res.directed = len(vs)
	ref := &atcRef{}
	for i := range vs {
		if err := ref.apply(&vs[i], uint32(i)); err != nil {
			return nil, err
		}
	}
	// The random part goes on from the prologue's state (nothing held,
	// nothing pending: it ends released and completed).
	r := newRNG(o.Seed, 6)
	w := newATCWorld(r)
	world := w
	var busy uint32 // ITags pending in ref
	for _, p := range ref.pending {
		busy |= 1 << p.itag
	}
	add := func(v ATCVector) error {
		seq := uint32(len(vs))
		if err := ref.apply(&v, seq); err != nil {
			return err
		}
		for _, p := range ref.pending {
			busy |= 1 << p.itag
		}
		busy &^= v.DoneMask
		vs = append(vs, v)
		return nil
	}
	for k := 0; len(vs) < o.Count; k++ {
		if k%1024 == 0 && o.stopped() {
			return nil, ErrStopped
		}
		var v ATCVector
		op := r.pick(55, 25, 20)
		if op == 0 && len(ref.held) >= ATCMaxHeld || op == 2 && busy == 1<<32-1 {
			op = 1
		}
		if op == 1 && len(ref.held) == 0 {
			op = 0
		}
		switch op {
		case 0:
			var g *atcRegion
			addr := atcUnmapped + r.bits(20)
			if !r.pct(6) {
				g = &w.regions[r.intn(len(w.regions))]
				addr = g.base + r.n(uint64(1)<<g.log)
			} else if r.bool() {
				addr = 0x60_0000_1000 + uint64(2*r.intn(16))<<12 + r.bits(12) // between the 4 KiB regions
			}
			v = ATCVector{Op: ATCLookup, Tag: uint16(len(vs)), Addr: addr, Write: r.pct(35)}
			room := 4096 - addr%4096
			switch r.pick(60, 30, 10) {
			case 0:
				v.Len = uint32(min(r.rangeIn(1, 64), room))
			case 1:
				v.Len = uint32(r.rangeIn(1, room))
			default:
				v.Len = uint32(room) // to the page's end
			}
			v.TCOK, v.TCEntry = g.answer(r)
		case 1:
			// The oldest holder half of the time: long holds make the
			// invalidations wait.
			h := ref.held[0]
			if r.bool() {
				h = ref.held[r.intn(len(ref.held))]
			}
			v = ATCVector{Op: ATCRelease, Ref: h.seq}
		default:
			g := &w.regions[r.intn(len(w.regions))]
			// Prefer a region someone holds: the completion must wait.
			if len(ref.held) > 0 && r.pct(60) {
				if hg := w.find(ref.held[r.intn(len(ref.held))].rng.Base); hg != nil {
					g = hg
				}
			}
			switch r.pick(40, 20, 15, 25) {
			case 0: // remap
				g.mapped, g.pa = true, w.newPA(g.log)
			case 1: // unmap
				g.mapped = false
			case 2: // other rights
				g.r, g.w = r.pct(80), r.pct(60)
				g.r = g.r || !g.w
			default: // no change: an invalidation the host may send anyway
			}
			rg := g.rng()
			if r.pct(15) { // a wider range: up to 2^40 bytes around it
				rg.Log2 = uint8(min(int(rg.Log2)+1+r.intn(10), 40))
				rg.Base &^= uint64(1)<<rg.Log2 - 1
			}
			itag := uint8(r.intn(32))
			for busy&(1<<itag) != 0 {
				itag = (itag + 1) % 32
			}
			v = ATCVector{Op: ATCInval, ITag: itag}
			if err := v.InvBody.SetRange(rg); err != nil {
				return nil, err
			}
		}
		if err := add(v); err != nil {
			return nil, err
		}
	}
	// Coverage: replay the reference to see the state before each vector.
	replay, seq := &atcRef{}, uint32(0)
	return encodeAll(res, l, vs, func(v *ATCVector, cov coverage) {
		before := *replay
		before.held = append([]atcHeld(nil), replay.held...)
		before.pending = append([]atcPending(nil), replay.pending...)
		w := *v
		_ = replay.apply(&w, seq)
		seq++
		if bits.OnesCount32(v.DoneMask) >= 2 {
			cov["DONE_MULTI"]++
		}
		switch v.Op {
		case ATCLookup:
			e := v.TCEntry
			r, _ := e.Range()
			switch {
			case v.OutOK && v.Write:
				cov["LOOKUP_OK_WRITE"]++
			case v.OutOK:
				cov["LOOKUP_OK_READ"]++
			case !v.TCOK:
				cov["LOOKUP_UR"]++
			case !e.R && !e.W:
				cov["LOOKUP_NO_ACCESS"]++
			case v.Write:
				cov["LOOKUP_NO_WRITE"]++
			default:
				cov["LOOKUP_NO_READ"]++
			}
			if v.OutOK && r.Log2 > prm.ATSPageShift {
				cov["LOOKUP_OK_LARGE"]++
			}
			for _, p := range before.pending {
				if p.rng.Contains(v.Addr) && before.dyingIn(p.rng) {
					cov["LOOKUP_AFTER_HELD_INVAL"]++
					break
				}
			}
		case ATCRelease:
			cov["RELEASE"]++
			if v.DoneMask != 0 {
				cov["RELEASE_COMPLETES"]++
			}
		case ATCInval:
			rg, _ := v.InvBody.Range()
			switch {
			case v.DoneMask&(1<<v.ITag) != 0:
				cov["INVAL_AT_ONCE"]++
			case before.heldIn(rg):
				cov["INVAL_HELD"]++
			default:
				cov["INVAL_BEHIND"]++
			}
			for _, g := range world.regions {
				if rg.Contains(g.base) && rg.Log2 > g.log {
					cov["INVAL_WIDE"]++
					break
				}
			}
		}
	})
}

// heldIn reports whether a held result's translation meets r.
func (a *atcRef) heldIn(r prm.ATSRange) bool {
	for _, h := range a.held {
		if h.rng.Overlaps(r) {
			return true
		}
	}
	return false
}

// atcPorts is the DUT's ports: the ATC's channels (rtl/atc Ports), each a
// valid and the payload's fields, named after the bus payloads' fields.
func atcPorts(l *Layout) []Port {
	ps := []Port{
		{Name: "clk", Direction: "input", Width: 1, Meaning: "clock"},
		{Name: "rst", Direction: "input", Width: 1, Meaning: "synchronous reset, active high, for the first two rising edges: no translation held, no invalidation pending"},
		{Name: "in_valid", Direction: "input", Width: 1, Meaning: "a lookup (bus.ATSLookup) is presented on in_*"},
		{Name: "in_ready", Direction: "output", Width: 1, Meaning: "the DUT takes the lookup at this rising edge"},
	}
	for _, p := range ports(l) {
		switch p.Name {
		case "tc_ok":
			ps = append(ps,
				Port{Name: "tr_valid", Direction: "output", Width: 1, Meaning: "a Translation Request (bus.TransReq) is sent at this rising edge; the harness always takes it"},
				Port{Name: "tr_id", Direction: "output", Width: 16, Meaning: "the Translation Request's ID, returned on tc_id"},
				Port{Name: "tc_valid", Direction: "input", Width: 1, Meaning: "the Translation Completion (bus.TransResp) of request tc_id is presented for one cycle, the cycle after the request"},
				Port{Name: "tc_id", Direction: "input", Width: 16, Meaning: "the ID of the request tc_* answers"})
		case "inv_itag":
			ps = append(ps,
				Port{Name: "rel_valid", Direction: "input", Width: 1, Meaning: "a release (bus.ATSRelease) is presented for one cycle: the data path gives back entry rel_entry; the DUT takes it at that rising edge"},
				Port{Name: "rel_entry", Direction: "input", Width: 16, Meaning: "the out_entry of the OK result given back"},
				Port{Name: "inv_valid", Direction: "input", Width: 1, Meaning: "an Invalidate Request (bus.ATSInval) is presented for one cycle on inv_*; the DUT takes it at that rising edge"})
		case "out_ok":
			ps = append(ps, Port{Name: "out_valid", Direction: "output", Width: 1, Meaning: "a lookup's result (bus.ATSResult) is on out_* at this rising edge (one cycle per lookup); the harness always takes it"})
		case "done_itag_vector":
			ps = append(ps,
				Port{Name: "out_entry", Direction: "output", Width: 16, Meaning: "OK result (bus.ATSResult entry): the entry the result holds until its release; the harness gives it back on rel_entry, never compares it"},
				Port{Name: "done_valid", Direction: "output", Width: 1, Meaning: "Invalidate Completions (bus.ATSInvalDone) leave at this rising edge: one bit of done_itag_vector per ITag completed"})
		}
		ps = append(ps, p)
	}
	return ps
}
