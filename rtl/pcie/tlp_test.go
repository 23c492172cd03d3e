package pcie

import (
	"math/rand"
	"strings"
	"testing"
)

func TestTypeString(t *testing.T) {
	for typ, want := range map[Type]string{MRd: "MRd", MWr: "MWr", CplD: "CplD", Cpl: "Cpl", Msg: "Msg", MsgD: "MsgD", 9: "Type(9)"} {
		if got := typ.String(); got != want {
			t.Errorf("%d: %q, want %q", typ, got, want)
		}
	}
	for at, want := range map[AT]string{ATUntranslated: "Untranslated", ATTranslationRequest: "TranslationRequest", ATTranslated: "Translated", 3: "AT(3)"} {
		if got := at.String(); got != want {
			t.Errorf("%d: %q, want %q", at, got, want)
		}
	}
	for st, want := range map[CplStatus]string{SC: "SC", UR: "UR", CA: "CA", 2: "CplStatus(2)"} {
		if got := st.String(); got != want {
			t.Errorf("%d: %q, want %q", st, got, want)
		}
	}
}

func TestByteEnables(t *testing.T) {
	for _, c := range []struct {
		addr        uint64
		n           int
		ldw         int
		first, last uint8
	}{
		{0x1000, 64, 16, 0xf, 0xf},
		{0x1000, 4, 1, 0xf, 0},
		{0x1001, 1, 1, 0x2, 0},
		{0x1001, 2, 1, 0x6, 0},
		{0x1004, 3, 1, 0x7, 0},
		{0x1003, 2, 2, 0x8, 0x1},
		{0x1002, 8, 3, 0xc, 0x3},
		{0x1003, 200, 51, 0x8, 0x7},
		{0x1000, 4096, 1024, 0xf, 0xf},
		{0x1001, 4095, 1024, 0xe, 0xf},
		{0x1_0000_0ffd, 7, 2, 0xe, 0xf},
		{0x1_0000_0fff, 7, 3, 0x8, 0x3},
	} {
		ldw := LengthDW(c.addr, c.n)
		f, l := ByteEnables(c.addr, c.n)
		if ldw != c.ldw || f != c.first || l != c.last {
			t.Errorf("(%#x, %d): Length %d BE %04b/%04b, want %d %04b/%04b", c.addr, c.n, ldw, f, l, c.ldw, c.first, c.last)
		}
		if got := EnabledBytes(ldw, f, l); got != c.n {
			t.Errorf("(%#x, %d): EnabledBytes %d", c.addr, c.n, got)
		}
		if got, want := LowerAddress(c.addr&^3, f), uint8(c.addr&0x7f); got != want {
			t.Errorf("(%#x, %d): LowerAddress %#x, want %#x", c.addr, c.n, got, want)
		}
	}
	// The specification's byte count table for 1 DW reads.
	for _, c := range []struct {
		be   uint8
		want int
	}{{0b1001, 4}, {0b1111, 4}, {0b0101, 3}, {0b1010, 3}, {0b0110, 2}, {0b0011, 2}, {0b1100, 2}, {0b0001, 1}, {0b1000, 1}, {0b0000, 1}} {
		if got := EnabledBytes(1, c.be, 0); got != c.want {
			t.Errorf("1 DW, BE %04b: %d, want %d", c.be, got, c.want)
		}
	}
	if got := EnabledBytes(4, 0b1000, 0b0001); got != 16-3-3 {
		t.Errorf("4 DW 1000/0001: %d", got)
	}
}

