package pcie

import "encoding/binary"

// Wire format of TLP headers (PCIe base specification, "Transaction Layer
// Protocol"). A header is 3 or 4 DWs sent most significant byte first;
// byte 0 is bits 31:24 of DW0. The fields the model uses:
//
//	prefix (optional, before DW0): the PASID End-End TLP Prefix (6.20.2)
//	     31:29 Fmt        100 (TLP prefix)
//	     28:24 Type       1_0001 (End-End prefix E[3:0] = 0001: PASID)
//	     23    Execute Requested
//	     22    Privileged Mode Requested
//	     21:20 reserved
//	     19:0  PASID
//
//	DW0  31:29 Fmt        000 3DW no data, 001 4DW no data,
//	                      010 3DW with data, 011 4DW with data
//	     28:24 Type       00000 memory request, 01010 completion,
//	                      10010 message routed by ID (10 r[2:0], r = 010)
//	     23    T9         tag bit 9 (10-bit tags)
//	     22:20 TC         traffic class (TCData for data movement)
//	     19    T8         tag bit 8
//	     18:14 Attr[2] (IDO), LN, TH, TD, EP: 0
//	     13    Attr[1]    Relaxed Ordering (RO): memory requests and
//	                      completions; 0 in messages
//	     12    Attr[0]    No Snoop: 0
//	     11:10 AT         memory requests: Address Type (2.2.4.1);
//	                      reserved (0) in completions and messages
//	      9:0  Length     in DW; 0 means 1024; reserved (0) in a Cpl, Msg
//
//	requests (MRd, MWr)
//	DW1  31:16 Requester ID
//	     15:8  Tag[7:0]
//	      7:4  Last DW BE
//	      3:0  First DW BE
//	DW2  3DW: Address[31:2] in 31:2, 1:0 (PH) 0
//	     4DW: Address[63:32]
//	DW3  4DW: Address[31:2] in 31:2, 1:0 (PH) 0
//	     A Translation Request (AT 01b, 10.2.2) has Untranslated
//	     Address[63:12] there, bits 11:1 reserved and bit 0 No Write
//	     (prm.ATSTranslationRequestAddr): Addr keeps bit 0.
//
//	messages routed by ID (Msg, MsgD; 2.2.8), always 4DW
//	DW1  31:16 Requester ID
//	     15:8  Tag[7:0] (the Invalidate Request's ITag in 4:0)
//	      7:0  Message Code
//	DW2  31:16 destination ID (the Invalidate messages' Device ID)
//	     15:0  message specific (the Invalidate Completion's CC in 2:0)
//	DW3        message specific (the Invalidate Completion's ITag Vector)
//	     Addr holds DW2 and DW3 as one big-endian number.
//
//	completions (CplD, Cpl)
//	DW1  31:16 Completer ID
//	     15:13 Completion Status (000 SC, 001 UR, 100 CA)
//	     12    BCM 0
//	     11:0  Byte Count; 0 means 4096
//	DW2  31:16 Requester ID
//	     15:8  Tag[7:0]
//	      7    reserved
//	      6:0  Lower Address
//
// The payload follows the header, Data[0] first.

const (
	fmt3DW     = 0b000
	fmt4DW     = 0b001
	fmt3DWData = 0b010
	fmt4DWData = 0b011
	fmtPrefix  = 0b100
	typeMem    = 0b00000
	typeCpl    = 0b01010
	typeMsgID  = 0b10010 // message routed by ID: 10 r[2:0], r = 010b
	attrRO     = 1 << 13 // DW0 bit 13: Attr[1], Relaxed Ordering
)

// fmtType is the Fmt and Type fields (byte 0 of DW0) of t.
func (t *TLP) fmtType() uint8 {
	var f, ty uint8
	switch t.Type {
	case MRd:
		f, ty = fmt3DW, typeMem
	case MWr:
		f, ty = fmt3DWData, typeMem
	case CplD:
		f, ty = fmt3DWData, typeCpl
	case Cpl:
		f, ty = fmt3DW, typeCpl
	case Msg:
		f, ty = fmt3DW, typeMsgID
	case MsgD:
		f, ty = fmt3DWData, typeMsgID
	}
	if HeaderBytes(t.Type, t.Addr) == Header4DW {
		f |= fmt4DW
	}
	return f<<5 | ty
}

