package prm

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The send-queue work requests (WQEs) and their segments, laid out as the
// Linux kernel's include/linux/mlx5/qp.h and device.h lay them out and as
// drivers/infiniband/hw/mlx5/wr.c builds them. A WQE is a run of 16-byte
// octowords: a control segment first, then the segments its opcode needs.

// OctowordSize is the unit of a WQE's ds: 16 bytes (MLX5_SEND_WQE_DS).
const OctowordSize = 16

// SendWQEBB is the size of a send-queue basic block (MLX5_SEND_WQE_BB): a
// WQE occupies whole basic blocks of its queue.
const SendWQEBB = 64

// MaxDS is the largest ds, a 6-bit field: a WQE is at most 63 octowords.
const MaxDS = 0x3f

// WQEBBs returns how many basic blocks a WQE of ds octowords occupies,
// ceil(16 ds / 64), as the kernel's finish_wqe advances the producer index.
func WQEBBs(ds uint8) int {
	return (int(ds)*OctowordSize + SendWQEBB - 1) / SendWQEBB
}

// FieldError reports a field whose value the format does not allow, or
// that contradicts the rest of the bytes. The value returned beside it is
// parsed as far as the bytes allow.
type FieldError struct {
	Format string
	Field  string
	Value  uint64
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %s %#x: %s", e.Format, e.Field, e.Value, e.Reason)
}

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

// ctrlReserved marks the reserved bits of the control segment per dword.
var ctrlReserved = [CtrlSegSize / 4]uint32{1: 0x000000c0, 2: 0x00ffff11}

// Put packs c into b[:16]; fields wider than their bits are cut.
func (c CtrlSeg) Put(b []byte) {
	b = b[:CtrlSegSize]
	binary.BigEndian.PutUint32(b[0:], uint32(c.OpMod)<<24|uint32(c.WQEIndex)<<8|uint32(c.Opcode))
	binary.BigEndian.PutUint32(b[4:], (c.QPN&0xffffff)<<8|uint32(c.DS&MaxDS))
	d2 := uint32(c.Signature)<<24 | uint32(c.Fence&7)<<5 | uint32(c.CE&3)<<2
	if c.SE {
		d2 |= 1 << 1
	}
	binary.BigEndian.PutUint32(b[8:], d2)
	binary.BigEndian.PutUint32(b[12:], c.Imm)
}

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
	d0 := binary.BigEndian.Uint32(b[0:])
	d1 := binary.BigEndian.Uint32(b[4:])
	d2 := binary.BigEndian.Uint32(b[8:])
	c := CtrlSeg{
		OpMod:     uint8(d0 >> 24),
		WQEIndex:  uint16(d0 >> 8),
		Opcode:    Opcode(d0),
		QPN:       d1 >> 8,
		DS:        uint8(d1) & MaxDS,
		Signature: uint8(d2 >> 24),
		Fence:     FenceMode(d2 >> 5 & 7),
		CE:        CompletionMode(d2 >> 2 & 3),
		SE:        d2&(1<<1) != 0,
		Imm:       binary.BigEndian.Uint32(b[12:]),
	}
	if !c.Fence.Valid() {
		e.field(&FieldError{Format: format, Field: "fm", Value: uint64(c.Fence), Reason: "reserved fence mode (defined: 0..4)"})
	}
	e.reserved(off, checkReserved(format, b[:CtrlSegSize], ctrlReserved[:]))
	return c
}

// RAddrSegSize is the size of the remote address segment in bytes.
const RAddrSegSize = 16

// RAddrSeg is the remote address segment of RDMA and atomic WQEs (struct
// mlx5_wqe_raddr_seg): 00h raddr[63:0], 08h rkey, 0Ch reserved.
type RAddrSeg struct {
	RAddr uint64
	RKey  Key
}

var raddrReserved = [RAddrSegSize / 4]uint32{3: ^uint32(0)}

// Put packs s into b[:16].
func (s RAddrSeg) Put(b []byte) {
	b = b[:RAddrSegSize]
	binary.BigEndian.PutUint64(b[0:], s.RAddr)
	binary.BigEndian.PutUint32(b[8:], uint32(s.RKey))
	binary.BigEndian.PutUint32(b[12:], 0)
}

