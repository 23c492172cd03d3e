package prm

import "fmt"

// Key is a full 32-bit memory key: a 24-bit index and an 8-bit variant.
type Key uint32

// MakeKey builds a key from its index (24 bits, higher bits dropped) and variant.
func MakeKey(index uint32, variant uint8) Key {
	return Key(index<<8 | uint32(variant))
}

// Index is the MKC table index the key names (key >> 8).
func (k Key) Index() uint32 { return uint32(k) >> 8 }

// Variant is the low byte of the key, checked against MKC.mkey[7:0].
func (k Key) Variant() uint8 { return uint8(k) }

// String prints the key as 0x and lowercase hex, as result lines do.
func (k Key) String() string { return fmt.Sprintf("%#x", uint32(k)) }

// MaxIndex is the largest MKey index (24 bits).
const MaxIndex = 1<<24 - 1
