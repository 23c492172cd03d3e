package score

import (
	"mkeysim/prm"
	"mkeysim/scenario"
)

// What the isolation oracle says of a command (translation.md 3.2):
// CREATE_MKEY, UMR (with its mask, field by field) and the two
// invalidations, as accepted or refused against the shadow, the list
// words they write, and the keys each one kills or brings back.

// isoMTTWord is an MTT entry as the shadow keeps it: the page address
// with rd_en in bit 0 and wr_en in bit 1, the entry's 8 bytes read as
// one big-endian word.
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

// Live is the full key of index while it is created and not free.
func (s *Isolation) Live(index uint32) (prm.Key, bool) {
	o := s.objs[index]
	if o == nil || o.mkc.Free {
		return 0, false
	}
	return prm.MakeKey(index, o.mkc.Variant), true
}

// track records, around a command on index, a key that died and a key
// that came (back) to life.
func (s *Isolation) track(index uint32, before prm.Key, wasLive bool, what string) {
	after, isLive := s.Live(index)
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
