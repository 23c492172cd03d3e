package prm_test

import (
	"errors"
	"math/bits"
	"reflect"
	"testing"

	"mkeysim/prm"
)

// atsRangeRows are the S-field examples of the Base Specification
// (10.2.3.2): the address bits 63:12 and S, and the range size they give.
// x bits are taken from base 0x0123_4567_8000_0000 (aligned to 2 GiB).
var atsRangeRows = []struct {
	name string
	addr uint64 // bits 63:12 as sent, 11:0 zero
	s    bool
	want prm.ATSRange
	ok   bool
}{
	{"x...x S=0: 4 KB", 0x0123456789abc000, false, prm.ATSRange{Base: 0x0123456789abc000, Log2: 12}, true},
	{"x...x 0 S=1: 8 KB", 0x0123456789abc000, true, prm.ATSRange{Base: 0x0123456789abc000, Log2: 13}, true},
	{"x...x 0 1 S=1: 16 KB", 0x0123456789ab9000, true, prm.ATSRange{Base: 0x0123456789ab8000, Log2: 14}, true},
	{"x...x 0 1 1 S=1: 32 KB", 0x0123456789ab3000, true, prm.ATSRange{Base: 0x0123456789ab0000, Log2: 15}, true},
	{"x..x 0 1111 1111 S=1: 2 MB", 0x01234567800ff000, true, prm.ATSRange{Base: 0x0123456780000000, Log2: 21}, true},
	{"x..x 0 1...1 (17) S=1: 1 GB", 0x012345679ffff000, true, prm.ATSRange{Base: 0x0123456780000000, Log2: 30}, true},
	{"x..x 0 1...1 (19) S=1: 4 GB", 0x000000017ffff000, true, prm.ATSRange{Base: 0x0000000100000000, Log2: 32}, true},
	{"0 1...1 (51) S=1: 2^64, all", 0x7ffffffffffff000, true, prm.ATSRange{Base: 0, Log2: 64}, true},
	{"1...1 (52) S=1: none", 0xfffffffffffff000, true, prm.ATSRange{}, false},
	{"bits 11:0 ignored", 0x0123456789abcfff, false, prm.ATSRange{Base: 0x0123456789abc000, Log2: 12}, true},
}

func TestATSRangeSpecExamples(t *testing.T) {
	for _, row := range atsRangeRows {
		r, ok := prm.DecodeATSRange(row.addr, row.s)
		if r != row.want || ok != row.ok {
			t.Errorf("%s: DecodeATSRange(%#x, %v) = %+v, %v; want %+v, %v", row.name, row.addr, row.s, r, ok, row.want, row.ok)
			continue
		}
		if !ok {
			continue
		}
		addr, s, err := prm.EncodeATSRange(r)
		if want := row.addr &^ 0xfff; err != nil || addr != want || s != row.s {
			t.Errorf("%s: EncodeATSRange(%+v) = %#x, %v, %v; want %#x, %v", row.name, r, addr, s, err, want, row.s)
		}
	}
}

// TestATSRangeEveryPowerOfTwo encodes and decodes every range size from
// 4 KiB to 2^64 at bases of all ones above the size, at zero and at one
// size, and checks the encoding's shape: S = 0 only for 4 KiB, bit
// log2-1 the lowest clear bit above bit 11.
func TestATSRangeEveryPowerOfTwo(t *testing.T) {
	for log2 := uint8(12); log2 <= 64; log2++ {
		mask := ^uint64(0)
		if log2 < 64 {
			mask = uint64(1)<<log2 - 1
		}
		bases := []uint64{0, ^mask}
		if log2 < 64 {
			bases = append(bases, uint64(1)<<log2)
		}
		for _, base := range bases {
			r := prm.ATSRange{Base: base, Log2: log2}
			addr, s, err := prm.EncodeATSRange(r)
			if err != nil {
				t.Fatalf("%+v: %v", r, err)
			}
			if s != (log2 > 12) || addr&0xfff != 0 || addr&^mask != base {
				t.Errorf("%+v: encoded %#x S=%v", r, addr, s)
			}
			if s && bits.TrailingZeros64(^(addr>>12))+12 != int(log2)-1 {
				t.Errorf("%+v: %#x: lowest clear bit above 11 is not bit %d", r, addr, log2-1)
			}
			got, ok := prm.DecodeATSRange(addr, s)
			if !ok || got != r {
				t.Errorf("%+v: decoded back as %+v, %v", r, got, ok)
			}
			if !r.Contains(base) || !r.Contains(r.Last()) || r.Last()-base != mask {
				t.Errorf("%+v: Contains/Last wrong (last %#x)", r, r.Last())
			}
			if log2 < 64 {
				size := uint64(1) << log2
				if r.Size() != size {
					t.Errorf("%+v: Size = %#x", r, r.Size())
				}
				if r2, err := prm.ATSRangeOf(base, size); err != nil || r2 != r {
					t.Errorf("ATSRangeOf(%#x, %#x) = %+v, %v", base, size, r2, err)
				}
				if r.Contains(base+size) && base+size != 0 {
					t.Errorf("%+v contains the next range", r)
				}
			} else if r.Size() != 0 {
				t.Errorf("2^64: Size = %#x, want 0", r.Size())
			}
		}
	}
}

