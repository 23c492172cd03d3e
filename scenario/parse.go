package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
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
func Parse(data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, &Error{Msg: jsonError(data, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{Msg: fmt.Sprintf("malformed JSON: extra data after the document at byte %d", dec.InputOffset())}
	}
	p := &parser{}
	sc := p.scenario(doc)
	if p.err != nil {
		return nil, p.err
	}
	return sc, nil
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

// parser walks the decoded document, keeping the first error.
type parser struct {
	err *Error
}

func (p *parser) fail(path, format string, a ...any) {
	if p.err == nil {
		p.err = &Error{Path: path, Msg: fmt.Sprintf(format, a...)}
	}
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value"
}

// object checks that v is an object whose keys are all in allowed.
func (p *parser) object(path string, v any, allowed ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "want an object, got %s", kindOf(v))
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		found := false
		for _, a := range allowed {
			if a == k {
				found = true
				break
			}
		}
		if !found {
			p.fail(join(path, k), "unknown field %q", k)
		}
	}
	return m
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func (p *parser) array(path string, v any) []any {
	a, ok := v.([]any)
	if !ok {
		p.fail(path, "want an array, got %s", kindOf(v))
	}
	return a
}

// number parses an unsigned value of width bits: a JSON integer literal, or
// a string of decimal digits or 0x and hex digits.
func (p *parser) number(path string, v any, width int) uint64 {
	var s string
	hexOK := false
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
		hexOK = true
	default:
		p.fail(path, "want a number, got %s", kindOf(v))
		return 0
	}
	n, err := ParseUint(s, hexOK)
	if err != nil {
		p.fail(path, "%v", err)
		return 0
	}
	if width < 64 && n>>uint(width) != 0 {
		p.fail(path, "value %s wider than %d bits", s, width)
		return 0
	}
	return n
}

// ParseUint parses decimal digits, or (with hexOK) 0x/0X and hex digits,
// exactly into 64 bits.
func ParseUint(s string, hexOK bool) (uint64, error) {
	digits, base := s, 10
	if hexOK && len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		digits, base = s[2:], 16
	}
	if digits == "" {
		return 0, fmt.Errorf("bad number %q", s)
	}
	for _, c := range digits {
		if !(c >= '0' && c <= '9' || base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
			return 0, fmt.Errorf("bad number %q: want unsigned decimal digits or 0x and hex digits", s)
		}
	}
	n, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return 0, fmt.Errorf("value %s wider than 64 bits", s)
	}
	return n, nil
}

// flag parses true, false, 0 or 1.
func (p *parser) flag(path string, v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case json.Number:
		switch string(x) {
		case "0":
			return false
		case "1":
			return true
		}
	}
	p.fail(path, "want true, false, 0 or 1, got %s", describe(v))
	return false
}

func describe(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case string:
		return strconv.Quote(x)
	}
	return kindOf(v)
}

func (p *parser) name(path string, v any) string {
	s, ok := v.(string)
	if !ok {
		p.fail(path, "want a name, got %s", kindOf(v))
	}
	return s
}

func (p *parser) required(path string, m map[string]any, field string) (any, bool) {
	v, ok := m[field]
	if !ok && m != nil {
		p.fail(join(path, field), "missing required field")
	}
	return v, ok
}

func (p *parser) scenario(doc any) *Scenario {
	m := p.object("", doc, "qps", "mkeys", "ops")
	if m == nil {
		return nil
	}
	sc := &Scenario{}
	qpns := map[uint32]bool{}
	if v, ok := m["qps"]; ok {
		for i, q := range p.array("qps", v) {
			path := index("qps", i)
			qm := p.object(path, q, "qpn", "pd", "type")
			var qp QP
			if v, ok := p.required(path, qm, "qpn"); ok {
				qp.QPN = uint32(p.number(join(path, "qpn"), v, 24))
			}
			if v, ok := p.required(path, qm, "pd"); ok {
				qp.PD = uint32(p.number(join(path, "pd"), v, 24))
			}
			if v, ok := qm["type"]; ok {
				switch t := p.name(join(path, "type"), v); t {
				case "RC":
				case "REG_UMR":
					qp.RegUMR = true
				default:
					p.fail(join(path, "type"), "unknown QP type %q (want RC or REG_UMR)", t)
				}
			}
			if p.err == nil && qpns[qp.QPN] {
				p.fail(join(path, "qpn"), "duplicate qpn %d", qp.QPN)
			}
			qpns[qp.QPN] = true
			sc.QPs = append(sc.QPs, qp)
		}
	}
	if v, ok := m["mkeys"]; ok {
		for i, mk := range p.array("mkeys", v) {
			path := index("mkeys", i)
			k := p.mkey(path, mk, true)
			sc.MKeys = append(sc.MKeys, k)
		}
	}
	if v, ok := m["ops"]; ok {
		for i, o := range p.array("ops", v) {
			sc.Ops = append(sc.Ops, p.op(index("ops", i), o, qpns))
		}
	}
	return sc
}

