package score

import (
	"fmt"
	"math/bits"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// What the isolation oracle says of an access: the rights and page bits
// each access type needs, the range a key covers, and the depth-first
// walk through every key the bytes reach (translation.md 4), which
// grants the segments or names the first rule broken.

// Grants reports whether m grants the MKC right that access type t needs
// (translation.md 1).
func Grants(t prm.AccessType, m *prm.MKC) bool {
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
	case !Grants(w.a.Type, m):
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
