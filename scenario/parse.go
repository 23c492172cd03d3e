package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"mkeysim/prm"
)

// Error is a scenario error: the JSON path where it arose and why.
type Error struct {
	File string
	Path string // like ops[3].len; empty for the whole document
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ReadFile parses the scenario file at path.
func ReadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	sc, err := Parse(data)
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			se.File = path
			return nil, se
		}
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return sc, nil
}

// Parse parses a scenario document.
//
// Memory: Parse reads data in place and keeps nothing of it. Besides the
// Scenario it returns, with its slices sized exactly, it allocates only
// for strings written with escapes or outside ASCII, and for an error.
// Its peak heap beyond data is therefore the Scenario plus a constant:
// one Op (unsafe.Sizeof(Op{}), 64 bytes) an operation, plus the MKey or
// UMR of the ops that carry one. For a file made mostly of access ops
// written as in scenario.md (about 110 bytes each) that is half a byte per
// byte of file (TestParseMemory); the worst is a file of the shortest op
// that allocates, {"op":"create_mkey"}, at about 11. A long array of
// short bad elements costs no more than that before its error.
func Parse(data []byte) (*Scenario, error) {
	doc, ok := validDocument(data)
	if !ok {
		return nil, syntaxError(data)
	}
	p := &parser{}
	sc := p.scenario(doc)
	if p.err != nil {
		return nil, p.err
	}
	return sc, nil
}

// syntaxError describes why data is not one JSON document, with the
// messages of encoding/json. It runs only on a document already found
// malformed.
func syntaxError(data []byte) *Error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return &Error{Msg: jsonError(data, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Msg: fmt.Sprintf("malformed JSON: extra data after the document at byte %d", dec.InputOffset())}
	}
	return &Error{Msg: "malformed JSON"} // not reached: the two readers agree (FuzzValid)
}

func jsonError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &ue):
		off = ue.Offset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: unexpected end of input"
	}
	if off < 0 {
		return "malformed JSON: " + err.Error()
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("malformed JSON at line %d column %d: %v", line, col, err)
}

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
	err     *Error
	mkcVals []value // scratch: an mkc object's members by mkcFields position
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

func (p *parser) required(at path, o *obj, field string) (value, bool) {
	v, ok := o.get(field)
	if !ok && o.ok {
		p.fail(at.dot(field), "missing required field")
	}
	return v, ok
}

func (p *parser) scenario(doc value) *Scenario {
	var root path
	o := p.object(root, doc, "qps", "mkeys", "ops")
	if !o.ok {
		return nil
	}
	sc := &Scenario{}
	qpns := map[uint32]bool{}
	if v, ok := o.get("qps"); ok {
		p.array(root.dot("qps"), v)
		sc.QPs = makeFor[QP](v, len(`{"qpn":0,"pd":0}`))
		for i, q := range v.elems() {
			at := root.dot("qps").at(i)
			qo := p.object(at, q, "qpn", "pd", "type")
			var qp QP
			if v, ok := p.required(at, &qo, "qpn"); ok {
				qp.QPN = uint32(p.number(at.dot("qpn"), v, 24))
			}
			if v, ok := p.required(at, &qo, "pd"); ok {
				qp.PD = uint32(p.number(at.dot("pd"), v, 24))
			}
			if v, ok := qo.get("type"); ok {
				switch t := p.name(at.dot("type"), v); string(t) {
				case "RC":
				case "REG_UMR":
					qp.RegUMR = true
				default:
					p.fail(at.dot("type"), "unknown QP type %s (want RC or REG_UMR)", quote(t))
				}
			}
			if p.err == nil && qpns[qp.QPN] {
				p.fail(at.dot("qpn"), "duplicate qpn %d", qp.QPN)
			}
			if p.err != nil {
				return sc
			}
			qpns[qp.QPN] = true
			sc.QPs = append(sc.QPs, qp)
		}
	}
	if v, ok := o.get("mkeys"); ok {
		p.array(root.dot("mkeys"), v)
		sc.MKeys = makeFor[MKey](v, len(`{"index":0}`))
		for i, mk := range v.elems() {
			sc.MKeys = append(sc.MKeys, p.mkey(root.dot("mkeys").at(i), mk, true))
			if p.err != nil {
				return sc
			}
		}
	}
	if v, ok := o.get("ops"); ok {
		p.array(root.dot("ops"), v)
		sc.Ops = makeFor[Op](v, len(`{"op":"create_mkey"}`))
		for i, op := range v.elems() {
			sc.Ops = append(sc.Ops, Op{})
			p.op(&sc.Ops[i], root.dot("ops").at(i), op, qpns)
			if p.err != nil {
				return sc
			}
		}
	}
	return sc
}

