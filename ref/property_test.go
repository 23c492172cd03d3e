package ref_test

// Properties of translation (translation.md 4-6) checked with rapid over
// generated keys: unaligned start_addr, pages of 2^12..2^21 bytes, requests
// that cross pages, addresses up to 2^64, length64, two KLM levels, cycles.
// A failure prints the seed (-rapid.seed=N) to run it again; fail files are
// not written.

import (
	"flag"
	"fmt"
	"math/big"
	"math/bits"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// noFailFile keeps rapid from writing testdata/rapid fail files into the
// package; the seed it prints is enough to reproduce a failure.
func noFailFile(t *testing.T) {
	if f := flag.Lookup("rapid.nofailfile"); f != nil {
		if err := f.Value.Set("true"); err != nil {
			t.Fatal(err)
		}
	}
}

// keySpec is a generated key, kept beside the model as the test's own
// description of it.
type keySpec struct {
	index    uint32
	variant  uint8
	mode     prm.AccessMode
	start    uint64
	klen     uint64
	len64    bool
	log      uint8
	octwords uint32
	mtt      []prm.MTTEntry
	klm      []prm.KLMEntry
	odp      bool
}

func (s *keySpec) key() prm.Key { return prm.MakeKey(s.index, s.variant) }
func (s *keySpec) P() uint64    { return uint64(1) << s.log }

func (s *keySpec) mkey() scenario.MKey {
	mkc := baseMKC(s.mode, s.variant, s.start, s.klen)
	mkc.Length64 = s.len64
	mkc.LogEntitySize = s.log
	mkc.TranslationsOctwordSize = s.octwords
	return scenario.MKey{Index: s.index, HasIndex: true, MKC: mkc, MTT: s.mtt, KLM: s.klm, PgAccess: true, ODP: s.odp}
}

// capEntries is the number of entries the capacity holds in the key's mode.
func (s *keySpec) capEntries() uint64 {
	if s.mode == prm.ModeMTT {
		return 2 * uint64(s.octwords)
	}
	return uint64(s.octwords)
}

// pages is the number of pages [start, start+klen) touches (translation.md 5).
func (s *keySpec) pages() uint64 {
	P := s.P()
	return (s.start%P + s.klen + P - 1) / P
}

var nonAtomic = []prm.AccessType{prm.LocalRead, prm.LocalWrite, prm.RemoteRead, prm.RemoteWrite}

// genMTT draws an MTT key of 1..maxPages pages: page size 2^12..2^21,
// start_addr aligned, 8-aligned, one byte short of a page or anywhere in
// it, placed low, anywhere, or with its pages ending at 2^64; length64
// sometimes. holes allows pages without rd_en or wr_en.
func genMTT(t *rapid.T, index uint32, maxPages int, holes bool) *keySpec {
	log := uint8(rapid.IntRange(12, 21).Draw(t, "log"))
	P := uint64(1) << log
	n := uint64(rapid.IntRange(1, maxPages).Draw(t, "pages"))
	var b uint64
	switch rapid.IntRange(0, 3).Draw(t, "bKind") {
	case 0:
	case 1:
		b = P - 1
	case 2:
		b = rapid.Uint64Range(0, P/8-1).Draw(t, "b8") * 8
	default:
		b = rapid.Uint64Range(1, P-1).Draw(t, "b")
	}
	span := n * P
	klen := span - b - rapid.Uint64Range(0, min(P-1, span-b-1)).Draw(t, "slack")
	maxPN := uint64(1)<<(64-log) - n
	var pn uint64
	switch rapid.IntRange(0, 2).Draw(t, "place") {
	case 0:
		pn = rapid.Uint64Range(0, 1<<16).Draw(t, "pageNo")
	case 1:
		pn = rapid.Uint64Range(0, maxPN).Draw(t, "pageNo")
	default:
		pn = maxPN // the key's pages end at 2^64
	}
	s := &keySpec{
		index: index, variant: rapid.Uint8().Draw(t, "variant"), mode: prm.ModeMTT,
		start: pn<<log + b, klen: klen, len64: rapid.IntRange(0, 3).Draw(t, "len64") == 0, log: log,
		octwords: scenario.OctwordsFor(int(n)+rapid.IntRange(0, 9).Draw(t, "extra"), 0),
	}
	for i := uint64(0); i < n; i++ {
		ptag := rapid.Uint64().Draw(t, "ptag") &^ 0xff // low bits inside the page must be ignored
		if rapid.IntRange(0, 7).Draw(t, "ptag0") == 0 {
			ptag = 0
		}
		e := prm.MTTEntry{PTag: ptag, RdEn: true, WrEn: true}
		if holes {
			e.RdEn = rapid.IntRange(0, 4).Draw(t, "rd") != 0
			e.WrEn = rapid.IntRange(0, 4).Draw(t, "wr") != 0
		}
		s.mtt = append(s.mtt, e)
	}
	return s
}

// genReq draws [v, v+l) for s, l <= maxLen: inside the key, crossing a page
// boundary, ending at the key's end, or (wild) anywhere near the key.
func genReq(t *rapid.T, s *keySpec, maxLen uint64, wild bool) (uint64, uint64) {
	maxLen = min(maxLen, 1<<32-1)
	kinds := 3
	if wild {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "reqKind") {
	case 1:
		if s.mode == prm.ModeMTT && s.pages() >= 2 {
			P, b := s.P(), s.start%s.P()
			j := rapid.Uint64Range(1, s.pages()-1).Draw(t, "boundary")
			boundary := s.start - b + j*P
			before := rapid.Uint64Range(1, min(boundary-s.start, maxLen-1)).Draw(t, "before")
			after := rapid.Uint64Range(1, min(s.start+s.klen-boundary, maxLen-before)).Draw(t, "after")
			return boundary - before, before + after
		}
		fallthrough
	case 0:
		off := rapid.Uint64Range(0, s.klen-1).Draw(t, "off")
		return s.start + off, rapid.Uint64Range(1, min(maxLen, s.klen-off)).Draw(t, "len")
	case 2:
		l := rapid.Uint64Range(1, min(maxLen, s.klen)).Draw(t, "len")
		return s.start + s.klen - l, l
	default:
		slop := uint64(1) << 22
		return s.start - slop + rapid.Uint64Range(0, s.klen+2*slop).Draw(t, "wildOff"), rapid.Uint64Range(1, maxLen).Draw(t, "len")
	}
}

// inRange is the range check of translation.md 4.7 in exact arithmetic.
func (s *keySpec) inRange(v, l uint64) bool {
	V, L := new(big.Int).SetUint64(v), new(big.Int).SetUint64(l)
	end := new(big.Int).Add(V, L)
	if end.Cmp(new(big.Int).Lsh(big.NewInt(1), 64)) > 0 {
		return false
	}
	if s.len64 {
		return true
	}
	lim := new(big.Int).Add(new(big.Int).SetUint64(s.start), new(big.Int).SetUint64(s.klen))
	return v >= s.start && end.Cmp(lim) <= 0
}

// page returns the MTT page index and offset of byte k of a request at v:
// u = (S mod P) + (v - S mod 2^64) + k, exactly; i = u / P, o = u mod P.
func (s *keySpec) page(v, k uint64) (i, o uint64) {
	lo, c1 := bits.Add64(s.start%s.P(), v-s.start, 0)
	lo, c2 := bits.Add64(lo, k, 0)
	return bits.Div64(c1+c2, lo, s.P())
}

func (s *keySpec) entry(i uint64) prm.MTTEntry {
	if i < uint64(len(s.mtt)) {
		return s.mtt[i]
	}
	return prm.MTTEntry{} // inside the capacity, never written
}

// expectMTT is the outcome a level-0 request on the single MTT key s must
// have, found byte by byte; dmaOf gives byte k's address when it is OK.
func (s *keySpec) expectMTT(v, l uint64, typ prm.AccessType) ref.Outcome {
	if !s.inRange(v, l) {
		return failOut(prm.OutOfRange, 0, 0)
	}
	if typ == prm.RemoteAtomic && (l != 8 || v%8 != 0) {
		return failOut(prm.MisalignedAtomic, 0, 0)
	}
	for k := uint64(0); k < l; k++ {
		i, _ := s.page(v, k)
		if i >= s.capEntries() {
			return failOut(prm.TranslationRange, 0, k)
		}
		if !typ.PageAllows(s.entry(i)) {
			if s.odp {
				return ref.Outcome{Status: prm.PageFault, Offset: k, FaultKey: s.key(), FaultAddr: v + k}
			}
			return failOut(prm.PageAccess, 0, k)
		}
	}
	return ref.Outcome{Status: prm.OK}
}

func (s *keySpec) dmaOf(v, k uint64) uint64 {
	i, o := s.page(v, k)
	return s.entry(i).PageBase(s.log) + o
}

func showSpec(s *keySpec) string {
	return fmt.Sprintf("key %v mode %v start %#x len %#x len64 %v log %d octwords %d mtt %d klm %d odp %v",
		s.key(), s.mode, s.start, s.klen, s.len64, s.log, s.octwords, len(s.mtt), len(s.klm), s.odp)
}

// TestPropMTTBytewise: an MTT translation equals a byte-by-byte walk of the
// pages: byte k of the request lies at page_base(MTT[floor((S mod P + V - S
// + k) / P)]) + that sum mod P, and a failure is the first byte's.
func TestPropMTTBytewise(t *testing.T) {
	noFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		s := genMTT(t, 7, 12, rapid.Bool().Draw(t, "holes"))
		s.odp = rapid.Bool().Draw(t, "odp")
		m := newModel(ref.DefaultConfig())
		mustCreate(t, m, s.mkey())
		for r := 0; r < 8; r++ {
			v, l := genReq(t, s, 1<<18, true)
			typ := rapid.SampledFrom(prm.AccessTypes()).Draw(t, "type")
			got := m.Translate(ref.Request{QPN: qpA, Key: s.key(), Addr: v, Len: uint32(l), Type: typ}, nil)
			want := s.expectMTT(v, l, typ)
			if want.Status != prm.OK {
				if !sameOutcome(got, want) {
					t.Fatalf("%s\nrequest %#x+%#x %v:\n got  %s\n want %s", showSpec(s), v, l, typ, showOutcome(got), showOutcome(want))
				}
				continue
			}
			if got.Status != prm.OK {
				t.Fatalf("%s\nrequest %#x+%#x %v: got %s, want OK", showSpec(s), v, l, typ, showOutcome(got))
			}
			k := uint64(0)
			for si, seg := range got.Segments {
				if seg.Space != prm.SpaceDMA {
					t.Fatalf("segment %d in space %v", si, seg.Space)
				}
				for j := uint64(0); j < seg.Len && k < l; j, k = j+1, k+1 {
					if w := s.dmaOf(v, k); seg.Addr+j != w {
						t.Fatalf("%s\nrequest %#x+%#x: byte %d is at %#x (segment %d), want %#x\n%s",
							showSpec(s), v, l, k, seg.Addr+j, si, w, showOutcome(got))
					}
				}
			}
			if k != l {
				t.Fatalf("segments cover %d bytes of %d", k, l)
			}
		}
	})
}

