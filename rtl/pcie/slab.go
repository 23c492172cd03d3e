package pcie

// slab hands out memory carved from large chunks: one allocation per
// chunk instead of one per TLP or read, in the model's hot path. A chunk
// is freed by the garbage collector once no piece of it is in use, so a
// piece may live as long as it must (a completion on a long link).
type slab[T any] struct{ buf []T }

// slabSize is how many elements a chunk holds.
const slabSize = 1 << 14

// take returns n zeroed elements, their capacity capped at n.
func (s *slab[T]) take(n int) []T {
	if n > len(s.buf) {
		s.buf = make([]T, max(n, slabSize))
	}
	b := s.buf[:n:n]
	s.buf = s.buf[n:]
	return b
}
