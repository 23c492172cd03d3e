package sim

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// The test code below often acts as a component itself: what it does to a
// channel before e.Step() happens in the cycle e.Now(), exactly as if a
// component's Eval had done it.

// mustPanic runs f and fails unless it panics.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("%s: no panic", what)
		}
	}()
	f()
}

func TestChanDefaults(t *testing.T) {
	e := New()
	c := NewChan[int](e, "c", 0, 0)
	if c.Cap() != 1 || c.Name() != "c" {
		t.Fatalf("depth 0 -> Cap %d, name %q; want 1, c", c.Cap(), c.Name())
	}
	c.Push(7)
	e.Step()
	if !c.Valid() || *c.Peek() != 7 {
		t.Fatalf("latency 0 must behave as latency 1: valid %v at cycle %d", c.Valid(), e.Now())
	}
	if got := e.Ports(); len(got) != 1 || got[0] != Port(c) {
		t.Fatalf("Ports = %v", got)
	}
}

// TestChanLatency: a push at cycle c is visible at c+latency and not before.
func TestChanLatency(t *testing.T) {
	for _, lat := range []int{1, 2, 3, 7} {
		for _, depth := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("lat%d_depth%d", lat, depth), func(t *testing.T) {
				e := New()
				c := NewChan[int](e, "c", depth, lat)
				for range 3 {
					e.Step()
				}
				c0 := e.Now()
				c.Push(42)
				if c.Valid() || c.HeadValid() {
					t.Fatalf("visible in the cycle of its push")
				}
				e.Step()
				for e.Now() < c0+uint64(lat) {
					if c.Valid() {
						t.Fatalf("pushed at %d, visible at %d < %d", c0, e.Now(), c0+uint64(lat))
					}
					if c.Len() != 1 {
						t.Fatalf("Len %d during latency, want 1", c.Len())
					}
					e.Step()
				}
				if !c.Valid() || *c.Peek() != 42 {
					t.Fatalf("pushed at %d, not visible at %d", c0, e.Now())
				}
				// It stays visible until popped.
				e.Step()
				e.Step()
				if !c.Valid() {
					t.Fatalf("payload vanished without a pop")
				}
			})
		}
	}
}

// TestChanDepth: Ready stays high for exactly depth pushes, one a cycle.
func TestChanDepth(t *testing.T) {
	for _, depth := range []int{1, 2, 3, 8} {
		for _, lat := range []int{1, 4} {
			e := New()
			c := NewChan[int](e, "c", depth, lat)
			for i := range depth {
				if !c.Ready() {
					t.Fatalf("depth %d: not ready after %d pushes", depth, i)
				}
				c.Push(i)
				e.Step()
			}
			if c.Ready() {
				t.Fatalf("depth %d lat %d: ready when full", depth, lat)
			}
			if c.Len() != depth || c.Cap() != depth {
				t.Fatalf("Len %d Cap %d, want %d", c.Len(), c.Cap(), depth)
			}
			mustPanic(t, "push when full", func() { c.Push(99) })
			var held []int
			c.Each(func(v *int) { held = append(held, *v) })
			want := make([]int, depth)
			for i := range want {
				want[i] = i
			}
			if !reflect.DeepEqual(held, want) {
				t.Fatalf("Each = %v, want %v", held, want)
			}
		}
	}
}

// TestChanRegisteredFull: the producer sees a pop one cycle later.
func TestChanRegisteredFull(t *testing.T) {
	e := New()
	c := NewChan[int](e, "c", 2, 1)
	c.Push(1)
	e.Step()
	c.Push(2)
	e.Step()
	if c.Ready() || !c.Valid() {
		t.Fatalf("full channel: ready %v valid %v", c.Ready(), c.Valid())
	}
	c.Pop()
	if c.Ready() {
		t.Fatalf("ready in the cycle of the pop that frees a slot (full flag is registered)")
	}
	e.Step()
	if !c.Ready() {
		t.Fatalf("not ready the cycle after a pop freed a slot")
	}
	if !c.Valid() || *c.Peek() != 2 {
		t.Fatalf("head after pop: valid %v", c.Valid())
	}
}