// run is a maximal stretch of consecutive byte addresses: two segment lists
// that put every byte at the same address flatten to the same runs.
type run struct {
	space prm.Space
	addr  uint64
	n     uint64
}

func flatten(lists ...[]prm.Segment) []run {
	var out []run
	for _, segs := range lists {
		for _, s := range segs {
			if k := len(out) - 1; k >= 0 && out[k].space == s.Space && out[k].addr+out[k].n == s.Addr {
				out[k].n += s.Len
				continue
			}
			out = append(out, run{s.Space, s.Addr, s.Len})
		}
	}
	return out
}

// checkSplit translates [v, v+l) whole and as [v, v+h) and [v+h, v+l): the
// whole passes exactly when both halves do, and then every byte lies at the
// same address. It returns the whole's outcome.
func checkSplit(t *rapid.T, m *ref.Model, key prm.Key, v, l, h uint64, typ prm.AccessType) ref.Outcome {
	req := func(a, n uint64) ref.Request {
		return ref.Request{QPN: qpA, Key: key, Addr: a, Len: uint32(n), Type: typ}
	}
	whole := m.Translate(req(v, l), nil)
	a := m.Translate(req(v, h), nil)
	b := m.Translate(req(v+h, l-h), nil)
	okWhole, okHalves := whole.Status == prm.OK, a.Status == prm.OK && b.Status == prm.OK
	if okWhole != okHalves {
		t.Fatalf("request %#x+%#x split at %#x %v:\n whole %s\n first %s\n second %s",
			v, l, h, typ, showOutcome(whole), showOutcome(a), showOutcome(b))
	}
	if okWhole {
		if fw, fh := flatten(whole.Segments), flatten(a.Segments, b.Segments); !reflect.DeepEqual(fw, fh) {
			t.Fatalf("request %#x+%#x split at %#x: bytes differ:\n whole  %v\n halves %v", v, l, h, fw, fh)
		}
	}
	return whole
}

