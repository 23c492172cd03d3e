package prm_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"mkeysim/prm"
)

// zeros returns n zero dwords, for the long runs of hand-written images.
func zeros(n int) string { return strings.TrimSpace(strings.Repeat(" 00000000", n)) }

// ctrlRows: control segments and their 16 bytes, by hand from the kernel's
// struct mlx5_wqe_ctrl_seg (00h opmod 31:24, wqe_index 23:8, opcode 7:0;
// 04h qpn 31:8, ds 5:0; 08h signature 31:24, fm 7:5, ce 3:2, se 1; 0Ch imm).
var ctrlRows = []struct {
	name string
	c    prm.CtrlSeg
	img  string
}{
	{"zero", prm.CtrlSeg{}, "00000000 00000000 00000000 00000000"},
	{"opmod 00h 31:24", prm.CtrlSeg{OpMod: 0xff}, "ff000000 00000000 00000000 00000000"},
	{"wqe_index 00h 23:8", prm.CtrlSeg{WQEIndex: 0xffff}, "00ffff00 00000000 00000000 00000000"},
	{"opcode 00h 7:0", prm.CtrlSeg{Opcode: 0xff}, "000000ff 00000000 00000000 00000000"},
	{"qpn 04h 31:8", prm.CtrlSeg{QPN: 0xffffff}, "00000000 ffffff00 00000000 00000000"},
	{"ds 04h 5:0", prm.CtrlSeg{DS: 0x3f}, "00000000 0000003f 00000000 00000000"},
	{"signature 08h 31:24", prm.CtrlSeg{Signature: 0xff}, "00000000 00000000 ff000000 00000000"},
	{"fm initiator small", prm.CtrlSeg{Fence: prm.FenceInitiatorSmall}, "00000000 00000000 00000020 00000000"},
	{"fm fence", prm.CtrlSeg{Fence: prm.FenceFence}, "00000000 00000000 00000040 00000000"},
	{"fm strong ordering", prm.CtrlSeg{Fence: prm.FenceStrongOrdering}, "00000000 00000000 00000060 00000000"},
	{"fm small and fence 08h 7:5", prm.CtrlSeg{Fence: prm.FenceSmallAndFence}, "00000000 00000000 00000080 00000000"},
	{"ce only first error", prm.CtrlSeg{CE: prm.CompOnlyFirstErr}, "00000000 00000000 00000004 00000000"},
	{"ce always (MLX5_WQE_CTRL_CQ_UPDATE)", prm.CtrlSeg{CE: prm.CompAlways}, "00000000 00000000 00000008 00000000"},
	{"ce cqe and eqe 08h 3:2", prm.CtrlSeg{CE: prm.CompCQEAndEQE}, "00000000 00000000 0000000c 00000000"},
	{"se 08h 1", prm.CtrlSeg{SE: true}, "00000000 00000000 00000002 00000000"},
	{"imm 0Ch", prm.CtrlSeg{Imm: 0xffffffff}, "00000000 00000000 00000000 ffffffff"},
	{"every field at its widest",
		prm.CtrlSeg{OpMod: 0xff, WQEIndex: 0xffff, Opcode: 0xff, QPN: 0xffffff, DS: 0x3f, Signature: 0xff,
			Fence: prm.FenceSmallAndFence, CE: prm.CompCQEAndEQE, SE: true, Imm: 0xffffffff},
		"ffffffff ffffff3f ff00008e ffffffff"},
	{"kernel RDMA_WRITE, signaled",
		prm.CtrlSeg{WQEIndex: 0x1234, Opcode: prm.OpRDMAWrite, QPN: 0xabc, DS: 3, CE: prm.CompAlways},
		"00123408 000abc03 00000008 00000000"},
	{"UMR, strong ordering, signaled, solicited, target key in imm",
		prm.CtrlSeg{WQEIndex: 5, Opcode: prm.OpUMR, QPN: 0x42, DS: 8, Fence: prm.FenceStrongOrdering, CE: prm.CompAlways, SE: true, Imm: 0x00012a07},
		"00000525 00004208 0000006a 00012a07"},
}

func TestCtrlSegDirected(t *testing.T) {
	for _, row := range ctrlRows {
		t.Run(row.name, func(t *testing.T) {
			want := unhex(t, row.img, prm.CtrlSegSize)
			var got [prm.CtrlSegSize]byte
			row.c.Put(got[:])
			if !reflect.DeepEqual(got[:], want) {
				t.Errorf("Put:\n got %s\nwant %s", dwords(got[:]), dwords(want))
			}
			if a := row.c.Append([]byte{7}); !reflect.DeepEqual(a, append([]byte{7}, want...)) {
				t.Errorf("Append = % x", a)
			}
			c, err := prm.ParseCtrlSeg(want)
			if err != nil || c != row.c {
				t.Errorf("ParseCtrlSeg = %+v, %v; want %+v", c, err, row.c)
			}
		})
	}
}

// TestCtrlSegWideValues: values wider than their field are cut and do not
// reach the next field.
func TestCtrlSegWideValues(t *testing.T) {
	c := prm.CtrlSeg{QPN: 0xffffffff, DS: 0xff, Fence: 0xff, CE: 0xff}
	if got, want := dwords(c.Append(nil)), "00000000 ffffff3f 000000ec 00000000"; got != want {
		t.Errorf("Put = %s, want %s", got, want)
	}
}

