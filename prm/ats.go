package prm

import (
	"fmt"
	"math/bits"
)

// The PCIe Address Translation Services formats whose layout is fixed
// (PCI Express Base Specification, chapter 10), one field table each:
//
//   - the Translation Completion Data Entry, 8 bytes of a CplD's payload
//     per translation (10.2.3);
//   - the address dwords of a Translation Request, a 64-bit Memory Read
//     header with AT = 01b whose address carries the No Write flag
//     (10.2.2);
//   - the Invalidate Request message: its 8-byte payload (10.3.1) and the
//     message-specific dwords of its header (ITag, Device ID);
//   - the Invalidate Completion message, which has no payload: the
//     message-specific dwords of its header (Completion Count, ITag
//     Vector) (10.3.2).
//
// What is the TLP's and not the format's stays in rtl/pcie's TLP: Fmt and
// Type (Memory Read; Msg or MsgD routed by ID), TC, Attr, AT, Length and
// the rest of header dword 0. The header tables below describe header
// bytes 4 to 15, the dwords after dword 0, and their offsets count from
// header byte 4 (ATSMsgHeaderTailOffset).
//
// The layouts are those of the Base Specification 4.0 and 5.0. Later
// revisions and companion specifications give some of the completion
// entry's reserved bits 6:3 a meaning (ATS Memory Attributes, CXL's
// CXL.io bit); here they stay reserved, and parsing reports them set.

// ATS sizes and constants.
const (
	// ATSPageShift is log2 of the smallest translation, 4096 bytes; the
	// addresses of the ATS formats carry bits 63:12 only.
	ATSPageShift = 12
	// ATSPageSize is the smallest range a translation or an invalidation
	// covers.
	ATSPageSize = 1 << ATSPageShift
	// ATSMaxRangeLog2 is log2 of the largest range the S encoding names:
	// the whole 64-bit address space (the invalidate-all request).
	ATSMaxRangeLog2 = 64

	// ATSCompletionEntrySize is the size of a Translation Completion
	// Data Entry: 2 DW of the CplD's payload per translation.
	ATSCompletionEntrySize = 8
	// ATSEntryDW is the completion entry's size in DW: a Translation
	// Request's Length is ATSEntryDW times the translations it asks for.
	ATSEntryDW = ATSCompletionEntrySize / 4
	// ATSMaxTranslations is the most translations one request can ask
	// for: a Length of 1024 DW (the Read Completion Boundary limits a
	// real request to far fewer).
	ATSMaxTranslations = 1024 / ATSEntryDW

	// ATSTranslationRequestAddrSize is the size of a Translation
	// Request's address dwords, header bytes 8 to 15 of its 4DW header.
	ATSTranslationRequestAddrSize = 8

	// ATSInvalidateBodySize is the size of the Invalidate Request's
	// payload (its Length is 2 DW).
	ATSInvalidateBodySize = 8

	// ATSMsgHeaderTailOffset is the header byte the message header
	// tables start at: they describe header dwords 1 to 3.
	ATSMsgHeaderTailOffset = 4
	// ATSMsgHeaderTailSize is the size of the message header tables.
	ATSMsgHeaderTailSize = 12

	// ATSInvalidateRequestCode and ATSInvalidateCompletionCode are the
	// Message Codes of the two messages (both routed by ID).
	ATSInvalidateRequestCode    = 0x01
	ATSInvalidateCompletionCode = 0x02

	// ATSMaxITag is the largest ITag: a translation agent has 32 ITags,
	// one bit each in an Invalidate Completion's ITag Vector.
	ATSMaxITag = 31
	// ATSMaxCompletionCount is the Completion Count a CC field of 0
	// stands for.
	ATSMaxCompletionCount = 8
)

// ATSRange is a naturally aligned range of 2^Log2 bytes at Base, as a
// translation or an invalidation covers: Log2 is ATSPageShift to
// ATSMaxRangeLog2 and Base is a multiple of the size.
type ATSRange struct {
	Base uint64
	Log2 uint8
}