// Append appends the 16-byte segment to b.
func (s RAddrSeg) Append(b []byte) []byte { return appendPut(b, RAddrSegSize, s) }

// ParseRAddrSeg parses 16 bytes; set bits of the reserved dword 0Ch are
// reported as a *ReservedBitsError beside the parsed segment.
func ParseRAddrSeg(b []byte) (RAddrSeg, error) {
	if len(b) != RAddrSegSize {
		return RAddrSeg{}, &SizeError{Format: "remote address segment", Want: RAddrSegSize, Got: len(b)}
	}
	return decodeRAddr(b), checkReserved("remote address segment", b, raddrReserved[:])
}

func decodeRAddr(b []byte) RAddrSeg {
	return RAddrSeg{RAddr: binary.BigEndian.Uint64(b[0:]), RKey: Key(binary.BigEndian.Uint32(b[8:]))}
}

// AtomicSegSize is the size of the atomic segment in bytes.
const AtomicSegSize = 16

// AtomicSeg is the argument segment of ATOMIC_CS and ATOMIC_FA (struct
// mlx5_wqe_atomic_seg): 00h swap_add[63:0] (the swap value, or the addend),
// 08h compare[63:0]. It has no reserved bits.
type AtomicSeg struct {
	SwapAdd uint64
	Compare uint64
}

// Put packs s into b[:16].
func (s AtomicSeg) Put(b []byte) {
	b = b[:AtomicSegSize]
	binary.BigEndian.PutUint64(b[0:], s.SwapAdd)
	binary.BigEndian.PutUint64(b[8:], s.Compare)
}

// Append appends the 16-byte segment to b.
func (s AtomicSeg) Append(b []byte) []byte { return appendPut(b, AtomicSegSize, s) }

// ParseAtomicSeg parses 16 bytes; the segment has no reserved bits.
func ParseAtomicSeg(b []byte) (AtomicSeg, error) {
	if len(b) != AtomicSegSize {
		return AtomicSeg{}, &SizeError{Format: "atomic segment", Want: AtomicSegSize, Got: len(b)}
	}
	return decodeAtomic(b), nil
}

func decodeAtomic(b []byte) AtomicSeg {
	return AtomicSeg{SwapAdd: binary.BigEndian.Uint64(b[0:]), Compare: binary.BigEndian.Uint64(b[8:])}
}

// DataSegSize is the size of the data segment in bytes.
const DataSegSize = 16

// InlineSegFlag is bit 31 of a data segment's byte_count (MLX5_INLINE_SEG):
// set, the octowords hold inline data instead of a pointer.
const InlineSegFlag = 1 << 31

// DataSeg is a data (scatter/gather) segment (struct mlx5_wqe_data_seg):
// 00h byte_count, 04h lkey, 08h addr[63:0]. A UMR uses one as the pointer
// to a translation list that is not inline. It has no reserved bits.
type DataSeg struct {
	ByteCount uint32
	LKey      Key
	Addr      uint64
}

// Put packs s into b[:16].
func (s DataSeg) Put(b []byte) {
	b = b[:DataSegSize]
	binary.BigEndian.PutUint32(b[0:], s.ByteCount)
	binary.BigEndian.PutUint32(b[4:], uint32(s.LKey))
	binary.BigEndian.PutUint64(b[8:], s.Addr)
}

// Append appends the 16-byte segment to b.
func (s DataSeg) Append(b []byte) []byte { return appendPut(b, DataSegSize, s) }

// ParseDataSeg parses 16 bytes; the segment has no reserved bits.
func ParseDataSeg(b []byte) (DataSeg, error) {
	if len(b) != DataSegSize {
		return DataSeg{}, &SizeError{Format: "data segment", Want: DataSegSize, Got: len(b)}
	}
	return decodeData(b), nil
}

func decodeData(b []byte) DataSeg {
	return DataSeg{
		ByteCount: binary.BigEndian.Uint32(b[0:]),
		LKey:      Key(binary.BigEndian.Uint32(b[4:])),
		Addr:      binary.BigEndian.Uint64(b[8:]),
	}
}

