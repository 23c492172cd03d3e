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

// LayerType is LayerTypeRETH.
func (r *RETH) LayerType() gopacket.LayerType { return LayerTypeRETH }

// CanDecode is LayerTypeRETH.
func (r *RETH) CanDecode() gopacket.LayerClass { return LayerTypeRETH }

// NextLayerType is gopacket.LayerTypePayload: without the opcode a RETH
// cannot know that an ImmDt follows it (RDMA_WRITE_ONLY_WITH_IMMEDIATE).
func (r *RETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes reads the 16 header bytes; the payload is the rest.
func (r *RETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := need("RETH", data, RETHLen, df); err != nil {
		return err
	}
	r.VA = binary.BigEndian.Uint64(data[0:8])
	r.RKey = prm.Key(binary.BigEndian.Uint32(data[8:12]))
	r.DMALength = binary.BigEndian.Uint32(data[12:16])
	r.BaseLayer = layers.BaseLayer{Contents: data[:RETHLen], Payload: data[RETHLen:]}
	return nil
}

// SerializeTo prepends the 16 header bytes.
func (r *RETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(RETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(d[0:8], r.VA)
	binary.BigEndian.PutUint32(d[8:12], uint32(r.RKey))
	binary.BigEndian.PutUint32(d[12:16], r.DMALength)
	return nil
}

// need reports data shorter than n bytes as a *prm.SizeError naming the
// header, and marks the packet truncated.
func need(header string, data []byte, n int, df gopacket.DecodeFeedback) error {
	if len(data) < n {
		df.SetTruncated()
		return &prm.SizeError{Format: header, Want: n, Got: len(data)}
	}
	return nil
}