func TestATSRangeErrors(t *testing.T) {
	for _, r := range []prm.ATSRange{
		{Base: 0, Log2: 11}, {Base: 0, Log2: 65}, {Base: 0x1000, Log2: 13},
		{Base: 0x800, Log2: 12}, {Base: 1 << 63, Log2: 64}, {Base: 0x10_0000, Log2: 21},
	} {
		if _, _, err := prm.EncodeATSRange(r); err == nil {
			t.Errorf("EncodeATSRange(%+v) succeeded", r)
		}
	}
	for _, c := range []struct{ base, size uint64 }{
		{0, 0}, {0, 2048}, {0, 0x3000}, {0x1000, 0x2000}, {0, 1<<63 + 1},
	} {
		if _, err := prm.ATSRangeOf(c.base, c.size); err == nil {
			t.Errorf("ATSRangeOf(%#x, %#x) succeeded", c.base, c.size)
		}
	}
}

func TestATSRangeOverlaps(t *testing.T) {
	big := prm.ATSRange{Base: 0x20_0000, Log2: 21}
	for _, c := range []struct {
		r    prm.ATSRange
		want bool
	}{
		{prm.ATSRange{Base: 0x20_0000, Log2: 12}, true},
		{prm.ATSRange{Base: 0x3f_f000, Log2: 12}, true},
		{prm.ATSRange{Base: 0x40_0000, Log2: 12}, false},
		{prm.ATSRange{Base: 0x1f_f000, Log2: 12}, false},
		{prm.ATSRange{Base: 0, Log2: 30}, true},
		{prm.ATSRange{Base: 0, Log2: 64}, true},
		{prm.ATSRange{Base: 0, Log2: 21}, false},
	} {
		if got := big.Overlaps(c.r); got != c.want || c.r.Overlaps(big) != c.want {
			t.Errorf("%+v overlaps %+v = %v, want %v", big, c.r, got, c.want)
		}
	}
}

// atsEntryRows: completion entries and their 8 bytes by hand from 10.2.3
// (00h Translated Address[63:32]; 04h [31:12], 11 S, 10 N, 9 Global,
// 8 Priv, 7 Exe, 2 U, 1 W, 0 R).
var atsEntryRows = []struct {
	e   prm.ATSCompletionEntry
	img string
}{
	{prm.ATSCompletionEntry{}, "00000000 00000000"},
	{prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0x0000_0001_2345_6000}, R: true, W: true}, "00000001 23456003"},
	{prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0x0000_0001_234f_f000, S: true}, R: true}, "00000001 234ff801"}, // 2 MiB at 0x1_2340_0000
	{prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{S: true}}, "00000000 00000800"},
	{prm.ATSCompletionEntry{N: true}, "00000000 00000400"},
	{prm.ATSCompletionEntry{Global: true}, "00000000 00000200"},
	{prm.ATSCompletionEntry{Priv: true}, "00000000 00000100"},
	{prm.ATSCompletionEntry{Exe: true}, "00000000 00000080"},
	{prm.ATSCompletionEntry{U: true}, "00000000 00000004"},
	{prm.ATSCompletionEntry{W: true}, "00000000 00000002"},
	{prm.ATSCompletionEntry{R: true}, "00000000 00000001"},
	{prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 1 << 12}}, "00000000 00001000"},
	{prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 1 << 32}}, "00000001 00000000"},
	{prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0xffff_ffff_ffff_f000, S: true}, N: true, Global: true, Priv: true, Exe: true, U: true, W: true, R: true},
		"ffffffff ffffff87"},
}

