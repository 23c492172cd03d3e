package prm_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"mkeysim/prm"
)

// tabled is what the tests need of every field table, its Go type aside:
// its description, reserved mask, and a parse-then-pack of an image.
type tabled struct {
	format   prm.Format
	reserved []uint32
	// repack parses b through the table (Parse) and packs the value back
	// (Put), returning the bytes and Parse's error.
	repack func(b []byte) ([]byte, error)
}

func tabledOf[T any](l *prm.Layout[T]) tabled {
	return tabled{l.Format(), l.ReservedMask(), func(b []byte) ([]byte, error) {
		v, err := l.Parse(b)
		return l.Append(nil, &v), err
	}}
}

// layouts is every field table of prm.
var layouts = []tabled{
	tabledOf(prm.MKCLayout), tabledOf(prm.MTTEntryLayout), tabledOf(prm.KLMEntryLayout),
	tabledOf(prm.CQELayout), tabledOf(prm.ErrCQELayout), tabledOf(prm.CtrlSegLayout),
	tabledOf(prm.RAddrSegLayout), tabledOf(prm.AtomicSegLayout), tabledOf(prm.DataSegLayout),
	tabledOf(prm.ATSCompletionEntryLayout), tabledOf(prm.ATSTranslationRequestAddrLayout),
	tabledOf(prm.ATSInvalidateBodyLayout), tabledOf(prm.ATSInvalidateRequestHeaderLayout),
	tabledOf(prm.ATSInvalidateCompletionHeaderLayout),
}

// reservedBySpec is each format's reserved mask per dword, written by hand
// from its source: translation.md 2.2-2.4, the kernel's structs and the
// PCIe Base Specification's chapter 10 (ATS).
var reservedBySpec = map[string][]uint32{
	"mkc":        mkcReservedHand[:],
	"mtt_entry":  {0, 0xfc},                            // 04h 7:2
	"klm_entry":  {0, 0, 0, 0},                         // none
	"cqe":        make([]uint32, 16),                   // none: the rest is opaque
	"err_cqe":    {8: 0, 13: 0xffff0000, 14: 0, 15: 0}, // filled below
	"ctrl_seg":   {0, 0xc0, 0x00ffff11, 0},             // 04h 7:6; 08h 23:8, 4, 0
	"raddr_seg":  {0, 0, 0, 0xffffffff},                // 0Ch
	"atomic_seg": {0, 0, 0, 0},
	"data_seg":   {0, 0, 0, 0},
	// PCIe Base Specification chapter 10; the header tables from header
	// byte 4.
	"ats_tc_entry":     {0, 0x78},                    // 04h 6:3
	"ats_tr_addr":      {0, 0xffe},                   // 04h 11:1
	"ats_inv_req_body": {0, 0x7fe},                   // 04h 10:1
	"ats_inv_req_hdr":  {0xe000, 0xffff, 0xffffffff}, // 04h 15:13 (Tag 7:5); 08h 15:0; 0Ch
	"ats_inv_cpl_hdr":  {0xff00, 0xfff8, 0},          // 04h 15:8 (Tag); 08h 15:3
}

func init() {
	e := reservedBySpec["err_cqe"]
	for i := 0; i < 0x20/4; i++ { // 00h..1Fh
		e[i] = ^uint32(0)
	}
	for i := 0x24 / 4; i < 0x34/4; i++ { // 24h..33h
		e[i] = ^uint32(0)
	}
}

