package examples_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// A small Go twin of /work/shared/conformance/compare.py: result lines are
// compared field by field on the fields that script compares (seq, op,
// status; segments of a successful access; level and offset of a failed one;
// fault_key and fault_addr of a PAGE_FAULT; index and key of a create;
// num_pages of a query_pages;
// mkc_hex and the mtt/klm list of a query; resumed entries the same way),
// and on the fields of issue 36 that it does not compare yet: a segment's
// pa (absent on one side and present on the other differs), fault_key and
// fault_addr of an IOMMU_FAULT.
// Numbers may be JSON numbers or strings ("0x10", "16"); reason is not
// compared.

// line is one decoded result line.
type line map[string]any

// readLines decodes a JSONL file, one object a non-empty line.
func readLines(path string) ([]line, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseLines(data)
}

func parseLines(data []byte) ([]line, error) {
	var out []line
	for i, raw := range bytes.Split(data, []byte("\n")) {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var l line
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// hexNum is a normalised number; it prints in hex, as result lines write
// addresses and keys.
type hexNum uint64

func (n hexNum) String() string { return fmt.Sprintf("%#x", uint64(n)) }

// num normalises a JSON number or a numeric string (decimal or 0x hex).
func num(v any) any {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	case nil:
		return nil
	default:
		return fmt.Sprintf("?%v", x)
	}
	base := 10
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s, base = s[2:], 16
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return "bad number " + fmt.Sprint(v)
	}
	return hexNum(n)
}

func str(v any) any {
	if s, ok := v.(string); ok {
		return s
	}
	return v
}

func list(v any) []any {
	a, _ := v.([]any)
	return a
}

func obj(v any) line {
	m, _ := v.(map[string]any)
	return m
}

// key is the compared view of a line, as compare.py's key().
func key(l line) map[string]any {
	d := map[string]any{"seq": num(l["seq"]), "op": str(l["op"]), "status": str(l["status"])}
	op, status := l["op"], l["status"]
	if op == "access" && status == "OK" {
		segs := []any{}
		for _, s := range list(l["segments"]) {
			m := obj(s)
			segs = append(segs, [4]any{str(m["space"]), num(m["addr"]), num(m["len"]), num(m["pa"])})
		}
		d["segments"] = segs
	}
	if op == "access" && status != "OK" {
		d["level"], d["offset"] = num(l["level"]), num(l["offset"])
	}
	if op == "query_mkey" && status == "OK" {
		d["mkc_hex"] = strings.ToLower(fmt.Sprint(l["mkc_hex"]))
		if v, ok := l["mtt"]; ok {
			var es []any
			for _, e := range list(v) {
				m := obj(e)
				es = append(es, [3]any{num(m["ptag"]), num(m["rd_en"]), num(m["wr_en"])})
			}
			d["mtt"] = es
		}
		if v, ok := l["klm"]; ok {
			var es []any
			for _, e := range list(v) {
				m := obj(e)
				es = append(es, [3]any{num(m["byte_count"]), num(m["mkey"]), num(m["address"])})
			}
			d["klm"] = es
		}
	}
	if op == "create_mkey" && status == "OK" {
		d["index"], d["key"] = num(l["index"]), num(l["key"])
	}
	if op == "query_pages" && status == "OK" {
		d["num_pages"] = fmt.Sprint(l["num_pages"]) // signed: regular may be negative
	}
	if status == "PAGE_FAULT" || status == "IOMMU_FAULT" {
		d["fault_key"], d["fault_addr"] = num(l["fault_key"]), num(l["fault_addr"])
	}
	if v, ok := l["resumed"]; ok {
		var rs []any
		for _, r := range list(v) {
			m := line{"op": "access"}
			for k, x := range obj(r) {
				m[k] = x
			}
			rs = append(rs, key(m))
		}
		d["resumed"] = rs
	}
	return d
}

// compareLines returns one message per differing field or line.
func compareLines(got, want []line) []string {
	var diffs []string
	for i, w := range want {
		if i >= len(got) {
			diffs = append(diffs, fmt.Sprintf("line %d missing: want %v", i, key(w)))
			continue
		}
		kg, kw := key(got[i]), key(w)
		for f, wv := range kw {
			if gv, ok := kg[f]; !ok || !reflect.DeepEqual(gv, wv) {
				diffs = append(diffs, fmt.Sprintf("seq %d field %s: got %v, want %v", i, f, gv, wv))
			}
		}
		for f, gv := range kg {
			if _, ok := kw[f]; !ok {
				diffs = append(diffs, fmt.Sprintf("seq %d field %s: got %v, want none", i, f, gv))
			}
		}
	}
	if len(got) > len(want) {
		diffs = append(diffs, fmt.Sprintf("got %d lines, want %d", len(got), len(want)))
	}
	return diffs
}