func TestATSCompletionEntryDirected(t *testing.T) {
	for _, row := range atsEntryRows {
		want := unhex(t, row.img, prm.ATSCompletionEntrySize)
		var got [prm.ATSCompletionEntrySize]byte
		row.e.Put(got[:])
		if !reflect.DeepEqual(got[:], want) {
			t.Errorf("%+v: Put = %s, want %s", row.e, dwords(got[:]), dwords(want))
		}
		if a := row.e.Append([]byte{9}); !reflect.DeepEqual(a, append([]byte{9}, want...)) {
			t.Errorf("%+v: Append = % x", row.e, a)
		}
		e, err := prm.ParseATSCompletionEntry(want)
		if err != nil || e != row.e {
			t.Errorf("Parse(%s) = %+v, %v; want %+v", dwords(want), e, err, row.e)
		}
	}
	// Bits 11:0 of Addr have no place in the entry.
	var b [8]byte
	prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0xfff}}.Put(b[:])
	if b != [8]byte{} {
		t.Errorf("Addr bits 11:0 packed: % x", b)
	}
}

func TestATSCompletionEntryReserved(t *testing.T) {
	img := unhex(t, "00000000 00000078", 8)
	_, err := prm.ParseATSCompletionEntry(img)
	var re *prm.ReservedBitsError
	if !errors.As(err, &re) || len(re.Dwords) != 1 || re.Dwords[0] != (prm.ReservedDword{Offset: 4, Bits: 0x78}) {
		t.Errorf("reserved 04h 6:3: err = %v", err)
	}
	for _, n := range []int{0, 4, 7, 9, 16} {
		_, err := prm.ParseATSCompletionEntry(make([]byte, n))
		checkSizeError(t, err, 8, n)
	}
}

func TestATSCompletionEntryRangeAndTranslate(t *testing.T) {
	var e prm.ATSCompletionEntry
	if err := e.SetRange(prm.ATSRange{Base: 0x1_2340_0000, Log2: 21}); err != nil {
		t.Fatal(err)
	}
	if e.Addr != 0x1_234f_f000 || !e.S {
		t.Errorf("SetRange 2 MiB: Addr %#x S %v", e.Addr, e.S)
	}
	if got, ok := e.Translate(0x7f00_001a_bcde); !ok || got != 0x1_235a_bcde {
		t.Errorf("Translate = %#x, %v", got, ok)
	}
	e = prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0x5000}}
	if got, ok := e.Translate(0xdead_b123); !ok || got != 0x5123 {
		t.Errorf("4 KiB Translate = %#x, %v", got, ok)
	}
	e = prm.ATSCompletionEntry{RangeAddr: prm.RangeAddr{Addr: 0xffff_ffff_ffff_f000, S: true}}
	if _, ok := e.Translate(0); ok {
		t.Error("an entry naming no range translated")
	}
	if err := e.SetRange(prm.ATSRange{Base: 0x1000, Log2: 13}); err == nil {
		t.Error("SetRange of a misaligned range succeeded")
	}
}

// atsInvRows: Invalidate Request payloads and their 8 bytes by hand from
// 10.3.1 (00h Untranslated Address[63:32]; 04h [31:12], 11 S, 0 Global
// Invalidate).
var atsInvRows = []struct {
	v   prm.ATSInvalidateBody
	img string
	r   prm.ATSRange
}{
	{prm.ATSInvalidateBody{RangeAddr: prm.RangeAddr{Addr: 0x7f12_3456_7000}}, "00007f12 34567000", prm.ATSRange{Base: 0x7f12_3456_7000, Log2: 12}},
	{prm.ATSInvalidateBody{RangeAddr: prm.RangeAddr{Addr: 0x7f12_3456_6000, S: true}}, "00007f12 34566800", prm.ATSRange{Base: 0x7f12_3456_6000, Log2: 13}},
	{prm.ATSInvalidateBody{RangeAddr: prm.RangeAddr{Addr: 0x4000_1fff_f000, S: true}, Global: true}, "00004000 1ffff801", prm.ATSRange{Base: 0x4000_0000_0000, Log2: 30}},
	{prm.ATSInvalidateAll(), "7fffffff fffff800", prm.ATSRange{Log2: 64}},
}

func TestATSInvalidateBodyDirected(t *testing.T) {
	for _, row := range atsInvRows {
		want := unhex(t, row.img, prm.ATSInvalidateBodySize)
		var got [prm.ATSInvalidateBodySize]byte
		row.v.Put(got[:])
		if !reflect.DeepEqual(got[:], want) {
			t.Errorf("%+v: Put = %s, want %s", row.v, dwords(got[:]), dwords(want))
		}
		v, err := prm.ParseATSInvalidateBody(want)
		if err != nil || v != row.v {
			t.Errorf("Parse(%s) = %+v, %v; want %+v", dwords(want), v, err, row.v)
		}
		if r, ok := v.Range(); !ok || r != row.r {
			t.Errorf("%s: Range = %+v, %v; want %+v", row.img, r, ok, row.r)
		}
		var w prm.ATSInvalidateBody
		w.Global = row.v.Global
		if err := w.SetRange(row.r); err != nil || w != row.v {
			t.Errorf("SetRange(%+v) = %+v, %v; want %+v", row.r, w, err, row.v)
		}
	}
	_, err := prm.ParseATSInvalidateBody(unhex(t, "00000000 000007fe", 8))
	var re *prm.ReservedBitsError
	if !errors.As(err, &re) || re.Dwords[0].Bits != 0x7fe {
		t.Errorf("reserved 04h 10:1: err = %v", err)
	}
}

