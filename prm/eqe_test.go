package prm_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"mkeysim/prm"
)

// TestPageRequestEQE: the layout of struct mlx5_eqe and struct
// mlx5_eqe_page_req (include/linux/mlx5/device.h), byte by byte: type at
// 01h, func_id at 22h, num_pages at 24h (signed, big-endian), the owner
// bit in the last byte.
func TestPageRequestEQE(t *testing.T) {
	for _, c := range []struct {
		e    prm.PageRequestEQE
		want string // the bytes that are not zero, as offset:hex
	}{
		{prm.PageRequestEQE{NumPages: 3}, "01:0b 27:03"},
		{prm.PageRequestEQE{FuncID: 0x1234, NumPages: -2, Owner: true}, "01:0b 22:12 23:34 24:ff 25:ff 26:ff 27:fe 3f:01"},
		{prm.PageRequestEQE{ECFunction: 1, NumPages: 1 << 24}, "01:0b 21:01 24:01"},
	} {
		b := c.e.Bytes()
		var got []string
		for i, v := range b {
			if v != 0 {
				got = append(got, hex.EncodeToString([]byte{byte(i)})+":"+hex.EncodeToString([]byte{v}))
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%+v packs to %s, want %s", c.e, g, c.want)
		}
		back, err := prm.ParsePageRequestEQE(b[:])
		if err != nil || back != c.e {
			t.Errorf("%+v parses back to %+v, %v", c.e, back, err)
		}
	}
	b := prm.PageRequestEQE{NumPages: 1}.Bytes()
	b[1] = 0x0a // a command completion event
	if _, err := prm.ParsePageRequestEQE(b[:]); err == nil || !strings.Contains(err.Error(), "event type 0x0a") {
		t.Errorf("an EQE of type 0x0a: %v", err)
	}
	if _, err := prm.ParsePageRequestEQE(b[:63]); err == nil {
		t.Error("an EQE of 63 bytes parsed")
	}
}

// FuzzPageRequestEQE: any 64 bytes of type 0x0b parse to an event that
// packs back to them, but for the reserved bytes and the owner byte's
// other bits, which it zeroes.
func FuzzPageRequestEQE(f *testing.F) {
	b := prm.PageRequestEQE{FuncID: 7, NumPages: -5, Owner: true}.Bytes()
	f.Add(b[:])
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := prm.ParsePageRequestEQE(in)
		if err != nil {
			return
		}
		out := e.Bytes()
		for i := range in {
			want := in[i]
			switch {
			case i == 0x3f:
				want &= 1
			case i != 0x01 && (i < 0x20 || i >= 0x28):
				want = 0
			}
			if out[i] != want {
				t.Fatalf("byte %#x: %#02x packs back as %#02x (%x)", i, in[i], out[i], in)
			}
		}
	})
}
