package ref

import (
	"math/bits"

	"mkeysim/internal/hugemem"
)

// keyTable is an open-addressed hash table from a 32-bit key to a value V
// stored inline in the slot: the model's MKey table (MKey index to its
// Object), its QPs, and the regions of the ICM directory.
//
// Why not a Go map of pointers: with a million MKeys every lookup is a
// cache miss, and a miss costs hundreds of nanoseconds. A slot here holds
// the key beside its whole value, so the lookup that finds an MKey index
// has read its context too, and the MTT entry is the translation's only
// other miss (a map of *Object costs the map's group, then the object).
// An Object holds no pointer, so the collector does not scan the contexts.
//
// Slots are probed linearly from the home slot, and a deletion moves the
// rest of the run back (no tombstones), so a lookup stops at the first
// empty slot. The home slot is the key's Fibonacci hash scaled to the
// table's size, which need not be a power of two: the table grows by a
// quarter when it is 13/16 full, so it holds 1.4 slots a key on average
// (a million MKeys: about 140 MB) where doubling would hold 1.8.
//
// The slots live in chunks that are never moved: growing adds chunks and
// places the keys anew where they are (rehash). A table that copied
// itself into a new array at each growth would leave four times its own
// size as garbage on the way to a million keys: building the million keys
// of TestMemoryMillionKeys then peaks at 630 MB resident, against 260 MB
// this way (and 270 MB with the Go map of pointers this replaces).
type keyTable[V any] struct {
	chunks [][]slot[V] // slot i is chunks[i/chunkSlots][i%chunkSlots]
	size   int         // slots in use: home is in [0, size)
	n      int         // keys present
	spare  []slot[V]   // the chunks of the last slab not yet in use (newChunk)
}

// slabChunks is how many chunks a large table takes from the allocator at
// once: a slab on huge pages (hugemem; 7 MB of Objects), so that a table
// of a million keys read at random does not also miss the TLB on nearly
// every lookup. Tables of fewer chunks take them one by one.
const slabChunks = 16

// newChunk returns a chunk of empty slots for a growing table.
func (t *keyTable[V]) newChunk() []slot[V] {
	if len(t.chunks) < slabChunks {
		return make([]slot[V], chunkSlots)
	}
	if len(t.spare) == 0 {
		t.spare = hugemem.Make[slot[V]](slabChunks * chunkSlots)
	}
	c := t.spare[:chunkSlots:chunkSlots]
	t.spare = t.spare[chunkSlots:]
	return c
}

// slot is one entry: its value, whether it is taken, and its key. The
// value comes first so that the other two fit in the padding after an
// Object.
type slot[V any] struct {
	val  V
	used bool
	key  uint32
}

const (
	keyTableMin = 8 // slots in a table's first allocation
	// A table holds at most 13/16 as many keys as slots: linear probing
	// then reads about 3 slots for a key present.
	keyTableLoadNum, keyTableLoadDen = 13, 16
	// A chunk holds 4096 slots (448 KB of Objects); a table of fewer
	// slots is one chunk of just its size.
	chunkShift = 12
	chunkSlots = 1 << chunkShift
	// fibonacci is 2^64 divided by the golden ratio: multiplying by it
	// spreads consecutive keys (MKey indices mostly are) evenly over the
	// top bits, which pick the home slot.
	fibonacci = 0x9e3779b97f4a7c15
)

// at is slot i.
func (t *keyTable[V]) at(i int) *slot[V] { return &t.chunks[i>>chunkShift][i&(chunkSlots-1)] }

// home is key's first slot: its hash scaled to [0, size).
func (t *keyTable[V]) home(key uint32) int {
	hi, _ := bits.Mul64(uint64(key)*fibonacci, uint64(t.size))
	return int(hi)
}

// next is the slot after i, round the table.
func (t *keyTable[V]) next(i int) int {
	if i++; i == t.size {
		return 0
	}
	return i
}

// find returns the slot of key, or -1.
func (t *keyTable[V]) find(key uint32) int {
	if t.n == 0 {
		return -1
	}
	for i := t.home(key); ; i = t.next(i) {
		s := t.at(i)
		if !s.used {
			return -1
		}
		if s.key == key {
			return i
		}
	}
}

