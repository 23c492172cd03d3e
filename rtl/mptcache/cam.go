package mptcache

// cam finds the busy MSHR of an MKC index in a few probes: the MSHRs' CAM,
// which hardware searches in parallel and the model searched entry by
// entry (every miss, and every cycle a missing piece waits, looked at
// every busy MSHR). It is an open-addressed table with linear probing of
// the busy MSHRs' indices, twice as many slots as MSHRs or more; a slot
// holds an MSHR's position plus one, 0 when empty. An index is in it at
// most once: an MSHR is allocated only for an index no busy MSHR holds.
type cam struct {
	slot  []uint16
	key   []uint32 // key[s]: the index of the MSHR in slot s
	shift uint     // 32 - log2(len(slot))
}

func newCAM(mshrs int) cam {
	n, shift := 4, uint(30)
	for n < 2*mshrs {
		n, shift = n*2, shift-1
	}
	return cam{slot: make([]uint16, n), key: make([]uint32, n), shift: shift}
}

// home is the first slot index probes (Fibonacci hashing: consecutive
// indices, the common case, spread over the table).
func (c *cam) home(index uint32) int { return int(index * 0x9E3779B1 >> c.shift) }

// find returns the position of the MSHR of index, or -1.
func (c *cam) find(index uint32) int {
	mask := len(c.slot) - 1
	for s := c.home(index); ; s = (s + 1) & mask {
		switch {
		case c.slot[s] == 0:
			return -1
		case c.key[s] == index:
			return int(c.slot[s]) - 1
		}
	}
}

// add records that the MSHR at position id holds index (not in the table).
func (c *cam) add(index uint32, id int) {
	mask := len(c.slot) - 1
	s := c.home(index)
	for c.slot[s] != 0 {
		s = (s + 1) & mask
	}
	c.slot[s], c.key[s] = uint16(id+1), index
}

// remove drops index (in the table), moving back the entries after it
// that would no longer be found past the hole (backward-shift deletion,
// so that no tombstones build up).
func (c *cam) remove(index uint32) {
	mask := len(c.slot) - 1
	hole := c.home(index)
	for c.key[hole] != index || c.slot[hole] == 0 {
		hole = (hole + 1) & mask
	}
	for s := (hole + 1) & mask; c.slot[s] != 0; s = (s + 1) & mask {
		// The entry at s may fill the hole unless its home lies
		// cyclically in (hole, s].
		if h := c.home(c.key[s]); (s-h)&mask >= (s-hole)&mask {
			c.slot[hole], c.key[hole] = c.slot[s], c.key[s]
			hole = s
		}
	}
	c.slot[hole] = 0
}
