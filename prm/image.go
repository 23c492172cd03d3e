package prm

import "slices"

// putter is a format of a fixed size that packs itself into bytes.
type putter interface{ Put(b []byte) }

// appendPut appends to b the size bytes that v packs (its Put), its
// reserved bits zero: the Append of every fixed-size format.
func appendPut[T putter](b []byte, size int, v T) []byte {
	n := len(b)
	b = slices.Grow(b, size)[:n+size]
	clear(b[n:])
	v.Put(b[n:])
	return b
}