// TestPropSplitMTT: a request split in two yields the same bytes as the
// whole, on one MTT key (with holes, ODP and wild addresses).
func TestPropSplitMTT(t *testing.T) {
	noFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		s := genMTT(t, 7, 12, rapid.Bool().Draw(t, "holes"))
		m := newModel(ref.DefaultConfig())
		mustCreate(t, m, s.mkey())
		for r := 0; r < 8; r++ {
			v, l := genReq(t, s, 1<<24, true)
			if l < 2 {
				continue
			}
			h := rapid.Uint64Range(1, l-1).Draw(t, "h")
			checkSplit(t, m, s.key(), v, l, h, rapid.SampledFrom(nonAtomic).Draw(t, "type"))
		}
	})
}

// world is a generated set of keys: MTT keys at the bottom, a middle level
// of KLM or Fixed Buffer Size keys over them, and a KLM key on top over
// both.
type world struct {
	keys map[uint32]*keySpec
	mtts []*keySpec
	mids []*keySpec
	top  *keySpec
	all  []*keySpec
}

func (w *world) add(s *keySpec) *keySpec {
	if w.keys == nil {
		w.keys = map[uint32]*keySpec{}
	}
	w.keys[s.index] = s
	w.all = append(w.all, s)
	return s
}

func (w *world) create(t *rapid.T, m *ref.Model) {
	for _, s := range w.all {
		mustCreate(t, m, s.mkey())
	}
}

