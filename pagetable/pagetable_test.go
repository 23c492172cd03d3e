package pagetable

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

var seeds = flag.Int("pagetable.seeds", 30, "random map/unmap sequences TestRandom runs")

// memory is sparse host memory for the tests: 4 KiB pages, zero until
// written.
type memory map[uint64]*[PageBytes]byte

func (m memory) Read(addr uint64, b []byte) {
	if o := addr % PageBytes; o+uint64(len(b)) <= PageBytes {
		if p := m[addr/PageBytes]; p != nil {
			copy(b, p[o:])
		} else {
			clear(b)
		}
		return
	}
	for i := range b {
		p := m[(addr+uint64(i))/PageBytes]
		if p == nil {
			b[i] = 0
		} else {
			b[i] = p[(addr+uint64(i))%PageBytes]
		}
	}
}

func (m memory) Write(addr uint64, b []byte) {
	if o := addr % PageBytes; o+uint64(len(b)) <= PageBytes {
		p := m[addr/PageBytes]
		if p == nil {
			p = new([PageBytes]byte)
			m[addr/PageBytes] = p
		}
		copy(p[o:], b)
		return
	}
	for i, x := range b {
		n := (addr + uint64(i)) / PageBytes
		if m[n] == nil {
			m[n] = new([PageBytes]byte)
		}
		m[n][(addr+uint64(i))%PageBytes] = x
	}
}

const region = 0x7f00_0000_0000

var rid = Space{ID: 0x0100}

// TestEntryLayout: the bits of an entry, as the package doc gives them,
// read back from host memory little-endian.
func TestEntryLayout(t *testing.T) {
	m := memory{}
	tb := New(m, region, 1<<20)
	if err := tb.Map(rid, 0x4000_0000, 0x1_2345_6000_0000&^(1<<30-1), 1<<30, true, false); err != nil {
		t.Fatal(err)
	}
	res := tb.Walk(rid, 0x4000_1234)
	if !res.OK || res.N != 2 || res.Size != 1<<30 || !res.R || res.W {
		t.Fatalf("walk %+v: want a 1 GiB read-only leaf at level 3 after two steps", res)
	}
	leaf := res.Steps[1]
	var b [8]byte
	m.Read(leaf.Addr, b[:])
	if got := binary.LittleEndian.Uint64(b[:]); got != 0x1_2345_4000_0000|1<<7|1 || leaf.Level != 3 {
		t.Errorf("the leaf reads %#x at level %d, want PA|PS|R = %#x at level 3", got, leaf.Level, uint64(0x1_2345_4000_0000|1<<7|1))
	}
	root, _ := tb.Root(rid)
	if top := res.Steps[0]; top.Addr != root+8*0 || top.Entry&(R|W) != R|W || top.Entry.Addr() != leaf.Addr&^(PageBytes-1) {
		t.Errorf("the root entry %+v: want R|W pointing at the level-3 table of %#x", top, leaf.Addr)
	}
	if want := root + 8*index(0x4000_1234, 4); res.Steps[0].Addr != want || index(0x4000_1234, 3) != 1 {
		t.Errorf("index arithmetic: root step at %#x, want %#x", res.Steps[0].Addr, want)
	}
}

// TestMapLeaves: a range is mapped with the largest leaves its alignment
// allows, and a walk takes one step a level down to its leaf.
func TestMapLeaves(t *testing.T) {
	for _, tc := range []struct {
		iova, pa, size uint64
		sizes          []uint64 // leaf size at each 4 KiB... probed at offsets
		at             []uint64
		steps          []int
	}{
		{0x20_0000, 0x8000_0000, 2 << 20, []uint64{2 << 20, 2 << 20}, []uint64{0, 0x1f_ffff}, []int{3, 3}},
		{0x20_1000, 0x8000_1000, 2 << 20, []uint64{4096, 4096}, []uint64{0, 0x1f_f000}, []int{4, 4}},
		{0x4000_0000, 0x1_0000_0000, (1 << 30) + (2 << 20) + 4096, []uint64{1 << 30, 2 << 20, 4096}, []uint64{0x1234, 1 << 30, 1<<30 + 2<<20}, []int{2, 3, 4}},
	} {
		tb := New(memory{}, region, 1<<24)
		if err := tb.Map(rid, tc.iova, tc.pa, tc.size, true, true); err != nil {
			t.Fatal(err)
		}
		for k, off := range tc.at {
			res := tb.Walk(rid, tc.iova+off)
			if !res.OK || res.Size != tc.sizes[k] || res.N != tc.steps[k] || res.PA != tc.pa+off {
				t.Errorf("map %#x+%#x: at +%#x: %+v, want pa %#x in a leaf of %#x after %d steps", tc.iova, tc.size, off, res, tc.pa+off, tc.sizes[k], tc.steps[k])
			}
		}
		if res := tb.Walk(rid, tc.iova+tc.size); res.OK {
			t.Errorf("map %#x+%#x: the byte after the range is mapped", tc.iova, tc.size)
		}
	}
}