func TestSizes(t *testing.T) {
	for _, c := range []struct {
		tlp       TLP
		hdr, wire int
	}{
		{TLP{Type: MRd, Addr: 0xffff_fffc, LengthDW: 1}, 12, 20},
		{TLP{Type: MRd, Addr: Addr4GB, LengthDW: 128}, 16, 24},
		{TLP{Type: MWr, Addr: 0x1000, LengthDW: 2}, 12, 12 + 8 + 8},
		{TLP{Type: MWr, Addr: Addr4GB + 8, LengthDW: 2}, 16, 16 + 8 + 8},
		{TLP{Type: CplD, LengthDW: 16}, 12, 12 + 64 + 8},
		{TLP{Type: Cpl}, 12, 20},
		// A prefix is 4 more header bytes; messages have the 4DW header.
		{TLP{Type: MRd, Addr: 0x1000, LengthDW: 1, Prefix: NewPASIDPrefix(1, false, false)}, 16, 24},
		{TLP{Type: MWr, Addr: Addr4GB, LengthDW: 2, Prefix: NewPASIDPrefix(1, true, true)}, 20, 20 + 8 + 8},
		{TLP{Type: MRd, AT: ATTranslationRequest, Addr: Addr4GB | 1, LengthDW: 2}, 16, 24},
		{TLP{Type: Msg}, 16, 24},
		{TLP{Type: MsgD, LengthDW: 2}, 16, 16 + 8 + 8},
		{TLP{Type: MsgD, LengthDW: 2, Prefix: NewPASIDPrefix(1, false, false)}, 20, 20 + 8 + 8},
	} {
		if h, w := c.tlp.HeaderBytes(), c.tlp.WireBytes(); h != c.hdr || w != c.wire {
			t.Errorf("%v @%#x: header %d wire %d, want %d %d", c.tlp.Type, c.tlp.Addr, h, w, c.hdr, c.wire)
		}
	}
}

func TestSplitRead(t *testing.T) {
	for _, c := range []struct {
		addr uint64
		n    int
		mrrs int
		want []Span
	}{
		{0x1000, 64, 512, []Span{{0x1000, 64}}},
		{0x0, 2048, 512, []Span{{0x0, 512}, {0x200, 512}, {0x400, 512}, {0x600, 512}}},
		// MRRS block and 4 KB boundary at once.
		{0xf00, 512, 512, []Span{{0xf00, 256}, {0x1000, 256}}},
		// 4 KB boundary with a large MRRS.
		{0xff0, 0x30, 4096, []Span{{0xff0, 16}, {0x1000, 32}}},
		{0x800, 4096, 4096, []Span{{0x800, 2048}, {0x1000, 2048}}},
		// Unaligned start: the first request ends on the MRRS boundary, the
		// next ones are aligned.
		{0x1101, 1024, 512, []Span{{0x1101, 255}, {0x1200, 512}, {0x1400, 257}}},
		{0x1fff, 2, 128, []Span{{0x1fff, 1}, {0x2000, 1}}},
		{0x1_0000_0fc0, 128, 128, []Span{{0x1_0000_0fc0, 64}, {0x1_0000_1000, 64}}},
		{0x1000, 0, 512, nil},
	} {
		got := SplitRead(c.addr, c.n, c.mrrs)
		if len(got) != len(c.want) {
			t.Errorf("(%#x, %d, %d): %v, want %v", c.addr, c.n, c.mrrs, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("(%#x, %d, %d): %v, want %v", c.addr, c.n, c.mrrs, got, c.want)
				break
			}
		}
	}
}

func TestSplitReadRules(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		mrrs := 128 << rng.Intn(6)
		addr := rng.Uint64() >> rng.Intn(64)
		n := 1 + rng.Intn(10000)
		spans := SplitRead(addr, n, mrrs)
		next, sum := addr, 0
		for _, s := range spans {
			req := NewRead(0, 0, s.Addr, s.Len)
			if s.Addr != next || s.Len < 1 {
				t.Fatalf("(%#x,%d,%d): span %v not contiguous", addr, n, mrrs, s)
			}
			if int(req.LengthDW)*4 > mrrs {
				t.Fatalf("(%#x,%d,%d): span %v is %d DW, over MRRS", addr, n, mrrs, s, req.LengthDW)
			}
			if err := req.Validate(); err != nil {
				t.Fatalf("(%#x,%d,%d): span %v: %v", addr, n, mrrs, s, err)
			}
			next += uint64(s.Len)
			sum += s.Len
		}
		if sum != n {
			t.Fatalf("(%#x,%d,%d): spans cover %d", addr, n, mrrs, sum)
		}
	}
}

type cplWant struct {
	ldw, bc int
	la      uint8
}

