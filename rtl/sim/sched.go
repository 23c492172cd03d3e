package sim

import "math/bits"

// bitset is a set of component numbers.
type bitset struct{ w []uint64 }

func (b *bitset) grow(n int) {
	for len(b.w)*64 < n {
		b.w = append(b.w, 0)
	}
}
func (b *bitset) set(i int)      { b.w[i>>6] |= 1 << (i & 63) }
func (b *bitset) has(i int) bool { return b.w[i>>6]&(1<<(i&63)) != 0 }
func (b *bitset) clear()         { clear(b.w) }
func (b *bitset) empty() bool {
	for _, x := range b.w {
		if x != 0 {
			return false
		}
	}
	return true
}

// wheelSlots is how many cycles ahead the wheel holds wakes: a power of
// two, more than the channel latencies of a default model (the PCIe link's
// 75 cycles and the stages behind it).
const wheelSlots = 256

// wheel holds the wakes further ahead than the next cycle: a ring of
// wheelSlots slots, the component set due at each of the cycles now+1 ..
// now+wheelSlots-1 (cycle at in slot at mod wheelSlots), and the set of
// slots that hold any; a wake further ahead waits in a heap. Where a heap
// of every wake cost a few dozen instructions a push and a pop, and held a
// component as often as it was woken for the same cycle, a slot takes a
// wake with one OR and gives up a cycle's wakes at once. Every cycle's
// slot is emptied when time reaches it (takeDue), stepped or skipped to
// (a skip lands on the earliest wake or before it), so a slot never holds
// two cycles.
type wheel struct {
	words int                     // words of a component set
	slots []uint64                // wheelSlots sets of words words each
	used  [wheelSlots / 64]uint64 // the slots that hold a component
	far   wakeHeap
}

// grow makes room for components 0..n-1, keeping the wakes held.
func (w *wheel) grow(n int) {
	words := (n + 63) / 64
	if words <= w.words {
		return
	}
	slots := make([]uint64, wheelSlots*words)
	for s := range wheelSlots {
		copy(slots[s*words:], w.slots[s*w.words:(s+1)*w.words])
	}
	w.slots, w.words = slots, words
}

// push makes component i due at cycle at, now+2 or later.
func (w *wheel) push(now, at uint64, i int) {
	if at-now >= wheelSlots {
		w.far.push(at, i)
		return
	}
	s := int(at & (wheelSlots - 1))
	w.slots[s*w.words+i>>6] |= 1 << (i & 63)
	w.used[s>>6] |= 1 << (s & 63)
}

// take adds the components due at cycle now to due and forgets them.
func (w *wheel) take(now uint64, due *bitset) {
	if s := int(now & (wheelSlots - 1)); w.used[s>>6]&(1<<(s&63)) != 0 {
		w.used[s>>6] &^= 1 << (s & 63)
		set := w.slots[s*w.words : (s+1)*w.words]
		for k, x := range set {
			due.w[k] |= x
			set[k] = 0
		}
	}
	for {
		at, i, ok := w.far.peek()
		if !ok || at > now {
			return
		}
		w.far.pop()
		due.set(i)
	}
}

// earliest returns the first cycle after now with a wake, and whether
// there is one (now's own slot has been taken).
func (w *wheel) earliest(now uint64) (uint64, bool) {
	at, _, ok := w.far.peek()
	// The ring from slot now+1 on, a word at a time: the first word
	// from that slot's bit, then the words after it, wrapping, then the
	// start of the first word.
	start := int((now + 1) & (wheelSlots - 1))
	for k := 0; k <= len(w.used); k++ {
		j := (start>>6 + k) % len(w.used)
		x := w.used[j]
		switch k {
		case 0:
			x &= ^uint64(0) << (start & 63)
		case len(w.used):
			x &= 1<<(start&63) - 1
		}
		if x != 0 {
			s := j<<6 + bits.TrailingZeros64(x)
			t := now + 1 + uint64((s-start)&(wheelSlots-1))
			if !ok || t < at {
				at, ok = t, true
			}
			break
		}
	}
	return at, ok
}

// after reports whether a wake is due after cycle now (for the watchdog).
func (w *wheel) after(now uint64) bool {
	for _, x := range w.used {
		if x != 0 {
			return true
		}
	}
	return w.far.after(now)
}

// wake is one component due at a cycle.
type wake struct {
	at uint64
	i  int
}

// wakeHeap holds the wakes further ahead than the next cycle, earliest
// first (a binary min-heap on the cycle; it allocates only to grow).
type wakeHeap struct{ h []wake }

func (w *wakeHeap) push(at uint64, i int) {
	w.h = append(w.h, wake{at, i})
	for j := len(w.h) - 1; j > 0; {
		p := (j - 1) / 2
		if w.h[p].at <= w.h[j].at {
			break
		}
		w.h[p], w.h[j] = w.h[j], w.h[p]
		j = p
	}
}

func (w *wakeHeap) pop() {
	n := len(w.h) - 1
	w.h[0] = w.h[n]
	w.h = w.h[:n]
	for j := 0; ; {
		l, r, m := 2*j+1, 2*j+2, j
		if l < n && w.h[l].at < w.h[m].at {
			m = l
		}
		if r < n && w.h[r].at < w.h[m].at {
			m = r
		}
		if m == j {
			return
		}
		w.h[m], w.h[j] = w.h[j], w.h[m]
		j = m
	}
}

// peek returns the earliest wake.
func (w *wakeHeap) peek() (uint64, int, bool) {
	if len(w.h) == 0 {
		return 0, 0, false
	}
	return w.h[0].at, w.h[0].i, true
}

// after reports whether a wake is due after cycle now.
// (a scan: only the watchdog asks).
func (w *wakeHeap) after(now uint64) bool {
	for _, x := range w.h {
		if x.at > now {
			return true
		}
	}
	return false
}