// TestLayoutBits: in every table no two fields share a bit, each field's
// parts add up to its width, and the fields cover exactly the bits the
// source does not reserve.
func TestLayoutBits(t *testing.T) {
	for _, l := range layouts {
		f := l.format
		t.Run(f.Ident, func(t *testing.T) {
			want, ok := reservedBySpec[f.Ident]
			if !ok {
				t.Fatalf("no reserved mask by hand for %s", f.Ident)
			}
			if f.Size%4 != 0 || len(want) != f.Size/4 {
				t.Fatalf("size %d, hand mask of %d dwords", f.Size, len(want))
			}
			covered := make([]uint32, f.Size/4)
			names := map[string]bool{}
			for _, fb := range f.Fields {
				if names[fb.Name] {
					t.Errorf("%s twice", fb.Name)
				}
				names[fb.Name] = true
				w := 0
				for _, p := range fb.Parts {
					m := uint32((uint64(1)<<p.Width() - 1) << p.Lo)
					if covered[p.Offset/4]&m != 0 {
						t.Errorf("%s overlaps another field at %02Xh %d:%d", fb.Name, p.Offset, p.Hi, p.Lo)
					}
					covered[p.Offset/4] |= m
					w += p.Width()
				}
				if w != fb.Width {
					t.Errorf("%s: parts of %d bits, width %d", fb.Name, w, fb.Width)
				}
			}
			for i := range covered {
				if covered[i] != ^want[i] {
					t.Errorf("%02Xh: fields cover %08x, the source leaves %08x", 4*i, covered[i], ^want[i])
				}
			}
			if !reflect.DeepEqual(l.reserved, want) {
				t.Errorf("ReservedMask = %08x, want %08x", l.reserved, want)
			}
		})
	}
}

// bitRow is one field of a source's table: its name and where it lies,
// as "00h 31:0" strings, most significant part first.
type bitRow struct {
	name  string
	parts []string
}

// specRows are translation.md 2.3 and 2.4, the kernel's struct
// mlx5_cqe64 and mlx5_wqe_ctrl_seg and the ATS formats of the PCIe Base
// Specification's chapter 10, row by row, in wire order.
var specRows = map[string][]bitRow{
	"mtt_entry": { // translation.md 2.3
		{"ptag", []string{"00h 31:0", "04h 31:8"}},
		{"wr_en", []string{"04h 1:1"}},
		{"rd_en", []string{"04h 0:0"}},
	},
	"klm_entry": { // translation.md 2.4
		{"byte_count", []string{"00h 31:0"}},
		{"mkey", []string{"04h 31:0"}},
		{"address", []string{"08h 31:0", "0Ch 31:0"}},
	},
	"cqe": { // struct mlx5_cqe64, beside the opaque misc_00h..misc_20h
		{"imm_inval_pkey", []string{"24h 31:0"}},
		{"app", []string{"28h 31:0"}},
		{"byte_cnt", []string{"2Ch 31:0"}},
		{"timestamp", []string{"30h 31:0", "34h 31:0"}},
		{"s_wqe_opcode", []string{"38h 31:24"}},
		{"qpn", []string{"38h 23:0"}},
		{"wqe_counter", []string{"3Ch 31:16"}},
		{"signature", []string{"3Ch 15:8"}},
		{"opcode", []string{"3Ch 7:4"}},
		{"format", []string{"3Ch 3:2"}},
		{"se", []string{"3Ch 1:1"}},
		{"owner", []string{"3Ch 0:0"}},
	},
	"err_cqe": { // struct mlx5_err_cqe
		{"srqn", []string{"20h 31:0"}},
		{"vendor_err_synd", []string{"34h 15:8"}},
		{"syndrome", []string{"34h 7:0"}},
		{"s_wqe_opcode", []string{"38h 31:24"}},
		{"qpn", []string{"38h 23:0"}},
		{"wqe_counter", []string{"3Ch 31:16"}},
		{"signature", []string{"3Ch 15:8"}},
		{"opcode", []string{"3Ch 7:4"}},
		{"format", []string{"3Ch 3:2"}},
		{"se", []string{"3Ch 1:1"}},
		{"owner", []string{"3Ch 0:0"}},
	},
	"ats_tc_entry": { // Translation Completion Data Entry, 10.2.3
		{"translated_addr", []string{"00h 31:0", "04h 31:12"}},
		{"s", []string{"04h 11:11"}},
		{"n", []string{"04h 10:10"}},
		{"global", []string{"04h 9:9"}},
		{"priv", []string{"04h 8:8"}},
		{"exe", []string{"04h 7:7"}},
		{"u", []string{"04h 2:2"}},
		{"w", []string{"04h 1:1"}},
		{"r", []string{"04h 0:0"}},
	},
	"ats_tr_addr": { // Translation Request, header bytes 8-15, 10.2.2
		{"untranslated_addr", []string{"00h 31:0", "04h 31:12"}},
		{"nw", []string{"04h 0:0"}},
	},
	"ats_inv_req_body": { // Invalidate Request payload, 10.3.1
		{"untranslated_addr", []string{"00h 31:0", "04h 31:12"}},
		{"s", []string{"04h 11:11"}},
		{"global_invalidate", []string{"04h 0:0"}},
	},
	"ats_inv_req_hdr": { // Invalidate Request header bytes 4-15, 10.3.1
		{"requester_id", []string{"00h 31:16"}},
		{"itag", []string{"00h 12:8"}},
		{"message_code", []string{"00h 7:0"}},
		{"device_id", []string{"04h 31:16"}},
	},
	"ats_inv_cpl_hdr": { // Invalidate Completion header bytes 4-15, 10.3.2
		{"requester_id", []string{"00h 31:16"}},
		{"message_code", []string{"00h 7:0"}},
		{"device_id", []string{"04h 31:16"}},
		{"cc", []string{"04h 2:0"}},
		{"itag_vector", []string{"08h 31:0"}},
	},
	"ctrl_seg": { // struct mlx5_wqe_ctrl_seg
		{"opmod", []string{"00h 31:24"}},
		{"wqe_index", []string{"00h 23:8"}},
		{"opcode", []string{"00h 7:0"}},
		{"qpn", []string{"04h 31:8"}},
		{"ds", []string{"04h 5:0"}},
		{"signature", []string{"08h 31:24"}},
		{"fm", []string{"08h 7:5"}},
		{"ce", []string{"08h 3:2"}},
		{"se", []string{"08h 1:1"}},
		{"imm", []string{"0Ch 31:0"}},
	},
}

