package tlpcap

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mkeysim/internal/tooltest"
	"mkeysim/prm"
	"mkeysim/rtl/pcie"
)

// atsFields are the fields TestTsharkATS prints: the ATS ones and a few
// of the header's.
var atsFields = []string{
	"pcietlp.type", "pcietlp.header_len", "pcietlp.length", "pcietlp.requester", "pcietlp.tag", "pcietlp.addr",
	"pcietlp.prefix", "pcietlp.pasid", "pcietlp.pmr", "pcietlp.er",
	"pcietlp.at", "pcietlp.nw",
	"pcietlp.translated_addr", "pcietlp.s", "pcietlp.n", "pcietlp.u", "pcietlp.w", "pcietlp.r",
	"pcietlp.msg_code", "pcietlp.device_id", "pcietlp.itag", "pcietlp.cc", "pcietlp.itag_vector",
	"pcietlp.untranslated_addr", "pcietlp.global_inv",
	"pcietlp.data_len", "_ws.expert.message",
}

// atsRecords are a capture of every ATS form, built with rtl/pcie, and
// the value of every field of atsFields in each record: "" where the field
// does not apply, several values joined by "|" (one per completion entry).
func atsRecords(t *testing.T) ([]entry, []map[string]string) {
	t.Helper()
	must := func(tl pcie.TLP, err error) pcie.TLP {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := tl.Validate(); err != nil {
			t.Fatal(err)
		}
		return tl
	}
	// 1: a translated write.
	w := pcie.NewWrite(0x0100, 0x2_0000_1000, []byte{1, 2, 3, 4})
	w.AT = pcie.ATTranslated
	// 2: a Translation Request for 2 translations, NW, with a PASID prefix
	// (PMR, ER).
	tr := must(pcie.NewTranslationRequest(0x0100, 0x12, prm.ATSTranslationRequestAddr{Addr: 0x12_3456_7000, NW: true}, 2))
	tr.Prefix = pcie.NewPASIDPrefix(0xabcde, true, true)
	// 3: its completion: 4 KiB read-write, 2 MiB non-snooped read-only
	// untranslated-only.
	e1 := prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0x8_7654_3000}, W: true, R: true}
	var e2 prm.ATSCompletionEntry
	if err := e2.SetRange(prm.ATSRange{Base: 0x1_4000_0000, Log2: 21}); err != nil {
		t.Fatal(err)
	}
	e2.N, e2.U, e2.R = true, true, true
	tc := must(pcie.NewTranslationCompletion(tr, 0x0008, []prm.ATSCompletionEntry{e1, e2}), nil)
	// 4: a 3DW Translation Request without prefix, and 5: its UR.
	tr3 := must(pcie.NewTranslationRequest(0x0100, 0x3ff, prm.ATSTranslationRequestAddr{Addr: 0x8000_0000}, 1))
	ur := must(pcie.ErrorCompletion(tr3, 0x0008, pcie.UR), nil)
	// 6: an untranslated read with a PASID prefix (no PMR, ER).
	rd := pcie.NewRead(0x0100, 9, 0x1000, 4)
	rd.Prefix = pcie.NewPASIDPrefix(0x42, false, false)
	// 7: an Invalidate Request for 2 MiB, global, with a PASID prefix.
	var body prm.ATSInvalidateBody
	if err := body.SetRange(prm.ATSRange{Base: 0x4000_0000, Log2: 21}); err != nil {
		t.Fatal(err)
	}
	body.Global = true
	ir := must(pcie.NewInvalidateRequest(prm.ATSInvalidateRequestHeader{RequesterID: 0x0008, ITag: 31, DeviceID: 0x0100}, body), nil)
	ir.Prefix = pcie.NewPASIDPrefix(0x42, false, false)
	// 8: an Invalidate Request for 4 KiB, and 9: the Invalidate
	// Completion of both, CC 1.
	var b4 prm.ATSInvalidateBody
	_ = b4.SetRange(prm.ATSRange{Base: 0x12_3456_7000, Log2: 12})
	ir4 := must(pcie.NewInvalidateRequest(prm.ATSInvalidateRequestHeader{RequesterID: 0x0008, ITag: 5, DeviceID: 0x0100}, b4), nil)
	ch := prm.ATSInvalidateCompletionHeader{RequesterID: 0x0100, DeviceID: 0x0008, ITagVector: 1<<31 | 1<<5}
	_ = ch.SetCount(1)
	ic := must(pcie.NewInvalidateCompletion(ch), nil)

	es := []entry{
		{10, Upstream, w}, {11, Upstream, tr}, {20, Downstream, tc}, {21, Upstream, tr3}, {30, Downstream, ur},
		{31, Upstream, rd}, {40, Downstream, ir}, {41, Downstream, ir4}, {50, Upstream, ic},
	}
	want := []map[string]string{
		{"pcietlp.type": "MWr", "pcietlp.header_len": "16", "pcietlp.length": "1", "pcietlp.requester": "256", "pcietlp.tag": "0",
			"pcietlp.addr": "0x200001000", "pcietlp.at": "2", "pcietlp.data_len": "4"},
		{"pcietlp.type": "MRd", "pcietlp.header_len": "16", "pcietlp.length": "4", "pcietlp.requester": "256", "pcietlp.tag": "18",
			"pcietlp.addr": "0x1234567000", "pcietlp.at": "1", "pcietlp.nw": "1",
			"pcietlp.prefix": "0x91cabcde", "pcietlp.pasid": "0xabcde", "pcietlp.pmr": "1", "pcietlp.er": "1", "pcietlp.data_len": "0"},
		{"pcietlp.type": "CplD", "pcietlp.header_len": "12", "pcietlp.length": "4", "pcietlp.requester": "256", "pcietlp.tag": "18",
			"pcietlp.translated_addr": "0x876543000|0x1400ff000", "pcietlp.s": "0|1", "pcietlp.n": "0|1", "pcietlp.u": "0|1",
			"pcietlp.w": "1|0", "pcietlp.r": "1|1", "pcietlp.data_len": "16"},
		{"pcietlp.type": "MRd", "pcietlp.header_len": "12", "pcietlp.length": "2", "pcietlp.requester": "256", "pcietlp.tag": "1023",
			"pcietlp.addr": "0x80000000", "pcietlp.at": "1", "pcietlp.nw": "0", "pcietlp.data_len": "0"},
		{"pcietlp.type": "Cpl", "pcietlp.header_len": "12", "pcietlp.length": "0", "pcietlp.requester": "256", "pcietlp.tag": "1023",
			"pcietlp.data_len": "0"},
		{"pcietlp.type": "MRd", "pcietlp.header_len": "12", "pcietlp.length": "1", "pcietlp.requester": "256", "pcietlp.tag": "9",
			"pcietlp.addr": "0x1000", "pcietlp.at": "0", "pcietlp.prefix": "0x91000042", "pcietlp.pasid": "0x42", "pcietlp.pmr": "0", "pcietlp.er": "0",
			"pcietlp.data_len": "0"},
		{"pcietlp.type": "MsgD", "pcietlp.header_len": "16", "pcietlp.length": "2", "pcietlp.requester": "8", "pcietlp.tag": "31",
			"pcietlp.prefix": "0x91000042", "pcietlp.pasid": "0x42", "pcietlp.pmr": "0", "pcietlp.er": "0",
			"pcietlp.msg_code": "1", "pcietlp.device_id": "256", "pcietlp.itag": "31",
			"pcietlp.untranslated_addr": "0x400ff000", "pcietlp.s": "1", "pcietlp.global_inv": "1", "pcietlp.data_len": "8"},
		{"pcietlp.type": "MsgD", "pcietlp.header_len": "16", "pcietlp.length": "2", "pcietlp.requester": "8", "pcietlp.tag": "5",
			"pcietlp.msg_code": "1", "pcietlp.device_id": "256", "pcietlp.itag": "5",
			"pcietlp.untranslated_addr": "0x1234567000", "pcietlp.s": "0", "pcietlp.global_inv": "0", "pcietlp.data_len": "8"},
		{"pcietlp.type": "Msg", "pcietlp.header_len": "16", "pcietlp.length": "0", "pcietlp.requester": "256", "pcietlp.tag": "0",
			"pcietlp.msg_code": "2", "pcietlp.device_id": "8", "pcietlp.cc": "1", "pcietlp.itag_vector": "0x80000020", "pcietlp.data_len": "0"},
	}
	return es, want
}

