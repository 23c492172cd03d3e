package wire

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// AtomicETHLen and AtomicAckETHLen are the lengths in bytes of the Atomic
// Extended Transport Header and the Atomic Acknowledge one.
const (
	AtomicETHLen    = 28
	AtomicAckETHLen = 8
)

// AtomicETH is the Atomic Extended Transport Header of COMPARE_SWAP and
// FETCH_ADD requests: the 8-byte word to operate on, under which R_Key, and
// the operands.
type AtomicETH struct {
	layers.BaseLayer
	VA      uint64  // virtual address of the 8-byte word
	RKey    prm.Key // remote key the responder checks the access against
	SwapAdd uint64  // the value to swap in (COMPARE_SWAP) or to add (FETCH_ADD)
	Compare uint64  // the value to compare with (COMPARE_SWAP only)
}

// LayerType is LayerTypeAtomicETH.
func (a *AtomicETH) LayerType() gopacket.LayerType { return LayerTypeAtomicETH }

// CanDecode is LayerTypeAtomicETH.
func (a *AtomicETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicETH }

// NextLayerType is gopacket.LayerTypePayload, though only the ICRC follows
// an AtomicETH: an atomic request carries no data.
func (a *AtomicETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes reads the 28 header bytes; the payload is the rest.
func (a *AtomicETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := need("AtomicETH", data, AtomicETHLen, df); err != nil {
		return err
	}
	a.VA = binary.BigEndian.Uint64(data[0:8])
	a.RKey = prm.Key(binary.BigEndian.Uint32(data[8:12]))
	a.SwapAdd = binary.BigEndian.Uint64(data[12:20])
	a.Compare = binary.BigEndian.Uint64(data[20:28])
	a.BaseLayer = layers.BaseLayer{Contents: data[:AtomicETHLen], Payload: data[AtomicETHLen:]}
	return nil
}

// SerializeTo prepends the 28 header bytes.
func (a *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(AtomicETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(d[0:8], a.VA)
	binary.BigEndian.PutUint32(d[8:12], uint32(a.RKey))
	binary.BigEndian.PutUint64(d[12:20], a.SwapAdd)
	binary.BigEndian.PutUint64(d[20:28], a.Compare)
	return nil
}

// AtomicAckETH is the Atomic Acknowledge Extended Transport Header that
// follows the AETH of an ATOMIC_ACKNOWLEDGE: the word as it was before the
// atomic operation.
type AtomicAckETH struct {
	layers.BaseLayer
	OrigRemoteData uint64 // the remote 8-byte word before the operation
}

// LayerType is LayerTypeAtomicAckETH.
func (a *AtomicAckETH) LayerType() gopacket.LayerType { return LayerTypeAtomicAckETH }

// CanDecode is LayerTypeAtomicAckETH.
func (a *AtomicAckETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicAckETH }

// NextLayerType is gopacket.LayerTypePayload, though only the ICRC follows
// an AtomicAckETH.
func (a *AtomicAckETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes reads the 8 header bytes; the payload is the rest.
func (a *AtomicAckETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := need("AtomicAckETH", data, AtomicAckETHLen, df); err != nil {
		return err
	}
	a.OrigRemoteData = binary.BigEndian.Uint64(data[0:8])
	a.BaseLayer = layers.BaseLayer{Contents: data[:AtomicAckETHLen], Payload: data[AtomicAckETHLen:]}
	return nil
}

// SerializeTo prepends the 8 header bytes.
func (a *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	d, err := b.PrependBytes(AtomicAckETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(d, a.OrigRemoteData)
	return nil
}
