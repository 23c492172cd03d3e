package prm_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"mkeysim/prm"
)

// checkParsed is the contract every parser keeps for an input of the right
// size: the reserved error is returned iff a bit of reserved is set, naming
// exactly the dwords and bits that are, and the packed value is the input
// with those bits cleared. It returns that cleared image.
func checkParsed(t *testing.T, format string, in []byte, reserved []uint32, err error, repacked []byte) []byte {
	t.Helper()
	cleared := append([]byte(nil), in...)
	var want []prm.ReservedDword
	for i, m := range reserved {
		d := binary.BigEndian.Uint32(in[4*i:])
		if r := d & m; r != 0 {
			want = append(want, prm.ReservedDword{Offset: 4 * i, Bits: r})
		}
		binary.BigEndian.PutUint32(cleared[4*i:], d&^m)
	}
	if want == nil {
		if err != nil {
			t.Fatalf("%s % x: unexpected error %v", format, in, err)
		}
	} else {
		var re *prm.ReservedBitsError
		if !errors.As(err, &re) || re.Format != format || !reflect.DeepEqual(re.Dwords, want) {
			t.Fatalf("%s % x: err = %v, want reserved %+v", format, in, err, want)
		}
	}
	if !bytes.Equal(repacked, cleared) {
		t.Fatalf("%s: repacked\n %s\nwant input with reserved bits cleared\n %s", format, dwords(repacked), dwords(cleared))
	}
	return cleared
}

func checkSizeError(t *testing.T, err error, want, got int) {
	t.Helper()
	var se *prm.SizeError
	if !errors.As(err, &se) || se.Want != want || se.Got != got {
		t.Fatalf("%d bytes: err = %v, want a size error", got, err)
	}
}

func FuzzMKC(f *testing.F) {
	for _, row := range mkcFieldRows {
		f.Add(unhex(f, row.img, prm.MKCSize))
	}
	f.Add(unhex(f, specExampleHex, prm.MKCSize))
	f.Add(bytes.Repeat([]byte{0xff}, prm.MKCSize))
	res := make([]byte, prm.MKCSize)
	for i, m := range mkcReservedHand {
		binary.BigEndian.PutUint32(res[4*i:], m)
	}
	f.Add(res)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := prm.ParseMKC(in)
		if len(in) != prm.MKCSize {
			checkSizeError(t, err, prm.MKCSize, len(in))
			return
		}
		img := m.Bytes()
		cleared := checkParsed(t, "MKC", in, mkcReservedHand[:], err, img[:])
		m2, err := prm.ParseMKC(cleared)
		if err != nil || m2 != m {
			t.Fatalf("reparse = %+v, %v; want %+v", m2, err, m)
		}
		for _, f := range prm.MKCFields() {
			if err := f.Set(&m2, f.Get(&m)); err != nil {
				t.Fatalf("parsed %s does not fit its width: %v", f.Name, err)
			}
		}
	})
}

func FuzzMTTEntry(f *testing.F) {
	for _, row := range mttRows {
		f.Add(unhex(f, row.img, prm.MTTEntrySize))
	}
	f.Add(unhex(f, "01234567 89abcdfd", prm.MTTEntrySize))
	f.Add(unhex(f, "ffffffff ffffffff", prm.MTTEntrySize))
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := prm.ParseMTTEntry(in)
		if len(in) != prm.MTTEntrySize {
			checkSizeError(t, err, prm.MTTEntrySize, len(in))
			return
		}
		cleared := checkParsed(t, "MTT entry", in, []uint32{0, 0xfc}, err, e.Append(nil))
		if d := prm.DecodeMTTEntry(in); d != e {
			t.Fatalf("DecodeMTTEntry = %+v, ParseMTTEntry = %+v", d, e)
		}
		if e2, err := prm.ParseMTTEntry(cleared); err != nil || e2 != e {
			t.Fatalf("reparse = %+v, %v", e2, err)
		}
	})
}

func FuzzKLMEntry(f *testing.F) {
	for _, row := range klmRows {
		f.Add(unhex(f, row.img, prm.KLMEntrySize))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := prm.ParseKLMEntry(in)
		if len(in) != prm.KLMEntrySize {
			checkSizeError(t, err, prm.KLMEntrySize, len(in))
			return
		}
		checkParsed(t, "KLM entry", in, make([]uint32, 4), err, e.Append(nil))
		if d := prm.DecodeKLMEntry(in); d != e {
			t.Fatalf("DecodeKLMEntry = %+v, ParseKLMEntry = %+v", d, e)
		}
	})
}

func FuzzUMRCtrl(f *testing.F) {
	for _, row := range umrRows {
		f.Add(unhex(f, row.img, prm.UMRCtrlSize))
	}
	f.Add(bytes.Repeat([]byte{0xff}, prm.UMRCtrlSize))
	f.Add(unhex(f, "ef000000 ffffffff ffffffff ffffffff ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000", prm.UMRCtrlSize))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := prm.ParseUMRCtrl(in)
		if len(in) != prm.UMRCtrlSize {
			checkSizeError(t, err, prm.UMRCtrlSize, len(in))
			return
		}
		en := in[0]&0x10 != 0
		res := umrReservedHand(en)
		cleared := checkParsed(t, "UMR control segment", in, res[:], err, c.Append(nil))
		if c2, err := prm.ParseUMRCtrl(cleared); err != nil || c2 != c {
			t.Fatalf("reparse = %+v, %v; want %+v", c2, err, c)
		}
	})
}

