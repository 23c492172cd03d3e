package prm_test

import (
	"testing"

	"mkeysim/prm"
)

func TestKey(t *testing.T) {
	for _, c := range []struct {
		index   uint32
		variant uint8
		key     prm.Key
		str     string
	}{
		{0, 0, 0, "0x0"},
		{1, 0, 0x100, "0x100"},
		{0, 0xff, 0xff, "0xff"},
		{0x123456, 0x78, 0x12345678, "0x12345678"},
		{0x000123, 0x2a, 0x0001232a, "0x1232a"},
		{prm.MaxIndex, 0xff, 0xffffffff, "0xffffffff"},
	} {
		k := prm.MakeKey(c.index, c.variant)
		if k != c.key {
			t.Errorf("MakeKey(%#x, %#x) = %#x, want %#x", c.index, c.variant, uint32(k), uint32(c.key))
		}
		if k.Index() != c.index || k.Variant() != c.variant {
			t.Errorf("%#x: Index %#x Variant %#x", uint32(k), k.Index(), k.Variant())
		}
		if k.String() != c.str {
			t.Errorf("%#x: String %q, want %q", uint32(k), k.String(), c.str)
		}
	}
	if prm.MaxIndex != 0xffffff {
		t.Errorf("MaxIndex = %#x", prm.MaxIndex)
	}
	// An index wider than 24 bits loses its high bits, never the variant.
	if k := prm.MakeKey(0x1abcdef0, 0x12); k != 0xbcdef012 || k.Index() != 0xbcdef0 || k.Variant() != 0x12 {
		t.Errorf("MakeKey(wide index) = %#x", uint32(k))
	}
}
