package pagetable

import (
	"encoding/binary"
	"fmt"
)

// Memory is host memory as the tables live in it (pcie.Memory,
// ref.Memory): never-written bytes read as zero.
type Memory interface {
	Read(addr uint64, b []byte)
	Write(addr uint64, b []byte)
}

// The entry's bits.
const (
	R  Entry = 1 << 0 // read permission
	W  Entry = 1 << 1 // write permission
	PS Entry = 1 << 7 // a leaf above level 1

	addrBits Entry = (1<<52 - 1) &^ (PageBytes - 1)
)

// The shape of a table.
const (
	Levels    = 4    // levels of a table, 4 the root's
	PageBytes = 4096 // the smallest page, and a table's size
	IOVABits  = 48   // the IOVAs a table maps
	entries   = 512  // entries of a table
	// MaxPASID is the largest PASID (20 bits).
	MaxPASID = 1<<20 - 1
	// MaxRequesterID is the largest requester ID (16 bits).
	MaxRequesterID = 1<<16 - 1
)

// Shift is the lowest IOVA bit of level's index: 12 at level 1, 21, 30,
// 39 at level 4. A leaf at level maps 1 << Shift(level) bytes.
func Shift(level int) uint { return 12 + 9*uint(level-1) }

// Entry is one 8-byte entry of a table.
type Entry uint64

// Present reports whether the entry maps something (R or W).
func (e Entry) Present() bool { return e&(R|W) != 0 }

// Addr is the physical address of the next table or of the page.
func (e Entry) Addr() uint64 { return uint64(e & addrBits) }

// Leaf reports whether the entry maps a page at level (not a table).
func (e Entry) Leaf(level int) bool { return level == 1 || e&PS != 0 }

// Space names a table: a requester ID's, or a PASID's.
type Space struct {
	PASID bool   // ID is a PASID (20 bits), not a requester ID (16 bits)
	ID    uint32 // the requester ID or the PASID
	// ICM is the clocked model's table of the HCA's ICM (issue 36), which
	// the bench maps one to one: a domain of its own (ID 0), so that a
	// scenario's IOVAs never meet the ICM's.
	ICM bool
}

// ICM is the space of the ICM's table.
var ICM = Space{ICM: true}

// String names the space as errors and docs do: rid 0x0100, pasid 0x2a.
func (s Space) String() string {
	if s.ICM {
		return "icm"
	}
	if s.PASID {
		return fmt.Sprintf("pasid %#x", s.ID)
	}
	return fmt.Sprintf("rid %#04x", s.ID)
}

// Validate names a requester ID wider than 16 bits or a PASID wider than
// 20.
func (s Space) Validate() error {
	switch {
	case s.ICM && (s.PASID || s.ID != 0):
		return fmt.Errorf("the ICM's space has no %v", Space{PASID: s.PASID, ID: s.ID})
	case s.PASID && s.ID > MaxPASID:
		return fmt.Errorf("pasid %#x wider than 20 bits", s.ID)
	case !s.PASID && s.ID > MaxRequesterID:
		return fmt.Errorf("requester id %#x wider than 16 bits", s.ID)
	}
	return nil
}

// Tables is one IOMMU's tables, in a region of host memory it allocates
// a table page at a time (never freed: an unmapped table stays, empty).
type Tables struct {
	mem       Memory
	next, end uint64
	roots     map[Space]uint64
}

// New returns the tables of an IOMMU that keeps them in the size bytes
// of mem at base (both multiples of 4 KiB, checked by the caller's
// configuration).
func New(mem Memory, base, size uint64) *Tables {
	return &Tables{mem: mem, next: base, end: base + size, roots: map[Space]uint64{}}
}

// Root returns the root table of s, and whether s has one (a space
// nothing was ever mapped in has none).
func (t *Tables) Root(s Space) (uint64, bool) {
	r, ok := t.roots[s]
	return r, ok
}

func (t *Tables) read(addr uint64) Entry {
	var b [8]byte
	t.mem.Read(addr, b[:])
	return Entry(binary.LittleEndian.Uint64(b[:]))
}

func (t *Tables) write(addr uint64, e Entry) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(e))
	t.mem.Write(addr, b[:])
}

// alloc returns a fresh table page.
func (t *Tables) alloc() (uint64, error) {
	if t.next+PageBytes > t.end {
		return 0, fmt.Errorf("the I/O page tables' region is full (%d tables)", (t.end-t.next)/PageBytes)
	}
	a := t.next
	t.next += PageBytes
	return a, nil
}

// index is the entry of iova's table at level.
func index(iova uint64, level int) uint64 { return iova >> Shift(level) & (entries - 1) }