// genKLMStart places a KLM key of length klen low, anywhere, or ending at
// or just below 2^64.
func genKLMStart(t *rapid.T, klen uint64) uint64 {
	switch rapid.IntRange(0, 2).Draw(t, "klmPlace") {
	case 0:
		return rapid.Uint64Range(0, 1<<32).Draw(t, "klmStart")
	case 1:
		return rapid.Uint64Range(0, -klen).Draw(t, "klmStart")
	default:
		return -klen - rapid.Uint64Range(0, min(64, -klen)).Draw(t, "klmGap")
	}
}

// entryInto is a KLM entry covering part of tgt's range (byte_count 0
// sometimes).
func entryInto(t *rapid.T, tgt *keySpec, maxBC uint64) prm.KLMEntry {
	off := rapid.Uint64Range(0, tgt.klen-1).Draw(t, "entryOff")
	bc := rapid.Uint64Range(1, min(tgt.klen-off, maxBC)).Draw(t, "bc")
	if rapid.IntRange(0, 6).Draw(t, "bc0") == 0 {
		bc = 0
	}
	return prm.KLMEntry{ByteCount: uint32(bc), MKey: tgt.key(), Address: tgt.start + off}
}

// genKLM is a variable KLM key at index over targets, its length the sum
// of its byte counts, so that every request inside it translates.
func genKLM(t *rapid.T, index uint32, targets []*keySpec) *keySpec {
	n := rapid.IntRange(1, 6).Draw(t, "klmEntries")
	s := &keySpec{index: index, variant: rapid.Uint8().Draw(t, "variant"), mode: prm.ModeKLM}
	for i := 0; i < n; i++ {
		tgt := targets[rapid.IntRange(0, len(targets)-1).Draw(t, "target")]
		e := entryInto(t, tgt, 1<<20)
		if i == n-1 && s.klen == 0 && e.ByteCount == 0 {
			e.ByteCount = 1
		}
		s.klm = append(s.klm, e)
		s.klen += uint64(e.ByteCount)
	}
	s.start = genKLMStart(t, s.klen)
	s.octwords = scenario.OctwordsFor(0, n+rapid.IntRange(0, 3).Draw(t, "extra"))
	return s
}

// genFBS is a Fixed Buffer Size key over the targets at least one entry
// long, or nil if none is.
func genFBS(t *rapid.T, index uint32, targets []*keySpec) *keySpec {
	log := uint8(rapid.IntRange(12, 14).Draw(t, "fbsLog"))
	B := uint64(1) << log
	var ok []*keySpec
	for _, x := range targets {
		if x.klen >= B {
			ok = append(ok, x)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	n := rapid.IntRange(1, 6).Draw(t, "fbsEntries")
	s := &keySpec{index: index, variant: rapid.Uint8().Draw(t, "variant"), mode: prm.ModeFixedBufferSize, log: log}
	for i := 0; i < n; i++ {
		tgt := ok[rapid.IntRange(0, len(ok)-1).Draw(t, "target")]
		off := rapid.Uint64Range(0, tgt.klen-B).Draw(t, "entryOff")
		// byte_count is reserved in this mode: any value must be ignored.
		s.klm = append(s.klm, prm.KLMEntry{ByteCount: rapid.Uint32().Draw(t, "junkBC"), MKey: tgt.key(), Address: tgt.start + off})
	}
	s.klen = rapid.Uint64Range(1, uint64(n)*B).Draw(t, "fbsLen")
	s.start = genKLMStart(t, s.klen)
	s.octwords = scenario.OctwordsFor(0, n+rapid.IntRange(0, 3).Draw(t, "extra"))
	return s
}

// genWorld draws a clean two-level world: every request inside the top key
// translates.
func genWorld(t *rapid.T) *world {
	w := &world{}
	nm := rapid.IntRange(1, 3).Draw(t, "mtts")
	for i := 0; i < nm; i++ {
		s := genMTT(t, uint32(10+i), 6, false)
		s.len64 = false
		w.mtts = append(w.mtts, w.add(s))
	}
	nmid := rapid.IntRange(1, 2).Draw(t, "mids")
	for i := 0; i < nmid; i++ {
		var s *keySpec
		if rapid.Bool().Draw(t, "fbs") {
			s = genFBS(t, uint32(20+i), w.mtts)
		}
		if s == nil {
			s = genKLM(t, uint32(20+i), w.mtts)
		}
		w.mids = append(w.mids, w.add(s))
	}
	targets := append(append([]*keySpec(nil), w.mids...), w.mtts...)
	w.top = w.add(genKLM(t, 30, targets))
	return w
}

// TestPropSplitKLM: the same through two KLM levels (top KLM over KLM or
// Fixed Buffer Size over MTT): every request inside the top key passes,
// and its halves put every byte at the same address.
func TestPropSplitKLM(t *testing.T) {
	noFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		m := newModel(ref.DefaultConfig())
		w.create(t, m)
		for r := 0; r < 8; r++ {
			v, l := genReq(t, w.top, 1<<22, false)
			if l < 2 {
				continue
			}
			h := rapid.Uint64Range(1, l-1).Draw(t, "h")
			out := checkSplit(t, m, w.top.key(), v, l, h, rapid.SampledFrom(nonAtomic).Draw(t, "type"))
			if out.Status != prm.OK {
				t.Fatalf("%s\nrequest %#x+%#x inside a clean world: %s", showSpec(w.top), v, l, showOutcome(out))
			}
		}
	})
}

