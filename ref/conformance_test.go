package ref_test

// Replays every scenario of /work/shared/conformance through ref.Run and
// compares each result line with NAME.expected.jsonl field by field, the
// way /work/shared/conformance/compare.py does (reason is not compared).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mkeysim/ref"
	"mkeysim/scenario"
)

// conformanceDir is the shared folder, relative to this package;
// MKEYSIM_CONFORMANCE_DIR names another.
var conformanceDir = func() string {
	if d := os.Getenv("MKEYSIM_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return "../../shared/conformance"
}()

func TestConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(conformanceDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no conformance scenarios: %s (relative to %s) is absent or empty", conformanceDir, mustWd())
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.ReadFile(f)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			res, err := ref.Run(sc, ref.DefaultConfig())
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			var got []map[string]any
			for i := range res {
				line := res[i].AppendJSON(nil)
				got = append(got, decodeLine(line))
			}
			exp := readJSONL(t, filepath.Join(conformanceDir, name+".expected.jsonl"))
			bad := 0
			for i, e := range exp {
				var g map[string]any
				if i < len(got) {
					g = got[i]
				}
				kg, ke := canonical(compareKey(g)), canonical(compareKey(e))
				if kg != ke {
					bad++
					if bad <= 5 {
						t.Errorf("mismatch seq %d:\n got      %.400s\n expected %.400s", i, kg, ke)
					}
				}
			}
			if len(got) != len(exp) {
				t.Errorf("line count: got %d expected %d", len(got), len(exp))
			}
			if bad > 0 {
				t.Errorf("%d of %d results match", len(exp)-bad, len(exp))
			}
		})
	}
}

func mustWd() string {
	wd, _ := os.Getwd()
	return wd
}

func decodeLine(b []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return map[string]any{"unparsable": string(b)}
	}
	return m
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("expected results: %v", err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) > 0 {
			out = append(out, decodeLine(l))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// normNum is compare.py's norm_num: a string is parsed as a Python int
// literal with base 0 (0x hex or decimal), a number is kept.
func normNum(v any) any {
	switch x := v.(type) {
	case string:
		if n, err := strconv.ParseUint(x, 0, 64); err == nil {
			return n
		}
		return "bad number " + x
	case json.Number:
		if n, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return n
		}
		return "bad number " + string(x)
	}
	return v
}

func normBit(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.Atoi(string(x)); err == nil {
			return n
		}
	case bool:
		if x {
			return 1
		}
		return 0
	}
	return v
}

func asList(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, x := range l {
		m, _ := x.(map[string]any)
		out = append(out, m)
	}
	return out
}

// compareKey is compare.py's key(): the fields compared for one line.
func compareKey(line map[string]any) map[string]any {
	if _, ok := line["unparsable"]; ok {
		return line
	}
	d := map[string]any{"seq": normNum(line["seq"]), "op": line["op"], "status": line["status"]}
	op, status := line["op"], line["status"]
	if status == "OK" && op == "access" {
		var segs [][3]any
		for _, s := range asList(line["segments"]) {
			segs = append(segs, [3]any{s["space"], normNum(s["addr"]), normNum(s["len"])})
		}
		d["segments"] = segs
	}
	if op == "access" && status != "OK" {
		d["level"], d["offset"] = normNum(line["level"]), normNum(line["offset"])
	}
	if op == "query_mkey" && status == "OK" {
		h, _ := line["mkc_hex"].(string)
		d["mkc_hex"] = strings.ToLower(h)
		if v, ok := line["mtt"]; ok {
			var l [][3]any
			for _, e := range asList(v) {
				l = append(l, [3]any{normNum(e["ptag"]), normBit(e["rd_en"]), normBit(e["wr_en"])})
			}
			d["mtt"] = l
		}
		if v, ok := line["klm"]; ok {
			var l [][3]any
			for _, e := range asList(v) {
				l = append(l, [3]any{normNum(e["byte_count"]), normNum(e["mkey"]), normNum(e["address"])})
			}
			d["klm"] = l
		}
	}
	if op == "create_mkey" && status == "OK" {
		d["index"], d["key"] = normNum(line["index"]), normNum(line["key"])
	}
	if status == "PAGE_FAULT" {
		d["fault_key"], d["fault_addr"] = normNum(line["fault_key"]), normNum(line["fault_addr"])
	}
	if v, ok := line["resumed"]; ok {
		var l []map[string]any
		for _, x := range asList(v) {
			y := make(map[string]any, len(x)+1)
			for k, w := range x {
				y[k] = w
			}
			y["op"] = "access"
			l = append(l, compareKey(y))
		}
		d["resumed"] = l
	}
	return d
}

// canonical prints a compared key with sorted map keys, so that equal keys
// print equal.
func canonical(d map[string]any) string {
	b, err := json.Marshal(d)
	if err != nil {
		return "unprintable: " + err.Error()
	}
	return string(b)
}
