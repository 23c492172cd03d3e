package pcie

import "unsafe"

// slab hands out memory carved from large chunks: one allocation per
// chunk instead of one per TLP or read, in the model's hot path. A chunk
// is freed by the garbage collector once no piece of it is in use, so a
// piece may live as long as it must (a completion on a long link).
type slab[T any] struct{ buf []T }

// slabBytes is about how many bytes a chunk holds, whatever the element:
// a chunk of 16K read contexts was a megabyte, cleared and faulted in by
// the first read of every run (4 % of the time of a short hit-bound run).
const slabBytes = 16 << 10

// take returns n zeroed elements, their capacity capped at n.
func (s *slab[T]) take(n int) []T {
	if n > len(s.buf) {
		var z T
		s.buf = make([]T, max(n, slabBytes/max(1, int(unsafe.Sizeof(z)))))
	}
	b := s.buf[:n:n]
	s.buf = s.buf[n:]
	return b
}
