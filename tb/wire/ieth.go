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

// DecodeFromBytes reads the 4 header bytes; the payload is the rest.
func (e *IETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return decodeFixed(&e.BaseLayer, "IETH", IETHLen, data, df, func(h []byte) {
		e.RKey = prm.Key(binary.BigEndian.Uint32(h[0:4]))
	})
}

// SerializeTo prepends the 4 header bytes.
func (e *IETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	return serializeFixed(b, IETHLen, func(d []byte) {
		binary.BigEndian.PutUint32(d, uint32(e.RKey))
	})
}
