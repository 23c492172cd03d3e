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

// mttReserved marks bits 7:2 of the second dword.
const mttReserved = 0xfc

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
	e := DecodeMTTEntry(b)
	if r := binary.BigEndian.Uint32(b[4:]) & mttReserved; r != 0 {
		return e, &ReservedBitsError{Format: "MTT entry", Dwords: []ReservedDword{{Offset: 4, Bits: r}}}
	}
	return e, nil
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
