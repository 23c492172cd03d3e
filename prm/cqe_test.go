package prm_test

import (
	"errors"
	"reflect"
	"testing"

	"mkeysim/prm"
)

// cqeImg builds a 64-byte image by hand: the dwords given by byte offset,
// zero elsewhere.
func cqeImg(t testing.TB, dw map[int]string) []byte {
	t.Helper()
	b := make([]byte, prm.CQESize)
	for off, s := range dw {
		copy(b[off:], unhex(t, s, 4))
	}
	return b
}

// cqeRows: completions and their 64 bytes by hand from the kernel's struct
// mlx5_cqe64 (24h imm_inval_pkey, 2Ch byte_cnt, 30h timestamp, 38h
// sop_drop_qpn, 3Ch wqe_counter, 3Eh signature, 3Fh op_own: opcode 7:4,
// format 3:2, se 1, owner 0).
var cqeRows = []struct {
	name string
	c    prm.CQE
	dw   map[int]string
}{
	{"zero", prm.CQE{}, nil},
	{"REQ of an RDMA_WRITE", prm.CQE{SWQEOpcode: prm.OpRDMAWrite, QPN: 0xabc, WQECounter: 0x1234, Owner: true},
		map[int]string{0x38: "08000abc", 0x3c: "12340001"}},
	{"REQ of a UMR", prm.CQE{SWQEOpcode: prm.OpUMR, QPN: 0x42, WQECounter: 9},
		map[int]string{0x38: "25000042", 0x3c: "00090000"}},
	{"RESP_SEND_INV: the invalidated key, solicited",
		prm.CQE{ImmInvalPKey: 0x00012a07, ByteCnt: 0x100, QPN: 0x42, WQECounter: 3, Opcode: prm.CQERespSendInv, SE: true},
		map[int]string{0x24: "00012a07", 0x2c: "00000100", 0x38: "00000042", 0x3c: "00030042"}},
	{"RESP_WR_IMM", prm.CQE{ImmInvalPKey: 0xdeadbeef, ByteCnt: 0x1000, QPN: 7, Opcode: prm.CQERespWRImm, Owner: true},
		map[int]string{0x24: "deadbeef", 0x2c: "00001000", 0x38: "00000007", 0x3c: "00000011"}},
	{"INVALID, as the driver initialises a CQE", prm.CQE{Opcode: prm.CQEInvalid, Owner: true},
		map[int]string{0x3c: "000000f1"}},
	{"misc first byte", prm.CQE{Misc: [0x24]byte{0: 0xff}}, map[int]string{0x00: "ff000000"}},
	{"misc last byte 23h", prm.CQE{Misc: [0x24]byte{0x23: 0xff}}, map[int]string{0x20: "000000ff"}},
	{"imm_inval_pkey 24h", prm.CQE{ImmInvalPKey: 0xffffffff}, map[int]string{0x24: "ffffffff"}},
	{"app 28h", prm.CQE{App: [4]byte{0xff, 0, 0, 0xfe}}, map[int]string{0x28: "ff0000fe"}},
	{"byte_cnt 2Ch", prm.CQE{ByteCnt: 0xffffffff}, map[int]string{0x2c: "ffffffff"}},
	{"timestamp 30h", prm.CQE{Timestamp: 0x0123456789abcdef}, map[int]string{0x30: "01234567", 0x34: "89abcdef"}},
	{"send opcode 38h 31:24", prm.CQE{SWQEOpcode: 0xff}, map[int]string{0x38: "ff000000"}},
	{"qpn 38h 23:0", prm.CQE{QPN: 0xffffff}, map[int]string{0x38: "00ffffff"}},
	{"wqe_counter 3Ch", prm.CQE{WQECounter: 0xffff}, map[int]string{0x3c: "ffff0000"}},
	{"signature 3Eh", prm.CQE{Signature: 0xff}, map[int]string{0x3c: "0000ff00"}},
	{"opcode 3Fh 7:4", prm.CQE{Opcode: 0xf}, map[int]string{0x3c: "000000f0"}},
	{"format 3Fh 3:2", prm.CQE{Format: 3}, map[int]string{0x3c: "0000000c"}},
	{"se 3Fh 1", prm.CQE{SE: true}, map[int]string{0x3c: "00000002"}},
	{"owner 3Fh 0", prm.CQE{Owner: true}, map[int]string{0x3c: "00000001"}},
}