func TestSplitCompletion(t *testing.T) {
	zeroLen := TLP{Type: MRd, Addr: 0x1044, LengthDW: 1}
	for _, c := range []struct {
		name     string
		req      TLP
		rcb, mps int
		want     []cplWant
	}{
		{"aligned 64", NewRead(0, 0, 0x1000, 64), 64, 256, []cplWant{{16, 64, 0}}},
		{"512 over MPS", NewRead(0, 0, 0x1000, 512), 64, 256, []cplWant{{64, 512, 0}, {64, 256, 0}}},
		{"unaligned start", NewRead(0, 0, 0x1010, 512), 64, 256,
			[]cplWant{{60, 512, 0x10}, {64, 272, 0x00}, {4, 16, 0x00}}},
		{"byte-unaligned", NewRead(0, 0, 0x1003, 200), 64, 128,
			[]cplWant{{32, 200, 0x03}, {19, 75, 0x00}}},
		{"every RCB", NewRead(0, 0, 0x1020, 256), 64, 64,
			[]cplWant{{8, 256, 0x20}, {16, 224, 0x40}, {16, 160, 0x00}, {16, 96, 0x40}, {8, 32, 0x00}}},
		{"RCB 128", NewRead(0, 0, 0x1040, 512), 128, 256,
			[]cplWant{{48, 512, 0x40}, {64, 320, 0x00}, {16, 64, 0x00}}},
		{"4 KB", NewRead(0, 0, 0x0, 4096), 64, 4096, []cplWant{{1024, 4096, 0}}},
		{"1 byte", NewRead(0, 0, 0x1005, 1), 64, 256, []cplWant{{1, 1, 0x05}}},
		{"zero-length", zeroLen, 64, 256, []cplWant{{1, 1, 0x44}}},
		{"above 4 GB", NewRead(0, 0, 0x1_0000_0fe2, 30), 64, 256, []cplWant{{8, 30, 0x62}}},
	} {
		req := c.req
		req.RequesterID, req.Tag = 0x0100, 0x2a5
		got := SplitCompletion(req, c.rcb, c.mps)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			g := got[i]
			ok = int(g.LengthDW) == c.want[i].ldw && int(g.ByteCount) == c.want[i].bc && g.LowerAddr == c.want[i].la &&
				g.Type == CplD && g.Status == SC && g.Tag == 0x2a5 && g.RequesterID == 0x0100 && len(g.Data) == 4*int(g.LengthDW)
		}
		if !ok {
			var gs []cplWant
			for _, g := range got {
				gs = append(gs, cplWant{int(g.LengthDW), int(g.ByteCount), g.LowerAddr})
			}
			t.Errorf("%s: %+v, want %+v", c.name, gs, c.want)
		}
	}
}

