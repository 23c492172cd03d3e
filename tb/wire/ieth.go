package wire

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// IETHLen is the length of the Invalidate Extended Transport Header in
// bytes.
const IETHLen = 4

// IETH is the Invalidate Extended Transport Header of SEND_LAST and
// SEND_ONLY with invalidate: the R_Key the responder invalidates once the
// message has arrived.
type IETH struct {
	layers.BaseLayer
	RKey prm.Key // the remote key to invalidate
}

// LayerType is LayerTypeIETH.
func (e *IETH) LayerType() gopacket.LayerType { return LayerTypeIETH }

// CanDecode is LayerTypeIETH.
func (e *IETH) CanDecode() gopacket.LayerClass { return LayerTypeIETH }

// NextLayerType is gopacket.LayerTypePayload: the send's data follows.
func (e *IETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes reads the 4 header bytes; the payload is the rest.
func (e *IETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := need("IETH", data, IETHLen, df); err != nil {
		return err
	}
	e.RKey = prm.Key(binary.BigEndian.Uint32(data[0:4]))
	e.BaseLayer = layers.BaseLayer{Contents: data[:IETHLen], Payload: data[IETHLen:]}
	return nil
}

// SerializeTo prepends the 4 header bytes.
func (e *IETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(IETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(d, uint32(e.RKey))
	return nil
}
