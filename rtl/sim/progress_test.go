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

// baseStepper is a stepper that follows the wake rules (it embeds Base
// and has no channels), so the engine runs it on the due-set path.
type baseStepper struct {
	Base
	stepper
}

func (s *baseStepper) Connections() (in, out []Port) { return nil, nil }

// idler pops nothing from its one input: a Connected component with
// neither Commit nor Acted.
type idler struct {
	Base
	in *Chan[int]
}

func (x *idler) Name() string                  { return "idler" }
func (x *idler) Eval(uint64) bool              { return false }
func (x *idler) Connections() (in, out []Port) { return []Port{x.in}, nil }

// TestActorProgressDue: on the due-set path too (only components with a
// Base), an actor is progress while it acts, and its Commit runs: beside
// an idle component without Commit or Acted, and with the actor numbered
// past the first word of the due set.
func TestActorProgressDue(t *testing.T) {
	e := New()
	for range 70 {
		e.Add(&idler{in: NewChan[int](e, "idle", 1, 1)})
	}
	s := &baseStepper{stepper: stepper{left: 3}}
	e.Add(s)
	for i := 0; i < 3; i++ {
		e.Step()
		if !e.Progressed() {
			t.Fatalf("cycle %d: the actor acted", i)
		}
	}
	if s.left != 0 {
		t.Fatalf("after 3 cycles the actor has %d left: its Commit did not run", s.left)
	}
	e.Step()
	if e.Progressed() {
		t.Fatal("the actor is done: no progress")
	}
}

// TestSkipStopsAtUnconsumedHead: SkipIdle stops at the cycle a payload
// shows on a channel no Connected component pops (its reader runs outside
// the engine), also for a channel made after the components were added,
// and skips past payloads on channels a component pops (it is woken).
func TestSkipStopsAtUnconsumedHead(t *testing.T) {
	e := New()
	popped := NewChan[int](e, "popped", 2, 30)
	e.Add(&idler{in: popped})
	e.Step() // cycle 0: nothing to skip to
	e.SkipIdle()
	late := NewChan[int](e, "late", 2, 50)
	popped.Push(1)
	late.Push(2)
	e.Step() // cycle 1
	e.SkipIdle()
	if e.Now() != 31 {
		t.Fatalf("skipped to cycle %d, want 31 (the idler is woken by its head)", e.Now())
	}
	e.Step()
	e.SkipIdle()
	if e.Now() != 51 || !late.Valid() {
		t.Fatalf("skipped to cycle %d (late valid %v), want 51 where late's head shows", e.Now(), late.Valid())
	}
}

// TestBackpressure: a channel under back-pressure is stalled (neither
// ready nor valid) in about the asked share of cycles, the same cycles
// for the same seed, and never with back-pressure off.
func TestBackpressure(t *testing.T) {
	pattern := func(seed uint64, perMille int) []bool {
		e := New()
		c := NewChan[int](e, "c", 4, 1)
		c.Push(1)
		e.Step()
		e.Backpressure(seed, perMille)
		var out []bool
		for range 10_000 {
			if c.Valid() != c.Ready() {
				t.Fatalf("valid %v, ready %v: a stall must close both sides", c.Valid(), c.Ready())
			}
			out = append(out, !c.Valid())
			e.Step()
		}
		return out
	}
	count := func(p []bool) (n int) {
		for _, s := range p {
			if s {
				n++
			}
		}
		return n
	}
	a, b := pattern(3, 250), pattern(3, 250)
	if n := count(a); n < 2200 || n > 2800 {
		t.Fatalf("stalled %d of 10000 cycles at 250 per mille", n)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("cycle %d: the same seed stalls differently", i)
		}
	}
	if n := count(pattern(4, 250)); n == 0 || slicesEqual(pattern(4, 250), a) {
		t.Fatal("another seed stalls the same cycles")
	}
	if n := count(pattern(3, 0)); n != 0 {
		t.Fatalf("%d stalls with back-pressure off", n)
	}
}

func slicesEqual(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
