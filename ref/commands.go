package ref

import (
	"fmt"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// Refusal is a command's failure: its status and, for BAD_PARAM, why.
type Refusal struct {
	Status prm.Status
	Reason string
}

func refuse(st prm.Status) *Refusal { return &Refusal{Status: st} }

func badParam(format string, a ...any) *Refusal {
	return &Refusal{Status: prm.BadParam, Reason: fmt.Sprintf(format, a...)}
}

// Create runs CREATE_MKEY (translation.md 3.2): it checks the object in the
// spec's order, then stores it and writes the entries given at the start of
// its list. It returns the index used.
func (m *Model) Create(k scenario.MKey) (uint32, *Refusal) {
	mkc := k.MKC
	size := uint64(mkc.TranslationsOctwordSize)
	// refused counts the reason (a coverage point) and refuses.
	refused := func(why cover.ID, format string, a ...any) (uint32, *Refusal) {
		m.cfg.Coverage.Hit(why)
		return 0, badParam(format, a...)
	}
	switch {
	case size%4 != 0:
		return refused(cover.CreateOctwords, "translations_octword_size %d is not a multiple of 4", size)
	case uint64(len(k.MTT)) > 2*size:
		return refused(cover.CreateCapacity, "%d MTT entries exceed the capacity of %d", len(k.MTT), 2*size)
	case uint64(len(k.KLM)) > size:
		return refused(cover.CreateCapacity, "%d KLM entries exceed the capacity of %d", len(k.KLM), size)
	case len(k.MTT) > 0 && !mkc.AccessMode.UsesMTTList():
		return refused(cover.CreateListType, "an MTT list needs access mode MTT, not %v", mkc.AccessMode)
	case len(k.KLM) > 0 && !mkc.AccessMode.UsesKLMList():
		return refused(cover.CreateListType, "a KLM list needs access mode KLM or FIXED_BUFFER_SIZE, not %v", mkc.AccessMode)
	case (mkc.AccessMode == prm.ModeMTT || mkc.AccessMode == prm.ModeFixedBufferSize) && (mkc.LogEntitySize < 12 || mkc.LogEntitySize > 31):
		return refused(cover.CreateEntitySize, "log_entity_size %d outside 12..31", mkc.LogEntitySize)
	case !mkc.AccessMode.Valid():
		return refused(cover.CreateReservedMode, "reserved access mode %v", mkc.AccessMode)
	}
	if r := m.checkTranslationMode(&mkc); r != nil {
		return refused(r.point, "%s", r.reason)
	}
	switch {
	case !mkc.LR && !mkc.Free:
		return refused(cover.CreateLRClear, "lr clear on an object that is not free")
	}
	index := k.Index
	if k.HasIndex {
		if index > prm.MaxIndex {
			return 0, badParam("index %d wider than 24 bits", index)
		}
		if m.objs.get(index) != nil {
			return refused(cover.CreateIndexTaken, "index %d already created", index)
		}
	} else {
		for m.objs.get(m.lowFree) != nil {
			m.lowFree++
		}
		if m.lowFree > prm.MaxIndex {
			return refused(cover.CreateNoIndex, "no free index")
		}
		index = m.lowFree
	}
	if mkc.MTTHandle != 0 && (mkc.MTTHandle < HandleBase || mkc.MTTHandle%64 != 0) {
		return refused(cover.CreateHandle, "mtt_handle %#x below %#x or not a multiple of 64", mkc.MTTHandle, HandleBase)
	}
	handle := mkc.MTTHandle
	if handle == 0 && size > 0 {
		handle = m.nextHandle
	}
	if !prm.ListFits(handle, size) {
		return refused(cover.CreateHandleReach, "a list of %d octwords at %#x would end past 2^48, the reach of mtt_handle", size, handle)
	}
	if r := m.needPages(index, handle, uint32(size)); r != nil {
		m.cfg.Coverage.Hit(cover.CreateNoPages)
		return 0, r
	}
	if mkc.MTTHandle == 0 && size > 0 {
		mkc.MTTHandle = handle
		m.nextHandle += size * 16
	}
	m.writeList(mkc.MTTHandle, k.MTT, k.KLM, !k.PgAccess, false)
	m.objs.put(index, Object{MKC: mkc, ODP: k.ODP})
	return index, nil
}

// translationRefusal is why a context's ma_translation_mode is refused:
// CREATE_MKEY's coverage point and the reason.
type translationRefusal struct {
	point  cover.ID
	reason string
}

// checkTranslationMode applies the rules of ma_translation_mode (MKC 00h
// 5:4, seed 2.2.1) to a context, in this order: 2 is reserved (0 none, 1
// ATS, 3 CAPI); ATS needs access mode PA or MTT, then the device's
// hca_cap.ats; CAPI needs access mode PA, then a pasid of at most 20 bits
// (the PASID TLP prefix carries 20). nil: allowed.
func (m *Model) checkTranslationMode(mkc *prm.MKC) *translationRefusal {
	tm, am := mkc.MATranslationMode, mkc.AccessMode
	switch {
	case tm != prm.TranslationNone && tm != prm.TranslationATS && tm != prm.TranslationCAPI:
		return &translationRefusal{cover.CreateReservedTranslation, fmt.Sprintf("reserved ma_translation_mode %d (0 none, 1 ATS, 3 CAPI)", tm)}
	case tm == prm.TranslationATS && am != prm.ModePA && am != prm.ModeMTT:
		return &translationRefusal{cover.CreateATSMode, fmt.Sprintf("ma_translation_mode ATS (1) needs access mode PA or MTT, not %v", am)}
	case tm == prm.TranslationATS && !m.cfg.ATS:
		return &translationRefusal{cover.CreateATSCap, "ma_translation_mode ATS (1) on a device without hca_cap.ats"}
	case tm == prm.TranslationCAPI && am != prm.ModePA:
		return &translationRefusal{cover.CreateCAPIMode, fmt.Sprintf("ma_translation_mode CAPI (3) needs access mode PA, not %v", am)}
	case tm == prm.TranslationCAPI && mkc.PASID > prm.MaxPASID:
		return &translationRefusal{cover.CreateCAPIPASID, fmt.Sprintf("ma_translation_mode CAPI (3) with pasid %#x: a PCIe PASID has 20 bits (at most %#x)", mkc.PASID, prm.MaxPASID)}
	}
	return nil
}

// writeList writes MTT or KLM entries at addr; forceRW stores MTT entries
// readable and writable (pg_access 0); pad fills the last 64 bytes with zero
// entries, as a UMR does.
func (m *Model) writeList(addr uint64, mtt []prm.MTTEntry, klm []prm.KLMEntry, forceRW, pad bool) {
	if len(mtt) == 0 && len(klm) == 0 {
		return
	}
	buf := make([]byte, 0, len(mtt)*prm.MTTEntrySize+len(klm)*prm.KLMEntrySize+64)
	for _, e := range mtt {
		if forceRW {
			e.RdEn, e.WrEn = true, true
		}
		buf = e.Append(buf)
	}
	for _, e := range klm {
		buf = e.Append(buf)
	}
	if pad {
		for len(buf)%64 != 0 {
			buf = append(buf, 0)
		}
	}
	m.icm.Write(addr, buf)
}

// Destroy runs DESTROY_MKEY: the index is no longer created, and the ICM
// pages no created object uses any more go back to the host.
func (m *Model) Destroy(index uint32) *Refusal {
	if !m.objs.del(index) {
		return refuse(prm.BadKeyIndex)
	}
	m.releasePages(index)
	if index < m.lowFree {
		m.lowFree = index
	}
	return nil
}

// Query is QUERY_MKEY's answer: the context and, decoded under the current
// mode, the window of the list the query asked for.
type Query struct {
	MKC prm.MKC
	// List holds the entries of the window (scenario.QueryWindow.Range:
	// at most scenario.MaxQueryEntries), nil in the modes without a list.
	// It is a snapshot of the ICM when the query ran.
	List *scenario.List
	// LeftOut is how many entries of the range asked follow the window.
	LeftOut uint64
}

// Query runs QUERY_MKEY with the default window: the first entries of the
// list.
func (m *Model) Query(index uint32) (Query, *Refusal) {
	return m.QueryWindow(index, nil)
}

// QueryWindow runs QUERY_MKEY for the entries w asks for (nil: from the
// first). An offset past the capacity is refused with BAD_PARAM.
func (m *Model) QueryWindow(index uint32, w *scenario.QueryWindow) (Query, *Refusal) {
	o := m.objs.get(index)
	if o == nil {
		return Query{}, refuse(prm.BadKeyIndex)
	}
	q := Query{MKC: o.MKC}
	kind, capacity := scenario.ListOf(&o.MKC)
	if kind == 0 {
		return q, nil // no list: offset and count are ignored
	}
	r, err := w.Range(capacity)
	if err != nil {
		return Query{}, &Refusal{Status: prm.BadParam, Reason: err.Error()}
	}
	addr := o.MKC.MTTHandle + r.First*kind.EntrySize()
	q.List = scenario.SnapshotList(presentPages{&m.icm}, kind, addr, r.N)
	q.LeftOut = r.LeftOut
	return q, nil
}

// presentPages is the ICM as scenario.SnapshotList reads it: its present
// pages come from Memory.NextPresent, a search of the sorted page list, so
// the cost is the pages present in the range, not the range.
type presentPages struct{ *Memory }

// PresentPages returns the present page numbers in [lo, hi), increasing.
func (m presentPages) PresentPages(lo, hi uint64) []uint64 {
	var out []uint64
	for p := lo; p < hi; p++ {
		a, ok := m.NextPresent(p << pageShift)
		if !ok || a>>pageShift >= hi || a>>pageShift < p {
			break
		}
		p = a >> pageShift
		out = append(out, p)
	}
	return out
}

// UMR runs a UMR WQE with its checks in the order of translation.md 3.2;
// a UMR that fails changes nothing.
func (m *Model) UMR(u scenario.UMR) *Refusal {
	sq, ok := m.QP(u.QPN)
	if !ok {
		return badParam("qpn %d is not a QP", u.QPN)
	}
	o := m.objs.get(u.Key.Index())
	if o == nil {
		return refuse(prm.BadKeyIndex)
	}
	cur := &o.MKC
	switch {
	case u.CheckFree == prm.CheckFreeIfFree && !cur.Free,
		u.CheckFree == prm.CheckFreeIfInUse && cur.Free:
		return refuse(prm.UMRCheckFree)
	case sq.PD != cur.PD && !sq.RegUMR:
		// A REG_UMR QP skips the PD check (translation.md 3.2): the
		// driver's own UMR QP, on a private PD, rewrites user MKeys.
		return refuse(prm.PDMismatch)
	case !cur.UMREn:
		return refuse(prm.UMRDisabled)
	case cur.Bound() && cur.QPN != u.QPN:
		return refuse(prm.QPNMismatch)
	case u.Mask&prm.MaskPD != 0 && !sq.RegUMR:
		return refuse(prm.UMRPDUpdate)
	}
	cov := m.cfg.Coverage
	next := u.Mask.Apply(*cur, u.Image)
	// No mask bit writes ma_translation_mode, but bit 16 writes the access
	// mode under it: the context such a UMR would write passes
	// CREATE_MKEY's ma_translation_mode rules or the UMR is refused.
	if u.Mask&prm.MaskAccessMode != 0 {
		if r := m.checkTranslationMode(&next); r != nil {
			cov.Hit(cover.UMRTranslationMode)
			return badParam("after the UMR, %s", r.reason)
		}
	}
	if len(u.MTT) > 0 || len(u.KLM) > 0 {
		if len(u.MTT) > 0 && !next.AccessMode.UsesMTTList() {
			return badParam("an MTT list needs access mode MTT, not %v", next.AccessMode)
		}
		if len(u.KLM) > 0 && !next.AccessMode.UsesKLMList() {
			return badParam("a KLM list needs access mode KLM or FIXED_BUFFER_SIZE, not %v", next.AccessMode)
		}
		off := u.Offset * 16
		if off%64 != 0 {
			return refuse(prm.UMRAlignment)
		}
		padded := umrListBytes(&u)
		if off+padded > uint64(cur.TranslationsOctwordSize)*16 {
			return refuse(prm.UMRCapacity)
		}
		m.writeList(cur.MTTHandle+off, u.MTT, u.KLM, false, true)
		cov.Hit(cover.UMRList)
	}
	if sq.RegUMR && sq.PD != cur.PD {
		cov.Hit(cover.UMRRegUMRPD)
	}
	*cur = next
	return nil
}

// umrListBytes is the bytes u's list takes in the ICM: its entries,
// padded with zero entries to 64 bytes.
func umrListBytes(u *scenario.UMR) uint64 {
	return (uint64(len(u.MTT))*prm.MTTEntrySize + uint64(len(u.KLM))*prm.KLMEntrySize + 63) / 64 * 64
}

// invalidate runs the shared checks of LOCAL_INVALIDATE and
// SEND_WITH_INVALIDATE and sets free = 1.
func (m *Model) invalidate(qpn uint32, key prm.Key, remote bool) *Refusal {
	qp, ok := m.QP(qpn)
	if !ok {
		return badParam("qpn %d is not a QP", qpn)
	}
	o := m.objs.get(key.Index())
	switch {
	case o == nil:
		return refuse(prm.BadKeyIndex)
	case o.MKC.Variant != key.Variant():
		return refuse(prm.KeyMismatch)
	case o.MKC.PD != qp.PD:
		return refuse(prm.PDMismatch)
	case o.MKC.Bound() && o.MKC.QPN != qpn:
		return refuse(prm.QPNMismatch)
	case remote && !o.MKC.EnRinval:
		return refuse(prm.RemoteInvalidateDenied)
	}
	if o.MKC.Free {
		m.cfg.Coverage.Hit(cover.InvalAlreadyFree)
	}
	o.MKC.Free = true
	return nil
}

// LocalInvalidate runs LOCAL_INVALIDATE from the send queue of qpn.
func (m *Model) LocalInvalidate(qpn uint32, key prm.Key) *Refusal {
	return m.invalidate(qpn, key, false)
}

// SendWithInvalidate runs the receiver's side of SEND_WITH_INVALIDATE on
// the receiving QP qpn.
func (m *Model) SendWithInvalidate(qpn uint32, key prm.Key) *Refusal {
	return m.invalidate(qpn, key, true)
}
