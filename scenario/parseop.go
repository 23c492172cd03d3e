package scenario

import (
	"bytes"
	"strings"

	"mkeysim/prm"
)

// Parsing an operation: the fields each op kind takes, and the QPN, key,
// query window and UMR mask they hold.

// qpn reads o's required qpn, which must be one of the scenario's QPs.
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

// key reads o's required key.
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
	OpAccess:             {"op", "qpn", "key", "addr", "len", "type", "fence"},
	OpDestroyMKey:        {"op", "index"},
	OpQueryMKey:          {"op", "index", "offset", "count"},
	OpUMR:                {"op", "qpn", "key", "check_free", "mask", "mkc", "translation_offset", "mtt", "klm", "fence"},
	OpLocalInvalidate:    {"op", "qpn", "key", "fence"},
	OpSendWithInvalidate: {"op", "qpn", "key"},
	OpPageFaultResume:    {"op", "key", "ok"},
	OpIOMMUUnmap:         {"op", "rid", "pasid", "iova", "size"},
	OpQueryPages:         {"op", "kind"},
	OpManagePages:        {"op", "give", "take"},
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
	case OpQueryPages:
		op.Pages = &Pages{}
		if v, ok := p.required(at, &o, "kind"); ok {
			n := p.name(at.dot("kind"), v)
			found := false
			for i, k := range pagesKindNames {
				if k == string(n) {
					op.Pages.Kind, found = PagesKind(i), true
				}
			}
			if !found && p.err == nil {
				p.fail(at.dot("kind"), "unknown kind %s (want one of %s)", quote(n), strings.Join(pagesKindNames, ", "))
			}
		}
	case OpManagePages:
		op.Pages = p.managePages(at, &o)
	case OpIOMMUUnmap:
		op.Unmap = p.unmap(at, &o, p.iommuSection)
		if p.err == nil && p.iommuSection == nil {
			p.fail(at.dot("op"), "iommu_unmap in a scenario without an iommu section")
		}
	}
	if v, ok := o.get("fence"); ok {
		op.Fence, op.HasFence = p.fence(at.dot("fence"), v), true
		if p.err == nil && !op.IsWQE() {
			p.fail(at.dot("fence"), "a fence mode belongs to a work request of the send queue: an access of type %v is not one (only LOCAL_READ and LOCAL_WRITE are)", op.Access.Type)
		}
	}
}

// fence parses a WQE's fence mode: a name (none, initiator_small, fence,
// strong_ordering, small_and_fence) or its number 0..4.
func (p *parser) fence(at path, v value) prm.FenceMode {
	if s := v.str(); v.kind == jsonString && !bytes.HasPrefix(s, []byte("0x")) && !bytes.HasPrefix(s, []byte("0X")) && !isDigits(s) {
		m, ok := prm.ParseFenceMode(string(s))
		if !ok {
			p.fail(at, "unknown fence mode %s (want one of %s, or 0..4)", quote(s), strings.Join(prm.FenceNames(), ", "))
		}
		return m
	}
	n := p.number(at, v, 3)
	if p.err == nil && n > uint64(prm.FenceSmallAndFence) {
		p.fail(at, "fence mode %d is reserved (want 0..4: %s)", n, strings.Join(prm.FenceNames(), ", "))
	}
	return prm.FenceMode(n)
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

// MaxManagePages bounds the pages one manage_pages moves (a count or a
// list): 2^24, a 64 GiB ICM.
const MaxManagePages = 1 << 24

// managePages parses a manage_pages: exactly one of give and take, each a
// count (1..MaxManagePages) or a list of page addresses (4 KiB-aligned,
// 64 bits, at most MaxManagePages).
func (p *parser) managePages(at path, o *obj) *Pages {
	pg := &Pages{}
	gv, give := o.get("give")
	tv, take := o.get("take")
	var v value
	var field string
	switch {
	case give && take:
		p.fail(at.dot("take"), "give and take in one manage_pages")
		return pg
	case give:
		v, field = gv, "give"
	case take:
		v, field, pg.Take = tv, "take", true
	default:
		p.fail(at, "manage_pages wants give or take")
		return pg
	}
	at = at.dot(field)
	if v.kind != jsonArray {
		pg.Count = p.number(at, v, 64)
		if (pg.Count == 0 || pg.Count > MaxManagePages) && p.err == nil {
			p.fail(at, "count %d outside 1..%d", pg.Count, MaxManagePages)
		}
		return pg
	}
	pg.List = []uint64{}
	for i, e := range v.elems() {
		if i == MaxManagePages {
			p.fail(at, "a list of more than %d pages", MaxManagePages)
			return pg
		}
		a := p.number(at.at(i), e, 64)
		if a%4096 != 0 && p.err == nil {
			p.fail(at.at(i), "page address %#x is not 4 KiB-aligned", a)
		}
		pg.List = append(pg.List, a)
	}
	if len(pg.List) == 0 && p.err == nil {
		p.fail(at, "an empty list of pages")
	}
	return pg
}