func TestATSTranslationRequest(t *testing.T) {
	for _, c := range []struct {
		a   prm.ATSTranslationRequestAddr
		img string
	}{
		{prm.ATSTranslationRequestAddr{Addr: 0x7fff_0000_3000}, "00007fff 00003000"},
		{prm.ATSTranslationRequestAddr{Addr: 0x7fff_0000_3000, NW: true}, "00007fff 00003001"},
		{prm.ATSTranslationRequestAddr{Addr: 0xffff_ffff_ffff_f000, NW: true}, "ffffffff fffff001"},
	} {
		want := unhex(t, c.img, prm.ATSTranslationRequestAddrSize)
		if got := c.a.Append(nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: Append = %s, want %s", c.a, dwords(got), c.img)
		}
		if a, err := prm.ParseATSTranslationRequestAddr(want); err != nil || a != c.a {
			t.Errorf("Parse(%s) = %+v, %v", c.img, a, err)
		}
	}
	_, err := prm.ParseATSTranslationRequestAddr(unhex(t, "00000000 00000ffe", 8))
	var re *prm.ReservedBitsError
	if !errors.As(err, &re) || re.Dwords[0].Bits != 0xffe {
		t.Errorf("reserved 04h 11:1: err = %v", err)
	}
	for n := 1; n <= prm.ATSMaxTranslations; n++ {
		l, err := prm.ATSTranslationRequestLengthDW(n)
		if err != nil || int(l) != 2*n {
			t.Fatalf("LengthDW(%d) = %d, %v", n, l, err)
		}
		if m, err := prm.ATSTranslations(int(l)); err != nil || m != n {
			t.Fatalf("ATSTranslations(%d) = %d, %v", l, m, err)
		}
	}
	for _, n := range []int{0, -1, prm.ATSMaxTranslations + 1} {
		if _, err := prm.ATSTranslationRequestLengthDW(n); err == nil {
			t.Errorf("LengthDW(%d) succeeded", n)
		}
	}
	for _, l := range []int{0, 1, 3, 1023, 1026} {
		if _, err := prm.ATSTranslations(l); err == nil {
			t.Errorf("ATSTranslations(%d) succeeded", l)
		}
	}
}

func TestATSInvalidateMessageHeaders(t *testing.T) {
	req := prm.ATSInvalidateRequestHeader{RequesterID: 0x0008, ITag: 31, MessageCode: prm.ATSInvalidateRequestCode, DeviceID: 0x0300}
	img := unhex(t, "00081f01 03000000 00000000", prm.ATSMsgHeaderTailSize) // header bytes 4-15
	if got := req.Append(nil); !reflect.DeepEqual(got, img) {
		t.Errorf("request header = %s, want %s", dwords(got), dwords(img))
	}
	if h, err := prm.ParseATSInvalidateRequestHeader(img); err != nil || h != req {
		t.Errorf("ParseATSInvalidateRequestHeader = %+v, %v", h, err)
	}
	var re *prm.ReservedBitsError
	if _, err := prm.ParseATSInvalidateRequestHeader(unhex(t, "0008ff01 03000000 00000000", 12)); !errors.As(err, &re) ||
		re.Dwords[0] != (prm.ReservedDword{Offset: 0, Bits: 0xe000}) {
		t.Errorf("Tag bits 7:5: err = %v", err)
	}
	var fe *prm.FieldError
	if _, err := prm.ParseATSInvalidateRequestHeader(unhex(t, "00081f02 03000000 00000000", 12)); !errors.As(err, &fe) || fe.Field != "message_code" {
		t.Errorf("completion code in a request: err = %v", err)
	}

	cpl := prm.ATSInvalidateCompletionHeader{RequesterID: 0x0300, MessageCode: prm.ATSInvalidateCompletionCode, DeviceID: 0x0008, ITagVector: 1<<31 | 1<<2}
	if err := cpl.SetCount(8); err != nil || cpl.CC != 0 || cpl.Count() != 8 {
		t.Errorf("SetCount(8): CC %d Count %d, %v", cpl.CC, cpl.Count(), err)
	}
	img = unhex(t, "03000002 00080000 80000004", prm.ATSMsgHeaderTailSize)
	if got := cpl.Append(nil); !reflect.DeepEqual(got, img) {
		t.Errorf("completion header = %s, want %s", dwords(got), dwords(img))
	}
	if h, err := prm.ParseATSInvalidateCompletionHeader(img); err != nil || h != cpl {
		t.Errorf("ParseATSInvalidateCompletionHeader = %+v, %v", h, err)
	}
	for n := 1; n <= 8; n++ {
		if err := cpl.SetCount(n); err != nil || cpl.Count() != n || int(cpl.CC) != n%8 {
			t.Errorf("SetCount(%d): CC %d Count %d, %v", n, cpl.CC, cpl.Count(), err)
		}
	}
	for _, n := range []int{0, 9} {
		if err := cpl.SetCount(n); err == nil {
			t.Errorf("SetCount(%d) succeeded", n)
		}
	}
	if _, err := prm.ParseATSInvalidateCompletionHeader(unhex(t, "03000001 00080003 00000001", 12)); !errors.As(err, &fe) {
		t.Errorf("request code in a completion: err = %v", err)
	}
	if _, err := prm.ParseATSInvalidateCompletionHeader(make([]byte, 16)); err == nil {
		t.Error("16 bytes parsed")
	}
}

