package prm

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// UMRCtrlSize is the size of the UMR control segment in bytes.
const UMRCtrlSize = 48

// CheckFree selects the UMR free-state precondition (control segment 00h
// 30:29).
type CheckFree uint8

// The check_free selector values.
const (
	CheckFreeNone    CheckFree = 0 // no check
	CheckFreeIfFree  CheckFree = 1 // run only if free = 1
	CheckFreeIfInUse CheckFree = 2 // run only if free = 0
)

// UMRCtrl is the UMR control segment (translation.md 2.5). It is the one
// fixed-size format not described by a field table (Layout): the bits
// 04h 15:0 are bsf_octword_actual_size or translation_offset[15:0], and
// 10h 26:0 translation_offset[42:16] or reserved, depending on
// translation_offset_en (00h 28), and a table gives every field one place
// and every bit one meaning. Put and ParseUMRCtrl write that choice out.
type UMRCtrl struct {
	Inline                       bool
	CheckFree                    CheckFree // 2 bits
	TranslationOffsetEn          bool
	TranslationOctwordActualSize uint16
	// BSFOctwordActualSize is 04h 15:0 when TranslationOffsetEn is clear.
	BSFOctwordActualSize uint16
	// TranslationOffset (43 bits, 16-byte units) is used when
	// TranslationOffsetEn is set: its bits 15:0 share 04h 15:0.
	TranslationOffset uint64
	MKeyMask          MKeyMask
}

// umrReserved marks the reserved bits of the control segment per dword.
var umrReserved = [UMRCtrlSize / 4]uint32{
	0: 0x0fffffff, 4: 0xf8000000, 5: ^uint32(0), 6: ^uint32(0), 7: ^uint32(0),
	8: ^uint32(0), 9: ^uint32(0), 10: ^uint32(0), 11: ^uint32(0),
}

// MaxTranslationOffset is the largest translation_offset (43 bits).
const MaxTranslationOffset = 1<<43 - 1

// Put packs c into b[:48]. TranslationOffset is written only when
// TranslationOffsetEn is set, BSFOctwordActualSize only when it is clear.
func (c UMRCtrl) Put(b []byte) {
	b = b[:UMRCtrlSize]
	clear(b)
	var d0 uint32
	if c.Inline {
		d0 |= 1 << 31
	}
	d0 |= uint32(c.CheckFree&3) << 29
	if c.TranslationOffsetEn {
		d0 |= 1 << 28
	}
	binary.BigEndian.PutUint32(b[0:], d0)
	low := uint32(c.BSFOctwordActualSize)
	if c.TranslationOffsetEn {
		low = uint32(c.TranslationOffset & 0xffff)
		binary.BigEndian.PutUint32(b[0x10:], uint32(c.TranslationOffset>>16)&0x07ffffff)
	}
	binary.BigEndian.PutUint32(b[4:], uint32(c.TranslationOctwordActualSize)<<16|low)
	binary.BigEndian.PutUint64(b[8:], uint64(c.MKeyMask))
}

// Append appends the 48-byte segment to b.
func (c UMRCtrl) Append(b []byte) []byte { return appendPut(b, UMRCtrlSize, c) }

// ParseUMRCtrl parses 48 bytes; set reserved bits are reported as a
// *ReservedBitsError beside the parsed segment.
func ParseUMRCtrl(b []byte) (UMRCtrl, error) {
	if len(b) != UMRCtrlSize {
		return UMRCtrl{}, &SizeError{Format: "UMR control segment", Want: UMRCtrlSize, Got: len(b)}
	}
	d0 := binary.BigEndian.Uint32(b[0:])
	d1 := binary.BigEndian.Uint32(b[4:])
	c := UMRCtrl{
		Inline:                       d0&(1<<31) != 0,
		CheckFree:                    CheckFree(d0 >> 29 & 3),
		TranslationOffsetEn:          d0&(1<<28) != 0,
		TranslationOctwordActualSize: uint16(d1 >> 16),
		MKeyMask:                     MKeyMask(binary.BigEndian.Uint64(b[8:])),
	}
	hiOff := binary.BigEndian.Uint32(b[0x10:]) & 0x07ffffff
	if c.TranslationOffsetEn {
		c.TranslationOffset = uint64(hiOff)<<16 | uint64(d1&0xffff)
	} else {
		c.BSFOctwordActualSize = uint16(d1)
	}
	res := umrReserved
	if !c.TranslationOffsetEn {
		res[4] |= 0x07ffffff // offset bits mean nothing without the enable
	}
	return c, checkReserved("UMR control segment", b, res[:])
}

