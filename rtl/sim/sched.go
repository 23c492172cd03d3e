package sim

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
