package prm_test

import (
	"reflect"
	"testing"

	"mkeysim/prm"
)

func TestAccessMode(t *testing.T) {
	for _, c := range []struct {
		m        prm.AccessMode
		v        uint8
		name     string
		mtt, klm bool
	}{
		{prm.ModePA, 0, "PA", false, false},
		{prm.ModeMTT, 1, "MTT", true, false},
		{prm.ModeKLM, 2, "KLM", false, true},
		{prm.ModeFixedBufferSize, 3, "FIXED_BUFFER_SIZE", false, true},
		{prm.ModeSWICM, 4, "SW_ICM", false, false},
		{prm.ModeMEMIC, 5, "MEMIC", false, false},
	} {
		if uint8(c.m) != c.v || c.m.String() != c.name || !c.m.Valid() ||
			c.m.UsesMTTList() != c.mtt || c.m.UsesKLMList() != c.klm {
			t.Errorf("%s: value %d valid %v mtt %v klm %v", c.m, uint8(c.m), c.m.Valid(), c.m.UsesMTTList(), c.m.UsesKLMList())
		}
		if m, ok := prm.ParseAccessMode(c.name); !ok || m != c.m {
			t.Errorf("ParseAccessMode(%s) = %v, %v", c.name, m, ok)
		}
	}
	for _, v := range []uint8{6, 7, 0x10, 0x1f} {
		m := prm.AccessMode(v)
		if m.Valid() || m.UsesMTTList() || m.UsesKLMList() {
			t.Errorf("reserved mode %#x valid or listed", v)
		}
	}
	if s := prm.AccessMode(6).String(); s != "0x6" {
		t.Errorf("String(6) = %q", s)
	}
	if _, ok := prm.ParseAccessMode("mtt"); ok {
		t.Error("ParseAccessMode is case-insensitive")
	}
	names := prm.ModeNames()
	if want := []string{"PA", "MTT", "KLM", "FIXED_BUFFER_SIZE", "SW_ICM", "MEMIC"}; !reflect.DeepEqual(names, want) {
		t.Errorf("ModeNames = %v", names)
	}
	names[0] = "x"
	if prm.ModeNames()[0] != "PA" || prm.ModePA.String() != "PA" {
		t.Error("ModeNames returned prm's own array")
	}
}
