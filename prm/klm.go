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

// Put packs e into b[:16].
func (e KLMEntry) Put(b []byte) { putCountKeyAddr(b, e.ByteCount, e.MKey, e.Address) }

// Append appends the 16-byte entry to b.
func (e KLMEntry) Append(b []byte) []byte { return appendPut(b, KLMEntrySize, e) }

// ParseKLMEntry parses 16 bytes; a KLM entry has no reserved bits.
func ParseKLMEntry(b []byte) (KLMEntry, error) {
	if len(b) != KLMEntrySize {
		return KLMEntry{}, &SizeError{Format: "KLM entry", Want: KLMEntrySize, Got: len(b)}
	}
	return DecodeKLMEntry(b), nil
}

// DecodeKLMEntry reads an entry from b[:16].
func DecodeKLMEntry(b []byte) KLMEntry {
	n, k, a := countKeyAddr(b)
	return KLMEntry{ByteCount: n, MKey: k, Address: a}
}

// A KLM entry and a data segment (DataSeg) are one 16-byte layout, the
// kernel's struct mlx5_klm and struct mlx5_wqe_data_seg: 00h byte_count,
// 04h key, 08h address[63:0], no reserved bits.

// putCountKeyAddr packs the layout into b[:16].
func putCountKeyAddr(b []byte, count uint32, key Key, addr uint64) {
	binary.BigEndian.PutUint32(b[0:], count)
	binary.BigEndian.PutUint32(b[4:], uint32(key))
	binary.BigEndian.PutUint64(b[8:], addr)
}

// countKeyAddr reads the layout from b[:16].
func countKeyAddr(b []byte) (count uint32, key Key, addr uint64) {
	return binary.BigEndian.Uint32(b[0:]), Key(binary.BigEndian.Uint32(b[4:])), binary.BigEndian.Uint64(b[8:])
}
