package scenario

import (
	"bytes"
	"fmt"
)

// The parser's reading of a checked document: JSON paths for the errors,
// objects against the keys they may hold, arrays, numbers, flags and
// names. Each keeps the first error, at the path where it arose.

// path is a JSON path (ops[3].len), kept as its parts and written out only
// for an error, so that walking a document builds no strings.
type path struct {
	n     int
	parts [8]pathPart // deeper than any path of the format
}

// pathPart is a field name or an array index.
type pathPart struct {
	name  string
	index int // -1 for a name
}

func (p path) dot(name string) path {
	if p.n < len(p.parts) {
		p.parts[p.n] = pathPart{name: name, index: -1}
		p.n++
	}
	return p
}

func (p path) at(i int) path {
	if p.n < len(p.parts) {
		p.parts[p.n] = pathPart{index: i}
		p.n++
	}
	return p
}

func (p path) String() string {
	var b []byte
	for _, part := range p.parts[:p.n] {
		if part.index >= 0 {
			b = fmt.Appendf(b, "[%d]", part.index)
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, part.name...)
	}
	return string(b)
}

// parser walks the checked document, keeping the first error.
type parser struct {
	err          *Error
	iommuSection *IOMMU  // the iommu section, nil when none (iommu_unmap needs one)
	mkcVals      []value // scratch: an mkc object's members by mkcFields position
}

func (p *parser) fail(at path, format string, a ...any) {
	if p.err == nil {
		p.err = &Error{Path: at.String(), Msg: fmt.Sprintf(format, a...)}
	}
}

func kindOf(v value) string {
	switch v.kind {
	case jsonNull:
		return "null"
	case jsonBool:
		return "a boolean"
	case jsonNumber:
		return "a number"
	case jsonString:
		return "a string"
	case jsonArray:
		return "an array"
	case jsonObject:
		return "an object"
	}
	return "a value"
}

// obj is an object's members that a caller asked for, by position in its
// list of names.
type obj struct {
	ok    bool // the value was an object
	names []string
	vals  [16]value // no object of the format has more fields
}

func (o *obj) get(name string) (value, bool) {
	for i, n := range o.names {
		if n == name {
			return o.vals[i], o.vals[i].kind != absent
		}
	}
	return value{}, false
}

// object checks that v is an object whose keys are all in allowed, each
// once, and returns its members. A repeated key is reported first, by
// its second place in the document; then an unknown key, by the first in
// sorted order.
func (p *parser) object(at path, v value, allowed ...string) obj {
	o := obj{names: allowed}
	if v.kind != jsonObject {
		p.fail(at, "want an object, got %s", kindOf(v))
		return o
	}
	o.ok = true
	var unknown, repeated []byte
	hasUnknown, hasRepeated := false, false
	for k, val := range v.members() {
		i := indexOf(allowed, k)
		switch {
		case i < 0:
			if !hasUnknown || bytes.Compare(k, unknown) < 0 {
				unknown, hasUnknown = k, true
			}
		case o.vals[i].kind != absent:
			if !hasRepeated {
				repeated, hasRepeated = k, true
			}
		default:
			o.vals[i] = val
		}
	}
	if hasRepeated {
		p.fail(at.dot(keyName(repeated)), "duplicate key %s", quote(repeated))
	}
	if hasUnknown {
		p.fail(at.dot(keyName(unknown)), "unknown field %s", quote(unknown))
	}
	return o
}

// indexOf is the position of name in names, or -1.
func indexOf(names []string, name []byte) int {
	for i, n := range names {
		if n == string(name) {
			return i
		}
	}
	return -1
}

// array checks that v is an array.
func (p *parser) array(at path, v value) {
	if v.kind != jsonArray {
		p.fail(at, "want an array, got %s", kindOf(v))
	}
}

// number parses an unsigned value of width bits: a JSON integer literal, or
// a string of decimal digits or 0x and hex digits.
func (p *parser) number(at path, v value, width int) uint64 {
	var s []byte
	hexOK := false
	switch v.kind {
	case jsonNumber:
		s = v.raw
	case jsonString:
		s = v.str()
		hexOK = true
	default:
		p.fail(at, "want a number, got %s", kindOf(v))
		return 0
	}
	n, err := parseUint(s, hexOK)
	if err != nil {
		p.fail(at, "%v", err)
		return 0
	}
	if width < 64 && n>>uint(width) != 0 {
		p.fail(at, "value %s wider than %d bits", clip(s), width)
		return 0
	}
	return n
}

// ParseUint parses decimal digits, or (with hexOK) 0x/0X and hex digits,
// exactly into 64 bits.
func ParseUint(s string, hexOK bool) (uint64, error) { return parseUint(s, hexOK) }

func parseUint[S ~string | ~[]byte](s S, hexOK bool) (uint64, error) {
	digits, base := s, uint64(10)
	if hexOK && len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		digits, base = s[2:], 16
	}
	if len(digits) == 0 {
		return 0, fmt.Errorf("bad number %s", quote(s))
	}
	var n uint64
	overflow := false
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, fmt.Errorf("bad number %s: want unsigned decimal digits or 0x and hex digits", quote(s))
		}
		if n > (^uint64(0)-d)/base {
			overflow = true
		}
		n = n*base + d
	}
	if overflow {
		return 0, fmt.Errorf("value %s wider than 64 bits", clip(s))
	}
	return n, nil
}

// flag parses true, false, 0 or 1.
func (p *parser) flag(at path, v value) bool {
	switch v.kind {
	case jsonBool:
		return v.raw[0] == 't'
	case jsonNumber:
		switch string(v.raw) {
		case "0":
			return false
		case "1":
			return true
		}
	}
	p.fail(at, "want true, false, 0 or 1, got %s", describe(v))
	return false
}

func describe(v value) string {
	switch v.kind {
	case jsonNumber:
		return clip(v.raw)
	case jsonString:
		return quote(v.str())
	}
	return kindOf(v)
}

// name is the text of a name (a string value).
func (p *parser) name(at path, v value) []byte {
	if v.kind != jsonString {
		p.fail(at, "want a name, got %s", kindOf(v))
	}
	return v.str()
}

// required is o's field, reported missing when o is an object without it.
func (p *parser) required(at path, o *obj, field string) (value, bool) {
	v, ok := o.get(field)
	if !ok && o.ok {
		p.fail(at.dot(field), "missing required field")
	}
	return v, ok
}
