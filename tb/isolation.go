package tb

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// Isolation is an oracle for the isolation rules of translation.md, written
// from the spec and sharing no code with either model: not ref's
// translation or command code, not prm's rights table, mask application
// or entry decoding (it uses prm for its types, constants and the split of
// a key into index and variant), so that a bug in code both models share
// is caught too. It keeps its own shadow of what the commands it sees
// create and change: the QPs, every created object's MKC and ODP flag, the
// translation lists as 8-byte words, the list allocator, the accesses
// stalled on page faults and the keys that died. With overlapping
// invalidation it also accepts the denials that in-flight ordering allows
// (see Overlap).
//
// Apply runs one operation on the shadow and returns the result the spec
// requires (a generator uses it to know the state it attacks); Check runs
// it and judges a model's result line against it, naming the rule broken:
//
//   - An access that returns OK is granted only if every key on the way,
//     from the level-0 key down every KLM / Fixed Buffer Size entry the
//     bytes go through, exists, has the variant of the key that names it,
//     is not free, has the requesting QP's PD, is unbound or bound to the
//     requesting QPN, covers the bytes, grants the access type's right and
//     has a usable mode, within the depth limit; and each returned segment
//     is, in request order, exactly the page piece (page_base(entry) +
//     offset, in a page whose rd_en/wr_en the access needs) or the PA /
//     SW_ICM / MEMIC range those bytes reach. Anything else is an
//     isolation violation.
//   - A key that was live and then was invalidated (LOCAL_INVALIDATE,
//     SEND_WITH_INVALIDATE), freed by UMR, given a new variant or
//     destroyed is dead until the same full key is live again: an access
//     with it must fail at level 0 with BAD_KEY_INDEX, KEY_MISMATCH or
//     MKEY_FREE at offset 0.
//   - A failing access fails with the status, level and offset (fault key
//     and address for PAGE_FAULT) of the first rule its depth-first walk
//     breaks; a command is accepted or refused as section 3.2 says (a
//     UMR, invalidation or create accepted against the rules is an
//     isolation violation too); a QUERY_MKEY shows the shadow's MKC and
//     list words.
//
// Its simplifications: lists are a map of words, KLM entries are searched
// from the first one, and it never needs the sparse-memory tricks the
// models use for huge capacities (a generator feeding it keeps
// capacities small; a capacity of billions of entries would be slow, not
// wrong).
type Isolation struct {
	MaxIndirection int

	qps        map[uint32]scenario.QP
	objs       map[uint32]*isoObj
	words      map[uint64]uint64 // list bytes: the 8 bytes at an 8-aligned address, big-endian
	nextHandle uint64
	stalled    []isoStall
	dead       map[prm.Key]string // dead key: what killed it

	// With overlapping invalidation (rtl.Config.OverlapInvalidate), an
	// access may meet the free=1 of an invalidation that comes after it in
	// the scenario but overtook it: see Overlap.
	overlap  bool
	ops      []scenario.Op
	invalOK  []bool       // overlap: which invalidations succeed
	excused  map[int]bool // seqs whose result is a legal overlap outcome
	diverged map[prm.Key]bool

	// Counts counts what the oracle saw, by class ("access OK MTT",
	// "access denied PD_MISMATCH@1", "dead key denied", "umr moves pd",
	// ...): a test asserts that its generator reaches every class.
	Counts map[string]int
}

type isoObj struct {
	mkc prm.MKC
	odp bool
}

type isoStall struct {
	seq   int
	acc   scenario.Access
	fault isoVerdict
}

// isoListBase is where the list allocator starts (translation.md 3.1).
const isoListBase = 0x1_0000_0000

// NewIsolation is an empty shadow for a depth limit.
func NewIsolation(maxIndirection int) *Isolation {
	return &Isolation{
		MaxIndirection: maxIndirection,
		qps:            map[uint32]scenario.QP{},
		objs:           map[uint32]*isoObj{},
		words:          map[uint64]uint64{},
		nextHandle:     isoListBase,
		dead:           map[prm.Key]string{},
		Counts:         map[string]int{},
	}
}