func TestCQEDirected(t *testing.T) {
	for _, row := range cqeRows {
		t.Run(row.name, func(t *testing.T) {
			want := cqeImg(t, row.dw)
			c := row.c
			var got [prm.CQESize]byte
			c.Put(got[:])
			if !reflect.DeepEqual(got[:], want) {
				t.Errorf("Put:\n got %s\nwant %s", dwords(got[:]), dwords(want))
			}
			if a := c.Append([]byte{3}); !reflect.DeepEqual(a, append([]byte{3}, want...)) {
				t.Errorf("Append = % x", a)
			}
			p, err := prm.ParseCQE(want)
			if err != nil || p != row.c {
				t.Errorf("ParseCQE = %+v, %v; want %+v", p, err, row.c)
			}
			if op, err := prm.PeekCQEOpcode(want); op != row.c.Opcode || err != nil {
				t.Errorf("PeekCQEOpcode = %v, %v", op, err)
			}
		})
	}
}

// TestCQEWideValues: values wider than their field are cut.
func TestCQEWideValues(t *testing.T) {
	c := prm.CQE{QPN: 0xffffffff, Opcode: 0xff, Format: 0xff}
	want := cqeImg(t, map[int]string{0x38: "00ffffff", 0x3c: "000000fc"})
	if got := c.Append(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("Put = %s", dwords(got))
	}
}

// TestCQEErrorOpcodes: the opcodes whose CQE has another layout are
// reported, beside the CQE parsed in this one.
func TestCQEErrorOpcodes(t *testing.T) {
	for _, op := range []prm.CQEOpcode{prm.CQESigErr, prm.CQEReqErr, prm.CQERespErr} {
		b := cqeImg(t, map[int]string{0x24: "01020304", 0x3c: "00070001"})
		b[0x3f] |= byte(op) << 4
		c, err := prm.ParseCQE(b)
		var fe *prm.FieldError
		if !errors.As(err, &fe) || fe.Field != "opcode" || fe.Value != uint64(op) || fe.Format != "CQE" {
			t.Errorf("%v: err = %v", op, err)
		}
		if want := (prm.CQE{ImmInvalPKey: 0x01020304, WQECounter: 7, Opcode: op, Owner: true}); c != want {
			t.Errorf("%v: parsed %+v", op, c)
		}
	}
	for op := prm.CQEOpcode(0); op < 16; op++ {
		if got, want := op.IsError(), op == 13 || op == 14; got != want {
			t.Errorf("%v.IsError() = %v", op, got)
		}
	}
}

