package ref

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// flatMemory is the plain description of Memory the tests compare it with:
// every byte written, and the pages made (a page is made by the first
// write that puts a byte other than zero in it).
type flatMemory struct {
	bytes map[uint64]byte
	pages map[uint64]bool
}

func (f *flatMemory) write(a uint64, b []byte) {
	for i, c := range b {
		at := a + uint64(i)
		f.bytes[at] = c
		if c != 0 {
			f.pages[at>>pageShift] = true
		}
	}
}

func (f *flatMemory) read(a uint64, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = f.bytes[a+uint64(i)]
	}
	return out
}

func (f *flatMemory) nextPresent(a uint64) (uint64, bool) {
	var best uint64
	found := false
	for pn := range f.pages {
		if pn >= a>>pageShift && (!found || pn < best) {
			best, found = pn, true
		}
	}
	switch {
	case !found:
		return 0, false
	case best == a>>pageShift:
		return a, true
	}
	return best << pageShift, true
}

// genAddr draws addresses near the borders the directory has: pages,
// 2 MB leaves, 4 GB regions, the allocator's base and the top of the
// 64-bit space (writes and reads wrap there).
func genAddr(t *rapid.T) uint64 {
	base := rapid.SampledFrom([]uint64{
		0, HandleBase, HandleBase + 1<<21, 2 * HandleBase, 1 << 47, 1 << 48,
		0xffff_ffff_0000_0000, math.MaxUint64 - 1<<21 + 1, math.MaxUint64 - pageSize + 1,
	}).Draw(t, "base")
	return base + rapid.Uint64Range(0, 3*pageSize).Draw(t, "off") - pageSize
}

// genBytes draws what a write stores: up to two pages and a bit, all
// zeros, a pattern, or zeros with one other byte (which alone makes its
// page).
func genBytes(t *rapid.T) []byte {
	b := make([]byte, rapid.IntRange(0, 2*pageSize+3).Draw(t, "len"))
	switch rapid.IntRange(0, 2).Draw(t, "fill") {
	case 1:
		seed := rapid.Byte().Draw(t, "seed")
		for i := range b {
			b[i] = byte(i)*seed + 1
		}
	case 2:
		if len(b) > 0 {
			b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = 0x5a
		}
	}
	return b
}

// TestMemoryAgainstFlat writes, reads and searches a Memory and a
// flatMemory side by side.
func TestMemoryAgainstFlat(t *testing.T) {
	noRapidFailFile(t)
	rapid.Check(t, func(t *rapid.T) {
		m := NewMemory()
		f := &flatMemory{bytes: map[uint64]byte{}, pages: map[uint64]bool{}}
		for range rapid.IntRange(1, 40).Draw(t, "ops") {
			a := genAddr(t)
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				b := genBytes(t)
				m.Write(a, b)
				f.write(a, b)
			case 2:
				n := rapid.IntRange(0, 2*pageSize+3).Draw(t, "n")
				got := make([]byte, n)
				m.Read(a, got)
				if want := f.read(a, n); !bytes.Equal(got, want) {
					t.Fatalf("Read(%#x, %d) differs", a, n)
				}
				n = rapid.SampledFrom([]int{8, 16, 64}).Draw(t, "peek")
				if got, want := m.peek(a, make([]byte, n)), f.read(a, n); !bytes.Equal(got, want) {
					t.Fatalf("peek(%#x, %d) = % x, want % x", a, n, got, want)
				}
			case 3:
				got, ok := m.NextPresent(a)
				want, wok := f.nextPresent(a)
				if got != want || ok != wok {
					t.Fatalf("NextPresent(%#x) = %#x, %v, want %#x, %v", a, got, ok, want, wok)
				}
			}
		}
		if m.Pages() != len(f.pages) {
			t.Fatalf("%d pages, want %d", m.Pages(), len(f.pages))
		}
		for pn := range f.pages {
			if m.dir.page(pn) == nil {
				t.Fatalf("page %#x missing", pn)
			}
		}
	})
}

// TestPageDirNext walks the present pages of a directory spread over
// several leaves and regions in order with next, as QUERY_MKEY and the KLM
// walker do.
func TestPageDirNext(t *testing.T) {
	var d pageDir
	pns := []uint64{
		0, 1, leafPages - 1, leafPages, 5*leafPages + 7, 1<<regionShift - 1, 1 << regionShift,
		3<<regionShift + 2*leafPages, 1<<52 - 1,
	}
	for _, pn := range slices.Backward(pns) {
		d.pageOrNew(pn)[0] = 1
	}
	if d.len() != len(pns) {
		t.Fatalf("%d pages, want %d", d.len(), len(pns))
	}
	var got []uint64
	for pn, ok := d.next(0); ok; pn, ok = d.next(pn + 1) {
		got = append(got, pn)
		if pn == 1<<52-1 {
			break // pn+1 would wrap to page 0
		}
	}
	if !slices.Equal(got, pns) {
		t.Fatalf("next walks %#x, want %#x", got, pns)
	}
	if _, ok := d.next(2); !ok {
		t.Fatal("no page after page 2")
	}
	if d.page(2) != nil || d.page(1<<regionShift+1) != nil || d.page(7<<regionShift) != nil {
		t.Fatal("a page never written is present")
	}
	if noRegion[0] != &noLeaf || noLeaf[0] != nil {
		t.Fatal("the shared empty region or leaf was written")
	}
}
