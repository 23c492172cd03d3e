package scenario

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validCases are documents on the edge of JSON's grammar.
var validCases = []string{
	``, ` `, `{}`, ` {} `, "{}\n", `{}x`, `{} {}`, `{`, `}`, `[`, `[]`, `[1,]`, `[,1]`, `[1 2]`, `{"a"}`, `{"a":}`,
	`{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{1:1}`, `{"a":1 "b":2}`, `"abc`, `"a\"b"`, `"a\\"`, `"\u00e9"`, `"\u00g9"`,
	`"\x"`, `"\/"`, "\"tab\there\"", "\"a\x01\"", "\"\xff\xfe\"", `-`, `-0`, `-01`, `01`, `0`, `1.`, `1.5`, `.5`,
	`1e`, `1e+`, `1e+5`, `1E-5`, `1.5e3`, `0x10`, `+1`, `true`, `tru`, `truex`, `false`, `null`, `nul`, `NaN`,
	"\ufeff{}", "{}\x00", "\t\r\n{}\t\r\n", `{"a":[{"b":[null,true,false,"x",-1.5e-3]}]}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestValidDocument: the reader and encoding/json agree on what is JSON,
// so a document the reader accepts is one the decoder it replaced would
// have read, and a malformed one gets encoding/json's message.
func TestValidDocument(t *testing.T) {
	for _, c := range validCases {
		if _, ok := validDocument([]byte(c)); ok != json.Valid([]byte(c)) {
			t.Errorf("validDocument(%.40q) = %v, json.Valid %v", c, ok, !ok)
		}
	}
}

func FuzzValidDocument(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	files, _ := filepath.Glob("../examples/*.json")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, ok := validDocument(data); ok != json.Valid(data) {
			t.Fatalf("validDocument(%q) = %v, json.Valid %v", data, ok, !ok)
		}
	})
}

// TestWalk: the walks see the values the reader checked: kinds, counts,
// keys in order, and strings decoded as encoding/json decodes them.
func TestWalk(t *testing.T) {
	doc := []byte(` { "a" : [ 1 , "x" , { "b" : [ ] } , [ [ ] , { } ] , true , null ] , "k\u00e9y" : "v\"\u0041` + "\xff" + `" , "" : -1.5e3 } `)
	v, ok := validDocument(doc)
	if !ok || v.kind != jsonObject || v.n != 3 {
		t.Fatalf("document: %v kind %d n %d", ok, v.kind, v.n)
	}
	var keys []string
	var vals []value
	for k, e := range v.members() {
		keys = append(keys, string(k))
		vals = append(vals, e)
	}
	if want := []string{"a", "k\u00e9y", ""}; strings.Join(keys, "|") != strings.Join(want, "|") {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if got := string(vals[1].str()); got != "v\"A\ufffd" {
		t.Errorf("string %q, want %q", got, "v\"A\ufffd")
	}
	if vals[2].kind != jsonNumber || string(vals[2].raw) != "-1.5e3" {
		t.Errorf("number %q", vals[2].raw)
	}
	a := vals[0]
	if a.kind != jsonArray || a.n != 6 {
		t.Fatalf("array kind %d n %d", a.kind, a.n)
	}
	wantKinds := []kind{jsonNumber, jsonString, jsonObject, jsonArray, jsonBool, jsonNull}
	wantN := []int{0, 0, 1, 2, 0, 0}
	for i, e := range a.elems() {
		if e.kind != wantKinds[i] || e.n != wantN[i] {
			t.Errorf("element %d: kind %d n %d, want %d %d", i, e.kind, e.n, wantKinds[i], wantN[i])
		}
	}
	if got, ok := v.member(""); !ok || string(got.raw) != "-1.5e3" {
		t.Errorf(`member(""): %q %v`, got.raw, ok)
	}
	if _, ok := v.member("b"); ok {
		t.Error(`member("b") found a key of a nested object`)
	}
}