var mkeyFields = []string{"index", "variant", "mkc", "mkc_hex", "mtt", "klm", "pg_access", "odp"}

// mkey parses an MKey of the mkeys list or a create_mkey op (extra names the
// op's own fields).
func (p *parser) mkey(path string, v any, needIndex bool, extra ...string) MKey {
	m := p.object(path, v, append(extra, mkeyFields...)...)
	k := MKey{PgAccess: true}
	if m == nil {
		return k
	}
	if needIndex {
		if v, ok := p.required(path, m, "index"); ok {
			k.Index, k.HasIndex = uint32(p.number(join(path, "index"), v, 24)), true
		}
	} else if v, ok := m["index"]; ok {
		k.Index, k.HasIndex = uint32(p.number(join(path, "index"), v, 24)), true
	}
	mkcV, hasMKC := m["mkc"]
	hexV, hasHex := m["mkc_hex"]
	if hasMKC && hasHex {
		p.fail(join(path, "mkc_hex"), "give mkc or mkc_hex, not both")
	}
	// Variant: the top-level one, mkc.variant, or mkc_hex's mkey[7:0].
	defaultSize := false
	var variants []struct {
		path string
		v    uint8
	}
	if hasHex {
		s := p.name(join(path, "mkc_hex"), hexV)
		if p.err == nil {
			mkc, err := prm.ParseMKCHex(s)
			if err != nil {
				p.fail(join(path, "mkc_hex"), "%v", err)
			}
			k.MKC = mkc
			variants = append(variants, struct {
				path string
				v    uint8
			}{join(path, "mkc_hex"), mkc.Variant})
		}
	} else {
		var given map[string]bool
		k.MKC, given = p.mkc(join(path, "mkc"), mkcV, hasMKC)
		if !given["qpn"] {
			k.MKC.QPN = prm.QPNNone
		}
		if given["variant"] {
			variants = append(variants, struct {
				path string
				v    uint8
			}{join(path, "mkc.variant"), k.MKC.Variant})
		}
		defaultSize = !given["translations_octword_size"]
	}
	if v, ok := m["variant"]; ok {
		tv := uint8(p.number(join(path, "variant"), v, 8))
		for _, o := range variants {
			if o.v != tv && p.err == nil {
				p.fail(join(path, "variant"), "variant %#x disagrees with %s (%#x)", tv, o.path, o.v)
			}
		}
		k.MKC.Variant = tv
	}
	k.MTT, k.KLM = p.lists(path, m)
	if defaultSize {
		k.MKC.TranslationsOctwordSize = OctwordsFor(len(k.MTT), len(k.KLM))
	}
	if v, ok := m["pg_access"]; ok {
		k.PgAccess = p.flag(join(path, "pg_access"), v)
	}
	if v, ok := m["odp"]; ok {
		k.ODP = p.flag(join(path, "odp"), v)
	}
	return k
}

