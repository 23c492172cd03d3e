package prm_test

import (
	"errors"
	"reflect"
	"testing"

	"mkeysim/prm"
)

// klmRows: entries and their 16 bytes by hand from translation.md 2.4
// (00h byte_count, 04h mkey, 08h/0Ch address[63:32]/[31:0]).
var klmRows = []struct {
	e   prm.KLMEntry
	img string
}{
	{prm.KLMEntry{}, "00000000 00000000 00000000 00000000"},
	{prm.KLMEntry{ByteCount: 0x1000, MKey: 0x00012301, Address: 0x7f0000001800},
		"00001000 00012301 00007f00 00001800"},
	{prm.KLMEntry{ByteCount: 0x80000000, MKey: prm.MakeKey(0xffffff, 0xff), Address: 0x0123456789abcdef},
		"80000000 ffffffff 01234567 89abcdef"},
	{prm.KLMEntry{ByteCount: 0xffffffff, Address: ^uint64(0)},
		"ffffffff 00000000 ffffffff ffffffff"},
	{prm.KLMEntry{MKey: prm.MakeKey(1, 0)}, "00000000 00000100 00000000 00000000"},
	{prm.KLMEntry{Address: 1}, "00000000 00000000 00000000 00000001"},
	{prm.KLMEntry{Address: 1 << 32}, "00000000 00000000 00000001 00000000"},
}

func TestKLMEntryDirected(t *testing.T) {
	for _, row := range klmRows {
		want := unhex(t, row.img, prm.KLMEntrySize)
		var got [prm.KLMEntrySize]byte
		row.e.Put(got[:])
		if !reflect.DeepEqual(got[:], want) {
			t.Errorf("%+v: Put = % x, want % x", row.e, got, want)
		}
		if a := row.e.Append([]byte{1, 2}); !reflect.DeepEqual(a, append([]byte{1, 2}, want...)) {
			t.Errorf("%+v: Append = % x", row.e, a)
		}
		e, err := prm.ParseKLMEntry(want)
		if err != nil || e != row.e {
			t.Errorf("ParseKLMEntry(% x) = %+v, %v; want %+v", want, e, err, row.e)
		}
		if d := prm.DecodeKLMEntry(want); d != row.e {
			t.Errorf("DecodeKLMEntry = %+v", d)
		}
	}
}

// TestKLMEntryNoReservedBits: every bit of a KLM entry is a field.
func TestKLMEntryNoReservedBits(t *testing.T) {
	for bit := 0; bit < 8*prm.KLMEntrySize; bit++ {
		img := make([]byte, prm.KLMEntrySize)
		img[bit/8] = 0x80 >> (bit % 8)
		e, err := prm.ParseKLMEntry(img)
		if err != nil {
			t.Fatalf("bit %d: %v", bit, err)
		}
		if e == (prm.KLMEntry{}) {
			t.Errorf("bit %d: parsed as the zero entry", bit)
		}
	}
}

func TestKLMEntrySize(t *testing.T) {
	for _, n := range []int{0, 8, 15, 17, 32} {
		_, err := prm.ParseKLMEntry(make([]byte, n))
		var se *prm.SizeError
		if !errors.As(err, &se) || se.Want != 16 || se.Got != n {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
}
