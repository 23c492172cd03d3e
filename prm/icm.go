package prm

import "encoding/binary"

// ICMCreatedBit is the firmware's created flag in dword 00h of an MKC as
// stored in ICM: the ICM copy of an MKC uses reserved bit 00h.31 as the
// firmware's created flag; images leaving the model never carry it.
const ICMCreatedBit = 1 << 31

// DecodeMKC parses a 64-byte MKC image as read from ICM, ignoring reserved
// bits (ICMCreatedBit among them): it is ParseMKC without the
// *ReservedBitsError. A buffer that is not MKCSize bytes decodes to the
// zero MKC.
func DecodeMKC(b []byte) MKC {
	var m MKC
	DecodeMKCInto(&m, b)
	return m
}

// DecodeMKCInto is DecodeMKC writing into m, which the model's hot path
// keeps on the heap already (decoding into a local makes one escape).
func DecodeMKCInto(m *MKC, b []byte) {
	if len(b) != MKCSize {
		*m = MKC{}
		return
	}
	decodeMKC(m, b) // no *ReservedBitsError built and dropped: the created bit is one
}

// ICMCreated reports whether the ICM image b carries the firmware's created
// flag (ICMCreatedBit of dword 00h). A buffer shorter than a dword reports
// false.
func ICMCreated(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	return binary.BigEndian.Uint32(b)&ICMCreatedBit != 0
}

// HandleReach is the end of the space a 48-bit mtt_handle can name: a
// translation list must end at or below it (translation.md 3.2).
const HandleReach = 1 << 48

// ListFits reports whether a list of octwords 16-byte units at handle ends
// at or below HandleReach, computed without wrap.
func ListFits(handle, octwords uint64) bool {
	return handle <= HandleReach && octwords <= (HandleReach-handle)/16
}