// expectSegs is the translation of [v, v+l) of s in a clean world, by the
// formulas of translation.md 5 and 6: one segment per MTT page and per KLM
// entry piece.
func (w *world) expectSegs(s *keySpec, v, l uint64, out []prm.Segment) []prm.Segment {
	d := v - s.start
	switch s.mode {
	case prm.ModeMTT:
		for k := uint64(0); k < l; {
			i, o := s.page(v, k)
			n := min(l-k, s.P()-o)
			out = append(out, dma(s.entry(i).PageBase(s.log)+o, n))
			k += n
		}
	case prm.ModeKLM:
		T, pos, rem := uint64(0), d, l
		for _, e := range s.klm {
			bc := uint64(e.ByteCount)
			if rem > 0 && pos >= T && pos < T+bc {
				n := min(rem, T+bc-pos)
				out = w.expectSegs(w.keys[e.MKey.Index()], e.Address+(pos-T), n, out)
				pos, rem = pos+n, rem-n
			}
			T += bc
		}
	case prm.ModeFixedBufferSize:
		B := s.P()
		for pos, rem := d, l; rem > 0; {
			e := s.klm[pos/B]
			n := min(rem, B-pos%B)
			out = w.expectSegs(w.keys[e.MKey.Index()], e.Address+pos%B, n, out)
			pos, rem = pos+n, rem-n
		}
	}
	return out
}

// TestPropSegmentCount: segment lengths sum to the request length, and there
// is one segment per MTT page touched (per KLM entry piece below a KLM):
// on single MTT keys, and through two levels.
func TestPropSegmentCount(t *testing.T) {
	noFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		var w *world
		var s *keySpec
		if rapid.Bool().Draw(t, "klm") {
			w = genWorld(t)
			s = w.top
		} else {
			w = &world{}
			s = w.add(genMTT(t, 7, 12, false))
		}
		m := newModel(ref.DefaultConfig())
		w.create(t, m)
		for r := 0; r < 8; r++ {
			v, l := genReq(t, s, 1<<32-1, false)
			typ := rapid.SampledFrom(nonAtomic).Draw(t, "type")
			out := m.Translate(ref.Request{QPN: qpA, Key: s.key(), Addr: v, Len: uint32(l), Type: typ}, nil)
			if out.Status != prm.OK {
				t.Fatalf("%s\nrequest %#x+%#x: %s", showSpec(s), v, l, showOutcome(out))
			}
			sum := uint64(0)
			for _, seg := range out.Segments {
				if seg.Len == 0 {
					t.Fatalf("empty segment in %s", showOutcome(out))
				}
				sum += seg.Len
			}
			if sum != l {
				t.Fatalf("request %#x+%#x: segments sum to %#x", v, l, sum)
			}
			if s.mode == prm.ModeMTT {
				i0, _ := s.page(v, 0)
				i1, _ := s.page(v, l-1)
				if uint64(len(out.Segments)) != i1-i0+1 {
					t.Fatalf("%s\nrequest %#x+%#x touches pages %d..%d, got %d segments", showSpec(s), v, l, i0, i1, len(out.Segments))
				}
			}
			want := w.expectSegs(s, v, l, nil)
			if len(out.Segments) != len(want) {
				t.Fatalf("%s\nrequest %#x+%#x: %d segments, want %d (pages and entry pieces touched)\n got  %v\n want %v",
					showSpec(s), v, l, len(out.Segments), len(want), out.Segments, want)
			}
			if !reflect.DeepEqual(out.Segments, want) {
				t.Fatalf("request %#x+%#x:\n got  %v\n want %v", v, l, out.Segments, want)
			}
		}
	})
}

