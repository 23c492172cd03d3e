package linecache

import "testing"

// TestSlot: a fetch invalidated in flight is stale and fetched again; a
// filled line is kept for the context after the shared cache evicts it,
// and dropped by an invalidation of its range.
func TestSlot(t *testing.T) {
	c := New(Config{Sets: 1, Ways: 1})
	var s Slot
	if a := s.Start(0x1234); a != 0x1200 || !s.Awaits(0x1200) || s.Awaits(0x1240) {
		t.Fatalf("Start(0x1234) = %#x", a)
	}
	s.Invalidate(0x2000, 0x3000, false)
	if s.Stale() {
		t.Fatal("an invalidation elsewhere made the fetch stale")
	}
	s.Invalidate(0x1230, 0x1231, false)
	if !s.Stale() || s.Restart() != 0x1200 || s.Stale() {
		t.Fatal("an overlapping invalidation did not make the fetch stale, or Restart did not clear it")
	}
	line := make([]byte, LineSize)
	line[0x34] = 0xab
	s.Filled(line, true)
	c.Fill(0x1200, line)
	c.Fill(0x9900, make([]byte, LineSize)) // evicts 0x1200 from the one-line cache
	if _, ok := c.Probe(0x1234); ok {
		t.Fatal("the one-line cache kept two lines")
	}
	if d, ok := c.Get(&s, 0x1234); !ok || d[0x34] != 0xab {
		t.Fatal("the slot did not keep its filled line")
	}
	s.Invalidate(0, 0, true)
	if _, ok := c.Get(&s, 0x1234); ok {
		t.Fatal("Invalidate(all) left the kept line")
	}
	var f Slot
	f.Start(0x40)
	f.Filled(nil, false)
	if _, ok := c.Get(&f, 0x40); ok || f.Awaits(0x40) {
		t.Fatal("a failed read left a line or a fetch")
	}
}
