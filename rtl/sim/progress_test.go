package sim

import "testing"

// timer is a component that waits until cycle at on a timer of its own,
// asking the engine to wake it, then pushes once.
type timer struct {
	e     *Engine
	out   *Chan[int]
	at    uint64
	fired uint64
	done  bool
}

func (t *timer) Name() string { return "timer" }
func (t *timer) Eval(now uint64) bool {
	if t.done {
		return false
	}
	if now < t.at {
		t.e.WakeAt(t.at)
		return false
	}
	t.out.Push(1)
	t.done, t.fired = true, now
	return false
}
func (t *timer) Commit() {}

// stepper acts without any handshake: it counts down its own register.
type stepper struct{ left int }

func (s *stepper) Name() string     { return "stepper" }
func (s *stepper) Eval(uint64) bool { return s.left > 0 }
func (s *stepper) Commit()          { s.left = max(s.left-1, 0) }
func (s *stepper) Acted() bool      { return s.left > 0 }

// TestWakeAt: a component's timer stops idle skipping exactly at the cycle
// it asked for, counts as pending (not a hang) until then, and a model
// with nothing moving and nothing pending is reported as neither
// progressing nor pending.
func TestWakeAt(t *testing.T) {
	for _, noSkip := range []bool{false, true} {
		e := New()
		e.NoSkip = noSkip
		c := NewChan[int](e, "c", 1, 1)
		tm := &timer{e: e, out: c, at: 5_000_000}
		e.Add(tm)
		steps := 0
		for !tm.done {
			if !e.Step() {
				e.SkipIdle()
			}
			if !tm.done && !e.Pending() {
				t.Fatalf("noSkip %v: cycle %d: a running timer is not pending", noSkip, e.Now())
			}
			steps++
		}
		if tm.fired != 5_000_000 {
			t.Fatalf("noSkip %v: fired at %d, want 5000000", noSkip, tm.fired)
		}
		if !noSkip && steps > 3 {
			t.Fatalf("%d cycles stepped to reach the timer; skipping should take 2", steps)
		}
		if !e.Progressed() {
			t.Fatalf("the push is progress")
		}
		e.Step() // c's payload becomes visible: nobody pops it
		e.Step()
		if e.Progressed() || e.Pending() {
			t.Fatalf("a payload nobody takes: progressed %v pending %v", e.Progressed(), e.Pending())
		}
	}
}

// TestActorProgress: a component that changes state without a handshake
// (sim.Actor) is progress while it acts.
func TestActorProgress(t *testing.T) {
	e := New()
	s := &stepper{left: 3}
	e.Add(s)
	for i := 0; i < 3; i++ {
		e.Step()
		if !e.Progressed() {
			t.Fatalf("cycle %d: the actor acted", i)
		}
	}
	e.Step()
	if e.Progressed() {
		t.Fatal("the actor is done: no progress")
	}
}
