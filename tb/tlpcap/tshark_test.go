package tlpcap

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mkeysim/internal/tooltest"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// luaScript is the dissector, relative to this package.
const luaScript = "../../scripts/tlp.lua"

// tsharkFields are the fields the tshark tests print, in order; the last
// may hold commas.
var tsharkFields = []string{
	"frame.number", "frame.time_epoch",
	"pcietlp.version", "pcietlp.dir", "pcietlp.reserved",
	"pcietlp.type", "pcietlp.fmt", "pcietlp.type_code", "pcietlp.tc", "pcietlp.ro", "pcietlp.header_len", "pcietlp.length",
	"pcietlp.requester", "pcietlp.tag",
	"pcietlp.addr", "pcietlp.first_be", "pcietlp.last_be",
	"pcietlp.completer", "pcietlp.status", "pcietlp.byte_count", "pcietlp.lower_addr",
	"pcietlp.data_len", "pcietlp.data",
	"_ws.expert.message",
}

// textFields are compared as text; the others are numbers, which tshark
// prints in decimal or hex (0x...) depending on the field's base.
var textFields = map[string]bool{"frame.time_epoch": true, "pcietlp.type": true, "pcietlp.data": true, "_ws.expert.message": true}

// tshark decodes file with the dissector and returns, for each record,
// tsharkFields by name.
func tshark(t *testing.T, file string) []map[string]string {
	t.Helper()
	return tsharkFieldsOf(t, file, tsharkFields)
}

// tsharkFieldsOf decodes file with the dissector and returns, for each
// record, the fields by name (the last may hold commas).
func tsharkFieldsOf(t *testing.T, file string, fields []string) []map[string]string {
	t.Helper()
	tooltest.Need(t, tooltest.Tshark...)
	script, err := filepath.Abs(luaScript)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatal(err)
	}
	args := []string{"-X", "lua_script:" + script, "-r", file, "-T", "fields",
		"-E", "separator=,", "-E", "aggregator=|", "-E", "header=n"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	// A deadline: tshark on a capture of a few records ends in a second.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tshark", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	// tshark warns when run as root; anything else (a Lua error) fails.
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if line != "" && !strings.HasPrefix(line, "Running as user \"root\"") {
			t.Errorf("tshark says: %s", line)
		}
	}
	var out []map[string]string
	for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		vals := strings.SplitN(line, ",", len(fields))
		if len(vals) != len(fields) {
			t.Fatalf("tshark line %q: %d fields, want %d", line, len(vals), len(fields))
		}
		m := make(map[string]string, len(vals))
		for i, v := range vals {
			m[fields[i]] = v
		}
		out = append(out, m)
	}
	return out
}

// wantFields is what the dissector should show for record n (from 1),
// numbers in decimal; fields that do not apply to the TLP's type are
// empty.
func wantFields(n int, e entry, clockPS uint64) map[string]string {
	tl := e.tlp
	d := func(v uint64) string { return strconv.FormatUint(v, 10) }
	ns := nsOf(e.cycle, clockPS).Uint64()
	hdr4 := tl.Type.IsRequest() && tl.Addr >= 1<<32
	fmtField := uint64(0)
	if tl.Type.HasData() {
		fmtField |= 2
	}
	if hdr4 {
		fmtField |= 1
	}
	m := map[string]string{
		"frame.number":       d(uint64(n)),
		"frame.time_epoch":   fmt.Sprintf("%d.%09d", ns/1e9, ns%1e9),
		"pcietlp.version":    "1",
		"pcietlp.dir":        d(uint64(e.dir)),
		"pcietlp.reserved":   "0",
		"pcietlp.type":       tl.Type.String(),
		"pcietlp.fmt":        d(fmtField),
		"pcietlp.tc":         d(uint64(tl.TC)),
		"pcietlp.ro":         d(uint64(sim.B(tl.RO))),
		"pcietlp.header_len": "12",
		"pcietlp.length":     d(uint64(tl.LengthDW)),
		"pcietlp.requester":  d(uint64(tl.RequesterID)),
		"pcietlp.tag":        d(uint64(tl.Tag)),
		"pcietlp.data_len":   d(uint64(len(tl.Data))),
		"pcietlp.data":       hex.EncodeToString(tl.Data),
	}
	if hdr4 {
		m["pcietlp.header_len"] = "16"
	}
	if tl.Type.IsRequest() {
		m["pcietlp.type_code"] = "0"
		m["pcietlp.addr"] = d(tl.Addr)
		m["pcietlp.first_be"] = d(uint64(tl.FirstBE))
		m["pcietlp.last_be"] = d(uint64(tl.LastBE))
	} else {
		m["pcietlp.type_code"] = "10"
		m["pcietlp.completer"] = d(uint64(tl.CompleterID))
		m["pcietlp.status"] = d(uint64(tl.Status))
		m["pcietlp.byte_count"] = d(uint64(tl.ByteCount))
		m["pcietlp.lower_addr"] = d(uint64(tl.LowerAddr))
	}
	return m
}

// sameField reports whether tshark's value got of field f is want.
func sameField(f, got, want string) bool {
	if textFields[f] || got == "" || want == "" {
		return got == want
	}
	v, err := strconv.ParseUint(got, 0, 64)
	return err == nil && strconv.FormatUint(v, 10) == want
}

