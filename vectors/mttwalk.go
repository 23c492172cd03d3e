package vectors

import (
	"fmt"
	"math/bits"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// MTTWalkVector is one step of an MTT walk (translation.md 5): the MKC
// fields the walker reads, the piece [VA, VA+Len) and the bytes T of it
// already translated, and the page the step reads.
type MTTWalkVector struct {
	StartAddr               uint64
	LogEntitySize           uint8
	TranslationsOctwordSize uint32
	MTTHandle               uint64
	VA                      uint64
	Len                     uint32
	T                       uint32
	// Expected, from ref's walk.
	Status     prm.Status // OK or TRANSLATION_RANGE
	PageIndex  uint64     // i
	EntryAddr  uint64     // mtt_handle + 8 i
	PageOffset uint32     // o
	PieceLen   uint32     // n
}

const whenOK = "exp_status == 8'd0"

func mttwalkLayout() *Layout {
	return newLayout([]Field{
		{Name: "start_addr", Width: 64, Dir: DirInput, Meaning: "MKC start_addr (S)"},
		{Name: "log_entity_size", Width: 5, Dir: DirInput, Meaning: "MKC log_entity_size: pages of P = 2^log_entity_size bytes, 12..31"},
		{Name: "translations_octword_size", Width: 32, Dir: DirInput, Meaning: "MKC translations_octword_size: the list holds 2 x this many 8-byte MTT entries (the capacity)"},
		{Name: "mtt_handle", Width: 48, Dir: DirInput, Meaning: "MKC mtt_handle: ICM address of MTT entry 0"},
		{Name: "va", Width: 64, Dir: DirInput, Meaning: "first byte V of the piece reaching the key (checks passed, V+len <= 2^64)"},
		{Name: "len", Width: 32, Dir: DirInput, Meaning: "length L of the piece, >= 1"},
		{Name: "t", Width: 32, Dir: DirInput, Meaning: "bytes of the piece already translated by earlier steps, 0 <= t < len"},
		{Name: "status", Width: 8, Dir: DirExpected, Enum: "status", Meaning: "OK, or TRANSLATION_RANGE when the page index is not below the capacity (2 x translations_octword_size)"},
		{Name: "page_index", Width: 64, Dir: DirExpected, CompareWhen: whenOK, Meaning: "i = floor(u / P), u = (S mod P) + ((V - S) mod 2^64) + t computed exactly"},
		{Name: "entry_addr", Width: 64, Dir: DirExpected, CompareWhen: whenOK, Meaning: "ICM address of MTT entry i: mtt_handle + 8 i"},
		{Name: "page_offset", Width: 32, Dir: DirExpected, CompareWhen: whenOK, Meaning: "o = u mod P: the DMA address is page_base(MTT[i]) + o"},
		{Name: "piece_len", Width: 32, Dir: DirExpected, CompareWhen: whenOK, Meaning: "n = min(len - t, P - o): bytes this step translates (the page split)"},
	})
}

func (v *MTTWalkVector) encode(l *Layout, ln Line) {
	l.set(ln, "start_addr", v.StartAddr)
	l.set(ln, "log_entity_size", uint64(v.LogEntitySize))
	l.set(ln, "translations_octword_size", uint64(v.TranslationsOctwordSize))
	l.set(ln, "mtt_handle", v.MTTHandle)
	l.set(ln, "va", v.VA)
	l.set(ln, "len", uint64(v.Len))
	l.set(ln, "t", uint64(v.T))
	l.set(ln, "status", uint64(v.Status))
	l.set(ln, "page_index", v.PageIndex)
	l.set(ln, "entry_addr", v.EntryAddr)
	l.set(ln, "page_offset", uint64(v.PageOffset))
	l.set(ln, "piece_len", uint64(v.PieceLen))
}

func decodeMTTWalk(l *Layout, ln Line) MTTWalkVector {
	return MTTWalkVector{
		StartAddr: l.Get(ln, "start_addr"), LogEntitySize: uint8(l.Get(ln, "log_entity_size")),
		TranslationsOctwordSize: uint32(l.Get(ln, "translations_octword_size")), MTTHandle: l.Get(ln, "mtt_handle"),
		VA: l.Get(ln, "va"), Len: uint32(l.Get(ln, "len")), T: uint32(l.Get(ln, "t")),
		Status: prm.Status(l.Get(ln, "status")), PageIndex: l.Get(ln, "page_index"), EntryAddr: l.Get(ln, "entry_addr"),
		PageOffset: uint32(l.Get(ln, "page_offset")), PieceLen: uint32(l.Get(ln, "piece_len")),
	}
}

// The probe's tagged MTT entries: entry i holds ptag i << tagShift, so the
// DMA address ref returns is (i << tagShift) + o and names both the entry
// ref read and the offset it added (o < 2^31 <= 2^tagShift).
const tagShift = 31

// mttPlacement is where the generator expects the step to read: used only
// to decide where to write the one tagged entry. ref does the arithmetic;
// a wrong placement makes ref fault on an unwritten entry and the
// generator fail, it cannot make a wrong expected value.
func mttPlacement(v *MTTWalkVector) (uint64, bool) {
	log := uint(v.LogEntitySize)
	b := v.StartAddr & (1<<log - 1)
	lo, c1 := bits.Add64(b, v.VA-v.StartAddr, 0)
	lo, c2 := bits.Add64(lo, uint64(v.T), 0)
	hi := c1 + c2
	if hi>>log != 0 {
		return 0, false
	}
	i := lo>>log | hi<<(64-log)
	return i, i < 2*uint64(v.TranslationsOctwordSize)
}

// oracle runs the step through ref's MTT walk and reads the expected
// values off its result. The step at t of the piece [V, V+L) is the first
// step of the piece [V+t, V+L) (the same u, since the generator keeps
// (V-S) mod 2^64 + t below 2^64, as every reachable step has it). The key
// is an ODP MTT key whose only written entry is the one the step needs,
// tagged with its index; the next step, if any, faults on an unwritten
// entry (or leaves the capacity), and the offset of that fault is n.
func (v *MTTWalkVector) oracle() error {
	m := ref.New(ref.DefaultConfig())
	m.AddQP(scenario.QP{QPN: 1, PD: 1})
	key := prm.MakeKey(1, 1)
	mkc := prm.MKC{AccessMode: prm.ModeMTT, LR: true, LW: true, RR: true, RW: true, A: true, QPN: prm.QPNNone,
		Variant: 1, PD: 1, Length64: true, StartAddr: v.StartAddr, LogEntitySize: v.LogEntitySize,
		TranslationsOctwordSize: v.TranslationsOctwordSize, MTTHandle: v.MTTHandle}
	if _, r := m.Create(scenario.MKey{Index: 1, HasIndex: true, MKC: mkc, ODP: true}); r != nil {
		return fmt.Errorf("vectors: mttwalk probe refused: %v %s", r.Status, r.Reason)
	}
	want, placed := mttPlacement(v)
	if placed {
		var e [prm.MTTEntrySize]byte
		prm.MTTEntry{PTag: want << tagShift, RdEn: true, WrEn: true}.Put(e[:])
		m.ICM().Write(v.MTTHandle+prm.MTTEntrySize*want, e[:])
	}
	req := ref.Request{QPN: 1, Key: key, Addr: v.VA + uint64(v.T), Len: v.Len - v.T, Type: prm.LocalRead}
	out := m.Translate(req, nil)
	switch {
	case out.Status == prm.TranslationRange && out.Offset == 0:
		v.Status, v.PageIndex, v.EntryAddr, v.PageOffset, v.PieceLen = prm.TranslationRange, 0, 0, 0, 0
		return nil
	case out.Status == prm.OK:
	case (out.Status == prm.PageFault || out.Status == prm.TranslationRange) && out.Offset > 0:
		req.Len = uint32(out.Offset)
		out = m.Translate(req, nil)
	}
	if out.Status != prm.OK || len(out.Segments) != 1 {
		return fmt.Errorf("vectors: mttwalk oracle: %+v gives %v at offset %d with %d segments (entry placed at %d: %v)", *v, out.Status, out.Offset, len(out.Segments), want, placed)
	}
	s := out.Segments[0]
	v.Status = prm.OK
	v.PageIndex = s.Addr >> tagShift
	v.PageOffset = uint32(s.Addr & (1<<tagShift - 1))
	v.PieceLen = uint32(s.Len)
	v.EntryAddr = v.MTTHandle + prm.MTTEntrySize*v.PageIndex
	if v.PageIndex != want {
		return fmt.Errorf("vectors: mttwalk oracle: ref read entry %d, placed %d", v.PageIndex, want)
	}
	return nil
}

// reachable reports whether step t can be reached: (V-S) mod 2^64 + t
// stays below 2^64 (a walk whose first step passed never passes it).
func (v *MTTWalkVector) reachable() bool {
	_, c := bits.Add64(v.VA-v.StartAddr, uint64(v.T), 0)
	return c == 0
}

func randMTTWalk(r *rng) MTTWalkVector {
	var v MTTWalkVector
	switch r.pick(35, 30, 10, 10, 5, 10) {
	case 0:
		v.LogEntitySize = 12
	case 1:
		v.LogEntitySize = uint8(r.rangeIn(13, 20))
	case 2:
		v.LogEntitySize = 21
	case 3:
		v.LogEntitySize = uint8(r.rangeIn(22, 29))
	case 4:
		v.LogEntitySize = 30
	default:
		v.LogEntitySize = 31 // 2 GB pages
	}
	log := uint(v.LogEntitySize)
	p := uint64(1) << log
	switch r.pick(25, 40, 15, 10, 10) {
	case 0:
		v.StartAddr = r.u64()
	case 1:
		v.StartAddr = r.bits(40) // unaligned, low
	case 2:
		v.StartAddr = r.bits(40) &^ (p - 1)
	case 3:
		v.StartAddr = -r.rangeIn(1, 1<<34) // near 2^64
	default:
		v.StartAddr = r.bits(48) | (p - 1) // the last byte of a page
	}
	switch r.pick(5, 60, 20, 15) {
	case 0:
		v.TranslationsOctwordSize = 0
	case 1:
		v.TranslationsOctwordSize = 4 * uint32(r.rangeIn(1, 16))
	case 2:
		v.TranslationsOctwordSize = 4 * uint32(r.rangeIn(1, 1<<20))
	default:
		v.TranslationsOctwordSize = 4 * uint32(r.rangeIn(1, 1<<30-1))
	}
	capacity := 2 * uint64(v.TranslationsOctwordSize)
	v.MTTHandle = ref.HandleBase + 64*r.n((1<<48-ref.HandleBase)/64-1<<30)
	b := v.StartAddr & (p - 1)
	// Aim at page i, offset o: u = i P + o, V = S + (u - b).
	var i, o uint64
	switch r.pick(40, 15, 15, 10, 5, 15) {
	case 0:
		i = r.n(max(capacity, 1))
	case 1:
		i = 0
	case 2:
		i = max(capacity, 1) - 1
	case 3:
		i = capacity
	case 4:
		i = capacity + r.rangeIn(1, 1<<20)
	default:
		i = r.n(8)
	}
	switch r.pick(40, 15, 15, 15, 15) {
	case 0:
		o = r.n(p)
	case 1:
		o = 0
	case 2:
		o = p - 1
	case 3:
		o = p - r.rangeIn(1, 64)
	default:
		o = r.n(256)
	}
	_, u := bits.Mul64(i, p)
	v.VA = v.StartAddr + (u + o - b)
	if r.pct(8) {
		// V just below S: (V-S) mod 2^64 is near 2^64 and u passes 2^64
		// when b is large enough: a walker that drops the carry finds a
		// small page index.
		v.VA = v.StartAddr - r.rangeIn(1, max(b, 1))
	}
	o = (b + (v.VA - v.StartAddr)) & (p - 1)
	switch r.pick(30, 10, 20, 30, 10) {
	case 0:
		v.Len = uint32(r.rangeIn(1, 64))
	case 1:
		v.Len = uint32(p - o) // to the end of the page
	case 2:
		v.Len = uint32(min(p-o+r.rangeIn(1, p), 1<<32-1)) // into the next page
	case 3:
		v.Len = r.len32()
	default:
		v.Len = 1<<32 - 1
	}
	if v.Len == 0 {
		v.Len = 1
	}
	if end, c := bits.Add64(v.VA, uint64(v.Len), 0); c != 0 && end != 0 {
		v.Len = uint32(-v.VA) // the piece's last byte is byte 2^64-1
	}
	if r.pct(4) { // move the piece so that its last byte is byte 2^64-1
		v.VA = -uint64(v.Len)
		o = (b + (v.VA - v.StartAddr)) & (p - 1)
	}
	switch r.pick(50, 20, 15, 15) {
	case 0:
		v.T = 0
	case 1:
		v.T = uint32(r.n(uint64(v.Len)))
	case 2:
		if first := p - o; first < uint64(v.Len) {
			v.T = uint32(first)
		}
	default:
		if first := p - o; first < uint64(v.Len) {
			k := (uint64(v.Len) - first - 1) / p
			v.T = uint32(first + p*r.n(k+1))
		}
	}
	if !v.reachable() {
		v.T = 0
	}
	return v
}

func genMTTWalk(o *Options) (*unitResult, error) {
	l := mttwalkLayout()
	res := &unitResult{
		desc:   "MTT walker address step: page index, entry address, offset in page, page split and TRANSLATION_RANGE of one step of translation.md 5 (ref's MTT walk)",
		layout: l,
		enums:  commonEnums(),
		points: append(statusPoints(prm.OK, prm.TranslationRange),
			CoveragePoint{"page_split", "OK and piece_len < len - t: the piece goes on in the next page"},
			CoveragePoint{"t_nonzero", "t > 0: a step after the first"},
			CoveragePoint{"2gb_pages", "log_entity_size = 31"},
			CoveragePoint{"last_byte_2_64", "va + len = 2^64: the piece's last byte is byte 2^64-1"},
			CoveragePoint{"va_below_start", "va < start_addr: (va - start_addr) mod 2^64 wraps, u needs 65 bits"}),
	}
	res.dut = DUT{Module: "mkeysim_mttwalk", Handshake: "combinational",
		Description: Timing("combinational") + " page_index, entry_addr, page_offset and piece_len are compared only when the expected status is OK. Page rights (rd_en/wr_en) are not part of this step.",
		Ports:       ports(l)}
	take := func(a *exampleAccess, vs []MTTWalkVector) ([]MTTWalkVector, error) {
		mk := a.checkedMKC()
		if mk == nil || mk.AccessMode != prm.ModeMTT {
			return vs, nil
		}
		out := a.m.Translate(ref.Request(a.access), nil)
		ts := []uint64{0}
		var t uint64
		for _, s := range out.Segments {
			if t += s.Len; t < uint64(a.access.Len) {
				ts = append(ts, t)
			}
		}
		if out.Status != prm.OK && out.Level == 0 && out.Offset > 0 {
			ts = append(ts, out.Offset)
		}
		for _, t := range ts {
			if len(vs) >= o.Count {
				return vs, nil
			}
			v := MTTWalkVector{StartAddr: mk.StartAddr, LogEntitySize: mk.LogEntitySize, TranslationsOctwordSize: mk.TranslationsOctwordSize,
				MTTHandle: mk.MTTHandle, VA: a.access.Addr, Len: a.access.Len, T: uint32(t)}
			if err := v.oracle(); err != nil {
				return vs, fmt.Errorf("%s op %d: %v", a.file, a.seq, err)
			}
			vs = append(vs, v)
		}
		return vs, nil
	}
	draw := func(r *rng) (MTTWalkVector, error) {
		v := randMTTWalk(r)
		return v, v.oracle()
	}
	return directedThenRandom(o, res, l, 2, take, draw, func(v *MTTWalkVector, cov coverage) {
		cov.status(v.Status)
		if v.Status == prm.OK && uint64(v.PieceLen) < uint64(v.Len-v.T) {
			cov["page_split"]++
		}
		if v.T > 0 {
			cov["t_nonzero"]++
		}
		if v.LogEntitySize == 31 {
			cov["2gb_pages"]++
		}
		if v.VA+uint64(v.Len) == 0 {
			cov["last_byte_2_64"]++
		}
		if v.VA < v.StartAddr {
			cov["va_below_start"]++
		}
	})
}
