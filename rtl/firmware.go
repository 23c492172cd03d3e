package rtl

import (
	"fmt"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// ICM is host memory as the firmware reaches it: a backdoor, since the
// firmware owns the ICM.
type ICM interface {
	Read(addr uint64, b []byte)
	Write(addr uint64, b []byte)
}

// handleBase is where the bump allocator of translation lists starts, and
// the lowest mtt_handle a creator may give (translation.md 3.1).
const handleBase = 0x1_0000_0000

// firmware is the command processor's state: what the firmware and the
// driver know beside the ICM (which indexes are created, which are ODP
// registrations, the list allocator), and the accesses stalled on faults.
type firmware struct {
	icm     ICM
	base    uint64 // MKC i is at base + 64 i
	qps     map[uint32]scenario.QP
	created map[uint32]bool // index -> ODP registration
	lowFree uint32
	next    uint64 // bump allocator
	stalled []stalledAccess
	cov     *cover.Collector // nil: coverage off
	ats     bool             // hca_cap.ats: the device does PCIe ATS
	pg      *fwPages         // the firmware's pages and page table
}

type stalledAccess struct {
	seq      int
	acc      scenario.Access
	faultKey prm.Key
	level    int
	offset   uint64
}

// refusal is a command's failure status and reason.
type refusal struct {
	st     prm.Status
	reason string
}

func bad(format string, a ...any) *refusal {
	return &refusal{st: prm.BadParam, reason: fmt.Sprintf(format, a...)}
}

func no(st prm.Status) *refusal { return &refusal{st: st} }

func newFirmware(mem ICM, base uint64, host HostConfig) *firmware {
	pg := newPages(host, base, mem)
	return &firmware{icm: icmView{mem, pg}, pg: pg, base: base, qps: map[uint32]scenario.QP{}, created: map[uint32]bool{}, next: handleBase}
}

// load reads the context of index from the ICM.
func (f *firmware) load(index uint32) (prm.MKC, bool) {
	var img [prm.MKCSize]byte
	f.icm.Read(f.base+prm.MKCSize*uint64(index), img[:])
	return prm.DecodeMKC(img[:]), prm.ICMCreated(img[:])
}

// store writes the context of index to the ICM, marked created or not.
func (f *firmware) store(index uint32, m *prm.MKC, created bool) {
	img := m.Bytes()
	if created {
		img[0] |= byte(prm.ICMCreatedBit >> 24)
	}
	f.icm.Write(f.base+prm.MKCSize*uint64(index), img[:])
}

// inval says which cache copies a command made stale.
type inval struct {
	index  uint32
	lo, hi uint64
}

// create runs CREATE_MKEY.
func (f *firmware) create(k *scenario.MKey) (uint32, *inval, *refusal) {
	m := k.MKC
	size := uint64(m.TranslationsOctwordSize)
	mode := m.AccessMode
	pageMode := mode == prm.ModeMTT || mode == prm.ModeFixedBufferSize
	// refused counts the reason (a coverage point) and refuses.
	refused := func(why cover.ID, format string, a ...any) (uint32, *inval, *refusal) {
		f.cov.Hit(why)
		return 0, nil, bad(format, a...)
	}
	switch {
	case size%4 != 0:
		return refused(cover.CreateOctwords, "translations_octword_size %d is not a multiple of 4", size)
	case uint64(len(k.MTT)) > 2*size || uint64(len(k.KLM)) > size:
		return refused(cover.CreateCapacity, "more entries than the capacity of %d octwords holds", size)
	case len(k.MTT) > 0 && mode != prm.ModeMTT:
		return refused(cover.CreateListType, "an MTT list needs access mode MTT, not %v", mode)
	case len(k.KLM) > 0 && mode != prm.ModeKLM && mode != prm.ModeFixedBufferSize:
		return refused(cover.CreateListType, "a KLM list needs access mode KLM or FIXED_BUFFER_SIZE, not %v", mode)
	case pageMode && (m.LogEntitySize < 12 || m.LogEntitySize > 31):
		return refused(cover.CreateEntitySize, "log_entity_size %d outside 12..31", m.LogEntitySize)
	case mode > prm.ModeMEMIC:
		return refused(cover.CreateReservedMode, "reserved access mode %v", mode)
	}
	if why, reason := f.translationMode(&m); why != 0 {
		return refused(why, "%s", reason)
	}
	if !m.Free && !m.LR {
		return refused(cover.CreateLRClear, "lr clear on an object that is not free")
	}
	index := k.Index
	if k.HasIndex {
		if index > prm.MaxIndex {
			return 0, nil, bad("index %d wider than 24 bits", index)
		}
		if _, ok := f.created[index]; ok {
			return refused(cover.CreateIndexTaken, "index %d already created", index)
		}
	} else {
		for {
			if _, ok := f.created[f.lowFree]; !ok {
				break
			}
			f.lowFree++
		}
		if f.lowFree > prm.MaxIndex {
			return refused(cover.CreateNoIndex, "every index is created")
		}
		index = f.lowFree
	}
	if m.MTTHandle != 0 && (m.MTTHandle < handleBase || m.MTTHandle&63 != 0) {
		return refused(cover.CreateHandle, "mtt_handle %#x below %#x or not a multiple of 64", m.MTTHandle, uint64(handleBase))
	}
	handle := m.MTTHandle
	if handle == 0 && size > 0 {
		handle = f.next
	}
	if !prm.ListFits(handle, size) {
		return refused(cover.CreateHandleReach, "a list of %d octwords at %#x would end past 2^48, the reach of mtt_handle", size, handle)
	}
	asked, r := f.pg.need(index, handle, uint32(size))
	if asked {
		return 0, nil, nil // it runs again when the host has answered
	}
	if r != nil {
		f.cov.Hit(cover.CreateNoPages)
		return 0, nil, r
	}
	if m.MTTHandle == 0 && size > 0 {
		m.MTTHandle = handle
		f.next += 16 * size
	}
	n := f.writeList(m.MTTHandle, k.MTT, k.KLM, !k.PgAccess, false)
	f.store(index, &m, true)
	f.created[index] = k.ODP
	return index, &inval{index: index, lo: m.MTTHandle, hi: m.MTTHandle + n}, nil
}

// translationMode checks the context's ma_translation_mode against its
// access mode and the device: the point of CREATE_MKEY's refusal and its
// reason, or 0 when the combination is allowed. UMR applies the same rules
// to the context it would write.
func (f *firmware) translationMode(m *prm.MKC) (cover.ID, string) {
	mode := m.AccessMode
	switch m.MATranslationMode {
	case prm.TranslationNone:
	case prm.TranslationATS:
		if mode != prm.ModePA && mode != prm.ModeMTT {
			return cover.CreateATSMode, fmt.Sprintf("ma_translation_mode ATS (1) needs access mode PA or MTT, not %v", mode)
		}
		if !f.ats {
			return cover.CreateATSCap, "ma_translation_mode ATS (1) on a device without hca_cap.ats"
		}
	case prm.TranslationCAPI:
		if mode != prm.ModePA {
			return cover.CreateCAPIMode, fmt.Sprintf("ma_translation_mode CAPI (3) needs access mode PA, not %v", mode)
		}
		if m.PASID > prm.MaxPASID {
			return cover.CreateCAPIPASID, fmt.Sprintf("ma_translation_mode CAPI (3) with pasid %#x: a PCIe PASID has 20 bits (at most %#x)", m.PASID, prm.MaxPASID)
		}
	default:
		return cover.CreateReservedTranslation, fmt.Sprintf("reserved ma_translation_mode %d (0 none, 1 ATS, 3 CAPI)", m.MATranslationMode)
	}
	return 0, ""
}

// writeList writes entries at addr (padded to 64 bytes with pad) and
// returns the bytes written.
func (f *firmware) writeList(addr uint64, mtt []prm.MTTEntry, klm []prm.KLMEntry, rw, pad bool) uint64 {
	var buf []byte
	for _, e := range mtt {
		if rw {
			e.RdEn, e.WrEn = true, true
		}
		buf = e.Append(buf)
	}
	for _, e := range klm {
		buf = e.Append(buf)
	}
	if pad && len(buf)%64 != 0 {
		buf = append(buf, make([]byte, 64-len(buf)%64)...)
	}
	if len(buf) > 0 {
		f.icm.Write(addr, buf)
	}
	return uint64(len(buf))
}

// destroy runs DESTROY_MKEY.
func (f *firmware) destroy(index uint32) (*inval, *refusal) {
	if _, ok := f.created[index]; !ok {
		return nil, no(prm.BadKeyIndex)
	}
	m, _ := f.load(index)
	m.Free = true
	f.store(index, &m, false)
	delete(f.created, index)
	if index < f.lowFree {
		f.lowFree = index
	}
	// The ICM pages no created object uses any more go back to the host
	// (a Pages Request Event giving pages); the cached lines of freed list
	// pages are stale (the pages read zeros now).
	lo, hi := f.pg.release(index)
	return &inval{index: index, lo: lo, hi: hi}, nil
}

// query runs QUERY_MKEY into res, for the entries w asks for
// (scenario.QueryWindow.Range). The list is a snapshot of the ICM's
// present pages in the window (scenario.SnapshotList), read when the
// line is written.
func (f *firmware) query(index uint32, w *scenario.QueryWindow, res *scenario.Result) *refusal {
	if _, ok := f.created[index]; !ok {
		return no(prm.BadKeyIndex)
	}
	m, _ := f.load(index)
	kind, capacity := scenario.ListOf(&m)
	if kind != 0 {
		r, err := w.Range(capacity)
		if err != nil {
			return bad("%v", err)
		}
		res.List = scenario.SnapshotList(f.sparse(), kind, m.MTTHandle+r.First*kind.EntrySize(), r.N)
		res.EntriesLeftOut = r.LeftOut
	}
	res.MKC = m
	return nil
}

// sparse is the ICM as scenario.SnapshotList reads it: pcie.Memory lists
// its present pages; another ICM is scanned a page at a time (memory
// bounded, time proportional to the list's range).
func (f *firmware) sparse() scenario.SparseMemory {
	if s, ok := f.icm.(scenario.SparseMemory); ok {
		return s
	}
	return scanICM{f.icm}
}

// scanICM finds the pages of an ICM that hold a byte not zero by reading
// each page of the range.
type scanICM struct{ ICM }

// PresentPages returns the pages of [lo, hi) with a byte that is not zero.
func (s scanICM) PresentPages(lo, hi uint64) []uint64 {
	var out []uint64
	var page [scenario.SnapshotPageSize]byte
	for p := lo; p < hi; p++ {
		s.Read(p*scenario.SnapshotPageSize, page[:])
		for _, c := range page {
			if c != 0 {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// umr runs a UMR WQE.
func (f *firmware) umr(u *scenario.UMR) (*inval, *refusal) {
	sq, ok := f.qps[u.QPN]
	if !ok {
		return nil, bad("qpn %d is not a QP", u.QPN)
	}
	index := u.Key.Index()
	if _, ok := f.created[index]; !ok {
		return nil, no(prm.BadKeyIndex)
	}
	cur, _ := f.load(index)
	switch {
	case u.CheckFree == prm.CheckFreeIfFree && !cur.Free:
		return nil, no(prm.UMRCheckFree)
	case u.CheckFree == prm.CheckFreeIfInUse && cur.Free:
		return nil, no(prm.UMRCheckFree)
	case sq.PD != cur.PD && !sq.RegUMR:
		// A REG_UMR QP skips the PD check (translation.md 3.2).
		return nil, no(prm.PDMismatch)
	case !cur.UMREn:
		return nil, no(prm.UMRDisabled)
	case cur.QPN != prm.QPNNone && cur.QPN != u.QPN:
		return nil, no(prm.QPNMismatch)
	case u.Mask&prm.MaskPD != 0 && !sq.RegUMR:
		return nil, no(prm.UMRPDUpdate)
	}
	next := u.Mask.Apply(cur, u.Image)
	// No mask bit writes ma_translation_mode, but the access mode (bit 16)
	// may move under it: the context such a UMR writes must pass
	// CREATE_MKEY's rules.
	if u.Mask&prm.MaskAccessMode != 0 {
		if why, reason := f.translationMode(&next); why != 0 {
			f.cov.Hit(cover.UMRTranslationMode)
			return nil, bad("after the UMR, %s", reason)
		}
	}
	iv := &inval{index: index}
	if len(u.MTT)+len(u.KLM) > 0 {
		mode := next.AccessMode
		if len(u.MTT) > 0 && mode != prm.ModeMTT || len(u.KLM) > 0 && mode != prm.ModeKLM && mode != prm.ModeFixedBufferSize {
			return nil, bad("the list does not match access mode %v", mode)
		}
		off := 16 * u.Offset
		if off%64 != 0 {
			return nil, no(prm.UMRAlignment)
		}
		n := (8*uint64(len(u.MTT)) + 16*uint64(len(u.KLM)) + 63) &^ 63
		if off+n > 16*uint64(cur.TranslationsOctwordSize) {
			return nil, no(prm.UMRCapacity)
		}
		f.writeList(cur.MTTHandle+off, u.MTT, u.KLM, false, true)
		iv.lo, iv.hi = cur.MTTHandle+off, cur.MTTHandle+off+n
		f.cov.Hit(cover.UMRList)
	}
	if sq.RegUMR && sq.PD != cur.PD {
		f.cov.Hit(cover.UMRRegUMRPD)
	}
	f.store(index, &next, true)
	return iv, nil
}

// invalidate runs LOCAL_INVALIDATE or, with remote, SEND_WITH_INVALIDATE.
func (f *firmware) invalidate(qpn uint32, key prm.Key, remote bool) (*inval, *refusal) {
	qp, ok := f.qps[qpn]
	if !ok {
		return nil, bad("qpn %d is not a QP", qpn)
	}
	index := key.Index()
	if _, ok := f.created[index]; !ok {
		return nil, no(prm.BadKeyIndex)
	}
	m, _ := f.load(index)
	switch {
	case m.Variant != key.Variant():
		return nil, no(prm.KeyMismatch)
	case m.PD != qp.PD:
		return nil, no(prm.PDMismatch)
	case m.QPN != prm.QPNNone && m.QPN != qpn:
		return nil, no(prm.QPNMismatch)
	case remote && !m.EnRinval:
		return nil, no(prm.RemoteInvalidateDenied)
	}
	if m.Free {
		f.cov.Hit(cover.InvalAlreadyFree)
	}
	m.Free = true
	f.store(index, &m, true)
	return &inval{index: index}, nil
}

// odp reports whether the key's index is an ODP registration.
func (f *firmware) odp(key prm.Key) bool { return f.created[key.Index()] }
