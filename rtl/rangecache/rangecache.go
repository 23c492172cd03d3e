// Package rangecache is the array of a cache of address translations
// whose entries are ranges of a power of two of at least 4 KiB, aligned
// to their size: the device's ATC (rtl/atc) and the host IOMMU's IOTLB
// (rtl/iommu) keep theirs in one. It is a library, not a unit: it has no
// ports and no clock.
//
// An entry of 2^n bytes at base, of address space tag (an IOTLB's
// requester ID or PASID; 0 for the ATC, which has one), sits in set
// (base >> n) mod sets, so a lookup finds a range of any size with one
// probe per size the array holds, and every size shares the ways. An
// entry may be hidden: dropped for lookups by an invalidation while its
// owner still needs it (the ATC's entries that results hold); a hidden
// entry is never a victim, and frees when its owner says so.
package rangecache

import (
	"math/bits"

	"mkeysim/rtl/linecache"
)

// Entry is one range and its value.
type Entry[V any] struct {
	Valid  bool // holds a range (live or hidden)
	Hidden bool // dropped for lookups, kept for its owner
	Log    uint8
	Tag    uint64
	Base   uint64
	Val    V
}

// Size is the entry's range in bytes.
func (e *Entry[V]) Size() uint64 { return 1 << e.Log }

// Contains reports whether the entry's range holds addr.
func (e *Entry[V]) Contains(addr uint64) bool { return addr>>e.Log == e.Base>>e.Log }

// Overlaps reports whether the entry's range meets [lo, hi).
func (e *Entry[V]) Overlaps(lo, hi uint64) bool { return e.Base < hi && lo < e.Base+e.Size() }

// Array is the entries in sets of ways with a replacement policy.
type Array[V any] struct {
	sets, ways int
	e          []Entry[V]
	pol        linecache.Policy
	count      [64]int // entries held (live or hidden) of each log2 size
	present    uint64  // bit n set while count[n] > 0
	held       int
}

// New returns an empty array of entries in sets of ways (sets a power of
// two), replaced by policy (linecache.LRU, PLRU, NRU or Random).
func New[V any](entries, ways int, policy string, seed uint64) *Array[V] {
	if ways == 0 {
		ways = entries
	}
	a := &Array[V]{sets: entries / ways, ways: ways, e: make([]Entry[V], entries)}
	a.pol = linecache.NewPolicy(policy, a.sets, a.ways, seed)
	return a
}

// At is entry i.
func (a *Array[V]) At(i int) *Entry[V] { return &a.e[i] }

// Len is the number of entries.
func (a *Array[V]) Len() int { return len(a.e) }

// Held is the number of entries that hold a range (live or hidden).
func (a *Array[V]) Held() int { return a.held }

func (a *Array[V]) set(addr uint64, log uint8) int { return int(addr>>log) & (a.sets - 1) }

// Lookup returns the live entry of tag whose range holds addr, -1 if none.
func (a *Array[V]) Lookup(tag, addr uint64) int {
	for p := a.present; p != 0; p &= p - 1 {
		log := uint8(bits.TrailingZeros64(p))
		lo := a.set(addr, log) * a.ways
		for i := lo; i < lo+a.ways; i++ {
			if e := &a.e[i]; e.Valid && !e.Hidden && e.Log == log && e.Tag == tag && e.Contains(addr) {
				return i
			}
		}
	}
	return -1
}

// Use records a hit on entry i for the replacement policy.
func (a *Array[V]) Use(i int) { a.pol.Touch(i/a.ways, i%a.ways) }

// Fill installs the range of 2^log bytes at base of tag with value v. It
// takes an invalid way (the lowest), else the policy's victim, else,
// when the victim is pinned (pinned(i) true, or hidden), the lowest way
// that is not. It returns the entry and whether it evicted a live one; ok
// is false when every way of the set is pinned: the fill must wait.
// pinned may be nil.
func (a *Array[V]) Fill(tag, base uint64, log uint8, v V, pinned func(i int) bool) (i int, evicted, ok bool) {
	set := a.set(base, log)
	lo := set * a.ways
	held := func(k int) bool { return a.e[k].Hidden || pinned != nil && pinned(k) }
	i = -1
	for k := lo; k < lo+a.ways; k++ {
		if !a.e[k].Valid {
			i = k
			break
		}
	}
	if i < 0 {
		if i = lo + a.pol.Victim(set); held(i) {
			i = -1
			for k := lo; k < lo+a.ways; k++ {
				if !held(k) {
					i = k
					break
				}
			}
			if i < 0 {
				return -1, false, false
			}
		}
		a.Free(i)
		evicted = true
	}
	a.e[i] = Entry[V]{Valid: true, Log: log, Tag: tag, Base: base, Val: v}
	a.count[log]++
	a.present |= 1 << log
	a.held++
	a.pol.Touch(set, i-lo)
	return i, evicted, true
}

// Free drops entry i.
func (a *Array[V]) Free(i int) {
	e := &a.e[i]
	if !e.Valid {
		return
	}
	if a.count[e.Log]--; a.count[e.Log] == 0 {
		a.present &^= 1 << e.Log
	}
	a.held--
	a.pol.Drop(i/a.ways, i%a.ways)
	*e = Entry[V]{}
}

// Invalidate drops every live entry of tag (any tag when all) that meets
// [lo, hi): at once, or, when keep(i) says its owner still needs it,
// hidden until the owner frees it. keep may be nil. It returns how many
// it dropped.
func (a *Array[V]) Invalidate(tag uint64, all bool, lo, hi uint64, keep func(i int) bool) int {
	n := 0
	for i := range a.e {
		if e := &a.e[i]; e.Valid && !e.Hidden && (all || e.Tag == tag) && e.Overlaps(lo, hi) {
			n++
			if keep != nil && keep(i) {
				e.Hidden = true
			} else {
				a.Free(i)
			}
		}
	}
	return n
}

// HiddenIn reports whether a hidden entry meets [lo, hi).
func (a *Array[V]) HiddenIn(lo, hi uint64) bool {
	for i := range a.e {
		if e := &a.e[i]; e.Hidden && e.Overlaps(lo, hi) {
			return true
		}
	}
	return false
}
