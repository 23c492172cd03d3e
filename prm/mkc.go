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

// Field describes one named MKC field: its scenario name, width and where its
// bits lie, most significant part first.
type Field struct {
	Name  string
	Width int
	Parts []BitRange
	get   func(*MKC) uint64
	set   func(*MKC, uint64)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func r(off, hi, lo int) BitRange { return BitRange{Offset: off, Hi: hi, Lo: lo} }

func flag(name string, off, bit int, p func(*MKC) *bool) Field {
	return Field{Name: name, Width: 1, Parts: []BitRange{r(off, bit, bit)},
		get: func(m *MKC) uint64 { return b2u(*p(m)) },
		set: func(m *MKC, v uint64) { *p(m) = v&1 != 0 }}
}

func u8(name string, width int, parts []BitRange, p func(*MKC) *uint8) Field {
	return Field{Name: name, Width: width, Parts: parts,
		get: func(m *MKC) uint64 { return uint64(*p(m)) },
		set: func(m *MKC, v uint64) { *p(m) = uint8(v) }}
}

func u16(name string, width int, parts []BitRange, p func(*MKC) *uint16) Field {
	return Field{Name: name, Width: width, Parts: parts,
		get: func(m *MKC) uint64 { return uint64(*p(m)) },
		set: func(m *MKC, v uint64) { *p(m) = uint16(v) }}
}

func u32(name string, width int, parts []BitRange, p func(*MKC) *uint32) Field {
	return Field{Name: name, Width: width, Parts: parts,
		get: func(m *MKC) uint64 { return uint64(*p(m)) },
		set: func(m *MKC, v uint64) { *p(m) = uint32(v) }}
}

func u64(name string, width int, parts []BitRange, p func(*MKC) *uint64) Field {
	return Field{Name: name, Width: width, Parts: parts,
		get: func(m *MKC) uint64 { return *p(m) },
		set: func(m *MKC, v uint64) { *p(m) = v }}
}

// mkcFields is the table of translation.md 2.2, in wire order.
var mkcFields = []Field{
	flag("free", 0x00, 30, func(m *MKC) *bool { return &m.Free }),
	{Name: "access_mode", Width: 5, Parts: []BitRange{r(0x00, 28, 26), r(0x00, 9, 8)},
		get: func(m *MKC) uint64 { return uint64(m.AccessMode) },
		set: func(m *MKC, v uint64) { m.AccessMode = AccessMode(v) }},
	flag("relaxed_ordering_write", 0x00, 18, func(m *MKC) *bool { return &m.RelaxedOrderingWrite }),
	flag("small_fence_on_rdma_read_response", 0x00, 16, func(m *MKC) *bool { return &m.SmallFence }),
	flag("umr_en", 0x00, 15, func(m *MKC) *bool { return &m.UMREn }),
	flag("a", 0x00, 14, func(m *MKC) *bool { return &m.A }),
	flag("rw", 0x00, 13, func(m *MKC) *bool { return &m.RW }),
	flag("rr", 0x00, 12, func(m *MKC) *bool { return &m.RR }),
	flag("lw", 0x00, 11, func(m *MKC) *bool { return &m.LW }),
	flag("lr", 0x00, 10, func(m *MKC) *bool { return &m.LR }),
	flag("tunneled_atomic", 0x00, 6, func(m *MKC) *bool { return &m.TunneledAtomic }),
	u8("ma_translation_mode", 2, []BitRange{r(0x00, 5, 4)}, func(m *MKC) *uint8 { return &m.MATranslationMode }),
	u8("sf", 4, []BitRange{r(0x00, 3, 0)}, func(m *MKC) *uint8 { return &m.SF }),
	u32("qpn", 24, []BitRange{r(0x04, 31, 8)}, func(m *MKC) *uint32 { return &m.QPN }),
	u8("variant", 8, []BitRange{r(0x04, 7, 0)}, func(m *MKC) *uint8 { return &m.Variant }),
	u32("pasid", 24, []BitRange{r(0x08, 23, 0)}, func(m *MKC) *uint32 { return &m.PASID }),
	flag("length64", 0x0C, 31, func(m *MKC) *bool { return &m.Length64 }),
	flag("bsf_en", 0x0C, 30, func(m *MKC) *bool { return &m.BSFEn }),
	flag("expected_sigerr_count", 0x0C, 26, func(m *MKC) *bool { return &m.ExpectedSigerrCount }),
	flag("en_rinval", 0x0C, 24, func(m *MKC) *bool { return &m.EnRinval }),
	u32("pd", 24, []BitRange{r(0x0C, 23, 0)}, func(m *MKC) *uint32 { return &m.PD }),
	u64("start_addr", 64, []BitRange{r(0x10, 31, 0), r(0x14, 31, 0)}, func(m *MKC) *uint64 { return &m.StartAddr }),
	u64("len", 64, []BitRange{r(0x18, 31, 0), r(0x1C, 31, 0)}, func(m *MKC) *uint64 { return &m.Len }),
	u32("bsf_octword_size", 32, []BitRange{r(0x20, 31, 0)}, func(m *MKC) *uint32 { return &m.BSFOctwordSize }),
	u64("bsf_handle", 48, []BitRange{r(0x24, 15, 0), r(0x28, 31, 0)}, func(m *MKC) *uint64 { return &m.BSFHandle }),
	u64("mtt_handle", 48, []BitRange{r(0x2C, 15, 0), r(0x30, 31, 0)}, func(m *MKC) *uint64 { return &m.MTTHandle }),
	u32("translations_octword_size", 32, []BitRange{r(0x34, 31, 0)}, func(m *MKC) *uint32 { return &m.TranslationsOctwordSize }),
	flag("relaxed_ordering_read", 0x38, 6, func(m *MKC) *bool { return &m.RelaxedOrderingRead }),
	u8("log_entity_size", 5, []BitRange{r(0x38, 4, 0)}, func(m *MKC) *uint8 { return &m.LogEntitySize }),
	u8("crypto_en", 2, []BitRange{r(0x3C, 28, 27)}, func(m *MKC) *uint8 { return &m.CryptoEn }),
	u16("generation_counter", 16, []BitRange{r(0x3C, 15, 0)}, func(m *MKC) *uint16 { return &m.GenerationCounter }),
}

var mkcReserved = func() []uint32 {
	parts := make([][]BitRange, len(mkcFields))
	for i, f := range mkcFields {
		parts[i] = f.Parts
	}
	return reservedMask(MKCSize, parts)
}()

var mkcByName = func() map[string]*Field {
	m := make(map[string]*Field, len(mkcFields))
	for i := range mkcFields {
		m[mkcFields[i].Name] = &mkcFields[i]
	}
	return m
}()

// MKCFields returns the field table of the MKC in wire order (a copy).
func MKCFields() []Field { return append([]Field(nil), mkcFields...) }

// MKCReservedMask returns, per dword, the bits of the MKC that are reserved.
func MKCReservedMask() []uint32 { return append([]uint32(nil), mkcReserved...) }

// LookupMKCField finds a field by its scenario name.
func LookupMKCField(name string) (Field, bool) {
	f, ok := mkcByName[name]
	if !ok {
		return Field{}, false
	}
	return *f, true
}

// Get returns the field's value in m.
func (f Field) Get(m *MKC) uint64 { return f.get(m) }

// Set stores v in the field of m; it fails, naming the field, if v does not
// fit the field's width.
func (f Field) Set(m *MKC, v uint64) error {
	if f.Width < 64 && v>>uint(f.Width) != 0 {
		return fmt.Errorf("%s: value %#x wider than %d bits", f.Name, v, f.Width)
	}
	f.set(m, v)
	return nil
}

// Get returns the named field of m.
func (m *MKC) Get(name string) (uint64, bool) {
	f, ok := mkcByName[name]
	if !ok {
		return 0, false
	}
	return f.get(m), true
}

// Set stores v in the named field of m.
func (m *MKC) Set(name string, v uint64) error {
	f, ok := mkcByName[name]
	if !ok {
		return fmt.Errorf("unknown MKC field %q", name)
	}
	return f.Set(m, v)
}

// Append packs m and appends its 64 bytes to b.
func (m *MKC) Append(b []byte) []byte { return appendPut(b, MKCSize, m) }

// Put packs m into b[:64]. Reserved bits are written as 0. Each field's
// value is cut to its width, as the field table's layout is written out
// here (mkcimage.go).
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
	return m, checkReserved("MKC", b, mkcReserved)
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