// genWildWorld draws keys that refer to each other at random: MTT keys with
// holes and ODP, KLM and Fixed Buffer Size keys whose entries name any key
// (cycles included), a wrong variant, or no key, at any address.
func genWildWorld(t *rapid.T) *world {
	w := &world{}
	base := uint32(rapid.IntRange(0, 1).Draw(t, "base")) // index 0 sometimes exists
	nm := rapid.IntRange(1, 3).Draw(t, "mtts")
	for i := 0; i < nm; i++ {
		s := genMTT(t, base+uint32(i), 6, true)
		s.odp = rapid.Bool().Draw(t, "odp")
		w.mtts = append(w.mtts, w.add(s))
	}
	nk := rapid.IntRange(1, 4).Draw(t, "klms")
	for i := 0; i < nk; i++ {
		mode := prm.ModeKLM
		if rapid.Bool().Draw(t, "fbs") {
			mode = prm.ModeFixedBufferSize
		}
		s := &keySpec{index: base + uint32(nm+i), variant: rapid.Uint8().Draw(t, "variant"), mode: mode}
		if mode == prm.ModeFixedBufferSize {
			s.log = uint8(rapid.IntRange(12, 14).Draw(t, "fbsLog"))
		}
		s.klen = rapid.Uint64Range(1, 1<<18).Draw(t, "klen")
		s.start = genKLMStart(t, s.klen)
		s.len64 = rapid.IntRange(0, 3).Draw(t, "len64") == 0
		w.add(s)
	}
	for _, s := range w.all[nm:] {
		n := rapid.IntRange(1, 6).Draw(t, "entries")
		for i := 0; i < n; i++ {
			s.klm = append(s.klm, wildEntry(t, w))
		}
		s.octwords = scenario.OctwordsFor(0, n+rapid.IntRange(0, 3).Draw(t, "extra"))
	}
	return w
}

func wildEntry(t *rapid.T, w *world) prm.KLMEntry {
	tgt := w.all[rapid.IntRange(0, len(w.all)-1).Draw(t, "target")]
	e := prm.KLMEntry{MKey: tgt.key(), Address: tgt.start + rapid.Uint64Range(0, tgt.klen-1).Draw(t, "entryOff")}
	switch rapid.IntRange(0, 9).Draw(t, "entryKind") {
	case 0:
		e.MKey = prm.MakeKey(999, 1)
	case 1:
		e.MKey ^= 1
	case 2:
		e.Address = rapid.Uint64().Draw(t, "addr")
	}
	if rapid.IntRange(0, 4).Draw(t, "bc0") != 0 {
		e.ByteCount = uint32(rapid.Uint64Range(1, 1<<16).Draw(t, "bc"))
	}
	return e
}

// page is one MTT page a key can reach.
type reachPage struct {
	base, size uint64
	e          prm.MTTEntry
}

// reachable lists the MTT pages of every MTT key reachable from index
// through KLM and Fixed Buffer Size entries, as the model holds them now.
func reachable(m *ref.Model, index uint32) []reachPage {
	var out []reachPage
	seen := map[uint32]bool{}
	queue := []uint32{index}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if seen[i] {
			continue
		}
		seen[i] = true
		q, r := m.Query(i)
		if r != nil {
			continue
		}
		switch {
		case q.MKC.AccessMode == prm.ModeMTT:
			for _, e := range mttOf(q) {
				out = append(out, reachPage{e.PageBase(q.MKC.LogEntitySize), uint64(1) << q.MKC.LogEntitySize, e})
			}
		case q.MKC.AccessMode.UsesKLMList():
			for _, e := range klmOf(q) {
				queue = append(queue, e.MKey.Index())
			}
		}
	}
	return out
}

