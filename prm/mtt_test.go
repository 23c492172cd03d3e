package prm_test

import (
	"errors"
	"reflect"
	"testing"

	"mkeysim/prm"
)

// mttRows: entries and their 8 bytes, written by hand from translation.md
// 2.3 (00h ptag[63:32]; 04h ptag[31:8], wr_en 1, rd_en 0).
var mttRows = []struct {
	e   prm.MTTEntry
	img string
}{
	{prm.MTTEntry{PTag: 0x0123456789abcd00, RdEn: true}, "01234567 89abcd01"},
	{prm.MTTEntry{PTag: 0x0123456789abcd00, WrEn: true}, "01234567 89abcd02"},
	{prm.MTTEntry{PTag: 0x0123456789abcd00, WrEn: true, RdEn: true}, "01234567 89abcd03"},
	{prm.MTTEntry{}, "00000000 00000000"},                       // ptag 0 is an address, not "no page"
	{prm.MTTEntry{RdEn: true, WrEn: true}, "00000000 00000003"}, // page 0, readable and writable
	{prm.MTTEntry{PTag: 0x100000, RdEn: true, WrEn: true}, "00000000 00100003"},
	{prm.MTTEntry{PTag: 0x235000, RdEn: true}, "00000000 00235001"},
	{prm.MTTEntry{PTag: 0xffffffffffffff00, RdEn: true, WrEn: true}, "ffffffff ffffff03"},
	{prm.MTTEntry{PTag: 0x8000000000000000}, "80000000 00000000"},
	{prm.MTTEntry{PTag: 0x100}, "00000000 00000100"},
	{prm.MTTEntry{PTag: 0xfedcba9800000000, WrEn: true}, "fedcba98 00000002"},
}

func TestMTTEntryDirected(t *testing.T) {
	for _, row := range mttRows {
		want := unhex(t, row.img, prm.MTTEntrySize)
		var got [prm.MTTEntrySize]byte
		row.e.Put(got[:])
		if !reflect.DeepEqual(got[:], want) {
			t.Errorf("%+v: Put = % x, want % x", row.e, got, want)
		}
		if a := row.e.Append([]byte{0xaa}); !reflect.DeepEqual(a, append([]byte{0xaa}, want...)) {
			t.Errorf("%+v: Append = % x", row.e, a)
		}
		e, err := prm.ParseMTTEntry(want)
		if err != nil || e != row.e {
			t.Errorf("ParseMTTEntry(% x) = %+v, %v; want %+v", want, e, err, row.e)
		}
		if d := prm.DecodeMTTEntry(want); d != row.e {
			t.Errorf("DecodeMTTEntry(% x) = %+v", want, d)
		}
	}
}

// TestMTTEntryPTagLowBits: ptag bits 7:0 have no place in the entry; Put
// drops them and leaves the flag bits alone.
func TestMTTEntryPTagLowBits(t *testing.T) {
	var b [8]byte
	prm.MTTEntry{PTag: 0x12345678ff}.Put(b[:])
	if want := unhex(t, "00000012 34567800", 8); !reflect.DeepEqual(b[:], want) {
		t.Errorf("Put = % x, want % x", b, want)
	}
	prm.MTTEntry{PTag: 0xfe, RdEn: true}.Put(b[:])
	if want := unhex(t, "00000000 00000001", 8); !reflect.DeepEqual(b[:], want) {
		t.Errorf("Put = % x, want % x", b, want)
	}
}

// TestMTTEntryReservedBits: each of 04h bits 7:2 alone is reported, naming
// dword 04h, and the entry is still parsed.
func TestMTTEntryReservedBits(t *testing.T) {
	for bit := 2; bit <= 7; bit++ {
		img := unhex(t, "01234567 89abcd01", 8)
		img[7] |= 1 << bit
		e, err := prm.ParseMTTEntry(img)
		var re *prm.ReservedBitsError
		if !errors.As(err, &re) {
			t.Fatalf("bit %d: err = %v", bit, err)
		}
		if want := []prm.ReservedDword{{Offset: 4, Bits: 1 << bit}}; !reflect.DeepEqual(re.Dwords, want) {
			t.Errorf("bit %d: Dwords = %+v, want %+v", bit, re.Dwords, want)
		}
		if want := (prm.MTTEntry{PTag: 0x0123456789abcd00, RdEn: true}); e != want {
			t.Errorf("bit %d: parsed %+v, want %+v", bit, e, want)
		}
		if d := prm.DecodeMTTEntry(img); d != e {
			t.Errorf("bit %d: DecodeMTTEntry = %+v, want %+v", bit, d, e)
		}
	}
	// All six together, in one dword.
	_, err := prm.ParseMTTEntry(unhex(t, "00000000 000000fc", 8))
	var re *prm.ReservedBitsError
	if !errors.As(err, &re) || !reflect.DeepEqual(re.Dwords, []prm.ReservedDword{{Offset: 4, Bits: 0xfc}}) {
		t.Errorf("04h 7:2: err = %v", err)
	}
	// No other bit is reserved.
	for _, img := range []string{"ffffffff ffffff03", "00000000 00000100", "80000000 00000000"} {
		if _, err := prm.ParseMTTEntry(unhex(t, img, 8)); err != nil {
			t.Errorf("%s: %v", img, err)
		}
	}
}

func TestMTTEntrySize(t *testing.T) {
	for _, n := range []int{0, 7, 9, 16} {
		_, err := prm.ParseMTTEntry(make([]byte, n))
		var se *prm.SizeError
		if !errors.As(err, &se) || se.Want != 8 || se.Got != n {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
}

func TestMTTPageBase(t *testing.T) {
	e := prm.MTTEntry{PTag: 0x12345678abcd00}
	for _, c := range []struct {
		log  uint8
		want uint64
	}{
		{0, 0x12345678abcd00}, {8, 0x12345678abcd00}, {12, 0x12345678abc000},
		{16, 0x12345678ab0000}, {21, 0x12345678a00000}, {31, 0x12345600000000},
		{63, 0}, {64, 0},
	} {
		if got := e.PageBase(c.log); got != c.want {
			t.Errorf("PageBase(%d) = %#x, want %#x", c.log, got, c.want)
		}
	}
}

// TestMTTWordAgrees: MTTWord and PageBits decide and place pages as
// DecodeMTTEntry, PageAllows and PageBase do, for every access type
// (valid or not) and every low byte of the entry.
func TestMTTWordAgrees(t *testing.T) {
	for ty := prm.AccessType(0); ty < 8; ty++ {
		for low := 0; low < 256; low++ {
			b := []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, byte(low)}
			e, w := prm.DecodeMTTEntry(b), prm.MTTWord(b)
			if got, want := w&ty.PageBits() == ty.PageBits(), ty.PageAllows(e); got != want {
				t.Fatalf("%v, low byte %#x: MTTWord allows %v, PageAllows %v", ty, low, got, want)
			}
			for log := uint8(12); log < 32; log++ {
				if got, want := w&^(uint64(1)<<log-1), e.PageBase(log); got != want {
					t.Fatalf("log %d, low byte %#x: page base %#x from MTTWord, %#x from PageBase", log, low, got, want)
				}
			}
		}
	}
}
