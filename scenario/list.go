package scenario

import (
	"fmt"
	"sort"

	"mkeysim/prm"
)

// ListKind says how the entries of a queried list are decoded: as MTT
// entries (access mode MTT) or KLM entries (KLM, Fixed Buffer Size).
type ListKind uint8

// The kinds of list a query_mkey line carries.
const (
	ListMTT ListKind = iota + 1 // 8-byte MTT entries, written as "mtt"
	ListKLM                     // 16-byte KLM entries, written as "klm"
)

// String is the list's key in a result line: "mtt" or "klm".
func (k ListKind) String() string {
	switch k {
	case ListMTT:
		return "mtt"
	case ListKLM:
		return "klm"
	}
	return "list?"
}

// EntrySize is the size of one entry in bytes (8 or 16).
func (k ListKind) EntrySize() uint64 {
	if k == ListMTT {
		return prm.MTTEntrySize
	}
	return prm.KLMEntrySize
}

// ListOf is the kind and capacity in entries of the translation list of a
// context: MTT mode, 2 MTT entries an octword of translations_octword_size;
// KLM and Fixed Buffer Size, 1 KLM entry an octword; the other modes have
// no list (kind 0).
func ListOf(m *prm.MKC) (ListKind, uint64) {
	size := uint64(m.TranslationsOctwordSize)
	switch {
	case m.AccessMode.UsesMTTList():
		return ListMTT, 2 * size
	case m.AccessMode.UsesKLMList():
		return ListKLM, size
	}
	return 0, 0
}

// SnapshotPageSize is the page of a SparseMemory: 4 KB, the allocation unit
// of both models' host memories.
const SnapshotPageSize = 4096

// pageNumbers is the number of pages in the 64-bit space.
const pageNumbers = 1 << (64 - 12)

// SparseMemory is host memory allocated in pages on first write, as both
// models keep their ICM: bytes never written read as zero.
type SparseMemory interface {
	// Read fills b from address addr (wrapping at 2^64).
	Read(addr uint64, b []byte)
	// PresentPages returns, in increasing order, the page numbers p
	// (address / SnapshotPageSize) with lo <= p < hi of the pages that may
	// hold a byte that is not zero: every page ever written, or fewer. Its
	// cost must be bounded by the smaller of hi-lo and the pages present,
	// never by hi-lo alone when that is large.
	PresentPages(lo, hi uint64) []uint64
}

// List is the translation list of a query_mkey line: its kind and count,
// and its entries, read on demand.
//
// QUERY_MKEY returns a window of at most MaxQueryEntries entries
// (QueryWindow.Range) of a list that may reserve 2^33 MTT entries. A
// model's list is a snapshot of the pages of sparse ICM that were present
// inside the window's range when the query ran (SnapshotList): what it
// holds is bounded by the window and by the list bytes the scenario
// actually wrote, absent pages decode as zero entries, and a later UMR
// that rewrites the list does not change it. A
// list read from a result line (ReadResults) keeps its entries in memory
// (NewMTTList, NewKLMList), as it was all in the line anyway. Each
// snapshot is its own copy: N queries of a list of P written pages hold
// N x P pages for as long as their results are kept, so a caller that
// must stay within the bytes the scenario wrote writes each line as it
// comes and drops it.
//
// Entries are read one at a time (MTT, KLM) or streamed: Result.WriteLine
// writes a list a chunk at a time and DiffList compares two lists entry
// by entry, skipping the runs that are zero on both sides. A
// List is immutable; it may be shared and read from several goroutines.
type List struct {
	kind  ListKind
	count uint64
	mtt   []prm.MTTEntry // in memory (kind ListMTT, snap nil)
	klm   []prm.KLMEntry // in memory (kind ListKLM, snap nil)
	snap  *snapshot
}

// NewMTTList is an MTT list held in memory; it keeps e (not a copy).
func NewMTTList(e []prm.MTTEntry) *List {
	return &List{kind: ListMTT, count: uint64(len(e)), mtt: e}
}

// NewKLMList is a KLM list held in memory; it keeps e (not a copy).
func NewKLMList(e []prm.KLMEntry) *List {
	return &List{kind: ListKLM, count: uint64(len(e)), klm: e}
}

// maxSnapshotBytes bounds a snapshot's range so that offsets inside it
// never overflow: a list ending at the 48-bit reach of mtt_handle needs at
// most 2^48 bytes.
const maxSnapshotBytes = 1 << 62

