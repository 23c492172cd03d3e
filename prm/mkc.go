package prm

import (
	"encoding/hex"
	"fmt"
)

// MKCSize is the size of an MKey Context in bytes.
const MKCSize = 64

// QPNNone is the qpn of an object not bound to a QP (everything but a type 2
// memory window).
const QPNNone = 0xffffff

// MKC is the MKey Context (translation.md 2.2), one field per PRM field;
// 64-bit and 48-bit fields split over dwords are one value here.
// The values of ma_translation_mode (MKC 00h 5:4; seed 2.2.1): 2 is
// reserved.
const (
	TranslationNone = 0
	TranslationATS  = 1 // PCIe ATS: access mode PA or MTT, and HCA_CAP.ats
	TranslationCAPI = 3 // by PASID (and PEC): access mode PA only
)

// MaxPASID is the largest pasid a key can use for CAPI translation: a
// PCIe PASID has 20 bits, though the MKC's field (08h 23:0) has 24;
// CREATE_MKEY refuses a CAPI key with a wider one (issue 36).
const MaxPASID = 1<<20 - 1

type MKC struct {
	Free                    bool
	AccessMode              AccessMode // access_mode_4_2 and access_mode_1_0
	RelaxedOrderingWrite    bool
	SmallFence              bool // small_fence_on_rdma_read_response
	UMREn                   bool
	A, RW, RR, LW, LR       bool
	TunneledAtomic          bool
	MATranslationMode       uint8 // 2 bits
	SF                      uint8 // 4 bits, opaque
	QPN                     uint32
	Variant                 uint8 // mkey[7:0]
	PASID                   uint32
	Length64                bool
	BSFEn                   bool
	ExpectedSigerrCount     bool
	EnRinval                bool
	PD                      uint32
	StartAddr               uint64
	Len                     uint64
	BSFOctwordSize          uint32
	BSFHandle               uint64 // 48 bits
	MTTHandle               uint64 // 48 bits
	TranslationsOctwordSize uint32
	RelaxedOrderingRead     bool
	LogEntitySize           uint8 // 5 bits
	CryptoEn                uint8 // 2 bits
	GenerationCounter       uint16
}

// MKCField is one field of the MKC's table.
type MKCField = Field[MKC]

// MKCLayout is the MKC's field table, translation.md 2.2, in wire order;
// the fields' names are the scenarios'.
var MKCLayout = newLayout("MKC", "mkc", "translation.md 2.2", MKCSize,
	flag("free", 0x00, 30, func(m *MKC) *bool { return &m.Free }),
	field("access_mode", func(m *MKC) *AccessMode { return &m.AccessMode }, r(0x00, 28, 26), r(0x00, 9, 8)).
		spec("access_mode_4_2 (00h 28:26) and access_mode_1_0 (00h 9:8): access_mode = (access_mode_4_2 << 2) | access_mode_1_0"),
	flag("relaxed_ordering_write", 0x00, 18, func(m *MKC) *bool { return &m.RelaxedOrderingWrite }),
	flag("small_fence_on_rdma_read_response", 0x00, 16, func(m *MKC) *bool { return &m.SmallFence }),
	flag("umr_en", 0x00, 15, func(m *MKC) *bool { return &m.UMREn }),
	flag("a", 0x00, 14, func(m *MKC) *bool { return &m.A }),
	flag("rw", 0x00, 13, func(m *MKC) *bool { return &m.RW }),
	flag("rr", 0x00, 12, func(m *MKC) *bool { return &m.RR }),
	flag("lw", 0x00, 11, func(m *MKC) *bool { return &m.LW }),
	flag("lr", 0x00, 10, func(m *MKC) *bool { return &m.LR }),
	flag("tunneled_atomic", 0x00, 6, func(m *MKC) *bool { return &m.TunneledAtomic }),
	field("ma_translation_mode", func(m *MKC) *uint8 { return &m.MATranslationMode }, r(0x00, 5, 4)),
	field("sf", func(m *MKC) *uint8 { return &m.SF }, r(0x00, 3, 0)),
	field("qpn", func(m *MKC) *uint32 { return &m.QPN }, r(0x04, 31, 8)),
	field("variant", func(m *MKC) *uint8 { return &m.Variant }, r(0x04, 7, 0)).
		spec("mkey[7:0] (04h 7:0, the variant this context accepts)"),
	field("pasid", func(m *MKC) *uint32 { return &m.PASID }, r(0x08, 23, 0)),
	flag("length64", 0x0C, 31, func(m *MKC) *bool { return &m.Length64 }),
	flag("bsf_en", 0x0C, 30, func(m *MKC) *bool { return &m.BSFEn }),
	flag("expected_sigerr_count", 0x0C, 26, func(m *MKC) *bool { return &m.ExpectedSigerrCount }),
	flag("en_rinval", 0x0C, 24, func(m *MKC) *bool { return &m.EnRinval }),
	field("pd", func(m *MKC) *uint32 { return &m.PD }, r(0x0C, 23, 0)),
	field("start_addr", func(m *MKC) *uint64 { return &m.StartAddr }, dw(0x10), dw(0x14)),
	field("len", func(m *MKC) *uint64 { return &m.Len }, dw(0x18), dw(0x1C)),
	field("bsf_octword_size", func(m *MKC) *uint32 { return &m.BSFOctwordSize }, dw(0x20)),
	field("bsf_handle", func(m *MKC) *uint64 { return &m.BSFHandle }, r(0x24, 15, 0), dw(0x28)),
	field("mtt_handle", func(m *MKC) *uint64 { return &m.MTTHandle }, r(0x2C, 15, 0), dw(0x30)),
	field("translations_octword_size", func(m *MKC) *uint32 { return &m.TranslationsOctwordSize }, dw(0x34)),
	flag("relaxed_ordering_read", 0x38, 6, func(m *MKC) *bool { return &m.RelaxedOrderingRead }),
	field("log_entity_size", func(m *MKC) *uint8 { return &m.LogEntitySize }, r(0x38, 4, 0)),
	field("crypto_en", func(m *MKC) *uint8 { return &m.CryptoEn }, r(0x3C, 28, 27)),
	field("generation_counter", func(m *MKC) *uint16 { return &m.GenerationCounter }, r(0x3C, 15, 0)),
)