// checkRange reports the first reason [iova, iova+size) cannot be mapped
// in s or unmapped from it.
func checkRange(s Space, iova, size uint64) error {
	switch {
	case s.Validate() != nil:
		return s.Validate()
	case size == 0 || size%PageBytes != 0:
		return fmt.Errorf("%v: size %#x: want a nonzero multiple of 4 KiB", s, size)
	case iova%PageBytes != 0:
		return fmt.Errorf("%v: iova %#x not 4 KiB-aligned", s, iova)
	case iova >= 1<<IOVABits || size > 1<<IOVABits-iova:
		return fmt.Errorf("%v: [%#x, +%#x) past 2^48, the IOVAs a table maps", s, iova, size)
	}
	return nil
}

// Map maps [iova, iova+size) in s to [pa, pa+size) with permissions r and
// w, each part with the largest leaf its alignment allows (1 GiB, 2 MiB,
// 4 KiB). It changes nothing and names the reason when the range meets a
// mapping of s, is not 4 KiB-aligned, lies past 2^48, grants nothing, or
// the tables' region has no room.
func (t *Tables) Map(s Space, iova, pa, size uint64, r, w bool) error {
	if err := checkRange(s, iova, size); err != nil {
		return err
	}
	switch {
	case !r && !w:
		return fmt.Errorf("%v: iova %#x: a mapping grants read, write or both", s, iova)
	case pa%PageBytes != 0 || pa+size > 1<<52 || pa+size < pa:
		return fmt.Errorf("%v: pa %#x: want 4 KiB-aligned, below 2^52", s, pa)
	}
	root, ok := t.roots[s]
	if ok {
		if a, hit := t.used(root, Levels, iova, iova+size); hit {
			return fmt.Errorf("%v: [%#x, +%#x) meets the mapping at iova %#x", s, iova, size, a)
		}
	}
	// Room for the tables the range needs, counted before any write, so
	// that nothing is written half.
	if room := (t.end - t.next) / PageBytes; t.tablesNeeded(root, ok, iova, pa, size, room) > room {
		return fmt.Errorf("%v: no room left for the I/O page tables of [%#x, +%#x)", s, iova, size)
	}
	if !ok {
		root, _ = t.alloc()
		t.roots[s] = root
	}
	perm := Entry(0)
	if r {
		perm |= R
	}
	if w {
		perm |= W
	}
	for done := uint64(0); done < size; {
		level := leafLevel(iova+done, pa+done, size-done)
		if err := t.mapLeaf(root, iova+done, pa+done, level, perm); err != nil {
			return err // the region filled despite the estimate: cannot happen
		}
		done += 1 << Shift(level)
	}
	return nil
}

// leafLevel is the level of the largest leaf that maps iova to pa with at
// least rest bytes left: 3 (1 GiB), 2 (2 MiB) or 1 (4 KiB).
func leafLevel(iova, pa, rest uint64) int {
	for l := 3; l > 1; l-- {
		n := uint64(1) << Shift(l)
		if iova%n == 0 && pa%n == 0 && rest >= n {
			return l
		}
	}
	return 1
}

// tablesNeeded counts the tables mapping [iova, iova+size) to pa would
// make: the root if the space has none (hasRoot false), and each table
// above a leaf not there yet. It stops counting past limit (the region's
// room), and steps over the 4 KiB leaves of one last-level table at once,
// so that a huge range is counted in time bounded by the room, not by its
// leaves.
func (t *Tables) tablesNeeded(root uint64, hasRoot bool, iova, pa, size, limit uint64) uint64 {
	n := uint64(0)
	if !hasRoot {
		n++
	}
	made := map[[2]uint64]bool{} // level, the IOVA's bits above it: tables this map makes
	for done := uint64(0); done < size && n <= limit; {
		level := leafLevel(iova+done, pa+done, size-done)
		a := iova + done
		table, there := root, hasRoot
		for l := Levels; l > level; l-- {
			key := [2]uint64{uint64(l - 1), a >> Shift(l)}
			if there {
				if e := t.read(table + 8*index(a, l)); e.Present() {
					table = e.Addr()
					continue
				}
				there = false
			}
			if !made[key] {
				made[key] = true
				n++
			}
		}
		step := uint64(1) << Shift(level)
		if level == 1 {
			// Every 4 KiB leaf up to the end of this last-level table
			// (or of the range) needs the same tables above it.
			step = min(size-done, (a|(1<<Shift(2)-1))+1-a)
		}
		done += step
	}
	return n
}

