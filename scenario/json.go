package scenario

import (
	"encoding/json"
	"iter"
)

// A small JSON reader over the bytes of the document. Parse first checks
// the whole document with it (malformed JSON is reported before anything
// else, as encoding/json would); then the parser walks the values in the
// order it needs them. A value is a kind and a range of the document's
// bytes, so walking copies nothing and allocates nothing: the parsed
// Scenario is all the memory that parsing keeps.

// kind is the kind of a JSON value; absent is the zero value, for a field
// that is not there.
type kind uint8

const (
	absent kind = iota
	jsonNull
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// value is one JSON value of the document.
type value struct {
	kind    kind
	escaped bool   // a string with an escape or a byte outside ASCII
	raw     []byte // its bytes in the document (a string with its quotes)
	n       int    // elements of an array, members of an object
}

// maxDepth is encoding/json's limit on nested arrays and objects.
const maxDepth = 10000

// reader reads JSON values from data; ok turns false at the first syntax
// error, and then every read fails.
type reader struct {
	data  []byte
	pos   int
	depth int
	ok    bool
}

// validDocument reports whether data is exactly one JSON value with
// optional white space around it, and returns that value.
func validDocument(data []byte) (value, bool) {
	r := reader{data: data, ok: true}
	v := r.value()
	r.space()
	return v, r.ok && r.pos == len(data)
}

func (r *reader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (r *reader) peek() byte {
	r.space()
	if r.pos < len(r.data) {
		return r.data[r.pos]
	}
	return 0
}

// expect consumes c after white space.
func (r *reader) expect(c byte) {
	if r.peek() != c {
		r.ok = false
		return
	}
	r.pos++
}

// value reads one value.
func (r *reader) value() value {
	if !r.ok {
		return value{}
	}
	var v value
	c := r.peek()
	start := r.pos
	switch {
	case c == '{':
		v.kind = jsonObject
		v.n = r.container('}', true)
	case c == '[':
		v.kind = jsonArray
		v.n = r.container(']', false)
	case c == '"':
		v.kind = jsonString
		v.escaped = r.string()
	case c == '-' || c >= '0' && c <= '9':
		v.kind = jsonNumber
		r.number()
	case c == 't':
		v.kind = jsonBool
		r.literal("true")
	case c == 'f':
		v.kind = jsonBool
		r.literal("false")
	case c == 'n':
		v.kind = jsonNull
		r.literal("null")
	default:
		r.ok = false
	}
	if !r.ok {
		return value{}
	}
	v.raw = r.data[start:r.pos]
	return v
}

// container reads an object (members "key": value) or an array up to its
// closing byte and returns how many members or elements it has.
func (r *reader) container(end byte, object bool) int {
	r.pos++ // the opening byte
	if r.depth++; r.depth > maxDepth {
		r.ok = false
		return 0
	}
	n := 0
	if r.peek() == end {
		r.pos++
		r.depth--
		return 0
	}
	for r.ok {
		if object {
			if r.peek() != '"' {
				r.ok = false
				break
			}
			r.string()
			r.expect(':')
		}
		r.value()
		n++
		switch r.peek() {
		case ',':
			r.pos++
		case end:
			r.pos++
			r.depth--
			return n
		default:
			r.ok = false
		}
	}
	return 0
}

// plain marks the bytes that a string holds as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// string reads a string and reports whether it has an escape or a byte
// outside ASCII.
func (r *reader) string() (escaped bool) {
	r.pos++ // the opening quote
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		r.pos++
		if plain[c] {
			continue
		}
		switch {
		case c == '"':
			return escaped
		case c >= 0x80:
			escaped = true
		case c < 0x20:
			r.ok = false
			return
		case c == '\\':
			escaped = true
			if r.pos >= len(r.data) {
				r.ok = false
				return
			}
			e := r.data[r.pos]
			r.pos++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if r.pos >= len(r.data) || !isHex(r.data[r.pos]) {
						r.ok = false
						return
					}
					r.pos++
				}
			default:
				r.ok = false
				return
			}
		}
	}
	r.ok = false // no closing quote
	return false
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *reader) number() {
	if r.data[r.pos] == '-' {
		r.pos++
	}
	switch {
	case r.pos < len(r.data) && r.data[r.pos] == '0':
		r.pos++
	case r.digits() == 0:
		r.ok = false
		return
	}
	if r.pos < len(r.data) && r.data[r.pos] == '.' {
		r.pos++
		if r.digits() == 0 {
			r.ok = false
			return
		}
	}
	if r.pos < len(r.data) && (r.data[r.pos] == 'e' || r.data[r.pos] == 'E') {
		r.pos++
		if r.pos < len(r.data) && (r.data[r.pos] == '+' || r.data[r.pos] == '-') {
			r.pos++
		}
		if r.digits() == 0 {
			r.ok = false
		}
	}
}

