package pcie

import (
	"testing"
	"unsafe"
)

// TestSlab: take hands out zeroed pieces whose capacity ends at their
// length (an append cannot run into the next piece), carved from chunks
// of about slabBytes whatever the element's size, and a piece larger than
// a chunk gets a chunk of its own.
func TestSlab(t *testing.T) {
	var ctxs slab[readCtx]
	per := slabBytes / int(unsafe.Sizeof(readCtx{}))
	a := ctxs.take(1)
	a[0].addr = 7
	b := ctxs.take(2)
	if len(a) != 1 || cap(a) != 1 || len(b) != 2 || cap(b) != 2 {
		t.Fatalf("pieces of len/cap %d/%d and %d/%d, want 1/1 and 2/2", len(a), cap(a), len(b), cap(b))
	}
	if b[0].addr != 0 || b[0].data != nil || uintptr(unsafe.Pointer(&b[0]))-uintptr(unsafe.Pointer(&a[0])) != unsafe.Sizeof(readCtx{}) {
		t.Errorf("the second piece is not the zeroed element after the first")
	}
	if left := len(ctxs.buf); left != per-3 {
		t.Errorf("%d contexts left in the chunk, want %d (chunks of %d bytes)", left, per-3, slabBytes)
	}
	var bytes slab[byte]
	if big := bytes.take(slabBytes + 1); len(big) != slabBytes+1 || len(bytes.buf) != 0 {
		t.Errorf("a piece larger than a chunk: len %d, %d left, want %d and 0", len(big), len(bytes.buf), slabBytes+1)
	}
	if small := bytes.take(10); len(small) != 10 || len(bytes.buf) != slabBytes-10 {
		t.Errorf("after it, a new chunk: %d left, want %d", len(bytes.buf), slabBytes-10)
	}
}
