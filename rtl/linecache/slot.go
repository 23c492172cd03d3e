package linecache

// Slot is one walker context's side of the fetches it makes through a
// shared Cache: the line in flight (read by the context itself, or by
// another context whose read it joined), whether an invalidation made it
// stale while it flew (rocket-chip's invalidate-during-refill hazard: its
// data may predate the invalidation, so it must be fetched again), and
// the last line filled for the context, which the context may use even
// after other contexts' fills evicted it from the shared cache (without
// it, contexts sharing a set can evict each other's lines forever).
type Slot struct {
	fetching bool
	fetch    uint64
	stale    bool
	line     [MaxLineBytes]byte
	lineAt   uint64
	hasLine  bool
	replay   bool // the next lookup repeats the one whose miss filled the line
}

// Reset empties s for a new context: no line in flight, none kept. The
// kept line's bytes are left as they are (they count only while hasLine),
// so that a walker's context is reused without clearing MaxLineBytes.
func (s *Slot) Reset() {
	s.fetching, s.fetch, s.stale, s.lineAt, s.hasLine, s.replay = false, 0, false, 0, false, false
}

// Start records a fetch of the line holding addr for s and returns the
// line's address, to read (or to wait for, when another context reads it).
func (c *Cache) Start(s *Slot, addr uint64) uint64 {
	s.fetching, s.stale, s.fetch = true, false, c.LineAddr(addr)
	return s.fetch
}

// Awaits reports whether a read of line address a answers this slot.
func (s *Slot) Awaits(a uint64) bool { return s.fetching && s.fetch == a }

// Fetching reports whether the slot waits for a line, and which.
func (s *Slot) Fetching() (uint64, bool) { return s.fetch, s.fetching }

// Stale reports whether the line in flight was invalidated while it flew.
func (s *Slot) Stale() bool { return s.stale }

// Restart marks the line in flight as fetched again and returns its
// address.
func (s *Slot) Restart() uint64 {
	s.stale = false
	return s.fetch
}

// Filled ends the fetch; ok says the read succeeded and data is the line,
// which the slot keeps.
func (s *Slot) Filled(data []byte, ok bool) {
	s.fetching = false
	if ok {
		clear(s.line[copy(s.line[:], data):])
		s.lineAt, s.hasLine, s.replay = s.fetch, true, true
	}
}

// InvalidateSlot drops the line s keeps and marks the line in flight
// stale if they overlap [lo, hi) (or all).
func (c *Cache) InvalidateSlot(s *Slot, lo, hi uint64, all bool) {
	if s.fetching && (all || Overlaps(s.fetch, c.lineBytes, lo, hi)) {
		s.stale = true
	}
	if s.hasLine && (all || Overlaps(s.lineAt, c.lineBytes, lo, hi)) {
		s.hasLine = false
	}
}

// Get returns the line holding addr from the shared cache, else from the
// slot's kept line, without counting anything (see Cache.Use).
func (c *Cache) Get(s *Slot, addr uint64) ([]byte, bool) {
	if data, ok := c.Probe(addr); ok {
		return data, true
	}
	if s.hasLine && s.lineAt == c.LineAddr(addr) {
		return s.line[:c.lineBytes:c.lineBytes], true
	}
	return nil, false
}
