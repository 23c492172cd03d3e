package prm

import "fmt"

// The control segment that starts every send WQE, and the opcodes, fence
// modes and completion modes it names.

// Opcode is the 8-bit opcode of a send WQE (control segment 00h 7:0).
type Opcode uint8

// The send opcodes of the kernel's device.h (MLX5_OPCODE_*) the model knows.
const (
	OpNOP            Opcode = 0x00
	OpSendInval      Opcode = 0x01 // SEND with invalidate: Imm is the key
	OpRDMAWrite      Opcode = 0x08
	OpRDMAWriteImm   Opcode = 0x09
	OpSend           Opcode = 0x0a
	OpSendImm        Opcode = 0x0b
	OpRDMARead       Opcode = 0x10
	OpAtomicCS       Opcode = 0x11
	OpAtomicFA       Opcode = 0x12
	OpAtomicMaskedCS Opcode = 0x14
	OpAtomicMaskedFA Opcode = 0x15
	OpBindMW         Opcode = 0x18
	OpUMR            Opcode = 0x25 // UMR, local invalidate and fast registration
)

// String is the kernel's name without its MLX5_OPCODE_ prefix, or the
// number for an opcode the model does not know.
func (o Opcode) String() string {
	switch o {
	case OpNOP:
		return "NOP"
	case OpSendInval:
		return "SEND_INVAL"
	case OpRDMAWrite:
		return "RDMA_WRITE"
	case OpRDMAWriteImm:
		return "RDMA_WRITE_IMM"
	case OpSend:
		return "SEND"
	case OpSendImm:
		return "SEND_IMM"
	case OpRDMARead:
		return "RDMA_READ"
	case OpAtomicCS:
		return "ATOMIC_CS"
	case OpAtomicFA:
		return "ATOMIC_FA"
	case OpAtomicMaskedCS:
		return "ATOMIC_MASKED_CS"
	case OpAtomicMaskedFA:
		return "ATOMIC_MASKED_FA"
	case OpBindMW:
		return "BIND_MW"
	case OpUMR:
		return "UMR"
	}
	return fmt.Sprintf("0x%02x", uint8(o))
}

// FenceMode is the fence of a WQE (control segment 08h 7:5): how it waits
// for the WQEs before it on the same send queue.
type FenceMode uint8

// The fence modes (MLX5_FENCE_MODE_*); 5..7 are reserved.
const (
	FenceNone           FenceMode = 0
	FenceInitiatorSmall FenceMode = 1
	FenceFence          FenceMode = 2
	FenceStrongOrdering FenceMode = 3
	FenceSmallAndFence  FenceMode = 4
)

// Valid reports whether the mode is one of the five defined ones.
func (f FenceMode) Valid() bool { return f <= FenceSmallAndFence }

// String is the kernel's name without its MLX5_FENCE_MODE_ prefix, or the
// number for a reserved mode.
func (f FenceMode) String() string {
	switch f {
	case FenceNone:
		return "NONE"
	case FenceInitiatorSmall:
		return "INITIATOR_SMALL"
	case FenceFence:
		return "FENCE"
	case FenceStrongOrdering:
		return "STRONG_ORDERING"
	case FenceSmallAndFence:
		return "SMALL_AND_FENCE"
	}
	return fmt.Sprintf("%#x", uint8(f))
}

// CompletionMode is the ce field of a WQE (control segment 08h 3:2): when
// the WQE's completion writes a CQE.
type CompletionMode uint8

// The completion modes: the kernel sets CompAlways (MLX5_WQE_CTRL_CQ_UPDATE)
// on a signaled WQE and leaves 0 on the others; the names are DPDK's
// MLX5_COMP_*.
const (
	CompOnlyErr      CompletionMode = 0 // a CQE only if the WQE fails
	CompOnlyFirstErr CompletionMode = 1 // a CQE only for the first failure
	CompAlways       CompletionMode = 2 // a CQE always
	CompCQEAndEQE    CompletionMode = 3 // a CQE and an event always
)

// String is the DPDK name without its MLX5_COMP_ prefix.
func (m CompletionMode) String() string {
	switch m {
	case CompOnlyErr:
		return "ONLY_ERR"
	case CompOnlyFirstErr:
		return "ONLY_FIRST_ERR"
	case CompAlways:
		return "ALWAYS"
	case CompCQEAndEQE:
		return "CQE_AND_EQE"
	}
	return fmt.Sprintf("%#x", uint8(m))
}