// TestChanPushPopSameCycle: a push and a pop in the same cycle both happen.
func TestChanPushPopSameCycle(t *testing.T) {
	e := New()
	c := NewChan[string](e, "c", 2, 1)
	c.Push("a")
	e.Step()
	if !c.Valid() || *c.Peek() != "a" {
		t.Fatal("a not visible")
	}
	c.Pop()
	c.Push("b")
	if p, q := c.Activity(); !p || !q {
		t.Fatalf("Activity = %v %v, want both", p, q)
	}
	e.Step()
	if c.Len() != 1 || !c.Valid() || *c.Peek() != "b" {
		t.Fatalf("after push+pop: Len %d valid %v", c.Len(), c.Valid())
	}
	// Depth 1, full: a pop does not let a push in the same cycle.
	d := NewChan[int](e, "d", 1, 1)
	d.Push(1)
	e.Step()
	d.Pop()
	if d.Ready() {
		t.Fatal("depth-1 channel ready in the cycle of its pop")
	}
	e.Step()
	if d.Len() != 0 || !d.Ready() {
		t.Fatalf("after pop: Len %d ready %v", d.Len(), d.Ready())
	}
}

// TestChanOnePerCycle: one push and one pop a cycle; breaking it panics.
func TestChanOnePerCycle(t *testing.T) {
	e := New()
	c := NewChan[int](e, "c", 4, 1)
	c.Push(1)
	if c.Ready() {
		t.Fatal("ready after a push in the same cycle")
	}
	mustPanic(t, "second push in a cycle", func() { c.Push(2) })
	e.Step()
	if !c.Ready() {
		t.Fatal("not ready the next cycle with room")
	}
	c.Push(2)
	e.Step()
	if !c.Valid() || *c.Peek() != 1 {
		t.Fatal("head is not 1")
	}
	c.Pop()
	if c.Valid() {
		t.Fatal("valid after a pop in the same cycle")
	}
	if !c.HeadValid() {
		t.Fatal("HeadValid must ignore the staged pop")
	}
	mustPanic(t, "second pop in a cycle", func() { c.Pop() })
	e.Step()
	if !c.Valid() || *c.Peek() != 2 || c.Len() != 1 {
		t.Fatalf("after one pop: valid %v len %d", c.Valid(), c.Len())
	}
	c.Pop()
	e.Step()
	mustPanic(t, "pop from empty", func() { c.Pop() })
}

// refChan is the reference semantics of a channel: a FIFO of (value,
// visible-at) with committed occupancy.
type refChan struct {
	depth, lat int
	q          []struct{ v, at int }
}

func (r *refChan) ready() bool        { return len(r.q) < r.depth }
func (r *refChan) valid(now int) bool { return len(r.q) > 0 && r.q[0].at <= now }

