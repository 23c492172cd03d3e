package prm

import "encoding/binary"

// KLMEntrySize is the size of a KLM entry in bytes.
const KLMEntrySize = 16

// KLMEntry is one entry of a KLM list (translation.md 2.4): a byte count
// (reserved in Fixed Buffer Size mode), the lower MKey and its address.
type KLMEntry struct {
	ByteCount uint32
	MKey      Key
	Address   uint64
}

// KLMEntryLayout is the KLM entry's field table, translation.md 2.4: no
// reserved bits.
var KLMEntryLayout = newLayout("KLM entry", "klm_entry", "translation.md 2.4", KLMEntrySize,
	field("byte_count", func(e *KLMEntry) *uint32 { return &e.ByteCount }, dw(0x00)),
	field("mkey", func(e *KLMEntry) *Key { return &e.MKey }, dw(0x04)),
	field("address", func(e *KLMEntry) *uint64 { return &e.Address }, dw(0x08), dw(0x0C)),
)

// The KLM walk decodes an entry per step and the commands pack whole
// lists, so Put and DecodeKLMEntry are KLMEntryLayout written out by hand;
// TestKLMFastPaths and FuzzKLMFastPaths hold them to the table, bit for
// bit.

// Put packs e into b[:16].
func (e KLMEntry) Put(b []byte) {
	b = b[:KLMEntrySize]
	binary.BigEndian.PutUint32(b[0:], e.ByteCount)
	binary.BigEndian.PutUint32(b[4:], uint32(e.MKey))
	binary.BigEndian.PutUint64(b[8:], e.Address)
}

// Append appends the 16-byte entry to b.
func (e KLMEntry) Append(b []byte) []byte { return appendPut(b, KLMEntrySize, e) }

// ParseKLMEntry parses 16 bytes; a KLM entry has no reserved bits.
func ParseKLMEntry(b []byte) (KLMEntry, error) {
	if len(b) != KLMEntrySize {
		return KLMEntry{}, &SizeError{Format: "KLM entry", Want: KLMEntrySize, Got: len(b)}
	}
	return DecodeKLMEntry(b), KLMEntryLayout.checkReserved("KLM entry", b)
}

// DecodeKLMEntry reads an entry from b[:16].
func DecodeKLMEntry(b []byte) KLMEntry {
	b = b[:KLMEntrySize]
	return KLMEntry{ByteCount: binary.BigEndian.Uint32(b[0:]), MKey: Key(binary.BigEndian.Uint32(b[4:])), Address: binary.BigEndian.Uint64(b[8:])}
}