// TestCtrlSegReservedFence: fence modes 5..7 are reserved; the parser
// names the field and the value beside the fully parsed segment.
func TestCtrlSegReservedFence(t *testing.T) {
	for _, c := range []struct {
		fm  prm.FenceMode
		img string
	}{
		{5, "00000525 00004208 000000a8 00012a07"},
		{6, "00000525 00004208 000000c8 00012a07"},
		{7, "00000525 00004208 000000e8 00012a07"},
	} {
		got, err := prm.ParseCtrlSeg(unhex(t, c.img, 16))
		var fe *prm.FieldError
		if !errors.As(err, &fe) || fe.Field != "fm" || fe.Value != uint64(c.fm) {
			t.Fatalf("fm %d: err = %v", c.fm, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "fm") || !strings.Contains(msg, fmt.Sprintf("%#x", uint8(c.fm))) {
			t.Errorf("fm %d: message %q does not name the field and value", c.fm, msg)
		}
		var re *prm.ReservedBitsError
		if errors.As(err, &re) {
			t.Errorf("fm %d: reserved bits reported: %v", c.fm, err)
		}
		want := prm.CtrlSeg{WQEIndex: 5, Opcode: prm.OpUMR, QPN: 0x42, DS: 8, Fence: c.fm, CE: prm.CompAlways, Imm: 0x00012a07}
		if got != want {
			t.Errorf("fm %d: parsed %+v, want %+v", c.fm, got, want)
		}
		if c.fm.Valid() {
			t.Errorf("FenceMode(%d).Valid()", c.fm)
		}
	}
	for fm := prm.FenceNone; fm <= prm.FenceSmallAndFence; fm++ {
		if !fm.Valid() {
			t.Errorf("FenceMode(%d) not valid", fm)
		}
	}
}

// ctrlReservedHand is the reserved mask of the control segment per dword:
// 04h 7:6, and in 08h the kernel's rsvd[2] (23:8) and bits 4 and 0.
var ctrlReservedHand = [4]uint32{0, 0x000000c0, 0x00ffff11, 0}

func TestCtrlSegReservedBits(t *testing.T) {
	base := prm.CtrlSeg{OpMod: 1, WQEIndex: 0x1234, Opcode: prm.OpUMR, QPN: 0xabcdef, DS: 8,
		Signature: 0x5a, Fence: prm.FenceFence, CE: prm.CompAlways, SE: true, Imm: 0x01020304}
	img := base.Append(nil)
	for dw, mask := range ctrlReservedHand {
		for bit := 0; bit < 32; bit++ {
			b := append([]byte(nil), img...)
			b[4*dw+3-bit/8] ^= 1 << (bit % 8)
			c, err := prm.ParseCtrlSeg(b)
			var re *prm.ReservedBitsError
			if mask&(1<<bit) == 0 {
				if errors.As(err, &re) {
					t.Errorf("%02Xh bit %d is a field bit but reported: %v", 4*dw, bit, err)
				}
				continue
			}
			if !errors.As(err, &re) || re.Format != "WQE control segment" {
				t.Fatalf("%02Xh bit %d: err = %v", 4*dw, bit, err)
			}
			if want := []prm.ReservedDword{{Offset: 4 * dw, Bits: 1 << bit}}; !reflect.DeepEqual(re.Dwords, want) {
				t.Errorf("%02Xh bit %d: Dwords %+v, want %+v", 4*dw, bit, re.Dwords, want)
			}
			if c != base {
				t.Errorf("%02Xh bit %d: parsed %+v, want %+v", 4*dw, bit, c, base)
			}
		}
	}
	// A reserved fence mode and a reserved bit are both reported.
	b := unhex(t, "00000525 00004208 000000e9 00012a07", 16)
	_, err := prm.ParseCtrlSeg(b)
	var fe *prm.FieldError
	var re *prm.ReservedBitsError
	if !errors.As(err, &fe) || !errors.As(err, &re) || !reflect.DeepEqual(re.Dwords, []prm.ReservedDword{{Offset: 8, Bits: 1}}) {
		t.Errorf("fm 7 and 08h bit 0: err = %v", err)
	}
}

// TestSegmentSizes: every fixed-size parser refuses another length with a
// *SizeError naming both lengths.
func TestSegmentSizes(t *testing.T) {
	for _, c := range []struct {
		name  string
		want  int
		parse func([]byte) error
	}{
		{"control", 16, func(b []byte) error { _, err := prm.ParseCtrlSeg(b); return err }},
		{"raddr", 16, func(b []byte) error { _, err := prm.ParseRAddrSeg(b); return err }},
		{"atomic", 16, func(b []byte) error { _, err := prm.ParseAtomicSeg(b); return err }},
		{"data", 16, func(b []byte) error { _, err := prm.ParseDataSeg(b); return err }},
		{"local invalidate", 128, func(b []byte) error { _, err := prm.ParseLocalInvWQE(b); return err }},
		{"CQE", 64, func(b []byte) error { _, err := prm.ParseCQE(b); return err }},
		{"error CQE", 64, func(b []byte) error { _, err := prm.ParseErrCQE(b); return err }},
		{"peek CQE", 64, func(b []byte) error { _, err := prm.PeekCQEOpcode(b); return err }},
	} {
		for _, n := range []int{0, 1, c.want - 1, c.want + 1, 2 * c.want} {
			err := c.parse(make([]byte, n))
			var se *prm.SizeError
			if !errors.As(err, &se) || se.Want != c.want || se.Got != n {
				t.Errorf("%s, %d bytes: err = %v", c.name, n, err)
			}
		}
	}
}

// opcodeHand: the kernel's MLX5_OPCODE_* values (include/linux/mlx5/device.h).
var opcodeHand = []struct {
	op   prm.Opcode
	v    uint8
	name string
}{
	{prm.OpNOP, 0x00, "NOP"},
	{prm.OpSendInval, 0x01, "SEND_INVAL"},
	{prm.OpRDMAWrite, 0x08, "RDMA_WRITE"},
	{prm.OpRDMAWriteImm, 0x09, "RDMA_WRITE_IMM"},
	{prm.OpSend, 0x0a, "SEND"},
	{prm.OpSendImm, 0x0b, "SEND_IMM"},
	{prm.OpRDMARead, 0x10, "RDMA_READ"},
	{prm.OpAtomicCS, 0x11, "ATOMIC_CS"},
	{prm.OpAtomicFA, 0x12, "ATOMIC_FA"},
	{prm.OpAtomicMaskedCS, 0x14, "ATOMIC_MASKED_CS"},
	{prm.OpAtomicMaskedFA, 0x15, "ATOMIC_MASKED_FA"},
	{prm.OpBindMW, 0x18, "BIND_MW"},
	{prm.OpUMR, 0x25, "UMR"},
}

func TestNames(t *testing.T) {
	for _, c := range opcodeHand {
		if uint8(c.op) != c.v || c.op.String() != c.name {
			t.Errorf("opcode %s = %#x (%q), want %#x", c.name, uint8(c.op), c.op.String(), c.v)
		}
	}
	for _, c := range []struct {
		s    interface{ String() string }
		want string
	}{
		{prm.Opcode(0x0e), "0x0e"}, {prm.Opcode(0xff), "0xff"},
		{prm.FenceNone, "NONE"}, {prm.FenceInitiatorSmall, "INITIATOR_SMALL"}, {prm.FenceFence, "FENCE"},
		{prm.FenceStrongOrdering, "STRONG_ORDERING"}, {prm.FenceSmallAndFence, "SMALL_AND_FENCE"}, {prm.FenceMode(5), "0x5"},
		{prm.CompOnlyErr, "ONLY_ERR"}, {prm.CompOnlyFirstErr, "ONLY_FIRST_ERR"}, {prm.CompAlways, "ALWAYS"},
		{prm.CompCQEAndEQE, "CQE_AND_EQE"}, {prm.CompletionMode(4), "0x4"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
	if prm.FenceNone != 0 || prm.FenceInitiatorSmall != 1 || prm.FenceFence != 2 || prm.FenceStrongOrdering != 3 || prm.FenceSmallAndFence != 4 {
		t.Error("fence mode values differ from MLX5_FENCE_MODE_* >> 5")
	}
	if prm.CompAlways != 2 || prm.CompCQEAndEQE != 3 {
		t.Error("ce values differ from MLX5_WQE_CTRL_CQ_UPDATE(_AND_EQE) >> 2")
	}
}

var raddrRows = []struct {
	s   prm.RAddrSeg
	img string
}{
	{prm.RAddrSeg{}, "00000000 00000000 00000000 00000000"},
	{prm.RAddrSeg{RAddr: 0x0123456789abcdef, RKey: 0x00012a07}, "01234567 89abcdef 00012a07 00000000"},
	{prm.RAddrSeg{RAddr: ^uint64(0)}, "ffffffff ffffffff 00000000 00000000"},
	{prm.RAddrSeg{RKey: 0xffffffff}, "00000000 00000000 ffffffff 00000000"},
}

var atomicRows = []struct {
	s   prm.AtomicSeg
	img string
}{
	{prm.AtomicSeg{}, "00000000 00000000 00000000 00000000"},
	{prm.AtomicSeg{SwapAdd: 0x0123456789abcdef, Compare: 0xfedcba9876543210}, "01234567 89abcdef fedcba98 76543210"},
	{prm.AtomicSeg{SwapAdd: ^uint64(0)}, "ffffffff ffffffff 00000000 00000000"},
	{prm.AtomicSeg{Compare: ^uint64(0)}, "00000000 00000000 ffffffff ffffffff"},
}

var dataRows = []struct {
	s   prm.DataSeg
	img string
}{
	{prm.DataSeg{}, "00000000 00000000 00000000 00000000"},
	{prm.DataSeg{ByteCount: 0x1000, LKey: 0x100, Addr: 0x7f0000001000}, "00001000 00000100 00007f00 00001000"},
	{prm.DataSeg{ByteCount: 0xffffffff}, "ffffffff 00000000 00000000 00000000"},
	{prm.DataSeg{LKey: 0xffffffff}, "00000000 ffffffff 00000000 00000000"},
	{prm.DataSeg{Addr: ^uint64(0)}, "00000000 00000000 ffffffff ffffffff"},
}

func TestSegmentsDirected(t *testing.T) {
	for _, row := range raddrRows {
		want := unhex(t, row.img, 16)
		if got := row.s.Append(nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: Append = %s, want %s", row.s, dwords(got), row.img)
		}
		if s, err := prm.ParseRAddrSeg(want); err != nil || s != row.s {
			t.Errorf("ParseRAddrSeg(%s) = %+v, %v", row.img, s, err)
		}
	}
	for _, row := range atomicRows {
		want := unhex(t, row.img, 16)
		if got := row.s.Append(nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: Append = %s, want %s", row.s, dwords(got), row.img)
		}
		if s, err := prm.ParseAtomicSeg(want); err != nil || s != row.s {
			t.Errorf("ParseAtomicSeg(%s) = %+v, %v", row.img, s, err)
		}
	}
	for _, row := range dataRows {
		want := unhex(t, row.img, 16)
		if got := row.s.Append(nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: Append = %s, want %s", row.s, dwords(got), row.img)
		}
		if s, err := prm.ParseDataSeg(want); err != nil || s != row.s {
			t.Errorf("ParseDataSeg(%s) = %+v, %v", row.img, s, err)
		}
		if inl := row.s.Inline(); inl != (row.s.ByteCount>>31 == 1) {
			t.Errorf("%+v: Inline = %v", row.s, inl)
		}
	}
	// raddr 0Ch is reserved: each bit alone is reported, naming 0Ch.
	for bit := 0; bit < 32; bit++ {
		b := unhex(t, "01234567 89abcdef 00012a07 00000000", 16)
		b[15-bit/8] |= 1 << (bit % 8)
		s, err := prm.ParseRAddrSeg(b)
		var re *prm.ReservedBitsError
		if !errors.As(err, &re) || !reflect.DeepEqual(re.Dwords, []prm.ReservedDword{{Offset: 0x0c, Bits: 1 << bit}}) {
			t.Errorf("raddr 0Ch bit %d: err = %v", bit, err)
		}
		if s != raddrRows[1].s {
			t.Errorf("raddr 0Ch bit %d: parsed %+v", bit, s)
		}
	}
}

func TestCheckUMRPointer(t *testing.T) {
	for _, c := range []struct {
		addr uint64
		ok   bool
	}{
		{0, true}, {0x800, true}, {0x1000, true}, {0x7f0000000800, true}, {0xfffffffffffff800, true},
		{0x400, false}, {0x7ff, false}, {0x801, false}, {0x40, false}, {^uint64(0), false},
	} {
		err := prm.CheckUMRPointer(prm.DataSeg{ByteCount: 0x40, LKey: 0x100, Addr: c.addr})
		if c.ok {
			if err != nil {
				t.Errorf("%#x: %v", c.addr, err)
			}
			continue
		}
		var fe *prm.FieldError
		if !errors.As(err, &fe) || fe.Field != "addr" || fe.Value != c.addr || !strings.Contains(err.Error(), "2 KB") {
			t.Errorf("%#x: err = %v", c.addr, err)
		}
	}
}

func TestWQEBBs(t *testing.T) {
	for _, c := range []struct {
		ds   uint8
		want int
	}{{0, 0}, {1, 1}, {3, 1}, {4, 1}, {5, 2}, {8, 2}, {9, 3}, {12, 3}, {16, 4}, {63, 16}} {
		if got := prm.WQEBBs(c.ds); got != c.want {
			t.Errorf("WQEBBs(%d) = %d, want %d", c.ds, got, c.want)
		}
	}
	if prm.SendWQEBB != 64 || prm.OctowordSize != 16 || prm.MaxDS != 63 {
		t.Error("basic block, octoword or ds bound differ from MLX5_SEND_WQE_BB, MLX5_SEND_WQE_DS, MLX5_WQE_CTRL_DS_MASK")
	}
}

func TestLists(t *testing.T) {
	mtt := prm.MTTList([]prm.MTTEntry{{PTag: 0x12345000, RdEn: true, WrEn: true}})
	if want := "00000000 12345003 " + zeros(14); dwords(mtt) != want {
		t.Errorf("MTTList = %s", dwords(mtt))
	}
	if l := prm.MTTList(make([]prm.MTTEntry, 9)); len(l) != 128 {
		t.Errorf("9 MTT entries: %d bytes, want 128", len(l))
	}
	if l := prm.MTTList(nil); len(l) != 0 {
		t.Errorf("no entries: %d bytes", len(l))
	}
	klm := prm.KLMList([]prm.KLMEntry{{ByteCount: 0x1000, MKey: 0xa01, Address: 0x2000}})
	if want := "00001000 00000a01 00000000 00002000 " + zeros(12); dwords(klm) != want {
		t.Errorf("KLMList = %s", dwords(klm))
	}
	if l := prm.KLMList(make([]prm.KLMEntry, 4)); len(l) != 64 {
		t.Errorf("4 KLM entries: %d bytes, want 64", len(l))
	}
}

// umrWQERows: UMR WQEs and their bytes by hand: control segment, UMR
// control segment (48 bytes), MKC image (64 bytes), then the inline list
// and BSF or the pointer.
var umrWQERows = []struct {
	name string
	w    prm.UMRWQE
	img  string
	ds   uint8
}{
	{"inline MTT list of one entry, padded to 64 bytes",
		prm.UMRWQE{
			Ctrl: prm.CtrlSeg{WQEIndex: 7, Opcode: prm.OpUMR, QPN: 0x100, DS: 12, CE: prm.CompAlways, Imm: 0x00abcd01},
			UMR: prm.UMRCtrl{Inline: true, CheckFree: prm.CheckFreeIfFree, TranslationOctwordActualSize: 4,
				MKeyMask: prm.MaskFree | prm.MaskVariant | prm.MaskLR | prm.MaskLW | prm.MaskStartAddr | prm.MaskLen | prm.MaskLogEntitySize},
			MKC:  prm.MKC{UMREn: true, LR: true, LW: true, AccessMode: prm.ModeMTT, Variant: 1, StartAddr: 0x10000, Len: 0x1000, LogEntitySize: 12},
			List: prm.MTTList([]prm.MTTEntry{{PTag: 0x12345000, RdEn: true, WrEn: true}}),
		},
		"00000725 0001000c 00000008 00abcd01 " +
			"a0000000 00040000 00000000 20062043 " + zeros(8) + " " +
			"00008d00 00000001 00000000 00000000 00000000 00010000 00000000 00001000 " + zeros(6) + " 0000000c 00000000 " +
			"00000000 12345003 " + zeros(14),
		12},
	{"pointer to a 1 KB list at translation offset 2 KB",
		prm.UMRWQE{
			Ctrl:    prm.CtrlSeg{WQEIndex: 0x100, Opcode: prm.OpUMR, QPN: 1, DS: 9, CE: prm.CompAlways, Imm: 0x302},
			UMR:     prm.UMRCtrl{TranslationOffsetEn: true, TranslationOctwordActualSize: 0x40, TranslationOffset: 0x80},
			Pointer: prm.DataSeg{ByteCount: 0x400, LKey: 0x100, Addr: 0x7f0000000800},
		},
		"00010025 00000109 00000008 00000302 " +
			"10000000 00400080 " + zeros(10) + " " +
			zeros(16) + " " +
			"00000400 00000100 00007f00 00000800",
		9},
	{"inline KLM list and BSF",
		prm.UMRWQE{
			Ctrl: prm.CtrlSeg{Opcode: prm.OpUMR, DS: 16, Imm: 0xb01},
			UMR:  prm.UMRCtrl{Inline: true, TranslationOctwordActualSize: 4, BSFOctwordActualSize: 4, MKeyMask: prm.MaskLen},
			MKC:  prm.MKC{Len: 0x1000},
			List: prm.KLMList([]prm.KLMEntry{{ByteCount: 0x1000, MKey: 0xa01, Address: 0x2000}}),
			BSF:  unhexMust(strings.Repeat("5a", 64)),
		},
		"00000025 00000010 00000000 00000b01 " +
			"80000000 00040004 00000000 00000001 " + zeros(8) + " " +
			zeros(7) + " 00001000 " + zeros(8) + " " +
			"00001000 00000a01 00000000 00002000 " + zeros(12) + " " +
			strings.TrimSpace(strings.Repeat("5a5a5a5a ", 16)),
		16},
	{"revoke: inline, no list, mask free alone (8 octowords)",
		prm.UMRWQE{
			Ctrl: prm.CtrlSeg{Opcode: prm.OpUMR, QPN: 0xffffff, DS: 8, Imm: 0xffffffff},
			UMR:  prm.UMRCtrl{Inline: true, MKeyMask: prm.MaskFree | prm.MaskPD},
			MKC:  prm.MKC{Free: true, PD: 0xabc},
		},
		"00000025 ffffff08 00000000 ffffffff " +
			"80000000 00000000 00000000 20000080 " + zeros(8) + " " +
			"40000000 00000000 00000000 00000abc " + zeros(12),
		8},
}

// unhexMust decodes hex digits for table literals.
func unhexMust(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestUMRWQEDirected(t *testing.T) {
	for _, row := range umrWQERows {
		t.Run(row.name, func(t *testing.T) {
			want := unhex(t, row.img, 16*int(row.ds))
			w := row.w
			if ds, err := w.DS(); err != nil || ds != row.ds {
				t.Fatalf("DS = %d, %v; want %d", ds, err, row.ds)
			}
			got := w.Append([]byte{1, 2})
			if !reflect.DeepEqual(got, append([]byte{1, 2}, want...)) {
				t.Errorf("Append:\n got %s\nwant %s", dwords(got[2:]), dwords(want))
			}
			put := make([]byte, len(want)+16)
			w.Put(put)
			if !reflect.DeepEqual(put[:len(want)], want) || !reflect.DeepEqual(put[len(want):], make([]byte, 16)) {
				t.Errorf("Put:\n got %s", dwords(put))
			}
			p, err := prm.ParseUMRWQE(want)
			if err != nil || !reflect.DeepEqual(p, row.w) {
				t.Errorf("ParseUMRWQE = %+v, %v\nwant %+v", p, err, row.w)
			}
			if !row.w.UMR.Inline {
				if err := prm.CheckUMRPointer(p.Pointer); err != nil {
					t.Errorf("pointer: %v", err)
				}
			}
		})
	}
}

// TestUMRWQEPutSetsOpcodeAndDS: Put writes opcode UMR and the computed ds
// whatever the control segment holds.
func TestUMRWQEPutSetsOpcodeAndDS(t *testing.T) {
	w := umrWQERows[0].w
	w.Ctrl.Opcode, w.Ctrl.DS = prm.OpSend, 0x3f
	if got, want := dwords(w.Append(nil)[:16]), "00000725 0001000c 00000008 00abcd01"; got != want {
		t.Errorf("control segment %s, want %s", got, want)
	}
}

func TestUMRWQEDSErrors(t *testing.T) {
	list := prm.MTTList(make([]prm.MTTEntry, 8))
	for _, c := range []struct {
		name  string
		w     prm.UMRWQE
		field string
	}{
		{"list shorter than its size", prm.UMRWQE{UMR: prm.UMRCtrl{Inline: true, TranslationOctwordActualSize: 8}, List: list}, "translation_octword_actual_size"},
		{"list without its size", prm.UMRWQE{UMR: prm.UMRCtrl{Inline: true}, List: list}, "translation_octword_actual_size"},
		{"list with inline clear", prm.UMRWQE{UMR: prm.UMRCtrl{TranslationOctwordActualSize: 4}, List: list}, "inline"},
		{"BSF with inline clear", prm.UMRWQE{BSF: make([]byte, 16)}, "inline"},
		{"BSF missing", prm.UMRWQE{UMR: prm.UMRCtrl{Inline: true, BSFOctwordActualSize: 1}}, "bsf_octword_actual_size"},
		{"BSF with translation_offset_en", prm.UMRWQE{UMR: prm.UMRCtrl{Inline: true, TranslationOffsetEn: true}, BSF: make([]byte, 16)}, "bsf_octword_actual_size"},
		{"64 octowords", prm.UMRWQE{UMR: prm.UMRCtrl{Inline: true, TranslationOctwordActualSize: 56}, List: make([]byte, 56*16)}, "ds"},
		{"64 octowords with BSF", prm.UMRWQE{UMR: prm.UMRCtrl{Inline: true, TranslationOctwordActualSize: 52, BSFOctwordActualSize: 4},
			List: make([]byte, 52*16), BSF: make([]byte, 64)}, "ds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.w.DS()
			var fe *prm.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || fe.Format != "UMR WQE" {
				t.Fatalf("DS err = %v, want a %s error", err, c.field)
			}
			defer func() {
				if recover() == nil {
					t.Error("Append did not panic")
				}
			}()
			c.w.Append(nil)
		})
	}
	// 63 octowords is the largest WQE.
	w := prm.UMRWQE{UMR: prm.UMRCtrl{Inline: true, TranslationOctwordActualSize: 52, BSFOctwordActualSize: 3},
		List: make([]byte, 52*16), BSF: make([]byte, 48)}
	if ds, err := w.DS(); ds != 63 || err != nil {
		t.Errorf("DS = %d, %v; want 63", ds, err)
	}
}

func TestParseUMRWQEErrors(t *testing.T) {
	good := unhex(t, umrWQERows[0].img, 192)
	mod := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	for _, c := range []struct {
		name  string
		in    []byte
		field string // a *FieldError for it, or "" for a *SizeError
		want  int    // the SizeError's Want
	}{
		{"empty", nil, "", 128},
		{"15 bytes", good[:15], "", 128},
		{"ds 7", mod(func(b []byte) { b[7] = 7 })[:112], "ds", 0},
		{"ds 0", mod(func(b []byte) { b[7] = 0 })[:16], "ds", 0},
		{"bytes short of ds", good[:176], "", 192},
		{"bytes beyond ds", append(append([]byte(nil), good...), make([]byte, 16)...), "", 192},
		{"ds disagrees with the list size", mod(func(b []byte) { b[0x15] = 8 }), "ds", 0},
		{"ds disagrees with inline clear", mod(func(b []byte) { b[0x10] &^= 0x80 }), "ds", 0},
		{"bsf size counted", mod(func(b []byte) { b[0x17] = 1 }), "ds", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := prm.ParseUMRWQE(c.in)
			if c.field == "" {
				var se *prm.SizeError
				if !errors.As(err, &se) || se.Want != c.want || se.Got != len(c.in) || se.Format != "UMR WQE" {
					t.Errorf("err = %v, want a size error wanting %d", err, c.want)
				}
				return
			}
			var fe *prm.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("err = %v, want a %s error", err, c.field)
			}
		})
	}
	// Another opcode is reported and the rest parsed in full.
	w, err := prm.ParseUMRWQE(mod(func(b []byte) { b[3] = 0x08 }))
	var fe *prm.FieldError
	if !errors.As(err, &fe) || fe.Field != "opcode" || fe.Value != 0x08 {
		t.Errorf("opcode: err = %v", err)
	}
	want := umrWQERows[0].w
	want.Ctrl.Opcode = prm.OpRDMAWrite
	if !reflect.DeepEqual(w, want) {
		t.Errorf("opcode: parsed %+v", w)
	}
	// Reserved bits of the three segments come as one error, offsets from
	// the WQE's start, beside a reserved fence mode.
	w, err = prm.ParseUMRWQE(mod(func(b []byte) {
		b[0x0b] |= 0xe1 // ctrl 08h: fm 7 and bit 0
		b[0x13] |= 0x01 // UMR control 00h bit 0
		b[0x20] |= 0x01 // UMR control 10h bit 24 (translation_offset_en clear)
		b[0x40] |= 0x80 // MKC 00h bit 31
		b[0x7c] |= 0x80 // MKC 3Ch bit 31
	}))
	var re *prm.ReservedBitsError
	if !errors.As(err, &re) || re.Format != "UMR WQE" || !reflect.DeepEqual(re.Dwords, []prm.ReservedDword{
		{Offset: 0x08, Bits: 1}, {Offset: 0x10, Bits: 1}, {Offset: 0x20, Bits: 1 << 24},
		{Offset: 0x40, Bits: 1 << 31}, {Offset: 0x7c, Bits: 1 << 31}}) {
		t.Errorf("reserved: err = %v", err)
	}
	if !errors.As(err, &fe) || fe.Field != "fm" || fe.Value != 7 {
		t.Errorf("fence: err = %v", err)
	}
	want = umrWQERows[0].w
	want.Ctrl.Fence = 7
	if !reflect.DeepEqual(w, want) {
		t.Errorf("reserved: parsed %+v", w)
	}
}

// umrHeaderReservedHand is the reserved mask of a UMR WQE's first 128
// bytes: control segment, UMR control segment, MKC.
func umrHeaderReservedHand(offsetEn bool) []uint32 {
	m := append([]uint32(nil), ctrlReservedHand[:]...)
	u := umrReservedHand(offsetEn)
	m = append(m, u[:]...)
	return append(m, mkcReservedHand[:]...)
}

// TestUMRWQEReservedBits flips every bit of the 128-byte header alone: a
// reserved one is reported at its WQE offset with the WQE otherwise parsed
// as it was; any other is never reported as reserved.
func TestUMRWQEReservedBits(t *testing.T) {
	for _, row := range umrWQERows {
		img := unhex(t, row.img, 16*int(row.ds))
		mask := umrHeaderReservedHand(row.w.UMR.TranslationOffsetEn)
		for dw, m := range mask {
			for bit := 0; bit < 32; bit++ {
				b := append([]byte(nil), img...)
				b[4*dw+3-bit/8] ^= 1 << (bit % 8)
				w, err := prm.ParseUMRWQE(b)
				var re *prm.ReservedBitsError
				if m&(1<<bit) == 0 {
					if errors.As(err, &re) {
						t.Errorf("%s: %02Xh bit %d is a field bit but reported: %v", row.name, 4*dw, bit, err)
					}
					continue
				}
				if !errors.As(err, &re) || !reflect.DeepEqual(re.Dwords, []prm.ReservedDword{{Offset: 4 * dw, Bits: 1 << bit}}) {
					t.Fatalf("%s: %02Xh bit %d: err = %v", row.name, 4*dw, bit, err)
				}
				if !reflect.DeepEqual(w, row.w) {
					t.Errorf("%s: %02Xh bit %d: parsed %+v", row.name, 4*dw, bit, w)
				}
			}
		}
	}
}

// localInvImg is the kernel's local invalidate of key 0x12a07 by hand:
// handle_local_inv puts the key in imm, set_linv_umr_seg sets inline and
// mask free, set_linv_mkey_seg sets status free (00h bit 30).
const localInvImg = "00000925 00004208 00000008 00012a07 " +
	"80000000 00000000 00000000 20000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 " +
	"40000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"

func TestLocalInvWQE(t *testing.T) {
	w := prm.LocalInvWQE{Ctrl: prm.CtrlSeg{WQEIndex: 9, Opcode: prm.OpUMR, QPN: 0x42, DS: 8, CE: prm.CompAlways, Imm: 0x00012a07}}
	want := unhex(t, localInvImg, 128)
	if got := w.Append(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("Append:\n got %s\nwant %s", dwords(got), dwords(want))
	}
	var put [128]byte
	c := w
	c.Ctrl.Opcode, c.Ctrl.DS = prm.OpSend, 1 // Put sets both
	c.Put(put[:])
	if !reflect.DeepEqual(put[:], want) {
		t.Errorf("Put:\n got %s", dwords(put[:]))
	}
	if w.Key() != 0x12a07 {
		t.Errorf("Key = %v", w.Key())
	}
	p, err := prm.ParseLocalInvWQE(want)
	if err != nil || p != w {
		t.Errorf("ParseLocalInvWQE = %+v, %v", p, err)
	}
	u, err := prm.ParseUMRWQE(want)
	if err != nil || !u.IsLocalInvalidate() || !reflect.DeepEqual(u, w.UMRWQE()) {
		t.Errorf("as a UMR WQE: %+v, %v", u, err)
	}
	if ds, err := u.DS(); ds != 8 || err != nil || prm.WQEBBs(ds) != 2 {
		t.Errorf("DS = %d, %v", ds, err)
	}
	// A UMR that differs anywhere but the control segment is not a local
	// invalidate: the parser names the first field that differs.
	for _, c := range []struct {
		name  string
		f     func(b []byte)
		field string
	}{
		{"ds 9", func(b []byte) { b[7] = 9 }, "ds"},
		{"opcode", func(b []byte) { b[3] = 0x01 }, "opcode"},
		{"inline clear", func(b []byte) { b[0x10] = 0 }, "inline"},
		{"check_free", func(b []byte) { b[0x10] = 0xc0 }, "check_free"},
		{"translation_offset_en", func(b []byte) { b[0x10] = 0x90 }, "translation_offset_en"},
		{"translation size", func(b []byte) { b[0x15] = 1 }, "translation_octword_actual_size"},
		{"mask lr too", func(b []byte) { b[0x1d] = 0x02 }, "mkey_ctx_mask"},
		{"mask empty", func(b []byte) { b[0x1c] = 0 }, "mkey_ctx_mask"},
		{"image not free", func(b []byte) { b[0x40] = 0 }, "mkc free"},
		{"image lr", func(b []byte) { b[0x42] = 0x04 }, "mkc lr"},
		{"image pd", func(b []byte) { b[0x4f] = 1 }, "mkc pd"},
		{"image generation_counter", func(b []byte) { b[0x7f] = 1 }, "mkc generation_counter"},
	} {
		b := append([]byte(nil), want...)
		c.f(b)
		p, err := prm.ParseLocalInvWQE(b)
		var fe *prm.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: err = %v, want a %s error", c.name, err, c.field)
		}
		if p.Ctrl.Imm != 0x12a07 || p.Ctrl.WQEIndex != 9 {
			t.Errorf("%s: control segment %+v", c.name, p.Ctrl)
		}
		if u, _ := prm.ParseUMRWQE(b); u.IsLocalInvalidate() && c.field != "opcode" {
			t.Errorf("%s: IsLocalInvalidate", c.name)
		}
	}
}

