package prm_test

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"mkeysim/prm"
)

// unhex decodes a hand-written image: hex digits, with spaces between
// dwords for the reader. It fails the test unless the image is n bytes.
func unhex(t testing.TB, s string, n int) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad literal %q: %v", s, err)
	}
	if len(b) != n {
		t.Fatalf("literal %q is %d bytes, want %d", s, len(b), n)
	}
	return b
}

// dwords renders an image as big-endian dwords, for failure messages.
func dwords(b []byte) string {
	var s []string
	for i := 0; i+4 <= len(b); i += 4 {
		s = append(s, hex.EncodeToString(b[i:i+4]))
	}
	return strings.Join(s, " ")
}

// mkcFieldRows has one row per field of translation.md 2.2, in table order:
// the field set alone to all ones (its full width), the 64-byte image that
// gives, written by hand from the table (dwords 00h 04h ... 3Ch), and the
// context that image parses to.
var mkcFieldRows = []struct {
	name  string
	width int
	img   string
	want  prm.MKC
}{
	{"free", 1, // 00h 30
		"40000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{Free: true}},
	{"access_mode", 5, // 00h 28:26 (4_2) and 9:8 (1_0)
		"1c000300 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{AccessMode: 0x1f}},
	{"relaxed_ordering_write", 1, // 00h 18
		"00040000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{RelaxedOrderingWrite: true}},
	{"small_fence_on_rdma_read_response", 1, // 00h 16
		"00010000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{SmallFence: true}},
	{"umr_en", 1, // 00h 15
		"00008000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{UMREn: true}},
	{"a", 1, // 00h 14
		"00004000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{A: true}},
	{"rw", 1, // 00h 13
		"00002000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{RW: true}},
	{"rr", 1, // 00h 12
		"00001000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{RR: true}},
	{"lw", 1, // 00h 11
		"00000800 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{LW: true}},
	{"lr", 1, // 00h 10
		"00000400 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{LR: true}},
	{"tunneled_atomic", 1, // 00h 6
		"00000040 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{TunneledAtomic: true}},
	{"ma_translation_mode", 2, // 00h 5:4
		"00000030 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{MATranslationMode: 3}},
	{"sf", 4, // 00h 3:0
		"0000000f 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{SF: 0xf}},
	{"qpn", 24, // 04h 31:8
		"00000000 ffffff00 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{QPN: 0xffffff}},
	{"variant", 8, // 04h 7:0, mkey[7:0]
		"00000000 000000ff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{Variant: 0xff}},
	{"pasid", 24, // 08h 23:0
		"00000000 00000000 00ffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{PASID: 0xffffff}},
	{"length64", 1, // 0Ch 31
		"00000000 00000000 00000000 80000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{Length64: true}},
	{"bsf_en", 1, // 0Ch 30
		"00000000 00000000 00000000 40000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{BSFEn: true}},
	{"expected_sigerr_count", 1, // 0Ch 26
		"00000000 00000000 00000000 04000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{ExpectedSigerrCount: true}},
	{"en_rinval", 1, // 0Ch 24
		"00000000 00000000 00000000 01000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{EnRinval: true}},
	{"pd", 24, // 0Ch 23:0
		"00000000 00000000 00000000 00ffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{PD: 0xffffff}},
	{"start_addr", 64, // 10h, 14h
		"00000000 00000000 00000000 00000000 ffffffff ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{StartAddr: 0xffffffffffffffff}},
	{"len", 64, // 18h, 1Ch
		"00000000 00000000 00000000 00000000 00000000 00000000 ffffffff ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{Len: 0xffffffffffffffff}},
	{"bsf_octword_size", 32, // 20h
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{BSFOctwordSize: 0xffffffff}},
	{"bsf_handle", 48, // 24h 15:0, 28h
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0000ffff ffffffff 00000000 00000000 00000000 00000000 00000000",
		prm.MKC{BSFHandle: 0xffffffffffff}},
	{"mtt_handle", 48, // 2Ch 15:0, 30h
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0000ffff ffffffff 00000000 00000000 00000000",
		prm.MKC{MTTHandle: 0xffffffffffff}},
	{"translations_octword_size", 32, // 34h
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 ffffffff 00000000 00000000",
		prm.MKC{TranslationsOctwordSize: 0xffffffff}},
	{"relaxed_ordering_read", 1, // 38h 6
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000040 00000000",
		prm.MKC{RelaxedOrderingRead: true}},
	{"log_entity_size", 5, // 38h 4:0
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0000001f 00000000",
		prm.MKC{LogEntitySize: 0x1f}},
	{"crypto_en", 2, // 3Ch 28:27
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 18000000",
		prm.MKC{CryptoEn: 3}},
	{"generation_counter", 16, // 3Ch 15:0
		"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0000ffff",
		prm.MKC{GenerationCounter: 0xffff}},
}

// mkcReservedHand is the reserved mask of translation.md 2.2 per dword,
// worked out by hand: every bit the table does not name.
var mkcReservedHand = [16]uint32{
	0x00: 0xa3fa0080, // 31, 29, 25:19, 17, 7
	0x02: 0xff000000, // 08h 31:24
	0x03: 0x3a000000, // 0Ch 29:27, 25
	0x09: 0xffff0000, // 24h 31:16
	0x0b: 0xffff0000, // 2Ch 31:16
	0x0e: 0xffffffa0, // 38h 31:7, 5
	0x0f: 0xe7ff0000, // 3Ch 31:29, 26:16
}

// specExampleHex is the query_mkey result of spec-example.expected.jsonl.
const specExampleHex = "00009d00ffffff2a000000000000000500007f000000180000000000000030000000000000000000000000000000000100000000000000040000000c00000000"

var specExample = prm.MKC{
	AccessMode: prm.ModeMTT, UMREn: true, LR: true, LW: true, RR: true,
	Variant: 0x2a, QPN: 0xffffff, PD: 5, StartAddr: 0x7f0000001800, Len: 12288,
	MTTHandle: 0x100000000, TranslationsOctwordSize: 4, LogEntitySize: 12,
}

func allOnes(width int) uint64 {
	if width == 64 {
		return ^uint64(0)
	}
	return 1<<uint(width) - 1
}

func TestMKCFieldTableCoversEveryField(t *testing.T) {
	fields := prm.MKCFields()
	if len(fields) != len(mkcFieldRows) {
		t.Fatalf("prm has %d MKC fields, the spec table %d", len(fields), len(mkcFieldRows))
	}
	for i, f := range fields {
		row := mkcFieldRows[i]
		if f.Name != row.name || f.Width != row.width {
			t.Errorf("field %d: prm has %s/%d, spec %s/%d (wire order)", i, f.Name, f.Width, row.name, row.width)
		}
	}
}

func TestMKCFieldAllOnes(t *testing.T) {
	for _, row := range mkcFieldRows {
		t.Run(row.name, func(t *testing.T) {
			want := unhex(t, row.img, prm.MKCSize)

			// value -> bytes, from the struct literal and from Set by name.
			if got := row.want.Bytes(); !reflect.DeepEqual(got[:], want) {
				t.Errorf("Bytes:\n got %s\nwant %s", dwords(got[:]), dwords(want))
			}
			var m prm.MKC
			if err := m.Set(row.name, allOnes(row.width)); err != nil {
				t.Fatalf("Set(%s, all ones): %v", row.name, err)
			}
			if m != row.want {
				t.Errorf("Set(%s, all ones) = %+v, want %+v", row.name, m, row.want)
			}
			if got := m.Hex(); got != hex.EncodeToString(want) {
				t.Errorf("Hex = %s, want %s", got, hex.EncodeToString(want))
			}
			if got := m.Append([]byte{0xee}); !reflect.DeepEqual(got, append([]byte{0xee}, want...)) {
				t.Errorf("Append = %x", got)
			}

			// bytes -> value: exactly that field, nothing else.
			p, err := prm.ParseMKC(want)
			if err != nil {
				t.Fatalf("ParseMKC: %v", err)
			}
			if p != row.want {
				t.Errorf("ParseMKC = %+v, want %+v", p, row.want)
			}
			for _, f := range prm.MKCFields() {
				v, ok := p.Get(f.Name)
				if !ok {
					t.Fatalf("Get(%s) not found", f.Name)
				}
				exp := uint64(0)
				if f.Name == row.name {
					exp = allOnes(row.width)
				}
				if v != exp {
					t.Errorf("Get(%s) = %#x, want %#x", f.Name, v, exp)
				}
			}
		})
	}
}

// TestMKCSplitFields pins the order of the parts of the fields spread over
// two ranges with values whose halves differ.
func TestMKCSplitFields(t *testing.T) {
	rows := []struct {
		name string
		m    prm.MKC
		img  string
	}{
		{"access_mode PA", prm.MKC{AccessMode: prm.ModePA},
			"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"access_mode MTT", prm.MKC{AccessMode: prm.ModeMTT},
			"00000100 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"access_mode KLM", prm.MKC{AccessMode: prm.ModeKLM},
			"00000200 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"access_mode FIXED_BUFFER_SIZE", prm.MKC{AccessMode: prm.ModeFixedBufferSize},
			"00000300 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"access_mode SW_ICM", prm.MKC{AccessMode: prm.ModeSWICM},
			"04000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"access_mode MEMIC", prm.MKC{AccessMode: prm.ModeMEMIC},
			"04000100 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"access_mode 0x12", prm.MKC{AccessMode: 0x12}, // 4_2 = 100b, 1_0 = 10b
			"10000200 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"start_addr", prm.MKC{StartAddr: 0x0123456789abcdef},
			"00000000 00000000 00000000 00000000 01234567 89abcdef 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"len", prm.MKC{Len: 0xfedcba9876543210},
			"00000000 00000000 00000000 00000000 00000000 00000000 fedcba98 76543210 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
		{"bsf_handle", prm.MKC{BSFHandle: 0x123456789abc},
			"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00001234 56789abc 00000000 00000000 00000000 00000000 00000000"},
		{"mtt_handle", prm.MKC{MTTHandle: 0xcba987654321},
			"00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0000cba9 87654321 00000000 00000000 00000000"},
		{"qpn and variant", prm.MKC{QPN: 0x123456, Variant: 0x78},
			"00000000 12345678 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			want := unhex(t, row.img, prm.MKCSize)
			if got := row.m.Bytes(); !reflect.DeepEqual(got[:], want) {
				t.Errorf("Bytes:\n got %s\nwant %s", dwords(got[:]), dwords(want))
			}
			p, err := prm.ParseMKC(want)
			if err != nil || p != row.m {
				t.Errorf("ParseMKC = %+v, %v; want %+v", p, err, row.m)
			}
		})
	}
}

// TestMKCPutNoSpill: a struct value wider than its field is cut to the field
// and never reaches a neighbour or a reserved bit.
func TestMKCPutNoSpill(t *testing.T) {
	m := prm.MKC{
		Free: true, AccessMode: 0xff, RelaxedOrderingWrite: true, SmallFence: true,
		UMREn: true, A: true, RW: true, RR: true, LW: true, LR: true,
		TunneledAtomic: true, MATranslationMode: 0xff, SF: 0xff,
		QPN: 0xffffffff, Variant: 0xff, PASID: 0xffffffff,
		Length64: true, BSFEn: true, ExpectedSigerrCount: true, EnRinval: true,
		PD: 0xffffffff, StartAddr: ^uint64(0), Len: ^uint64(0),
		BSFOctwordSize: 0xffffffff, BSFHandle: ^uint64(0), MTTHandle: ^uint64(0),
		TranslationsOctwordSize: 0xffffffff, RelaxedOrderingRead: true,
		LogEntitySize: 0xff, CryptoEn: 0xff, GenerationCounter: 0xffff,
	}
	img := m.Bytes()
	for i, res := range mkcReservedHand {
		if got, want := binary.BigEndian.Uint32(img[4*i:]), ^res; got != want {
			t.Errorf("dword %02Xh = %08x, want %08x", 4*i, got, want)
		}
	}
	// The union of the all-ones rows is the same image.
	var union [prm.MKCSize]byte
	for _, row := range mkcFieldRows {
		for i, b := range unhex(t, row.img, prm.MKCSize) {
			if union[i]&b != 0 {
				t.Errorf("%s overlaps another field at byte %d", row.name, i)
			}
			union[i] |= b
		}
	}
	if union != img {
		t.Errorf("union of the rows %s\n!= all fields set %s", dwords(union[:]), dwords(img[:]))
	}
}

func TestMKCReservedMask(t *testing.T) {
	got := prm.MKCReservedMask()
	if !reflect.DeepEqual(got, mkcReservedHand[:]) {
		t.Errorf("MKCReservedMask = %08x, want %08x", got, mkcReservedHand)
	}
}

// TestMKCReservedBits sets each reserved bit alone, on top of the spec
// example: ParseMKC reports that bit in its dword and still parses the rest.
func TestMKCReservedBits(t *testing.T) {
	base := unhex(t, specExampleHex, prm.MKCSize)
	n := 0
	for dw, mask := range mkcReservedHand {
		for bit := 0; bit < 32; bit++ {
			if mask&(1<<bit) == 0 {
				continue
			}
			n++
			for _, onto := range [][]byte{make([]byte, prm.MKCSize), base} {
				img := append([]byte(nil), onto...)
				img[4*dw+3-bit/8] |= 1 << (bit % 8)
				m, err := prm.ParseMKC(img)
				var re *prm.ReservedBitsError
				if !errors.As(err, &re) {
					t.Fatalf("%02Xh bit %d: err = %v, want *ReservedBitsError", 4*dw, bit, err)
				}
				want := []prm.ReservedDword{{Offset: 4 * dw, Bits: 1 << bit}}
				if re.Format != "MKC" || !reflect.DeepEqual(re.Dwords, want) {
					t.Errorf("%02Xh bit %d: error %+v, want MKC %+v", 4*dw, bit, re, want)
				}
				wantM, _ := prm.ParseMKC(onto)
				if m != wantM {
					t.Errorf("%02Xh bit %d: parsed %+v, want %+v", 4*dw, bit, m, wantM)
				}
				if img2 := m.Bytes(); !reflect.DeepEqual(img2[:], onto) {
					t.Errorf("%02Xh bit %d: repacked %s, want reserved bit cleared", 4*dw, bit, dwords(img2[:]))
				}
			}
		}
	}
	covered := 0
	for _, row := range mkcFieldRows {
		covered += row.width
	}
	if n != 8*prm.MKCSize-covered {
		t.Errorf("checked %d reserved bits; the table leaves %d", n, 8*prm.MKCSize-covered)
	}
}

func TestMKCReservedBitsManyDwords(t *testing.T) {
	img := make([]byte, prm.MKCSize)
	for i, m := range mkcReservedHand {
		binary.BigEndian.PutUint32(img[4*i:], m)
	}
	copy(img[0x10:0x18], []byte{0, 0, 0, 0, 0, 0, 0x10, 0}) // start_addr 0x1000
	m, err := prm.ParseMKC(img)
	var re *prm.ReservedBitsError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v", err)
	}
	var want []prm.ReservedDword
	for i, m := range mkcReservedHand {
		if m != 0 {
			want = append(want, prm.ReservedDword{Offset: 4 * i, Bits: m})
		}
	}
	if !reflect.DeepEqual(re.Dwords, want) {
		t.Errorf("Dwords = %+v, want %+v", re.Dwords, want)
	}
	if m != (prm.MKC{StartAddr: 0x1000}) {
		t.Errorf("parsed %+v", m)
	}
	msg := err.Error()
	for _, s := range []string{"MKC", "00h", "08h", "0Ch", "24h", "2Ch", "38h", "3Ch"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q does not name %s", msg, s)
		}
	}
}

func TestMKCSpecExample(t *testing.T) {
	m, err := prm.ParseMKCHex(specExampleHex)
	if err != nil {
		t.Fatal(err)
	}
	if m != specExample {
		t.Errorf("parsed %+v\nwant %+v", m, specExample)
	}
	if m.AccessMode.String() != "MTT" || m.Bound() {
		t.Errorf("mode %v bound %v", m.AccessMode, m.Bound())
	}
	if got := m.Hex(); got != specExampleHex {
		t.Errorf("repacked %s\nwant     %s", got, specExampleHex)
	}
	// Upper-case digits parse the same.
	if u, err := prm.ParseMKCHex(strings.ToUpper(specExampleHex)); err != nil || u != m {
		t.Errorf("upper case: %+v, %v", u, err)
	}
}

// TestMKCConformanceImages repacks mkc_hex lines of the conformance set.
func TestMKCConformanceImages(t *testing.T) {
	for _, s := range []string{
		"0000fd00ffffff670000000000000002ffffffffffff62a300000000000091c300000000000000000000000000000001000000c0000000040000000d00000000",
		"00003c00ffffffde00000000000000010000e8e8341c3d3000000000000980280000000000000000000000000000000000000000000000000000000000000000",
		"00001600ffffff000000000000000001000000000000000000000000000010000000000000000000000000000000000100000300000000040000000000000000",
		"4000ae00000001bd0000000001000001000001c6faed5354000000000000190c0000000000000000000000000000000100000240000000040000000000000000",
	} {
		m, err := prm.ParseMKCHex(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if got := m.Hex(); got != s {
			t.Errorf("repacked %s\nwant     %s", got, s)
		}
	}
	// The last one: free, KLM, a type 2 window bound to QP 1.
	m, _ := prm.ParseMKCHex("4000ae00000001bd0000000001000001000001c6faed5354000000000000190c0000000000000000000000000000000100000240000000040000000000000000")
	if !m.Free || m.AccessMode != prm.ModeKLM || m.QPN != 1 || !m.Bound() || m.Variant != 0xbd || !m.EnRinval || m.PD != 1 ||
		m.StartAddr != 0x1c6faed5354 || m.Len != 0x190c || m.MTTHandle != 0x100000240 || m.TranslationsOctwordSize != 4 {
		t.Errorf("parsed %+v", m)
	}
}

func TestFieldSetWidth(t *testing.T) {
	for _, f := range prm.MKCFields() {
		var m prm.MKC
		if err := f.Set(&m, allOnes(f.Width)); err != nil {
			t.Errorf("%s: Set(all ones) = %v", f.Name, err)
		}
		if got := f.Get(&m); got != allOnes(f.Width) {
			t.Errorf("%s: Get = %#x after Set(all ones)", f.Name, got)
		}
		if f.Width == 64 {
			continue
		}
		before := m
		err := f.Set(&m, 1<<uint(f.Width))
		if err == nil {
			t.Errorf("%s: Set(1<<%d) accepted", f.Name, f.Width)
		} else if !strings.Contains(err.Error(), f.Name) {
			t.Errorf("%s: error %q does not name the field", f.Name, err)
		}
		if m != before {
			t.Errorf("%s: a refused Set changed the context", f.Name)
		}
		if err := m.Set(f.Name, ^uint64(0)); err == nil {
			t.Errorf("%s: MKC.Set(all 64 ones) accepted", f.Name)
		}
	}
}

func TestMKCGetSetByName(t *testing.T) {
	m := specExample
	for name, want := range map[string]uint64{
		"access_mode": 1, "umr_en": 1, "lr": 1, "lw": 1, "rr": 1, "rw": 0, "a": 0,
		"free": 0, "variant": 0x2a, "qpn": 0xffffff, "pd": 5, "start_addr": 0x7f0000001800,
		"len": 12288, "mtt_handle": 0x100000000, "translations_octword_size": 4, "log_entity_size": 12,
	} {
		if got, ok := m.Get(name); !ok || got != want {
			t.Errorf("Get(%s) = %#x, %v; want %#x", name, got, ok, want)
		}
	}
	if _, ok := m.Get("nope"); ok {
		t.Error("Get(unknown) found")
	}
	if err := m.Set("nope", 1); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Set(unknown) = %v", err)
	}
	if _, ok := prm.LookupMKCField("nope"); ok {
		t.Error("LookupMKCField(unknown) found")
	}
	if f, ok := prm.LookupMKCField("mtt_handle"); !ok || f.Width != 48 ||
		!reflect.DeepEqual(f.Parts, []prm.BitRange{{Offset: 0x2C, Hi: 15, Lo: 0}, {Offset: 0x30, Hi: 31, Lo: 0}}) {
		t.Errorf("LookupMKCField(mtt_handle) = %+v, %v", f, ok)
	}
	for _, set := range []struct {
		name string
		v    uint64
		want prm.MKC
	}{
		{"free", 1, func() prm.MKC { x := specExample; x.Free = true; return x }()},
		{"access_mode", 2, func() prm.MKC { x := specExample; x.AccessMode = prm.ModeKLM; return x }()},
		{"qpn", 7, func() prm.MKC { x := specExample; x.QPN = 7; return x }()},
		{"len", 0, func() prm.MKC { x := specExample; x.Len = 0; return x }()},
		{"rw", 1, func() prm.MKC { x := specExample; x.RW = true; return x }()},
	} {
		x := specExample
		if err := x.Set(set.name, set.v); err != nil || x != set.want {
			t.Errorf("Set(%s, %#x) = %v: %+v", set.name, set.v, err, x)
		}
	}
	// MKCFields is a copy: changing it does not change prm's table.
	fs := prm.MKCFields()
	fs[0].Name = "changed"
	if f, ok := prm.LookupMKCField("free"); !ok || f.Name != "free" || prm.MKCFields()[0].Name != "free" {
		t.Error("MKCFields returned prm's own table")
	}
	rm := prm.MKCReservedMask()
	rm[0] = 0
	if prm.MKCReservedMask()[0] != mkcReservedHand[0] {
		t.Error("MKCReservedMask returned prm's own slice")
	}
}

func TestParseMKCErrors(t *testing.T) {
	for _, s := range []string{
		"",
		specExampleHex[:126],
		specExampleHex + "00",
		specExampleHex[:127],
		specExampleHex + "0",
	} {
		if _, err := prm.ParseMKCHex(s); err == nil {
			t.Errorf("ParseMKCHex(%d digits) accepted", len(s))
		}
	}
	for _, s := range []string{
		"g" + specExampleHex[1:],
		specExampleHex[:127] + "x",
		"0x" + specExampleHex[2:],
		" " + specExampleHex[1:],
	} {
		_, err := prm.ParseMKCHex(s)
		var re *prm.ReservedBitsError
		if err == nil || errors.As(err, &re) {
			t.Errorf("ParseMKCHex(%q) = %v, want a hex error", s, err)
		}
	}
	for _, n := range []int{0, 63, 65, 128} {
		_, err := prm.ParseMKC(make([]byte, n))
		var se *prm.SizeError
		if !errors.As(err, &se) || se.Want != prm.MKCSize || se.Got != n {
			t.Errorf("ParseMKC(%d bytes) = %v", n, err)
		}
	}
	if _, err := prm.ParseMKCHex(strings.Repeat("0", 128)); err != nil {
		t.Errorf("all zero: %v", err)
	}
}

func TestMKCPutClears(t *testing.T) {
	b := make([]byte, prm.MKCSize+4)
	for i := range b {
		b[i] = 0xff
	}
	m := prm.MKC{}
	m.Put(b)
	for i, x := range b {
		if i < prm.MKCSize && x != 0 || i >= prm.MKCSize && x != 0xff {
			t.Fatalf("Put wrote %x", b)
		}
	}
}

func BenchmarkMKCPut(b *testing.B) {
	m := specExample
	var img [prm.MKCSize]byte
	b.ReportAllocs()
	for b.Loop() {
		m.Put(img[:])
	}
}

func BenchmarkParseMKC(b *testing.B) {
	img := unhex(b, specExampleHex, prm.MKCSize)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := prm.ParseMKC(img); err != nil {
			b.Fatal(err)
		}
	}
}