// errCQERows: error completions and their bytes by hand from the kernel's
// struct mlx5_err_cqe (20h srqn, 36h vendor_err_synd, 37h syndrome, 38h
// s_wqe_opcode_qpn, 3Ch wqe_counter, signature, op_own).
var errCQERows = []struct {
	name string
	c    prm.ErrCQE
	dw   map[int]string
}{
	{"REQ_ERR: remote access error of an RDMA_WRITE",
		prm.ErrCQE{VendorErrSynd: 0x88, Syndrome: prm.SyndromeRemoteAccessErr, SWQEOpcode: prm.OpRDMAWrite, QPN: 0xabc, WQECounter: 7, Opcode: prm.CQEReqErr, Owner: true},
		map[int]string{0x34: "00008813", 0x38: "08000abc", 0x3c: "000700d1"}},
	{"RESP_ERR: local protection error",
		prm.ErrCQE{SRQN: 0x123, Syndrome: prm.SyndromeLocalProtErr, QPN: 0x42, Opcode: prm.CQERespErr},
		map[int]string{0x20: "00000123", 0x34: "00000004", 0x38: "00000042", 0x3c: "000000e0"}},
	{"REQ_ERR: flushed UMR", prm.ErrCQE{Syndrome: prm.SyndromeWRFlushErr, SWQEOpcode: prm.OpUMR, QPN: 1, WQECounter: 2, Opcode: prm.CQEReqErr},
		map[int]string{0x34: "00000005", 0x38: "25000001", 0x3c: "000200d0"}},
	{"srqn 20h", prm.ErrCQE{SRQN: 0xffffffff, Opcode: prm.CQEReqErr}, map[int]string{0x20: "ffffffff", 0x3c: "000000d0"}},
	{"vendor_err_synd 36h", prm.ErrCQE{VendorErrSynd: 0xff, Opcode: prm.CQEReqErr}, map[int]string{0x34: "0000ff00", 0x3c: "000000d0"}},
	{"syndrome 37h", prm.ErrCQE{Syndrome: 0xff, Opcode: prm.CQEReqErr}, map[int]string{0x34: "000000ff", 0x3c: "000000d0"}},
	{"send opcode 38h 31:24", prm.ErrCQE{SWQEOpcode: 0xff, Opcode: prm.CQEReqErr}, map[int]string{0x38: "ff000000", 0x3c: "000000d0"}},
	{"qpn 38h 23:0", prm.ErrCQE{QPN: 0xffffff, Opcode: prm.CQEReqErr}, map[int]string{0x38: "00ffffff", 0x3c: "000000d0"}},
	{"wqe_counter 3Ch", prm.ErrCQE{WQECounter: 0xffff, Opcode: prm.CQEReqErr}, map[int]string{0x3c: "ffff00d0"}},
	{"signature 3Eh", prm.ErrCQE{Signature: 0xff, Opcode: prm.CQEReqErr}, map[int]string{0x3c: "0000ffd0"}},
	{"format, se, owner", prm.ErrCQE{Format: 3, SE: true, Owner: true, Opcode: prm.CQERespErr}, map[int]string{0x3c: "000000ef"}},
}

func TestErrCQEDirected(t *testing.T) {
	for _, row := range errCQERows {
		t.Run(row.name, func(t *testing.T) {
			want := cqeImg(t, row.dw)
			c := row.c
			if got := c.Append(nil); !reflect.DeepEqual(got, want) {
				t.Errorf("Append:\n got %s\nwant %s", dwords(got), dwords(want))
			}
			p, err := prm.ParseErrCQE(want)
			if err != nil || p != row.c {
				t.Errorf("ParseErrCQE = %+v, %v; want %+v", p, err, row.c)
			}
			if op, _ := prm.PeekCQEOpcode(want); !op.IsError() {
				t.Errorf("PeekCQEOpcode = %v", op)
			}
		})
	}
	// Put clears the reserved bytes of a reused buffer.
	b := make([]byte, prm.CQESize)
	for i := range b {
		b[i] = 0xff
	}
	c := errCQERows[0].c
	c.Put(b)
	if want := cqeImg(t, errCQERows[0].dw); !reflect.DeepEqual(b, want) {
		t.Errorf("Put over ones:\n got %s", dwords(b))
	}
}

// errCQEReservedHand is the reserved mask of an error CQE per dword:
// 00h..1Fh (rsvd0[32]), 24h..35h (rsvd1[18]).
var errCQEReservedHand = [16]uint32{
	^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0),
	0, ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0), 0xffff0000, 0, 0,
}

func TestErrCQEReservedBits(t *testing.T) {
	base := errCQERows[0].c
	img := base.Append(nil)
	for dw, mask := range errCQEReservedHand {
		for bit := 0; bit < 32; bit++ {
			b := append([]byte(nil), img...)
			b[4*dw+3-bit/8] ^= 1 << (bit % 8)
			c, err := prm.ParseErrCQE(b)
			var re *prm.ReservedBitsError
			if mask&(1<<bit) == 0 {
				if errors.As(err, &re) {
					t.Errorf("%02Xh bit %d is a field bit but reported: %v", 4*dw, bit, err)
				}
				continue
			}
			if !errors.As(err, &re) || re.Format != "error CQE" || !reflect.DeepEqual(re.Dwords, []prm.ReservedDword{{Offset: 4 * dw, Bits: 1 << bit}}) {
				t.Fatalf("%02Xh bit %d: err = %v", 4*dw, bit, err)
			}
			if c != base {
				t.Errorf("%02Xh bit %d: parsed %+v", 4*dw, bit, c)
			}
		}
	}
}