// sendRows: send WQEs and their bytes by hand, as handle_qpt_rc lays them
// out: control, then remote address (RDMA, atomic), then atomic, then data.
var sendRows = []struct {
	name string
	w    prm.SendWQE
	img  string
}{
	{"RDMA_WRITE with two data segments",
		prm.SendWQE{
			Ctrl:  prm.CtrlSeg{WQEIndex: 0x10, Opcode: prm.OpRDMAWrite, QPN: 0xabc, DS: 4, CE: prm.CompAlways},
			RAddr: prm.RAddrSeg{RAddr: 0x100002000, RKey: 0x00012a07},
			Data:  []prm.DataSeg{{ByteCount: 0x100, LKey: 0xa01, Addr: 0x10000}, {ByteCount: 0x200, LKey: 0xa01, Addr: 0x20000}},
		},
		"00001008 000abc04 00000008 00000000 " +
			"00000001 00002000 00012a07 00000000 " +
			"00000100 00000a01 00000000 00010000 " +
			"00000200 00000a01 00000000 00020000"},
	{"RDMA_READ into one data segment",
		prm.SendWQE{
			Ctrl:  prm.CtrlSeg{WQEIndex: 0x11, Opcode: prm.OpRDMARead, QPN: 0xabc, DS: 3},
			RAddr: prm.RAddrSeg{RAddr: 0xffffffffffff0000, RKey: 0xffffffff},
			Data:  []prm.DataSeg{{ByteCount: 0x40, LKey: 0xb02, Addr: 0x3000}},
		},
		"00001110 000abc03 00000000 00000000 " +
			"ffffffff ffff0000 ffffffff 00000000 " +
			"00000040 00000b02 00000000 00003000"},
	{"SEND_INVAL: the key in imm, solicited",
		prm.SendWQE{
			Ctrl: prm.CtrlSeg{WQEIndex: 0x20, Opcode: prm.OpSendInval, QPN: 0xabc, DS: 2, CE: prm.CompAlways, SE: true, Imm: 0x00012a07},
			Data: []prm.DataSeg{{ByteCount: 8, LKey: 0xa01, Addr: 0x10000}},
		},
		"00002001 000abc02 0000000a 00012a07 " +
			"00000008 00000a01 00000000 00010000"},
	{"ATOMIC_FA",
		prm.SendWQE{
			Ctrl:   prm.CtrlSeg{WQEIndex: 0x21, Opcode: prm.OpAtomicFA, QPN: 0xabc, DS: 4, CE: prm.CompAlways},
			RAddr:  prm.RAddrSeg{RAddr: 0x100002008, RKey: 0x00012a07},
			Atomic: prm.AtomicSeg{SwapAdd: 1},
			Data:   []prm.DataSeg{{ByteCount: 8, LKey: 0xa01, Addr: 0x10008}},
		},
		"00002112 000abc04 00000008 00000000 " +
			"00000001 00002008 00012a07 00000000 " +
			"00000000 00000001 00000000 00000000 " +
			"00000008 00000a01 00000000 00010008"},
	{"ATOMIC_CS",
		prm.SendWQE{
			Ctrl:   prm.CtrlSeg{Opcode: prm.OpAtomicCS, DS: 4},
			RAddr:  prm.RAddrSeg{RAddr: 8, RKey: 1},
			Atomic: prm.AtomicSeg{SwapAdd: 0x1111111111111111, Compare: 0x2222222222222222},
			Data:   []prm.DataSeg{{ByteCount: 8, LKey: 2, Addr: 16}},
		},
		"00000011 00000004 00000000 00000000 " +
			"00000000 00000008 00000001 00000000 " +
			"11111111 11111111 22222222 22222222 " +
			"00000008 00000002 00000000 00000010"},
	{"SEND_IMM without data",
		prm.SendWQE{Ctrl: prm.CtrlSeg{Opcode: prm.OpSendImm, QPN: 1, DS: 1, Imm: 0xdeadbeef}},
		"0000000b 00000101 00000000 deadbeef"},
	{"NOP with fence",
		prm.SendWQE{Ctrl: prm.CtrlSeg{WQEIndex: 0xffff, Opcode: prm.OpNOP, QPN: 1, DS: 1, Fence: prm.FenceFence}},
		"00ffff00 00000101 00000040 00000000"},
}