// Inline reports whether byte_count carries InlineSegFlag, which makes the
// segment inline data rather than a pointer.
func (s DataSeg) Inline() bool { return s.ByteCount&InlineSegFlag != 0 }

// UMRPointerAlign is the alignment a UMR pointer's address needs: 2 KB
// (translation.md 2.5, the kernel's MLX5_UMR_ALIGN).
const UMRPointerAlign = 2048

// CheckUMRPointer reports, as a *FieldError naming the address, a UMR
// pointer whose address is not 2 KB aligned.
func CheckUMRPointer(p DataSeg) error {
	if p.Addr%UMRPointerAlign != 0 {
		return &FieldError{Format: "UMR pointer", Field: "addr", Value: p.Addr,
			Reason: fmt.Sprintf("not 2 KB aligned (low 11 bits %#x)", p.Addr%UMRPointerAlign)}
	}
	return nil
}

// UMRListAlign is the unit of a UMR translation list: 64 bytes (8 MTT or
// 4 KLM entries); a shorter list is padded with zero entries.
const UMRListAlign = 64

// MTTList packs entries as a UMR translation list, padded with zero
// entries to a multiple of 64 bytes (translation.md 2.5).
func MTTList(entries []MTTEntry) []byte {
	b := make([]byte, 0, padList(len(entries)*MTTEntrySize))
	for _, e := range entries {
		b = e.Append(b)
	}
	return b[:cap(b)]
}

// KLMList packs entries as a UMR translation list, padded with zero
// entries to a multiple of 64 bytes (translation.md 2.5).
func KLMList(entries []KLMEntry) []byte {
	b := make([]byte, 0, padList(len(entries)*KLMEntrySize))
	for _, e := range entries {
		b = e.Append(b)
	}
	return b[:cap(b)]
}

func padList(n int) int { return (n + UMRListAlign - 1) / UMRListAlign * UMRListAlign }

// umrHeaderDS is the part of every UMR WQE before its list or pointer:
// control (1), UMR control (3) and MKC (4) octowords.
const umrHeaderDS = (CtrlSegSize + UMRCtrlSize + MKCSize) / OctowordSize

// UMRWQE is a UMR work request (opcode UMR, 0x25), laid out as
//
//	00h  control segment; Imm is the target key (the kernel's umr_mkey)
//	10h  UMR control segment (48 bytes)
//	40h  MKey context image (64 bytes)
//	80h  UMR.Inline set: the list, UMR.TranslationOctwordActualSize
//	     octowords, then, when UMR.TranslationOffsetEn is clear, the BSF,
//	     UMR.BSFOctwordActualSize octowords; UMR.Inline clear: one data
//	     segment, the UMR pointer to the list
//
// and ds counts all of it: 8 octowords plus the list and BSF, or 9. The
// kernel pads an inline list with zero entries to 64 bytes (MTTList,
// KLMList); prm lays out List as given, and leaves the 64-byte and 2 KB
// (CheckUMRPointer) rules to the model that runs the UMR.
type UMRWQE struct {
	Ctrl CtrlSeg
	UMR  UMRCtrl
	MKC  MKC
	// List is the inline translation list, raw: MTT or KLM entries as the
	// target's access mode after the UMR reads them (translation.md 3.1).
	List []byte
	// BSF is the inline BSF, carried opaque (the model has no BSF).
	BSF []byte
	// Pointer names the list when UMR.Inline is clear.
	Pointer DataSeg
}

