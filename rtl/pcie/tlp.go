package pcie

import (
	"errors"
	"fmt"
	"math/bits"

	"mkeysim/prm"
	"mkeysim/rtl/sim"
)

// This file holds every PCIe transaction-layer rule the model relies on,
// each next to the sentence of the base specification it implements, so a
// reader can check them one by one. The wire encoding of headers is in
// tlp_pack.go; the components (Requester, Link, RootComplex) only call the
// helpers here.

// Type is the kind of a TLP: the four kinds the bench moves, and the two
// message kinds of Address Translation Services (the ATS Invalidate
// Request and Completion, both routed by ID), which only the ATS units
// (rtl/atc, rtl/iommu) make.
type Type uint8

const (
	MRd  Type = iota // memory read request: non-posted, no data
	MWr              // memory write request: posted, carries data
	CplD             // completion with data
	Cpl              // completion without data (a read that failed)
	Msg              // message request without data, routed by ID
	MsgD             // message request with data, routed by ID
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
	case Msg:
		return "Msg"
	case MsgD:
		return "MsgD"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Valid reports whether t is one of the types.
func (t Type) Valid() bool { return t < numTypes }

// dataTypes has bit t set for each type t with a data payload.
const dataTypes = 1<<MWr | 1<<CplD | 1<<MsgD

// HasData reports whether TLPs of this type carry a data payload.
func (t Type) HasData() bool { return dataTypes>>t&1 != 0 }

// IsMessage reports whether t is a message request (Msg or MsgD).
func (t Type) IsMessage() bool { return t-Msg <= MsgD-Msg }

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

// AT is the Address Type field of a memory request (header DW0 bits
// 11:10, byte 2 bits 3:2; base specification 2.2.4.1, "Address Type (AT)
// Field Encodings"): 00b Default/Untranslated, 01b Translation Request,
// 10b Translated, 11b Reserved. On every other TLP the field is Reserved.
type AT uint8

const (
	ATUntranslated       AT = 0b00 // the address is untranslated (and the default without ATS)
	ATTranslationRequest AT = 0b01 // an ATS Translation Request (10.2.2): a Memory Read
	ATTranslated         AT = 0b10 // the address was translated through ATS
	atReserved           AT = 0b11
)

func (a AT) String() string {
	switch a {
	case ATUntranslated:
		return "Untranslated"
	case ATTranslationRequest:
		return "TranslationRequest"
	case ATTranslated:
		return "Translated"
	}
	return fmt.Sprintf("AT(%d)", uint8(a))
}

// PASIDPrefix is the PASID End-End TLP Prefix (base specification 6.20.2,
// "PASID TLP Prefix"), held as the prefix DW as it is sent, byte 0 first:
//
//	31:29 Fmt  100b (a TLP Prefix)
//	28:24 Type 1_0001b (End-End, E[3:0] = 0001b: PASID)
//	23    Execute Requested
//	22    Privileged Mode Requested
//	21:20 reserved
//	19:0  PASID
//
// The zero value is no prefix: a TLP without one has Prefix 0, and one
// with it a value from NewPASIDPrefix, whose bit 31 (Fmt[2]) is set. The
// prefix precedes the header on the wire and adds PrefixBytes to the TLP.
type PASIDPrefix uint32

const (
	// PrefixBytes is the size of a TLP prefix: one DW.
	PrefixBytes = 4
	// MaxPASID is the largest PASID: 20 bits.
	MaxPASID = 1<<20 - 1

	prefixFmtType = 0b100_10001 // byte 0: Fmt 100b, Type 1_0001b (End-End, PASID)
	prefixER      = 1 << 23
	prefixPMR     = 1 << 22
	prefixFields  = 0xff<<24 | prefixER | prefixPMR | MaxPASID // all but the reserved bits 21:20
)

// NewPASIDPrefix is the PASID prefix carrying pasid (20 bits; higher bits
// are dropped), Privileged Mode Requested pmr and Execute Requested er.
func NewPASIDPrefix(pasid uint32, pmr, er bool) PASIDPrefix {
	p := PASIDPrefix(prefixFmtType<<24 | pasid&MaxPASID)
	if pmr {
		p |= prefixPMR
	}
	if er {
		p |= prefixER
	}
	return p
}

// Present reports whether the TLP carries a PASID prefix.
func (p PASIDPrefix) Present() bool { return p != 0 }

// PASID is the prefix's PASID (bits 19:0).
func (p PASIDPrefix) PASID() uint32 { return uint32(p) & MaxPASID }

// bytes is the prefix's size on the wire: PrefixBytes for a prefix (bit
// 31 set), 0 for none; without a branch, as it is on the hot path of
// WireBytes.
func (p PASIDPrefix) bytes() int { return int(uint32(p)>>31) * PrefixBytes }

// check reports a prefix that is not a PASID prefix with its reserved
// bits clear.
func (p PASIDPrefix) check() error {
	if uint32(p)>>24 != prefixFmtType || p&^prefixFields != 0 {
		return fieldErr("Prefix", "%#08x is not a PASID prefix (Fmt/Type 100b/1_0001b, bits 21:20 reserved)", uint32(p))
	}
	return nil
}

// PMR is Privileged Mode Requested (bit 22).
func (p PASIDPrefix) PMR() bool { return p&prefixPMR != 0 }

// ER is Execute Requested (bit 23).
func (p PASIDPrefix) ER() bool { return p&prefixER != 0 }

// TLP is one transaction-layer packet. Which fields mean something depends
// on Type:
//
//	field        MRd  MWr  CplD  Cpl  Msg  MsgD
//	RequesterID   x    x    x     x    x    x   bus/device/function of the requester
//	Tag           x    x    x     x    x    x   10 bits; MWr tags are not used;
//	                                            messages: the ITag (Invalidate Request)
//	LengthDW      x    x    x     -    -    x   1..1024 (1024 is 0 on the wire); Cpl, Msg: 0
//	Addr          x    x    -     -    x    x   requests: DW-aligned, bits 1:0 zero, but
//	                                            for a Translation Request bit 0 is NW;
//	                                            messages: header bytes 8 to 15
//	AT            x    x    -     -    -    -   Address Type
//	FirstBE       x    x    -     -    -    -   byte enables of the first DW
//	LastBE        x    x    -     -    -    -   byte enables of the last DW (0 if 1 DW)
//	CompleterID   -    -    x     x    -    -
//	Status        -    -    x     x    -    -   CplD: SC; Cpl: UR or CA
//	ByteCount     -    -    x     x    -    -   1..4096 (4096 is 0 on the wire)
//	LowerAddr     -    -    x     x    -    -   7 bits
//	MsgCode       -    -    -     -    x    x   Message Code
//	RO            x    x    x     x    -    -   Attr[1], Relaxed Ordering
//	Prefix        x    x    (x)  (x)   x    x   the PASID prefix, 0 for none
//	Data          -    x    x     -    -    x   LengthDW*4 bytes, DW-aligned: Data[0]
//	                                            is the byte at the first DW's address
//
// Messages are routed by ID (the only routing the model sends), so header
// bytes 8 and 9 are the destination's ID and bytes 10 to 15 are the
// message's own: Addr holds the 8 bytes as a big-endian number (DestID;
// the ATS messages' accessors in ats.go read the rest).
//
// Fields that do not apply to the Type are ignored by Marshal and left zero
// by Parse. The traffic class (TC) is carried: the device sends its data
// movement on TCData, its ICM reads on TC 0, and a completion carries its
// request's. Of the attributes only Relaxed Ordering (Attr[1], RO) is
// modelled (issue 37: a key's relaxed_ordering_write and _read set it on
// the data path's MWr and MRd TLPs; a completion copies its request's,
// base specification 2.2.9, "the Attr field of a Completion must be the
// same as that of the Request"): it is carried on memory requests and
// completions. No Snoop, ID-Based Ordering, TD/EP and processing hints
// are not modelled: they are sent as zero and ignored on receipt. The
// bench's traffic has AT 0 and no prefix.
type TLP struct {
	Type        Type
	TC          uint8 // traffic class, 0..7: TCData marks the device's data movement
	RO          bool  // Attr[1], Relaxed Ordering (2.2.6.4): memory requests and completions
	RequesterID uint16
	Tag         uint16
	LengthDW    uint16
	Addr        uint64
	FirstBE     uint8
	LastBE      uint8
	CompleterID uint16
	Status      CplStatus
	AT          AT // memory requests: Address Type
	ByteCount   uint16
	LowerAddr   uint8
	MsgCode     uint8       // messages: Message Code
	Prefix      PASIDPrefix // the PASID prefix, 0 for none
	Data        []byte
	// Origin is the model's, not the wire's: whose bytes a data TLP
	// carries, for the testbench's monitors (sim.Origin). Pack, the
	// captures and the waveform leave it out.
	Origin sim.Origin
	// Fault is the model's too: the host's IOMMU refused the request's
	// translation (issue 36), and the root complex answers it (an MRd)
	// with UR.
	Fault bool
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

// HeaderBytes is the header size of a TLP of type t to address addr,
// without prefix: memory requests at or above 4 GB use the 4DW header,
// others 3DW; completions are always 3DW; messages always 4DW (the
// Message Request header of base specification 2.2.8 has 4 DW: Fmt 001b
// for Msg, 011b for MsgD).
func HeaderBytes(t Type, addr uint64) int {
	if t <= MWr && addr >= Addr4GB || t.IsMessage() {
		return Header4DW
	}
	return Header3DW
}

// HeaderBytes is t's header size with its prefix: 12 or 16, and 4 more
// with a PASID prefix.
func (t *TLP) HeaderBytes() int { return HeaderBytes(t.Type, t.Addr) + t.Prefix.bytes() }

// PayloadBytes is the size of t's data payload on the wire: LengthDW*4 for
// MWr, CplD and MsgD, 0 otherwise.
func (t *TLP) PayloadBytes() int {
	if !t.Type.HasData() {
		return 0
	}
	return int(t.LengthDW) * DWBytes
}

// WireBytes is t's size on the link: prefix + header + payload +
// FramingBytes.
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
	if t.Prefix != 0 {
		if err := t.Prefix.check(); err != nil {
			return err
		}
	}
	switch t.Type {
	case MRd, MWr:
		if t.LengthDW < 1 || t.LengthDW > MaxLengthDW {
			return fieldErr("LengthDW", "%d not in 1..1024", t.LengthDW)
		}
		if t.AT > atReserved {
			return fieldErr("AT", "%d does not fit 2 bits", t.AT)
		}
		// A Translation Request's address bit 0 is NW (10.2.2); bit 1
		// is reserved.
		if t.Addr&3 != 0 && (t.AT != ATTranslationRequest || t.Addr&3 != 1) {
			return fieldErr("Addr", "%#x is not DW-aligned", t.Addr)
		}
		if (t.FirstBE | t.LastBE) > 0xf {
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
	case Msg:
		if t.LengthDW != 0 {
			return fieldErr("LengthDW", "%d on a message without data (must be 0)", t.LengthDW)
		}
	case MsgD:
		if t.LengthDW < 1 || t.LengthDW > MaxLengthDW {
			return fieldErr("LengthDW", "%d not in 1..1024", t.LengthDW)
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
//   - a completion with data carries status SC; one without data, UR or CA;
//   - the Address Type of a memory request is 00b, 01b or 10b: "11b
//     Reserved" (2.2.4.1, AT field encodings); AT is a field of memory
//     requests only: on completions and messages the bits are Reserved
//     (set in the TLP, they would be dropped on the wire);
//   - a Translation Request (AT 01b) is a Memory Read: ATS defines the
//     Translation Request as a Memory Read with AT 01b (10.2.2); its
//     Length is 2 DW per translation asked for (the Translation
//     Completion returns an 8-byte entry per translation, 10.2.3), so it
//     is even; its address is an untranslated page, not a memory range,
//     so the 4 KB rule does not apply;
//   - the PASID prefix is permitted on Memory Requests with Untranslated
//     Addresses, Translation Requests and ATS Invalidation Messages, and
//     "not permitted on any other TLP" (6.20.1): not on completions, not
//     on a Translated (AT 10b) request. PASID, PMR and ER exist only in
//     the prefix (the PASIDPrefix type holds the three);
//   - messages: the model's two, routed by ID (Type 1_0010b, r[2:0] =
//     010b, 2.2.8), are the Invalidate Request, a MsgD of Message Code
//     0000_0001b with a 2-DW payload (10.3.1, ATSInvalidateBodySize), and
//     the Invalidate Completion, a Msg of Message Code 0000_0010b (10.3.2);
//     other Message Codes are not modelled.
func (t *TLP) Validate() error {
	if err := t.checkEncodable(); err != nil {
		return err
	}
	if t.AT != ATUntranslated || t.Prefix != 0 {
		if err := t.validateATS(); err != nil {
			return err
		}
	}
	switch t.Type {
	case MRd, MWr:
		ldw := int(t.LengthDW)
		if t.AT != ATTranslationRequest && t.Addr%PageBytes+uint64(ldw*DWBytes) > PageBytes {
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
	case MsgD:
		if t.MsgCode != prm.ATSInvalidateRequestCode {
			return fieldErr("MsgCode", "%#02x on a MsgD: the model's only one is the Invalidate Request (0x01)", t.MsgCode)
		}
		if int(t.LengthDW)*DWBytes != prm.ATSInvalidateBodySize {
			return fieldErr("LengthDW", "%d DW on an Invalidate Request (its payload is 2 DW)", t.LengthDW)
		}
	case Msg:
		if t.MsgCode != prm.ATSInvalidateCompletionCode {
			return fieldErr("MsgCode", "%#02x on a Msg: the model's only one is the Invalidate Completion (0x02)", t.MsgCode)
		}
	}
	return nil
}

// validateATS is Validate's rules of AT and the prefix, out of the way of
// the bench's traffic, which has neither.
func (t *TLP) validateATS() error {
	if t.AT != ATUntranslated && !t.Type.IsRequest() {
		return fieldErr("AT", "%v on a %v: AT is Reserved except on memory requests", t.AT, t.Type)
	}
	if t.Prefix != 0 && (t.Type.IsCompletion() || t.AT == ATTranslated) {
		return fieldErr("Prefix", "a PASID prefix on a %v with AT %v is not permitted", t.Type, t.AT)
	}
	switch t.AT {
	case atReserved:
		return fieldErr("AT", "11b is Reserved")
	case ATTranslationRequest:
		if t.Type != MRd {
			return fieldErr("AT", "a Translation Request (AT 01b) on a %v: it is a Memory Read", t.Type)
		}
		if t.LengthDW%prm.ATSEntryDW != 0 {
			return fieldErr("LengthDW", "%d DW on a Translation Request: 2 DW per translation", t.LengthDW)
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
			Type: CplD, TC: req.TC, RO: req.RO, RequesterID: req.RequesterID, Tag: req.Tag,
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
	return TLP{Type: Cpl, TC: req.TC & 7, RO: req.RO, RequesterID: req.RequesterID, Tag: req.Tag & MaxTag,
		CompleterID: completerID, Status: st, ByteCount: uint16(bc),
		LowerAddr: LowerAddress(req.Addr, req.FirstBE&0xf)}
}

// MSIBase is the host's interrupt window (the x86 MSI address range,
// 0xFEE00000 to 0xFEEFFFFF): a memory write there is an interrupt
// message, which the root complex hands to the CPU and the IOMMU passes
// untranslated (interrupt remapping is not modelled), not a write to
// memory.
const MSIBase = 0xFEE0_0000

// IsMSI reports whether a write to addr is an interrupt message.
func IsMSI(addr uint64) bool { return addr>>20 == MSIBase>>20 }
