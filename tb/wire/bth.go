package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// BTHLen is the length of the Base Transport Header in bytes.
const BTHLen = 12

// BTH is the Base Transport Header that starts every RoCEv2 packet after
// the UDP header: the opcode, the destination queue pair and the PSN.
//
// Byte 4 is resv8a in InfiniBand; RoCEv2 (Annex A17) puts FECN and BECN in
// its two top bits and leaves six reserved. All multi-byte fields are
// big-endian.
type BTH struct {
	layers.BaseLayer
	Opcode   Opcode
	SE       bool   // solicited event: the responder should raise an event
	M        bool   // MigReq: the path migration state
	PadCount uint8  // pad bytes (0 to 3) that end the payload on 4 bytes
	TVer     uint8  // transport header version (4 bits), 0 today
	PKey     uint16 // partition key
	FECN     bool   // forward explicit congestion notification (byte 4 bit 7)
	BECN     bool   // backward explicit congestion notification (byte 4 bit 6)
	Resv6    uint8  // byte 4 bits 5:0, reserved (6 bits)
	DestQP   uint32 // destination queue pair number (24 bits)
	AckReq   bool   // the responder should acknowledge this packet
	Resv7    uint8  // byte 8 bits 6:0, reserved (7 bits)
	PSN      uint32 // packet sequence number (24 bits)
}

// LayerType is LayerTypeBTH.
func (b *BTH) LayerType() gopacket.LayerType { return LayerTypeBTH }

// CanDecode is LayerTypeBTH: a BTH decodes only itself.
func (b *BTH) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType is the first extension header the opcode names, or
// gopacket.LayerTypePayload when it names none or is not Known.
func (b *BTH) NextLayerType() gopacket.LayerType {
	if h := b.Opcode.Headers(); len(h) > 0 {
		return h[0]
	}
	return gopacket.LayerTypePayload
}

// DecodeFromBytes reads the 12 header bytes; the payload is the rest of
// data (extension headers, payload, pad and ICRC). Every bit pattern
// decodes: only a short buffer is an error.
func (b *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < BTHLen {
		df.SetTruncated()
		return &prm.SizeError{Format: "BTH", Want: BTHLen, Got: len(data)}
	}
	b.Opcode = Opcode(data[0])
	b.SE = data[1]&0x80 != 0
	b.M = data[1]&0x40 != 0
	b.PadCount = data[1] >> 4 & 3
	b.TVer = data[1] & 0x0F
	b.PKey = binary.BigEndian.Uint16(data[2:4])
	b.FECN = data[4]&0x80 != 0
	b.BECN = data[4]&0x40 != 0
	b.Resv6 = data[4] & 0x3F
	b.DestQP = binary.BigEndian.Uint32(data[4:8]) & 0xFFFFFF
	b.AckReq = data[8]&0x80 != 0
	b.Resv7 = data[8] & 0x7F
	b.PSN = binary.BigEndian.Uint32(data[8:12]) & 0xFFFFFF
	b.BaseLayer = layers.BaseLayer{Contents: data[:BTHLen], Payload: data[BTHLen:]}
	return nil
}

// SerializeTo prepends the 12 header bytes. A field wider than its bits is
// an error naming it; nothing is computed (PadCount is written as given).
func (b *BTH) SerializeTo(buf gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	for _, f := range []struct {
		name string
		v    uint32
		bits int
	}{
		{"PadCount", uint32(b.PadCount), 2},
		{"TVer", uint32(b.TVer), 4},
		{"Resv6", uint32(b.Resv6), 6},
		{"DestQP", b.DestQP, 24},
		{"Resv7", uint32(b.Resv7), 7},
		{"PSN", b.PSN, 24},
	} {
		if err := checkBits("BTH", f.name, uint64(f.v), f.bits); err != nil {
			return err
		}
	}
	d, err := buf.PrependBytes(BTHLen)
	if err != nil {
		return err
	}
	d[0] = uint8(b.Opcode)
	d[1] = bit(b.SE, 7) | bit(b.M, 6) | b.PadCount<<4 | b.TVer
	binary.BigEndian.PutUint16(d[2:4], b.PKey)
	binary.BigEndian.PutUint32(d[4:8], b.DestQP)
	d[4] = bit(b.FECN, 7) | bit(b.BECN, 6) | b.Resv6
	binary.BigEndian.PutUint32(d[8:12], b.PSN)
	d[8] = bit(b.AckReq, 7) | b.Resv7
	return nil
}

// bit is 1<<n when b is true, else 0.
func bit(b bool, n uint) uint8 {
	if b {
		return 1 << n
	}
	return 0
}

// checkBits reports a field value wider than its bits, naming the header,
// the field and the value.
func checkBits(header, field string, v uint64, bits int) error {
	if bits < 64 && v>>bits != 0 {
		return fmt.Errorf("wire: %s %s %#x does not fit in %d bits", header, field, v, bits)
	}
	return nil
}
