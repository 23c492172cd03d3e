package pcie

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPackExact(t *testing.T) {
	for _, c := range []struct {
		name string
		tlp  TLP
		hex  string
	}{
		{"MRd 3DW",
			TLP{Type: MRd, RequesterID: 0x0100, Tag: 0x2a, LengthDW: 16, Addr: 0x1234_5678, FirstBE: 0xf, LastBE: 0xf},
			"00000010 01002aff 12345678"},
		{"MRd 4DW, 10-bit tag",
			TLP{Type: MRd, RequesterID: 0xabcd, Tag: 0x2a5, LengthDW: 1, Addr: 0x12_3456_7890, FirstBE: 0x6},
			"20800001 abcda506 00000012 34567890"},
		{"MRd 1024 DW",
			TLP{Type: MRd, RequesterID: 0x0100, Tag: 0x1ff, LengthDW: 1024, Addr: 0x2000, FirstBE: 0xf, LastBE: 0xf},
			"00080000 0100ffff 00002000"},
		{"MWr 3DW",
			TLP{Type: MWr, RequesterID: 0x0100, LengthDW: 1, Addr: 0x1000, FirstBE: 0xf, Data: []byte{0xde, 0xad, 0xbe, 0xef}},
			"40000001 0100000f 00001000 deadbeef"},
		{"MWr 4DW",
			TLP{Type: MWr, RequesterID: 0x0100, LengthDW: 2, Addr: 0x1_0000_0008, FirstBE: 0xe, LastBE: 0x1, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
			"60000002 010000 1e 00000001 00000008 0102030405060708"},
		{"CplD",
			TLP{Type: CplD, CompleterID: 0x0008, Status: SC, ByteCount: 200, RequesterID: 0x0100, Tag: 0x105, LowerAddr: 0x03,
				LengthDW: 2, Data: []byte{0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18}},
			"4a080002 000800c8 01000503 1112131415161718"},
		{"CplD 4096",
			TLP{Type: CplD, CompleterID: 0xffff, ByteCount: 4096, RequesterID: 0x0001, Tag: 0x3ff, LowerAddr: 0x7c,
				LengthDW: 1, Data: []byte{0xa, 0xb, 0xc, 0xd}},
			"4a880001 ffff0000 0001ff7c 0a0b0c0d"},
		{"Cpl UR",
			TLP{Type: Cpl, Status: UR, ByteCount: 4096, RequesterID: 0x0100, Tag: 7, LowerAddr: 0x7f},
			"0a000000 00002000 0100077f"},
		{"Cpl CA",
			TLP{Type: Cpl, CompleterID: 0x0010, Status: CA, ByteCount: 64, RequesterID: 0x0100, Tag: 0x300},
			"0a880000 00108040 01000000"},
	} {
		want := unhex(t, c.hex)
		got, err := c.tlp.MarshalBinary()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % x\nwant % x", c.name, got, want)
		}
		hdr, hlen, err := ParseHeader(want)
		if err != nil || hlen != c.tlp.HeaderBytes() {
			t.Errorf("%s: ParseHeader: %d, %v", c.name, hlen, err)
		}
		hdr.Data = c.tlp.Data
		if !reflect.DeepEqual(hdr, c.tlp) {
			t.Errorf("%s: ParseHeader\n got %+v\nwant %+v", c.name, hdr, c.tlp)
		}
		back, err := Parse(want)
		if err != nil || !reflect.DeepEqual(back, c.tlp) {
			t.Errorf("%s: Parse\n got %+v, %v\nwant %+v", c.name, back, err, c.tlp)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name, hex, err string
	}{
		{"short", "00000001 0100000f", "truncated"},
		{"short 4DW", "20000001 0100000f 00000001", "truncated"},
		{"short data", "40000002 0100000f 00001000 deadbeef", "truncated"},
		{"trailing", "00000001 0100000f 00001000 00", "payload"},
		{"IO read", "02000001 0100000f 00001000", "Fmt/Type"},
		{"Msg", "30000000 01000000 00000000 00000000", "Fmt/Type"},
		{"CplD 4DW", "6a000001 00000004 01000000 00000000", "Fmt/Type"},
		{"4DW below 4 GB", "20000001 0100000f 00000000 00001000", "4 GB"},
		{"CRS", "0a000000 00004004 01000000", "Status"},
	} {
		_, err := Parse(unhex(t, c.hex))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error about %q", c.name, err, c.err)
		}
	}
	if _, err := Parse(nil); !errors.Is(err, ErrShort) {
		t.Errorf("nil: %v", err)
	}
	var fe *FieldError
	if _, err := (&TLP{Type: MRd, LengthDW: 1, Addr: 2}).MarshalBinary(); !errors.As(err, &fe) || fe.Field != "Addr" {
		t.Errorf("unaligned address: %v", err)
	}
}