// Load declares the scenario's QPs and creates its initial MKeys, as a
// model's Load does; a refused MKey is an error.
func (s *Isolation) Load(sc *scenario.Scenario) error {
	for _, q := range sc.QPs {
		s.qps[q.QPN] = q
	}
	for i := range sc.MKeys {
		op := scenario.Op{Kind: scenario.OpCreateMKey, Create: &sc.MKeys[i]}
		if r := s.Apply(-1, &op); r.Status != prm.OK {
			return fmt.Errorf("mkeys[%d]: CREATE_MKEY refuses it: %v", i, r.Status)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Rights, pages, words.

// isoRight is the MKC right each access type needs (translation.md 1).
func isoRight(t prm.AccessType, m *prm.MKC) bool {
	switch t {
	case prm.LocalRead:
		return m.LR
	case prm.LocalWrite:
		return m.LW
	case prm.RemoteRead:
		return m.RR
	case prm.RemoteWrite:
		return m.RW
	case prm.RemoteAtomic:
		return m.A
	}
	return false
}

// isoPageOK: the page bits each access type needs: rd_en for the reads,
// wr_en for the writes, both for an atomic.
func isoPageOK(t prm.AccessType, word uint64) bool {
	rd, wr := word&1 != 0, word&2 != 0
	switch t {
	case prm.LocalRead, prm.RemoteRead:
		return rd
	case prm.LocalWrite, prm.RemoteWrite:
		return wr
	case prm.RemoteAtomic:
		return rd && wr
	}
	return false
}

func isoMTTWord(e prm.MTTEntry) uint64 {
	w := e.PTag &^ 0xff
	if e.WrEn {
		w |= 2
	}
	if e.RdEn {
		w |= 1
	}
	return w
}

// writeWords stores MTT or KLM entries at addr; rw forces rd_en and wr_en
// (CREATE_MKEY with pg_access 0); pad zero-fills to the next 64 bytes, as a
// UMR writes.
func (s *Isolation) writeWords(addr uint64, mtt []prm.MTTEntry, klm []prm.KLMEntry, rw, pad bool) {
	a := addr
	put := func(w uint64) {
		if w == 0 {
			delete(s.words, a)
		} else {
			s.words[a] = w
		}
		a += 8
	}
	for _, e := range mtt {
		w := isoMTTWord(e)
		if rw {
			w |= 3
		}
		put(w)
	}
	for _, e := range klm {
		put(uint64(e.ByteCount)<<32 | uint64(e.MKey))
		put(e.Address)
	}
	if pad && a != addr {
		for (a-addr)%64 != 0 {
			put(0)
		}
	}
}

// covers is the range check of translation.md 4.7 for a piece of l >= 1
// bytes: v + l <= 2^64 and, unless length64, start <= v and v + l <= start
// + len, all exact.
func covers(m *prm.MKC, v, l uint64) bool {
	if v > -l { // v + l > 2^64
		return false
	}
	if m.Length64 {
		return true
	}
	if v < m.StartAddr {
		return false
	}
	d := v - m.StartAddr
	return d <= m.Len && l <= m.Len-d
}

// ---------------------------------------------------------------------------
// Accesses.

// isoVerdict is what the spec says of an access: granted with these
// segments (and, for each, the chain of keys that reaches it), or refused
// with the first rule broken.
type isoVerdict struct {
	status    prm.Status
	level     int
	offset    uint64
	faultKey  prm.Key
	faultAddr uint64
	segs      []prm.Segment
	via       []string
	why       string
	visits    []isoVisit // keys looked up that exist with the variant named, in walk order
}

// isoVisit is a key check the walk made: its level, the piece's offset
// and the index.
type isoVisit struct {
	level int
	off   uint64
	index uint32
}

type isoWalk struct {
	s   *Isolation
	a   scenario.Access
	pd  uint32
	out isoVerdict
}

func (w *isoWalk) deny(st prm.Status, level int, off uint64, format string, args ...any) bool {
	w.out = isoVerdict{status: st, level: level, offset: off, why: fmt.Sprintf(format, args...), visits: w.out.visits}
	return false
}

// verdict walks the access against the shadow, depth first in request
// order.
func (s *Isolation) verdict(a scenario.Access) isoVerdict {
	if a.Len == 0 {
		return isoVerdict{status: prm.OK}
	}
	qp, ok := s.qps[a.QPN]
	if !ok {
		return isoVerdict{status: prm.BadParam, why: "no such QP"}
	}
	w := &isoWalk{s: s, a: a, pd: qp.PD}
	if !w.piece(0, a.Key, a.Addr, uint64(a.Len), 0, "") {
		return w.out
	}
	w.out.status = prm.OK
	return w.out
}

// piece walks the bytes [v, v+l) of key at level; off is their offset in
// the request, chain the keys that led here.
func (w *isoWalk) piece(level int, key prm.Key, v, l, off uint64, chain string) bool {
	chain += fmt.Sprintf("%s%v@%#x", map[bool]string{true: "", false: " -> "}[chain == ""], key, v)
	if level > w.s.MaxIndirection {
		return w.deny(prm.IndirectionDepth, level, off, "level %d is past the depth limit %d (%s)", level, w.s.MaxIndirection, chain)
	}
	o := w.s.objs[key.Index()]
	if o == nil {
		return w.deny(prm.BadKeyIndex, level, off, "key %v at level %d: index %d not created (%s)", key, level, key.Index(), chain)
	}
	m := &o.mkc
	if m.Variant == key.Variant() {
		w.out.visits = append(w.out.visits, isoVisit{level: level, off: off, index: key.Index()})
	}
	switch {
	case m.Variant != key.Variant():
		return w.deny(prm.KeyMismatch, level, off, "key %v at level %d: the object's variant is %#x (%s)", key, level, m.Variant, chain)
	case m.Free:
		return w.deny(prm.MKeyFree, level, off, "key %v at level %d is free (%s)", key, level, chain)
	case m.PD != w.pd:
		return w.deny(prm.PDMismatch, level, off, "key %v at level %d is in PD %d, QP %d in PD %d (%s)", key, level, m.PD, w.a.QPN, w.pd, chain)
	case m.QPN != prm.QPNNone && m.QPN != w.a.QPN:
		return w.deny(prm.QPNMismatch, level, off, "key %v at level %d is bound to QP %d, not %d (%s)", key, level, m.QPN, w.a.QPN, chain)
	case !covers(m, v, l):
		return w.deny(prm.OutOfRange, level, off, "key %v at level %d covers [%#x +%#x), not [%#x +%#x) (%s)", key, level, m.StartAddr, m.Len, v, l, chain)
	case !isoRight(w.a.Type, m):
		return w.deny(prm.AccessDenied, level, off, "key %v at level %d lacks the right for %v (%s)", key, level, w.a.Type, chain)
	case m.AccessMode > prm.ModeMEMIC,
		(m.AccessMode == prm.ModeMTT || m.AccessMode == prm.ModeFixedBufferSize) && m.LogEntitySize < 12:
		return w.deny(prm.BadAccessMode, level, off, "key %v at level %d: mode %v log_entity_size %d (%s)", key, level, m.AccessMode, m.LogEntitySize, chain)
	case level == 0 && w.a.Type == prm.RemoteAtomic && (l != 8 || v%8 != 0):
		return w.deny(prm.MisalignedAtomic, level, off, "atomic of %d bytes at %#x", l, v)
	}
	grant := func(sp prm.Space, addr, n uint64, via string) {
		w.out.segs = append(w.out.segs, prm.Segment{Space: sp, Addr: addr, Len: n})
		w.out.via = append(w.out.via, via)
	}
	d := v - m.StartAddr // mod 2^64
	switch m.AccessMode {
	case prm.ModePA:
		grant(prm.SpaceDMA, v, l, chain+" (PA)")
	case prm.ModeSWICM:
		grant(prm.SpaceSWICM, v, l, chain+" (SW_ICM)")
	case prm.ModeMEMIC:
		grant(prm.SpaceMEMIC, v, l, chain+" (MEMIC)")
	case prm.ModeMTT:
		lg := uint(m.LogEntitySize)
		p := uint64(1) << lg
		b := m.StartAddr & (p - 1)
		for t := uint64(0); t < l; {
			u, c1 := bits.Add64(b, d, 0)
			u, c2 := bits.Add64(u, t, 0)
			i := u >> lg
			if c1+c2 != 0 || i >= 2*uint64(m.TranslationsOctwordSize) {
				return w.deny(prm.TranslationRange, level, off+t, "key %v at level %d: page %d past the capacity (%s)", key, level, i, chain)
			}
			word := w.s.words[m.MTTHandle+8*i]
			if !isoPageOK(w.a.Type, word) {
				if o.odp {
					w.out = isoVerdict{status: prm.PageFault, level: level, offset: off + t, faultKey: key, faultAddr: v + t,
						why: fmt.Sprintf("ODP key %v page %d lacks the bits for %v", key, i, w.a.Type), visits: w.out.visits}
					return false
				}
				return w.deny(prm.PageAccess, level, off+t, "key %v at level %d: page %d (word %#x) lacks the bits for %v (%s)", key, level, i, word, w.a.Type, chain)
			}
			in := u & (p - 1)
			n := min(l-t, p-in)
			grant(prm.SpaceDMA, word&^(p-1)+in, n, fmt.Sprintf("%s page %d", chain, i))
			t += n
		}
	case prm.ModeKLM:
		capacity := uint64(m.TranslationsOctwordSize)
		var j, tj uint64 // entry j starts at byte tj of the key's space
		for t := uint64(0); t < l; {
			pos, c := bits.Add64(d, t, 0)
			for {
				if c != 0 || j >= capacity {
					return w.deny(prm.TranslationRange, level, off+t, "key %v at level %d: byte %#x past its entries (%s)", key, level, pos, chain)
				}
				e0 := w.s.words[m.MTTHandle+16*j]
				bc := e0 >> 32
				if pos < tj+bc {
					n := min(l-t, tj+bc-pos)
					lower := w.s.words[m.MTTHandle+16*j+8] + (pos - tj)
					if !w.piece(level+1, prm.Key(uint32(e0)), lower, n, off+t, fmt.Sprintf("%s entry %d", chain, j)) {
						return false
					}
					t += n
					break
				}
				tj += bc
				j++
			}
		}
	case prm.ModeFixedBufferSize:
		lg := uint(m.LogEntitySize)
		bsz := uint64(1) << lg
		for t := uint64(0); t < l; {
			pos, c := bits.Add64(d, t, 0)
			j := pos >> lg
			if c != 0 || j >= uint64(m.TranslationsOctwordSize) {
				return w.deny(prm.TranslationRange, level, off+t, "key %v at level %d: entry %d past the capacity (%s)", key, level, j, chain)
			}
			in := pos & (bsz - 1)
			n := min(l-t, bsz-in)
			e0 := w.s.words[m.MTTHandle+16*j]
			lower := w.s.words[m.MTTHandle+16*j+8] + in
			if !w.piece(level+1, prm.Key(uint32(e0)), lower, n, off+t, fmt.Sprintf("%s entry %d", chain, j)) {
				return false
			}
			t += n
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Commands.

func (s *Isolation) live(index uint32) (prm.Key, bool) {
	o := s.objs[index]
	if o == nil || o.mkc.Free {
		return 0, false
	}
	return prm.MakeKey(index, o.mkc.Variant), true
}

// track records, around a command on index, a key that died and a key
// that came (back) to life.
func (s *Isolation) track(index uint32, before prm.Key, wasLive bool, what string) {
	after, isLive := s.live(index)
	if wasLive && (!isLive || after != before) {
		s.dead[before] = what
	}
	if isLive {
		delete(s.dead, after)
	}
}

func (s *Isolation) create(k *scenario.MKey) (uint32, prm.Status) {
	m := k.MKC
	size := uint64(m.TranslationsOctwordSize)
	mttList := m.AccessMode == prm.ModeMTT
	klmList := m.AccessMode == prm.ModeKLM || m.AccessMode == prm.ModeFixedBufferSize
	logged := m.AccessMode == prm.ModeMTT || m.AccessMode == prm.ModeFixedBufferSize
	switch {
	case size%4 != 0,
		uint64(len(k.MTT)) > 2*size,
		uint64(len(k.KLM)) > size,
		len(k.MTT) > 0 && !mttList,
		len(k.KLM) > 0 && !klmList,
		logged && (m.LogEntitySize < 12 || m.LogEntitySize > 31),
		m.AccessMode > prm.ModeMEMIC,
		!m.LR && !m.Free,
		k.HasIndex && (k.Index > prm.MaxIndex || s.objs[k.Index] != nil),
		m.MTTHandle != 0 && (m.MTTHandle < isoListBase || m.MTTHandle%64 != 0):
		return 0, prm.BadParam
	}
	index := k.Index
	if !k.HasIndex {
		for index = 0; s.objs[index] != nil; index++ {
		}
		if index > prm.MaxIndex {
			return 0, prm.BadParam
		}
	}
	h := m.MTTHandle
	if h == 0 && size > 0 {
		h = s.nextHandle
	}
	if h > prm.HandleReach || size > (prm.HandleReach-h)/16 {
		return 0, prm.BadParam
	}
	if m.MTTHandle == 0 && size > 0 {
		m.MTTHandle = h
		s.nextHandle += 16 * size
	}
	s.writeWords(m.MTTHandle, k.MTT, k.KLM, !k.PgAccess, false)
	s.objs[index] = &isoObj{mkc: m, odp: k.ODP}
	return index, prm.OK
}

// isoMask applies a UMR's masked fields (translation.md 2.5), field by
// field.
func isoMask(mask prm.MKeyMask, cur, img prm.MKC) prm.MKC {
	n := cur
	set := func(bit prm.MKeyMask, f func()) {
		if mask&bit != 0 {
			f()
		}
	}
	set(prm.MaskLen, func() { n.Len, n.Length64 = img.Len, img.Length64 })
	set(prm.MaskLogEntitySize, func() { n.LogEntitySize = img.LogEntitySize })
	set(prm.MaskStartAddr, func() { n.StartAddr = img.StartAddr })
	set(prm.MaskPD, func() { n.PD = img.PD })
	set(prm.MaskEnRinval, func() { n.EnRinval = img.EnRinval })
	set(prm.MaskVariant, func() { n.Variant = img.Variant })
	set(prm.MaskQPN, func() { n.QPN = img.QPN })
	set(prm.MaskAccessMode, func() { n.AccessMode = img.AccessMode })
	set(prm.MaskLR, func() { n.LR = img.LR })
	set(prm.MaskLW, func() { n.LW = img.LW })
	set(prm.MaskRR, func() { n.RR = img.RR })
	set(prm.MaskRW, func() { n.RW = img.RW })
	set(prm.MaskA, func() { n.A = img.A })
	set(prm.MaskFree, func() { n.Free = img.Free })
	set(prm.MaskGenerationCounter, func() { n.GenerationCounter = img.GenerationCounter })
	return n
}

func (s *Isolation) umr(u *scenario.UMR) prm.Status {
	sq, ok := s.qps[u.QPN]
	if !ok {
		return prm.BadParam
	}
	o := s.objs[u.Key.Index()]
	if o == nil {
		return prm.BadKeyIndex
	}
	cur := o.mkc
	switch {
	case u.CheckFree == prm.CheckFreeIfFree && !cur.Free, u.CheckFree == prm.CheckFreeIfInUse && cur.Free:
		return prm.UMRCheckFree
	case cur.PD != sq.PD && !sq.RegUMR:
		return prm.PDMismatch
	case !cur.UMREn:
		return prm.UMRDisabled
	case cur.QPN != prm.QPNNone && cur.QPN != u.QPN:
		return prm.QPNMismatch
	case u.Mask&prm.MaskPD != 0 && !sq.RegUMR:
		return prm.UMRPDUpdate
	}
	next := isoMask(u.Mask, cur, u.Image)
	if len(u.MTT) > 0 || len(u.KLM) > 0 {
		if len(u.MTT) > 0 && next.AccessMode != prm.ModeMTT ||
			len(u.KLM) > 0 && next.AccessMode != prm.ModeKLM && next.AccessMode != prm.ModeFixedBufferSize {
			return prm.BadParam
		}
		off := u.Offset * 16
		if off%64 != 0 {
			return prm.UMRAlignment
		}
		bytes := uint64(len(u.MTT))*8 + uint64(len(u.KLM))*16
		if off+(bytes+63)/64*64 > uint64(cur.TranslationsOctwordSize)*16 {
			return prm.UMRCapacity
		}
		s.writeWords(cur.MTTHandle+off, u.MTT, u.KLM, false, true)
	}
	if next.PD != cur.PD {
		s.Counts["umr moves pd (REG_UMR QP)"]++
	}
	if next.Variant != cur.Variant {
		s.Counts["umr new variant"]++
	}
	o.mkc = next
	return prm.OK
}

func (s *Isolation) invalidate(qpn uint32, key prm.Key, remote bool) prm.Status {
	qp, ok := s.qps[qpn]
	if !ok {
		return prm.BadParam
	}
	o := s.objs[key.Index()]
	switch {
	case o == nil:
		return prm.BadKeyIndex
	case o.mkc.Variant != key.Variant():
		return prm.KeyMismatch
	case o.mkc.PD != qp.PD:
		return prm.PDMismatch
	case o.mkc.QPN != prm.QPNNone && o.mkc.QPN != qpn:
		return prm.QPNMismatch
	case remote && !o.mkc.EnRinval:
		return prm.RemoteInvalidateDenied
	}
	o.mkc.Free = true
	return prm.OK
}

// Overlap declares that the model ran sc with overlapping invalidation:
// a LOCAL_INVALIDATE or SEND_WITH_INVALIDATE runs without waiting for the
// accesses before it, while a command of any other kind waits for them
// and every operation after a command waits for it. An access may then
// meet the free=1 of an invalidation that comes after it in the scenario
// (translation.md 3.2: free=1 stops the requests that have not passed the
// key check). Check then also accepts, for an access, MKEY_FREE at the
// level and offset of any key check its walk makes (up to and including
// the failing one) on an index that a later invalidation frees with
// nothing but accesses and invalidations between them. Such a result is
// a denial: it never widens a grant. The shadow must be fresh (nothing
// checked yet).
func (s *Isolation) Overlap(sc *scenario.Scenario) error {
	pre := NewIsolation(s.MaxIndirection)
	if err := pre.Load(sc); err != nil {
		return err
	}
	s.overlap, s.ops, s.invalOK = true, sc.Ops, make([]bool, len(sc.Ops))
	s.excused, s.diverged = map[int]bool{}, map[prm.Key]bool{}
	for i := range sc.Ops {
		r := pre.Apply(i, &sc.Ops[i])
		k := sc.Ops[i].Kind
		s.invalOK[i] = (k == scenario.OpLocalInvalidate || k == scenario.OpSendWithInvalidate) && r.Status == prm.OK
	}
	return nil
}

// Excused reports whether the result of seq is a legal overlap outcome
// that differs from the scenario-order one (so that a scoreboard against
// a model run in scenario order may differ there), or a PAGE_FAULT_RESUME
// whose stalled accesses differ because of one.
func (s *Isolation) Excused(seq int) bool { return s.excused[seq] }

// overlapAllows: got, MKEY_FREE, is a key check of v's walk meeting an
// invalidation that overtook the access.
func (s *Isolation) overlapAllows(seq int, v isoVerdict, got *scenario.Result) bool {
	if !s.overlap || got.Status != prm.MKeyFree {
		return false
	}
	freed := map[uint32]bool{}
	for j := seq + 1; j < len(s.ops); j++ {
		k := s.ops[j].Kind
		if k == scenario.OpAccess {
			continue
		}
		if k != scenario.OpLocalInvalidate && k != scenario.OpSendWithInvalidate {
			break
		}
		if s.invalOK[j] {
			freed[s.ops[j].Key.Index()] = true
		}
	}
	for _, vis := range v.visits {
		if freed[vis.index] && vis.level == got.Level && vis.off == got.Offset {
			return true
		}
	}
	return false
}

// Apply runs op, operation seq, on the shadow and returns the result the
// spec requires (without a BAD_PARAM reason).
func (s *Isolation) Apply(seq int, op *scenario.Op) scenario.Result {
	r, _ := s.apply(seq, op)
	return r
}

func (s *Isolation) apply(seq int, op *scenario.Op) (scenario.Result, []isoVerdict) {
	res := scenario.Result{Seq: seq, Op: op.Kind}
	switch op.Kind {
	case scenario.OpAccess:
		v := s.verdict(op.Access)
		if v.status == prm.PageFault {
			s.stalled = append(s.stalled, isoStall{seq: seq, acc: op.Access, fault: v})
		}
		setVerdict(&res, v)
		return res, []isoVerdict{v}
	case scenario.OpCreateMKey:
		i, st := s.create(op.Create)
		if st == prm.OK {
			res.Index, res.Key = i, prm.MakeKey(i, op.Create.MKC.Variant)
			s.track(i, 0, false, "")
		} else {
			res.Status = st
		}
	case scenario.OpDestroyMKey:
		before, was := s.live(op.Index)
		if s.objs[op.Index] == nil {
			res.Status = prm.BadKeyIndex
		} else {
			delete(s.objs, op.Index)
		}
		s.track(op.Index, before, was, fmt.Sprintf("destroy_mkey at seq %d", seq))
	case scenario.OpQueryMKey:
		if o := s.objs[op.Index]; o == nil {
			res.Status = prm.BadKeyIndex
		} else if _, _, _, ok := isoQueryWindow(op.Query, &o.mkc); !ok {
			res.Status = prm.BadParam
		} else {
			res.MKC = o.mkc
		}
	case scenario.OpUMR:
		idx := op.UMR.Key.Index()
		before, was := s.live(idx)
		res.Status = s.umr(op.UMR)
		s.track(idx, before, was, fmt.Sprintf("umr at seq %d", seq))
	case scenario.OpLocalInvalidate, scenario.OpSendWithInvalidate:
		idx := op.Key.Index()
		before, was := s.live(idx)
		res.Status = s.invalidate(op.QPN, op.Key, op.Kind == scenario.OpSendWithInvalidate)
		s.track(idx, before, was, fmt.Sprintf("%v at seq %d", op.Kind, seq))
	case scenario.OpPageFaultResume:
		var mine, rest []isoStall
		for _, st := range s.stalled {
			if st.fault.faultKey == op.Key {
				mine = append(mine, st)
			} else {
				rest = append(rest, st)
			}
		}
		if len(mine) == 0 {
			res.Status = prm.BadParam
			return res, nil
		}
		s.stalled = rest
		var vs []isoVerdict
		for _, st := range mine {
			v := isoVerdict{status: prm.PageAccess, level: st.fault.level, offset: st.fault.offset,
				why: "PAGE_FAULT_RESUME(error) ends it at its fault"}
			if op.OK {
				v = s.verdict(st.acc)
				if v.status == prm.PageFault {
					s.stalled = append(s.stalled, isoStall{seq: st.seq, acc: st.acc, fault: v})
				}
			}
			sub := scenario.Result{Seq: st.seq, Op: scenario.OpAccess}
			setVerdict(&sub, v)
			res.Resumed = append(res.Resumed, sub)
			vs = append(vs, v)
		}
		sort.SliceStable(s.stalled, func(i, j int) bool { return s.stalled[i].seq < s.stalled[j].seq })
		return res, vs
	}
	return res, nil
}

func setVerdict(r *scenario.Result, v isoVerdict) {
	r.Status, r.Level, r.Offset = v.status, v.level, v.offset
	r.FaultKey, r.FaultAddr = v.faultKey, v.faultAddr
	r.Segments = v.segs
}

// Stalled lists the keys that accesses are stalled on, each once, in the
// order of their oldest access.
func (s *Isolation) Stalled() []prm.Key {
	var out []prm.Key
	seen := map[prm.Key]bool{}
	for _, st := range s.stalled {
		if !seen[st.fault.faultKey] {
			seen[st.fault.faultKey] = true
			out = append(out, st.fault.faultKey)
		}
	}
	return out
}

// Object returns the shadow's MKC of a created index and its ODP flag.
func (s *Isolation) Object(index uint32) (prm.MKC, bool, bool) {
	o := s.objs[index]
	if o == nil {
		return prm.MKC{}, false, false
	}
	return o.mkc, o.odp, true
}

// Word is the shadow's list word at an 8-aligned address.
func (s *Isolation) Word(addr uint64) uint64 { return s.words[addr] }

// Dead reports what killed a key, "" if it is not dead.
func (s *Isolation) Dead(k prm.Key) string { return s.dead[k] }

// ---------------------------------------------------------------------------
// Judging a model's results.

// Check runs op, operation seq, on the shadow and judges got, a model's
// result for it. It returns the rules got breaks, each naming the class:
// ISOLATION (a grant, or a command accepted, that the rules forbid),
// STATUS (a failure other than the one the spec requires), COMMAND (a
// command refused that the spec accepts, or a create or query answered
// otherwise).
func (s *Isolation) Check(seq int, op *scenario.Op, got *scenario.Result) []string {
	var dead string
	if op.Kind == scenario.OpAccess && op.Access.Len > 0 {
		dead = s.dead[op.Access.Key]
	}
	want, vs := s.apply(seq, op)
	var out []string
	bad := func(class, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: seq %d (%s): %s", class, seq, describeOp(op), fmt.Sprintf(format, args...)))
	}
	if got.Seq != seq || got.Op != op.Kind {
		bad("COMMAND", "result is seq %d %v", got.Seq, got.Op)
		return out
	}
	switch op.Kind {
	case scenario.OpAccess:
		if dead != "" {
			switch {
			case got.Status == prm.OK:
				bad("ISOLATION", "key %v passed after %s", op.Access.Key, dead)
			case (got.Status != prm.BadKeyIndex && got.Status != prm.KeyMismatch && got.Status != prm.MKeyFree) || got.Level != 0 || got.Offset != 0:
				bad("STATUS", "key %v, dead since %s, failed %v at level %d offset %d; want BAD_KEY_INDEX, KEY_MISMATCH or MKEY_FREE at level 0", op.Access.Key, dead, got.Status, got.Level, got.Offset)
			default:
				cause, _, _ := strings.Cut(dead, " ")
				s.Counts["dead key denied after "+cause]++
			}
		}
		v := vs[0]
		if (got.Status != v.status || got.Level != v.level || got.Offset != v.offset) && s.overlapAllows(seq, v, got) {
			s.Counts["access MKEY_FREE by a later, overlapping invalidation"]++
			s.excused[seq] = true
			if v.status == prm.PageFault { // not stalled after all
				s.diverged[v.faultKey] = true
				for i, st := range s.stalled {
					if st.seq == seq {
						s.stalled = append(s.stalled[:i], s.stalled[i+1:]...)
						break
					}
				}
			}
			break
		}
		out = append(out, s.judgeAccess(seq, op, got, v, "")...)
	case scenario.OpPageFaultResume:
		if s.diverged[op.Key] {
			s.excused[seq] = true
		}
		if got.Status != want.Status {
			bad("COMMAND", "status %v, want %v", got.Status, want.Status)
			break
		}
		if len(got.Resumed) != len(want.Resumed) {
			bad("COMMAND", "%d accesses resumed, want %d", len(got.Resumed), len(want.Resumed))
			break
		}
		for i := range vs {
			if got.Resumed[i].Seq != want.Resumed[i].Seq {
				bad("COMMAND", "resumed[%d] is seq %d, want %d", i, got.Resumed[i].Seq, want.Resumed[i].Seq)
				continue
			}
			out = append(out, s.judgeAccess(seq, op, &got.Resumed[i], vs[i], fmt.Sprintf("resumed seq %d: ", want.Resumed[i].Seq))...)
		}
		if want.Status == prm.OK {
			s.Counts[fmt.Sprintf("resume ok=%v", op.OK)]++
		} else {
			s.Counts["resume "+want.Status.String()]++
		}
	default:
		name := op.Kind.String()
		switch {
		case got.Status == want.Status:
			s.Counts[fmt.Sprintf("%s %v", name, want.Status)]++
		case got.Status == prm.OK:
			bad("ISOLATION", "%s accepted; the spec refuses it with %v", name, want.Status)
		default:
			bad("COMMAND", "%s refused with %v, want %v", name, got.Status, want.Status)
		}
		if got.Status != prm.OK || want.Status != prm.OK {
			break
		}
		switch op.Kind {
		case scenario.OpCreateMKey:
			if got.Index != want.Index || got.Key != want.Key {
				bad("COMMAND", "created index %d key %v, want %d %v", got.Index, got.Key, want.Index, want.Key)
			}
		case scenario.OpQueryMKey:
			if d := s.judgeQuery(got, &want.MKC, op.Query); d != "" {
				bad("COMMAND", "%s", d)
			}
		}
	}
	return out
}

// judgeAccess judges one access result against the verdict.
func (s *Isolation) judgeAccess(seq int, op *scenario.Op, got *scenario.Result, v isoVerdict, prefix string) []string {
	var out []string
	bad := func(class, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: seq %d (%s): %s%s", class, seq, describeOp(op), prefix, fmt.Sprintf(format, args...)))
	}
	if got.Status == prm.OK {
		if v.status != prm.OK {
			bad("ISOLATION", "granted %v, but it must fail %v at level %d offset %d: %s", got.Segments, v.status, v.level, v.offset, v.why)
			return out
		}
		for i, g := range got.Segments {
			if i >= len(v.segs) {
				bad("ISOLATION", "segment %d %v is past the %d the access reaches", i, g, len(v.segs))
				break
			}
			if g != v.segs[i] {
				bad("ISOLATION", "segment %d %v is not what the bytes reach: %v via %s", i, g, v.segs[i], v.via[i])
				break
			}
		}
		if listed := min(len(v.segs), isoMaxSegments); len(got.Segments) != listed || got.SegmentsLeftOut != uint64(len(v.segs)-listed) {
			bad("ISOLATION", "%d segments listed and %d left out, the access reaches %d (the line lists at most %d)", len(got.Segments), got.SegmentsLeftOut, len(v.segs), isoMaxSegments)
		}
		if len(out) == 0 {
			s.Counts["access OK"]++
			for _, via := range v.via {
				if strings.Contains(via, " -> ") {
					s.Counts["access OK through KLM"]++
					break
				}
			}
		}
		return out
	}
	if v.status == prm.OK {
		bad("STATUS", "refused %v at level %d offset %d; every rule allows it", got.Status, got.Level, got.Offset)
		return out
	}
	if got.Status != v.status || got.Level != v.level || got.Offset != v.offset ||
		v.status == prm.PageFault && (got.FaultKey != v.faultKey || got.FaultAddr != v.faultAddr) {
		fault := func(st prm.Status, k prm.Key, a uint64) string {
			if st != prm.PageFault {
				return ""
			}
			return fmt.Sprintf(" fault_key %v fault_addr %#x", k, a)
		}
		bad("STATUS", "failed %v at level %d offset %d%s; want %v at level %d offset %d%s: %s",
			got.Status, got.Level, got.Offset, fault(got.Status, got.FaultKey, got.FaultAddr),
			v.status, v.level, v.offset, fault(v.status, v.faultKey, v.faultAddr), v.why)
		return out
	}
	s.Counts[fmt.Sprintf("access denied %v@%d", v.status, min(v.level, 2))]++
	return out
}

// isoMaxEntries and isoMaxSegments are scenario.md's bounds on a result
// line: the entries one query lists and the segments one access lists.
const (
	isoMaxEntries  = 4096
	isoMaxSegments = 65536
)

// isoQueryWindow is the part of m's list a query with window w lists, by
// scenario.md's query_mkey row: the entries [first, first+n) and how many
// more of the range asked are left out; ok is false for an offset past
// the capacity (BAD_PARAM). A mode without a list has an empty window.
func isoQueryWindow(w *scenario.QueryWindow, m *prm.MKC) (first, n, left uint64, ok bool) {
	var capacity uint64
	switch m.AccessMode {
	case prm.ModeMTT:
		capacity = 2 * uint64(m.TranslationsOctwordSize)
	case prm.ModeKLM, prm.ModeFixedBufferSize:
		capacity = uint64(m.TranslationsOctwordSize)
	default:
		return 0, 0, 0, true // offset and count are ignored
	}
	asked := capacity
	if w != nil {
		if w.Offset > capacity {
			return 0, 0, 0, false
		}
		first, asked = w.Offset, capacity-w.Offset
		if w.HasCount && w.Count < asked {
			asked = w.Count
		}
	}
	n = min(asked, isoMaxEntries)
	return first, n, asked - n, true
}

// judgeQuery compares a query's answer with the shadow: the MKC, and the
// list words of the window the query asked for (isoQueryWindow) with the
// count of the entries left out.
func (s *Isolation) judgeQuery(got *scenario.Result, want *prm.MKC, w *scenario.QueryWindow) string {
	if got.MKC != *want {
		return fmt.Sprintf("mkc %s, want %s", got.MKC.Hex(), want.Hex())
	}
	first, n, left, _ := isoQueryWindow(w, want)
	h := want.MTTHandle
	switch want.AccessMode {
	case prm.ModeMTT:
		if got.List.Kind() != scenario.ListMTT || got.List.Len() != n || got.EntriesLeftOut != left {
			return fmt.Sprintf("list of %d %v entries, %d left out; want %d MTT, %d left out", got.List.Len(), got.List.Kind(), got.EntriesLeftOut, n, left)
		}
		for i := range n {
			a := h + 8*(first+i)
			if w := isoMTTWord(got.List.MTT(i)); w != s.words[a]&^0xfc {
				return fmt.Sprintf("MTT entry %d is %#x, the shadow's %#x", first+i, w, s.words[a])
			}
		}
	case prm.ModeKLM, prm.ModeFixedBufferSize:
		if got.List.Kind() != scenario.ListKLM || got.List.Len() != n || got.EntriesLeftOut != left {
			return fmt.Sprintf("list of %d %v entries, %d left out; want %d KLM, %d left out", got.List.Len(), got.List.Kind(), got.EntriesLeftOut, n, left)
		}
		for i := range n {
			a := h + 16*(first+i)
			e := got.List.KLM(i)
			if uint64(e.ByteCount)<<32|uint64(e.MKey) != s.words[a] || e.Address != s.words[a+8] {
				return fmt.Sprintf("KLM entry %d is %+v, the shadow's %#x %#x", first+i, e, s.words[a], s.words[a+8])
			}
		}
	default:
		if got.List != nil {
			return fmt.Sprintf("a list of %d entries for mode %v", got.List.Len(), want.AccessMode)
		}
	}
	return ""
}

// Summary lists the counts, sorted by name.
func (s *Isolation) Summary() string {
	names := make([]string, 0, len(s.Counts))
	for n := range s.Counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %d\n", n, s.Counts[n])
	}
	return b.String()
}
