package pcie

import (
	"encoding/binary"
	"fmt"

	"mkeysim/prm"
)

// The TLPs of PCIe Address Translation Services (base specification,
// chapter 10), built from and read into prm's field tables, so that the
// header and payload bits have one definition:
//
//   - the Translation Request (10.2.2): an MRd with AT 01b, Length 2 DW
//     per translation, whose address dwords are prm.ATSTranslationRequestAddr
//     (Untranslated Address[63:12], NW in bit 0);
//   - the Translation Completion (10.2.3): a CplD whose payload is
//     prm.ATSCompletionEntry entries, or a Cpl with UR or CA. Nothing in a
//     completion says it answers a Translation Request: its requester
//     knows by the Tag (the capture dissector matches it the same way);
//   - the Invalidate Request (10.3.1): a MsgD routed by ID, Message Code
//     0x01, header bytes 4 to 15 prm.ATSInvalidateRequestHeader, payload
//     prm.ATSInvalidateBody;
//   - the Invalidate Completion (10.3.2): a Msg routed by ID, Message Code
//     0x02, header bytes 4 to 15 prm.ATSInvalidateCompletionHeader.
//
// A PASID prefix, when the translation is for a PASID, is the caller's to
// set (TLP.Prefix).

// NewTranslationRequest is the Translation Request of requester rid under
// tag for n translations from the untranslated address a.Addr (bits 11:0
// are dropped) with No Write a.NW: an MRd with AT 01b, Length 2n DW and
// both byte enables 1111b, in the 3DW header below 4 GB (the address rule
// of every memory request).
func NewTranslationRequest(rid, tag uint16, a prm.ATSTranslationRequestAddr, n int) (TLP, error) {
	ldw, err := prm.ATSTranslationRequestLengthDW(n)
	if err != nil {
		return TLP{}, err
	}
	var b [prm.ATSTranslationRequestAddrSize]byte
	a.Put(b[:])
	return TLP{Type: MRd, AT: ATTranslationRequest, RequesterID: rid, Tag: tag, LengthDW: ldw,
		Addr: binary.BigEndian.Uint64(b[:]), FirstBE: 0xf, LastBE: 0xf}, nil
}

// TranslationRequestAddr is the untranslated address and NW of t, a
// Translation Request, through prm's table: header bytes 8 to 15 (DW2 and
// DW3 of the 4DW header; a 3DW header's DW2 is bytes 12 to 15, the high
// dword being 0). Set reserved bits (11:1) come back as a
// *prm.ReservedBitsError beside the value.
func (t *TLP) TranslationRequestAddr() (prm.ATSTranslationRequestAddr, error) {
	if t.Type != MRd || t.AT != ATTranslationRequest {
		return prm.ATSTranslationRequestAddr{}, fmt.Errorf("pcie: %v with AT %v is not a Translation Request", t.Type, t.AT)
	}
	var b [prm.ATSTranslationRequestAddrSize]byte
	binary.BigEndian.PutUint64(b[:], t.Addr)
	return prm.ParseATSTranslationRequestAddr(b[:])
}

// NewTranslationCompletion is the successful Translation Completion of
// req from completer cid: one CplD carrying entries (as many as req asked
// for), ByteCount the payload's size and LowerAddr 0, as for the one
// completion of a read of whole DWs at a page-aligned address (what 10.2.3
// may say of these two fields beyond that is not modelled).
func NewTranslationCompletion(req TLP, cid uint16, entries []prm.ATSCompletionEntry) TLP {
	data := make([]byte, 0, len(entries)*prm.ATSCompletionEntrySize)
	for _, e := range entries {
		data = e.Append(data)
	}
	return TLP{Type: CplD, TC: req.TC, RequesterID: req.RequesterID, Tag: req.Tag, CompleterID: cid, Status: SC,
		LengthDW: uint16(len(data) / DWBytes), ByteCount: uint16(len(data)), Data: data}
}