// MKeyMask is the 64-bit mkey_ctx_mask of a UMR: which MKC fields the UMR
// writes from its image.
type MKeyMask uint64

// The mkey_ctx_mask bits the model honours (translation.md 2.5).
const (
	MaskLen               MKeyMask = 1 << 0 // len and length64
	MaskLogEntitySize     MKeyMask = 1 << 1
	MaskStartAddr         MKeyMask = 1 << 6
	MaskPD                MKeyMask = 1 << 7
	MaskEnRinval          MKeyMask = 1 << 8
	MaskVariant           MKeyMask = 1 << 13
	MaskQPN               MKeyMask = 1 << 14
	MaskAccessMode        MKeyMask = 1 << 16
	MaskLR                MKeyMask = 1 << 17
	MaskLW                MKeyMask = 1 << 18
	MaskRR                MKeyMask = 1 << 19
	MaskRW                MKeyMask = 1 << 20
	MaskA                 MKeyMask = 1 << 21
	MaskFree              MKeyMask = 1 << 29
	MaskGenerationCounter MKeyMask = 1 << 31
)

// maskBits maps mask names (the scenario's) to bits and the MKC fields they
// carry, in bit order.
var maskBits = []struct {
	name   string
	bit    MKeyMask
	fields []string
}{
	{"len", MaskLen, []string{"len", "length64"}},
	{"log_entity_size", MaskLogEntitySize, []string{"log_entity_size"}},
	{"start_addr", MaskStartAddr, []string{"start_addr"}},
	{"pd", MaskPD, []string{"pd"}},
	{"en_rinval", MaskEnRinval, []string{"en_rinval"}},
	{"variant", MaskVariant, []string{"variant"}},
	{"qpn", MaskQPN, []string{"qpn"}},
	{"access_mode", MaskAccessMode, []string{"access_mode"}},
	{"lr", MaskLR, []string{"lr"}},
	{"lw", MaskLW, []string{"lw"}},
	{"rr", MaskRR, []string{"rr"}},
	{"rw", MaskRW, []string{"rw"}},
	{"a", MaskA, []string{"a"}},
	{"free", MaskFree, []string{"free"}},
	{"generation_counter", MaskGenerationCounter, []string{"generation_counter"}},
}

// MaskHonoured is every bit the model acts on; the rest are ignored.
const MaskHonoured = MaskLen | MaskLogEntitySize | MaskStartAddr | MaskPD |
	MaskEnRinval | MaskVariant | MaskQPN | MaskAccessMode | MaskLR | MaskLW |
	MaskRR | MaskRW | MaskA | MaskFree | MaskGenerationCounter

// ParseMaskName returns the bit of a mask name.
func ParseMaskName(name string) (MKeyMask, bool) {
	for _, m := range maskBits {
		if m.name == name {
			return m.bit, true
		}
	}
	return 0, false
}

// MaskNames lists the mask names in bit order.
func MaskNames() []string {
	out := make([]string, len(maskBits))
	for i, m := range maskBits {
		out[i] = m.name
	}
	return out
}

// String lists the honoured names set in the mask, then any other bits.
func (k MKeyMask) String() string {
	var parts []string
	for _, m := range maskBits {
		if k&m.bit != 0 {
			parts = append(parts, m.name)
		}
	}
	if rest := k &^ MaskHonoured; rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint64(rest)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// Apply returns cur with every field whose mask bit is set taken from img,
// as a UMR applies its masked fields; other fields of img are ignored.
func (k MKeyMask) Apply(cur, img MKC) MKC {
	out := cur
	for _, m := range maskBits {
		if k&m.bit == 0 {
			continue
		}
		for _, name := range m.fields {
			f, _ := MKCLayout.Lookup(name)
			f.assign(&out, &img)
		}
	}
	return out
}