func TestSendWQEDirected(t *testing.T) {
	for _, row := range sendRows {
		t.Run(row.name, func(t *testing.T) {
			want := unhex(t, row.img, 16*int(row.w.Ctrl.DS))
			w := row.w
			if ds, err := w.DS(); err != nil || ds != row.w.Ctrl.DS {
				t.Fatalf("DS = %d, %v", ds, err)
			}
			if got := w.Append(nil); !reflect.DeepEqual(got, want) {
				t.Errorf("Append:\n got %s\nwant %s", dwords(got), dwords(want))
			}
			p, err := prm.ParseSendWQE(want)
			if err != nil || !reflect.DeepEqual(p, row.w) {
				t.Errorf("ParseSendWQE = %+v, %v\nwant %+v", p, err, row.w)
			}
		})
	}
	// Segments an opcode does not carry are neither written nor parsed.
	w := prm.SendWQE{Ctrl: prm.CtrlSeg{Opcode: prm.OpSend}, RAddr: prm.RAddrSeg{RAddr: 1}, Atomic: prm.AtomicSeg{SwapAdd: 1},
		Data: []prm.DataSeg{{ByteCount: 4}}}
	if got, want := dwords(w.Append(nil)), "0000000a 00000002 00000000 00000000 00000004 00000000 00000000 00000000"; got != want {
		t.Errorf("SEND with raddr and atomic given: %s, want %s", got, want)
	}
	w.Ctrl.Opcode = prm.OpRDMAWrite
	if got, want := dwords(w.Append(nil)), "00000008 00000003 00000000 00000000 00000000 00000001 00000000 00000000 00000004 00000000 00000000 00000000"; got != want {
		t.Errorf("RDMA_WRITE with atomic given: %s, want %s", got, want)
	}
}