// FuzzATSRange: any address and S decode to a range that encodes back to
// the address (bits 11:0 cleared), or to none only for S = 1 with bits
// 63:12 all ones; the range holds the address.
func FuzzATSRange(f *testing.F) {
	for _, row := range atsRangeRows {
		f.Add(row.addr, row.s)
	}
	f.Fuzz(func(t *testing.T, addr uint64, s bool) {
		r, ok := prm.DecodeATSRange(addr, s)
		if !ok {
			if !s || addr|0xfff != ^uint64(0) {
				t.Fatalf("%#x S=%v: no range", addr, s)
			}
			return
		}
		got, gs, err := prm.EncodeATSRange(r)
		if err != nil || got != addr&^0xfff || gs != (r.Log2 > 12) || gs != s && r.Log2 > 12 {
			t.Fatalf("%#x S=%v -> %+v -> %#x S=%v, %v", addr, s, r, got, gs, err)
		}
		if !r.Contains(addr) {
			t.Fatalf("%+v does not hold %#x", r, addr)
		}
	})
}

// FuzzATSCompletionEntry: 8 bytes parse to an entry that packs back to
// them with the reserved bits 04h 6:3 cleared; its range, if any,
// translates an address into itself.
func FuzzATSCompletionEntry(f *testing.F) {
	for _, row := range atsEntryRows {
		f.Add(unhex(f, row.img, 8), uint64(0))
	}
	f.Add(make([]byte, 7), uint64(1))
	f.Fuzz(func(t *testing.T, in []byte, a uint64) {
		e, err := prm.ParseATSCompletionEntry(in)
		if len(in) != prm.ATSCompletionEntrySize {
			checkSizeError(t, err, prm.ATSCompletionEntrySize, len(in))
			return
		}
		checkParsed(t, "ATS translation completion entry", in, []uint32{0, 0x78}, err, e.Append(nil))
		if r, ok := e.Range(); ok {
			x, ok := e.Translate(a)
			if !ok || !r.Contains(x) || x&(r.Last()-r.Base) != a&(r.Last()-r.Base) {
				t.Fatalf("%+v: Translate(%#x) = %#x, %v outside %+v", e, a, x, ok, r)
			}
		}
	})
}

// FuzzATSInvalidateBody: the Invalidate Request payload round-trips with
// reserved bits 04h 10:1 cleared, and SetRange of its range restores
// Addr and S.
func FuzzATSInvalidateBody(f *testing.F) {
	for _, row := range atsInvRows {
		f.Add(unhex(f, row.img, 8))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := prm.ParseATSInvalidateBody(in)
		if len(in) != prm.ATSInvalidateBodySize {
			checkSizeError(t, err, prm.ATSInvalidateBodySize, len(in))
			return
		}
		checkParsed(t, "ATS invalidate request body", in, []uint32{0, 0x7fe}, err, v.Append(nil))
		if r, ok := v.Range(); ok {
			w := prm.ATSInvalidateBody{Global: v.Global}
			if err := w.SetRange(r); err != nil || w != v {
				t.Fatalf("%+v: SetRange(%+v) = %+v, %v", v, r, w, err)
			}
		}
	})
}