// TestSplitCompletionRules checks the rules on random reads: every
// completion but the last ends on an RCB boundary, none exceeds MPS, Byte
// Count falls by exactly the bytes of each completion and Lower Address is
// the address of each completion's first byte.
func TestSplitCompletionRules(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for i := 0; i < 20000; i++ {
		rcb := 64 << rng.Intn(2)
		mps := 128 << rng.Intn(6)
		if rng.Intn(4) == 0 {
			mps = rcb
		}
		addr := rng.Uint64() >> rng.Intn(64)
		n := FirstSpan(addr, 1+rng.Intn(4096), 4096)
		req := NewRead(1, 2, addr, n)
		cpls := SplitCompletion(req, rcb, mps)
		next := addr // byte address of the next byte returned
		dw := req.Addr
		left := n
		total := 0
		for k, c := range cpls {
			size := int(c.LengthDW) * 4
			if size > mps {
				t.Fatalf("read %#x+%d rcb %d mps %d: completion %d is %d bytes", addr, n, rcb, mps, k, size)
			}
			if int(c.ByteCount) != left || c.LowerAddr != uint8(next&0x7f) {
				t.Fatalf("read %#x+%d: completion %d BC %d LA %#x, want %d %#x", addr, n, k, c.ByteCount, c.LowerAddr, left, next&0x7f)
			}
			dw += uint64(size)
			carried := min(size-int(next&3), left)
			last := k == len(cpls)-1
			if !last && dw%uint64(rcb) != 0 {
				t.Fatalf("read %#x+%d rcb %d: completion %d ends at %#x", addr, n, rcb, k, dw)
			}
			if last != (carried == left) {
				t.Fatalf("read %#x+%d: completion %d carries %d of %d, last=%v", addr, n, k, carried, left, last)
			}
			left -= carried
			next += uint64(carried)
			total += int(c.LengthDW)
		}
		if total != int(req.LengthDW) || left != 0 {
			t.Fatalf("read %#x+%d: completions cover %d DW of %d, %d bytes left", addr, n, total, req.LengthDW, left)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		tlp  TLP
		err  string // substring, "" for valid
	}{
		{"read", NewRead(0, 0, 0x1003, 200), ""},
		{"4 KB crossing", TLP{Type: MRd, Addr: 0xffc, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf}, "4 KB"},
		{"length 0", TLP{Type: MRd, Addr: 0x1000, LengthDW: 0, FirstBE: 0xf}, "LengthDW"},
		{"length 1025", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1025, FirstBE: 0xf, LastBE: 0xf}, "LengthDW"},
		{"1 DW last BE", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, LastBE: 0x1}, "LastBE"},
		{"zero-length read", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1}, ""},
		{"2 DW zero BE", TLP{Type: MRd, Addr: 0x1000, LengthDW: 2, FirstBE: 0xf}, "zero"},
		{"3 DW holes", TLP{Type: MRd, Addr: 0x1000, LengthDW: 3, FirstBE: 0xa, LastBE: 0xf}, "contiguous"},
		{"2 DW QW-aligned holes", TLP{Type: MRd, Addr: 0x1000, LengthDW: 2, FirstBE: 0x5, LastBE: 0xa}, ""},
		{"2 DW unaligned holes", TLP{Type: MRd, Addr: 0x1004, LengthDW: 2, FirstBE: 0x5, LastBE: 0xa}, "contiguous"},
		{"unaligned addr", TLP{Type: MRd, Addr: 0x1001, LengthDW: 1, FirstBE: 0xf}, "Addr"},
		{"tag", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, Tag: 1024}, "Tag"},
		{"write data", TLP{Type: MWr, Addr: 0x1000, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf, Data: make([]byte, 4)}, "Data"},
		{"read data", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, Data: make([]byte, 4)}, "Data"},
		{"CplD", TLP{Type: CplD, LengthDW: 1, ByteCount: 4, Data: make([]byte, 4)}, ""},
		{"CplD UR", TLP{Type: CplD, LengthDW: 1, ByteCount: 4, Status: UR, Data: make([]byte, 4)}, "Status"},
		{"Cpl SC", TLP{Type: Cpl, ByteCount: 4}, "Status"},
		{"Cpl UR", TLP{Type: Cpl, ByteCount: 4, Status: UR}, ""},
		{"Cpl length", TLP{Type: Cpl, ByteCount: 4, Status: CA, LengthDW: 1}, "LengthDW"},
		{"byte count 0", TLP{Type: Cpl, Status: UR}, "ByteCount"},
		{"lower addr", TLP{Type: Cpl, Status: UR, ByteCount: 1, LowerAddr: 0x80}, "LowerAddr"},
		{"status", TLP{Type: Cpl, Status: 2, ByteCount: 1}, "Status"},
		{"type", TLP{Type: 7}, "Type"},

		// AT and the Translation Request.
		{"translated read", TLP{Type: MRd, AT: ATTranslated, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf}, ""},
		{"translated write", TLP{Type: MWr, AT: ATTranslated, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, Data: make([]byte, 4)}, ""},
		{"AT 11b", TLP{Type: MRd, AT: 3, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf}, "Reserved"},
		{"AT 4", TLP{Type: MRd, AT: 4, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf}, "2 bits"},
		{"AT on CplD", TLP{Type: CplD, AT: ATTranslated, LengthDW: 1, ByteCount: 4, Data: make([]byte, 4)}, "AT"},
		{"AT on Msg", TLP{Type: Msg, AT: ATTranslationRequest, MsgCode: 2}, "AT"},
		{"translation request", TLP{Type: MRd, AT: ATTranslationRequest, Addr: 0x12_3456_7001, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf}, ""},
		{"translation request NW 0, 3DW", TLP{Type: MRd, AT: ATTranslationRequest, Addr: 0x8000_0000, LengthDW: 8, FirstBE: 0xf, LastBE: 0xf}, ""},
		{"translation request 512", TLP{Type: MRd, AT: ATTranslationRequest, Addr: 0x8000_0000, LengthDW: 1024, FirstBE: 0xf, LastBE: 0xf}, ""},
		{"translation request odd", TLP{Type: MRd, AT: ATTranslationRequest, Addr: 0x1000, LengthDW: 3, FirstBE: 0xf, LastBE: 0xf}, "2 DW per translation"},
		{"translation request 1 DW", TLP{Type: MRd, AT: ATTranslationRequest, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf}, "2 DW per translation"},
		{"translation request write", TLP{Type: MWr, AT: ATTranslationRequest, Addr: 0x1000, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf, Data: make([]byte, 8)}, "Memory Read"},
		{"translation request bit 1", TLP{Type: MRd, AT: ATTranslationRequest, Addr: 0x1002, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf}, "Addr"},
		{"NW without AT", TLP{Type: MRd, Addr: 0x1001, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf}, "Addr"},

		// The PASID prefix.
		{"PASID read", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, Prefix: NewPASIDPrefix(0xfffff, true, true)}, ""},
		{"PASID translation request", TLP{Type: MRd, AT: ATTranslationRequest, Addr: 0x1000, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf, Prefix: NewPASIDPrefix(7, false, false)}, ""},
		{"PASID translated", TLP{Type: MRd, AT: ATTranslated, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, Prefix: NewPASIDPrefix(7, false, false)}, "not permitted"},
		{"PASID CplD", TLP{Type: CplD, LengthDW: 1, ByteCount: 4, Data: make([]byte, 4), Prefix: NewPASIDPrefix(7, false, false)}, "not permitted"},
		{"PASID Cpl", TLP{Type: Cpl, Status: UR, ByteCount: 4, Prefix: NewPASIDPrefix(7, false, false)}, "not permitted"},
		{"PASID invalidate", TLP{Type: MsgD, MsgCode: 1, LengthDW: 2, Data: make([]byte, 8), Prefix: NewPASIDPrefix(7, false, false)}, ""},
		{"prefix reserved bits", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, Prefix: NewPASIDPrefix(7, false, false) | 1<<20}, "Prefix"},
		{"not a PASID prefix", TLP{Type: MRd, Addr: 0x1000, LengthDW: 1, FirstBE: 0xf, Prefix: 0x9000_0007}, "Prefix"},

		// Messages.
		{"invalidate request", TLP{Type: MsgD, MsgCode: 1, LengthDW: 2, Data: make([]byte, 8)}, ""},
		{"invalidate request 1 DW", TLP{Type: MsgD, MsgCode: 1, LengthDW: 1, Data: make([]byte, 4)}, "2 DW"},
		{"invalidate request code", TLP{Type: MsgD, MsgCode: 2, LengthDW: 2, Data: make([]byte, 8)}, "MsgCode"},
		{"invalidate completion", TLP{Type: Msg, MsgCode: 2, Addr: 0x0008_0001_0000_0020}, ""},
		{"invalidate completion code", TLP{Type: Msg, MsgCode: 1}, "MsgCode"},
		{"Msg length", TLP{Type: Msg, MsgCode: 2, LengthDW: 2}, "LengthDW"},
		{"Msg data", TLP{Type: Msg, MsgCode: 2, Data: make([]byte, 4)}, "Data"},
		{"MsgD length 0", TLP{Type: MsgD, MsgCode: 1}, "LengthDW"},
	} {
		err := c.tlp.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one about %q", c.name, err, c.err)
		}
	}
}