func TestSendWQEErrors(t *testing.T) {
	for _, op := range []prm.Opcode{prm.OpUMR, prm.OpBindMW, prm.OpAtomicMaskedCS, prm.OpAtomicMaskedFA, 0x0e, 0xff} {
		w := prm.SendWQE{Ctrl: prm.CtrlSeg{Opcode: op}}
		_, err := w.DS()
		var fe *prm.FieldError
		if !errors.As(err, &fe) || fe.Field != "opcode" || fe.Value != uint64(op) {
			t.Errorf("DS(%v): %v", op, err)
		}
		b := prm.CtrlSeg{Opcode: op, DS: 4}.Append(make([]byte, 0, 64))
		b = append(b, make([]byte, 48)...)
		p, err := prm.ParseSendWQE(b)
		if !errors.As(err, &fe) || fe.Field != "opcode" || p.Ctrl.Opcode != op {
			t.Errorf("ParseSendWQE(%v): %+v, %v", op, p, err)
		}
	}
	// 63 octowords fit, 64 do not.
	w := prm.SendWQE{Ctrl: prm.CtrlSeg{Opcode: prm.OpRDMAWrite}, Data: make([]prm.DataSeg, 61)}
	if ds, err := w.DS(); ds != 63 || err != nil {
		t.Errorf("61 data segments: %d, %v", ds, err)
	}
	w.Data = append(w.Data, prm.DataSeg{})
	if _, err := w.DS(); err == nil {
		t.Error("62 data segments accepted")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Append of 64 octowords did not panic")
			}
		}()
		w.Append(nil)
	}()

	good := unhex(t, sendRows[0].img, 64)
	mod := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	for _, c := range []struct {
		name  string
		in    []byte
		field string
		want  int
	}{
		{"empty", nil, "", 16},
		{"ds 1 for RDMA_WRITE", mod(func(b []byte) { b[7] = 1 })[:16], "ds", 0},
		{"ds 0", mod(func(b []byte) { b[7] = 0 }), "ds", 0},
		{"ds 3, 64 bytes", mod(func(b []byte) { b[7] = 3 }), "", 48},
		{"ds 4, 48 bytes", good[:48], "", 64},
		{"inline data segment", mod(func(b []byte) { b[0x30] |= 0x80 }), "data[1] byte_count", 0},
	} {
		_, err := prm.ParseSendWQE(c.in)
		if c.field == "" {
			var se *prm.SizeError
			if !errors.As(err, &se) || se.Want != c.want || se.Got != len(c.in) {
				t.Errorf("%s: err = %v", c.name, err)
			}
			continue
		}
		var fe *prm.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: err = %v, want a %s error", c.name, err, c.field)
		}
	}
	// Reserved bits of the control and remote address segments: one error,
	// offsets from the WQE's start.
	p, err := prm.ParseSendWQE(mod(func(b []byte) { b[0x07] |= 0x40; b[0x1f] |= 0x01; b[0x1c] |= 0x80 }))
	var re *prm.ReservedBitsError
	if !errors.As(err, &re) || re.Format != "send WQE" ||
		!reflect.DeepEqual(re.Dwords, []prm.ReservedDword{{Offset: 0x04, Bits: 0x40}, {Offset: 0x1c, Bits: 0x80000001}}) {
		t.Errorf("reserved: err = %v", err)
	}
	if !reflect.DeepEqual(p, sendRows[0].w) {
		t.Errorf("reserved: parsed %+v", p)
	}
}
