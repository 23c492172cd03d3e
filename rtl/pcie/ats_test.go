package pcie

import (
	"errors"
	"reflect"
	"testing"

	"mkeysim/prm"
)

// The constructors make, through prm's field tables, exactly the TLPs
// whose bytes TestPackExact checks by hand, and the accessors read them
// back.
func TestATSForms(t *testing.T) {
	tr, err := NewTranslationRequest(0x0100, 0x12, prm.ATSTranslationRequestAddr{Addr: 0x12_3456_7abc, NW: true}, 1)
	want := TLP{Type: MRd, AT: ATTranslationRequest, RequesterID: 0x0100, Tag: 0x12, LengthDW: 2, Addr: 0x12_3456_7001, FirstBE: 0xf, LastBE: 0xf}
	if err != nil || !reflect.DeepEqual(tr, want) || tr.Validate() != nil {
		t.Fatalf("translation request %+v, %v", tr, err)
	}
	if a, err := tr.TranslationRequestAddr(); err != nil || a != (prm.ATSTranslationRequestAddr{Addr: 0x12_3456_7000, NW: true}) {
		t.Errorf("translation request address %+v, %v", a, err)
	}
	if _, err := NewTranslationRequest(0, 0, prm.ATSTranslationRequestAddr{}, 0); err == nil {
		t.Error("0 translations")
	}
	low, _ := NewTranslationRequest(0x0100, 7, prm.ATSTranslationRequestAddr{Addr: 0x8000_0000}, 4)
	if b, _ := low.MarshalBinary(); !reflect.DeepEqual(b, unhex(t, "00000408 010007ff 80000000")) {
		t.Errorf("3DW translation request % x", b)
	}
	if a, err := low.TranslationRequestAddr(); err != nil || a != (prm.ATSTranslationRequestAddr{Addr: 0x8000_0000}) {
		t.Errorf("3DW translation request address %+v, %v", a, err)
	}
	if _, err := (&TLP{Type: MRd, AT: ATTranslated}).TranslationRequestAddr(); err == nil {
		t.Error("translated read read as a translation request")
	}

	e1 := prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0x8_7654_3000}, W: true, R: true}
	var e2 prm.ATSCompletionEntry
	if err := e2.SetRange(prm.ATSRange{Base: 0x1_4000_0000, Log2: 21}); err != nil {
		t.Fatal(err)
	}
	e2.N, e2.R = true, true
	two, _ := NewTranslationRequest(0x0100, 0x12, prm.ATSTranslationRequestAddr{Addr: 0x12_3456_7000}, 2)
	tc := NewTranslationCompletion(two, 0x0008, []prm.ATSCompletionEntry{e1, e2})
	b, err := tc.MarshalBinary()
	if err != nil || !reflect.DeepEqual(b, unhex(t, "4a000004 00080010 01001200 00000008 76543003 00000001 400ffc01")) || tc.Validate() != nil {
		t.Errorf("translation completion % x, %v", b, err)
	}
	if es, err := tc.TranslationEntries(); err != nil || !reflect.DeepEqual(es, []prm.ATSCompletionEntry{e1, e2}) {
		t.Errorf("entries %+v, %v", es, err)
	}
	odd := TLP{Type: CplD, LengthDW: 1, Data: make([]byte, 4)}
	if _, err := odd.TranslationEntries(); err == nil {
		t.Error("1-DW CplD read as translations")
	}
	rsv := tc
	rsv.Data = append([]byte(nil), tc.Data...)
	rsv.Data[7] |= 0x08 // entry 0, reserved bit 3
	var rbe *prm.ReservedBitsError
	if _, err := rsv.TranslationEntries(); !errors.As(err, &rbe) {
		t.Errorf("reserved bits: %v", err)
	}

	var body prm.ATSInvalidateBody
	_ = body.SetRange(prm.ATSRange{Base: 0x12_3456_7000, Log2: 12})
	ir := NewInvalidateRequest(prm.ATSInvalidateRequestHeader{RequesterID: 0x0008, ITag: 5, DeviceID: 0x0100}, body)
	wantIR := TLP{Type: MsgD, RequesterID: 0x0008, Tag: 5, MsgCode: 0x01, Addr: 0x0100_0000_0000_0000, LengthDW: 2, Data: unhex(t, "00000012 34567000")}
	if !reflect.DeepEqual(ir, wantIR) || ir.Validate() != nil || ir.DestID() != 0x0100 {
		t.Errorf("invalidate request %+v", ir)
	}
	if h, bd, err := ir.InvalidateRequest(); err != nil || h != (prm.ATSInvalidateRequestHeader{RequesterID: 8, ITag: 5, MessageCode: 1, DeviceID: 0x0100}) || bd != body {
		t.Errorf("invalidate request read %+v %+v, %v", h, bd, err)
	}
	all := NewInvalidateRequest(prm.ATSInvalidateRequestHeader{RequesterID: 0x0008, ITag: 31, DeviceID: 0x0100}, prm.ATSInvalidateAll())
	if r, ok := func() (prm.ATSRange, bool) { _, bd, _ := all.InvalidateRequest(); return bd.Range() }(); !ok || r.Log2 != 64 {
		t.Errorf("invalidate all: %+v %v", r, ok)
	}

	var ch prm.ATSInvalidateCompletionHeader
	ch.RequesterID, ch.DeviceID, ch.ITagVector = 0x0100, 0x0008, 1<<5
	_ = ch.SetCount(1)
	ic := NewInvalidateCompletion(ch)
	wantIC := TLP{Type: Msg, RequesterID: 0x0100, MsgCode: 0x02, Addr: 0x0008_0001_0000_0020}
	if !reflect.DeepEqual(ic, wantIC) || ic.Validate() != nil || ic.DestID() != 0x0008 {
		t.Errorf("invalidate completion %+v", ic)
	}
	if h, err := ic.InvalidateCompletion(); err != nil || h.ITagVector != 1<<5 || h.Count() != 1 || h.DeviceID != 8 {
		t.Errorf("invalidate completion read %+v, %v", h, err)
	}
	if _, err := ir.InvalidateCompletion(); err == nil {
		t.Error("invalidate request read as a completion")
	}
	if _, _, err := ic.InvalidateRequest(); err == nil {
		t.Error("invalidate completion read as a request")
	}
}

func TestPASIDPrefix(t *testing.T) {
	p := NewPASIDPrefix(0x1_2345|1<<20, true, false) // bit 20 dropped
	if uint32(p) != 0x9141_2345 || !p.Present() || p.PASID() != 0x12345 || !p.PMR() || p.ER() {
		t.Errorf("%#x", uint32(p))
	}
	if q := NewPASIDPrefix(0, false, true); uint32(q) != 0x9180_0000 || !q.ER() || q.PMR() || q.PASID() != 0 {
		t.Errorf("%#x", uint32(q))
	}
	if PASIDPrefix(0).Present() {
		t.Error("zero prefix present")
	}
}