// genMKC draws an MKC whose every field fits its width, through Field.Set.
var genMKC = rapid.Custom(func(t *rapid.T) prm.MKC {
	var m prm.MKC
	for _, f := range prm.MKCFields() {
		v := rapid.Uint64Range(0, allOnes(f.Width)).Draw(t, f.Name)
		if err := f.Set(&m, v); err != nil {
			t.Fatalf("Set(%s, %#x): %v", f.Name, v, err)
		}
	}
	return m
})

func TestMKCValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMKC.Draw(t, "mkc")
		img := m.Bytes()
		for i, r := range mkcReservedHand {
			if binary.BigEndian.Uint32(img[4*i:])&r != 0 {
				t.Fatalf("Put set a reserved bit in %02Xh: %s", 4*i, dwords(img[:]))
			}
		}
		p, err := prm.ParseMKC(img[:])
		if err != nil || p != m {
			t.Fatalf("ParseMKC(Bytes) = %+v, %v; want %+v", p, err, m)
		}
		h, err := prm.ParseMKCHex(m.Hex())
		if err != nil || h != m {
			t.Fatalf("ParseMKCHex(Hex) = %+v, %v", h, err)
		}
	})
}

// TestMKCWideValues: struct values wider than their field are cut to the
// field's width, never spilling into another field.
func TestMKCWideValues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := prm.MKC{
			Free: rapid.Bool().Draw(t, "free"), AccessMode: prm.AccessMode(rapid.Uint8().Draw(t, "access_mode")),
			UMREn: rapid.Bool().Draw(t, "umr_en"), LR: rapid.Bool().Draw(t, "lr"),
			MATranslationMode: rapid.Uint8().Draw(t, "ma"), SF: rapid.Uint8().Draw(t, "sf"),
			QPN: rapid.Uint32().Draw(t, "qpn"), Variant: rapid.Uint8().Draw(t, "variant"),
			PASID: rapid.Uint32().Draw(t, "pasid"), PD: rapid.Uint32().Draw(t, "pd"),
			StartAddr: rapid.Uint64().Draw(t, "start"), Len: rapid.Uint64().Draw(t, "len"),
			BSFHandle: rapid.Uint64().Draw(t, "bsf_handle"), MTTHandle: rapid.Uint64().Draw(t, "mtt_handle"),
			LogEntitySize: rapid.Uint8().Draw(t, "log"), CryptoEn: rapid.Uint8().Draw(t, "crypto"),
			GenerationCounter: rapid.Uint16().Draw(t, "gen"),
		}
		img := m.Bytes()
		p, err := prm.ParseMKC(img[:])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range prm.MKCFields() {
			if got, want := f.Get(&p), f.Get(&m)&allOnes(f.Width); got != want {
				t.Fatalf("%s: %#x packed, %#x parsed, want %#x", f.Name, f.Get(&m), got, want)
			}
		}
	})
}

func TestMTTValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := prm.MTTEntry{PTag: rapid.Uint64().Draw(t, "ptag"), WrEn: rapid.Bool().Draw(t, "wr"), RdEn: rapid.Bool().Draw(t, "rd")}
		p, err := prm.ParseMTTEntry(e.Append(nil))
		want := e
		want.PTag &^= 0xff
		if err != nil || p != want {
			t.Fatalf("round trip %+v -> %+v, %v; want %+v", e, p, err, want)
		}
	})
}

func TestKLMValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := prm.KLMEntry{ByteCount: rapid.Uint32().Draw(t, "bc"), MKey: prm.Key(rapid.Uint32().Draw(t, "mkey")), Address: rapid.Uint64().Draw(t, "addr")}
		if p, err := prm.ParseKLMEntry(e.Append(nil)); err != nil || p != e {
			t.Fatalf("round trip %+v -> %+v, %v", e, p, err)
		}
	})
}

func TestUMRCtrlValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := prm.UMRCtrl{
			Inline:                       rapid.Bool().Draw(t, "inline"),
			CheckFree:                    prm.CheckFree(rapid.Uint8Range(0, 3).Draw(t, "check_free")),
			TranslationOffsetEn:          rapid.Bool().Draw(t, "offset_en"),
			TranslationOctwordActualSize: rapid.Uint16().Draw(t, "size"),
			MKeyMask:                     prm.MKeyMask(rapid.Uint64().Draw(t, "mask")),
		}
		if c.TranslationOffsetEn {
			c.TranslationOffset = rapid.Uint64Range(0, prm.MaxTranslationOffset).Draw(t, "offset")
		} else {
			c.BSFOctwordActualSize = rapid.Uint16().Draw(t, "bsf")
		}
		if p, err := prm.ParseUMRCtrl(c.Append(nil)); err != nil || p != c {
			t.Fatalf("round trip %+v -> %+v, %v", c, p, err)
		}
	})
}