// get returns the value of key, or nil when key is absent. The pointer
// is valid until the next put or del. (It is find again, written out so
// that the compiler inlines it: it is the lookup of every translation.)
func (t *keyTable[V]) get(key uint32) *V {
	if t.n == 0 {
		return nil
	}
	for i := t.home(key); ; {
		s := &t.chunks[i>>chunkShift][i&(chunkSlots-1)]
		if !s.used {
			return nil
		}
		if s.key == key {
			return &s.val
		}
		if i++; i == t.size {
			i = 0
		}
	}
}

// put stores val for key, replacing any value it had.
func (t *keyTable[V]) put(key uint32, val V) {
	if i := t.find(key); i >= 0 {
		t.at(i).val = val
		return
	}
	if (t.n+1)*keyTableLoadDen > t.size*keyTableLoadNum {
		t.grow()
	}
	i := t.home(key)
	for t.at(i).used {
		i = t.next(i)
	}
	*t.at(i) = slot[V]{val: val, used: true, key: key}
	t.n++
}

// grow makes the table a quarter larger: it adds the slots, then places
// every key anew in place.
func (t *keyTable[V]) grow() {
	old := t.size
	t.size = max(keyTableMin, old+old/4)
	switch {
	case t.size <= chunkSlots:
		// A small table is one chunk of its size, copied.
		c := make([]slot[V], t.size)
		if old > 0 {
			copy(c, t.chunks[0])
		}
		t.chunks = [][]slot[V]{c}
	default:
		if c := t.chunks[0]; len(c) < chunkSlots {
			t.chunks[0] = make([]slot[V], chunkSlots)
			copy(t.chunks[0], c)
		}
		for len(t.chunks)*chunkSlots < t.size {
			t.chunks = append(t.chunks, t.newChunk())
		}
	}
	t.rehash(old)
}

// rehash moves the keys in the first old slots to their places under the
// new size. A key placed in this rehash is never moved again: each key is
// taken out of its slot and probed from its new home past the placed
// slots; an empty slot takes it, and a slot still holding a key not yet
// placed takes it in exchange for that key, which is placed next. So every
// slot between a key's home and its place holds a placed key, as linear
// probing needs. Any order of the slots would do; from the last one down,
// a key's new home (its old one scaled by the growth) has mostly been
// emptied already, so keys seldom trade places and memory is read and
// written in two descending streams, not at random.
func (t *keyTable[V]) rehash(old int) {
	placed := make([]uint64, (t.size+63)/64)
	isPlaced := func(i int) bool { return placed[i/64]&(1<<(i%64)) != 0 }
	for i := old - 1; i >= 0; i-- {
		if !t.at(i).used || isPlaced(i) {
			continue
		}
		cur := *t.at(i)
		*t.at(i) = slot[V]{}
		for {
			j := t.home(cur.key)
			for isPlaced(j) {
				j = t.next(j)
			}
			placed[j/64] |= 1 << (j % 64)
			s := t.at(j)
			if !s.used {
				*s = cur
				break
			}
			cur, *s = *s, cur
		}
	}
}

// del removes key and reports whether it was present. The keys after it
// in its run move back so that each stays reachable from its home slot
// (Knuth's algorithm R for linear probing).
func (t *keyTable[V]) del(key uint32) bool {
	i := t.find(key)
	if i < 0 {
		return false
	}
	// dist is how far slot j lies after slot h, going round the table.
	dist := func(h, j int) int {
		if j >= h {
			return j - h
		}
		return j + t.size - h
	}
	// i is the hole. A later key of the run fills it unless its home lies
	// (cyclically) after the hole: the hole is then not on its probe path.
	for j := t.next(i); t.at(j).used; j = t.next(j) {
		if s := t.at(j); dist(t.home(s.key), j) >= dist(i, j) {
			*t.at(i) = *s
			i = j
		}
	}
	*t.at(i) = slot[V]{}
	t.n--
	return true
}

// len is the number of keys present.
func (t *keyTable[V]) len() int { return t.n }

// each calls f for every key and its value, in slot order; f must not put
// or delete keys.
func (t *keyTable[V]) each(f func(key uint32, val *V)) {
	for i := range t.size {
		if s := t.at(i); s.used {
			f(s.key, &s.val)
		}
	}
}