// TranslationEntries reads t, a CplD answering a Translation Request, as
// its Translation Completion Data Entries. Set reserved bits come back as
// a *prm.ReservedBitsError beside the entries.
func (t *TLP) TranslationEntries() ([]prm.ATSCompletionEntry, error) {
	if t.Type != CplD {
		return nil, fmt.Errorf("pcie: a %v carries no translation", t.Type)
	}
	n, err := prm.ATSTranslations(int(t.LengthDW))
	if err != nil {
		return nil, err
	}
	if len(t.Data) != n*prm.ATSCompletionEntrySize {
		return nil, fmt.Errorf("pcie: %d data bytes for %d translations", len(t.Data), n)
	}
	out := make([]prm.ATSCompletionEntry, n)
	var first error
	for i := range out {
		e, err := prm.ParseATSCompletionEntry(t.Data[i*prm.ATSCompletionEntrySize:][:prm.ATSCompletionEntrySize])
		out[i] = e
		if err != nil && first == nil {
			first = fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return out, first
}

// msgTail is header bytes 4 to 15 of message t, the bytes prm's message
// header tables describe.
func (t *TLP) msgTail() []byte {
	b := make([]byte, 0, prm.ATSMsgHeaderTailSize)
	b = binary.BigEndian.AppendUint32(b, uint32(t.RequesterID)<<16|uint32(t.Tag&0xff)<<8|uint32(t.MsgCode))
	return binary.BigEndian.AppendUint64(b, t.Addr)
}

// setMsgTail sets the fields of message t from header bytes 4 to 15.
func (t *TLP) setMsgTail(b []byte) {
	t.RequesterID = binary.BigEndian.Uint16(b)
	t.Tag = uint16(b[2])
	t.MsgCode = b[3]
	t.Addr = binary.BigEndian.Uint64(b[4:])
}

// DestID is the ID a message routed by ID goes to: header bytes 8 and 9
// (the Invalidate messages' Device ID).
func (t *TLP) DestID() uint16 { return uint16(t.Addr >> 48) }

// NewInvalidateRequest is the Invalidate Request of header h (its
// MessageCode is set to prm.ATSInvalidateRequestCode) and payload body: a
// MsgD routed by ID with a 2-DW payload, TC 0.
func NewInvalidateRequest(h prm.ATSInvalidateRequestHeader, body prm.ATSInvalidateBody) TLP {
	h.MessageCode = prm.ATSInvalidateRequestCode
	var tail [prm.ATSMsgHeaderTailSize]byte
	h.Put(tail[:])
	t := TLP{Type: MsgD, LengthDW: prm.ATSInvalidateBodySize / DWBytes, Data: body.Append(nil)}
	t.setMsgTail(tail[:])
	return t
}

// InvalidateRequest reads t, an Invalidate Request, through prm's tables.
// Set reserved bits come back as a *prm.ReservedBitsError beside the
// values.
func (t *TLP) InvalidateRequest() (prm.ATSInvalidateRequestHeader, prm.ATSInvalidateBody, error) {
	if t.Type != MsgD || t.MsgCode != prm.ATSInvalidateRequestCode || len(t.Data) != prm.ATSInvalidateBodySize {
		return prm.ATSInvalidateRequestHeader{}, prm.ATSInvalidateBody{},
			fmt.Errorf("pcie: %v with Message Code %#02x and %d data bytes is not an Invalidate Request", t.Type, t.MsgCode, len(t.Data))
	}
	h, herr := prm.ParseATSInvalidateRequestHeader(t.msgTail())
	body, berr := prm.ParseATSInvalidateBody(t.Data)
	if herr == nil {
		herr = berr
	}
	if t.Tag > 0xff { // T9, T8: not part of the ITag
		herr = fmt.Errorf("pcie: Invalidate Request tag %#x has T9/T8 set", t.Tag)
	}
	return h, body, herr
}

// NewInvalidateCompletion is the Invalidate Completion of header h (its
// MessageCode is set to prm.ATSInvalidateCompletionCode): a Msg routed by
// ID without payload, TC 0.
func NewInvalidateCompletion(h prm.ATSInvalidateCompletionHeader) TLP {
	h.MessageCode = prm.ATSInvalidateCompletionCode
	var tail [prm.ATSMsgHeaderTailSize]byte
	h.Put(tail[:])
	t := TLP{Type: Msg}
	t.setMsgTail(tail[:])
	return t
}

// InvalidateCompletion reads t, an Invalidate Completion, through prm's
// table. Set reserved bits come back as a *prm.ReservedBitsError beside
// the value.
func (t *TLP) InvalidateCompletion() (prm.ATSInvalidateCompletionHeader, error) {
	if t.Type != Msg || t.MsgCode != prm.ATSInvalidateCompletionCode {
		return prm.ATSInvalidateCompletionHeader{},
			fmt.Errorf("pcie: %v with Message Code %#02x is not an Invalidate Completion", t.Type, t.MsgCode)
	}
	return prm.ParseATSInvalidateCompletionHeader(t.msgTail())
}