func TestErrCQEOpcode(t *testing.T) {
	for op := prm.CQEOpcode(0); op < 16; op++ {
		b := cqeImg(t, map[int]string{0x34: "00000013"})
		b[0x3f] = byte(op) << 4
		c, err := prm.ParseErrCQE(b)
		var fe *prm.FieldError
		if op.IsError() {
			if err != nil {
				t.Errorf("%v: %v", op, err)
			}
		} else if !errors.As(err, &fe) || fe.Field != "opcode" || fe.Value != uint64(op) {
			t.Errorf("%v: err = %v", op, err)
		}
		if c.Opcode != op || c.Syndrome != prm.SyndromeRemoteAccessErr {
			t.Errorf("%v: parsed %+v", op, c)
		}
	}
}

// cqeOpcodeHand and syndromeHand: the kernel's MLX5_CQE_* and
// MLX5_CQE_SYNDROME_* values (include/linux/mlx5/cq.h).
var cqeOpcodeHand = []struct {
	op   prm.CQEOpcode
	v    uint8
	name string
}{
	{prm.CQEReq, 0, "REQ"},
	{prm.CQERespWRImm, 1, "RESP_WR_IMM"},
	{prm.CQERespSend, 2, "RESP_SEND"},
	{prm.CQERespSendImm, 3, "RESP_SEND_IMM"},
	{prm.CQERespSendInv, 4, "RESP_SEND_INV"},
	{prm.CQEResizeCQ, 5, "RESIZE_CQ"},
	{prm.CQESigErr, 12, "SIG_ERR"},
	{prm.CQEReqErr, 13, "REQ_ERR"},
	{prm.CQERespErr, 14, "RESP_ERR"},
	{prm.CQEInvalid, 15, "INVALID"},
}

var syndromeHand = []struct {
	s    prm.CQESyndrome
	v    uint8
	name string
}{
	{prm.SyndromeLocalLengthErr, 0x01, "LOCAL_LENGTH_ERR"},
	{prm.SyndromeLocalQPOpErr, 0x02, "LOCAL_QP_OP_ERR"},
	{prm.SyndromeLocalProtErr, 0x04, "LOCAL_PROT_ERR"},
	{prm.SyndromeWRFlushErr, 0x05, "WR_FLUSH_ERR"},
	{prm.SyndromeMWBindErr, 0x06, "MW_BIND_ERR"},
	{prm.SyndromeBadRespErr, 0x10, "BAD_RESP_ERR"},
	{prm.SyndromeLocalAccessErr, 0x11, "LOCAL_ACCESS_ERR"},
	{prm.SyndromeRemoteInvalReqErr, 0x12, "REMOTE_INVAL_REQ_ERR"},
	{prm.SyndromeRemoteAccessErr, 0x13, "REMOTE_ACCESS_ERR"},
	{prm.SyndromeRemoteOpErr, 0x14, "REMOTE_OP_ERR"},
	{prm.SyndromeTransportRetryExcErr, 0x15, "TRANSPORT_RETRY_EXC_ERR"},
	{prm.SyndromeRNRRetryExcErr, 0x16, "RNR_RETRY_EXC_ERR"},
	{prm.SyndromeRemoteAbortedErr, 0x22, "REMOTE_ABORTED_ERR"},
}

func TestCQENames(t *testing.T) {
	for _, c := range cqeOpcodeHand {
		if uint8(c.op) != c.v || c.op.String() != c.name {
			t.Errorf("CQE opcode %s = %d (%q), want %d", c.name, uint8(c.op), c.op.String(), c.v)
		}
	}
	if s := prm.CQEOpcode(7).String(); s != "0x7" {
		t.Errorf("CQEOpcode(7) = %q", s)
	}
	for _, c := range syndromeHand {
		if uint8(c.s) != c.v || c.s.String() != c.name {
			t.Errorf("syndrome %s = %#x (%q), want %#x", c.name, uint8(c.s), c.s.String(), c.v)
		}
	}
	if s := prm.CQESyndrome(0x93).String(); s != "0x93" {
		t.Errorf("CQESyndrome(0x93) = %q", s)
	}
	if s := prm.CQESyndrome(0).String(); s != "0x00" {
		t.Errorf("CQESyndrome(0) = %q", s)
	}
}
