package prm

import (
	"fmt"
	"unsafe"
)

// One field table per fixed-size format: the table alone says where each
// field's bits lie, and pack, parse, the reserved mask, lookup by name and
// the descriptions the vectors' manifests and SystemVerilog packages are
// generated from all read it. A new format is a table, not three
// functions.

// FieldBits is where one field of a format lies: its name, its width and
// its bits, most significant part first, with its name in the source the
// format comes from where that differs.
type FieldBits struct {
	Name  string
	Width int
	Parts []BitRange
	// Spec is the field's name in the format's source where it differs
	// from Name (the MKC's variant is translation.md's mkey[7:0]), or "".
	Spec string
}

// Field is one field of a format whose value is a T: its bits, and where
// its value lies in a T.
type Field[T any] struct {
	FieldBits
	acc access
}

// Get returns the field's value in v.
func (f Field[T]) Get(v *T) uint64 { return f.acc.load(unsafe.Pointer(v)) }

// Set stores x in the field of v; it fails, naming the field, if x does
// not fit the field's width.
func (f Field[T]) Set(v *T, x uint64) error {
	if f.Width < 64 && x>>uint(f.Width) != 0 {
		return fmt.Errorf("%s: value %#x wider than %d bits", f.Name, x, f.Width)
	}
	f.acc.store(unsafe.Pointer(v), x)
	return nil
}

// assign sets the field of dst to its value in src, uncut.
func (f Field[T]) assign(dst, src *T) {
	f.acc.store(unsafe.Pointer(dst), f.acc.load(unsafe.Pointer(src)))
}

// Format describes a fixed-size format without its Go type: what the
// vectors' manifests and SystemVerilog packages are made from.
type Format struct {
	// Name is the format as errors name it ("MTT entry").
	Name string
	// Ident is the format as an identifier ("mtt_entry").
	Ident string
	// Source is where the layout comes from ("translation.md 2.3").
	Source string
	// Size is the format's size in bytes, a multiple of 4.
	Size int
	// Fields are in wire order.
	Fields []FieldBits
}

// Layout is a fixed-size format of big-endian dwords and the Go type T its
// value is, described by one field table in wire order. Bits that no
// field covers are reserved: Put writes them as 0, Parse reports them set,
// Decode ignores them. A Layout is built once, at package initialisation,
// and never changes.
type Layout[T any] struct {
	format   Format
	fields   []Field[T]
	reserved []uint32
	byName   map[string]int
	// prog is the table compiled for Put and Decode.
	prog program
}

// newLayout builds a format's layout from its table. It panics on a table
// that cannot be one: a part outside the format or its dword, parts that
// do not add up to their field's width, two fields on one bit, one name
// twice.
func newLayout[T any](name, ident, source string, size int, fields ...Field[T]) *Layout[T] {
	if size <= 0 || size%4 != 0 {
		panic(fmt.Sprintf("prm: %s: size %d is not a whole number of dwords", name, size))
	}
	l := &Layout[T]{
		format: Format{Name: name, Ident: ident, Source: source, Size: size},
		fields: fields, byName: make(map[string]int, len(fields)),
	}
	covered := make([]uint32, size/4)
	for i, f := range fields {
		if _, dup := l.byName[f.Name]; dup {
			panic(fmt.Sprintf("prm: %s: field %s twice", name, f.Name))
		}
		l.byName[f.Name] = i
		w := 0
		for _, p := range f.Parts {
			if p.Offset < 0 || p.Offset%4 != 0 || p.Offset >= size || p.Lo < 0 || p.Hi > 31 || p.Hi < p.Lo {
				panic(fmt.Sprintf("prm: %s: field %s: part %+v outside the format", name, f.Name, p))
			}
			if covered[p.Offset/4]&p.mask() != 0 {
				panic(fmt.Sprintf("prm: %s: field %s overlaps another at %02Xh %d:%d", name, f.Name, p.Offset, p.Hi, p.Lo))
			}
			covered[p.Offset/4] |= p.mask()
			w += p.Width()
		}
		if w != f.Width || w > 64 {
			panic(fmt.Sprintf("prm: %s: field %s: parts of %d bits for a width of %d", name, f.Name, w, f.Width))
		}
		if a := f.acc; a.kind == kindBool && w != 1 || w+int(a.shift) > 8*int(a.size) {
			panic(fmt.Sprintf("prm: %s: field %s: %d bits do not fit its Go value", name, f.Name, w))
		}
		l.format.Fields = append(l.format.Fields, f.FieldBits)
	}
	l.prog = compile(fields)
	l.reserved = make([]uint32, len(covered))
	for i, c := range covered {
		l.reserved[i] = ^c
	}
	return l
}