// ATSRangeOf is the range of size bytes at base. It fails unless size is
// a power of two of at least ATSPageSize and base a multiple of it.
func ATSRangeOf(base, size uint64) (ATSRange, error) {
	if size < ATSPageSize || size&(size-1) != 0 {
		return ATSRange{}, fmt.Errorf("ATS range: size %#x is not a power of two of at least 4 KiB", size)
	}
	r := ATSRange{Base: base, Log2: uint8(bits.TrailingZeros64(size))}
	return r, r.check()
}

func (r ATSRange) check() error {
	if r.Log2 < ATSPageShift || r.Log2 > ATSMaxRangeLog2 {
		return fmt.Errorf("ATS range: 2^%d bytes is not a range size (2^12 to 2^64)", r.Log2)
	}
	if r.Base&r.mask() != 0 {
		return fmt.Errorf("ATS range: base %#x is not aligned to 2^%d bytes", r.Base, r.Log2)
	}
	return nil
}

// mask is the offset bits of the range: Size-1, all ones for 2^64.
func (r ATSRange) mask() uint64 {
	if r.Log2 >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<r.Log2 - 1
}

// Size is the range's size in bytes, or 0 for the whole address space
// (2^64 bytes).
func (r ATSRange) Size() uint64 {
	if r.Log2 >= 64 {
		return 0
	}
	return uint64(1) << r.Log2
}

// Last is the range's last byte address.
func (r ATSRange) Last() uint64 { return r.Base | r.mask() }

// Contains reports whether address a lies in the range.
func (r ATSRange) Contains(a uint64) bool { return a&^r.mask() == r.Base }

// Overlaps reports whether the ranges share a byte; two naturally
// aligned ranges overlap only if one holds the other.
func (r ATSRange) Overlaps(o ATSRange) bool { return r.Contains(o.Base) || o.Contains(r.Base) }

// EncodeATSRange is the address and S bit that name range r in a
// Translation Completion Data Entry or an Invalidate Request (10.2.3.2):
// S = 0 for 4 KiB; otherwise S = 1 and, above bit 11, the address bits
// below the range's size are ones but the highest of them, which is 0, so
// that the lowest clear bit above bit 11 is bit Log2-1. Bits 11:0 of the
// address are 0. It fails on a range that is not one (ATSRange).
func EncodeATSRange(r ATSRange) (addr uint64, s bool, err error) {
	if err := r.check(); err != nil {
		return 0, false, err
	}
	if r.Log2 == ATSPageShift {
		return r.Base, false, nil
	}
	return r.Base | (uint64(1)<<(r.Log2-1)-1)&^(ATSPageSize-1), true, nil
}

// DecodeATSRange is the range that address bits 63:12 and the S bit name
// (10.2.3.2): 4 KiB at addr with S = 0; with S = 1, 2^(k+1) bytes where k
// is the lowest clear bit of addr above bit 11, the base being addr with
// bits k:0 cleared. Bits 11:0 of addr are ignored. ok is false for S = 1
// and bits 63:12 all ones, which name no range.
func DecodeATSRange(addr uint64, s bool) (r ATSRange, ok bool) {
	addr &^= ATSPageSize - 1
	if !s {
		return ATSRange{Base: addr, Log2: ATSPageShift}, true
	}
	ones := bits.TrailingZeros64(^(addr >> ATSPageShift))
	if ones >= 64-ATSPageShift {
		return ATSRange{}, false
	}
	r.Log2 = uint8(ATSPageShift + ones + 1)
	r.Base = addr &^ r.mask()
	return r, true
}

// RangeAddr is an address whose S bit says how large a range it names
// (10.2.3.2): the translated range of a completion entry, the
// untranslated range of an invalidate request. Addr holds bits 63:12.
type RangeAddr struct {
	Addr uint64
	// S (Size): clear, the range is 4 KiB; set, larger, its size encoded
	// in Addr (DecodeATSRange).
	S bool
}

// Range is the range the address names; ok is false if S and the address
// name none (DecodeATSRange).
func (a RangeAddr) Range() (r ATSRange, ok bool) { return DecodeATSRange(a.Addr, a.S) }

