package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// AETHLen is the length of the ACK Extended Transport Header in bytes.
const AETHLen = 4

// AETH is the ACK Extended Transport Header of acknowledges and of the
// first, last and only RDMA READ responses: what happened to the request
// (Syndrome) and the message sequence number the responder has reached.
type AETH struct {
	layers.BaseLayer
	Syndrome Syndrome // ACK, RNR NAK or NAK with its value
	MSN      uint32   // message sequence number (24 bits)
}

// DecodeFromBytes reads the 4 header bytes; the payload is the rest.
func (a *AETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return decodeFixed(&a.BaseLayer, "AETH", AETHLen, data, df, func(h []byte) {
		a.Syndrome = Syndrome(h[0])
		a.MSN = binary.BigEndian.Uint32(h[0:4]) & 0xFFFFFF
	})
}

// SerializeTo prepends the 4 header bytes; an MSN wider than 24 bits is an
// error.
func (a *AETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if err := checkBits("AETH", "MSN", uint64(a.MSN), 24); err != nil {
		return err
	}
	return serializeFixed(b, AETHLen, func(d []byte) {
		binary.BigEndian.PutUint32(d, a.MSN)
		d[0] = uint8(a.Syndrome)
	})
}

// Syndrome is the AETH syndrome byte: bit 7 reserved (0), bits 6:5 the
// AckType, bits 4:0 its Value (credit count, RNR timer or NAK code).
type Syndrome uint8

// AckType is what a Syndrome reports, from its bits 6:5.
type AckType uint8

// The four AckTypes: as bits 7:5 of the syndrome, 000, 001, 010 and 011.
const (
	AckTypeACK      AckType = 0 // the request succeeded
	AckTypeRNRNAK   AckType = 1 // receiver not ready: retry after the timer
	AckTypeReserved AckType = 2 // reserved encoding
	AckTypeNAK      AckType = 3 // the request failed with a NAKCode
)

// NAKCode is the Value of a NAK syndrome: why the responder refused.
type NAKCode uint8

// The NAK codes of the InfiniBand specification (volume 1, chapter 9), as
// Linux's rxe names them AETH_NAK_*.
const (
	NAKPSNSequenceError       NAKCode = 0 // a PSN was skipped
	NAKInvalidRequest         NAKCode = 1 // unsupported or malformed request
	NAKRemoteAccessError      NAKCode = 2 // R_Key, address or rights check failed
	NAKRemoteOperationalError NAKCode = 3 // the responder could not complete it
	NAKInvalidRDRequest       NAKCode = 4 // invalid RD request (RD only)
)

// ACK is the syndrome of a positive acknowledge with the given credit
// count (5 bits, higher bits dropped; 31 means no credit information).
func ACK(credits uint8) Syndrome { return Syndrome(credits & 0x1F) }

// RNRNAK is the syndrome of a receiver-not-ready NAK with the given timer
// code (5 bits, higher bits dropped).
func RNRNAK(timer uint8) Syndrome { return Syndrome(0x20 | timer&0x1F) }

// NAK is the syndrome of a NAK with the given code (5 bits, higher bits
// dropped).
func NAK(code NAKCode) Syndrome { return Syndrome(0x60 | uint8(code)&0x1F) }

// Type is the syndrome's AckType (bits 6:5).
func (s Syndrome) Type() AckType { return AckType(s >> 5 & 3) }

// Value is the syndrome's bits 4:0: the credit count of an ACK, the timer
// of an RNR NAK or the NAKCode of a NAK.
func (s Syndrome) Value() uint8 { return uint8(s) & 0x1F }

// NAKCode is the syndrome's Value as a NAKCode; ok is false unless the
// syndrome is a NAK.
func (s Syndrome) NAKCode() (code NAKCode, ok bool) {
	return NAKCode(s.Value()), s.Type() == AckTypeNAK
}

// String names the syndrome: "ACK credits=N", "RNR_NAK timer=N",
// "NAK <code>", or the reserved byte in hex.
func (s Syndrome) String() string {
	if s&0x80 != 0 {
		return fmt.Sprintf("Syndrome(0x%02x)", uint8(s))
	}
	switch s.Type() {
	case AckTypeACK:
		return fmt.Sprintf("ACK credits=%d", s.Value())
	case AckTypeRNRNAK:
		return fmt.Sprintf("RNR_NAK timer=%d", s.Value())
	case AckTypeNAK:
		return "NAK " + NAKCode(s.Value()).String()
	}
	return fmt.Sprintf("Syndrome(0x%02x)", uint8(s))
}

// String names the code as the specification does.
func (c NAKCode) String() string {
	switch c {
	case NAKPSNSequenceError:
		return "PSN sequence error"
	case NAKInvalidRequest:
		return "invalid request"
	case NAKRemoteAccessError:
		return "remote access error"
	case NAKRemoteOperationalError:
		return "remote operational error"
	case NAKInvalidRDRequest:
		return "invalid RD request"
	}
	return fmt.Sprintf("NAKCode(%d)", uint8(c))
}
