package prm

import (
	"encoding/binary"
	"unsafe"
)

// A field table compiled for pack and decode: one step per bit range, in
// wire order, each knowing its dword, its mask and where its value lies
// in the Go value. The steps are not generic: a generic loop over
// Field[T] goes through the instantiation's dictionary for every field,
// and a caller in another package, which cannot see how the shaped
// instantiation uses its pointer, moves the value packed to the heap.

// step is one bit range of a field reached at an offset.
type step struct {
	off   uint16 // byte offset of the dword in the image
	lo    uint8  // the range's least significant bit in its dword
	width uint8  // bits in the range
	below uint8  // bits of the Go value below the range's (the field's later parts, its shift)
	kind  accessKind
	size  uint8   // bytes of the value in the Go value
	voff  uintptr // offset of the value in the Go value
	mask  uint32  // the range's bits in its dword
}

// program is a table's steps.
type program []step

// compile turns a table's fields into steps.
func compile[T any](fields []Field[T]) program {
	var prog program
	for _, f := range fields {
		below := f.Width
		for _, p := range f.Parts {
			below -= p.Width()
			prog = append(prog, step{off: uint16(p.Offset), lo: uint8(p.Lo), width: uint8(p.Width()), below: uint8(below) + f.acc.shift,
				kind: f.acc.kind, size: f.acc.size, voff: f.acc.off, mask: p.mask()})
		}
	}
	return prog
}

// put ORs every step's bits of the value at v into b, which must be clear
// where the steps lie.
func (pr program) put(b []byte, v unsafe.Pointer) {
	be := binary.BigEndian
	for i := range pr {
		s := &pr[i]
		x := loadAt(v, s.voff, s.kind, s.size) >> s.below
		d := b[s.off : s.off+4]
		be.PutUint32(d, be.Uint32(d)|uint32(x<<s.lo)&s.mask)
	}
}

// decode ORs every step's bits of b into the value at v, which must be
// zero.
func (pr program) decode(v unsafe.Pointer, b []byte) {
	be := binary.BigEndian
	for i := range pr {
		s := &pr[i]
		x := uint64(be.Uint32(b[s.off:s.off+4])&s.mask>>s.lo) << s.below
		orAt(v, s.voff, s.kind, s.size, x)
	}
}