// TestChanRandomVsReference drives channels with random pushes and pops and
// compares every observable with the reference FIFO.
func TestChanRandomVsReference(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		depth, lat := 1+rng.Intn(4), 1+rng.Intn(5)
		e := New()
		c := NewChan[int](e, "c", depth, lat)
		ref := &refChan{depth: depth, lat: lat}
		next := 0
		for cyc := range 2000 {
			now := int(e.Now())
			if now != cyc {
				t.Fatalf("seed %d: Now %d at step %d", seed, now, cyc)
			}
			if c.Ready() != ref.ready() || c.Valid() != ref.valid(now) || c.Len() != len(ref.q) {
				t.Fatalf("seed %d cycle %d (depth %d lat %d): ready %v/%v valid %v/%v len %d/%d", seed, now, depth, lat,
					c.Ready(), ref.ready(), c.Valid(), ref.valid(now), c.Len(), len(ref.q))
			}
			popped, pushed := false, false
			if c.Valid() {
				if *c.Peek() != ref.q[0].v {
					t.Fatalf("seed %d cycle %d: head %d, want %d", seed, now, *c.Peek(), ref.q[0].v)
				}
				if rng.Intn(3) > 0 {
					c.Pop()
					popped = true
				}
			}
			if c.Ready() && rng.Intn(3) > 0 {
				c.Push(next)
				pushed = true
			}
			if p, q := c.Activity(); p != pushed || q != popped {
				t.Fatalf("seed %d cycle %d: Activity %v %v, want %v %v", seed, now, p, q, pushed, popped)
			}
			e.Step()
			if popped {
				ref.q = ref.q[1:]
			}
			if pushed {
				ref.q = append(ref.q, struct{ v, at int }{next, now + lat})
				next++
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Order independence: a toy credit-flow system of three components.

// gate is a pure function of (seed, who, cycle): stalls that do not depend
// on evaluation order or on skipped cycles.
func gate(seed int64, who string, now uint64) bool {
	h := uint64(seed)*0x9e3779b97f4a7c15 ^ now*0xbf58476d1ce4e5b9
	for _, b := range []byte(who) {
		h = (h ^ uint64(b)) * 0x100000001b3
	}
	h ^= h >> 29
	return h%4 != 0
}

type producer struct {
	seed    int64
	out     *Chan[int]
	credIn  *Chan[int]
	credits int
	next    int
	n       int
	// staged
	nCredits, nNext int
}

func (p *producer) Name() string { return "producer" }
func (p *producer) Eval(now uint64) bool {
	p.nCredits, p.nNext = p.credits, p.next
	if p.credIn.Valid() {
		p.nCredits += *p.credIn.Peek()
		p.credIn.Pop()
	}
	if p.next < p.n && p.credits > 0 && p.out.Ready() && gate(p.seed, "p", now) {
		p.out.Push(p.next)
		p.nNext++
		p.nCredits--
	}
	return p.next < p.n && p.credits > 0
}
func (p *producer) Commit() { p.credits, p.next = p.nCredits, p.nNext }

type relay struct {
	seed    int64
	in, out *Chan[int]
	acc     int // a register: the running sum, latched in Commit
	nAcc    int
}

func (r *relay) Name() string { return "relay" }
func (r *relay) Eval(now uint64) bool {
	r.nAcc = r.acc
	if r.in.Valid() && r.out.Ready() && gate(r.seed, "r", now) {
		v := *r.in.Peek()
		r.in.Pop()
		r.out.Push(v*3 + r.acc)
		r.nAcc = r.acc + v
	}
	return false
}
func (r *relay) Commit() { r.acc = r.nAcc }

type consumer struct {
	seed    int64
	in      *Chan[int]
	credOut *Chan[int]
	got     []string
	owed    int
	nOwed   int
}

func (c *consumer) Name() string { return "consumer" }
func (c *consumer) Eval(now uint64) bool {
	c.nOwed = c.owed
	if c.in.Valid() && gate(c.seed, "c", now) {
		c.got = append(c.got, fmt.Sprintf("%d:%d", now, *c.in.Peek()))
		c.in.Pop()
		c.nOwed++
	}
	if c.owed > 0 && c.credOut.Ready() {
		c.credOut.Push(c.owed)
		c.nOwed -= c.owed
	}
	return c.owed > 0
}
func (c *consumer) Commit() { c.owed = c.nOwed }

type toyRun struct {
	got   []string
	trace []string
	end   uint64
}

func runToy(seed int64, shuffle int64, noSkip bool) toyRun {
	e := New()
	e.NoSkip = noSkip
	a := NewChan[int](e, "a", 2, 3)
	b := NewChan[int](e, "b", 1, 5)
	cr := NewChan[int](e, "credit", 1, 4)
	p := &producer{seed: seed, out: a, credIn: cr, credits: 3, n: 60}
	r := &relay{seed: seed, in: a, out: b}
	c := &consumer{seed: seed, in: b, credOut: cr}
	e.Add(p, r, c)
	if shuffle != 0 {
		e.Shuffle(shuffle)
	}
	var run toyRun
	e.OnCycle(func(now uint64) {
		for _, port := range e.Ports() {
			pu, po := port.Activity()
			if pu || po {
				run.trace = append(run.trace, fmt.Sprintf("%d %s push=%v pop=%v len=%d", now, port.Name(), pu, po, port.Len()))
			}
		}
	})
	for len(c.got) < p.n && e.Now() < 100000 {
		if !e.Step() {
			e.SkipIdle()
		}
	}
	run.got, run.end = c.got, e.Now()
	return run
}

// TestOrderIndependence: the same system gives the same trace in every
// evaluation order, with and without idle skipping.
func TestOrderIndependence(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		base := runToy(seed, 0, true)
		if len(base.got) != 60 {
			t.Fatalf("seed %d: toy system delivered %d of 60", seed, len(base.got))
		}
		for sh := int64(1); sh <= 20; sh++ {
			for _, noSkip := range []bool{true, false} {
				r := runToy(seed, sh, noSkip)
				if !reflect.DeepEqual(r.got, base.got) {
					t.Fatalf("seed %d shuffle %d noSkip %v: deliveries differ\n got %v\nwant %v", seed, sh, noSkip, r.got, base.got)
				}
				if !reflect.DeepEqual(r.trace, base.trace) {
					t.Fatalf("seed %d shuffle %d noSkip %v: handshake traces differ", seed, sh, noSkip)
				}
			}
		}
	}
}

// TestShuffleChangesOrder makes sure the shuffle really permutes the
// evaluation order (otherwise TestOrderIndependence proves nothing).
func TestShuffleChangesOrder(t *testing.T) {
	e := New()
	var order []string
	var names []string
	for i := range 4 {
		n := fmt.Sprint(i)
		names = append(names, n)
		e.Add(&probe{name: n, log: &order})
	}
	if got := e.Components(); len(got) != 4 || got[0].Name() != "0" || got[3].Name() != "3" {
		t.Fatalf("Components in wrong order")
	}
	e.Step()
	if !reflect.DeepEqual(order, names) {
		t.Fatalf("unshuffled order %v, want %v", order, names)
	}
	e.Shuffle(7)
	seen := map[string]bool{}
	for range 20 {
		order = order[:0]
		e.Step()
		seen[fmt.Sprint(order)] = true
	}
	if len(seen) < 2 {
		t.Fatalf("Shuffle(7) used one order for 20 cycles: %v", seen)
	}
}

type probe struct {
	name string
	log  *[]string
	busy bool
}

func (p *probe) Name() string         { return p.name }
func (p *probe) Eval(now uint64) bool { *p.log = append(*p.log, p.name); return p.busy }
func (p *probe) Commit()              {}

// ---------------------------------------------------------------------------
// Idle skipping.

// TestSkipIdle: time jumps exactly to the cycle at which the next payload
// becomes visible, and only when nothing is busy or visible.
func TestSkipIdle(t *testing.T) {
	cases := []struct {
		name   string
		lats   []int // one channel each, all pushed at cycle 0
		noSkip bool
		busy   bool
		hooks  bool
		want   uint64 // Now() after Step at 0 and SkipIdle
	}{
		{name: "one channel", lats: []int{100}, want: 100},
		{name: "earliest of three", lats: []int{50, 17, 90}, want: 17},
		{name: "next cycle: no jump", lats: []int{1}, want: 1},
		{name: "payload at now+1: step normally", lats: []int{2}, want: 1},
		{name: "NoSkip", lats: []int{100}, noSkip: true, want: 1},
		{name: "nothing held", lats: nil, want: 1},
		{name: "with hooks", lats: []int{100}, hooks: true, want: 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			e.NoSkip = tc.noSkip
			var hooked []uint64
			if tc.hooks {
				e.OnCycle(func(now uint64) { hooked = append(hooked, now) })
			}
			var chans []*Chan[int]
			for i, l := range tc.lats {
				c := NewChan[int](e, fmt.Sprint(i), 1, l)
				c.Push(i)
				chans = append(chans, c)
			}
			if e.Step() {
				t.Fatal("Step reported busy with no components")
			}
			e.SkipIdle()
			if e.Now() != tc.want {
				t.Fatalf("Now %d after SkipIdle, want %d", e.Now(), tc.want)
			}
			if tc.hooks {
				// One idle cycle is stepped so the tracer sees cycle 1.
				if !reflect.DeepEqual(hooked, []uint64{0, 1}) {
					t.Fatalf("hooks ran at %v, want [0 1]", hooked)
				}
			}
			// Landing cycle: the earliest payload is visible, no other.
			for i, c := range chans {
				want := uint64(tc.lats[i]) <= e.Now()
				if c.Valid() != want {
					t.Fatalf("channel %d (latency %d) valid %v at %d", i, tc.lats[i], c.Valid(), e.Now())
				}
			}
			// A visible payload stops any further skip.
			visible := false
			for _, c := range chans {
				visible = visible || c.Valid()
			}
			if visible {
				before := e.Now()
				e.SkipIdle()
				if e.Now() != before {
					t.Fatalf("SkipIdle jumped from %d to %d past a visible payload", before, e.Now())
				}
			}
		})
	}
}

// TestSkipMatchesNoSkip: a component that reacts to payloads only sees the
// same payloads at the same cycles with and without skipping.
func TestSkipMatchesNoSkip(t *testing.T) {
	run := func(noSkip bool) ([]string, uint64, int) {
		e := New()
		e.NoSkip = noSkip
		a := NewChan[int](e, "a", 4, 37)
		b := NewChan[int](e, "b", 4, 11)
		echo := &echoer{in: a, out: b}
		sinkB := &echoer{in: b}
		e.Add(echo, sinkB)
		steps := 0
		for i := range 3 {
			a.Push(i)
			e.Step()
			steps++
		}
		for e.Now() < 400 {
			if !e.Step() {
				e.SkipIdle()
			}
			steps++
		}
		return append(echo.seen, sinkB.seen...), e.Now(), steps
	}
	got, end1, steps1 := run(false)
	want, end2, steps2 := run(true)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("skip: %v\nno skip: %v", got, want)
	}
	if len(want) != 6 || want[0] != "a 37:0" || want[3] != "b 48:0" {
		t.Fatalf("unexpected deliveries %v", want)
	}
	if end1 != 400 || end2 != 400 {
		t.Fatalf("ends %d %d", end1, end2)
	}
	if steps1 >= steps2 {
		t.Fatalf("skipping stepped %d cycles, no skipping %d: nothing was skipped", steps1, steps2)
	}
}

