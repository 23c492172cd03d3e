package scenario_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// qps is a qps list for the cases below.
const qps = `"qps": [{"qpn": 1, "pd": 5}, {"qpn": 2, "pd": 5, "type": "REG_UMR"}]`

// errorCases: each document's first error, as "path: message".
var errorCases = []struct{ name, doc, want string }{
	{"top unknown", `{"version": 1, "qps": []}`, `version: unknown field "version"`},
	{"fence name", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "fence": "small"}]}`, `ops[0].fence: unknown fence mode "small" (want one of none, initiator_small, fence, strong_ordering, small_and_fence, or 0..4)`},
	{"fence reserved", `{` + qps + `, "ops": [{"op": "local_invalidate", "qpn": 1, "key": 1, "fence": 5}]}`, `ops[0].fence: fence mode 5 is reserved (want 0..4: none, initiator_small, fence, strong_ordering, small_and_fence)`},
	{"fence wide", `{` + qps + `, "ops": [{"op": "local_invalidate", "qpn": 1, "key": 1, "fence": 8}]}`, `ops[0].fence: value 8 wider than 3 bits`},
	{"fence remote", `{` + qps + `, "ops": [{"op": "access", "qpn": 1, "key": 1, "addr": 0, "len": 8, "type": "REMOTE_READ", "fence": "none"}]}`, `ops[0].fence: a fence mode belongs to a work request of the send queue: an access of type REMOTE_READ is not one (only LOCAL_READ and LOCAL_WRITE are)`},
	{"fence command", `{` + qps + `, "ops": [{"op": "destroy_mkey", "index": 1, "fence": 0}]}`, `ops[0].fence: unknown field "fence"`},
	{"top not object", `[]`, `want an object, got an array`},
	{"qps not array", `{"qps": {}}`, `qps: want an array, got an object`},
	{"qp not object", `{"qps": [1]}`, `qps[0]: want an object, got a number`},
	{"qp missing qpn", `{"qps": [{"pd": 1}]}`, `qps[0].qpn: missing required field`},
	{"qp unknown first", `{"qps": [{"zz": 1, "pd": 1, "aa": 2}]}`, `qps[0].aa: unknown field "aa"`},
	{"qpn wide", `{"qps": [{"qpn": 16777216, "pd": 1}]}`, `qps[0].qpn: value 16777216 wider than 24 bits`},
	{"qp type", `{"qps": [{"qpn": 1, "pd": 1, "type": "UD"}]}`, `qps[0].type: unknown QP type "UD" (want RC or REG_UMR)`},
	{"qp type kind", `{"qps": [{"qpn": 1, "pd": 1, "type": 1}]}`, `qps[0].type: want a name, got a number`},
	{"dup qpn", `{"qps": [{"qpn": 1, "pd": 1}, {"qpn": "0x1", "pd": 2}]}`, `qps[1].qpn: duplicate qpn 1`},
	{"op not object", `{` + qps + `, "ops": [null]}`, `ops[0]: want an object, got null`},
	{"op missing", `{` + qps + `, "ops": [{"qpn": 1}]}`, `ops[0].op: missing required field`},
	{"op kind", `{` + qps + `, "ops": [{"op": true}]}`, `ops[0].op: want a name, got a boolean`},
	{"op unknown", `{` + qps + `, "ops": [{"op": "Access"}]}`, `ops[0].op: unknown op "Access" (want one of access, create_mkey, destroy_mkey, query_mkey, umr, local_invalidate, send_with_invalidate, page_fault_resume, iommu_unmap, query_pages, manage_pages)`},
	{"op field", `{` + qps + `, "ops": [{"op": "destroy_mkey", "index": 1, "qpn": 1, "key": 2}]}`, `ops[0].key: unknown field "key"`},
	{"missing len", `{` + qps + `, "ops": [{"op": "access", "qpn": 1, "key": 1, "addr": 0, "type": "LOCAL_READ"}]}`, `ops[0].len: missing required field`},
	{"negative", `{` + qps + `, "ops": [{"op": "access", "qpn": 1, "key": 1, "addr": -1, "len": 1, "type": "LOCAL_READ"}]}`, `ops[0].addr: bad number "-1": want unsigned decimal digits or 0x and hex digits`},
	{"fraction", `{` + qps + `, "ops": [{"op": "query_mkey", "index": 1.0}]}`, `ops[0].index: bad number "1.0": want unsigned decimal digits or 0x and hex digits`},
	{"exponent", `{` + qps + `, "ops": [{"op": "query_mkey", "index": 1e3}]}`, `ops[0].index: bad number "1e3": want unsigned decimal digits or 0x and hex digits`},
	{"hex digit", `{` + qps + `, "ops": [{"op": "local_invalidate", "qpn": 1, "key": "0x1g"}]}`, `ops[0].key: bad number "0x1g": want unsigned decimal digits or 0x and hex digits`},
	{"hex empty", `{` + qps + `, "ops": [{"op": "local_invalidate", "qpn": 1, "key": "0x"}]}`, `ops[0].key: bad number "0x": want unsigned decimal digits or 0x and hex digits`},
	{"empty string", `{` + qps + `, "ops": [{"op": "local_invalidate", "qpn": 1, "key": ""}]}`, `ops[0].key: bad number ""`},
	{"hex literal", `{` + qps + `, "ops": [{"op": "query_mkey", "index": 0x10}]}`, `malformed JSON at line 1 column 112: invalid character 'x' after object key:value pair`},
	{"key wide", `{` + qps + `, "ops": [{"op": "local_invalidate", "qpn": 1, "key": "0x100000000"}]}`, `ops[0].key: value 0x100000000 wider than 32 bits`},
	{"64 bits", `{` + qps + `, "ops": [{"op": "access", "qpn": 1, "key": 1, "addr": "18446744073709551616", "len": 1, "type": "LOCAL_READ"}]}`, `ops[0].addr: value 18446744073709551616 wider than 64 bits`},
	{"number kind", `{` + qps + `, "ops": [{"op": "query_mkey", "index": [1]}]}`, `ops[0].index: want a number, got an array`},
	{"query offset wide", `{` + qps + `, "ops": [{"op": "query_mkey", "index": 1, "offset": "0x10000000000000000"}]}`, `ops[0].offset: value 0x10000000000000000 wider than 64 bits`},
	{"query count kind", `{` + qps + `, "ops": [{"op": "query_mkey", "index": 1, "count": "all"}]}`, `ops[0].count: bad number "all": want unsigned decimal digits or 0x and hex digits`},
	{"query field", `{` + qps + `, "ops": [{"op": "query_mkey", "index": 1, "entries": 3}]}`, `ops[0].entries: unknown field "entries"`},
	{"destroy offset", `{` + qps + `, "ops": [{"op": "destroy_mkey", "index": 1, "offset": 3}]}`, `ops[0].offset: unknown field "offset"`},
	{"access type", `{` + qps + `, "ops": [{"op": "access", "qpn": 1, "key": 1, "addr": 0, "len": 1, "type": "READ"}]}`, `ops[0].type: unknown access type "READ"`},
	{"qpn not in qps", `{"ops": [{"op": "send_with_invalidate", "qpn": 3, "key": 1}], ` + qps + `}`, `ops[0].qpn: qpn 3 is not in qps`},
	{"flag", `{` + qps + `, "ops": [{"op": "page_fault_resume", "key": 1, "ok": 2}]}`, `ops[0].ok: want true, false, 0 or 1, got 2`},
	{"flag string", `{` + qps + `, "ops": [{"op": "page_fault_resume", "key": 1, "ok": "yes"}]}`, `ops[0].ok: want true, false, 0 or 1, got "yes"`},
	{"check_free", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "check_free": 3}]}`, `ops[0].check_free: check_free 3 above 2`},
	{"mask name", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "mask": ["rw", "RW"]}]}`, `ops[0].mask[1]: unknown mask name "RW" (want one of ` + strings.Join(prm.MaskNames(), ", ") + `)`},
	{"mask kind", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "mask": {}}]}`, `ops[0].mask: want a number, got an object`},
	{"umr mkc field", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "mkc": {"rw": 1, "colour": 1, "a": 2}}]}`, `ops[0].mkc.a: want true, false, 0 or 1, got 2`},
	{"mkc unknown", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "mkc": {"rw": 1, "colour": 1, "umr_en": 2}}]}`, `ops[0].mkc.colour: unknown MKC field "colour"`},
	{"mkc unknown last", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "mkc": {"zz": 1, "rw": 1}}]}`, `ops[0].mkc.zz: unknown MKC field "zz"`},
	{"mkc kind", `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "mkc": []}]}`, `ops[0].mkc: want an object, got an array`},
	{"mode", `{"mkeys": [{"index": 1, "mkc": {"access_mode": "mtt"}}]}`, `mkeys[0].mkc.access_mode: unknown access mode "mtt" (want one of ` + strings.Join(prm.ModeNames(), ", ") + `, or a number)`},
	{"mode wide", `{"mkeys": [{"index": 1, "mkc": {"access_mode": "0x100"}}]}`, `mkeys[0].mkc.access_mode: value 0x100 wider than 5 bits`},
	{"mkey index", `{"mkeys": [{"mkc": {}}]}`, `mkeys[0].index: missing required field`},
	{"mkc and hex", `{"mkeys": [{"index": 1, "mkc": {}, "mkc_hex": ""}]}`, `mkeys[0].mkc_hex: give mkc or mkc_hex, not both`},
	{"hex short", `{"mkeys": [{"index": 1, "mkc_hex": "00"}]}`, `mkeys[0].mkc_hex: MKC hex: need 128 hex digits, got 2`},
	{"variant", `{"mkeys": [{"index": 1, "variant": 2, "mkc": {"variant": 3}}]}`, `mkeys[0].variant: variant 0x2 disagrees with mkeys[0].mkc.variant (0x3)`},
	{"variant wide", `{"mkeys": [{"index": 1, "variant": 256}]}`, `mkeys[0].variant: value 256 wider than 8 bits`},
	{"both lists", `{"mkeys": [{"index": 1, "mtt": [{"ptag": 0}], "klm": [{"mkey": 0, "address": 0}]}]}`, `mkeys[0].klm: give mtt or klm, not both`},
	{"ptag", `{"mkeys": [{"index": 1, "mtt": [{"ptag": "0x1000"}, {"ptag": "0x1001"}]}]}`, `mkeys[0].mtt[1].ptag: ptag 0x1001 has bits 7:0 set`},
	{"mtt not array", `{"mkeys": [{"index": 1, "mtt": 5}]}`, `mkeys[0].mtt: want an array, got a number`},
	{"klm mkey", `{"mkeys": [{"index": 1, "klm": [{"address": 0}]}]}`, `mkeys[0].klm[0].mkey: missing required field`},
	{"create field", `{"ops": [{"op": "create_mkey", "qpn": 1}]}`, `ops[0].qpn: unknown field "qpn"`},
	{"pg_access", `{"mkeys": [{"index": 1, "pg_access": "true"}]}`, `mkeys[0].pg_access: want true, false, 0 or 1, got "true"`},
	{"malformed", "{\"qps\": [\n{\"qpn\": 1,}]}", `malformed JSON at line 2 column 12: invalid character '}' looking for beginning of object key string`},
	{"truncated", `{"qps": [`, `malformed JSON: unexpected end of input`},
	{"empty", ``, `malformed JSON: unexpected end of input`},
	{"extra", `{} {}`, `malformed JSON: extra data after the document at byte 4`},
}

// TestParseErrors pins each check's JSON path and message.
func TestParseErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(c.doc))
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *scenario.Error", err)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("error\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestDuplicateKey: a key given twice in any object is refused, naming
// it (encoding/json kept the last, so an op could silently change).
func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{` + qps + `, "ops": [{"op": "query_mkey", "index": 1}, {"op": "destroy_mkey", "index": 1, "op": "query_mkey"}]}`, `ops[1].op: duplicate key "op"`},
		{`{` + qps + `, "ops": [{"op": "access", "qpn": 1, "key": 1, "addr": 0, "len": 8, "len": 16, "type": "LOCAL_READ"}]}`, `ops[0].len: duplicate key "len"`},
		{`{"qps": [], "mkeys": [], "qps": []}`, `qps: duplicate key "qps"`},
		{`{"qps": [{"qpn": 1, "pd": 5, "q\u0070n": 2}]}`, `qps[0].qpn: duplicate key "qpn"`},
		{`{"qps": [{"qpn": 1, "pd": 5, "pd": 5, "type": "XX"}]}`, `qps[0].pd: duplicate key "pd"`},
		{`{"mkeys": [{"index": 1, "mkc": {"lr": 1, "pd": 5, "lr": 0}}]}`, `mkeys[0].mkc.lr: duplicate key "lr"`},
		{`{"mkeys": [{"index": 1, "mkc": {"access_mode": "MTT"}, "mtt": [{"ptag": 0, "rd_en": 1, "rd_en": 0}]}]}`, `mkeys[0].mtt[0].rd_en: duplicate key "rd_en"`},
		{`{"mkeys": [{"index": 1, "klm": [{"mkey": 0, "address": 0, "mkey": 1}]}]}`, `mkeys[0].klm[0].mkey: duplicate key "mkey"`},
		{`{"ops": [{"op": "create_mkey", "odp": 1, "odp": 0}]}`, `ops[0].odp: duplicate key "odp"`},
		{`{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "mkc": {"rw": 1, "a": 1, "rw": 0}}]}`, `ops[0].mkc.rw: duplicate key "rw"`},
	} {
		_, err := scenario.Parse([]byte(c.doc))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\nerror %v\nwant  %s", c.doc, err, c.want)
		}
	}
	if _, err := scenario.ParseMKC([]byte(`{"lr": 1, "lr": 0}`)); err == nil || err.Error() != `lr: duplicate key "lr"` {
		t.Errorf("ParseMKC: error %v, want a duplicate key", err)
	}
}

