package sim

import (
	"math/rand"
	"slices"
	"testing"
)

// TestWheel drives the wheel as the engine does (a push is for now+2 or
// later; time steps by one or jumps to the earliest wake) and compares, at
// every cycle, the set it gives up and its earliest wake with a plain
// list of every wake pushed: delays around and far beyond the ring, up to
// 130 components (three words of a set), components added with wakes held.
func TestWheel(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 4} {
		r := rand.New(rand.NewSource(seed))
		var w wheel
		comps := 1 + r.Intn(10)
		w.grow(comps)
		type wk struct {
			at uint64
			i  int
		}
		var list []wk
		now := uint64(1000 * seed)
		for step := range 30000 {
			if r.Intn(500) == 0 && comps < 130 {
				comps += r.Intn(60)
				comps = min(comps, 130)
				w.grow(comps)
			}
			for range r.Intn(4) {
				var d uint64
				switch r.Intn(4) {
				case 0:
					d = 2 + uint64(r.Intn(8))
				case 1:
					d = wheelSlots - 3 + uint64(r.Intn(6)) // either side of the ring's end
				case 2:
					d = 2 + uint64(r.Intn(3*wheelSlots))
				default:
					d = 2 + uint64(r.Intn(100))
				}
				i := r.Intn(comps)
				w.push(now, now+d, i)
				list = append(list, wk{now + d, i})
			}
			// The reference's earliest wake after now.
			want, any := uint64(0), false
			for _, x := range list {
				if !any || x.at < want {
					want, any = x.at, true
				}
			}
			got, ok := w.earliest(now)
			if ok != any || ok && got != want {
				t.Fatalf("seed %d, step %d, cycle %d: earliest = %d, %v; want %d, %v", seed, step, now, got, ok, want, any)
			}
			if w.after(now) != any {
				t.Fatalf("seed %d, step %d: after(%d) = %v, want %v", seed, step, now, !any, any)
			}
			// Step one cycle, or jump to the earliest wake.
			if any && r.Intn(3) == 0 {
				now = want
			} else {
				now++
			}
			var due bitset
			due.grow(comps)
			w.take(now, &due)
			var wantDue []int
			list = slices.DeleteFunc(list, func(x wk) bool {
				if x.at == now {
					wantDue = append(wantDue, x.i)
					return true
				}
				if x.at < now {
					t.Fatalf("seed %d, step %d: a wake for cycle %d was skipped at %d", seed, step, x.at, now)
				}
				return false
			})
			for i := range comps {
				if due.has(i) != slices.Contains(wantDue, i) {
					t.Fatalf("seed %d, step %d, cycle %d: component %d due = %v, want %v", seed, step, now, i, due.has(i), !due.has(i))
				}
			}
		}
	}
}
