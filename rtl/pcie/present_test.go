package pcie

import (
	"slices"
	"testing"
)

// TestPresentPages: the pages written, in order, inside the range only,
// whether the range or the map is the smaller.
func TestPresentPages(t *testing.T) {
	m := NewMemory()
	for _, p := range []uint64{7, 3, 1 << 40, 100, 1<<52 - 1} {
		m.Write(p*MemPageBytes+5, []byte{1})
	}
	m.Write(0x10*MemPageBytes-1, []byte{1, 2}) // pages 0xf and 0x10
	for _, c := range []struct {
		lo, hi uint64
		want   []uint64
	}{
		{0, 1 << 52, []uint64{3, 7, 0xf, 0x10, 100, 1 << 40, 1<<52 - 1}},
		{4, 8, []uint64{7}},
		{8, 0xf, nil},
		{0xf, 0x11, []uint64{0xf, 0x10}},
		{101, 1 << 40, nil},
		{1 << 40, 1<<40 + 1, []uint64{1 << 40}},
		{5, 5, nil},
		{9, 2, nil},
	} {
		if got := m.PresentPages(c.lo, c.hi); !slices.Equal(got, c.want) {
			t.Errorf("PresentPages(%#x, %#x) = %#x, want %#x", c.lo, c.hi, got, c.want)
		}
	}
}
