package atc

import (
	"math/bits"

	"mkeysim/rtl/linecache"
)

// entry is one translation the ATC holds: the untranslated range of 2^log
// bytes at base maps to the one at pa, with the permissions r and w.
type entry struct {
	valid bool // the entry holds a translation (live or dying)
	// dying: an invalidation dropped the translation while results
	// still held it; no lookup finds it, and it frees when the last of
	// them is released.
	dying bool
	log   uint8
	r, w  bool
	base  uint64
	pa    uint64
	users int // OK results that hold the entry, not yet released
}

// contains reports whether the entry's range holds addr.
func (e *entry) contains(addr uint64) bool { return addr>>e.log == e.base>>e.log }

// overlaps reports whether the entry's range meets [lo, hi).
func (e *entry) overlaps(lo, hi uint64) bool {
	return e.base < hi && lo < e.base+(uint64(1)<<e.log)
}

// array is the ATC's entries in sets of ways. An entry of 2^log bytes at
// base sits in set (base >> log) mod sets, so that a lookup finds a
// range of any size in one probe per size the array holds (present).
type array struct {
	sets, ways int
	e          []entry
	pol        linecache.Policy
	count      [64]int // entries held (live or dying) of each log2 size
	present    uint64  // bit log set while count[log] > 0
}

func newArray(cfg Config) *array {
	a := &array{sets: cfg.sets(), ways: cfg.ways(), e: make([]entry, cfg.Entries)}
	a.pol = linecache.NewPolicy(cfg.Replacement, a.sets, a.ways, cfg.Seed)
	return a
}

func (a *array) set(addr uint64, log uint8) int { return int(addr>>log) & (a.sets - 1) }

// lookup returns the live entry whose range holds addr, -1 if none.
func (a *array) lookup(addr uint64) int {
	for p := a.present; p != 0; p &= p - 1 {
		log := uint8(bits.TrailingZeros64(p))
		lo := a.set(addr, log) * a.ways
		for i := lo; i < lo+a.ways; i++ {
			if e := &a.e[i]; e.valid && !e.dying && e.log == log && e.contains(addr) {
				return i
			}
		}
	}
	return -1
}

// use records a hit on entry i for the replacement policy.
func (a *array) use(i int) { a.pol.Touch(i/a.ways, i%a.ways) }

// fill installs the translation of the 2^log bytes at base to pa. It
// returns the entry and whether it evicted a live one; ok is false when
// every way of the set is held by results (the fill must wait).
func (a *array) fill(base uint64, log uint8, pa uint64, r, w bool) (i int, evicted, ok bool) {
	set := a.set(base, log)
	lo := set * a.ways
	i = -1
	for k := lo; k < lo+a.ways; k++ {
		if !a.e[k].valid {
			i = k
			break
		}
	}
	if i < 0 {
		i = lo + a.pol.Victim(set)
		if a.pinned(i) {
			i = -1
			for k := lo; k < lo+a.ways; k++ {
				if !a.pinned(k) {
					i = k
					break
				}
			}
			if i < 0 {
				return -1, false, false
			}
		}
		a.free(i)
		evicted = true
	}
	a.e[i] = entry{valid: true, log: log, r: r, w: w, base: base, pa: pa}
	a.count[log]++
	a.present |= 1 << log
	a.pol.Touch(set, i-lo)
	return i, evicted, true
}

// pinned reports whether entry i may not be evicted: results hold it, or
// it is dying.
func (a *array) pinned(i int) bool { return a.e[i].users > 0 || a.e[i].dying }

// free drops entry i.
func (a *array) free(i int) {
	e := &a.e[i]
	if !e.valid {
		return
	}
	if a.count[e.log]--; a.count[e.log] == 0 {
		a.present &^= 1 << e.log
	}
	a.pol.Drop(i/a.ways, i%a.ways)
	*e = entry{}
}

// invalidate drops every live entry that meets [lo, hi): those no result
// holds at once, the others when their last result is released (dying).
// It returns how many it dropped.
func (a *array) invalidate(lo, hi uint64) int {
	n := 0
	for i := range a.e {
		if e := &a.e[i]; e.valid && !e.dying && e.overlaps(lo, hi) {
			n++
			if e.users == 0 {
				a.free(i)
			} else {
				e.dying = true
			}
		}
	}
	return n
}

// dyingIn reports whether a dying entry meets [lo, hi).
func (a *array) dyingIn(lo, hi uint64) bool {
	for i := range a.e {
		if e := &a.e[i]; e.dying && e.overlaps(lo, hi) {
			return true
		}
	}
	return false
}

// held is the number of entries that hold a translation.
func (a *array) held() int {
	n := 0
	for _, c := range a.count {
		n += c
	}
	return n
}
