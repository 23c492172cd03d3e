package pcie

import (
	"errors"
	"fmt"
	"math/bits"
)

// This file holds every PCIe transaction-layer rule the model relies on,
// each next to the sentence of the base specification it implements, so a
// reader can check them one by one. The wire encoding of headers is in
// tlp_pack.go; the components (Requester, Link, RootComplex) only call the
// helpers here.

// Type is the kind of a TLP. Only the four kinds the model moves exist.
type Type uint8

const (
	MRd  Type = iota // memory read request: non-posted, no data
	MWr              // memory write request: posted, carries data
	CplD             // completion with data
	Cpl              // completion without data (a read that failed)
	numTypes
)

// NumTypes is the number of TLP types, for arrays indexed by Type.
const NumTypes = int(numTypes)

func (t Type) String() string {
	switch t {
	case MRd:
		return "MRd"
	case MWr:
		return "MWr"
	case CplD:
		return "CplD"
	case Cpl:
		return "Cpl"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Valid reports whether t is one of the four types.
func (t Type) Valid() bool { return t < numTypes }

// HasData reports whether TLPs of this type carry a data payload.
func (t Type) HasData() bool { return t == MWr || t == CplD }

// IsRequest reports whether t is a memory request (MRd or MWr).
func (t Type) IsRequest() bool { return t == MRd || t == MWr }

// IsCompletion reports whether t is a completion (CplD or Cpl).
func (t Type) IsCompletion() bool { return t == CplD || t == Cpl }

// CplStatus is a completion's status; the constants are the wire values of
// the 3-bit Completion Status field.
type CplStatus uint8

const (
	SC CplStatus = 0 // successful completion
	UR CplStatus = 1 // unsupported request
	CA CplStatus = 4 // completer abort
)

func (s CplStatus) String() string {
	switch s {
	case SC:
		return "SC"
	case UR:
		return "UR"
	case CA:
		return "CA"
	}
	return fmt.Sprintf("CplStatus(%d)", uint8(s))
}

// Valid reports whether s is SC, UR or CA.
func (s CplStatus) Valid() bool { return s == SC || s == UR || s == CA }

// TLP is one transaction-layer packet. Which fields mean something depends
// on Type:
//
//	field        MRd  MWr  CplD  Cpl
//	RequesterID   x    x    x     x   bus/device/function of the requester
//	Tag           x    x    x     x   10 bits; MWr tags are not used
//	LengthDW      x    x    x     -   1..1024 (1024 is 0 on the wire); Cpl: 0
//	Addr          x    x    -     -   DW-aligned: bits 1:0 are zero
//	FirstBE       x    x    -     -   byte enables of the first DW
//	LastBE        x    x    -     -   byte enables of the last DW (0 if 1 DW)
//	CompleterID   -    -    x     x
//	Status        -    -    x     x   CplD: SC; Cpl: UR or CA
//	ByteCount     -    -    x     x   1..4096 (4096 is 0 on the wire)
//	LowerAddr     -    -    x     x   7 bits
//	Data          -    x    x     -   LengthDW*4 bytes, DW-aligned: Data[0]
//	                                  is the byte at the first DW's address
//
// Fields that do not apply to the Type are ignored by Marshal and left zero
// by Parse. The traffic class (TC) is carried: the device sends its data
// movement on TCData, its ICM reads on TC 0, and a completion carries its
// request's. Attributes, TD/EP, AT and processing hints are not modelled:
// they are sent as zero and ignored on receipt.
type TLP struct {
	Type        Type
	TC          uint8 // traffic class, 0..7: TCData marks the device's data movement
	RequesterID uint16
	Tag         uint16
	LengthDW    uint16
	Addr        uint64
	FirstBE     uint8
	LastBE      uint8
	CompleterID uint16
	Status      CplStatus
	ByteCount   uint16
	LowerAddr   uint8
	Data        []byte
}

// Sizes and limits of the base specification.
const (
	DWBytes      = 4    // one DW
	PageBytes    = 4096 // a request must not cross a 4 KB boundary
	MaxLengthDW  = 1024 // Length field: 10 bits, 0 means 1024
	MaxByteCount = 4096 // Byte Count field: 12 bits, 0 means 4096
	MaxTag       = 1023 // 10-bit tags
	Header3DW    = 12   // header bytes, 32-bit address and all completions
	Header4DW    = 16   // header bytes, 64-bit address

	// FramingBytes is what the data link and physical layers add to every
	// TLP on the wire: at 8 GT/s and above a 4-byte STP token (which
	// carries the 12-bit sequence number) and the 4-byte LCRC; at 2.5 and
	// 5 GT/s STP (1) + sequence number (2) + LCRC (4) + END (1). Both are 8.
	// No ECRC (TD=0). DLLPs (Ack, flow-control updates), SKP ordered sets
	// and 8b/10b or 128b/130b line coding are not modelled per TLP: fold
	// them into the link's BytesPerCycle.
	FramingBytes = 8

	// Addr4GB is the first address that needs a 4DW (64-bit) header:
	// "for addresses below 4 GB, Requesters must use the 32-bit format".
	Addr4GB = uint64(1) << 32
)

// HeaderBytes is the header size of a TLP of type t to address addr:
// memory requests at or above 4 GB use the 4DW header, all others 3DW;
// completions are always 3DW.
func HeaderBytes(t Type, addr uint64) int {
	if t.IsRequest() && addr >= Addr4GB {
		return Header4DW
	}
	return Header3DW
}

// HeaderBytes is t's header size (12 or 16).
func (t *TLP) HeaderBytes() int { return HeaderBytes(t.Type, t.Addr) }

// PayloadBytes is the size of t's data payload on the wire: LengthDW*4 for
// MWr and CplD, 0 otherwise.
func (t *TLP) PayloadBytes() int {
	if !t.Type.HasData() {
		return 0
	}
	return int(t.LengthDW) * DWBytes
}

// WireBytes is t's size on the link: header + payload + FramingBytes.
func (t *TLP) WireBytes() int { return t.HeaderBytes() + t.PayloadBytes() + FramingBytes }

// ---------------------------------------------------------------------
// Byte enables, length and byte count.

// LengthDW is the Length of the request covering exactly the n bytes at
// addr: the number of DWs from the DW holding addr to the DW holding
// addr+n-1. It is 0 for n < 1.
func LengthDW(addr uint64, n int) int {
	if n < 1 {
		return 0
	}
	first := addr &^ 3
	last := (addr + uint64(n) - 1) &^ 3
	return int((last-first)/DWBytes) + 1
}

// ByteEnables are the First and Last DW BE of the request covering exactly
// the n bytes at addr (n >= 1): the first DW enables the bytes from addr's
// offset in its DW on; the last DW enables the bytes up to and including
// addr+n-1; "if the Length is 1 DW, Last DW BE must be 0000b" and the one
// DW's enables are First DW BE.
func ByteEnables(addr uint64, n int) (first, last uint8) {
	if n < 1 {
		return 0, 0
	}
	firstPad := uint(addr & 3)                // bytes before addr in its DW
	lastPad := uint(3 - (addr+uint64(n)-1)&3) // bytes after the end in its DW
	first = (0xf << firstPad) & 0xf
	last = 0xf >> lastPad
	if LengthDW(addr, n) == 1 {
		return first & last, 0
	}
	return first, last
}

// FirstByteOffset is the offset in the first DW of the first enabled byte
// (0 when no byte is enabled).
func FirstByteOffset(firstBE uint8) int {
	if firstBE&0xf == 0 {
		return 0
	}
	return bits.TrailingZeros8(firstBE)
}

// lastBytePad is the number of bytes after the last enabled byte of a DW.
func lastBytePad(be uint8) int {
	be &= 0xf
	if be == 0 {
		return 0
	}
	return bits.LeadingZeros8(be) - 4
}

// EnabledBytes is the byte count a completer reports for a read of
// lengthDW DWs with the given byte enables (the base specification's table
// "Calculating Byte Count from Length and Byte Enables"): for 1 DW, the
// span from the first to the last enabled byte, and 1 if none is enabled
// (a zero-length read); for more DWs, Length*4 minus the bytes before the
// first enabled byte of the first DW and after the last enabled byte of the
// last DW.
func EnabledBytes(lengthDW int, firstBE, lastBE uint8) int {
	if lengthDW <= 1 {
		if firstBE&0xf == 0 {
			return 1
		}
		return 4 - FirstByteOffset(firstBE) - lastBytePad(firstBE)
	}
	return lengthDW*DWBytes - FirstByteOffset(firstBE) - lastBytePad(lastBE)
}

// LowerAddress is the Lower Address field of the first completion of a
// read: bits 6:2 of the request's address and the offset given by First DW
// BE in bits 1:0.
func LowerAddress(addr uint64, firstBE uint8) uint8 {
	return uint8(addr&0x7c) | uint8(FirstByteOffset(firstBE))
}

// contiguousFirst reports whether a first DW BE enables a contiguous run up
// to byte 3 (1111, 1110, 1100, 1000); contiguousLast, a run from byte 0.
func contiguousFirst(be uint8) bool {
	be &= 0xf
	return be != 0 && be>>bits.TrailingZeros8(be) == 0xf>>bits.TrailingZeros8(be)
}

func contiguousLast(be uint8) bool {
	be &= 0xf
	return be != 0 && be&(be+1) == 0
}

// NewRead returns the MRd for exactly the n bytes at addr (n >= 1, not
// crossing a 4 KB boundary; check with Validate).
func NewRead(requesterID, tag uint16, addr uint64, n int) TLP {
	first, last := ByteEnables(addr, n)
	return TLP{Type: MRd, RequesterID: requesterID, Tag: tag,
		LengthDW: uint16(LengthDW(addr, n)), Addr: addr &^ 3, FirstBE: first, LastBE: last}
}

// NewWrite returns the MWr of data at addr: Data is padded to whole DWs
// and the byte enables select exactly data's bytes.
func NewWrite(requesterID uint16, addr uint64, data []byte) TLP {
	n := len(data)
	first, last := ByteEnables(addr, n)
	ldw := LengthDW(addr, n)
	buf := make([]byte, ldw*DWBytes)
	copy(buf[addr&3:], data)
	return TLP{Type: MWr, RequesterID: requesterID, LengthDW: uint16(ldw),
		Addr: addr &^ 3, FirstBE: first, LastBE: last, Data: buf}
}

// ---------------------------------------------------------------------
// Validation: the protocol rules a receiver checks.

// FieldError is a TLP that breaks a rule; Field names the field.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return "pcie: TLP " + e.Field + ": " + e.Msg }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ErrShort is returned by Parse for input shorter than the header or the
// payload its Length announces.
var ErrShort = errors.New("pcie: TLP truncated")

// checkEncodable checks what the wire format can hold: field widths, data
// length against LengthDW, DW-aligned address.
func (t *TLP) checkEncodable() error {
	if !t.Type.Valid() {
		return fieldErr("Type", "unknown type %d", t.Type)
	}
	if t.Tag > MaxTag {
		return fieldErr("Tag", "%d does not fit 10 bits", t.Tag)
	}
	switch t.Type {
	case MRd, MWr:
		if t.LengthDW < 1 || t.LengthDW > MaxLengthDW {
			return fieldErr("LengthDW", "%d not in 1..1024", t.LengthDW)
		}
		if t.Addr&3 != 0 {
			return fieldErr("Addr", "%#x is not DW-aligned", t.Addr)
		}
		if t.FirstBE > 0xf || t.LastBE > 0xf {
			return fieldErr("FirstBE/LastBE", "%#x/%#x do not fit 4 bits", t.FirstBE, t.LastBE)
		}
	case CplD, Cpl:
		if t.Type == CplD && (t.LengthDW < 1 || t.LengthDW > MaxLengthDW) {
			return fieldErr("LengthDW", "%d not in 1..1024", t.LengthDW)
		}
		if t.Type == Cpl && t.LengthDW != 0 {
			return fieldErr("LengthDW", "%d on a completion without data (must be 0)", t.LengthDW)
		}
		if !t.Status.Valid() {
			return fieldErr("Status", "%d is not SC, UR or CA", t.Status)
		}
		if t.ByteCount < 1 || t.ByteCount > MaxByteCount {
			return fieldErr("ByteCount", "%d not in 1..4096", t.ByteCount)
		}
		if t.LowerAddr > 0x7f {
			return fieldErr("LowerAddr", "%#x does not fit 7 bits", t.LowerAddr)
		}
	}
	if want := t.PayloadBytes(); len(t.Data) != want {
		return fieldErr("Data", "%d bytes, Length says %d", len(t.Data), want)
	}
	return nil
}

// Validate checks t against the rules of the base specification that the
// model relies on; a RootComplex answers a read that fails them with UR:
//
//   - everything the wire format must hold (see Marshal);
//   - a memory request must not cross a 4 KB boundary: "Requests must not
//     specify an Address/Length combination which causes a Memory Space
//     access to cross a 4-KB boundary";
//   - Length 1 DW: Last DW BE must be 0000b;
//   - Length > 1 DW: neither First nor Last DW BE may be 0000b;
//   - Length >= 3 DW, or 2 DW not QW-aligned: the byte enables must be
//     contiguous (first 1111/1110/1100/1000, last 0001/0011/0111/1111);
//   - a completion with data carries status SC; one without data, UR or CA.
func (t *TLP) Validate() error {
	if err := t.checkEncodable(); err != nil {
		return err
	}
	switch t.Type {
	case MRd, MWr:
		ldw := int(t.LengthDW)
		if t.Addr%PageBytes+uint64(ldw*DWBytes) > PageBytes {
			return fieldErr("Addr/LengthDW", "%#x + %d DW crosses a 4 KB boundary", t.Addr, ldw)
		}
		if ldw == 1 {
			if t.LastBE != 0 {
				return fieldErr("LastBE", "%#x with Length 1 DW (must be 0)", t.LastBE)
			}
			return nil
		}
		if t.FirstBE == 0 || t.LastBE == 0 {
			return fieldErr("FirstBE/LastBE", "zero with Length %d DW", ldw)
		}
		if ldw >= 3 || t.Addr&7 != 0 {
			if !contiguousFirst(t.FirstBE) || !contiguousLast(t.LastBE) {
				return fieldErr("FirstBE/LastBE", "%#x/%#x not contiguous", t.FirstBE, t.LastBE)
			}
		}
	case CplD:
		if t.Status != SC {
			return fieldErr("Status", "%v on a completion with data", t.Status)
		}
	case Cpl:
		if t.Status == SC {
			return fieldErr("Status", "SC on a read completion without data")
		}
	}
	return nil
}

// ---------------------------------------------------------------------
// Splitting reads into requests.

// Span is a contiguous byte range: one read request's share of a read.
type Span struct {
	Addr uint64
	Len  int
}

// FirstSpan is the length of the first request of a read of n bytes at
// addr with max read request size mrrs (a power of two, 128..4096):
//
//   - "a request must not cross a 4 KB boundary": it ends at or before the
//     next multiple of 4096;
//   - "Length must not exceed Max_Read_Request_Size": it ends at or before
//     the next multiple of mrrs. A request that starts and ends inside one
//     mrrs-aligned block spans at most mrrs bytes of whole DWs, even from an
//     unaligned start, and later requests start mrrs-aligned (as DMA
//     engines issue them, so every later request is a full, aligned one).
//
// It returns 0 for n < 1 or mrrs < 4.
func FirstSpan(addr uint64, n int, mrrs int) int {
	if n < 1 || mrrs < DWBytes {
		return 0
	}
	end := addr + uint64(n)
	if pageEnd := addr - addr%PageBytes + PageBytes; pageEnd < end {
		end = pageEnd
	}
	m := uint64(mrrs)
	if blockEnd := addr - addr%m + m; blockEnd < end {
		end = blockEnd
	}
	return int(end - addr)
}

// SplitRead splits a read of n bytes at addr into the requests a requester
// issues, in address order (see FirstSpan for the rules).
func SplitRead(addr uint64, n int, mrrs int) []Span {
	var out []Span
	for n > 0 {
		l := FirstSpan(addr, n, mrrs)
		if l == 0 {
			break
		}
		out = append(out, Span{Addr: addr, Len: l})
		addr += uint64(l)
		n -= l
	}
	return out
}

// ---------------------------------------------------------------------
// Splitting a read's answer into completions.

// CompletionDW is the Length of the next completion of a read whose
// remaining data starts at the DW address dwAddr with dwLeft DWs left:
//
//   - "a completion must not carry more than Max_Payload_Size": at most mps
//     bytes;
//   - a read may be answered by several completions, and each one but the
//     last "must end on a naturally aligned Read Completion Boundary": a
//     completion that does not carry the rest ends at the last multiple of
//     rcb within mps bytes of its start (so after an unaligned start every
//     completion but the last starts and ends on RCB boundaries).
//
// Passing mps = rcb gives a completer that splits on every RCB, as many
// root complexes do with 64-byte cache lines.
func CompletionDW(dwAddr uint64, dwLeft int, rcb, mps int) int {
	if dwLeft*DWBytes <= mps {
		return dwLeft
	}
	end := dwAddr + uint64(mps)
	end -= end % uint64(rcb)
	if end <= dwAddr { // only when mps < rcb, which the config forbids
		end = dwAddr + uint64(mps)
	}
	return int(end-dwAddr) / DWBytes
}

// SplitCompletion returns the completions that answer the read req, in the
// order they are sent (address order, as required for the completions of
// one request): each a CplD with status SC, req's RequesterID and Tag,
// Length from CompletionDW, and
//
//   - ByteCount: the bytes still to be returned, this completion included;
//     the first carries EnabledBytes of the request;
//   - LowerAddr: bits 6:0 of the byte address of the completion's first
//     returned byte (for the first, LowerAddress(req.Addr, req.FirstBE));
//   - Data: LengthDW*4 zero bytes for the caller to fill from the DW
//     address req.Addr plus the lengths of the completions before it.
//
// CompleterID is left zero. req must be a valid MRd (see Validate).
func SplitCompletion(req TLP, rcb int, mps int) []TLP {
	return appendCompletions(nil, req, rcb, mps, func(n int) []byte { return make([]byte, n) })
}

// appendCompletions is SplitCompletion appending to out, the data buffers
// made by alloc.
func appendCompletions(out []TLP, req TLP, rcb int, mps int, alloc func(int) []byte) []TLP {
	ldw := int(req.LengthDW)
	remaining := EnabledBytes(ldw, req.FirstBE, req.LastBE)
	addr := req.Addr + uint64(FirstByteOffset(req.FirstBE)) // first byte returned
	dwAddr := req.Addr
	for ldw > 0 {
		n := CompletionDW(dwAddr, ldw, rcb, mps)
		out = append(out, TLP{
			Type: CplD, TC: req.TC, RequesterID: req.RequesterID, Tag: req.Tag,
			LengthDW: uint16(n), Status: SC,
			ByteCount: uint16(remaining), LowerAddr: uint8(addr & 0x7f),
			Data: alloc(n * DWBytes),
		})
		got := n*DWBytes - int(addr&3) // bytes of the read in this completion
		remaining -= got
		addr += uint64(got)
		dwAddr += uint64(n * DWBytes)
		ldw -= n
	}
	return out
}

// ErrorCompletion returns the completion without data that ends req with
// status st (UR or CA): ByteCount is the request's byte count when its
// Length and byte enables make sense, else 4, and LowerAddr that of the
// first completion it replaces.
func ErrorCompletion(req TLP, completerID uint16, st CplStatus) TLP {
	bc := 4
	if req.LengthDW >= 1 && req.LengthDW <= MaxLengthDW {
		bc = EnabledBytes(int(req.LengthDW), req.FirstBE, req.LastBE)
	}
	return TLP{Type: Cpl, TC: req.TC & 7, RequesterID: req.RequesterID, Tag: req.Tag & MaxTag,
		CompleterID: completerID, Status: st, ByteCount: uint16(bc),
		LowerAddr: LowerAddress(req.Addr, req.FirstBE&0xf)}
}