func TestErrorCompletion(t *testing.T) {
	c := ErrorCompletion(NewRead(0x100, 9, 0x1043, 10), 0x8, UR)
	if c.Type != Cpl || c.Status != UR || c.ByteCount != 10 || c.LowerAddr != 0x43 || c.Tag != 9 || c.RequesterID != 0x100 || c.CompleterID != 8 {
		t.Errorf("%+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	c = ErrorCompletion(TLP{Type: MRd, Addr: 0x1000}, 0, UR) // length 0
	if c.ByteCount != 4 || c.Validate() != nil {
		t.Errorf("%+v: %v", c, c.Validate())
	}
}

// TestCompletionsCopyRO: the completions of a read, and its error
// completion, carry the read's Relaxed Ordering attribute (base
// specification 2.2.9: a Completion's Attr is its Request's).
func TestCompletionsCopyRO(t *testing.T) {
	for _, ro := range []bool{false, true} {
		req := NewRead(0x0100, 5, 0x1000, 512)
		req.RO = ro
		for i, c := range SplitCompletion(req, 64, 256) {
			if c.RO != ro {
				t.Errorf("RO %v: completion %d has RO %v", ro, i, c.RO)
			}
		}
		if c := ErrorCompletion(req, 0, UR); c.RO != ro {
			t.Errorf("RO %v: error completion has RO %v", ro, c.RO)
		}
	}
}