// makeFor makes room for the elements of array v: for all of them, but
// no more than could be valid if each takes at least shortest bytes, so
// that a long array of short bad elements costs little before its first
// error. Sized exactly, the Scenario holds no spare capacity. It is nil
// for no elements, as appending none would leave it.
func makeFor[T any](v value, shortest int) []T {
	n := min(v.n, len(v.raw)/shortest)
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}

var mkeyFields = []string{"index", "variant", "mkc", "mkc_hex", "mtt", "klm", "pg_access", "odp"}

// createFields are the fields of a create_mkey op.
var createFields = append([]string{"op"}, mkeyFields...)

// mkey parses an MKey of the mkeys list (needIndex) or of a create_mkey op
// (with the op's own fields).
func (p *parser) mkey(at path, v value, needIndex bool) MKey {
	fields := mkeyFields
	if !needIndex {
		fields = createFields
	}
	o := p.object(at, v, fields...)
	k := MKey{PgAccess: true}
	if !o.ok {
		return k
	}
	if needIndex {
		if v, ok := p.required(at, &o, "index"); ok {
			k.Index, k.HasIndex = uint32(p.number(at.dot("index"), v, 24)), true
		}
	} else if v, ok := o.get("index"); ok {
		k.Index, k.HasIndex = uint32(p.number(at.dot("index"), v, 24)), true
	}
	mkcV, hasMKC := o.get("mkc")
	hexV, hasHex := o.get("mkc_hex")
	if hasMKC && hasHex {
		p.fail(at.dot("mkc_hex"), "give mkc or mkc_hex, not both")
	}
	// Variant: the top-level one, mkc.variant, or mkc_hex's mkey[7:0].
	defaultSize := false
	variantFrom := "" // the path of a variant given before the top-level one
	if hasHex {
		s := p.name(at.dot("mkc_hex"), hexV)
		if p.err == nil {
			mkc, err := prm.ParseMKCHex(string(s))
			if err != nil {
				p.fail(at.dot("mkc_hex"), "%v", err)
			}
			k.MKC = mkc
			variantFrom = at.dot("mkc_hex").String()
		}
	} else {
		var given mkcGiven
		k.MKC, given = p.mkc(at.dot("mkc"), mkcV, hasMKC)
		if !given.has("qpn") {
			k.MKC.QPN = prm.QPNNone
		}
		if given.has("variant") {
			variantFrom = at.dot("mkc").dot("variant").String()
		}
		defaultSize = !given.has("translations_octword_size")
	}
	if v, ok := o.get("variant"); ok {
		tv := uint8(p.number(at.dot("variant"), v, 8))
		if variantFrom != "" && k.MKC.Variant != tv && p.err == nil {
			p.fail(at.dot("variant"), "variant %#x disagrees with %s (%#x)", tv, variantFrom, k.MKC.Variant)
		}
		k.MKC.Variant = tv
	}
	k.MTT, k.KLM = p.lists(at, &o)
	if defaultSize {
		k.MKC.TranslationsOctwordSize = OctwordsFor(len(k.MTT), len(k.KLM))
	}
	if v, ok := o.get("pg_access"); ok {
		k.PgAccess = p.flag(at.dot("pg_access"), v)
	}
	if v, ok := o.get("odp"); ok {
		k.ODP = p.flag(at.dot("odp"), v)
	}
	return k
}

