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

// LayerType is LayerTypeImmDt.
func (m *ImmDt) LayerType() gopacket.LayerType { return LayerTypeImmDt }

// CanDecode is LayerTypeImmDt.
func (m *ImmDt) CanDecode() gopacket.LayerClass { return LayerTypeImmDt }

// NextLayerType is gopacket.LayerTypePayload.
func (m *ImmDt) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes reads the 4 header bytes; the payload is the rest.
func (m *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := need("ImmDt", data, ImmDtLen, df); err != nil {
		return err
	}
	m.Data = binary.BigEndian.Uint32(data[0:4])
	m.BaseLayer = layers.BaseLayer{Contents: data[:ImmDtLen], Payload: data[ImmDtLen:]}
	return nil
}

// SerializeTo prepends the 4 header bytes.
func (m *ImmDt) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(ImmDtLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(d, m.Data)
	return nil
}
