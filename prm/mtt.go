package prm

import "encoding/binary"

// MTTEntrySize is the size of an MTT entry in bytes.
const MTTEntrySize = 8

// MTTEntry is one page of an MTT list (translation.md 2.3). PTag is the
// 64-bit address with bits 7:0 clear; the page base is PTag with its low
// log_entity_size bits cleared.
type MTTEntry struct {
	PTag uint64
	WrEn bool
	RdEn bool
}

// The page bits of an MTT entry read as one big-endian 64-bit word (see
// MTTWord): rd_en is bit 0, wr_en bit 1.
const (
	MTTRdEn = 1
	MTTWrEn = 2
)

// MTTEntryLayout is the MTT entry's field table, translation.md 2.3. Its
// ptag field is ptag[63:8]: bits 7:0 of MTTEntry.PTag have no place in
// the entry.
var MTTEntryLayout = newLayout("MTT entry", "mtt_entry", "translation.md 2.3", MTTEntrySize,
	shifted("ptag", 8, func(e *MTTEntry) *uint64 { return &e.PTag }, dw(0x00), r(0x04, 31, 8)).
		spec("ptag[63:8] (00h 31:0 ptag[63:32], 04h 31:8 ptag[31:8]; ptag[7:0] is 0)"),
	flag("wr_en", 0x04, 1, func(e *MTTEntry) *bool { return &e.WrEn }),
	flag("rd_en", 0x04, 0, func(e *MTTEntry) *bool { return &e.RdEn }),
)

// The MTT walk decodes an entry per page and the commands pack whole
// lists, so Put, DecodeMTTEntry and MTTWord are MTTEntryLayout written out
// by hand (a quarter of the table-driven cost); TestMTTFastPaths and
// FuzzMTTFastPaths hold them to the table, bit for bit.

// Put packs e into b[:8]; bits 7:0 of PTag are not stored.
func (e MTTEntry) Put(b []byte) {
	lo := uint32(e.PTag) &^ 0xff
	if e.WrEn {
		lo |= 2
	}
	if e.RdEn {
		lo |= 1
	}
	binary.BigEndian.PutUint32(b[0:], uint32(e.PTag>>32))
	binary.BigEndian.PutUint32(b[4:], lo)
}

// Append appends the 8-byte entry to b.
func (e MTTEntry) Append(b []byte) []byte { return appendPut(b, MTTEntrySize, e) }

// ParseMTTEntry parses 8 bytes. Set reserved bits (04h 7:2) are reported as
// a *ReservedBitsError beside the parsed entry.
func ParseMTTEntry(b []byte) (MTTEntry, error) {
	if len(b) != MTTEntrySize {
		return MTTEntry{}, &SizeError{Format: "MTT entry", Want: MTTEntrySize, Got: len(b)}
	}
	return DecodeMTTEntry(b), MTTEntryLayout.checkReserved("MTT entry", b)
}

// DecodeMTTEntry reads an entry from b[:8] as hardware does, ignoring
// reserved bits.
func DecodeMTTEntry(b []byte) MTTEntry {
	hi := binary.BigEndian.Uint32(b[0:])
	lo := binary.BigEndian.Uint32(b[4:])
	return MTTEntry{PTag: uint64(hi)<<32 | uint64(lo&^0xff), WrEn: lo&2 != 0, RdEn: lo&1 != 0}
}

// MTTWord reads the entry at b[:8] as one big-endian 64-bit word: the
// page address in bits 63:8 (bits 63:12 for every usable page size), the
// page bits MTTRdEn and MTTWrEn below. It is DecodeMTTEntry in one load,
// for the walk of an MTT key.
func MTTWord(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

// PageBase is the entry's page address for pages of 2^log bytes.
func (e MTTEntry) PageBase(log uint8) uint64 {
	return e.PTag &^ (uint64(1)<<log - 1)
}
