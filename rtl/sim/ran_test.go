package sim

import (
	"math/bits"
	"testing"
)

// hop is a Connected component that moves a payload from in to out
// (out nil: drops it) and, every fifth payload, asks for a timer.
type hop struct {
	Base
	in, out *Chan[int]
	n       int
}

func (h *hop) Name() string { return "hop" }
func (h *hop) Connections() (in, out []Port) {
	if h.out == nil {
		return []Port{h.in}, nil
	}
	return []Port{h.in}, []Port{h.out}
}
func (h *hop) Eval(now uint64) bool {
	if h.in.Valid() && (h.out == nil || h.out.Ready()) {
		if h.out != nil {
			h.out.Push(*h.in.Peek())
		}
		h.in.Pop()
		if h.n++; h.n%5 == 0 {
			h.WakeAt(now + 7)
		}
	}
	return false
}

// TestRanNow: in a hook, RanNow holds exactly the components evaluated
// this cycle (their last evaluation, Engine.ran, is this cycle's),
// whether the engine walks the due set (stepDue), evaluates everything
// (NoSkip) or in a shuffled order (Step), over a chain of relays fed in
// bursts, with its idle stretches skipped.
func TestRanNow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noSkip  bool
		shuffle bool
	}{{"due set", false, false}, {"no skip", true, false}, {"shuffled", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			e.NoSkip = tc.noSkip
			if tc.shuffle {
				e.Shuffle(7)
			}
			var chans []*Chan[int]
			for i := range 4 {
				chans = append(chans, NewChan[int](e, "c"+string(rune('a'+i)), 2, 1+2*i))
			}
			for i := range 4 {
				h := &hop{in: chans[i]}
				if i < 3 {
					h.out = chans[i+1]
				}
				e.Add(h)
			}
			hooks, ranSeen := 0, 0
			e.OnCycle(func(now uint64) {
				hooks++
				mask := e.RanNow()
				for i := range e.Components() {
					ranNow := e.ran[i] == now+1
					inMask := mask[i/64]>>(i%64)&1 != 0
					if ranNow != inMask {
						t.Fatalf("cycle %d: component %d ran %v, RanNow says %v", now, i, ranNow, inMask)
					}
				}
				for _, w := range mask {
					ranSeen += bits.OnesCount64(w)
				}
			})
			for burst := range 6 {
				for k := range 3 {
					for !chans[0].Ready() {
						e.Step()
					}
					chans[0].Push(10*burst + k)
					e.Step()
				}
				for end := e.Now() + 60; e.Now() < end; {
					if !e.Step() {
						e.SkipIdle()
					}
				}
			}
			if hooks == 0 || ranSeen == 0 {
				t.Fatalf("%d hooks saw %d evaluations: the test ran nothing", hooks, ranSeen)
			}
		})
	}
}
