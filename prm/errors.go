package prm

import (
	"fmt"
	"strings"
)

// ReservedDword names the reserved bits found set in one dword.
type ReservedDword struct {
	Offset int    // byte offset of the dword
	Bits   uint32 // the reserved bits that were set
}

// ReservedBitsError reports reserved bits found set while parsing. The value
// returned beside it is still parsed in full: the bits are reported, not
// silently dropped.
type ReservedBitsError struct {
	Format string
	Dwords []ReservedDword
}

func (e *ReservedBitsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: reserved bits set:", e.Format)
	for _, d := range e.Dwords {
		fmt.Fprintf(&b, " %02Xh=%#010x", d.Offset, d.Bits)
	}
	return b.String()
}

// SizeError reports a buffer of the wrong length for a format.
type SizeError struct {
	Format    string
	Want, Got int
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s: need %d bytes, got %d", e.Format, e.Want, e.Got)
}

// FieldError reports a field whose value the format does not allow, or
// that contradicts the rest of the bytes. The value returned beside it is
// parsed as far as the bytes allow.
type FieldError struct {
	Format string
	Field  string
	Value  uint64
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %s %#x: %s", e.Format, e.Field, e.Value, e.Reason)
}