// TestUMRListTooLong: a UMR may write at most 65535 octwords.
func TestUMRListTooLong(t *testing.T) {
	klm := strings.Repeat(`{"mkey": 0, "address": 0}, `, 65535) + `{"mkey": 0, "address": 0}`
	doc := `{` + qps + `, "ops": [{"op": "umr", "qpn": 2, "key": 1, "klm": [` + klm + `]}]}`
	_, err := scenario.Parse([]byte(doc))
	if want := "ops[0]: UMR list of 65536 octwords is longer than 65535"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestParseKeyOrder: object keys may come in any order, and escaped keys
// and strings mean what they spell; the checks that need the QPs see them
// wherever qps is.
func TestParseKeyOrder(t *testing.T) {
	const want = `{"qps": [{"qpn": 1, "pd": 5}, {"type": "REG_UMR", "pd": 6, "qpn": 2}],
	  "mkeys": [{"index": 16, "mkc": {"pd": 5, "access_mode": "MTT", "len": 4096, "lr": true}, "mtt": [{"ptag": "0x1000", "wr_en": 0}]}],
	  "ops": [{"op": "access", "qpn": 1, "key": "0x1000", "addr": 0, "len": 8, "type": "LOCAL_READ"},
	          {"key": "0x1000", "qpn": 2, "op": "umr", "mask": ["lr"], "mkc": {}}]}`
	const shuffled = `{"ops": [{"type": "LOCAL_READ", "len": 8, "addr": "0", "key": 4096, "qpn": "0x1", "op": "access"},
	          {"mkc": {}, "mask": ["l\u0072"], "q\u0070n": 2, "op": "u\u006dr", "key": "0x1000"}],
	  "mkeys": [{"mtt": [{"wr_en": false, "ptag": 4096}], "mkc": {"lr": 1, "len": "4096", "access_mode": "MTT", "pd": 5}, "index": 16}],
	  "qps": [{"pd": 5, "qpn": 1}, {"qpn": 2, "pd": 6, "type": "REG_UMR"}]}`
	a, err := scenario.Parse([]byte(want))
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenario.Parse([]byte(shuffled))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("key order changed the scenario:\n%+v\n%+v", a, b)
	}
	if len(a.Ops) != 2 || a.Ops[1].Kind != scenario.OpUMR || a.Ops[1].UMR.Mask != prm.MaskLR || !a.QPs[1].RegUMR ||
		len(a.MKeys[0].MTT) != 1 || a.MKeys[0].MTT[0].WrEn || !a.MKeys[0].MTT[0].RdEn || a.MKeys[0].MKC.QPN != prm.QPNNone {
		t.Errorf("parsed %+v", a)
	}
}