// TestPropNoStrayDMA: no access ever yields a DMA address outside the pages
// of the MTT entries reachable from its key (through KLM and Fixed Buffer
// Size too), and never in a page whose entry lacks the bit it needs; also
// after UMRs rewrite lists.
func TestPropNoStrayDMA(t *testing.T) {
	noFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		w := genWildWorld(t)
		m := newModel(ref.DefaultConfig())
		w.create(t, m)
		nu := rapid.IntRange(0, 3).Draw(t, "umrs")
		for i := 0; i < nu; i++ {
			s := w.all[rapid.IntRange(0, len(w.all)-1).Draw(t, "umrTarget")]
			u := scenario.UMR{QPN: qpU, Key: s.key(), Offset: 4 * uint64(rapid.IntRange(0, int(s.octwords/4)).Draw(t, "chunk"))}
			if s.mode == prm.ModeMTT {
				u.MTT = genMTT(t, 0, 8, true).mtt
			} else {
				n := rapid.IntRange(1, 4).Draw(t, "umrEntries")
				for j := 0; j < n; j++ {
					u.KLM = append(u.KLM, wildEntry(t, w))
				}
			}
			m.UMR(u) // may be refused (capacity): that changes nothing
		}
		for r := 0; r < 8; r++ {
			s := w.all[rapid.IntRange(0, len(w.all)-1).Draw(t, "reqKey")]
			v, l := genReq(t, s, 1<<20, true)
			typ := rapid.SampledFrom(prm.AccessTypes()).Draw(t, "type")
			if typ == prm.RemoteAtomic && rapid.Bool().Draw(t, "atomic8") {
				v, l = v&^7, 8
			}
			out := m.Translate(ref.Request{QPN: qpA, Key: s.key(), Addr: v, Len: uint32(l), Type: typ}, nil)
			if out.Status != prm.OK {
				continue
			}
			pages := reachable(m, s.index)
			for _, seg := range out.Segments {
				if seg.Space != prm.SpaceDMA {
					t.Fatalf("segment in space %v", seg.Space)
				}
				found := false
				for _, p := range pages {
					if seg.Addr >= p.base && seg.Addr-p.base < p.size && seg.Len <= p.size-(seg.Addr-p.base) && typ.PageAllows(p.e) {
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("%s\nrequest %#x+%#x %v: segment %#x+%#x lies in no reachable page that allows it\n%s",
						showSpec(s), v, l, typ, seg.Addr, seg.Len, showOutcome(out))
				}
			}
		}
	})
}