// SnapshotList is the list of count entries of kind at addr in mem, as mem
// holds it now: it copies the bytes of mem's present pages that lie inside
// the list's range [addr, addr + count x entry size) (wrapping at 2^64),
// and nothing for the absent pages, which read as zero entries. Its memory
// and time are bounded by the present pages in the range (and by the
// range when that is smaller), never by count. Later writes to mem do not
// change the list. It panics if the range exceeds 2^62 bytes.
func SnapshotList(mem SparseMemory, kind ListKind, addr, count uint64) *List {
	if kind != ListMTT && kind != ListKLM {
		panic(fmt.Sprintf("scenario.SnapshotList: list kind %d", kind))
	}
	size := kind.EntrySize()
	if count > maxSnapshotBytes/size {
		panic(fmt.Sprintf("scenario.SnapshotList: %d entries of %d bytes exceed 2^62 bytes", count, size))
	}
	s := &snapshot{addr: addr, n: count * size}
	if s.n > 0 {
		first := addr / SnapshotPageSize
		last := (addr + s.n - 1) / SnapshotPageSize // wraps with the range
		var pages []uint64
		if last >= first {
			pages = mem.PresentPages(first, last+1)
		} else {
			pages = append(mem.PresentPages(first, pageNumbers), mem.PresentPages(0, last+1)...)
		}
		s.fill(mem, pages)
	}
	return &List{kind: kind, count: count, snap: s}
}

// Kind is the list's kind; 0 for a nil list.
func (l *List) Kind() ListKind {
	if l == nil {
		return 0
	}
	return l.kind
}

// Len is the number of entries; a nil list has none.
func (l *List) Len() uint64 {
	if l == nil {
		return 0
	}
	return l.count
}

// MTT is entry i of an MTT list. It panics if the list is not an MTT list
// or i >= Len().
func (l *List) MTT(i uint64) prm.MTTEntry {
	l.check(ListMTT, i)
	if l.snap == nil {
		return l.mtt[i]
	}
	var b [prm.MTTEntrySize]byte
	l.snap.read(i*prm.MTTEntrySize, b[:])
	return prm.DecodeMTTEntry(b[:])
}

// KLM is entry i of a KLM list. It panics if the list is not a KLM list or
// i >= Len().
func (l *List) KLM(i uint64) prm.KLMEntry {
	l.check(ListKLM, i)
	if l.snap == nil {
		return l.klm[i]
	}
	var b [prm.KLMEntrySize]byte
	l.snap.read(i*prm.KLMEntrySize, b[:])
	return prm.DecodeKLMEntry(b[:])
}

func (l *List) check(k ListKind, i uint64) {
	if l.kind != k {
		panic(fmt.Sprintf("scenario.List: entry of a %v list read as %v", l.kind, k))
	}
	if i >= l.count {
		panic(fmt.Sprintf("scenario.List: entry %d of %d", i, l.count))
	}
}

// listChunk is how many entries the streaming readers decode at a time.
const listChunk = 256

// chunkReader decodes a list's entries a chunk at a time into buffers it
// reuses, so that streaming a list of any length allocates a constant (a
// reader on the stack: read returns the chunk rather than keeping a
// slice of its own buffers, which would send it to the heap).
type chunkReader struct {
	l   *List
	raw [listChunk * prm.KLMEntrySize]byte
	mtt [listChunk]prm.MTTEntry
	klm [listChunk]prm.KLMEntry
}

// read decodes up to listChunk entries from i (i < Len()) and returns
// them, in mtt or klm by the list's kind; they are valid until the next
// read.
func (r *chunkReader) read(i uint64) (mtt []prm.MTTEntry, klm []prm.KLMEntry) {
	l := r.l
	n := int(min(listChunk, l.count-i))
	switch {
	case l.snap == nil && l.kind == ListMTT:
		return l.mtt[i : i+uint64(n)], nil
	case l.snap == nil:
		return nil, l.klm[i : i+uint64(n)]
	case l.kind == ListMTT:
		b := r.raw[:n*prm.MTTEntrySize]
		l.snap.read(i*prm.MTTEntrySize, b)
		for j := range n {
			r.mtt[j] = prm.DecodeMTTEntry(b[j*prm.MTTEntrySize:])
		}
		return r.mtt[:n], nil
	default:
		b := r.raw[:n*prm.KLMEntrySize]
		l.snap.read(i*prm.KLMEntrySize, b)
		for j := range n {
			r.klm[j] = prm.DecodeKLMEntry(b[j*prm.KLMEntrySize:])
		}
		return nil, r.klm[:n]
	}
}

// zeroUntil returns the least j >= i such that the entries [i, j) are all
// zero entries as far as the list can tell cheaply (a snapshot: those
// that touch no present page); Len() when all from i are. For a list in
// memory it is i.
func (l *List) zeroUntil(i uint64) uint64 {
	if l.snap == nil || i >= l.count {
		return i
	}
	return l.snap.zeroUntil(i, l.kind.EntrySize(), l.count)
}

