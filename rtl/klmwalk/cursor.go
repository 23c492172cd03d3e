package klmwalk

// cursors remembers where recent pieces of variable KLM lists left off:
// for each, the list, the entry j the piece used last and the byte T[j] of
// the key's space where that entry starts. A piece of a list whose first
// byte d lies at or past some T[j] of that list starts its search at the
// nearest such entry instead of entry 0 (entries 0..j-1 end before T[j],
// so the entry it needs is j or later): the same entry the search from 0
// would find, at the cost of the entries between.
//
// Why a walker has one: a responder translates an RDMA WRITE or READ one
// packet (or one DMA burst) at a time, each a piece a little further into
// the same key than the last; searching each from entry 0 costs the
// position in the list, so a transfer over a list of n entries costs n^2/2
// entry reads. Keeping the position per list, as DMA engines keep their
// place in a scatter-gather list, makes a sequential transfer cost each
// entry once. Pieces at random places of one long list leave cursors
// spread over it, so the search starts near its entry more often than not;
// a piece before every cursor of its list searches from entry 0.
//
// A cursor depends only on the list bytes before its entry, so it is
// keyed by the list's address (keys sharing a list share its cursor), and
// an invalidation of any of those bytes drops it (see invalidate).
type cursors struct {
	c     []cursor
	clock uint64
}

type cursor struct {
	valid  bool
	handle uint64 // the list's mtt_handle
	j, tj  uint64 // entry j starts at byte tj of the key's space
	used   uint64 // LRU stamp
}

func newCursors(n int) *cursors { return &cursors{c: make([]cursor, n)} }

// find returns the cursor of the list at handle nearest below a piece
// whose first byte is d: j, T[j] and true; else 0, 0, false.
func (cs *cursors) find(handle, d uint64) (uint64, uint64, bool) {
	best := -1
	for i := range cs.c {
		c := &cs.c[i]
		if c.valid && c.handle == handle && c.tj <= d && (best < 0 || c.j > cs.c[best].j) {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	cs.clock++
	c := &cs.c[best]
	c.used = cs.clock
	return c.j, c.tj, true
}

// note records that a piece of the list at handle ended at entry j,
// starting at byte tj: a cursor already there is made the most recently
// used, else the least recently used one is replaced.
func (cs *cursors) note(handle, j, tj uint64) {
	if len(cs.c) == 0 {
		return
	}
	v := 0
	for i := range cs.c {
		c := &cs.c[i]
		if c.valid && c.handle == handle && c.j == j {
			v = i
			break
		}
		if !c.valid || cs.c[v].valid && c.used < cs.c[v].used {
			v = i
		}
	}
	cs.clock++
	cs.c[v] = cursor{valid: true, handle: handle, j: j, tj: tj, used: cs.clock}
}

// invalidate drops the cursors that depend on a byte of [lo, hi): those
// whose list bytes before their entry, [handle, handle + 16 j), overlap
// it (all: every cursor).
func (cs *cursors) invalidate(lo, hi uint64, all bool) {
	for i := range cs.c {
		c := &cs.c[i]
		if c.valid && (all || c.handle < hi && lo < c.handle+16*c.j) {
			c.valid = false
		}
	}
}