// TestPropUMREqualsCreate: writing a state by UMR (the list in 64-byte
// chunks in any order, some written twice, then one UMR with every mask bit
// and an image whose unmasked fields are junk) equals creating that state
// directly: the same QUERY_MKEY output and the same translations.
func TestPropUMREqualsCreate(t *testing.T) {
	noFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		lowers := []*keySpec{genMTT(t, 1, 4, true), genMTT(t, 2, 4, true)}
		var target *keySpec
		switch rapid.IntRange(0, 2).Draw(t, "mode") {
		case 0:
			target = genMTT(t, 50, 10, true)
		case 1:
			target = genFBS(t, 50, lowers)
		}
		if target == nil {
			target = genKLM(t, 50, lowers)
		}
		target.len64 = rapid.IntRange(0, 3).Draw(t, "len64") == 0
		want := target.mkey()
		mkc := &want.MKC
		mkc.Free = rapid.IntRange(0, 3).Draw(t, "free") == 0
		mkc.LR = !mkc.Free || rapid.Bool().Draw(t, "lr")
		mkc.LW, mkc.RR = rapid.Bool().Draw(t, "lw"), rapid.Bool().Draw(t, "rr")
		mkc.RW, mkc.A = rapid.Bool().Draw(t, "rw"), rapid.Bool().Draw(t, "a")
		mkc.EnRinval = rapid.Bool().Draw(t, "en_rinval")
		mkc.PD = rapid.SampledFrom([]uint32{pdA, pdB}).Draw(t, "pd")
		mkc.QPN = rapid.SampledFrom([]uint32{prm.QPNNone, qpA}).Draw(t, "qpn")
		mkc.GenerationCounter = rapid.Uint16().Draw(t, "gen")

		// The object as first created for the UMR path: free, no list, every
		// field a UMR can set holding something else.
		junk := *mkc
		junk.Free = true
		junk.Variant = rapid.Uint8().Draw(t, "junkVariant")
		junk.StartAddr, junk.Len = rapid.Uint64().Draw(t, "junkStart"), rapid.Uint64().Draw(t, "junkLen")
		junk.Length64 = rapid.Bool().Draw(t, "junkLen64")
		junk.AccessMode = prm.AccessMode(rapid.IntRange(0, 5).Draw(t, "junkMode"))
		junk.LogEntitySize = uint8(rapid.IntRange(12, 31).Draw(t, "junkLog"))
		junk.PD = rapid.SampledFrom([]uint32{pdA, pdB}).Draw(t, "junkPD")
		junk.EnRinval = rapid.Bool().Draw(t, "junkRinval")
		junk.LR, junk.LW, junk.RR = rapid.Bool().Draw(t, "jlr"), rapid.Bool().Draw(t, "jlw"), rapid.Bool().Draw(t, "jrr")
		junk.RW, junk.A = rapid.Bool().Draw(t, "jrw"), rapid.Bool().Draw(t, "ja")
		junk.GenerationCounter = rapid.Uint16().Draw(t, "junkGen")
		sq := uint32(qpU)
		if junk.PD == pdB {
			sq = qpU6
		}
		junk.QPN = rapid.SampledFrom([]uint32{prm.QPNNone, sq}).Draw(t, "junkQPN")

		direct, viaUMR := newModel(ref.DefaultConfig()), newModel(ref.DefaultConfig())
		for _, m := range []*ref.Model{direct, viaUMR} {
			for _, s := range lowers {
				mustCreate(t, m, s.mkey())
			}
		}
		mustCreate(t, direct, want)
		mustCreate(t, viaUMR, scenario.MKey{Index: want.Index, HasIndex: true, MKC: junk, PgAccess: true})
		key := prm.MakeKey(want.Index, junk.Variant)

		// The list in 64-byte chunks.
		per := 8
		n := len(want.MTT)
		if want.KLM != nil {
			per, n = 4, len(want.KLM)
		}
		chunk := func(c int) (mtt []prm.MTTEntry, klm []prm.KLMEntry) {
			hi := min(n, (c+1)*per)
			if want.MTT != nil {
				return want.MTT[c*per : hi], nil
			}
			return nil, want.KLM[c*per : hi]
		}
		nChunks := (n + per - 1) / per
		order := rapid.Permutation(rangeInts(nChunks)).Draw(t, "order")
		umr := func(u scenario.UMR) {
			u.QPN, u.Key, u.CheckFree = sq, key, prm.CheckFreeIfFree
			if r := viaUMR.UMR(u); r != nil {
				t.Fatalf("UMR %+v: %v %s", u, r.Status, r.Reason)
			}
		}
		modeOnly := prm.MKC{AccessMode: want.MKC.AccessMode}
		for i, c := range order {
			if rapid.IntRange(0, 3).Draw(t, "junkFirst") == 0 {
				// Junk first, overwritten below.
				u := scenario.UMR{Mask: prm.MaskAccessMode, Image: modeOnly, Offset: uint64(4 * c)}
				if want.MTT != nil {
					u.MTT = genMTT(t, 0, per, true).mtt
				} else {
					u.KLM = []prm.KLMEntry{{ByteCount: 77, MKey: 0x1234, Address: 0x99}}
				}
				umr(u)
			}
			if i == len(order)-1 {
				break // the last chunk rides on the final UMR
			}
			u := scenario.UMR{Mask: prm.MaskAccessMode, Image: modeOnly, Offset: uint64(4 * c)}
			u.MTT, u.KLM = chunk(c)
			umr(u)
		}
		final := scenario.UMR{Mask: prm.MaskHonoured, Image: want.MKC}
		if rapid.Bool().Draw(t, "extraMaskBits") {
			final.Mask |= prm.MKeyMask(rapid.Uint64().Draw(t, "extraBits")) &^ prm.MaskHonoured
		}
		img := &final.Image
		img.TranslationsOctwordSize = rapid.Uint32().Draw(t, "imgOctwords")
		img.MTTHandle = rapid.Uint64Range(0, 1<<48-1).Draw(t, "imgHandle")
		img.UMREn = rapid.Bool().Draw(t, "imgUMREn")
		img.SF = uint8(rapid.IntRange(0, 15).Draw(t, "imgSF"))
		img.PASID = uint32(rapid.IntRange(0, 1<<24-1).Draw(t, "imgPASID"))
		img.BSFEn, img.TunneledAtomic = rapid.Bool().Draw(t, "imgBSF"), rapid.Bool().Draw(t, "imgTA")
		if nChunks > 0 {
			c := order[len(order)-1]
			final.Offset = uint64(4 * c)
			final.MTT, final.KLM = chunk(c)
		}
		umr(final)

		qd, r1 := direct.Query(want.Index)
		qu, r2 := viaUMR.Query(want.Index)
		if r1 != nil || r2 != nil {
			t.Fatalf("query: %v %v", r1, r2)
		}
		if !sameQuery(qd, qu) {
			t.Fatalf("QUERY_MKEY differs:\n created %s %+v %+v\n by UMR  %s %+v %+v", qd.MKC.Hex(), mttOf(qd), klmOf(qd), qu.MKC.Hex(), mttOf(qu), klmOf(qu))
		}
		tgt := want.MKC
		ts := &keySpec{start: tgt.StartAddr, klen: tgt.Len, mode: tgt.AccessMode, log: tgt.LogEntitySize}
		if ts.klen == 0 {
			ts.klen = 1
		}
		for r := 0; r < 8; r++ {
			v, l := genReq(t, ts, 1<<20, true)
			req := ref.Request{
				QPN:  rapid.SampledFrom([]uint32{qpA, qpB, qpU}).Draw(t, "qp"),
				Key:  prm.MakeKey(want.Index, tgt.Variant),
				Addr: v, Len: uint32(l), Type: rapid.SampledFrom(prm.AccessTypes()).Draw(t, "type"),
			}
			if rapid.IntRange(0, 5).Draw(t, "lowerReq") == 0 {
				req.Key = lowers[rapid.IntRange(0, 1).Draw(t, "lower")].key()
			}
			a, b := direct.Translate(req, nil), viaUMR.Translate(req, nil)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("request %+v:\n created %s\n by UMR  %s", req, showOutcome(a), showOutcome(b))
			}
		}
	})
}

func rangeInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