// SetRange sets Addr and S to name r; it leaves them as they were when r
// is not a range the S bit can name.
func (a *RangeAddr) SetRange(r ATSRange) error {
	addr, s, err := EncodeATSRange(r)
	if err == nil {
		a.Addr, a.S = addr, s
	}
	return err
}

// ATSCompletionEntry is a Translation Completion Data Entry (10.2.3): one
// translation of a successful Translation Completion, 2 DW of the CplD's
// payload. Addr is Translated Address[63:12] (bits 11:0 have no place in
// the entry); with S set its low bits also encode the range size, so read
// it through Range. A translation with R and W both 0 grants no access.
type ATSCompletionEntry struct {
	// RangeAddr is the Translated Address (bits 11:0 not stored) and S
	// (Translation Range Size): the translated range.
	RangeAddr
	// N (Non-snooped): requests through the translation may set No Snoop.
	N bool
	// Global (Global Mapping): the translation holds for every PASID.
	Global bool
	// Priv (Privileged Mode Access): R, W and Exe are the privileged
	// entity's rights.
	Priv bool
	// Exe (Execute Permitted).
	Exe bool
	// U (Untranslated Access Only): the range must be reached with
	// untranslated addresses.
	U bool
	// W (Write) and R (Read): the accesses the translation permits.
	W bool
	R bool
}

// ATSCompletionEntryLayout is the Translation Completion Data Entry's
// field table (10.2.3): 04h 6:3 reserved.
var ATSCompletionEntryLayout = newLayout("ATS translation completion entry", "ats_tc_entry",
	"PCI Express Base Specification 10.2.3", ATSCompletionEntrySize,
	shifted("translated_addr", ATSPageShift, func(e *ATSCompletionEntry) *uint64 { return &e.Addr }, dw(0x00), r(0x04, 31, 12)).
		spec("Translated Address[63:12] (00h 31:0 [63:32], 04h 31:12 [31:12])"),
	flag("s", 0x04, 11, func(e *ATSCompletionEntry) *bool { return &e.S }),
	flag("n", 0x04, 10, func(e *ATSCompletionEntry) *bool { return &e.N }),
	flag("global", 0x04, 9, func(e *ATSCompletionEntry) *bool { return &e.Global }),
	flag("priv", 0x04, 8, func(e *ATSCompletionEntry) *bool { return &e.Priv }),
	flag("exe", 0x04, 7, func(e *ATSCompletionEntry) *bool { return &e.Exe }),
	flag("u", 0x04, 2, func(e *ATSCompletionEntry) *bool { return &e.U }),
	flag("w", 0x04, 1, func(e *ATSCompletionEntry) *bool { return &e.W }),
	flag("r", 0x04, 0, func(e *ATSCompletionEntry) *bool { return &e.R }),
)

// Put packs e into b[:8].
func (e ATSCompletionEntry) Put(b []byte) { ATSCompletionEntryLayout.Put(b, &e) }

// Append appends the 8-byte entry to b.
func (e ATSCompletionEntry) Append(b []byte) []byte {
	return appendPut(b, ATSCompletionEntrySize, e)
}

// ParseATSCompletionEntry parses 8 bytes; set reserved bits (04h 6:3) are
// reported as a *ReservedBitsError beside the parsed entry.
func ParseATSCompletionEntry(b []byte) (ATSCompletionEntry, error) {
	return ATSCompletionEntryLayout.Parse(b)
}

// Translate maps untranslated address a through the entry: the offset of
// a in a range of the entry's size, added to the translated base. ok is
// false if the entry names no range.
func (e ATSCompletionEntry) Translate(a uint64) (uint64, bool) {
	r, ok := e.Range()
	if !ok {
		return 0, false
	}
	return r.Base | a&r.mask(), true
}