// TestTsharkATS decodes a capture of every ATS form with tshark and the
// dissector and checks every ATS field of every record.
func TestTsharkATS(t *testing.T) {
	tooltest.Need(t, tooltest.Tshark...)
	es, want := atsRecords(t)
	const clockPS = 4000
	file := filepath.Join(t.TempDir(), "ats.tlp.pcap")
	if err := os.WriteFile(file, writeFile(t, clockPS, es), 0o644); err != nil {
		t.Fatal(err)
	}
	got := tsharkFieldsOf(t, file, atsFields)
	if len(got) != len(es) {
		t.Fatalf("tshark shows %d records, want %d", len(got), len(es))
	}
	for i := range es {
		for _, f := range atsFields {
			g, w := got[i][f], want[i][f]
			gs, ws := strings.Split(g, "|"), strings.Split(w, "|")
			ok := len(gs) == len(ws)
			for j := 0; ok && j < len(gs); j++ {
				ok = sameField(f, gs[j], hexToDec(ws[j]))
			}
			if !ok {
				t.Errorf("record %d (%v): %s = %q, want %q", i+1, es[i].tlp.Type, f, g, w)
			}
		}
	}
}

// TestATSRoundTrip writes and reads back every ATS form.
func TestATSRoundTrip(t *testing.T) {
	es, _ := atsRecords(t)
	got, err := readAll(writeFile(t, 4000, es), 4000)
	if err != nil || len(got) != len(es) {
		t.Fatalf("%d records, %v", len(got), err)
	}
	for i := range es {
		checkRecord(t, i, got[i], es[i], 4000)
	}
}

// hexToDec turns a 0x number into decimal, as sameField compares numbers;
// other text is returned as it is.
func hexToDec(s string) string {
	if v, err := strconv.ParseUint(s, 0, 64); err == nil && strings.HasPrefix(s, "0x") {
		return strconv.FormatUint(v, 10)
	}
	return s
}
