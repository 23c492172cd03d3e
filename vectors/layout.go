package vectors

import (
	"fmt"
	"strings"
)

// Field directions.
const (
	// DirFrame fields are checked by the harness and never reach the DUT:
	// the marker, the vector's sequence number, padding, and (top) the
	// world that selects the memory image.
	DirFrame = "frame"
	// DirInput fields are driven to the DUT port of the same name.
	DirInput = "input"
	// DirExpected fields are compared with the DUT output of the same
	// name, when their compare_when condition holds.
	DirExpected = "expected"
)

// Marker is the value of every line's top byte: a line that $readmemh read
// short (fewer digits), shifted (extra digits) or not at all (the harness's
// all-ones sentinel) does not carry it.
const Marker = 0xa5

// Field is one field of a vector line or of a table line.
type Field struct {
	Name  string `json:"name"`
	Width int    `json:"width"`
	// LSB is the bit position of the field's least significant bit in the
	// line; bit 0 is the last hex digit's low bit.
	LSB     int    `json:"lsb"`
	Dir     string `json:"direction"`
	Meaning string `json:"meaning"`
	// CompareWhen is a SystemVerilog expression over the input ports
	// (by name) and the expected values (exp_NAME); the field is compared
	// only where it is true. Empty: always compared.
	CompareWhen string `json:"compare_when,omitempty"`
	// Enum names the entry of Manifest.Enums that gives the field's values.
	Enum string `json:"enum,omitempty"`
	// Format names the entry of Manifest.Formats that gives the bits
	// inside the field (a PRM image: mkc, mtt_entry, klm_entry).
	Format string `json:"format,omitempty"`
}

// Layout places fields in a line, most significant first: the marker and
// the sequence number, padding to a whole hex digit, the inputs, then the
// expected outputs.
type Layout struct {
	Fields []Field
	Width  int
	byName map[string]int
}

// newLayout lays out the fields given (frame fields other than marker and
// seq first, then inputs, then expected), adding marker, seq and padding.
func newLayout(fields []Field) *Layout {
	all := []Field{
		{Name: "marker", Width: 8, Dir: DirFrame, Meaning: fmt.Sprintf("always %#x: a line read short, shifted or not at all lacks it", Marker)},
		{Name: "seq", Width: 32, Dir: DirFrame, Meaning: "the vector's number, from 0: the line's position in the file"},
	}
	width := 40
	for _, f := range fields {
		width += f.Width
	}
	if pad := (4 - width%4) % 4; pad != 0 {
		all = append(all, Field{Name: "pad", Width: pad, Dir: DirFrame, Meaning: "zero, to fill the first hex digit"})
		width += pad
	}
	all = append(all, fields...)
	return layoutOf(all)
}

// layoutOf assigns LSBs to fields listed most significant first.
func layoutOf(fields []Field) *Layout {
	l := &Layout{byName: make(map[string]int, len(fields))}
	for _, f := range fields {
		l.Width += f.Width
	}
	pos := l.Width
	for _, f := range fields {
		pos -= f.Width
		f.LSB = pos
		l.byName[f.Name] = len(l.Fields)
		l.Fields = append(l.Fields, f)
	}
	return l
}

// HexDigits is the number of hex digits of a line.
func (l *Layout) HexDigits() int { return (l.Width + 3) / 4 }

// Field returns the named field.
func (l *Layout) Field(name string) (Field, bool) {
	i, ok := l.byName[name]
	if !ok {
		return Field{}, false
	}
	return l.Fields[i], true
}

func (l *Layout) mustField(name string) Field {
	f, ok := l.Field(name)
	if !ok {
		panic("vectors: no field " + name)
	}
	return f
}

// Line is one vector line as little-endian 64-bit words: word 0 holds bits
// 63..0.
type Line []uint64

func (l *Layout) newLine() Line { return make(Line, (l.Width+63)/64) }