// TestRefusals: bad requests change nothing and say why.
func TestRefusals(t *testing.T) {
	tb := New(memory{}, region, 1<<20)
	if err := tb.Map(rid, 0x20_0000, 0x8000_0000, 2<<20, true, true); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"overlap", tb.Map(rid, 0x3f_f000, 0x9000_0000, 8192, true, false), "meets the mapping at iova 0x3ff000"},
		{"misaligned", tb.Map(rid, 0x1001, 0, 4096, true, false), "not 4 KiB-aligned"},
		{"size", tb.Map(rid, 0, 0, 100, true, false), "nonzero multiple of 4 KiB"},
		{"past 2^48", tb.Map(rid, 1<<48-4096, 0, 8192, true, false), "past 2^48"},
		{"no permission", tb.Map(rid, 0, 0, 4096, false, false), "grants read, write or both"},
		{"pasid", tb.Map(Space{PASID: true, ID: 1 << 20}, 0, 0, 4096, true, false), "pasid 0x100000 wider than 20 bits"},
		{"rid", tb.Map(Space{ID: 1 << 16}, 0, 0, 4096, true, false), "requester id 0x10000 wider than 16 bits"},
		{"unmap nothing", tb.Unmap(rid, 0x100_0000, 4096), "iova 0x1000000 is not mapped"},
		{"unmap no table", tb.Unmap(Space{ID: 7}, 0, 4096), "nothing is mapped in rid 0x0007"},
		{"cut a big page", tb.Unmap(rid, 0x20_0000, 4096), "cuts the 2 MiB page at 0x200000"},
		{"unmap past the end", tb.Unmap(rid, 0x20_0000, 4<<20), "iova 0x400000 is not mapped"},
		{"full", New(memory{}, region, 3*PageBytes).Map(rid, 0x1000, 0x1000, 4096, true, true), "no room left"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, tc.err, tc.want)
		}
	}
	// Nothing was changed by the refusals.
	if res := tb.Walk(rid, 0x20_1234); !res.OK || res.PA != 0x8000_1234 {
		t.Errorf("after the refusals: %+v", res)
	}
}