// DS returns the WQE's size in octowords, or a *FieldError when its parts
// cannot be laid out: an inline list or BSF whose length is not the size
// the UMR control segment gives, a list or BSF with inline clear, or more
// than 63 octowords.
func (w *UMRWQE) DS() (uint8, error) {
	const format = "UMR WQE"
	ds := umrHeaderDS
	u := &w.UMR
	switch {
	case !u.Inline:
		if len(w.List) != 0 || len(w.BSF) != 0 {
			return 0, &FieldError{Format: format, Field: "inline", Value: 0,
				Reason: fmt.Sprintf("a %d-byte inline list and %d-byte BSF given with inline clear", len(w.List), len(w.BSF))}
		}
		ds++
	default:
		if len(w.List) != OctowordSize*int(u.TranslationOctwordActualSize) {
			return 0, &FieldError{Format: format, Field: "translation_octword_actual_size", Value: uint64(u.TranslationOctwordActualSize),
				Reason: fmt.Sprintf("the inline list is %d bytes", len(w.List))}
		}
		ds += int(u.TranslationOctwordActualSize)
		bsf := 0
		if !u.TranslationOffsetEn {
			bsf = int(u.BSFOctwordActualSize)
		}
		if len(w.BSF) != OctowordSize*bsf {
			return 0, &FieldError{Format: format, Field: "bsf_octword_actual_size", Value: uint64(bsf),
				Reason: fmt.Sprintf("the inline BSF is %d bytes (none inline with translation_offset_en set)", len(w.BSF))}
		}
		ds += bsf
	}
	if ds > MaxDS {
		return 0, &FieldError{Format: format, Field: "ds", Value: uint64(ds), Reason: "more than 63 octowords"}
	}
	return uint8(ds), nil
}

// Put packs w into b[:16 ds], writing opcode UMR and the WQE's ds in its
// control segment whatever w.Ctrl holds. It panics if DS reports an error.
func (w *UMRWQE) Put(b []byte) {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	b = b[:OctowordSize*int(ds)]
	c := w.Ctrl
	c.Opcode, c.DS = OpUMR, ds
	c.Put(b[0:])
	w.UMR.Put(b[0x10:])
	w.MKC.Put(b[0x40:])
	if !w.UMR.Inline {
		w.Pointer.Put(b[0x80:])
		return
	}
	n := copy(b[0x80:], w.List)
	copy(b[0x80+n:], w.BSF)
}

// Append appends the WQE to b; it panics if DS reports an error.
func (w *UMRWQE) Append(b []byte) []byte {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	n := len(b)
	b = append(b, make([]byte, OctowordSize*int(ds))...)
	w.Put(b[n:])
	return b
}

// ParseUMRWQE parses a UMR WQE of exactly 16 ds bytes, ds read from its
// control segment. A ds that disagrees with the UMR control segment's sizes
// and an opcode other than UMR are reported as a *FieldError, a reserved
// fence mode likewise, and set reserved bits of the control, UMR control
// and MKC segments as one *ReservedBitsError with offsets from the WQE's
// start; each beside the WQE parsed as far as the bytes allow.
func ParseUMRWQE(b []byte) (UMRWQE, error) { return parseUMRWQE(b, "UMR WQE") }

// parseUMRWQE is ParseUMRWQE naming format in its errors.
func parseUMRWQE(b []byte, format string) (UMRWQE, error) {
	var w UMRWQE
	if len(b) < CtrlSegSize {
		return w, &SizeError{Format: format, Want: umrHeaderDS * OctowordSize, Got: len(b)}
	}
	var e wqeErrs
	w.Ctrl = parseCtrl(&e, format, 0, b)
	if w.Ctrl.DS < umrHeaderDS {
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(w.Ctrl.DS), Reason: "a UMR WQE is at least 8 octowords"})
		return w, e.err(format)
	}
	if n := OctowordSize * int(w.Ctrl.DS); len(b) != n {
		return w, &SizeError{Format: format, Want: n, Got: len(b)}
	}
	if w.Ctrl.Opcode != OpUMR {
		e.field(&FieldError{Format: format, Field: "opcode", Value: uint64(w.Ctrl.Opcode), Reason: "not UMR (0x25)"})
	}
	u, err := ParseUMRCtrl(b[0x10:0x40])
	w.UMR = u
	e.reserved(0x10, err)
	w.MKC, err = ParseMKC(b[0x40:0x80])
	e.reserved(0x40, err)

	rest := b[0x80:]
	need, list, bsf := umrHeaderDS+1, 0, 0
	if u.Inline {
		list = OctowordSize * int(u.TranslationOctwordActualSize)
		if !u.TranslationOffsetEn {
			bsf = OctowordSize * int(u.BSFOctwordActualSize)
		}
		need = umrHeaderDS + (list+bsf)/OctowordSize
	}
	if need != int(w.Ctrl.DS) {
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(w.Ctrl.DS),
			Reason: fmt.Sprintf("the UMR control segment's sizes need %d octowords", need)})
		return w, e.err(format)
	}
	if !u.Inline {
		w.Pointer = decodeData(rest)
	} else {
		w.List = cloneBytes(rest[:list])
		w.BSF = cloneBytes(rest[list : list+bsf])
	}
	return w, e.err(format)
}

