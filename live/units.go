package live

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/vectors"
)

// The unit functions answer for one unit's DUT without a model instance:
// they are the golden vectors' oracles, so a live co-simulation and a
// vector file agree on every stimulus both contain.

// Protcheck is the protcheck unit: checks 2-10 of translation.md 4 on the
// 64-byte context mkc (created false: the index is not created, mkc is
// ignored and may be nil).
func Protcheck(mkc []byte, created bool, key prm.Key, level int, va uint64, n uint32, qpn, pd uint32, typ prm.AccessType) (prm.Status, error) {
	var obj *prm.MKC
	if created {
		m, err := parseMKC("mkc", mkc)
		if err != nil {
			return 0, err
		}
		obj = &m
	}
	return protcheck(obj, key, level, va, n, qpn, pd, typ)
}

// protcheck validates the scalar arguments and runs the vectors' oracle.
func protcheck(obj *prm.MKC, key prm.Key, level int, va uint64, n uint32, qpn, pd uint32, typ prm.AccessType) (prm.Status, error) {
	switch {
	case level < 0 || level > 7:
		return 0, fmt.Errorf("level %d outside 0..7", level)
	case n == 0:
		return 0, fmt.Errorf("len 0: a piece has at least one byte")
	case typ > prm.RemoteAtomic:
		return 0, fmt.Errorf("access_type %d outside 0..%d", typ, prm.RemoteAtomic)
	case qpn > prm.MaxIndex || pd > prm.MaxIndex:
		return 0, fmt.Errorf("qpn %#x or pd %#x wider than 24 bits", qpn, pd)
	}
	v := vectors.ProtcheckVector{Created: obj != nil, Key: key, Level: uint8(level), VA: va, Len: n, QPN: qpn, PD: pd, Type: typ}
	if obj != nil {
		v.MKC = *obj
	}
	v.Expect()
	return v.Status, nil
}

// MTTStep is the mttwalk unit's answer.
type MTTStep struct {
	Status     prm.Status // OK or TRANSLATION_RANGE (then the rest is 0)
	PageIndex  uint64
	EntryAddr  uint64
	PageOffset uint32
	PieceLen   uint32
}

// StepMTT is the mttwalk unit: the MTT step at t of the piece [va, va+n)
// of a key with start_addr, log_entity_size, translations_octword_size
// tos and mtt_handle.
func StepMTT(startAddr uint64, logEntitySize uint8, tos uint32, mttHandle, va uint64, n, t uint32) (MTTStep, error) {
	if mttHandle >= 1<<48 {
		return MTTStep{}, fmt.Errorf("mtt_handle %#x wider than 48 bits", mttHandle)
	}
	v := vectors.MTTWalkVector{StartAddr: startAddr, LogEntitySize: logEntitySize, TranslationsOctwordSize: tos,
		MTTHandle: mttHandle, VA: va, Len: n, T: t}
	if err := v.Expect(); err != nil {
		return MTTStep{}, err
	}
	return MTTStep{Status: v.Status, PageIndex: v.PageIndex, EntryAddr: v.EntryAddr, PageOffset: v.PageOffset, PieceLen: v.PieceLen}, nil
}

// KLMStep is the klmwalk unit's answer.
type KLMStep struct {
	Status     prm.Status // OK or TRANSLATION_RANGE (then the rest is 0)
	EntryIndex uint32
	LowerKey   prm.Key
	LowerAddr  uint64
	PieceLen   uint32
}

// StepKLM is the klmwalk unit: the first piece at d of length n of one
// level (fbs: Fixed Buffer Size) with translations_octword_size tos (0 or
// 4) and the four 16-byte entries (64 bytes). vectors.ErrUnobservable
// when the lower piece passes 2^64.
func StepKLM(fbs bool, logEntitySize uint8, tos uint32, d uint64, n uint32, entries []byte) (KLMStep, error) {
	v := vectors.KLMWalkVector{FBS: fbs, LogEntitySize: logEntitySize, TranslationsOctwordSize: tos, D: d, Len: n}
	if len(entries) != vectors.KLMEntries*prm.KLMEntrySize {
		return KLMStep{}, fmt.Errorf("entries: %d bytes, want %d", len(entries), vectors.KLMEntries*prm.KLMEntrySize)
	}
	for j := range v.Entries {
		v.Entries[j] = prm.DecodeKLMEntry(entries[j*prm.KLMEntrySize:])
	}
	if err := v.Expect(); err != nil {
		return KLMStep{}, err
	}
	return KLMStep{Status: v.Status, EntryIndex: uint32(v.EntryIndex), LowerKey: v.LowerKey, LowerAddr: v.LowerAddr, PieceLen: v.PieceLen}, nil
}
