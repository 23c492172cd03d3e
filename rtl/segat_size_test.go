package rtl

import (
	"testing"
	"unsafe"
)

// TestSegAtSize holds the reorder buffer's segment to 40 bytes: with
// rob_entries x keepMax of them, it is what bounds the model's memory
// (cmd/mkeysim's TestWorstCase: under 1 GiB).
func TestSegAtSize(t *testing.T) {
	if n := unsafe.Sizeof(segAt{}); n != 40 {
		t.Fatalf("segAt is %d bytes, want 40", n)
	}
}