// mkc parses MKC fields by name; it returns which were given.
func (p *parser) mkc(path string, v any, present bool) (prm.MKC, map[string]bool) {
	var mkc prm.MKC
	given := map[string]bool{}
	if !present {
		return mkc, given
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "want an object, got %s", kindOf(v))
		return mkc, given
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fpath := join(path, n)
		f, ok := prm.LookupMKCField(n)
		if !ok {
			p.fail(fpath, "unknown MKC field %q", n)
			continue
		}
		var val uint64
		switch {
		case n == "access_mode":
			if s, isStr := m[n].(string); isStr && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") && !isDigits(s) {
				mode, ok := prm.ParseAccessMode(s)
				if !ok {
					p.fail(fpath, "unknown access mode %q (want one of %s, or a number)", s, strings.Join(prm.ModeNames(), ", "))
				}
				val = uint64(mode)
			} else {
				val = p.number(fpath, m[n], f.Width)
			}
		case f.Width == 1:
			val = b2u(p.flag(fpath, m[n]))
		default:
			val = p.number(fpath, m[n], f.Width)
		}
		if p.err == nil {
			if err := f.Set(&mkc, val); err != nil {
				p.fail(fpath, "%v", err)
			}
		}
		given[n] = true
	}
	return mkc, given
}

