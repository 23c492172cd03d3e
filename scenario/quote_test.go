package scenario_test

import (
	"fmt"
	"strings"
	"testing"

	"mkeysim/scenario"
)

// TestLongValuesQuoted: an error quotes at most the first 64 characters
// of a value from the input, then an ellipsis and the value's length, in
// its message and in its path, wherever the value is.
func TestLongValuesQuoted(t *testing.T) {
	long := func(prefix string, c byte) string { return prefix + strings.Repeat(string(c), 3000-len(prefix)) }
	hex, digits, name := long("0x", '1'), long("", '7'), long("", 'z')
	badHex := long("0x", 'g')
	accent := strings.Repeat("é", 3000) // two bytes a character
	op := func(fields string) string {
		return `{"qps": [{"qpn": 1, "pd": 5}], "ops": [{` + fields + `}]}`
	}
	mkc := func(fields string) string { return `{"mkeys": [{"index": 1, "mkc": {` + fields + `}}]}` }
	for _, c := range []struct {
		name, doc, value string
		quoted           bool // the value is quoted as a string
	}{
		{"hex string", op(`"op": "local_invalidate", "qpn": 1, "key": "` + hex + `"`), hex, false},
		{"bad hex string", op(`"op": "local_invalidate", "qpn": 1, "key": "` + badHex + `"`), badHex, true},
		{"number literal", op(`"op": "query_mkey", "index": ` + digits), digits, false},
		{"negative literal", op(`"op": "query_mkey", "index": -` + digits), "-" + digits, true},
		{"unknown field", op(`"op": "query_mkey", "index": 1, "` + name + `": 1`), name, true},
		{"unknown op", op(`"op": "` + name + `"`), name, true},
		{"unknown op, not ASCII", op(`"op": "` + accent + `"`), accent, true},
		{"access type", op(`"op": "access", "qpn": 1, "key": 1, "addr": 0, "len": 1, "type": "` + name + `"`), name, true},
		{"mask name", op(`"op": "umr", "qpn": 1, "key": 1, "mask": ["rw", "` + name + `"]`), name, true},
		{"flag string", op(`"op": "page_fault_resume", "key": 1, "ok": "` + name + `"`), name, true},
		{"flag number", op(`"op": "page_fault_resume", "key": 1, "ok": ` + digits), digits, false},
		{"qp type", `{"qps": [{"qpn": 1, "pd": 5, "type": "` + name + `"}]}`, name, true},
		{"mkc field", mkc(`"lr": 1, "` + name + `": 1`), name, true},
		{"access mode", mkc(`"access_mode": "` + name + `"`), name, true},
		{"mkc number", mkc(`"len": "` + hex + `"`), hex, false},
		{"mkc_hex", `{"mkeys": [{"index": 1, "mkc_hex": "` + badHex + `"}]}`, badHex, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(c.doc))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			runes := []rune(c.value)
			head := string(runes[:64]) + "…"
			if c.quoted {
				head = `"` + head + `"`
			}
			if len(msg) > 400 || strings.Contains(msg, string(runes[:65])) {
				t.Fatalf("error of %d bytes quotes more than 64 characters: %.200s…", len(msg), msg)
			}
			if c.name == "mkc_hex" { // prm names the length, not the value
				return
			}
			if want := fmt.Sprintf("%s (%d characters)", head, len(runes)); !strings.Contains(msg, want) {
				t.Errorf("error %q does not quote %s", msg, want)
			}
		})
	}
}

// TestShortValuesQuotedWhole: a value of 64 characters is quoted whole.
func TestShortValuesQuotedWhole(t *testing.T) {
	name := strings.Repeat("z", 64)
	_, err := scenario.Parse([]byte(`{"qps": [], "ops": [{"op": "` + name + `"}]}`))
	if err == nil || !strings.Contains(err.Error(), `unknown op "`+name+`" (want`) {
		t.Errorf("error %v, want the name quoted whole", err)
	}
	if _, err := scenario.ParseUint(strings.Repeat("9", 70), false); err == nil || !strings.Contains(err.Error(), strings.Repeat("9", 64)+"… (70 characters) wider than 64 bits") {
		t.Errorf("ParseUint: error %v", err)
	}
}
