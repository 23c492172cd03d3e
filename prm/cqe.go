package prm

import "fmt"

// CQESize is the size of a completion queue entry in bytes (struct
// mlx5_cqe64).
const CQESize = 64

// CQEOpcode is the 4-bit opcode of a CQE (3Fh 7:4).
type CQEOpcode uint8

// The CQE opcodes of the kernel's cq.h (MLX5_CQE_*).
const (
	CQEReq         CQEOpcode = 0  // a send WQE completed
	CQERespWRImm   CQEOpcode = 1  // an inbound RDMA WRITE with immediate
	CQERespSend    CQEOpcode = 2  // an inbound SEND
	CQERespSendImm CQEOpcode = 3  // an inbound SEND with immediate
	CQERespSendInv CQEOpcode = 4  // an inbound SEND with invalidate
	CQEResizeCQ    CQEOpcode = 5  // the CQ was resized
	CQESigErr      CQEOpcode = 12 // a signature error (struct mlx5_sig_err_cqe)
	CQEReqErr      CQEOpcode = 13 // a send WQE failed (struct mlx5_err_cqe)
	CQERespErr     CQEOpcode = 14 // a receive failed (struct mlx5_err_cqe)
	CQEInvalid     CQEOpcode = 15 // not written by hardware
)

// String is the kernel's name without its MLX5_CQE_ prefix, or the number
// for an opcode the kernel does not name.
func (o CQEOpcode) String() string {
	switch o {
	case CQEReq:
		return "REQ"
	case CQERespWRImm:
		return "RESP_WR_IMM"
	case CQERespSend:
		return "RESP_SEND"
	case CQERespSendImm:
		return "RESP_SEND_IMM"
	case CQERespSendInv:
		return "RESP_SEND_INV"
	case CQEResizeCQ:
		return "RESIZE_CQ"
	case CQESigErr:
		return "SIG_ERR"
	case CQEReqErr:
		return "REQ_ERR"
	case CQERespErr:
		return "RESP_ERR"
	case CQEInvalid:
		return "INVALID"
	}
	return fmt.Sprintf("%#x", uint8(o))
}

// IsError reports whether a CQE of the opcode has the error layout
// (ErrCQE): REQ_ERR or RESP_ERR.
func (o CQEOpcode) IsError() bool { return o == CQEReqErr || o == CQERespErr }

// CQESyndrome is the syndrome of an error CQE (37h): why the work request
// failed.
type CQESyndrome uint8

// The syndromes of the kernel's cq.h (MLX5_CQE_SYNDROME_*).
const (
	SyndromeLocalLengthErr       CQESyndrome = 0x01
	SyndromeLocalQPOpErr         CQESyndrome = 0x02
	SyndromeLocalProtErr         CQESyndrome = 0x04 // a local key check failed
	SyndromeWRFlushErr           CQESyndrome = 0x05 // flushed: the QP is in error
	SyndromeMWBindErr            CQESyndrome = 0x06
	SyndromeBadRespErr           CQESyndrome = 0x10
	SyndromeLocalAccessErr       CQESyndrome = 0x11
	SyndromeRemoteInvalReqErr    CQESyndrome = 0x12
	SyndromeRemoteAccessErr      CQESyndrome = 0x13 // a remote key check failed
	SyndromeRemoteOpErr          CQESyndrome = 0x14
	SyndromeTransportRetryExcErr CQESyndrome = 0x15
	SyndromeRNRRetryExcErr       CQESyndrome = 0x16
	SyndromeRemoteAbortedErr     CQESyndrome = 0x22
)

// String is the kernel's name without its MLX5_CQE_SYNDROME_ prefix, or
// the number for a syndrome the kernel does not name.
func (s CQESyndrome) String() string {
	switch s {
	case SyndromeLocalLengthErr:
		return "LOCAL_LENGTH_ERR"
	case SyndromeLocalQPOpErr:
		return "LOCAL_QP_OP_ERR"
	case SyndromeLocalProtErr:
		return "LOCAL_PROT_ERR"
	case SyndromeWRFlushErr:
		return "WR_FLUSH_ERR"
	case SyndromeMWBindErr:
		return "MW_BIND_ERR"
	case SyndromeBadRespErr:
		return "BAD_RESP_ERR"
	case SyndromeLocalAccessErr:
		return "LOCAL_ACCESS_ERR"
	case SyndromeRemoteInvalReqErr:
		return "REMOTE_INVAL_REQ_ERR"
	case SyndromeRemoteAccessErr:
		return "REMOTE_ACCESS_ERR"
	case SyndromeRemoteOpErr:
		return "REMOTE_OP_ERR"
	case SyndromeTransportRetryExcErr:
		return "TRANSPORT_RETRY_EXC_ERR"
	case SyndromeRNRRetryExcErr:
		return "RNR_RETRY_EXC_ERR"
	case SyndromeRemoteAbortedErr:
		return "REMOTE_ABORTED_ERR"
	}
	return fmt.Sprintf("0x%02x", uint8(s))
}