// AppendHeader appends t's prefix, if any, and header (12 or 16 bytes) to
// b. It fails, naming the field, when a field does not fit the wire format
// or Data does not match LengthDW; it does not check the protocol rules of
// Validate (so a testbench can encode a bad request on purpose).
func (t *TLP) AppendHeader(b []byte) ([]byte, error) {
	if err := t.checkEncodable(); err != nil {
		return b, err
	}
	if t.Prefix != 0 {
		b = binary.BigEndian.AppendUint32(b, uint32(t.Prefix))
	}
	length := uint32(t.LengthDW) & 0x3ff // 1024 -> 0
	dw0 := uint32(t.fmtType())<<24 |
		uint32(t.Tag>>9&1)<<23 | // T9
		uint32(t.TC&7)<<20 |
		uint32(t.Tag>>8&1)<<19 | // T8
		length
	if t.RO && t.Type != Msg && t.Type != MsgD {
		dw0 |= attrRO
	}
	tag := uint32(t.Tag & 0xff)
	switch t.Type {
	case MRd, MWr:
		dw0 |= uint32(t.AT) << 10
		b = binary.BigEndian.AppendUint32(b, dw0)
		dw1 := uint32(t.RequesterID)<<16 | tag<<8 | uint32(t.LastBE)<<4 | uint32(t.FirstBE)
		b = binary.BigEndian.AppendUint32(b, dw1)
		if t.Addr >= Addr4GB {
			b = binary.BigEndian.AppendUint32(b, uint32(t.Addr>>32))
		}
		b = binary.BigEndian.AppendUint32(b, uint32(t.Addr)) // bits 1:0 checked: 0, or NW
	case Msg, MsgD:
		b = binary.BigEndian.AppendUint32(b, dw0)
		b = binary.BigEndian.AppendUint32(b, uint32(t.RequesterID)<<16|tag<<8|uint32(t.MsgCode))
		b = binary.BigEndian.AppendUint64(b, t.Addr)
	case CplD, Cpl:
		b = binary.BigEndian.AppendUint32(b, dw0)
		bc := uint32(t.ByteCount) & 0xfff // 4096 -> 0
		dw1 := uint32(t.CompleterID)<<16 | uint32(t.Status)<<13 | bc
		dw2 := uint32(t.RequesterID)<<16 | tag<<8 | uint32(t.LowerAddr)
		b = binary.BigEndian.AppendUint32(b, dw1)
		b = binary.BigEndian.AppendUint32(b, dw2)
	}
	return b, nil
}

// Append appends t's header and payload to b.
func (t *TLP) Append(b []byte) ([]byte, error) {
	b, err := t.AppendHeader(b)
	if err != nil {
		return b, err
	}
	return append(b, t.Data...), nil
}

// MarshalBinary returns t's header and payload.
func (t *TLP) MarshalBinary() ([]byte, error) {
	return t.Append(make([]byte, 0, t.HeaderBytes()+t.PayloadBytes()))
}

