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

// DecodeFromBytes reads the 28 header bytes; the payload is the rest.
func (a *AtomicETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return decodeFixed(&a.BaseLayer, "AtomicETH", AtomicETHLen, data, df, func(h []byte) {
		a.VA = binary.BigEndian.Uint64(h[0:8])
		a.RKey = prm.Key(binary.BigEndian.Uint32(h[8:12]))
		a.SwapAdd = binary.BigEndian.Uint64(h[12:20])
		a.Compare = binary.BigEndian.Uint64(h[20:28])
	})
}

// SerializeTo prepends the 28 header bytes.
func (a *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	return serializeFixed(b, AtomicETHLen, func(d []byte) {
		binary.BigEndian.PutUint64(d[0:8], a.VA)
		binary.BigEndian.PutUint32(d[8:12], uint32(a.RKey))
		binary.BigEndian.PutUint64(d[12:20], a.SwapAdd)
		binary.BigEndian.PutUint64(d[20:28], a.Compare)
	})
}

// AtomicAckETH is the Atomic Acknowledge Extended Transport Header that
// follows the AETH of an ATOMIC_ACKNOWLEDGE: the word as it was before the
// atomic operation.
type AtomicAckETH struct {
	layers.BaseLayer
	OrigRemoteData uint64 // the remote 8-byte word before the operation
}

// DecodeFromBytes reads the 8 header bytes; the payload is the rest.
func (a *AtomicAckETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return decodeFixed(&a.BaseLayer, "AtomicAckETH", AtomicAckETHLen, data, df, func(h []byte) {
		a.OrigRemoteData = binary.BigEndian.Uint64(h[0:8])
	})
}

// SerializeTo prepends the 8 header bytes.
func (a *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	return serializeFixed(b, AtomicAckETHLen, func(d []byte) {
		binary.BigEndian.PutUint64(d, a.OrigRemoteData)
	})
}