// MKCFields returns the field table of the MKC in wire order (a copy).
func MKCFields() []MKCField { return MKCLayout.Fields() }

// MKCReservedMask returns, per dword, the bits of the MKC that are reserved.
func MKCReservedMask() []uint32 { return MKCLayout.ReservedMask() }

// LookupMKCField finds a field by its scenario name.
func LookupMKCField(name string) (MKCField, bool) { return MKCLayout.Lookup(name) }

// Get returns the named field of m.
func (m *MKC) Get(name string) (uint64, bool) {
	f, ok := MKCLayout.Lookup(name)
	if !ok {
		return 0, false
	}
	return f.Get(m), true
}

// Set stores v in the named field of m.
func (m *MKC) Set(name string, v uint64) error {
	f, ok := MKCLayout.Lookup(name)
	if !ok {
		return fmt.Errorf("unknown MKC field %q", name)
	}
	return f.Set(m, v)
}

// Append packs m and appends its 64 bytes to b.
func (m *MKC) Append(b []byte) []byte { return appendPut(b, MKCSize, m) }

// Put packs m into b[:64]. Reserved bits are written as 0. Each field's
// value is cut to its width, as MKCLayout.Put does; this is its
// hand-written fast path (mkcimage.go).
func (m *MKC) Put(b []byte) {
	encodeMKC(b[:MKCSize], m)
}

// Bytes returns the 64-byte image of m.
func (m *MKC) Bytes() [MKCSize]byte {
	var img [MKCSize]byte
	m.Put(img[:])
	return img
}

// Hex returns the image as 128 lowercase hex digits in wire order.
func (m *MKC) Hex() string {
	img := m.Bytes()
	return hex.EncodeToString(img[:])
}

// ParseMKC parses a 64-byte image. Set reserved bits are reported as a
// *ReservedBitsError beside the fully parsed context.
func ParseMKC(b []byte) (MKC, error) {
	if len(b) != MKCSize {
		return MKC{}, &SizeError{Format: "MKC", Want: MKCSize, Got: len(b)}
	}
	var m MKC
	decodeMKC(&m, b)
	return m, MKCLayout.checkReserved("MKC", b)
}

// ParseMKCHex parses 128 hex digits (either case) in wire order.
func ParseMKCHex(s string) (MKC, error) {
	if len(s) != 2*MKCSize {
		return MKC{}, fmt.Errorf("MKC hex: need %d hex digits, got %d", 2*MKCSize, len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return MKC{}, fmt.Errorf("MKC hex: %v", err)
	}
	return ParseMKC(b)
}

// Bound reports whether the object is bound to a QP (qpn not 0xffffff), as
// a type 2 memory window is.
func (m *MKC) Bound() bool { return m.QPN != QPNNone }