// mkcFields are the MKC's fields sorted by name: an mkc object's fields
// are parsed, and its errors found, in this order.
var mkcFields = func() []prm.Field {
	f := prm.MKCFields()
	slices.SortFunc(f, func(a, b prm.Field) int { return strings.Compare(a.Name, b.Name) })
	if len(f) > 64 {
		panic("scenario: mkcGiven holds 64 fields")
	}
	return f
}()

// mkcGiven tells which fields an mkc object gave, by mkcFields position.
type mkcGiven uint64

func (g mkcGiven) has(name string) bool {
	i := indexOfField(name)
	return i >= 0 && g&(1<<i) != 0
}

func indexOfField[S ~string | ~[]byte](name S) int {
	for i := range mkcFields {
		if mkcFields[i].Name == string(name) {
			return i
		}
	}
	return -1
}

// mkc parses MKC fields by name; it returns which were given.
func (p *parser) mkc(at path, v value, present bool) (prm.MKC, mkcGiven) {
	var mkc prm.MKC
	var given mkcGiven
	if !present {
		return mkc, given
	}
	if v.kind != jsonObject {
		p.fail(at, "want an object, got %s", kindOf(v))
		return mkc, given
	}
	if p.mkcVals == nil {
		p.mkcVals = make([]value, len(mkcFields))
	}
	vals := p.mkcVals
	clear(vals)
	var unknown, repeated []byte
	hasUnknown, hasRepeated := false, false
	for k, val := range v.members() {
		i := indexOfField(k)
		switch {
		case i < 0:
			if !hasUnknown || bytes.Compare(k, unknown) < 0 {
				unknown, hasUnknown = k, true
			}
		case vals[i].kind != absent:
			if !hasRepeated {
				repeated, hasRepeated = k, true
			}
		default:
			vals[i] = val
		}
	}
	if hasRepeated {
		p.fail(at.dot(keyName(repeated)), "duplicate key %s", quote(repeated))
	}
	for i := range mkcFields {
		f := &mkcFields[i]
		v := vals[i]
		if v.kind == absent {
			continue
		}
		if hasUnknown && string(unknown) < f.Name {
			p.fail(at.dot(keyName(unknown)), "unknown MKC field %s", quote(unknown))
			hasUnknown = false
		}
		fat := at.dot(f.Name)
		var val uint64
		switch {
		case f.Name == "access_mode":
			if s := v.str(); v.kind == jsonString && !bytes.HasPrefix(s, []byte("0x")) && !bytes.HasPrefix(s, []byte("0X")) && !isDigits(s) {
				mode, ok := prm.ParseAccessMode(string(s))
				if !ok {
					p.fail(fat, "unknown access mode %s (want one of %s, or a number)", quote(s), strings.Join(prm.ModeNames(), ", "))
				}
				val = uint64(mode)
			} else {
				val = p.number(fat, v, f.Width)
			}
		case f.Width == 1:
			val = b2u(p.flag(fat, v))
		default:
			val = p.number(fat, v, f.Width)
		}
		if p.err == nil {
			if err := f.Set(&mkc, val); err != nil {
				p.fail(fat, "%v", err)
			}
		}
		given |= 1 << i
	}
	if hasUnknown {
		p.fail(at.dot(keyName(unknown)), "unknown MKC field %s", quote(unknown))
	}
	return mkc, given
}