type echoer struct {
	in, out *Chan[int]
	seen    []string
}

func (x *echoer) Name() string { return "echo" }
func (x *echoer) Eval(now uint64) bool {
	if x.in.Valid() && (x.out == nil || x.out.Ready()) {
		x.seen = append(x.seen, fmt.Sprintf("%s %d:%d", x.in.Name(), now, *x.in.Peek()))
		if x.out != nil {
			x.out.Push(*x.in.Peek())
		}
		x.in.Pop()
	}
	return false
}
func (x *echoer) Commit() {}

// TestSkipIdleBusy: Step reports a busy component; the caller does not skip.
func TestSkipIdleBusy(t *testing.T) {
	e := New()
	var log []string
	e.Add(&probe{name: "idle", log: &log}, &probe{name: "busy", log: &log, busy: true})
	if !e.Step() {
		t.Fatal("Step did not report the busy component")
	}
	e2 := New()
	e2.Add(&probe{name: "idle", log: &log})
	if e2.Step() {
		t.Fatal("Step reported busy with only an idle component")
	}
}

// TestActivityInHooks: an OnCycle hook sees this cycle's handshakes and
// staged payload; they are gone the next cycle.
func TestActivityInHooks(t *testing.T) {
	e := New()
	c := NewChan[int](e, "c", 2, 2)
	type obs struct {
		now            uint64
		pushed, popped bool
		val            int
		head           bool
		len            int
		headAt         uint64 // 0: no head
	}
	var got, packed []obs
	e.OnCycle(func(now uint64) {
		pu, po := c.Activity()
		v, ok := c.Pushed()
		o := obs{now: now, pushed: pu, popped: po, head: c.HeadValid(), len: c.Len()}
		if at, ok := c.HeadAt(); ok {
			o.headAt = at
		}
		if ok {
			o.val = *v
		}
		got = append(got, o)
		// The packed ChanState says the same.
		st := e.ChanState(c.ID())
		p := obs{now: now, pushed: st.Pushed(), popped: st.Popped(), head: st.HeadValid(), len: st.Len(), val: o.val}
		if st.HasHead() {
			p.headAt = e.ChanHeadAt(c.ID())
		}
		packed = append(packed, p)
	})
	c.Push(5) // cycle 0
	e.Step()
	e.Step() // cycle 1: nothing
	c.Pop()  // cycle 2: visible, popped
	c.Push(6)
	e.Step()
	e.Step() // cycle 3
	want := []obs{
		{now: 0, pushed: true, val: 5, len: 0},
		{now: 1, len: 1, headAt: 2},
		{now: 2, pushed: true, popped: true, val: 6, head: true, len: 1, headAt: 2},
		{now: 3, len: 1, headAt: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hook saw\n %+v\nwant\n %+v", got, want)
	}
	if !reflect.DeepEqual(packed, want) {
		t.Fatalf("ChanState said\n %+v\nwant\n %+v", packed, want)
	}
}