func isDigits(s string) bool {
	if s == "" {
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

// lists parses the mtt and klm fields of m (at most one of them).
func (p *parser) lists(path string, m map[string]any) ([]prm.MTTEntry, []prm.KLMEntry) {
	var mtt []prm.MTTEntry
	var klm []prm.KLMEntry
	mv, hasM := m["mtt"]
	kv, hasK := m["klm"]
	if hasM && hasK && nonEmpty(mv) && nonEmpty(kv) {
		p.fail(join(path, "klm"), "give mtt or klm, not both")
		return nil, nil
	}
	if hasM {
		for i, e := range p.array(join(path, "mtt"), mv) {
			ep := index(join(path, "mtt"), i)
			em := p.object(ep, e, "ptag", "rd_en", "wr_en")
			ent := prm.MTTEntry{RdEn: true, WrEn: true}
			if v, ok := p.required(ep, em, "ptag"); ok {
				ent.PTag = p.number(join(ep, "ptag"), v, 64)
				if ent.PTag&0xff != 0 && p.err == nil {
					p.fail(join(ep, "ptag"), "ptag %#x has bits 7:0 set", ent.PTag)
				}
			}
			if v, ok := em["rd_en"]; ok {
				ent.RdEn = p.flag(join(ep, "rd_en"), v)
			}
			if v, ok := em["wr_en"]; ok {
				ent.WrEn = p.flag(join(ep, "wr_en"), v)
			}
			mtt = append(mtt, ent)
		}
	}
	if hasK {
		for i, e := range p.array(join(path, "klm"), kv) {
			ep := index(join(path, "klm"), i)
			em := p.object(ep, e, "byte_count", "mkey", "address")
			var ent prm.KLMEntry
			if v, ok := em["byte_count"]; ok {
				ent.ByteCount = uint32(p.number(join(ep, "byte_count"), v, 32))
			}
			if v, ok := p.required(ep, em, "mkey"); ok {
				ent.MKey = prm.Key(p.number(join(ep, "mkey"), v, 32))
			}
			if v, ok := p.required(ep, em, "address"); ok {
				ent.Address = p.number(join(ep, "address"), v, 64)
			}
			klm = append(klm, ent)
		}
	}
	return mtt, klm
}

func (p *parser) qpn(path string, m map[string]any, qpns map[uint32]bool) uint32 {
	v, ok := p.required(path, m, "qpn")
	if !ok {
		return 0
	}
	q := uint32(p.number(join(path, "qpn"), v, 24))
	if p.err == nil && !qpns[q] {
		p.fail(join(path, "qpn"), "qpn %d is not in qps", q)
	}
	return q
}

func (p *parser) key(path string, m map[string]any) prm.Key {
	if v, ok := p.required(path, m, "key"); ok {
		return prm.Key(p.number(join(path, "key"), v, 32))
	}
	return 0
}

func (p *parser) op(path string, v any, qpns map[uint32]bool) Op {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "want an object, got %s", kindOf(v))
		return Op{}
	}
	nv, ok := p.required(path, m, "op")
	if !ok {
		return Op{}
	}
	name := p.name(join(path, "op"), nv)
	kind, ok := ParseOpKind(name)
	if !ok {
		if p.err == nil {
			p.fail(join(path, "op"), "unknown op %q (want one of %s)", name, strings.Join(opNames[:], ", "))
		}
		return Op{}
	}
	op := Op{Kind: kind}
	switch kind {
	case OpAccess:
		m = p.object(path, v, "op", "qpn", "key", "addr", "len", "type")
		a := &op.Access
		a.QPN = p.qpn(path, m, qpns)
		a.Key = p.key(path, m)
		if v, ok := p.required(path, m, "addr"); ok {
			a.Addr = p.number(join(path, "addr"), v, 64)
		}
		if v, ok := p.required(path, m, "len"); ok {
			a.Len = uint32(p.number(join(path, "len"), v, 32))
		}
		if v, ok := p.required(path, m, "type"); ok {
			t := p.name(join(path, "type"), v)
			at, ok := prm.ParseAccessType(t)
			if !ok && p.err == nil {
				p.fail(join(path, "type"), "unknown access type %q", t)
			}
			a.Type = at
		}
	case OpCreateMKey:
		op.Create = p.mkey(path, v, false, "op")
	case OpDestroyMKey, OpQueryMKey:
		m = p.object(path, v, "op", "index")
		if v, ok := p.required(path, m, "index"); ok {
			op.Index = uint32(p.number(join(path, "index"), v, 24))
		}
	case OpUMR:
		m = p.object(path, v, "op", "qpn", "key", "check_free", "mask", "mkc", "translation_offset", "mtt", "klm")
		u := &op.UMR
		u.QPN = p.qpn(path, m, qpns)
		u.Key = p.key(path, m)
		if v, ok := m["check_free"]; ok {
			cf := p.number(join(path, "check_free"), v, 64)
			if cf > 2 && p.err == nil {
				p.fail(join(path, "check_free"), "check_free %d above 2", cf)
			}
			u.CheckFree = prm.CheckFree(cf)
		}
		if v, ok := m["mask"]; ok {
			u.Mask = p.mask(join(path, "mask"), v)
		}
		mv, has := m["mkc"]
		u.Image, _ = p.mkc(join(path, "mkc"), mv, has)
		if v, ok := m["translation_offset"]; ok {
			u.Offset = p.number(join(path, "translation_offset"), v, 43)
		}
		u.MTT, u.KLM = p.lists(path, m)
		if oct := (uint64(len(u.MTT))+1)/2 + uint64(len(u.KLM)); oct > 65535 && p.err == nil {
			p.fail(path, "UMR list of %d octwords is longer than 65535", oct)
		}
	case OpLocalInvalidate, OpSendWithInvalidate:
		m = p.object(path, v, "op", "qpn", "key")
		op.QPN = p.qpn(path, m, qpns)
		op.Key = p.key(path, m)
	case OpPageFaultResume:
		m = p.object(path, v, "op", "key", "ok")
		op.Key = p.key(path, m)
		op.OK = true
		if v, ok := m["ok"]; ok {
			op.OK = p.flag(join(path, "ok"), v)
		}
	}
	return op
}

// mask parses a list of mask names or a 64-bit number.
func (p *parser) mask(path string, v any) prm.MKeyMask {
	if list, ok := v.([]any); ok {
		var mask prm.MKeyMask
		for i, e := range list {
			n := p.name(index(path, i), e)
			bit, ok := prm.ParseMaskName(n)
			if !ok && p.err == nil {
				p.fail(index(path, i), "unknown mask name %q (want one of %s)", n, strings.Join(prm.MaskNames(), ", "))
			}
			mask |= bit
		}
		return mask
	}
	return prm.MKeyMask(p.number(path, v, 64))
}

// ParseMKC parses a JSON object of MKC fields by their scenario names, as
// `mkeysim mkc pack` reads them. Unset fields are 0.
func ParseMKC(data []byte) (prm.MKC, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return prm.MKC{}, &Error{Msg: jsonError(data, err)}
	}
	p := &parser{}
	mkc, _ := p.mkc("", doc, true)
	if p.err != nil {
		return prm.MKC{}, p.err
	}
	return mkc, nil
}

// nonEmpty reports whether v is anything but an empty array: an empty list
// is the same as none.
func nonEmpty(v any) bool {
	a, ok := v.([]any)
	return !ok || len(a) > 0
}