// ATSTranslationRequestAddr is the address of a Translation Request
// (10.2.2): header bytes 8 to 15 of a 4DW Memory Read with AT = 01b
// (in a 3DW header, for an address below 4 GiB, the second dword alone
// is header bytes 8 to 11). Addr is the Untranslated Address, bits 11:0
// not stored; NW (No Write) asks for a read-only translation. The
// request's Length is ATSEntryDW per translation asked for
// (ATSTranslationRequestLengthDW).
type ATSTranslationRequestAddr struct {
	Addr uint64
	NW   bool
}

// ATSTranslationRequestAddrLayout is the Translation Request address's
// field table (10.2.2): 04h 11:1 reserved.
var ATSTranslationRequestAddrLayout = newLayout("ATS translation request address", "ats_tr_addr",
	"PCI Express Base Specification 10.2.2", ATSTranslationRequestAddrSize,
	shifted("untranslated_addr", ATSPageShift, func(a *ATSTranslationRequestAddr) *uint64 { return &a.Addr }, dw(0x00), r(0x04, 31, 12)).
		spec("Untranslated Address[63:12] (header 08h 31:0 [63:32], 0Ch 31:12 [31:12])"),
	flag("nw", 0x04, 0, func(a *ATSTranslationRequestAddr) *bool { return &a.NW }),
)

// Put packs a into b[:8].
func (a ATSTranslationRequestAddr) Put(b []byte) { ATSTranslationRequestAddrLayout.Put(b, &a) }

// Append appends the 8 bytes to b.
func (a ATSTranslationRequestAddr) Append(b []byte) []byte {
	return appendPut(b, ATSTranslationRequestAddrSize, a)
}

// ParseATSTranslationRequestAddr parses 8 bytes; set reserved bits
// (04h 11:1) are reported as a *ReservedBitsError beside the value.
func ParseATSTranslationRequestAddr(b []byte) (ATSTranslationRequestAddr, error) {
	return ATSTranslationRequestAddrLayout.Parse(b)
}

// ATSTranslationRequestLengthDW is the Length of a Translation Request
// asking for n translations (10.2.2, 10.2.4): 2 DW each, 1 to
// ATSMaxTranslations of them.
func ATSTranslationRequestLengthDW(n int) (uint16, error) {
	if n < 1 || n > ATSMaxTranslations {
		return 0, fmt.Errorf("ATS translation request: %d translations, want 1 to %d", n, ATSMaxTranslations)
	}
	return uint16(n * ATSEntryDW), nil
}

// ATSTranslations is the number of translations a Length of lengthDW
// asks for (a request) or carries (a CplD); it fails on a Length that is
// not a positive multiple of 2 DW.
func ATSTranslations(lengthDW int) (int, error) {
	if lengthDW < ATSEntryDW || lengthDW > 1024 || lengthDW%ATSEntryDW != 0 {
		return 0, fmt.Errorf("ATS: Length %d DW is not a whole number of translations", lengthDW)
	}
	return lengthDW / ATSEntryDW, nil
}

// ATSInvalidateBody is the payload of an Invalidate Request message
// (10.3.1): the untranslated range to invalidate, encoded as a completion
// entry's (Addr and S, through Range and SetRange), and Global
// Invalidate. Addr is Untranslated Address[63:12], bits 11:0 not stored.
// The header carries the rest (ATSInvalidateRequestHeader).
type ATSInvalidateBody struct {
	// RangeAddr is the Untranslated Address (bits 11:0 not stored) and
	// S: the range to invalidate.
	RangeAddr
	// Global (Global Invalidate): the request is for every PASID; it
	// comes with a PASID and only to a Function that supports it.
	Global bool
}

// ATSInvalidateBodyLayout is the Invalidate Request payload's field table
// (10.3.1): 04h 10:1 reserved.
var ATSInvalidateBodyLayout = newLayout("ATS invalidate request body", "ats_inv_req_body",
	"PCI Express Base Specification 10.3.1", ATSInvalidateBodySize,
	shifted("untranslated_addr", ATSPageShift, func(v *ATSInvalidateBody) *uint64 { return &v.Addr }, dw(0x00), r(0x04, 31, 12)).
		spec("Untranslated Address[63:12] (00h 31:0 [63:32], 04h 31:12 [31:12])"),
	flag("s", 0x04, 11, func(v *ATSInvalidateBody) *bool { return &v.S }),
	flag("global_invalidate", 0x04, 0, func(v *ATSInvalidateBody) *bool { return &v.Global }),
)