func (r *reader) digits() int {
	start := r.pos
	for r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '9' {
		r.pos++
	}
	return r.pos - start
}

func (r *reader) literal(word string) {
	if len(r.data)-r.pos < len(word) || string(r.data[r.pos:r.pos+len(word)]) != word {
		r.ok = false
		return
	}
	r.pos += len(word)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// The walks below read values that validDocument has checked, so they
// only find where each value ends.

// next reads the next value of a checked document.
func (r *reader) next() value {
	r.space()
	start := r.pos
	var v value
	switch r.data[r.pos] {
	case '"':
		v.kind = jsonString
		v.escaped = r.string()
	case '{':
		v.kind = jsonObject
		v.n = r.skipContainer()
	case '[':
		v.kind = jsonArray
		v.n = r.skipContainer()
	case 't', 'f':
		v.kind = jsonBool
	case 'n':
		v.kind = jsonNull
	default:
		v.kind = jsonNumber
	}
	if v.kind <= jsonNumber { // a literal or a number: up to a delimiter
		for r.pos < len(r.data) && !delimiter[r.data[r.pos]] {
			r.pos++
		}
	}
	v.raw = r.data[start:r.pos]
	return v
}

// delimiter marks the bytes that end a number or a literal.
var delimiter = func() (t [256]bool) {
	for _, c := range []byte(",]} \t\n\r") {
		t[c] = true
	}
	return t
}()

// skipContainer skips a checked object or array and returns how many
// members or elements it has.
func (r *reader) skipContainer() int {
	r.pos++ // the opening byte
	if c := r.peek(); c == '}' || c == ']' {
		r.pos++
		return 0
	}
	n, depth := 1, 1
	for {
		c := r.data[r.pos]
		if c == '"' {
			r.string()
			continue
		}
		r.pos++
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return n
			}
		case ',':
			if depth == 1 {
				n++
			}
		}
	}
}

// elems yields the index and value of each element of an array; nothing
// for any other kind.
func (v value) elems() iter.Seq2[int, value] {
	return func(yield func(int, value) bool) {
		if v.kind != jsonArray {
			return
		}
		r := reader{data: v.raw, pos: 1, ok: true}
		for i := 0; r.peek() != ']'; i++ {
			if !yield(i, r.next()) {
				return
			}
			if r.peek() == ',' {
				r.pos++
			}
		}
	}
}

// members yields the key and value of each member of an object, in the
// document's order; nothing for any other kind.
func (v value) members() iter.Seq2[[]byte, value] {
	return func(yield func([]byte, value) bool) {
		if v.kind != jsonObject {
			return
		}
		r := reader{data: v.raw, pos: 1, ok: true}
		for r.peek() != '}' {
			key := r.next().str()
			r.expect(':')
			if !yield(key, r.next()) {
				return
			}
			if r.peek() == ',' {
				r.pos++
			}
		}
	}
}

// member is the value of the first member of an object named key.
func (v value) member(key string) (value, bool) {
	for k, val := range v.members() {
		if string(k) == key {
			return val, true
		}
	}
	return value{}, false
}

// str is the text of a string value (nil for any other kind). Only a
// string with an escape or a byte outside ASCII is decoded, by
// encoding/json, so that it means exactly what it did to the decoder
// this replaced (invalid UTF-8 becomes U+FFFD); any other is a slice of
// the document.
func (v value) str() []byte {
	if v.kind != jsonString {
		return nil
	}
	s := v.raw[1 : len(v.raw)-1]
	if v.escaped {
		var dec string
		if json.Unmarshal(v.raw, &dec) != nil {
			return s // cannot happen: the document was checked
		}
		return []byte(dec)
	}
	return s
}