// CtrlSegSize is the size of the WQE control segment in bytes.
const CtrlSegSize = 16

// CtrlSeg is the control segment that starts every send WQE (struct
// mlx5_wqe_ctrl_seg):
//
//	00h  31:24 opmod, 23:8 wqe_index, 7:0 opcode
//	04h  31:8 qpn, 5:0 ds (the WQE's size in octowords)
//	08h  31:24 signature, 7:5 fm (fence), 3:2 ce, 1 se
//	0Ch  31:0 general_id / imm
//
// Bits 04h 7:6 and 08h 23:8, 4 and 0 are reserved (bytes 9 and 10 are
// rsvd[2] in the kernel).
type CtrlSeg struct {
	OpMod     uint8
	WQEIndex  uint16
	Opcode    Opcode
	QPN       uint32 // 24 bits
	DS        uint8  // 6 bits
	Signature uint8
	Fence     FenceMode      // 3 bits
	CE        CompletionMode // 2 bits
	SE        bool           // solicited event
	// Imm is the dword at 0Ch: the target key of a UMR or local
	// invalidate, the key to invalidate of SEND_INVAL, the immediate of
	// the *_IMM opcodes, 0 otherwise.
	Imm uint32
}

// CtrlSegLayout is the control segment's field table.
var CtrlSegLayout = newLayout("WQE control segment", "ctrl_seg", "the kernel's struct mlx5_wqe_ctrl_seg", CtrlSegSize,
	field("opmod", func(c *CtrlSeg) *uint8 { return &c.OpMod }, r(0x00, 31, 24)),
	field("wqe_index", func(c *CtrlSeg) *uint16 { return &c.WQEIndex }, r(0x00, 23, 8)),
	field("opcode", func(c *CtrlSeg) *Opcode { return &c.Opcode }, r(0x00, 7, 0)),
	field("qpn", func(c *CtrlSeg) *uint32 { return &c.QPN }, r(0x04, 31, 8)),
	field("ds", func(c *CtrlSeg) *uint8 { return &c.DS }, r(0x04, 5, 0)),
	field("signature", func(c *CtrlSeg) *uint8 { return &c.Signature }, r(0x08, 31, 24)),
	field("fm", func(c *CtrlSeg) *FenceMode { return &c.Fence }, r(0x08, 7, 5)),
	field("ce", func(c *CtrlSeg) *CompletionMode { return &c.CE }, r(0x08, 3, 2)),
	flag("se", 0x08, 1, func(c *CtrlSeg) *bool { return &c.SE }),
	field("imm", func(c *CtrlSeg) *uint32 { return &c.Imm }, dw(0x0C)).spec("general_id / imm"),
)

// Put packs c into b[:16]; fields wider than their bits are cut.
func (c CtrlSeg) Put(b []byte) { CtrlSegLayout.Put(b, &c) }

// Append appends the 16-byte segment to b.
func (c CtrlSeg) Append(b []byte) []byte { return appendPut(b, CtrlSegSize, c) }

// ParseCtrlSeg parses 16 bytes. A reserved fence mode (5..7) is reported
// as a *FieldError and set reserved bits as a *ReservedBitsError, both
// beside the fully parsed segment.
func ParseCtrlSeg(b []byte) (CtrlSeg, error) {
	if len(b) != CtrlSegSize {
		return CtrlSeg{}, &SizeError{Format: "WQE control segment", Want: CtrlSegSize, Got: len(b)}
	}
	var e wqeErrs
	c := parseCtrl(&e, "WQE control segment", 0, b)
	return c, e.err("WQE control segment")
}

// parseCtrl decodes b[:16], noting its errors in e with reserved offsets
// moved by off.
func parseCtrl(e *wqeErrs, format string, off int, b []byte) CtrlSeg {
	var c CtrlSeg
	parseSeg(CtrlSegLayout, e, format, b, off, &c)
	if !c.Fence.Valid() {
		e.field(&FieldError{Format: format, Field: "fm", Value: uint64(c.Fence), Reason: "reserved fence mode (defined: 0..4)"})
	}
	return c
}
