package prm

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// How a field table reaches a field's value in its Go type: through the
// value's offset in the struct, not a closure. A closure called with a
// pointer to the value makes every value packed or parsed escape to the
// heap (the compiler cannot see what an indirect call keeps), and costs
// an indirect call a field; an offset costs neither. The offset is taken
// once, from the row's typed accessor (func(*T) *U), so the table stays
// typed: a row names the struct field, never a number.

// accessKind says how the bytes at a field's offset hold its value.
type accessKind uint8

const (
	kindUint  accessKind = iota // an unsigned integer of size bytes, native order
	kindBool                    // a bool: 0 or 1
	kindBytes                   // 4 bytes in wire (big-endian) order
)

// access reaches one field's value in a Go value: at off, as kind, the
// field's bits shift bits up in it (the MTT entry's ptag[63:8] is PTag).
type access struct {
	off   uintptr
	kind  accessKind
	size  uint8
	shift uint8
}

// at is the access of the value p points at in a T. It panics if p does
// not point into the T it is given.
func at[T any, U any](p func(*T) *U, kind accessKind, shift uint8) access {
	var probe T
	var u U
	base := uintptr(unsafe.Pointer(&probe))
	off := uintptr(unsafe.Pointer(p(&probe))) - base
	if off+unsafe.Sizeof(u) > unsafe.Sizeof(probe) {
		panic(fmt.Sprintf("prm: an accessor of %T points outside it", probe))
	}
	return access{off: off, kind: kind, size: uint8(unsafe.Sizeof(u)), shift: shift}
}

// load reads the field's value from the Go value at v.
func (a access) load(v unsafe.Pointer) uint64 {
	return loadAt(v, a.off, a.kind, a.size) >> a.shift
}

// store writes x as the field's value into the Go value at v.
func (a access) store(v unsafe.Pointer, x uint64) {
	clear(unsafe.Slice((*byte)(unsafe.Add(v, a.off)), a.size))
	orAt(v, a.off, a.kind, a.size, x<<a.shift)
}

// loadAt reads the value at v+off.
func loadAt(v unsafe.Pointer, off uintptr, kind accessKind, size uint8) uint64 {
	p := unsafe.Add(v, off)
	switch {
	case kind == kindBool:
		return uint64(*(*uint8)(p) & 1)
	case kind == kindBytes:
		return uint64(binary.BigEndian.Uint32((*[4]byte)(p)[:]))
	case size == 1:
		return uint64(*(*uint8)(p))
	case size == 2:
		return uint64(*(*uint16)(p))
	case size == 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// orAt ORs x into the value at v+off, cut to the value's size.
func orAt(v unsafe.Pointer, off uintptr, kind accessKind, size uint8, x uint64) {
	p := unsafe.Add(v, off)
	switch {
	case kind == kindBool:
		*(*uint8)(p) |= uint8(x & 1)
	case kind == kindBytes:
		d := (*[4]byte)(p)[:]
		binary.BigEndian.PutUint32(d, binary.BigEndian.Uint32(d)|uint32(x))
	case size == 1:
		*(*uint8)(p) |= uint8(x)
	case size == 2:
		*(*uint16)(p) |= uint16(x)
	case size == 4:
		*(*uint32)(p) |= uint32(x)
	default:
		*(*uint64)(p) |= x
	}
}