// Reserved and unmodelled fields are ignored on receipt; the traffic
// class is read.
func TestParseIgnores(t *testing.T) {
	// TC=7, Attr[2], EP, AT and PH bits set.
	got, err := Parse(unhex(t, "00744c10 01002aff 12345679"))
	want := TLP{Type: MRd, TC: 7, RequesterID: 0x0100, Tag: 0x2a, LengthDW: 16, Addr: 0x1234_5678, FirstBE: 0xf, LastBE: 0xf}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%+v %v", got, err)
	}
}

// normalize makes t encodable the way the fuzzer's fields allow.
func normalize(t TLP, data []byte) TLP {
	t.Type %= numTypes
	t.Tag &= MaxTag
	t.LengthDW = t.LengthDW%MaxLengthDW + 1
	var n TLP
	n.Type, n.RequesterID, n.Tag, n.TC = t.Type, t.RequesterID, t.Tag, t.TC&7
	switch t.Type {
	case MRd, MWr:
		n.LengthDW = t.LengthDW
		n.Addr = t.Addr &^ 3
		n.FirstBE, n.LastBE = t.FirstBE&0xf, t.LastBE&0xf
	case CplD, Cpl:
		if t.Type == CplD {
			n.LengthDW = t.LengthDW
		}
		n.CompleterID = t.CompleterID
		n.Status = []CplStatus{SC, UR, CA}[int(t.Status)%3]
		n.ByteCount = t.ByteCount%MaxByteCount + 1
		n.LowerAddr = t.LowerAddr & 0x7f
	}
	if n.Type.HasData() {
		n.Data = make([]byte, int(n.LengthDW)*4)
		for i := range n.Data {
			if len(data) > 0 {
				n.Data[i] = data[i%len(data)] + byte(i)
			}
		}
	}
	return n
}

func FuzzTLPRoundTrip(f *testing.F) {
	f.Add(uint8(0), uint16(0x100), uint16(0x2a), uint16(16), uint64(0x12345678), uint8(0xf), uint8(0xf), uint16(0), uint8(0), uint16(64), uint8(0), []byte{1}, uint8(2))
	f.Add(uint8(0), uint16(0xabcd), uint16(0x2a5), uint16(0), uint64(0x12_3456_7890), uint8(6), uint8(0), uint16(0), uint8(0), uint16(0), uint8(0), []byte{}, uint8(1))
	f.Add(uint8(1), uint16(1), uint16(0), uint16(1023), uint64(1<<32), uint8(0xe), uint8(1), uint16(0), uint8(0), uint16(0), uint8(0), []byte{9, 8}, uint8(0))
	f.Add(uint8(2), uint16(0x100), uint16(0x105), uint16(1), uint64(0), uint8(0), uint8(0), uint16(8), uint8(0), uint16(199), uint8(3), []byte{0x11}, uint8(1))
	f.Add(uint8(3), uint16(0x100), uint16(7), uint16(0), uint64(0), uint8(0), uint8(0), uint16(0), uint8(1), uint16(4095), uint8(0x7f), []byte{}, uint8(5))
	f.Fuzz(func(t *testing.T, typ uint8, rid, tag, ldw uint16, addr uint64, fbe, lbe uint8, cid uint16, st uint8, bc uint16, la uint8, data []byte, tc uint8) {
		in := normalize(TLP{Type: Type(typ), TC: tc, RequesterID: rid, Tag: tag, LengthDW: ldw, Addr: addr, FirstBE: fbe, LastBE: lbe,
			CompleterID: cid, Status: CplStatus(st), ByteCount: bc, LowerAddr: la}, data)
		b, err := in.MarshalBinary()
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		if len(b) != in.HeaderBytes()+in.PayloadBytes() {
			t.Fatalf("%+v: %d bytes", in, len(b))
		}
		out, err := Parse(b)
		if err != nil {
			t.Fatalf("%+v: % x: %v", in, b, err)
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("round trip\n  in %+v\n out %+v\nbytes % x", in, out, b)
		}
	})
}

// FuzzParse: any input either fails to parse or parses to a TLP that
// marshals and parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"00000010 01002aff 12345678", "20800001 abcda506 00000012 34567890",
		"4a080002 000800c8 01000503 1112131415161718", "0a000000 00002000 0100077f", "40000001 0100000f 00001000 deadbeef"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		b2, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("% x parsed to %+v, which does not marshal: %v", b, p, err)
		}
		p2, err := Parse(b2)
		if err != nil || !reflect.DeepEqual(p, p2) {
			t.Fatalf("% x -> %+v -> % x -> %+v, %v", b, p, b2, p2, err)
		}
	})
}
