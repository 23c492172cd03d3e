package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/gopacket"

	"mkeysim/prm"
)

// wireLayer is what every header of the package is: decodable and
// serialisable.
type wireLayer interface {
	decodingLayer
	gopacket.SerializableLayer
}

// unhex decodes hex written with spaces and line breaks.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex in test: %v", err)
	}
	return b
}

// serialize runs l's SerializeTo on an empty buffer.
func serialize(l gopacket.SerializableLayer) ([]byte, error) {
	buf := gopacket.NewSerializeBuffer()
	if err := l.SerializeTo(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fields is l without its BaseLayer, for comparing decoded fields.
func fields(l wireLayer) wireLayer {
	v := reflect.ValueOf(l).Elem()
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	bl := c.Elem().FieldByName("BaseLayer")
	bl.Set(reflect.Zero(bl.Type()))
	return c.Interface().(wireLayer)
}

// feedback records SetTruncated.
type feedback struct{ truncated bool }

func (f *feedback) SetTruncated() { f.truncated = true }

// headerTests are the headers written byte by byte from the InfiniBand
// specification's layouts (volume 1, chapter 9; Annex A17 for BTH byte 4).
var headerTests = []struct {
	name  string
	l     wireLayer
	bytes string
	fresh func() wireLayer
}{
	// BTH: opcode | SE M Pad(2) TVer(4) | P_Key | FECN BECN resv6 | DestQP(24) | A resv7 | PSN(24)
	{"BTH write only", &BTH{Opcode: OpRDMAWriteOnly, SE: true, PadCount: 2, PKey: 0xFFFF, DestQP: 0x000011, AckReq: true, PSN: 1},
		"0a a0 ffff  00 000011  80 000001", func() wireLayer { return &BTH{} }},
	{"BTH all ones", &BTH{Opcode: OpSendOnlyInvalidate, M: true, PadCount: 3, TVer: 0xF, PKey: 0x8001, FECN: true, BECN: true,
		Resv6: 0x3F, DestQP: 0xFFFFFF, Resv7: 0x7F, PSN: 0xFFFFFF},
		"17 7f 8001  ff ffffff  7f ffffff", func() wireLayer { return &BTH{} }},
	{"BTH FECN", &BTH{Opcode: OpAcknowledge, PKey: 0x1234, FECN: true, DestQP: 0xABCDEF, PSN: 0x123456},
		"11 00 1234  80 abcdef  00 123456", func() wireLayer { return &BTH{} }},
	{"BTH BECN", &BTH{Opcode: OpRDMAReadRequest, BECN: true, DestQP: 0x000102, AckReq: true, PSN: 0x800000},
		"0c 00 0000  40 000102  80 800000", func() wireLayer { return &BTH{} }},
	{"BTH fetch add, TVer", &BTH{Opcode: OpFetchAdd, TVer: 1, PKey: 0x7FFF, DestQP: 1 << 23, PSN: 0x00FF00},
		"14 01 7fff  00 800000  00 00ff00", func() wireLayer { return &BTH{} }},
	// RETH: VA(64) | R_Key | DMA length
	{"RETH", &RETH{VA: 0x0123456789ABCDEF, RKey: 0xFEDCBA98, DMALength: 0x1000},
		"0123456789abcdef fedcba98 00001000", func() wireLayer { return &RETH{} }},
	{"RETH zero length", &RETH{VA: 0xFFFFFFFFFFFFFFF8, RKey: prm.MakeKey(0x123, 0x45)},
		"fffffffffffffff8 00012345 00000000", func() wireLayer { return &RETH{} }},
	// AtomicETH: VA | R_Key | swap/add | compare
	{"AtomicETH", &AtomicETH{VA: 0x1000, RKey: 0x00ABCD01, SwapAdd: 0x1111222233334444, Compare: 0x5555666677778888},
		"0000000000001000 00abcd01 1111222233334444 5555666677778888", func() wireLayer { return &AtomicETH{} }},
	// ImmDt, IETH
	{"ImmDt", &ImmDt{Data: 0xCAFEBABE}, "cafebabe", func() wireLayer { return &ImmDt{} }},
	{"IETH", &IETH{RKey: 0x12345678}, "12345678", func() wireLayer { return &IETH{} }},
	// AETH: syndrome | MSN(24); syndrome bits 7:5 000 ACK, 001 RNR NAK, 011 NAK
	{"AETH ACK", &AETH{Syndrome: ACK(31), MSN: 1}, "1f 000001", func() wireLayer { return &AETH{} }},
	{"AETH RNR NAK", &AETH{Syndrome: RNRNAK(0x0E), MSN: 0x10}, "2e 000010", func() wireLayer { return &AETH{} }},
	{"AETH NAK PSN", &AETH{Syndrome: NAK(NAKPSNSequenceError), MSN: 0xABCDEF}, "60 abcdef", func() wireLayer { return &AETH{} }},
	{"AETH NAK invalid", &AETH{Syndrome: NAK(NAKInvalidRequest)}, "61 000000", func() wireLayer { return &AETH{} }},
	{"AETH NAK access", &AETH{Syndrome: NAK(NAKRemoteAccessError), MSN: 0xFFFFFF}, "62 ffffff", func() wireLayer { return &AETH{} }},
	{"AETH NAK operational", &AETH{Syndrome: NAK(NAKRemoteOperationalError), MSN: 2}, "63 000002", func() wireLayer { return &AETH{} }},
	// AtomicAckETH: original remote data
	{"AtomicAckETH", &AtomicAckETH{OrigRemoteData: 0x0102030405060708}, "0102030405060708", func() wireLayer { return &AtomicAckETH{} }},
	// ICRC: least significant byte first (the ConnectX-4 Lx capture in icrc_test.go)
	{"ICRC", &ICRCTrailer{Value: 0x2A00FD82}, "82fd002a", func() wireLayer { return &ICRCTrailer{} }},
}

func TestHeaderBytes(t *testing.T) {
	for _, tt := range headerTests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.bytes)
			got, err := serialize(tt.l)
			if err != nil {
				t.Fatalf("SerializeTo: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("SerializeTo = % x, want % x", got, want)
			}
			// Decode the bytes followed by a payload.
			tail := []byte{0xde, 0xad}
			in := append(append([]byte(nil), want...), tail...)
			l := tt.fresh()
			if err := l.DecodeFromBytes(in, gopacket.NilDecodeFeedback); err != nil {
				t.Fatalf("DecodeFromBytes(% x): %v", in, err)
			}
			if got := fields(l); !reflect.DeepEqual(got, tt.l) {
				t.Errorf("DecodeFromBytes = %+v, want %+v", got, tt.l)
			}
			if !bytes.Equal(l.LayerContents(), want) || !bytes.Equal(l.LayerPayload(), tail) {
				t.Errorf("contents % x payload % x, want % x and % x", l.LayerContents(), l.LayerPayload(), want, tail)
			}
			if l.LayerType() != tt.l.LayerType() || l.CanDecode() != tt.l.LayerType() {
				t.Errorf("LayerType %v CanDecode %v, want %v", l.LayerType(), l.CanDecode(), tt.l.LayerType())
			}
		})
	}
}

