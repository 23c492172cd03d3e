package wire

import (
	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// What makes every header of a fixed length (the extension headers and
// the ICRC trailer) a gopacket layer, for all of them at once: its layer
// type, what follows it, the decoding of its bytes with the rest of the
// data as its payload, and the prepending of its bytes when serialised.
// Each header's own file says only what is its own: its length, its
// fields and their places (in its DecodeFromBytes and SerializeTo). The
// BTH, whose next layer its opcode names, is a layer in bth.go.

// LayerType is the header's layer type (register.go names the numbers).
func (r *RETH) LayerType() gopacket.LayerType         { return LayerTypeRETH }
func (a *AtomicETH) LayerType() gopacket.LayerType    { return LayerTypeAtomicETH }
func (m *ImmDt) LayerType() gopacket.LayerType        { return LayerTypeImmDt }
func (e *IETH) LayerType() gopacket.LayerType         { return LayerTypeIETH }
func (a *AETH) LayerType() gopacket.LayerType         { return LayerTypeAETH }
func (a *AtomicAckETH) LayerType() gopacket.LayerType { return LayerTypeAtomicAckETH }
func (c *ICRCTrailer) LayerType() gopacket.LayerType  { return LayerTypeICRC }

// CanDecode is the header's layer type: each decodes only itself.
func (r *RETH) CanDecode() gopacket.LayerClass         { return LayerTypeRETH }
func (a *AtomicETH) CanDecode() gopacket.LayerClass    { return LayerTypeAtomicETH }
func (m *ImmDt) CanDecode() gopacket.LayerClass        { return LayerTypeImmDt }
func (e *IETH) CanDecode() gopacket.LayerClass         { return LayerTypeIETH }
func (a *AETH) CanDecode() gopacket.LayerClass         { return LayerTypeAETH }
func (a *AtomicAckETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicAckETH }
func (c *ICRCTrailer) CanDecode() gopacket.LayerClass  { return LayerTypeICRC }

// NextLayerType is what follows the header decoded on its own: for an
// extension header, gopacket.LayerTypePayload. Without the opcode, a
// RETH cannot know that an ImmDt follows it
// (RDMA_WRITE_ONLY_WITH_IMMEDIATE), nor an AETH that an AtomicAckETH does
// (ATOMIC_ACKNOWLEDGE); the send's data follows an IETH; only the ICRC
// follows an AtomicETH (an atomic request carries no data) or an
// AtomicAckETH. Nothing of the packet follows the ICRC:
// gopacket.LayerTypeZero.
func (r *RETH) NextLayerType() gopacket.LayerType         { return gopacket.LayerTypePayload }
func (a *AtomicETH) NextLayerType() gopacket.LayerType    { return gopacket.LayerTypePayload }
func (m *ImmDt) NextLayerType() gopacket.LayerType        { return gopacket.LayerTypePayload }
func (e *IETH) NextLayerType() gopacket.LayerType         { return gopacket.LayerTypePayload }
func (a *AETH) NextLayerType() gopacket.LayerType         { return gopacket.LayerTypePayload }
func (a *AtomicAckETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }
func (c *ICRCTrailer) NextLayerType() gopacket.LayerType  { return gopacket.LayerTypeZero }

// decodeFixed is the DecodeFromBytes of a header of n bytes: data shorter
// than n is an error naming the header (need); else read takes the n
// header bytes, and base gets them as its contents and the rest of data
// as its payload.
func decodeFixed(base *layers.BaseLayer, header string, n int, data []byte, df gopacket.DecodeFeedback, read func(h []byte)) error {
	if err := need(header, data, n, df); err != nil {
		return err
	}
	read(data[:n])
	*base = layers.BaseLayer{Contents: data[:n], Payload: data[n:]}
	return nil
}

// serializeFixed is the SerializeTo of a header of n bytes: write fills
// the n bytes prepended to b.
func serializeFixed(b gopacket.SerializeBuffer, n int, write func(d []byte)) error {
	d, err := b.PrependBytes(n)
	if err != nil {
		return err
	}
	write(d)
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
