package wire

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// RETHLen is the length of the RDMA Extended Transport Header in bytes.
const RETHLen = 16

// RETH is the RDMA Extended Transport Header of RDMA WRITE (first, only)
// and RDMA READ requests: where in the responder's memory, under which
// R_Key, and how many bytes the whole operation moves.
type RETH struct {
	layers.BaseLayer
	VA        uint64  // virtual address of the first byte
	RKey      prm.Key // remote key the responder checks the access against
	DMALength uint32  // length of the whole RDMA operation in bytes
}

// DecodeFromBytes reads the 16 header bytes; the payload is the rest.
func (r *RETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return decodeFixed(&r.BaseLayer, "RETH", RETHLen, data, df, func(h []byte) {
		r.VA = binary.BigEndian.Uint64(h[0:8])
		r.RKey = prm.Key(binary.BigEndian.Uint32(h[8:12]))
		r.DMALength = binary.BigEndian.Uint32(h[12:16])
	})
}

// SerializeTo prepends the 16 header bytes.
func (r *RETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	return serializeFixed(b, RETHLen, func(d []byte) {
		binary.BigEndian.PutUint64(d[0:8], r.VA)
		binary.BigEndian.PutUint32(d[8:12], uint32(r.RKey))
		binary.BigEndian.PutUint32(d[12:16], r.DMALength)
	})
}