// cloneBytes copies b, nil when it is empty.
func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// LocalInvWQE is a local invalidate as the Linux mlx5 driver posts it
// (handle_local_inv, set_linv_umr_seg, set_linv_mkey_seg): a UMR WQE whose
// control segment's Imm is the key to invalidate, whose UMR control segment
// has inline set, no check_free, no sizes and mkey_ctx_mask free alone, and
// whose MKC image is free = 1 with every other field 0: 8 octowords, 2
// basic blocks. (rdma-core also names an opcode LOCAL_INVAL, 0x1b; the
// kernel never posts it and prm does not lay it out.)
type LocalInvWQE struct {
	Ctrl CtrlSeg // Ctrl.Imm is the key to invalidate
}

// localInvDS is the size of a local invalidate in octowords.
const localInvDS = umrHeaderDS

// Key is the key the WQE invalidates (Ctrl.Imm).
func (w LocalInvWQE) Key() Key { return Key(w.Ctrl.Imm) }

// UMRWQE returns the UMR WQE the local invalidate is.
func (w LocalInvWQE) UMRWQE() UMRWQE {
	c := w.Ctrl
	c.Opcode, c.DS = OpUMR, localInvDS
	return UMRWQE{Ctrl: c, UMR: UMRCtrl{Inline: true, MKeyMask: MaskFree}, MKC: MKC{Free: true}}
}

// Put packs w into b[:128], writing opcode UMR and ds 8 whatever w.Ctrl
// holds.
func (w LocalInvWQE) Put(b []byte) {
	u := w.UMRWQE()
	u.Put(b)
}

// Append appends the 128-byte WQE to b.
func (w LocalInvWQE) Append(b []byte) []byte {
	u := w.UMRWQE()
	return u.Append(b)
}

// IsLocalInvalidate reports whether w is exactly the local invalidate
// LocalInvWQE lays out, control segment aside.
func (w *UMRWQE) IsLocalInvalidate() bool { return localInvMismatch(w) == nil }

// localInvMismatch names the first part of w that a local invalidate does
// not have, as a *FieldError, or returns nil.
func localInvMismatch(w *UMRWQE) error {
	const format = "local invalidate WQE"
	want := LocalInvWQE{}.UMRWQE()
	u := &w.UMR
	for _, f := range []struct {
		name      string
		got, want uint64
	}{
		{"inline", b2u(u.Inline), 1},
		{"check_free", uint64(u.CheckFree), 0},
		{"translation_offset_en", b2u(u.TranslationOffsetEn), 0},
		{"translation_octword_actual_size", uint64(u.TranslationOctwordActualSize), 0},
		{"bsf_octword_actual_size", uint64(u.BSFOctwordActualSize), 0},
		{"translation_offset", u.TranslationOffset, 0},
		{"mkey_ctx_mask", uint64(u.MKeyMask), uint64(MaskFree)},
		{"list bytes", uint64(len(w.List)), 0},
		{"BSF bytes", uint64(len(w.BSF)), 0},
		{"pointer byte_count", uint64(w.Pointer.ByteCount), 0},
		{"pointer lkey", uint64(w.Pointer.LKey), 0},
		{"pointer addr", w.Pointer.Addr, 0},
	} {
		if f.got != f.want {
			return &FieldError{Format: format, Field: f.name, Value: f.got, Reason: fmt.Sprintf("a local invalidate has %#x", f.want)}
		}
	}
	for i := range mkcFields {
		f := &mkcFields[i]
		if got, want := f.get(&w.MKC), f.get(&want.MKC); got != want {
			return &FieldError{Format: format, Field: "mkc " + f.Name, Value: got,
				Reason: fmt.Sprintf("a local invalidate's image has %#x (free = 1, all else 0)", want)}
		}
	}
	return nil
}