// ParseHeader decodes the prefix and header at the start of b and returns
// the TLP (without Data) and the size of prefix and header. It fails,
// naming the field, on a Fmt/Type the model does not know (a prefix other
// than one PASID prefix, a message not routed by ID or with a 3DW
// header), a reserved completion status, or a 4DW memory request header
// that carries an address below 4 GB (the 3DW format is required there).
// Fields the model does not hold (the attributes but RO, TD, EP, PH, BCM, the AT bits
// of completions and messages, reserved bits) are ignored.
func ParseHeader(b []byte) (TLP, int, error) {
	var t TLP
	if len(b) < Header3DW {
		return t, 0, ErrShort
	}
	pre := 0
	if b[0]>>5 == fmtPrefix {
		if b[0] != prefixFmtType {
			return TLP{}, 0, fieldErr("Prefix", "Fmt/Type %03b/%05b: only the PASID prefix is supported", b[0]>>5, b[0]&0x1f)
		}
		t.Prefix = PASIDPrefix(binary.BigEndian.Uint32(b) & prefixFields)
		pre = PrefixBytes
		b = b[PrefixBytes:]
		if len(b) < Header3DW {
			return TLP{}, 0, ErrShort
		}
		if b[0]>>5 == fmtPrefix {
			return TLP{}, 0, fieldErr("Prefix", "a second TLP prefix: only one PASID prefix is supported")
		}
	}
	dw0 := binary.BigEndian.Uint32(b)
	f, ty := uint8(dw0>>29), uint8(dw0>>24)&0x1f
	length := uint16(dw0 & 0x3ff)
	if length == 0 {
		length = MaxLengthDW
	}
	t.Tag = uint16(dw0>>23&1)<<9 | uint16(dw0>>19&1)<<8 // T9, T8
	t.TC = uint8(dw0 >> 20 & 7)
	hdr := Header3DW
	switch {
	case ty == typeMem && (f == fmt3DW || f == fmt4DW):
		t.Type = MRd
	case ty == typeMem && (f == fmt3DWData || f == fmt4DWData):
		t.Type = MWr
	case ty == typeCpl && f == fmt3DWData:
		t.Type = CplD
	case ty == typeCpl && f == fmt3DW:
		t.Type = Cpl
	case ty == typeMsgID && f == fmt4DW:
		t.Type = Msg
	case ty == typeMsgID && f == fmt4DWData:
		t.Type = MsgD
	default:
		return TLP{}, 0, fieldErr("Fmt/Type", "%03b/%05b not supported", f, ty)
	}
	if !t.Type.IsMessage() {
		t.RO = dw0&attrRO != 0
	}
	dw1 := binary.BigEndian.Uint32(b[4:])
	dw2 := binary.BigEndian.Uint32(b[8:])
	switch t.Type {
	case MRd, MWr:
		t.LengthDW = length
		t.RequesterID = uint16(dw1 >> 16)
		t.Tag |= uint16(dw1>>8) & 0xff
		t.LastBE = uint8(dw1>>4) & 0xf
		t.FirstBE = uint8(dw1) & 0xf
		t.AT = AT(dw0>>10) & 3
		low := uint32(3) // PH, or a Translation Request's reserved bit 1 and NW
		if t.AT == ATTranslationRequest {
			low = 2
		}
		if f&fmt4DW != 0 {
			hdr = Header4DW
			if len(b) < Header4DW {
				return TLP{}, 0, ErrShort
			}
			t.Addr = uint64(dw2)<<32 | uint64(binary.BigEndian.Uint32(b[12:])&^low)
			if t.Addr < Addr4GB {
				return TLP{}, 0, fieldErr("Addr", "%#x below 4 GB in a 4DW header", t.Addr)
			}
		} else {
			t.Addr = uint64(dw2 &^ low)
		}
	case Msg, MsgD:
		if t.Type == MsgD {
			t.LengthDW = length
		}
		hdr = Header4DW
		if len(b) < Header4DW {
			return TLP{}, 0, ErrShort
		}
		t.RequesterID = uint16(dw1 >> 16)
		t.Tag |= uint16(dw1>>8) & 0xff
		t.MsgCode = uint8(dw1)
		t.Addr = binary.BigEndian.Uint64(b[8:])
	case CplD, Cpl:
		if t.Type == CplD {
			t.LengthDW = length
		}
		t.CompleterID = uint16(dw1 >> 16)
		t.Status = CplStatus(dw1 >> 13 & 7)
		if !t.Status.Valid() {
			return TLP{}, 0, fieldErr("Status", "reserved value %03b", uint8(t.Status))
		}
		t.ByteCount = uint16(dw1 & 0xfff)
		if t.ByteCount == 0 {
			t.ByteCount = MaxByteCount
		}
		t.RequesterID = uint16(dw2 >> 16)
		t.Tag |= uint16(dw2>>8) & 0xff
		t.LowerAddr = uint8(dw2) & 0x7f
	}
	return t, pre + hdr, nil
}

// Parse decodes a whole TLP: the prefix, the header and exactly the
// payload its Length announces (Data is a copy). See ParseHeader.
func Parse(b []byte) (TLP, error) {
	t, hdr, err := ParseHeader(b)
	if err != nil {
		return TLP{}, err
	}
	n := t.PayloadBytes()
	if len(b) < hdr+n {
		return TLP{}, ErrShort
	}
	if len(b) > hdr+n {
		return TLP{}, fieldErr("Length", "%d payload bytes follow, Length says %d", len(b)-hdr, n)
	}
	if n > 0 {
		t.Data = append([]byte(nil), b[hdr:]...)
	}
	return t, nil
}

// UnmarshalBinary is Parse into t.
func (t *TLP) UnmarshalBinary(b []byte) error {
	p, err := Parse(b)
	if err != nil {
		return err
	}
	*t = p
	return nil
}
