package scenario

import (
	"bytes"
	"slices"
	"strings"

	"mkeysim/prm"
)

// Parsing an MKey, of the mkeys list or of a create_mkey op: its MKC by
// field name or as a 64-byte hex image, and its MTT or KLM list.

// mkeyFields are the fields of an MKey of the mkeys list.
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
var mkcFields = func() []prm.MKCField {
	f := prm.MKCFields()
	slices.SortFunc(f, func(a, b prm.MKCField) int { return strings.Compare(a.Name, b.Name) })
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
