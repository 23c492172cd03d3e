package prm

import "encoding/binary"

// BitRange is one contiguous run of bits inside a dword: bits Hi..Lo of the
// big-endian dword at byte Offset.
type BitRange struct {
	Offset int // byte offset of the dword, a multiple of 4
	Hi, Lo int // bit numbers, 31 the most significant
}

// Width is the number of bits in the range.
func (r BitRange) Width() int { return r.Hi - r.Lo + 1 }

func (r BitRange) mask() uint32 {
	return uint32((uint64(1)<<uint(r.Width()) - 1) << uint(r.Lo))
}

// checkReserved returns a ReservedBitsError for any set bit of b that
// reserved marks, or nil.
func checkReserved(format string, b []byte, reserved []uint32) error {
	var e *ReservedBitsError
	for i, m := range reserved {
		if got := binary.BigEndian.Uint32(b[4*i:]) & m; got != 0 {
			if e == nil {
				e = &ReservedBitsError{Format: format}
			}
			e.Dwords = append(e.Dwords, ReservedDword{Offset: 4 * i, Bits: got})
		}
	}
	if e == nil {
		return nil
	}
	return e
}