// ParseLocalInvWQE parses 128 bytes as ParseUMRWQE does, then reports as a
// *FieldError the first field in which the WQE is not a local invalidate;
// its errors name the format "local invalidate WQE".
func ParseLocalInvWQE(b []byte) (LocalInvWQE, error) {
	const format = "local invalidate WQE"
	if len(b) != OctowordSize*localInvDS {
		return LocalInvWQE{}, &SizeError{Format: format, Want: OctowordSize * localInvDS, Got: len(b)}
	}
	if ds := b[7] & MaxDS; ds != localInvDS {
		var e wqeErrs
		w := LocalInvWQE{Ctrl: parseCtrl(&e, format, 0, b)}
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(ds), Reason: "a local invalidate is 8 octowords"})
		return w, e.err(format)
	}
	u, err := parseUMRWQE(b, format)
	return LocalInvWQE{Ctrl: u.Ctrl}, joinErrs(localInvMismatch(&u), err)
}

// sendLayout says which segments follow the control segment of a send
// opcode, and whether SendWQE lays the opcode out at all.
func sendLayout(op Opcode) (raddr, atomic, ok bool) {
	switch op {
	case OpNOP, OpSend, OpSendImm, OpSendInval:
		return false, false, true
	case OpRDMAWrite, OpRDMAWriteImm, OpRDMARead:
		return true, false, true
	case OpAtomicCS, OpAtomicFA:
		return true, true, true
	}
	return false, false, false
}

// SendWQE is a send-queue WQE of the opcodes NOP, SEND, SEND_IMM,
// SEND_INVAL, RDMA_WRITE, RDMA_WRITE_IMM, RDMA_READ, ATOMIC_CS and
// ATOMIC_FA, laid out as the kernel's handle_qpt_rc builds them:
//
//	00h  control segment; Imm is the immediate, or SEND_INVAL's key
//	10h  RDMA and atomic opcodes: the remote address segment
//	20h  atomic opcodes: the atomic segment
//	...  the data segments, one octoword each
//
// and ds counts all of it. RAddr and Atomic are written only for the
// opcodes that carry them and parse as zero for the others. Masked atomics
// (whose argument segment's size depends on the operand size), BIND_MW and
// UMR are not send WQEs here; inline data segments are not modelled.
type SendWQE struct {
	Ctrl   CtrlSeg
	RAddr  RAddrSeg
	Atomic AtomicSeg
	Data   []DataSeg
}

// DS returns the WQE's size in octowords, or a *FieldError for an opcode
// SendWQE does not lay out or more than 63 octowords.
func (w *SendWQE) DS() (uint8, error) {
	raddr, atomic, ok := sendLayout(w.Ctrl.Opcode)
	if !ok {
		return 0, &FieldError{Format: "send WQE", Field: "opcode", Value: uint64(w.Ctrl.Opcode),
			Reason: fmt.Sprintf("%v is not an opcode SendWQE lays out", w.Ctrl.Opcode)}
	}
	ds := 1 + int(b2u(raddr)) + int(b2u(atomic)) + len(w.Data)
	if ds > MaxDS {
		return 0, &FieldError{Format: "send WQE", Field: "ds", Value: uint64(ds), Reason: "more than 63 octowords"}
	}
	return uint8(ds), nil
}

// Put packs w into b[:16 ds], writing the WQE's ds in its control segment
// whatever w.Ctrl holds. It panics if DS reports an error.
func (w *SendWQE) Put(b []byte) {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	b = b[:OctowordSize*int(ds)]
	raddr, atomic, _ := sendLayout(w.Ctrl.Opcode)
	c := w.Ctrl
	c.DS = ds
	c.Put(b)
	off := CtrlSegSize
	if raddr {
		w.RAddr.Put(b[off:])
		off += RAddrSegSize
	}
	if atomic {
		w.Atomic.Put(b[off:])
		off += AtomicSegSize
	}
	for _, d := range w.Data {
		d.Put(b[off:])
		off += DataSegSize
	}
}