// Put packs v into b[:8].
func (v ATSInvalidateBody) Put(b []byte) { ATSInvalidateBodyLayout.Put(b, &v) }

// Append appends the 8-byte payload to b.
func (v ATSInvalidateBody) Append(b []byte) []byte {
	return appendPut(b, ATSInvalidateBodySize, v)
}

// ParseATSInvalidateBody parses 8 bytes; set reserved bits (04h 10:1) are
// reported as a *ReservedBitsError beside the value.
func ParseATSInvalidateBody(b []byte) (ATSInvalidateBody, error) {
	return ATSInvalidateBodyLayout.Parse(b)
}

// ATSInvalidateAll is the payload that invalidates every translation:
// the 2^64-byte range.
func ATSInvalidateAll() ATSInvalidateBody {
	var v ATSInvalidateBody
	_ = v.SetRange(ATSRange{Log2: ATSMaxRangeLog2})
	return v
}

// ATSInvalidateRequestHeader is header dwords 1 to 3 of an Invalidate
// Request (10.3.1), a MsgD routed by ID with a Length of 2 DW (dword 0 is
// rtl/pcie's TLP). Offsets in its table count from header byte 4.
type ATSInvalidateRequestHeader struct {
	// RequesterID is the translation agent's (the Root Port's) ID.
	RequesterID uint16
	// ITag (0 to ATSMaxITag) names the request in its completions; it
	// lies in the Tag field's low 5 bits.
	ITag uint8
	// MessageCode is ATSInvalidateRequestCode.
	MessageCode uint8
	// DeviceID is the Function the request is for (its ID routes it).
	DeviceID uint16
}

// ATSInvalidateRequestHeaderLayout is the table of the Invalidate
// Request's header dwords 1 to 3 (10.3.1), from header byte 4: 00h 15:13,
// 04h 15:0 and 08h reserved.
var ATSInvalidateRequestHeaderLayout = newLayout("ATS invalidate request header", "ats_inv_req_hdr",
	"PCI Express Base Specification 10.3.1", ATSMsgHeaderTailSize,
	field("requester_id", func(h *ATSInvalidateRequestHeader) *uint16 { return &h.RequesterID }, r(0x00, 31, 16)),
	field("itag", func(h *ATSInvalidateRequestHeader) *uint8 { return &h.ITag }, r(0x00, 12, 8)).
		spec("ITag (header byte 6, the Tag field, bits 4:0)"),
	field("message_code", func(h *ATSInvalidateRequestHeader) *uint8 { return &h.MessageCode }, r(0x00, 7, 0)),
	field("device_id", func(h *ATSInvalidateRequestHeader) *uint16 { return &h.DeviceID }, r(0x04, 31, 16)),
)

// Put packs h into b[:12], header bytes 4 to 15.
func (h ATSInvalidateRequestHeader) Put(b []byte) { ATSInvalidateRequestHeaderLayout.Put(b, &h) }

// Append appends the 12 bytes to b.
func (h ATSInvalidateRequestHeader) Append(b []byte) []byte {
	return appendPut(b, ATSMsgHeaderTailSize, h)
}

// ParseATSInvalidateRequestHeader parses header bytes 4 to 15; set
// reserved bits are reported as a *ReservedBitsError beside the value; a
// Message Code other than ATSInvalidateRequestCode, which makes the bytes
// another message, is reported instead as a *FieldError.
func ParseATSInvalidateRequestHeader(b []byte) (ATSInvalidateRequestHeader, error) {
	h, err := ATSInvalidateRequestHeaderLayout.Parse(b)
	if len(b) == ATSMsgHeaderTailSize && h.MessageCode != ATSInvalidateRequestCode {
		err = &FieldError{Format: "ATS invalidate request header", Field: "message_code", Value: uint64(h.MessageCode),
			Reason: "not the Invalidate Request's code 0x01"}
	}
	return h, err
}