// mapLeaf writes one leaf at level for iova, making the tables above it.
func (t *Tables) mapLeaf(root, iova, pa uint64, level int, perm Entry) error {
	table := root
	for l := Levels; l > level; l-- {
		at := table + 8*index(iova, l)
		e := t.read(at)
		if !e.Present() {
			next, err := t.alloc()
			if err != nil {
				return err
			}
			e = Entry(next) | R | W
			t.write(at, e)
		}
		table = e.Addr()
	}
	leaf := Entry(pa) | perm
	if level > 1 {
		leaf |= PS
	}
	t.write(table+8*index(iova, level), leaf)
	return nil
}

// used reports the first mapped address of [lo, hi) in the table at
// level, if any.
func (t *Tables) used(table uint64, level int, lo, hi uint64) (uint64, bool) {
	span := uint64(1) << Shift(level)
	for a := lo &^ (span - 1); a < hi; a += span {
		e := t.read(table + 8*index(a, level))
		switch {
		case !e.Present():
		case e.Leaf(level):
			return max(a, lo), true
		default:
			if u, hit := t.used(e.Addr(), level-1, max(a, lo), min(a+span, hi)); hit {
				return u, true
			}
		}
	}
	return 0, false
}

// Unmap removes every mapping of [iova, iova+size) in s. It changes
// nothing and names the reason when a part of the range is not mapped or
// a leaf lies only partly inside it (unmapping half of a 2 MiB page).
func (t *Tables) Unmap(s Space, iova, size uint64) error {
	if err := checkRange(s, iova, size); err != nil {
		return err
	}
	root, ok := t.roots[s]
	if !ok {
		return fmt.Errorf("%v: iova %#x: nothing is mapped in %v", s, iova, s)
	}
	if err := t.unmap(root, Levels, iova, iova+size, false); err != nil {
		return fmt.Errorf("%v: %w", s, err)
	}
	return t.unmap(root, Levels, iova, iova+size, true)
}

// unmap checks (write false) or clears (write true) the leaves of
// [lo, hi) under the table at level.
func (t *Tables) unmap(table uint64, level int, lo, hi uint64, write bool) error {
	span := uint64(1) << Shift(level)
	for a := lo &^ (span - 1); a < hi; a += span {
		at := table + 8*index(a, level)
		e := t.read(at)
		switch {
		case !e.Present():
			return fmt.Errorf("iova %#x is not mapped", max(a, lo))
		case e.Leaf(level):
			if a < lo || a+span > hi {
				return fmt.Errorf("iova %#x: the range cuts the %s page at %#x", max(a, lo), sizeName(span), a)
			}
			if write {
				t.write(at, 0)
			}
		default:
			if err := t.unmap(e.Addr(), level-1, max(a, lo), min(a+span, hi), write); err != nil {
				return err
			}
		}
	}
	return nil
}

// sizeName names a leaf's size.
func sizeName(n uint64) string {
	switch n {
	case 1 << 30:
		return "1 GiB"
	case 1 << 21:
		return "2 MiB"
	}
	return "4 KiB"
}

// Step is one entry a walk read: its level, its address, and the entry.
type Step struct {
	Level int
	Addr  uint64
	Entry Entry
}

// Result is a walk's outcome. OK: iova lies in a leaf of Size bytes that
// maps it to PA with the permissions R and W. Not OK: an entry on the way
// mapped nothing, the last of Steps (none when the space has no table).
type Result struct {
	PA, Size uint64
	R, W, OK bool
	Steps    [Levels]Step
	N        int // steps read
}

// Walk translates iova through the table at root, reading one entry a
// level from mem, as the IOMMU's walker does; an IOVA past 2^48 maps
// nothing.
func Walk(mem Memory, root, iova uint64) Result {
	var res Result
	if iova >= 1<<IOVABits {
		return res
	}
	var b [8]byte
	table := root
	for l := Levels; l >= 1; l-- {
		at := table + 8*index(iova, l)
		mem.Read(at, b[:])
		e := Entry(binary.LittleEndian.Uint64(b[:]))
		res.Steps[res.N] = Step{Level: l, Addr: at, Entry: e}
		res.N++
		if !e.Present() {
			return res
		}
		if e.Leaf(l) {
			size := uint64(1) << Shift(l)
			res.PA, res.Size, res.R, res.W, res.OK = e.Addr()&^(size-1)|iova&(size-1), size, e&R != 0, e&W != 0, true
			return res
		}
		table = e.Addr()
	}
	return res
}

// Walk translates iova in s (Walk on s's root); a space with no table
// maps nothing.
func (t *Tables) Walk(s Space, iova uint64) Result {
	root, ok := t.roots[s]
	if !ok {
		return Result{}
	}
	return Walk(t.mem, root, iova)
}