// Append appends the WQE to b; it panics if DS reports an error.
func (w *SendWQE) Append(b []byte) []byte {
	ds, err := w.DS()
	if err != nil {
		panic(err)
	}
	n := len(b)
	b = append(b, make([]byte, OctowordSize*int(ds))...)
	w.Put(b[n:])
	return b
}

// ParseSendWQE parses a send WQE of exactly 16 ds bytes, ds read from its
// control segment. An opcode SendWQE does not lay out, a ds too small for
// the opcode's segments and an inline data segment are reported as a
// *FieldError, a reserved fence mode likewise, and set reserved bits as
// one *ReservedBitsError with offsets from the WQE's start; each beside
// the WQE parsed as far as the bytes allow.
func ParseSendWQE(b []byte) (SendWQE, error) {
	const format = "send WQE"
	var w SendWQE
	if len(b) < CtrlSegSize {
		return w, &SizeError{Format: format, Want: CtrlSegSize, Got: len(b)}
	}
	var e wqeErrs
	w.Ctrl = parseCtrl(&e, format, 0, b)
	raddr, atomic, ok := sendLayout(w.Ctrl.Opcode)
	if !ok {
		e.field(&FieldError{Format: format, Field: "opcode", Value: uint64(w.Ctrl.Opcode),
			Reason: fmt.Sprintf("%v is not an opcode SendWQE lays out", w.Ctrl.Opcode)})
		return w, e.err(format)
	}
	fixed := 1 + int(b2u(raddr)) + int(b2u(atomic))
	if int(w.Ctrl.DS) < fixed {
		e.field(&FieldError{Format: format, Field: "ds", Value: uint64(w.Ctrl.DS),
			Reason: fmt.Sprintf("%v needs at least %d octowords", w.Ctrl.Opcode, fixed)})
		return w, e.err(format)
	}
	if n := OctowordSize * int(w.Ctrl.DS); len(b) != n {
		return w, &SizeError{Format: format, Want: n, Got: len(b)}
	}
	off := CtrlSegSize
	if raddr {
		w.RAddr = decodeRAddr(b[off:])
		e.reserved(off, checkReserved(format, b[off:off+RAddrSegSize], raddrReserved[:]))
		off += RAddrSegSize
	}
	if atomic {
		w.Atomic = decodeAtomic(b[off:])
		off += AtomicSegSize
	}
	for i := 0; off < len(b); i, off = i+1, off+DataSegSize {
		d := decodeData(b[off:])
		if d.Inline() {
			e.field(&FieldError{Format: format, Field: fmt.Sprintf("data[%d] byte_count", i), Value: uint64(d.ByteCount),
				Reason: "an inline data segment (bit 31), not modelled"})
		}
		w.Data = append(w.Data, d)
	}
	return w, e.err(format)
}

// wqeErrs gathers the errors of a parse: field errors in order, and the
// reserved bits of every segment with offsets from the start of the whole.
type wqeErrs struct {
	fields []error
	res    []ReservedDword
}

func (e *wqeErrs) field(err error) { e.fields = append(e.fields, err) }

// reserved takes the dwords of a *ReservedBitsError found off bytes in.
func (e *wqeErrs) reserved(off int, err error) {
	var re *ReservedBitsError
	if errors.As(err, &re) {
		for _, d := range re.Dwords {
			e.res = append(e.res, ReservedDword{Offset: off + d.Offset, Bits: d.Bits})
		}
	}
}

// err returns the gathered errors: nil, the only one, or all of them
// joined, field errors first.
func (e *wqeErrs) err(format string) error {
	errs := e.fields
	if e.res != nil {
		errs = append(errs, &ReservedBitsError{Format: format, Dwords: e.res})
	}
	return joinErrs(errs...)
}

// joinErrs is errors.Join that returns a lone error as it is.
func joinErrs(errs ...error) error {
	var n []error
	for _, err := range errs {
		if err != nil {
			n = append(n, err)
		}
	}
	switch len(n) {
	case 0:
		return nil
	case 1:
		return n[0]
	}
	return errors.Join(n...)
}