func isDigits(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// lists parses the mtt and klm fields of o (at most one of them).
func (p *parser) lists(at path, o *obj) ([]prm.MTTEntry, []prm.KLMEntry) {
	var mtt []prm.MTTEntry
	var klm []prm.KLMEntry
	mv, hasM := o.get("mtt")
	kv, hasK := o.get("klm")
	if hasM && hasK && nonEmpty(mv) && nonEmpty(kv) {
		p.fail(at.dot("klm"), "give mtt or klm, not both")
		return nil, nil
	}
	if hasM {
		p.array(at.dot("mtt"), mv)
		mtt = makeFor[prm.MTTEntry](mv, len(`{"ptag":0}`))
		for i, e := range mv.elems() {
			ep := at.dot("mtt").at(i)
			eo := p.object(ep, e, "ptag", "rd_en", "wr_en")
			ent := prm.MTTEntry{RdEn: true, WrEn: true}
			if v, ok := p.required(ep, &eo, "ptag"); ok {
				ent.PTag = p.number(ep.dot("ptag"), v, 64)
				if ent.PTag&0xff != 0 && p.err == nil {
					p.fail(ep.dot("ptag"), "ptag %#x has bits 7:0 set", ent.PTag)
				}
			}
			if v, ok := eo.get("rd_en"); ok {
				ent.RdEn = p.flag(ep.dot("rd_en"), v)
			}
			if v, ok := eo.get("wr_en"); ok {
				ent.WrEn = p.flag(ep.dot("wr_en"), v)
			}
			if p.err != nil {
				return nil, nil
			}
			mtt = append(mtt, ent)
		}
	}
	if hasK {
		p.array(at.dot("klm"), kv)
		klm = makeFor[prm.KLMEntry](kv, len(`{"mkey":0,"address":0}`))
		for i, e := range kv.elems() {
			ep := at.dot("klm").at(i)
			eo := p.object(ep, e, "byte_count", "mkey", "address")
			var ent prm.KLMEntry
			if v, ok := eo.get("byte_count"); ok {
				ent.ByteCount = uint32(p.number(ep.dot("byte_count"), v, 32))
			}
			if v, ok := p.required(ep, &eo, "mkey"); ok {
				ent.MKey = prm.Key(p.number(ep.dot("mkey"), v, 32))
			}
			if v, ok := p.required(ep, &eo, "address"); ok {
				ent.Address = p.number(ep.dot("address"), v, 64)
			}
			if p.err != nil {
				return nil, nil
			}
			klm = append(klm, ent)
		}
	}
	return mtt, klm
}

func (p *parser) qpn(at path, o *obj, qpns map[uint32]bool) uint32 {
	v, ok := p.required(at, o, "qpn")
	if !ok {
		return 0
	}
	q := uint32(p.number(at.dot("qpn"), v, 24))
	if p.err == nil && !qpns[q] {
		p.fail(at.dot("qpn"), "qpn %d is not in qps", q)
	}
	return q
}

func (p *parser) key(at path, o *obj) prm.Key {
	if v, ok := p.required(at, o, "key"); ok {
		return prm.Key(p.number(at.dot("key"), v, 32))
	}
	return 0
}

// queryWindow parses a query_mkey's offset and count, 64 bits each: nil
// when neither is given (the default window, QueryWindow.Range).
func (p *parser) queryWindow(at path, o *obj) *QueryWindow {
	ov, hasOff := o.get("offset")
	cv, hasCount := o.get("count")
	if !hasOff && !hasCount {
		return nil
	}
	w := &QueryWindow{HasCount: hasCount}
	if hasOff {
		w.Offset = p.number(at.dot("offset"), ov, 64)
	}
	if hasCount {
		w.Count = p.number(at.dot("count"), cv, 64)
	}
	return w
}

// opFields are the fields of each op, but create_mkey's (createFields).
var opFields = [numOpKind][]string{
	OpAccess:             {"op", "qpn", "key", "addr", "len", "type"},
	OpDestroyMKey:        {"op", "index"},
	OpQueryMKey:          {"op", "index", "offset", "count"},
	OpUMR:                {"op", "qpn", "key", "check_free", "mask", "mkc", "translation_offset", "mtt", "klm"},
	OpLocalInvalidate:    {"op", "qpn", "key"},
	OpSendWithInvalidate: {"op", "qpn", "key"},
	OpPageFaultResume:    {"op", "key", "ok"},
}

// op parses an operation into *op, which is zero.
func (p *parser) op(op *Op, at path, v value, qpns map[uint32]bool) {
	if v.kind != jsonObject {
		p.fail(at, "want an object, got %s", kindOf(v))
		return
	}
	// The op's name tells which fields are known; object below refuses a
	// second one.
	nv, ok := v.member("op")
	if !ok {
		p.fail(at.dot("op"), "missing required field")
		return
	}
	name := p.name(at.dot("op"), nv)
	kind, ok := ParseOpKind(string(name))
	if !ok {
		if p.err == nil {
			p.fail(at.dot("op"), "unknown op %s (want one of %s)", quote(name), strings.Join(opNames[:], ", "))
		}
		return
	}
	op.Kind = kind
	if kind == OpCreateMKey {
		k := p.mkey(at, v, false)
		op.Create = &k
		return
	}
	o := p.object(at, v, opFields[kind]...)
	switch kind {
	case OpAccess:
		a := &op.Access
		a.QPN = p.qpn(at, &o, qpns)
		a.Key = p.key(at, &o)
		if v, ok := p.required(at, &o, "addr"); ok {
			a.Addr = p.number(at.dot("addr"), v, 64)
		}
		if v, ok := p.required(at, &o, "len"); ok {
			a.Len = uint32(p.number(at.dot("len"), v, 32))
		}
		if v, ok := p.required(at, &o, "type"); ok {
			t := p.name(at.dot("type"), v)
			typ, ok := prm.ParseAccessType(string(t))
			if !ok && p.err == nil {
				p.fail(at.dot("type"), "unknown access type %s", quote(t))
			}
			a.Type = typ
		}
	case OpDestroyMKey, OpQueryMKey:
		if v, ok := p.required(at, &o, "index"); ok {
			op.Index = uint32(p.number(at.dot("index"), v, 24))
		}
		if op.Kind == OpQueryMKey {
			op.Query = p.queryWindow(at, &o)
		}
	case OpUMR:
		u := &UMR{}
		op.UMR = u
		u.QPN = p.qpn(at, &o, qpns)
		u.Key = p.key(at, &o)
		if v, ok := o.get("check_free"); ok {
			cf := p.number(at.dot("check_free"), v, 64)
			if cf > 2 && p.err == nil {
				p.fail(at.dot("check_free"), "check_free %d above 2", cf)
			}
			u.CheckFree = prm.CheckFree(cf)
		}
		if v, ok := o.get("mask"); ok {
			u.Mask = p.mask(at.dot("mask"), v)
		}
		mv, has := o.get("mkc")
		u.Image, _ = p.mkc(at.dot("mkc"), mv, has)
		if v, ok := o.get("translation_offset"); ok {
			u.Offset = p.number(at.dot("translation_offset"), v, 43)
		}
		u.MTT, u.KLM = p.lists(at, &o)
		if oct := (uint64(len(u.MTT))+1)/2 + uint64(len(u.KLM)); oct > 65535 && p.err == nil {
			p.fail(at, "UMR list of %d octwords is longer than 65535", oct)
		}
	case OpLocalInvalidate, OpSendWithInvalidate:
		op.QPN = p.qpn(at, &o, qpns)
		op.Key = p.key(at, &o)
	case OpPageFaultResume:
		op.Key = p.key(at, &o)
		op.OK = true
		if v, ok := o.get("ok"); ok {
			op.OK = p.flag(at.dot("ok"), v)
		}
	}
}

// mask parses a list of mask names or a 64-bit number.
func (p *parser) mask(at path, v value) prm.MKeyMask {
	if v.kind != jsonArray {
		return prm.MKeyMask(p.number(at, v, 64))
	}
	var mask prm.MKeyMask
	for i, e := range v.elems() {
		n := p.name(at.at(i), e)
		bit, ok := prm.ParseMaskName(string(n))
		if !ok && p.err == nil {
			p.fail(at.at(i), "unknown mask name %s (want one of %s)", quote(n), strings.Join(prm.MaskNames(), ", "))
		}
		mask |= bit
	}
	return mask
}

// ParseMKC parses a JSON object of MKC fields by their scenario names, as
// `mkeysim mkc pack` reads them. Unset fields are 0.
func ParseMKC(data []byte) (prm.MKC, error) {
	doc, ok := validDocument(data)
	if !ok {
		return prm.MKC{}, syntaxError(data)
	}
	p := &parser{}
	mkc, _ := p.mkc(path{}, doc, true)
	if p.err != nil {
		return prm.MKC{}, p.err
	}
	return mkc, nil
}

// nonEmpty reports whether v is anything but an empty array: an empty list
// is the same as none.
func nonEmpty(v value) bool {
	return v.kind != jsonArray || v.n > 0
}