// ATSInvalidateCompletionHeader is header dwords 1 to 3 of an Invalidate
// Completion (10.3.2), a Msg routed by ID without payload (dword 0 is
// rtl/pcie's TLP). Offsets in its table count from header byte 4.
type ATSInvalidateCompletionHeader struct {
	// RequesterID is the completing Function's ID.
	RequesterID uint16
	// MessageCode is ATSInvalidateCompletionCode.
	MessageCode uint8
	// DeviceID is the translation agent's ID, the Invalidate Request's
	// Requester ID: it routes the message.
	DeviceID uint16
	// CC (Completion Count) is how many Invalidate Completions the
	// Function sends for the requests named; 0 stands for 8 (Count).
	CC uint8
	// ITagVector has bit i set for each request of ITag i completed.
	ITagVector uint32
}

// ATSInvalidateCompletionHeaderLayout is the table of the Invalidate
// Completion's header dwords 1 to 3 (10.3.2), from header byte 4:
// 00h 15:8 (the Tag field) and 04h 15:3 reserved.
var ATSInvalidateCompletionHeaderLayout = newLayout("ATS invalidate completion header", "ats_inv_cpl_hdr",
	"PCI Express Base Specification 10.3.2", ATSMsgHeaderTailSize,
	field("requester_id", func(h *ATSInvalidateCompletionHeader) *uint16 { return &h.RequesterID }, r(0x00, 31, 16)),
	field("message_code", func(h *ATSInvalidateCompletionHeader) *uint8 { return &h.MessageCode }, r(0x00, 7, 0)),
	field("device_id", func(h *ATSInvalidateCompletionHeader) *uint16 { return &h.DeviceID }, r(0x04, 31, 16)),
	field("cc", func(h *ATSInvalidateCompletionHeader) *uint8 { return &h.CC }, r(0x04, 2, 0)).
		spec("CC (Completion Count)"),
	field("itag_vector", func(h *ATSInvalidateCompletionHeader) *uint32 { return &h.ITagVector }, dw(0x08)),
)

// Put packs h into b[:12], header bytes 4 to 15.
func (h ATSInvalidateCompletionHeader) Put(b []byte) { ATSInvalidateCompletionHeaderLayout.Put(b, &h) }

// Append appends the 12 bytes to b.
func (h ATSInvalidateCompletionHeader) Append(b []byte) []byte {
	return appendPut(b, ATSMsgHeaderTailSize, h)
}

// ParseATSInvalidateCompletionHeader parses header bytes 4 to 15; set
// reserved bits are reported as a *ReservedBitsError beside the value; a
// Message Code other than ATSInvalidateCompletionCode, which makes the
// bytes another message, is reported instead as a *FieldError.
func ParseATSInvalidateCompletionHeader(b []byte) (ATSInvalidateCompletionHeader, error) {
	h, err := ATSInvalidateCompletionHeaderLayout.Parse(b)
	if len(b) == ATSMsgHeaderTailSize && h.MessageCode != ATSInvalidateCompletionCode {
		err = &FieldError{Format: "ATS invalidate completion header", Field: "message_code", Value: uint64(h.MessageCode),
			Reason: "not the Invalidate Completion's code 0x02"}
	}
	return h, err
}

// Count is the Completion Count CC stands for: 1 to 8, 0 meaning 8.
func (h ATSInvalidateCompletionHeader) Count() int {
	if c := int(h.CC & 7); c != 0 {
		return c
	}
	return ATSMaxCompletionCount
}

// SetCount sets CC to stand for n completions, 1 to 8.
func (h *ATSInvalidateCompletionHeader) SetCount(n int) error {
	if n < 1 || n > ATSMaxCompletionCount {
		return fmt.Errorf("ATS invalidate completion: count %d, want 1 to 8", n)
	}
	h.CC = uint8(n & 7)
	return nil
}