func TestHeaderShort(t *testing.T) {
	for _, tt := range headerTests {
		n := len(unhex(t, tt.bytes))
		for k := 0; k < n; k++ {
			var fb feedback
			err := tt.fresh().DecodeFromBytes(make([]byte, k), &fb)
			var se *prm.SizeError
			if !errors.As(err, &se) || se.Want != n || se.Got != k || !fb.truncated {
				t.Errorf("%s: DecodeFromBytes(%d bytes) = %v, truncated %v; want a SizeError %d/%d and truncated", tt.name, k, err, fb.truncated, n, k)
			}
		}
	}
}

func TestHeaderFieldTooWide(t *testing.T) {
	for _, tt := range []struct {
		l    gopacket.SerializableLayer
		want string
	}{
		{&BTH{PadCount: 4}, "BTH PadCount 0x4 does not fit in 2 bits"},
		{&BTH{TVer: 16}, "BTH TVer 0x10 does not fit in 4 bits"},
		{&BTH{Resv6: 64}, "BTH Resv6 0x40 does not fit in 6 bits"},
		{&BTH{DestQP: 1 << 24}, "BTH DestQP 0x1000000 does not fit in 24 bits"},
		{&BTH{Resv7: 128}, "BTH Resv7 0x80 does not fit in 7 bits"},
		{&BTH{PSN: 0xFFFFFFFF}, "BTH PSN 0xffffffff does not fit in 24 bits"},
		{&AETH{MSN: 1 << 24}, "AETH MSN 0x1000000 does not fit in 24 bits"},
	} {
		if _, err := serialize(tt.l); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("SerializeTo(%+v) = %v, want %q", tt.l, err, tt.want)
		}
	}
}