// PeekCQEOpcode returns the opcode of a 64-byte CQE, so that a poller can
// choose ParseCQE or ParseErrCQE.
func PeekCQEOpcode(b []byte) (CQEOpcode, error) {
	if len(b) != CQESize {
		return 0, &SizeError{Format: "CQE", Want: CQESize, Got: len(b)}
	}
	return CQEOpcode(b[0x3f] >> 4), nil
}

// CQE is a completion of any opcode but the error ones (struct
// mlx5_cqe64). The fields the model reads are named:
//
//	24h  31:0 imm_inval_pkey
//	2Ch  31:0 byte_cnt
//	30h  63:0 timestamp (timestamp_h, timestamp_l)
//	38h  31:24 the send WQE's opcode (requester), 23:0 qpn
//	3Ch  31:16 wqe_counter, 15:8 signature, 7:4 opcode, 3:2 format,
//	     1 se, 0 owner
//
// and the rest, which the model neither reads nor writes but hardware
// fills (Ethernet offload results, flags_rqpn, srqn, the rdma-core app
// bytes), is carried as opaque bytes: a CQE has no reserved bits, and any
// 64 bytes pack back to themselves.
type CQE struct {
	// Misc is bytes 00h..23h, opaque.
	Misc [0x24]byte
	// ImmInvalPKey is the immediate of RESP_WR_IMM and RESP_SEND_IMM, the
	// key RESP_SEND_INV invalidated, or the P_Key of a UD receive.
	ImmInvalPKey uint32
	// App is bytes 28h..2Bh, opaque (reserved in the kernel's struct,
	// app, app_op and app_info in rdma-core's).
	App        [4]byte
	ByteCnt    uint32
	Timestamp  uint64
	SWQEOpcode Opcode // 38h 31:24, the opcode of the WQE a REQ completes
	QPN        uint32 // 24 bits
	WQECounter uint16 // the wqe_index of the WQE the CQE completes
	Signature  uint8
	Opcode     CQEOpcode // 4 bits
	Format     uint8     // 2 bits: 0 no inline data, 1 and 2 inline scatter, 3 compressed
	SE         bool      // solicited event
	Owner      bool      // flips each pass around the CQ
}

// CQELayout is the CQE's field table, from the kernel's struct
// mlx5_cqe64: the named fields and the opaque dwords misc_00h..misc_20h
// and app; no reserved bits.
var CQELayout = newLayout("CQE", "cqe", "the kernel's struct mlx5_cqe64 (include/linux/mlx5/device.h)", CQESize,
	append(cqeMisc(),
		field("imm_inval_pkey", func(c *CQE) *uint32 { return &c.ImmInvalPKey }, dw(0x24)),
		opaque("app", func(c *CQE) *[4]byte { return &c.App }, dw(0x28)),
		field("byte_cnt", func(c *CQE) *uint32 { return &c.ByteCnt }, dw(0x2C)),
		field("timestamp", func(c *CQE) *uint64 { return &c.Timestamp }, dw(0x30), dw(0x34)),
		field("s_wqe_opcode", func(c *CQE) *Opcode { return &c.SWQEOpcode }, r(0x38, 31, 24)),
		field("qpn", func(c *CQE) *uint32 { return &c.QPN }, r(0x38, 23, 0)),
		field("wqe_counter", func(c *CQE) *uint16 { return &c.WQECounter }, r(0x3C, 31, 16)),
		field("signature", func(c *CQE) *uint8 { return &c.Signature }, r(0x3C, 15, 8)),
		field("opcode", func(c *CQE) *CQEOpcode { return &c.Opcode }, r(0x3C, 7, 4)),
		field("format", func(c *CQE) *uint8 { return &c.Format }, r(0x3C, 3, 2)),
		flag("se", 0x3C, 1, func(c *CQE) *bool { return &c.SE }),
		flag("owner", 0x3C, 0, func(c *CQE) *bool { return &c.Owner }),
	)...)

// cqeMisc is the rows of CQE.Misc, bytes 00h..23h, a dword each.
func cqeMisc() []Field[CQE] {
	var rows []Field[CQE]
	for off := 0; off < len(CQE{}.Misc); off += 4 {
		rows = append(rows, opaque(fmt.Sprintf("misc_%02xh", off), func(c *CQE) *[4]byte { return (*[4]byte)(c.Misc[off:]) }, dw(off)))
	}
	return rows
}

// Put packs c into b[:64]; fields wider than their bits are cut.
func (c *CQE) Put(b []byte) { CQELayout.Put(b, c) }