// DiffList compares two queried lists entry by entry, streaming both (a
// list of billions of entries is compared in constant memory, and the runs
// of entries that are zero on both sides are skipped). A nil list equals
// an empty list of either kind, as a result line without a list equals
// one with "mtt":[]. It returns "" when they agree, else the first
// difference: the counts, the kinds, or the first entry that differs, by
// index.
func DiffList(got, want *List) string {
	gn, wn := got.Len(), want.Len()
	if gn != wn {
		return fmt.Sprintf("the queried list has %d entries, want %d", gn, wn)
	}
	if gn == 0 {
		return ""
	}
	if got.kind != want.kind {
		return fmt.Sprintf("the queried list is %v, want %v", got.kind, want.kind)
	}
	g, w := chunkReader{l: got}, chunkReader{l: want}
	for i := uint64(0); i < gn; {
		if j := min(got.zeroUntil(i), want.zeroUntil(i)); j > i {
			i = j
			continue
		}
		gm, gk := g.read(i)
		wm, wk := w.read(i)
		for k := range gm {
			if gm[k] != wm[k] {
				return fmt.Sprintf("the queried list differs at mtt[%d]: %s, want %s", i+uint64(k), mttString(gm[k]), mttString(wm[k]))
			}
		}
		for k := range gk {
			if gk[k] != wk[k] {
				return fmt.Sprintf("the queried list differs at klm[%d]: %s, want %s", i+uint64(k), klmString(gk[k]), klmString(wk[k]))
			}
		}
		i += uint64(len(gm) + len(gk))
	}
	return ""
}

func mttString(e prm.MTTEntry) string {
	return string(appendMTT(nil, e))
}

func klmString(e prm.KLMEntry) string {
	return string(appendKLM(nil, e))
}

// snapshot holds the bytes of a list's range that lay in present pages of
// a sparse memory. Offsets are from the list's first byte; pages are keyed
// by rel, their number counted from the page holding that byte, so a range
// that wraps at 2^64 needs no special case.
type snapshot struct {
	addr  uint64 // the list's first byte
	n     uint64 // the range's length in bytes
	pages []snapPage
}

// snapPage is the part of a present page inside the range: the bytes at
// page offsets [start, start+len(data)).
type snapPage struct {
	rel   uint64
	start uint64
	data  []byte
}

// fill copies the in-range part of each present page into one buffer.
func (s *snapshot) fill(mem SparseMemory, nums []uint64) {
	if len(nums) == 0 {
		return
	}
	first := s.addr / SnapshotPageSize
	lead := s.addr % SnapshotPageSize
	s.pages = make([]snapPage, len(nums))
	sizes := make([]uint64, len(nums))
	total := uint64(0)
	for i, p := range nums {
		rel := (p - first) % pageNumbers
		start := uint64(0)
		if rel == 0 {
			start = lead
		}
		// The range ends at offset lead+n from the first page's start.
		end := min(SnapshotPageSize, lead+s.n-rel*SnapshotPageSize)
		s.pages[i] = snapPage{rel: rel, start: start}
		sizes[i] = end - start
		total += end - start
	}
	buf := make([]byte, total)
	for i := range s.pages {
		pg := &s.pages[i]
		pg.data, buf = buf[:sizes[i]:sizes[i]], buf[sizes[i]:]
		mem.Read((first+pg.rel)*SnapshotPageSize+pg.start, pg.data)
	}
	if !sort.SliceIsSorted(s.pages, func(i, j int) bool { return s.pages[i].rel < s.pages[j].rel }) {
		sort.Slice(s.pages, func(i, j int) bool { return s.pages[i].rel < s.pages[j].rel })
	}
}

// read fills b with the bytes at offset off of the range (off+len(b) <= n).
func (s *snapshot) read(off uint64, b []byte) {
	lead := s.addr % SnapshotPageSize
	for len(b) > 0 {
		pos := lead + off // from the first page's start
		rel, o := pos/SnapshotPageSize, pos%SnapshotPageSize
		n := min(uint64(len(b)), SnapshotPageSize-o)
		k := sort.Search(len(s.pages), func(k int) bool { return s.pages[k].rel >= rel })
		if k < len(s.pages) && s.pages[k].rel == rel {
			pg := &s.pages[k]
			copy(b[:n], pg.data[o-pg.start:])
		} else {
			clear(b[:n])
		}
		b = b[n:]
		off += n
	}
}

// zeroUntil returns the least j >= i such that entries [i, j) of size
// bytes touch no present page (count when none from i does).
func (s *snapshot) zeroUntil(i, size, count uint64) uint64 {
	lead := s.addr % SnapshotPageSize
	rel := (lead + i*size) / SnapshotPageSize
	k := sort.Search(len(s.pages), func(k int) bool { return s.pages[k].rel >= rel })
	if k == len(s.pages) {
		return count
	}
	r := s.pages[k].rel
	if r == rel {
		return i
	}
	// Page r starts at offset r*PageSize-lead of the range, past entry i's
	// first byte; the entry holding that offset is the first to touch it.
	return max(i, (r*SnapshotPageSize-lead)/size)
}