func TestNextLayerType(t *testing.T) {
	for _, tt := range []struct {
		l    wireLayer
		want gopacket.LayerType
	}{
		{&BTH{Opcode: OpRDMAWriteOnly}, LayerTypeRETH},
		{&BTH{Opcode: OpRDMAWriteOnlyImm}, LayerTypeRETH},
		{&BTH{Opcode: OpCompareSwap}, LayerTypeAtomicETH},
		{&BTH{Opcode: OpSendOnlyInvalidate}, LayerTypeIETH},
		{&BTH{Opcode: OpSendLastImm}, LayerTypeImmDt},
		{&BTH{Opcode: OpAtomicAcknowledge}, LayerTypeAETH},
		{&BTH{Opcode: OpSendOnly}, gopacket.LayerTypePayload},
		{&BTH{Opcode: 0x64}, gopacket.LayerTypePayload},
		{&RETH{}, gopacket.LayerTypePayload},
		{&AETH{}, gopacket.LayerTypePayload},
		{&ICRCTrailer{}, gopacket.LayerTypeZero},
	} {
		if got := tt.l.NextLayerType(); got != tt.want {
			t.Errorf("%T%+v.NextLayerType() = %v, want %v", tt.l, tt.l, got, tt.want)
		}
	}
}

// TestOpcodes checks every opcode against rxe_opcode.c: its name, the
// extension headers in order and whether it carries a payload.
func TestOpcodes(t *testing.T) {
	R, A, I, E, M, K := LayerTypeRETH, LayerTypeAtomicETH, LayerTypeImmDt, LayerTypeIETH, LayerTypeAETH, LayerTypeAtomicAckETH
	type L = []gopacket.LayerType
	tests := []struct {
		op      Opcode
		code    uint8
		name    string
		headers L
		payload bool
	}{
		{OpSendFirst, 0x00, "RC_SEND_FIRST", nil, true},
		{OpSendMiddle, 0x01, "RC_SEND_MIDDLE", nil, true},
		{OpSendLast, 0x02, "RC_SEND_LAST", nil, true},
		{OpSendLastImm, 0x03, "RC_SEND_LAST_WITH_IMMEDIATE", L{I}, true},
		{OpSendOnly, 0x04, "RC_SEND_ONLY", nil, true},
		{OpSendOnlyImm, 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", L{I}, true},
		{OpRDMAWriteFirst, 0x06, "RC_RDMA_WRITE_FIRST", L{R}, true},
		{OpRDMAWriteMiddle, 0x07, "RC_RDMA_WRITE_MIDDLE", nil, true},
		{OpRDMAWriteLast, 0x08, "RC_RDMA_WRITE_LAST", nil, true},
		{OpRDMAWriteLastImm, 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", L{I}, true},
		{OpRDMAWriteOnly, 0x0A, "RC_RDMA_WRITE_ONLY", L{R}, true},
		{OpRDMAWriteOnlyImm, 0x0B, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", L{R, I}, true},
		{OpRDMAReadRequest, 0x0C, "RC_RDMA_READ_REQUEST", L{R}, false},
		{OpRDMAReadResponseFirst, 0x0D, "RC_RDMA_READ_RESPONSE_FIRST", L{M}, true},
		{OpRDMAReadResponseMiddle, 0x0E, "RC_RDMA_READ_RESPONSE_MIDDLE", nil, true},
		{OpRDMAReadResponseLast, 0x0F, "RC_RDMA_READ_RESPONSE_LAST", L{M}, true},
		{OpRDMAReadResponseOnly, 0x10, "RC_RDMA_READ_RESPONSE_ONLY", L{M}, true},
		{OpAcknowledge, 0x11, "RC_ACKNOWLEDGE", L{M}, false},
		{OpAtomicAcknowledge, 0x12, "RC_ATOMIC_ACKNOWLEDGE", L{M, K}, false},
		{OpCompareSwap, 0x13, "RC_COMPARE_SWAP", L{A}, false},
		{OpFetchAdd, 0x14, "RC_FETCH_ADD", L{A}, false},
		{OpSendLastInvalidate, 0x16, "RC_SEND_LAST_WITH_INVALIDATE", L{E}, true},
		{OpSendOnlyInvalidate, 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", L{E}, true},
	}
	var ops []Opcode
	for _, tt := range tests {
		ops = append(ops, tt.op)
		if uint8(tt.op) != tt.code || tt.op.String() != tt.name || !tt.op.Known() ||
			!reflect.DeepEqual(tt.op.Headers(), tt.headers) || tt.op.HasPayload() != tt.payload {
			t.Errorf("opcode %#x: value %#x name %q known %v headers %v payload %v; want %#x %q true %v %v",
				tt.code, uint8(tt.op), tt.op, tt.op.Known(), tt.op.Headers(), tt.op.HasPayload(), tt.code, tt.name, tt.headers, tt.payload)
		}
	}
	if got := Opcodes(); !reflect.DeepEqual(got, ops) {
		t.Errorf("Opcodes() = %v, want %v", got, ops)
	}
	for _, op := range []Opcode{0x15, 0x18, 0x1C, 0x24, 0x64, 0x81, 0xFF} {
		if op.Known() || op.Headers() != nil || op.HasPayload() {
			t.Errorf("opcode %#x is Known", uint8(op))
		}
	}
	if got := Opcode(0x15).String(); got != "Opcode(0x15)" {
		t.Errorf("Opcode(0x15).String() = %q", got)
	}
	if got := Opcode(5).String(); got != "RC_SEND_ONLY_WITH_IMMEDIATE" {
		t.Errorf("Opcode(5).String() = %q", got)
	}
}

func TestSyndrome(t *testing.T) {
	for _, tt := range []struct {
		s      Syndrome
		byte   uint8
		typ    AckType
		value  uint8
		nak    bool
		string string
	}{
		{ACK(0), 0x00, AckTypeACK, 0, false, "ACK credits=0"},
		{ACK(31), 0x1F, AckTypeACK, 31, false, "ACK credits=31"},
		{ACK(0xFF), 0x1F, AckTypeACK, 31, false, "ACK credits=31"},
		{RNRNAK(1), 0x21, AckTypeRNRNAK, 1, false, "RNR_NAK timer=1"},
		{RNRNAK(31), 0x3F, AckTypeRNRNAK, 31, false, "RNR_NAK timer=31"},
		{NAK(NAKPSNSequenceError), 0x60, AckTypeNAK, 0, true, "NAK PSN sequence error"},
		{NAK(NAKInvalidRequest), 0x61, AckTypeNAK, 1, true, "NAK invalid request"},
		{NAK(NAKRemoteAccessError), 0x62, AckTypeNAK, 2, true, "NAK remote access error"},
		{NAK(NAKRemoteOperationalError), 0x63, AckTypeNAK, 3, true, "NAK remote operational error"},
		{NAK(NAKInvalidRDRequest), 0x64, AckTypeNAK, 4, true, "NAK invalid RD request"},
		{NAK(9), 0x69, AckTypeNAK, 9, true, "NAK NAKCode(9)"},
		{Syndrome(0x40), 0x40, AckTypeReserved, 0, false, "Syndrome(0x40)"},
		{Syndrome(0x80), 0x80, AckTypeACK, 0, false, "Syndrome(0x80)"},
	} {
		code, nak := tt.s.NAKCode()
		if uint8(tt.s) != tt.byte || tt.s.Type() != tt.typ || tt.s.Value() != tt.value || nak != tt.nak ||
			(nak && uint8(code) != tt.value) || tt.s.String() != tt.string {
			t.Errorf("syndrome %#02x: type %d value %d nak %v %d %q; want %#02x %d %d %v %q",
				uint8(tt.s), tt.s.Type(), tt.s.Value(), nak, code, tt.s, tt.byte, tt.typ, tt.value, tt.nak, tt.string)
		}
	}
}