// TestRandom maps and unmaps random ranges (4 KiB to 1 GiB leaves, in
// requester ID and PASID spaces) and checks every walk against a plain
// list of the ranges mapped.
func TestRandom(t *testing.T) {
	type mapping struct {
		s             Space
		iova, pa, len uint64
		r, w          bool
	}
	for seed := int64(1); seed <= int64(*seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			tb := New(memory{}, region, 1<<30)
			spaces := []Space{{ID: 0}, {ID: 0x100}, {PASID: true, ID: 1}, {PASID: true, ID: MaxPASID}}
			var live []mapping
			find := func(s Space, a uint64) *mapping {
				for i := range live {
					if m := &live[i]; m.s == s && a >= m.iova && a < m.iova+m.len {
						return m
					}
				}
				return nil
			}
			for step := 0; step < 300; step++ {
				s := spaces[rng.Intn(len(spaces))]
				if len(live) > 0 && rng.Intn(3) == 0 {
					k := rng.Intn(len(live))
					m := live[k]
					if m.s != s {
						continue
					}
					if err := tb.Unmap(m.s, m.iova, m.len); err != nil {
						t.Fatalf("seed %d: unmap %+v: %v", seed, m, err)
					}
					live = append(live[:k], live[k+1:]...)
					continue
				}
				unit := []uint64{4096, 2 << 20, 1 << 30}[rng.Intn(3)]
				iova := uint64(rng.Int63n(1<<36)) &^ (unit - 1)
				pa := uint64(rng.Int63n(1<<40)) &^ (unit - 1)
				if unit < 1<<30 && rng.Intn(4) == 0 {
					pa += 4096 // misaligned: smaller leaves
				}
				n := unit * uint64(1+rng.Intn(3))
				if unit == 1<<30 {
					n = unit
				}
				m := mapping{s: s, iova: iova, pa: pa, len: n, r: rng.Intn(3) != 0}
				m.w = !m.r || rng.Intn(2) == 0
				err := tb.Map(s, iova, pa, n, m.r, m.w)
				overlaps := false
				for _, o := range live {
					if o.s == s && o.iova < iova+n && iova < o.iova+o.len {
						overlaps = true
					}
				}
				if overlaps != (err != nil) {
					t.Fatalf("seed %d: map %+v: %v, overlap %v", seed, m, err, overlaps)
				}
				if err == nil {
					live = append(live, m)
				}
				// Walk a few addresses of each space.
				for range 8 {
					a := uint64(rng.Int63n(1 << 36))
					if len(live) > 0 && rng.Intn(2) == 0 {
						o := live[rng.Intn(len(live))]
						a, s = o.iova+uint64(rng.Int63n(int64(o.len))), o.s
					}
					res, want := tb.Walk(s, a), find(s, a)
					switch {
					case want == nil && res.OK:
						t.Fatalf("seed %d: %v %#x: walk %+v, but nothing is mapped", seed, s, a, res)
					case want != nil && (!res.OK || res.PA != want.pa+(a-want.iova) || res.R != want.r || res.W != want.w):
						t.Fatalf("seed %d: %v %#x: walk %+v, want %+v", seed, s, a, res, *want)
					case res.OK && (a-want.iova)/res.Size != (a-want.iova+res.Size-1)/res.Size && res.PA&(res.Size-1) != a&(res.Size-1):
						t.Fatalf("seed %d: %v %#x: leaf of %#x not aligned with its page", seed, s, a, res.Size)
					}
				}
			}
		})
	}
}

// FuzzMapWalk maps a fuzzed range and walks fuzzed addresses: a map
// either fails and changes nothing, or every address of the range walks
// to its PA with its permissions and the bytes around it do not; an
// unmap of the same range then leaves nothing.
func FuzzMapWalk(f *testing.F) {
	f.Add(uint64(0x20_0000), uint64(0x8000_0000), uint64(2<<20), true, false, uint64(0x1234))
	f.Add(uint64(0x4000_0000), uint64(0x1_0000_1000), uint64(1<<30), false, true, uint64(0x3fff_ffff))
	f.Fuzz(func(t *testing.T, iova, pa, size uint64, r, w bool, off uint64) {
		size %= 1 << 31
		tb := New(memory{}, region, 1<<26)
		before := tb.next
		if err := tb.Map(rid, iova, pa, size, r, w); err != nil {
			if tb.next != before || len(tb.roots) != 0 {
				t.Fatalf("a refused map (%v) allocated tables", err)
			}
			return
		}
		a := iova + off%size
		if res := tb.Walk(rid, a); !res.OK || res.PA != pa+off%size || res.R != r || res.W != w || res.N < 2 || res.N > Levels {
			t.Fatalf("walk %#x: %+v, want pa %#x r %v w %v", a, res, pa+off%size, r, w)
		}
		if iova > 0 && tb.Walk(rid, iova-1).OK || tb.Walk(rid, iova+size).OK {
			t.Fatalf("a byte next to [%#x, +%#x) is mapped", iova, size)
		}
		if err := tb.Unmap(rid, iova, size); err != nil {
			t.Fatal(err)
		}
		if tb.Walk(rid, a).OK {
			t.Fatalf("%#x still mapped after the unmap", a)
		}
	})
}

// TestHugeRefusedInTime: a map of the whole IOVA space in 4 KiB leaves
// (the PA misaligned) needs far more tables than a small region holds:
// refused at once, not after counting 2^36 leaves.
func TestHugeRefusedInTime(t *testing.T) {
	tb := New(memory{}, region, 1<<26)
	err := tb.Map(rid, 0, 0x1000, 1<<48, true, false)
	if err == nil || !strings.Contains(err.Error(), "no room left") {
		t.Fatalf("map of 2^48 bytes in 4 KiB leaves: %v, want no room", err)
	}
	if err := tb.Map(rid, 0, 1<<30, 1<<47, true, false); err != nil {
		t.Fatalf("2^47 bytes in 1 GiB leaves (two tables below the root): %v", err)
	}
}