// setBits writes the low w bits of v at lsb (w <= 64).
func (ln Line) setBits(lsb, w int, v uint64) {
	if w < 64 {
		v &= 1<<uint(w) - 1
	}
	for w > 0 {
		i, o := lsb/64, lsb%64
		n := min(w, 64-o)
		m := ^uint64(0)
		if n < 64 {
			m = 1<<uint(n) - 1
		}
		ln[i] = ln[i]&^(m<<uint(o)) | (v&m)<<uint(o)
		v >>= uint(n % 64)
		if n == 64 {
			v = 0
		}
		lsb += n
		w -= n
	}
}

// getBits reads w bits at lsb (w <= 64).
func (ln Line) getBits(lsb, w int) uint64 {
	var v uint64
	shift := 0
	for w > 0 {
		i, o := lsb/64, lsb%64
		n := min(w, 64-o)
		m := ^uint64(0)
		if n < 64 {
			m = 1<<uint(n) - 1
		}
		v |= (ln[i] >> uint(o) & m) << uint(shift)
		shift += n
		lsb += n
		w -= n
	}
	return v
}

// setBytes writes a big-endian byte string (a PRM image) as a field of
// 8*len(b) bits at lsb: b[0] lands in the field's top byte.
func (ln Line) setBytes(lsb int, b []byte) {
	for k := range b {
		ln.setBits(lsb+8*(len(b)-1-k), 8, uint64(b[k]))
	}
}

// getBytes reads a field of 8*n bits at lsb as a big-endian byte string.
func (ln Line) getBytes(lsb, n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(ln.getBits(lsb+8*(n-1-k), 8))
	}
	return b
}

// set writes the named field (at most 64 bits).
func (l *Layout) set(ln Line, name string, v uint64) {
	f := l.mustField(name)
	if f.Width > 64 {
		panic("vectors: field " + name + " is wider than 64 bits")
	}
	if f.Width < 64 && v>>uint(f.Width) != 0 {
		panic(fmt.Sprintf("vectors: %s = %#x does not fit %d bits", name, v, f.Width))
	}
	ln.setBits(f.LSB, f.Width, v)
}

// setImage writes a byte image into the named field of 8*len(b) bits.
func (l *Layout) setImage(ln Line, name string, b []byte) {
	f := l.mustField(name)
	if f.Width != 8*len(b) {
		panic(fmt.Sprintf("vectors: %s is %d bits, image %d bytes", name, f.Width, len(b)))
	}
	ln.setBytes(f.LSB, b)
}

// Get reads a field of at most 64 bits (the low 64 of a wider one).
func (l *Layout) Get(ln Line, name string) uint64 {
	f := l.mustField(name)
	return ln.getBits(f.LSB, min(f.Width, 64))
}

// GetImage reads a field as a big-endian byte string.
func (l *Layout) GetImage(ln Line, name string) []byte {
	f := l.mustField(name)
	return ln.getBytes(f.LSB, f.Width/8)
}

// frame writes the marker and the sequence number.
func (l *Layout) frame(ln Line, seq int) {
	l.set(ln, "marker", Marker)
	l.set(ln, "seq", uint64(seq))
}

const hexDigits = "0123456789abcdef"

// appendHex appends the line as digits hex digits, most significant first.
func appendHex(dst []byte, ln Line, digits int) []byte {
	for d := digits - 1; d >= 0; d-- {
		bit := 4 * d
		dst = append(dst, hexDigits[ln[bit/64]>>uint(bit%64)&0xf])
	}
	return dst
}

// ParseHexLine parses one line of a vector file back into words.
func ParseHexLine(s string, width int) (Line, error) {
	s = strings.TrimSpace(s)
	digits := (width + 3) / 4
	if len(s) != digits {
		return nil, fmt.Errorf("line has %d hex digits, want %d", len(s), digits)
	}
	ln := make(Line, (width+63)/64)
	for k := 0; k < digits; k++ {
		c := s[len(s)-1-k]
		var v uint64
		switch {
		case c >= '0' && c <= '9':
			v = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			v = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v = uint64(c-'A') + 10
		default:
			return nil, fmt.Errorf("bad hex digit %q", c)
		}
		if 4*k+4 > width && v>>uint(width-4*k) != 0 {
			return nil, fmt.Errorf("line is wider than %d bits", width)
		}
		ln[4*k/64] |= v << uint(4*k%64)
	}
	return ln, nil
}
