package ref

import (
	"math/bits"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// Request is one memory reference reaching the HCA.
type Request struct {
	QPN  uint32
	Key  prm.Key
	Addr uint64
	Len  uint32
	Type prm.AccessType
}

// Outcome is the translation of a request: its segments, or one failure
// with the level and offset where it arose. A PAGE_FAULT names the key and
// address of the faulting page piece.
type Outcome struct {
	Status    prm.Status
	Segments  []prm.Segment
	Level     int
	Offset    uint64
	FaultKey  prm.Key
	FaultAddr uint64
	// An OK outcome keeps at most scenario.MaxSegments segments; the
	// ones after them are counted in SegmentsLeftOut and summed in
	// LeftOutSum.
	SegmentsLeftOut uint64
	LeftOutSum      scenario.SegmentSum
}

// walker carries what stays the same through one request's depth-first
// walk, and what it has found: the segments so far, or the failure.
type walker struct {
	m        *Model
	cov      *cover.Collector
	maxLevel int
	qpn      uint32
	pd       uint32
	typ      prm.AccessType
	segs     []prm.Segment
	fail     Outcome
	ioFault  ioFault // the first IOMMU_FAULT, reported if nothing else fails
	// The segments past the window: how many, and their digest.
	more    uint64
	moreSum scenario.SegmentSum
}

// Translate translates req against the current state without changing it
// (a fault is reported, not stalled). Segments are appended to buf.
func (m *Model) Translate(req Request, buf []prm.Segment) Outcome {
	if req.Len == 0 {
		return Outcome{Status: prm.OK, Segments: buf[:0]}
	}
	qp := m.qps.get(req.QPN)
	if qp == nil {
		return Outcome{Status: prm.BadParam}
	}
	// The walker is filled field by field: a composite literal is built
	// aside and copied in wide moves that stall on the narrow stores just
	// made, a cost that counts at tens of millions of translations a
	// second.
	var w walker
	w.m, w.cov, w.maxLevel = m, m.cfg.Coverage, m.cfg.MaxIndirection
	w.qpn, w.pd, w.typ = req.QPN, qp.PD, req.Type
	w.segs = buf[:0]
	if !w.walk(0, req.Key, req.Addr, uint64(req.Len), 0) {
		return w.fail
	}
	if w.ioFault.set {
		return w.ioFault.outcome()
	}
	return Outcome{Status: prm.OK, Segments: w.segs, SegmentsLeftOut: w.more, LeftOutSum: w.moreSum}
}

// emit appends a translated segment found at byte offset off of the
// request, or counts it past the window. It returns false when the walk
// is abandoned (Config.Stop).
func (w *walker) emit(space prm.Space, addr, n, off uint64) bool {
	if len(w.segs) < scenario.MaxSegments {
		w.segs = append(w.segs, prm.Segment{Space: space, Addr: addr, Len: n})
		return true
	}
	return w.leaveOut(prm.Segment{Space: space, Addr: addr, Len: n}, off)
}

// emitSeg is emit of a whole segment (one the IOMMU translated).
func (w *walker) emitSeg(s prm.Segment, off uint64) bool {
	if len(w.segs) < scenario.MaxSegments {
		w.segs = append(w.segs, s)
		return true
	}
	return w.leaveOut(s, off)
}

// leaveOut counts and sums a segment past the window: memory stays flat
// however many segments an access has. Every 65,536 segments it looks at
// Config.Stop.
func (w *walker) leaveOut(s prm.Segment, off uint64) bool {
	w.moreSum.Add(off, s)
	w.more++
	if w.more&0xFFFF == 0 && w.m.Stopped() {
		return w.failAt(prm.BadParam, 0, 0)
	}
	return true
}

// Stopped reports whether Config.Stop has closed: a translation may have
// been abandoned, and the result of the operation that ran it means
// nothing.
func (m *Model) Stopped() bool {
	select {
	case <-m.cfg.Stop:
		return true
	default:
		return false
	}
}

// failAt records the failure st at level and offset off, and returns false.
func (w *walker) failAt(st prm.Status, level int, off uint64) bool {
	w.fail = Outcome{Status: st, Level: level, Offset: off}
	return false
}

// Check runs the MKC checks of translation.md 4 (2..10; the depth check is
// the caller's) for the piece [v, v+l) reaching obj at level. obj nil means
// the index is not created.
func Check(obj *prm.MKC, key prm.Key, level int, v, l uint64, qpn, pd uint32, typ prm.AccessType) prm.Status {
	switch {
	case obj == nil:
		return prm.BadKeyIndex
	case obj.Variant != key.Variant():
		return prm.KeyMismatch
	case obj.Free:
		return prm.MKeyFree
	case obj.PD != pd:
		return prm.PDMismatch
	case obj.Bound() && obj.QPN != qpn:
		return prm.QPNMismatch
	case !InRange(obj, v, l):
		return prm.OutOfRange
	case !typ.Permitted(obj):
		return prm.AccessDenied
	case !ModeUsable(obj):
		return prm.BadAccessMode
	case level == 0 && typ == prm.RemoteAtomic && (l != 8 || v%8 != 0):
		return prm.MisalignedAtomic
	}
	return prm.OK
}

// InRange is the exact range check of translation.md 4.7: v+l <= 2^64 and
// either length64 or [v, v+l) inside [start_addr, start_addr+len).
func InRange(m *prm.MKC, v, l uint64) bool {
	end, c1 := bits.Add64(v, l, 0)
	if c1 != 0 && end != 0 {
		return false
	}
	if m.Length64 {
		return true
	}
	if v < m.StartAddr {
		return false
	}
	lim, c2 := bits.Add64(m.StartAddr, m.Len, 0)
	// compare (c1:end) <= (c2:lim) as 65-bit numbers
	return c1 < c2 || c1 == c2 && end <= lim
}

// ModeUsable reports whether the mode can translate: not reserved, and for
// MTT and Fixed Buffer Size a log_entity_size of at least 12.
func ModeUsable(m *prm.MKC) bool {
	switch m.AccessMode {
	case prm.ModeMTT, prm.ModeFixedBufferSize:
		return m.LogEntitySize >= 12
	}
	return m.AccessMode.Valid()
}

// walk translates the piece [v, v+l) of key at level; off is the piece's
// byte offset in the level-0 request. It returns false on failure.
func (w *walker) walk(level int, key prm.Key, v, l, off uint64) bool {
	if level > w.maxLevel {
		return w.failAt(prm.IndirectionDepth, level, off)
	}
	o := w.m.objs.get(key.Index())
	var mkc *prm.MKC
	if o != nil {
		mkc = &o.MKC
	}
	if st := Check(mkc, key, level, v, l, w.qpn, w.pd, w.typ); st != prm.OK {
		if st == prm.OutOfRange {
			w.cov.OutOfRange(mkc, v, l)
		}
		return w.failAt(st, level, off)
	}
	if w.cov != nil {
		w.cov.Passed(level, mkc, v, l)
	}
	switch mkc.AccessMode {
	case prm.ModePA:
		return w.dma(level, key, mkc, v, l, off)
	case prm.ModeSWICM:
		return w.emit(prm.SpaceSWICM, v, l, off)
	case prm.ModeMEMIC:
		return w.emit(prm.SpaceMEMIC, v, l, off)
	case prm.ModeMTT:
		return w.mtt(level, key, o, v, l, off)
	case prm.ModeKLM:
		return w.klm(level, mkc, v, l, off)
	case prm.ModeFixedBufferSize:
		return w.fixed(level, mkc, v, l, off)
	}
	return true
}

// mtt walks the pages of an MTT key (translation.md 5).
//
// Only the first page's index needs the exact sum u = b + d (b the start
// address's offset in its page, d = v - start_addr), which may pass 2^64:
// every later page is the next index at offset 0. Check has passed, so
// log_entity_size is 12..31 and the index, at most 2^53, fits in 64 bits;
// it reaches 2^(64-log) exactly when u passed 2^64, always past the
// capacity of at most 2^33 entries.
func (w *walker) mtt(level int, key prm.Key, o *Object, v, l, off uint64) bool {
	mkc := &o.MKC
	log := uint(mkc.LogEntitySize)
	p := uint64(1) << log
	lo, hi := bits.Add64(mkc.StartAddr&(p-1), v-mkc.StartAddr, 0)
	i, pg := lo>>log|hi<<(64-log), lo&(p-1)
	n := min(l, p-pg)
	capacity := 2 * uint64(mkc.TranslationsOctwordSize)
	need := w.typ.PageBits()
	// The entries of one piece lie mostly in one ICM page: it is looked
	// up once, and again only when an entry lies in another.
	pgNum, page := ^uint64(0), (*[pageSize]byte)(nil)
	for t := uint64(0); ; {
		if i >= capacity {
			if i>>(64-log) != 0 {
				w.cov.Hit(cover.WrapPageIndex)
			}
			return w.failAt(prm.TranslationRange, level, off+t)
		}
		if t == 0 {
			w.cov.FirstPart(cover.WalkMTT, pg == 0, n < l)
		}
		at := mkc.MTTHandle + 8*i
		if at>>pageShift != pgNum {
			pgNum, page = at>>pageShift, w.m.icm.dir.page(at>>pageShift)
			if page == nil {
				page = &zeroPage
			}
		}
		var e uint64
		if in := at & (pageSize - 1); in <= pageSize-prm.MTTEntrySize {
			e = prm.MTTWord(page[in : in+prm.MTTEntrySize])
		} else { // a handle not a multiple of 8: the entry crosses pages
			var ent [prm.MTTEntrySize]byte
			e = prm.MTTWord(w.m.icm.peek(at, ent[:]))
		}
		if e&need != need {
			if o.ODP {
				w.fail = Outcome{Status: prm.PageFault, Level: level, Offset: off + t, FaultKey: key, FaultAddr: v + t}
				return false
			}
			return w.failAt(prm.PageAccess, level, off+t)
		}
		if !w.dma(level, key, mkc, e&^(p-1)+pg, n, off+t) {
			return false
		}
		if t += n; t >= l {
			return true
		}
		i, pg, n = i+1, 0, min(l-t, p)
	}
}

// klm walks the entries of a variable KLM key (translation.md 6).
func (w *walker) klm(level int, mkc *prm.MKC, v, l, off uint64) bool {
	d := v - mkc.StartAddr
	capacity := uint64(mkc.TranslationsOctwordSize)
	var ent [prm.KLMEntrySize]byte
	var j, tj uint64 // entry j starts at byte tj of the key's space
	for t := uint64(0); t < l; {
		pos, c := bits.Add64(d, t, 0)
		pieceOff := off + t
		// Find the entry holding pos, from the entry last used.
		for {
			if c != 0 || j >= capacity {
				return w.failAt(prm.TranslationRange, level, pieceOff)
			}
			addr := mkc.MTTHandle + prm.KLMEntrySize*j
			// Skip unwritten memory: its entries have byte_count 0.
			if next, ok := w.m.icm.NextPresent(addr); !ok {
				return w.failAt(prm.TranslationRange, level, pieceOff)
			} else if next > addr {
				j = (next - mkc.MTTHandle + prm.KLMEntrySize - 1) / prm.KLMEntrySize
				continue
			}
			e := prm.DecodeKLMEntry(w.m.icm.peek(addr, ent[:]))
			bc := uint64(e.ByteCount)
			if pos < tj+bc {
				n := min(l-t, tj+bc-pos)
				if t == 0 {
					w.cov.FirstPart(cover.WalkKLM, pos == tj, n < l)
				}
				lower, wrap := bits.Add64(e.Address, pos-tj, 0)
				if wrap != 0 {
					w.cov.Hit(cover.WrapLowerAddr)
				}
				if !w.walk(level+1, e.MKey, lower, n, pieceOff) {
					return false
				}
				t += n
				break
			}
			if bc == 0 {
				w.cov.Hit(cover.KLMZeroEntry)
			}
			tj += bc
			j++
		}
	}
	return true
}

// fixed walks a Fixed Buffer Size key: equal entries of 2^log_entity_size
// bytes, each used as it is (translation.md 6).
func (w *walker) fixed(level int, mkc *prm.MKC, v, l, off uint64) bool {
	log := uint(mkc.LogEntitySize)
	bsz := uint64(1) << log
	d := v - mkc.StartAddr
	capacity := uint64(mkc.TranslationsOctwordSize)
	var ent [prm.KLMEntrySize]byte
	for t := uint64(0); t < l; {
		pos, c := bits.Add64(d, t, 0)
		pieceOff := off + t
		j := pos>>log | c<<(64-log)
		if c>>log != 0 || j >= capacity {
			return w.failAt(prm.TranslationRange, level, pieceOff)
		}
		in := pos & (bsz - 1)
		n := min(l-t, bsz-in)
		if t == 0 {
			w.cov.FirstPart(cover.WalkFBS, in == 0, n < l)
		}
		e := prm.DecodeKLMEntry(w.m.icm.peek(mkc.MTTHandle+prm.KLMEntrySize*j, ent[:]))
		lower, wrap := bits.Add64(e.Address, in, 0)
		if wrap != 0 {
			w.cov.Hit(cover.WrapLowerAddr)
		}
		if !w.walk(level+1, e.MKey, lower, n, pieceOff) {
			return false
		}
		t += n
	}
	return true
}
