package prm_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"mkeysim/prm"
)

// umrRows: control segments and their 48 bytes by hand from translation.md
// 2.5 (dwords 00h 04h 08h 0Ch 10h 14h ... 2Ch).
var umrRows = []struct {
	name string
	c    prm.UMRCtrl
	img  string
}{
	{"zero", prm.UMRCtrl{},
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"inline 00h 31", prm.UMRCtrl{Inline: true},
		"80000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"check_free 1 (if free)", prm.UMRCtrl{CheckFree: prm.CheckFreeIfFree},
		"20000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"check_free 2 (if in use)", prm.UMRCtrl{CheckFree: prm.CheckFreeIfInUse},
		"40000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"check_free 3 (00h 30:29)", prm.UMRCtrl{CheckFree: 3},
		"60000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"translation_offset_en 00h 28", prm.UMRCtrl{TranslationOffsetEn: true},
		"10000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"translation_octword_actual_size 04h 31:16", prm.UMRCtrl{TranslationOctwordActualSize: 0xffff},
		"00000000 ffff0000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"bsf_octword_actual_size 04h 15:0", prm.UMRCtrl{BSFOctwordActualSize: 0xffff},
		"00000000 0000ffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"translation_offset all ones", prm.UMRCtrl{TranslationOffsetEn: true, TranslationOffset: prm.MaxTranslationOffset},
		"10000000 0000ffff 00000000 00000000 07ffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"translation_offset [15:0] in 04h, [42:16] in 10h", prm.UMRCtrl{TranslationOffsetEn: true, TranslationOffset: 0x4123456789a},
		"10000000 0000789a 00000000 00000000 04123456 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"translation_offset bit 16", prm.UMRCtrl{TranslationOffsetEn: true, TranslationOffset: 1 << 16},
		"10000000 00000000 00000000 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"mkey_ctx_mask all ones", prm.UMRCtrl{MKeyMask: ^prm.MKeyMask(0)},
		"00000000 00000000 ffffffff ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"mkey_ctx_mask bit 63 in 08h", prm.UMRCtrl{MKeyMask: 1 << 63},
		"00000000 00000000 80000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"mkey_ctx_mask free in 0Ch", prm.UMRCtrl{MKeyMask: prm.MaskFree},
		"00000000 00000000 00000000 20000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"mkey_ctx_mask honoured", prm.UMRCtrl{MKeyMask: prm.MaskHonoured},
		"00000000 00000000 00000000 a03f61c3 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"kernel chunk: inline, must be free, 4 octwords at offset 8, empty mask",
		prm.UMRCtrl{Inline: true, CheckFree: prm.CheckFreeIfFree, TranslationOffsetEn: true, TranslationOctwordActualSize: 4, TranslationOffset: 8},
		"b0000000 00040008 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"kernel last chunk: enables the key",
		prm.UMRCtrl{Inline: true, CheckFree: prm.CheckFreeIfFree, TranslationOffsetEn: true, TranslationOctwordActualSize: 4, TranslationOffset: 0x10004,
			MKeyMask: prm.MaskFree | prm.MaskVariant | prm.MaskLR | prm.MaskLW | prm.MaskPD | prm.MaskStartAddr | prm.MaskLen | prm.MaskLogEntitySize},
		"b0000000 00040004 00000000 200620c3 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	{"local invalidate: mask free alone, no list", prm.UMRCtrl{Inline: true, MKeyMask: prm.MaskFree},
		"80000000 00000000 00000000 20000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
}

func TestUMRCtrlDirected(t *testing.T) {
	for _, row := range umrRows {
		t.Run(row.name, func(t *testing.T) {
			want := unhex(t, row.img, prm.UMRCtrlSize)
			var got [prm.UMRCtrlSize]byte
			row.c.Put(got[:])
			if !reflect.DeepEqual(got[:], want) {
				t.Errorf("Put:\n got %s\nwant %s", dwords(got[:]), dwords(want))
			}
			if a := row.c.Append([]byte{9}); !reflect.DeepEqual(a, append([]byte{9}, want...)) {
				t.Errorf("Append = % x", a)
			}
			c, err := prm.ParseUMRCtrl(want)
			if err != nil || c != row.c {
				t.Errorf("ParseUMRCtrl = %+v, %v; want %+v", c, err, row.c)
			}
		})
	}
}

// TestUMRCtrlSharedLowHalf: 04h 15:0 is bsf_octword_actual_size or
// translation_offset[15:0], chosen by translation_offset_en; Put writes the
// one the flag selects and Parse reads it back into that one only.
func TestUMRCtrlSharedLowHalf(t *testing.T) {
	c := prm.UMRCtrl{BSFOctwordActualSize: 0x1111, TranslationOffset: 0x2345678}
	var b [prm.UMRCtrlSize]byte
	c.Put(b[:])
	if want := unhex(t, "00000000 00001111 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000", 48); !reflect.DeepEqual(b[:], want) {
		t.Errorf("offset_en 0:\n got %s\nwant %s", dwords(b[:]), dwords(want))
	}
	c.TranslationOffsetEn = true
	c.Put(b[:])
	if want := unhex(t, "10000000 00005678 00000000 00000000 00000234 00000000 00000000 00000000 00000000 00000000 00000000 00000000", 48); !reflect.DeepEqual(b[:], want) {
		t.Errorf("offset_en 1:\n got %s\nwant %s", dwords(b[:]), dwords(want))
	}
	p, err := prm.ParseUMRCtrl(b[:])
	if want := (prm.UMRCtrl{TranslationOffsetEn: true, TranslationOffset: 0x2345678}); err != nil || p != want {
		t.Errorf("Parse = %+v, %v; want %+v", p, err, want)
	}
	// A translation offset wider than 43 bits is cut to 43.
	c = prm.UMRCtrl{TranslationOffsetEn: true, TranslationOffset: ^uint64(0)}
	c.Put(b[:])
	if want := unhex(t, "10000000 0000ffff 00000000 00000000 07ffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000", 48); !reflect.DeepEqual(b[:], want) {
		t.Errorf("wide offset:\n got %s\nwant %s", dwords(b[:]), dwords(want))
	}
	// CheckFree wider than 2 bits does not reach translation_offset_en.
	prm.UMRCtrl{CheckFree: 7}.Put(b[:])
	if want := unhex(t, "60000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000", 48); !reflect.DeepEqual(b[:], want) {
		t.Errorf("wide check_free:\n got %s\nwant %s", dwords(b[:]), dwords(want))
	}
}

// umrReservedHand is the reserved mask of the control segment per dword
// (00h 27:0, 10h 31:27, 14h..2Fh). With translation_offset_en clear,
// 10h 26:0 (translation_offset[42:16]) has no meaning and prm reports it
// too, so that no set bit is silently dropped.
func umrReservedHand(offsetEn bool) [12]uint32 {
	m := [12]uint32{0: 0x0fffffff, 4: 0xf8000000, 5: ^uint32(0), 6: ^uint32(0), 7: ^uint32(0),
		8: ^uint32(0), 9: ^uint32(0), 10: ^uint32(0), 11: ^uint32(0)}
	if !offsetEn {
		m[4] = ^uint32(0)
	}
	return m
}

func TestUMRCtrlReservedBits(t *testing.T) {
	for _, en := range []bool{false, true} {
		base := prm.UMRCtrl{Inline: true, CheckFree: prm.CheckFreeIfInUse, TranslationOffsetEn: en,
			TranslationOctwordActualSize: 8, MKeyMask: prm.MaskFree | 1<<40}
		if en {
			base.TranslationOffset = 0x12340040
		} else {
			base.BSFOctwordActualSize = 3
		}
		var img [prm.UMRCtrlSize]byte
		base.Put(img[:])
		for dw, mask := range umrReservedHand(en) {
			for bit := 0; bit < 32; bit++ {
				b := img
				b[4*dw+3-bit/8] |= 1 << (bit % 8)
				c, err := prm.ParseUMRCtrl(b[:])
				var re *prm.ReservedBitsError
				if mask&(1<<bit) == 0 {
					if errors.As(err, &re) {
						t.Errorf("en=%v %02Xh bit %d is a field bit but reported: %v", en, 4*dw, bit, err)
					}
					continue
				}
				if !errors.As(err, &re) {
					t.Fatalf("en=%v %02Xh bit %d: err = %v", en, 4*dw, bit, err)
				}
				if want := []prm.ReservedDword{{Offset: 4 * dw, Bits: 1 << bit}}; !reflect.DeepEqual(re.Dwords, want) {
					t.Errorf("en=%v %02Xh bit %d: Dwords %+v, want %+v", en, 4*dw, bit, re.Dwords, want)
				}
				if c != base {
					t.Errorf("en=%v %02Xh bit %d: parsed %+v, want %+v", en, 4*dw, bit, c, base)
				}
				if !strings.Contains(err.Error(), "UMR") {
					t.Errorf("error %q does not name the format", err)
				}
			}
		}
	}
}

func TestUMRCtrlSize(t *testing.T) {
	for _, n := range []int{0, 16, 47, 49, 64} {
		_, err := prm.ParseUMRCtrl(make([]byte, n))
		var se *prm.SizeError
		if !errors.As(err, &se) || se.Want != 48 || se.Got != n {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
}

// maskHand: translation.md 2.5, the honoured mkey_ctx_mask bits, their
// names and the MKC fields each carries.
var maskHand = []struct {
	name   string
	bit    uint
	fields []string
}{
	{"len", 0, []string{"len", "length64"}},
	{"log_entity_size", 1, []string{"log_entity_size"}},
	{"start_addr", 6, []string{"start_addr"}},
	{"pd", 7, []string{"pd"}},
	{"en_rinval", 8, []string{"en_rinval"}},
	{"variant", 13, []string{"variant"}},
	{"qpn", 14, []string{"qpn"}},
	{"access_mode", 16, []string{"access_mode"}},
	{"lr", 17, []string{"lr"}},
	{"lw", 18, []string{"lw"}},
	{"rr", 19, []string{"rr"}},
	{"rw", 20, []string{"rw"}},
	{"a", 21, []string{"a"}},
	{"free", 29, []string{"free"}},
	{"generation_counter", 31, []string{"generation_counter"}},
}

func TestMaskNamesAndBits(t *testing.T) {
	consts := map[string]prm.MKeyMask{
		"len": prm.MaskLen, "log_entity_size": prm.MaskLogEntitySize, "start_addr": prm.MaskStartAddr,
		"pd": prm.MaskPD, "en_rinval": prm.MaskEnRinval, "variant": prm.MaskVariant, "qpn": prm.MaskQPN,
		"access_mode": prm.MaskAccessMode, "lr": prm.MaskLR, "lw": prm.MaskLW, "rr": prm.MaskRR,
		"rw": prm.MaskRW, "a": prm.MaskA, "free": prm.MaskFree, "generation_counter": prm.MaskGenerationCounter,
	}
	var names []string
	var all prm.MKeyMask
	for _, m := range maskHand {
		bit := prm.MKeyMask(1) << m.bit
		names = append(names, m.name)
		all |= bit
		if got, ok := prm.ParseMaskName(m.name); !ok || got != bit {
			t.Errorf("ParseMaskName(%s) = %#x, %v; want bit %d", m.name, uint64(got), ok, m.bit)
		}
		if consts[m.name] != bit {
			t.Errorf("constant for %s = %#x, want bit %d", m.name, uint64(consts[m.name]), m.bit)
		}
		if s := bit.String(); s != m.name {
			t.Errorf("bit %d String = %q, want %q", m.bit, s, m.name)
		}
	}
	if got := prm.MaskNames(); !reflect.DeepEqual(got, names) {
		t.Errorf("MaskNames = %v, want %v", got, names)
	}
	if all != 0xa03f61c3 {
		t.Errorf("hand mask %#x, want 0xa03f61c3", uint64(all))
	}
	if prm.MaskHonoured != all {
		t.Errorf("MaskHonoured = %#x, want %#x", uint64(prm.MaskHonoured), uint64(all))
	}
	for _, bad := range []string{"", "LEN", "length64", "mkey", "expected_sigerr_count"} {
		if _, ok := prm.ParseMaskName(bad); ok {
			t.Errorf("ParseMaskName(%q) accepted", bad)
		}
	}
	for _, c := range []struct {
		m    prm.MKeyMask
		want string
	}{
		{0, "none"},
		{prm.MaskLen | prm.MaskFree, "len|free"},
		{prm.MaskGenerationCounter | prm.MaskA | prm.MaskLen, "len|a|generation_counter"},
		{1 << 9, "0x200"},
		{prm.MaskPD | 1<<9 | 1<<63, "pd|0x8000000000000200"},
		{prm.MaskHonoured, "len|log_entity_size|start_addr|pd|en_rinval|variant|qpn|access_mode|lr|lw|rr|rw|a|free|generation_counter"},
	} {
		if got := c.m.String(); got != c.want {
			t.Errorf("%#x.String() = %q, want %q", uint64(c.m), got, c.want)
		}
	}
}

// applyCur and applyImg differ in every field, so each copy shows.
var (
	applyCur = specExample
	applyImg = func() prm.MKC {
		var m prm.MKC
		for _, f := range prm.MKCFields() {
			if err := f.Set(&m, allOnes(f.Width)); err != nil {
				panic(err)
			}
		}
		return m
	}()
)

func TestMaskApplyEachBit(t *testing.T) {
	for _, mb := range maskHand {
		got := (prm.MKeyMask(1) << mb.bit).Apply(applyCur, applyImg)
		for _, f := range prm.MKCFields() {
			want := f.Get(&applyCur)
			for _, name := range mb.fields {
				if name == f.Name {
					want = f.Get(&applyImg)
				}
			}
			if v := f.Get(&got); v != want {
				t.Errorf("mask %s: %s = %#x, want %#x", mb.name, f.Name, v, want)
			}
		}
	}
}

func TestMaskApply(t *testing.T) {
	if got := prm.MKeyMask(0).Apply(applyCur, applyImg); got != applyCur {
		t.Errorf("empty mask changed %+v", got)
	}
	// Unhonoured bits are ignored, even those public code gives a field
	// (9 expected_sigerr_count, 12 bsf_en, 23 small_fence, 25
	// relaxed_ordering_write, 47 relaxed_ordering_read).
	if got := (^prm.MaskHonoured).Apply(applyCur, applyImg); got != applyCur {
		t.Errorf("unhonoured bits changed %+v", got)
	}
	// Every honoured bit: the honoured fields come from the image, the rest stay.
	want := applyImg
	want.RelaxedOrderingWrite, want.SmallFence, want.TunneledAtomic = false, false, false
	want.MATranslationMode, want.SF, want.PASID = 0, 0, 0
	want.BSFEn, want.ExpectedSigerrCount = false, false
	want.BSFOctwordSize, want.BSFHandle = 0, 0
	want.MTTHandle, want.TranslationsOctwordSize = applyCur.MTTHandle, applyCur.TranslationsOctwordSize
	want.RelaxedOrderingRead, want.CryptoEn = false, 0
	if got := (^prm.MKeyMask(0)).Apply(applyCur, applyImg); got != want {
		t.Errorf("all bits:\n got %+v\nwant %+v", got, want)
	}
	// mask len copies length64 with len, both ways.
	cur := prm.MKC{Len: 0x1000, Length64: true}
	img := prm.MKC{Len: 0x2000}
	if got := prm.MaskLen.Apply(cur, img); got != img {
		t.Errorf("len: %+v", got)
	}
	if got := prm.MaskLen.Apply(img, cur); got != cur {
		t.Errorf("len: %+v", got)
	}
	// The image's qpn is taken as it is: 0, with no 0xffffff default.
	cur = prm.MKC{QPN: prm.QPNNone, PD: 3}
	if got := (prm.MaskQPN | prm.MaskFree).Apply(cur, prm.MKC{}); got != (prm.MKC{PD: 3}) {
		t.Errorf("qpn: %+v", got)
	}
	// access_mode moves both of its parts.
	if got := prm.MaskAccessMode.Apply(prm.MKC{AccessMode: prm.ModeMTT}, prm.MKC{AccessMode: prm.ModeMEMIC}); got.AccessMode != prm.ModeMEMIC {
		t.Errorf("access_mode: %v", got.AccessMode)
	}
}