// TestTshark decodes a file of random TLPs with tshark and the dissector
// and compares every field of every record with the TLP written.
func TestTshark(t *testing.T) {
	tooltest.Need(t, tooltest.Tshark...)
	rng := newRand(t)
	tlps := []pcie.TLP{ // the edges of every field
		pcie.NewRead(0xffff, pcie.MaxTag, 0xffff_f000, pcie.PageBytes),
		pcie.NewRead(0, 0, pcie.Addr4GB-4, 4),
		pcie.NewRead(0x0100, 0x100, pcie.Addr4GB, 1),
		pcie.NewRead(0x0100, 0x200, 0xffff_ffff_ffff_fffc, 3),
		{Type: pcie.CplD, TC: 7, CompleterID: 0xffff, ByteCount: pcie.MaxByteCount, RequesterID: 1, Tag: pcie.MaxTag, LowerAddr: 0x7f,
			LengthDW: pcie.MaxLengthDW, Data: make([]byte, pcie.MaxLengthDW*pcie.DWBytes)},
		{Type: pcie.Cpl, Status: pcie.CA, ByteCount: 1, RequesterID: 0x0100, Tag: 0x2a},
	}
	for range 300 {
		tlps = append(tlps, randTLP(rng))
	}
	es := randEntries(rng, tlps)
	for i := range es {
		es[i].cycle += 250_000_000 // past 1 s: timestamps with seconds
	}
	const clockPS = 4000
	file := filepath.Join(t.TempDir(), "run.tlp.pcap")
	if err := os.WriteFile(file, writeFile(t, clockPS, es), 0o644); err != nil {
		t.Fatal(err)
	}
	got := tshark(t, file)
	if len(got) != len(es) {
		t.Fatalf("tshark shows %d records, want %d", len(got), len(es))
	}
	bad := 0
	for i, e := range es {
		want := wantFields(i+1, e, clockPS)
		hdr := e.tlp
		hdr.Data = nil
		for _, f := range tsharkFields {
			if !sameField(f, got[i][f], want[f]) {
				t.Errorf("record %d: %s = %q, want %q\n%+v and %d data bytes", i+1, f, got[i][f], want[f], hdr, len(e.tlp.Data))
				bad++
			}
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
}

// TestTsharkMalformed checks that the dissector flags broken records with
// an expert message instead of failing (a Lua error would show instead).
func TestTsharkMalformed(t *testing.T) {
	tooltest.Need(t, tooltest.Tshark...)
	mrd := marshal(t, pcie.NewRead(0x0100, 0x2a, 0x1000, 64))
	mwr := marshal(t, pcie.NewWrite(0x0100, 0x1000, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	cases := []struct {
		name   string
		body   []byte
		typ    string // pcietlp.type, "" if not reached
		expert string
	}{
		{"good", body(1, 0, 0, 0, mrd), "MRd", ""},
		{"no pseudo-header", []byte{1, 0, 0}, "", "3 bytes: shorter than the 4-byte pseudo-header"},
		{"version 2", body(2, 0, 0, 0, mrd), "", "pseudo-header version 2"},
		{"direction 2", body(1, 2, 0, 0, mrd), "MRd", "direction 2"},
		{"reserved", body(1, 0, 0, 1, mrd), "MRd", "reserved bytes are not zero"},
		{"short header", body(1, 0, 0, 0, mrd[:8]), "", "8 TLP bytes: shorter than a 3DW header"},
		{"short 4DW header", body(1, 0, 0, 0, unhex(t, "20000001 0100000f 00000001")), "MRd", "12 TLP bytes: shorter than its 16-byte header"},
		{"IO read", body(1, 0, 0, 0, unhex(t, "02000001 0100000f 00001000")), "unknown", "Fmt 0, Type 2"},
		{"trailing byte", body(1, 0, 0, 0, append(mrd, 0)), "MRd", "1 payload bytes, Length says 0"},
		{"short data", body(1, 0, 0, 0, mwr[:len(mwr)-1]), "MWr", "7 payload bytes, Length says 8"},
		{"ExtTPH prefix", body(1, 0, 0, 0, append(unhex(t, "90000001"), mrd...)), "unknown", "only the PASID prefix"},
		{"two prefixes", body(1, 0, 0, 0, append(unhex(t, "91000001 91000002"), mrd...)), "unknown", "a second TLP prefix"},
		{"message code", body(1, 0, 0, 0, unhex(t, "32000000 01000007 00080000 00000000")), "Msg", "Message code 0x07"},
		{"short Invalidate Request", body(1, 0, 0, 0, unhex(t, "72000002 00080501 01000000 00000000 00000012")), "MsgD", "4 payload bytes, Length says 8"},
	}
	var file []byte
	file = append(file, unhex(t, fileHeaderHex)...)
	for i, c := range cases {
		file = append(file, rec(uint32(4*i), c.body)...)
	}
	path := filepath.Join(t.TempDir(), "bad.tlp.pcap")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	got := tshark(t, path)
	if len(got) != len(cases) {
		t.Fatalf("tshark shows %d records, want %d", len(got), len(cases))
	}
	for i, c := range cases {
		if g := got[i]["pcietlp.type"]; g != c.typ {
			t.Errorf("%s: type %q, want %q", c.name, g, c.typ)
		}
		g := got[i]["_ws.expert.message"]
		if c.expert == "" && g != "" || !strings.Contains(g, c.expert) {
			t.Errorf("%s: expert message %q, want %q", c.name, g, c.expert)
		}
	}
}