// Append appends the 64-byte CQE to b.
func (c *CQE) Append(b []byte) []byte { return appendPut(b, CQESize, c) }

// ParseCQE parses 64 bytes. An opcode whose CQE has another layout
// (REQ_ERR and RESP_ERR: ParseErrCQE; SIG_ERR, not modelled) is reported
// as a *FieldError beside the CQE parsed in this layout.
func ParseCQE(b []byte) (CQE, error) {
	c, err := CQELayout.Parse(b)
	switch {
	case err != nil:
		return c, err
	case c.Opcode.IsError():
		return c, &FieldError{Format: "CQE", Field: "opcode", Value: uint64(c.Opcode), Reason: "an error CQE: parse it with ParseErrCQE"}
	case c.Opcode == CQESigErr:
		return c, &FieldError{Format: "CQE", Field: "opcode", Value: uint64(c.Opcode), Reason: "a signature error CQE, not modelled"}
	}
	return c, nil
}

// ErrCQE is a failed completion, opcode REQ_ERR or RESP_ERR (struct
// mlx5_err_cqe):
//
//	20h  31:0 srqn
//	34h  15:8 vendor_err_synd, 7:0 syndrome
//	38h  31:24 the send WQE's opcode, 23:0 qpn
//	3Ch  31:16 wqe_counter, 15:8 signature, 7:4 opcode, 3:2 format,
//	     1 se, 0 owner
//
// Bytes 00h..1Fh and 24h..35h are reserved, as the kernel and rdma-core
// declare them.
type ErrCQE struct {
	SRQN          uint32
	VendorErrSynd uint8
	Syndrome      CQESyndrome
	SWQEOpcode    Opcode // the opcode of the WQE that failed
	QPN           uint32 // 24 bits
	WQECounter    uint16
	Signature     uint8
	Opcode        CQEOpcode // 4 bits
	Format        uint8     // 2 bits
	SE            bool
	Owner         bool
}

// ErrCQELayout is the error CQE's field table, from the kernel's struct
// mlx5_err_cqe.
var ErrCQELayout = newLayout("error CQE", "err_cqe", "the kernel's struct mlx5_err_cqe (include/linux/mlx5/device.h)", CQESize,
	field("srqn", func(c *ErrCQE) *uint32 { return &c.SRQN }, dw(0x20)),
	field("vendor_err_synd", func(c *ErrCQE) *uint8 { return &c.VendorErrSynd }, r(0x34, 15, 8)),
	field("syndrome", func(c *ErrCQE) *CQESyndrome { return &c.Syndrome }, r(0x34, 7, 0)),
	field("s_wqe_opcode", func(c *ErrCQE) *Opcode { return &c.SWQEOpcode }, r(0x38, 31, 24)),
	field("qpn", func(c *ErrCQE) *uint32 { return &c.QPN }, r(0x38, 23, 0)),
	field("wqe_counter", func(c *ErrCQE) *uint16 { return &c.WQECounter }, r(0x3C, 31, 16)),
	field("signature", func(c *ErrCQE) *uint8 { return &c.Signature }, r(0x3C, 15, 8)),
	field("opcode", func(c *ErrCQE) *CQEOpcode { return &c.Opcode }, r(0x3C, 7, 4)),
	field("format", func(c *ErrCQE) *uint8 { return &c.Format }, r(0x3C, 3, 2)),
	flag("se", 0x3C, 1, func(c *ErrCQE) *bool { return &c.SE }),
	flag("owner", 0x3C, 0, func(c *ErrCQE) *bool { return &c.Owner }),
)

// Put packs c into b[:64]; reserved bytes are written as 0 and fields
// wider than their bits are cut.
func (c *ErrCQE) Put(b []byte) { ErrCQELayout.Put(b, c) }

// Append appends the 64-byte CQE to b.
func (c *ErrCQE) Append(b []byte) []byte { return appendPut(b, CQESize, c) }

// ParseErrCQE parses 64 bytes. An opcode other than REQ_ERR and RESP_ERR
// is reported as a *FieldError and set reserved bits as a
// *ReservedBitsError, both beside the fully parsed CQE.
func ParseErrCQE(b []byte) (ErrCQE, error) {
	const format = "error CQE"
	if len(b) != CQESize {
		return ErrCQE{}, &SizeError{Format: format, Want: CQESize, Got: len(b)}
	}
	var c ErrCQE
	ErrCQELayout.Decode(&c, b)
	var fe error
	if !c.Opcode.IsError() {
		fe = &FieldError{Format: format, Field: "opcode", Value: uint64(c.Opcode), Reason: "not REQ_ERR (0xd) or RESP_ERR (0xe)"}
	}
	return c, joinErrs(fe, ErrCQELayout.checkReserved(format, b))
}