// TestLayoutsAgainstSpec holds the tables to their sources' rows.
func TestLayoutsAgainstSpec(t *testing.T) {
	for _, l := range layouts {
		rows, ok := specRows[l.format.Ident]
		if !ok {
			continue // the MKC: TestMKCFieldTableCoversEveryField; the rest: TestLayoutBits
		}
		t.Run(l.format.Ident, func(t *testing.T) {
			var got []bitRow
			for _, fb := range l.format.Fields {
				if l.format.Ident == "cqe" && len(fb.Name) > 5 && fb.Name[:5] == "misc_" {
					continue
				}
				row := bitRow{name: fb.Name}
				for _, p := range fb.Parts {
					row.parts = append(row.parts, fmt.Sprintf("%02Xh %d:%d", p.Offset, p.Hi, p.Lo))
				}
				got = append(got, row)
			}
			if !reflect.DeepEqual(got, rows) {
				t.Errorf("table\n %v\nsource\n %v", got, rows)
			}
		})
	}
}

// FuzzLayouts: for every table, an image of its size parses to a value
// that packs back to the image with its reserved bits cleared, the
// reserved error naming exactly those set; any other size is a
// *SizeError.
func FuzzLayouts(f *testing.F) {
	for i := range layouts {
		f.Add(uint8(i), bytes.Repeat([]byte{0xff}, layouts[i].format.Size))
		f.Add(uint8(i), make([]byte, layouts[i].format.Size))
	}
	f.Fuzz(func(t *testing.T, which uint8, in []byte) {
		l := layouts[int(which)%len(layouts)]
		if len(in) != l.format.Size {
			_, err := l.repack(in)
			checkSizeError(t, err, l.format.Size, len(in))
			return
		}
		out, err := l.repack(in)
		cleared := checkParsed(t, l.format.Name, in, l.reserved, err, out)
		if again, err := l.repack(cleared); err != nil || !bytes.Equal(again, cleared) {
			t.Fatalf("repack of the cleared image = % x, %v", again, err)
		}
	})
}

// TestLayoutsRandomImages runs FuzzLayouts' property on random images.
func TestLayoutsRandomImages(t *testing.T) {
	var seed uint64 = 0x9e3779b97f4a7c15
	for _, l := range layouts {
		for range 2000 {
			in := make([]byte, l.format.Size)
			for i := 0; i < len(in); i += 8 {
				seed ^= seed << 13
				seed ^= seed >> 7
				seed ^= seed << 17
				var w [8]byte
				binary.LittleEndian.PutUint64(w[:], seed)
				copy(in[i:], w[:])
			}
			out, err := l.repack(in)
			checkParsed(t, l.format.Name, in, l.reserved, err, out)
		}
	}
}