// field is a table row of an unsigned field of T, its width the sum of
// its parts'; p points at the field in a T, whose type may be wider than
// the field (Put cuts it to the width).
func field[T any, U ~uint8 | ~uint16 | ~uint32 | ~uint64](name string, p func(*T) *U, parts ...BitRange) Field[T] {
	return Field[T]{FieldBits: bitsOf(name, parts), acc: at(p, kindUint, 0)}
}

// shifted is a field whose bits are those of the value p points at from
// bit shift up, the bits below having no place in the format (the MTT
// entry's ptag[63:8]).
func shifted[T any](name string, shift uint8, p func(*T) *uint64, parts ...BitRange) Field[T] {
	return Field[T]{FieldBits: bitsOf(name, parts), acc: at(p, kindUint, shift)}
}

// flag is a table row of a one-bit field of T held as a bool.
func flag[T any](name string, off, bit int, p func(*T) *bool) Field[T] {
	return Field[T]{FieldBits: bitsOf(name, []BitRange{r(off, bit, bit)}), acc: at(p, kindBool, 0)}
}

// opaque is a table row of a dword that T carries as 4 bytes in wire
// order, uninterpreted.
func opaque[T any](name string, p func(*T) *[4]byte, parts ...BitRange) Field[T] {
	return Field[T]{FieldBits: bitsOf(name, parts), acc: at(p, kindBytes, 0)}
}

// spec names a row's field as its source does.
func (f Field[T]) spec(s string) Field[T] {
	f.Spec = s
	return f
}

func bitsOf(name string, parts []BitRange) FieldBits {
	w := 0
	for _, p := range parts {
		w += p.Width()
	}
	return FieldBits{Name: name, Width: w, Parts: parts}
}

// r is bits hi..lo of the dword at byte offset off.
func r(off, hi, lo int) BitRange { return BitRange{Offset: off, Hi: hi, Lo: lo} }

// dw is the whole dword at byte offset off.
func dw(off int) BitRange { return r(off, 31, 0) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Format returns the layout's description, its Go type aside.
func (l *Layout[T]) Format() Format {
	f := l.format
	f.Fields = append([]FieldBits(nil), f.Fields...)
	return f
}

// Name is the format as errors name it.
func (l *Layout[T]) Name() string { return l.format.Name }

// Size is the format's size in bytes.
func (l *Layout[T]) Size() int { return l.format.Size }

// Fields returns the field table in wire order (a copy).
func (l *Layout[T]) Fields() []Field[T] { return append([]Field[T](nil), l.fields...) }

// Lookup finds a field by name.
func (l *Layout[T]) Lookup(name string) (Field[T], bool) {
	i, ok := l.byName[name]
	if !ok {
		return Field[T]{}, false
	}
	return l.fields[i], true
}

// ReservedMask returns, per dword, the bits no field covers.
func (l *Layout[T]) ReservedMask() []uint32 { return append([]uint32(nil), l.reserved...) }

// Put packs v into b[:Size]: each field cut to its width, every reserved
// bit 0.
func (l *Layout[T]) Put(b []byte, v *T) {
	b = b[:l.format.Size]
	clear(b)
	l.prog.put(b, unsafe.Pointer(v))
}

// Append packs v and appends its Size bytes to b.
func (l *Layout[T]) Append(b []byte, v *T) []byte {
	n := len(b)
	b = append(b, make([]byte, l.format.Size)...)
	l.Put(b[n:], v)
	return b
}

// Decode sets v to the fields of b[:Size] as hardware reads them,
// ignoring reserved bits.
func (l *Layout[T]) Decode(v *T, b []byte) {
	b = b[:l.format.Size]
	var zero T
	*v = zero
	l.prog.decode(unsafe.Pointer(v), b)
}

// Parse parses exactly Size bytes. A buffer of another length is a
// *SizeError; set reserved bits are reported as a *ReservedBitsError
// beside the fully decoded value.
func (l *Layout[T]) Parse(b []byte) (T, error) {
	var v T
	if len(b) != l.format.Size {
		return v, &SizeError{Format: l.format.Name, Want: l.format.Size, Got: len(b)}
	}
	l.Decode(&v, b)
	return v, l.checkReserved(l.format.Name, b)
}

// checkReserved reports the set reserved bits of b[:Size] as a
// *ReservedBitsError naming format, or returns nil.
func (l *Layout[T]) checkReserved(format string, b []byte) error {
	return checkReserved(format, b[:l.format.Size], l.reserved)
}
