package wire

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// ImmDtLen is the length of the Immediate Data header in bytes.
const ImmDtLen = 4

// ImmDt is the Immediate Data header of the opcodes WITH_IMMEDIATE: four
// bytes the responder hands to the consumer in its completion.
type ImmDt struct {
	layers.BaseLayer
	Data uint32 // the immediate data, big-endian on the wire
}

// DecodeFromBytes reads the 4 header bytes; the payload is the rest.
func (m *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return decodeFixed(&m.BaseLayer, "ImmDt", ImmDtLen, data, df, func(h []byte) {
		m.Data = binary.BigEndian.Uint32(h[0:4])
	})
}

// SerializeTo prepends the 4 header bytes.
func (m *ImmDt) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	return serializeFixed(b, ImmDtLen, func(d []byte) {
		binary.BigEndian.PutUint32(d, m.Data)
	})
}
