package sim

import (
	"fmt"
	"math/bits"
	"math/rand"
)

// Component is a clocked unit.
type Component interface {
	// Name is the unit's hierarchical name.
	Name() string
	// Eval computes this cycle from registered state and visible channel
	// heads; it stages register updates, pushes and pops, and reports
	// whether the unit has work of its own for the next cycle (so that the
	// engine evaluates it then, whatever its channels do).
	Eval(now uint64) bool
}

// Committer is a component with registers that Eval stages and Commit
// latches at the clock edge. A component whose Eval updates its private
// state in place (no other component can read it) needs no Commit.
type Committer interface {
	Commit()
}

// Connected is a component that follows the engine's wake rules (it
// embeds Base) and names the channels it consumes from and produces into:
// the engine then evaluates it only in the cycles that something happens
// to it (see Engine).
type Connected interface {
	Component
	// Connections lists the channels the component pops (inputs) and
	// pushes (outputs).
	Connections() (inputs, outputs []Port)
	based
}

// based is what embedding Base gives a component: its place in the engine.
type based interface{ base() *Base }

var _ based = (*Base)(nil)

// Actor is a component that can change its state in a cycle without a
// handshake on any channel (a walker stepping over cached list entries):
// Acted reports whether it did in the cycle just evaluated, so that the
// engine can tell progress from a hang (Progressed).
type Actor interface {
	Acted() bool
}

// Engine is the clock: once a cycle it evaluates the components that have
// something to do, then commits them and every channel touched.
//
// A Connected component (one that embeds Base and lists its channels) is
// evaluated in a cycle only when one of these woke it: a payload became
// visible at the head of one of its inputs, an output that refused it
// (Ready false) can take again (a slot freed, or the cycle after its own
// push), it returned busy from its last Eval, or a timer of its own
// (Base.WakeAt) came due. Its Eval must do nothing in any other cycle:
// whatever it waits on is one of those events. So a component returns
// busy when it could go on in the next cycle with no new event: a second
// input still waiting behind the one it served, a serializer free again,
// or (Base.Handshakes) anything it moved this cycle that may have freed
// a resource of its own (an MSHR, a tag). Any other component is evaluated in every cycle the
// engine steps. Cycles in which nothing is due are skipped (SkipIdle).
// NoSkip and Backpressure evaluate every component in every cycle: the
// reference the schedule must match (results, completion cycles,
// counters and waveforms; tb tests compare them).
type Engine struct {
	now     uint64
	comps   []Component
	commits []Committer // by component; nil: no Commit
	actors  []Actor     // by component; nil: not an Actor
	bases   []*Base     // by component; nil: evaluated every cycle
	legacy  int         // components without a Base
	ports   []Port
	links   []*link // by port ID: the ports' type-independent parts
	dirty   []*link

	// due holds the components to evaluate this cycle, next those of the
	// next; later the wakes further ahead.
	due, next bitset
	later     wheel
	ran       []uint64 // by component: 1 + the last cycle it was evaluated
	// committers and acting are the components with a Commit and the
	// Actors, as sets: stepDue visits only those of the due set.
	committers, acting bitset
	// watch lists the channels SkipIdle looks at: those no Connected
	// component pops (all of them once a component without a Base is
	// added). Adding a channel or a component makes it stale.
	watch      []*link
	watchStale bool
	// ranAll holds the components Step evaluated this cycle when it did
	// not walk the due set (stepDue's cycles ran exactly due): RanNow.
	ranAll  bitset
	stepped bool // this cycle is Step's, not stepDue's

	// progressed: the last cycle had a handshake or an actor acted.
	progressed bool
	// legacyBusy: a component without a Base returned busy last cycle.
	legacyBusy bool
	// stepNext: step the next cycle even with nothing due (hooks see the
	// handshakes of an active cycle end).
	stepNext bool
	// wake is the earliest cycle asked for by Engine.WakeAt in the last
	// cycle; wakeNext gathers this cycle's requests.
	wake, wakeNext uint64

	// NoSkip evaluates every component in every cycle and never skips
	// (the reference the schedule is tested against).
	NoSkip bool
	// Audit is NoSkip that also checks the wake rules: a Connected
	// component evaluated in a cycle it was not due must not push, pop,
	// act or report itself busy (the schedule would have missed it).
	// Violations lists the first ones found.
	Audit      bool
	Violations []string
	handshakes uint64 // pushes and pops staged so far
	// order, when set, shuffles the evaluation order every cycle (tests of
	// order independence).
	order *rand.Rand
	perm  []int
	// Hooks run after each evaluation, for tracers and statistics.
	hooks []func(now uint64)

	// Back-pressure (tests): each channel, each cycle, is stalled with
	// probability bpPerMille/1000, drawn from bpSeed, the channel and the
	// cycle.
	bpSeed     uint64
	bpPerMille uint64
}

// Backpressure makes every channel, in a cycle drawn at random with
// probability perMille/1000, neither ready to its producer nor valid to
// its consumer: the stalls a real design sees from a busy neighbour. The
// draw is a hash of seed, the channel and the cycle, so it does not depend
// on the order components are evaluated in and repeats with the seed.
// Results must not change; only their timing does. 0 turns it off. With
// back-pressure every component is evaluated in every cycle (a stall comes
// and goes with no event).
func (e *Engine) Backpressure(seed uint64, perMille int) {
	e.bpSeed, e.bpPerMille = seed, uint64(max(min(perMille, 1000), 0))
}

// stalls reports whether back-pressure stalls channel id this cycle.
func (e *Engine) stalls(id int) bool {
	if e.bpPerMille == 0 {
		return false
	}
	x := e.bpSeed ^ uint64(id)*0x9e3779b97f4a7c15 ^ e.now*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	x ^= x >> 29
	return x%1000 < e.bpPerMille
}

// New returns an engine at cycle 0.
func New() *Engine { return &Engine{wake: noWake, wakeNext: noWake} }

const noWake = ^uint64(0)

// Now is the current cycle.
func (e *Engine) Now() uint64 { return e.now }

// Add registers components, evaluated in the order added (unless
// shuffled). A Connected component is bound to the channels it lists and
// is due in the first cycle.
func (e *Engine) Add(cs ...Component) {
	for _, c := range cs {
		i := len(e.comps)
		e.comps = append(e.comps, c)
		cm, _ := c.(Committer)
		e.commits = append(e.commits, cm)
		a, _ := c.(Actor)
		e.actors = append(e.actors, a)
		e.ran = append(e.ran, 0)
		e.ranAll.grow(i + 1)
		e.due.grow(i + 1)
		e.next.grow(i + 1)
		e.later.grow(i + 1)
		e.committers.grow(i + 1)
		e.acting.grow(i + 1)
		if cm != nil {
			e.committers.set(i)
		}
		if a != nil {
			e.acting.set(i)
		}
		e.watchStale = true
		cc, ok := c.(Connected)
		if !ok {
			e.bases = append(e.bases, nil)
			e.legacy++
			continue
		}
		b := cc.base()
		b.eng, b.idx = e, i
		e.bases = append(e.bases, b)
		in, out := cc.Connections()
		for _, p := range in {
			if p != nil {
				p.bindConsumer(i)
			}
		}
		for _, p := range out {
			if p != nil {
				p.bindProducer(i)
			}
		}
		e.due.set(i)
	}
}

// schedule makes component i due at cycle at (> now).
func (e *Engine) schedule(i int, at uint64) {
	if at <= e.now+1 {
		e.next.set(i)
		return
	}
	e.later.push(e.now, at, i)
}

// WakeAt asks, from a component's Eval, that the engine step a cycle no
// later than at even if nothing else happens before (every component
// without a Base is evaluated then): a timer. A component waiting on a
// timer asks again each cycle it is evaluated. A pending request is not a
// hang. Components with a Base use Base.WakeAt, which wakes them alone.
func (e *Engine) WakeAt(at uint64) {
	if at < e.wakeNext {
		e.wakeNext = at
	}
}

// Progressed reports whether the last cycle stepped moved anything: a
// handshake on some channel, or an Actor that acted.
func (e *Engine) Progressed() bool { return e.progressed }

// Pending reports whether something is bound to happen without any
// component acting: a payload on its way that is not yet visible, or a
// component's timer not yet reached. A model that neither progresses nor
// has anything pending is stuck.
func (e *Engine) Pending() bool {
	if e.wake != noWake && e.wake >= e.now {
		return true
	}
	if e.later.after(e.now) {
		return true
	}
	for _, l := range e.links {
		if at, ok := l.nextVisible(); ok && at > e.now {
			return true
		}
	}
	return false
}

func (e *Engine) addPort(p Port, l *link) {
	e.ports = append(e.ports, p)
	e.links = append(e.links, l)
	e.watchStale = true
}

// Ports lists every channel, in creation order.
func (e *Engine) Ports() []Port { return e.ports }

// Components lists every component, in the order added.
func (e *Engine) Components() []Component { return e.comps }

// Shuffle makes every cycle evaluate the components in a random order
// drawn from seed: results must not change.
func (e *Engine) Shuffle(seed int64) { e.order = rand.New(rand.NewSource(seed)) }

// OnCycle adds a hook called every cycle stepped, between evaluation and
// commit: registers still hold this cycle's values and channels show this
// cycle's handshakes, so tracers sample there. With hooks, the cycle
// after one in which anything ran is always stepped, so that a tracer
// sees strobes and handshakes end.
func (e *Engine) OnCycle(f func(now uint64)) { e.hooks = append(e.hooks, f) }

// evalAll reports whether every component is evaluated this cycle.
func (e *Engine) evalAll() bool { return e.NoSkip || e.Audit || e.bpPerMille > 0 }

// Step runs one cycle and moves to the next. It reports whether the next
// cycle has work (something due, or a busy component without a Base):
// when it does not, SkipIdle may jump over the idle cycles.
func (e *Engine) Step() bool {
	if !e.evalAll() && e.legacy == 0 && e.order == nil {
		return e.stepDue()
	}
	all := e.evalAll()
	e.legacyBusy = false
	ranAny := false
	e.stepped = true
	e.ranAll.clear()
	eval := func(i int) {
		if !all && e.bases[i] != nil && !e.due.has(i) {
			return
		}
		e.ran[i] = e.now + 1
		e.ranAll.set(i)
		ranAny = true
		h := e.handshakes
		busy := e.comps[i].Eval(e.now)
		if e.Audit && e.bases[i] != nil && !e.due.has(i) {
			acted := e.actors[i] != nil && e.actors[i].Acted()
			if (busy || acted || e.handshakes != h) && len(e.Violations) < 20 {
				e.Violations = append(e.Violations, fmt.Sprintf("cycle %d: %s acted while not due (busy %v, acted %v, %d handshakes)",
					e.now, e.comps[i].Name(), busy, acted, e.handshakes-h))
			}
		}
		if busy {
			if e.bases[i] != nil {
				e.next.set(i)
			} else {
				e.legacyBusy = true
			}
		}
	}
	if e.order != nil {
		if len(e.perm) != len(e.comps) {
			e.perm = make([]int, len(e.comps))
		}
		for i := range e.perm {
			e.perm[i] = i
		}
		e.order.Shuffle(len(e.perm), func(i, j int) { e.perm[i], e.perm[j] = e.perm[j], e.perm[i] })
		for _, i := range e.perm {
			eval(i)
		}
	} else if all || e.legacy > 0 {
		for i := range e.comps {
			eval(i)
		}
	} else {
		for w, word := range e.due.w {
			for ; word != 0; word &= word - 1 {
				eval(w<<6 + bits.TrailingZeros64(word))
			}
		}
	}
	for _, h := range e.hooks {
		h(e.now)
	}
	e.progressed = len(e.dirty) > 0
	for i, a := range e.actors {
		if a != nil && e.ran[i] == e.now+1 && a.Acted() {
			e.progressed = true
		}
	}
	e.wake, e.wakeNext = e.wakeNext, noWake
	for i, c := range e.commits {
		if c != nil && e.ran[i] == e.now+1 {
			c.Commit()
		}
	}
	e.endCycle(ranAny)
	return !e.due.empty() || e.legacyBusy
}

// endCycle commits the channels touched in the cycle, moves to the next
// one and takes the wakes due then: the end of Step and of stepDue.
func (e *Engine) endCycle(ranAny bool) {
	for _, l := range e.dirty {
		l.commit()
	}
	e.stepNext = len(e.hooks) > 0 && (ranAny || len(e.dirty) > 0)
	e.dirty = e.dirty[:0]
	e.now++
	e.due, e.next = e.next, e.due
	e.next.clear()
	e.takeDue()
}

// stepDue is Step when every component follows the wake rules and
// nothing asks for more (no NoSkip, Audit, back-pressure or shuffle):
// only the components due are evaluated and committed, walking the due
// set's bits, with no per-component test of the others.
func (e *Engine) stepDue() bool {
	now := e.now
	ranAny := false
	e.stepped = false
	for w, word := range e.due.w {
		for ; word != 0; word &= word - 1 {
			i := w<<6 + bits.TrailingZeros64(word)
			e.ran[i] = now + 1
			ranAny = true
			if e.comps[i].Eval(now) {
				e.next.set(i)
			}
		}
	}
	for _, h := range e.hooks {
		h(now)
	}
	e.progressed = len(e.dirty) > 0
	e.wake, e.wakeNext = e.wakeNext, noWake
	for w, word := range e.due.w {
		// A unit's Acted reads its own state, before its Commit.
		for y := word & e.acting.w[w]; y != 0 && !e.progressed; y &= y - 1 {
			e.progressed = e.actors[w<<6+bits.TrailingZeros64(y)].Acted()
		}
		for y := word & e.committers.w[w]; y != 0; y &= y - 1 {
			e.commits[w<<6+bits.TrailingZeros64(y)].Commit()
		}
	}
	e.endCycle(ranAny)
	return !e.due.empty()
}

// takeDue moves the wakes due by now from later to due.
func (e *Engine) takeDue() { e.later.take(e.now, &e.due) }

// Held reports whether any channel holds a payload.
func (e *Engine) Held() bool {
	for _, l := range e.links {
		if l.n > 0 {
			return true
		}
	}
	return false
}

// SkipIdle is called after a Step that reported no work for the next
// cycle: time jumps to the next cycle at which something is due (a wake,
// a timer, or, with components without a Base, a payload becoming
// visible). It does nothing when something is due now.
func (e *Engine) SkipIdle() {
	if e.NoSkip || e.evalAll() || !e.due.empty() || e.legacyBusy {
		return
	}
	next := noWake
	if at, ok := e.later.earliest(e.now); ok {
		next = at
	}
	// Channels that no Connected component pops: their consumer (a
	// component without a Base, a test) runs every cycle stepped, so the
	// cycle their head shows must be stepped.
	if e.watchStale {
		e.watch = e.watch[:0]
		for _, l := range e.links {
			if e.legacy > 0 || l.cons < 0 {
				e.watch = append(e.watch, l)
			}
		}
		e.watchStale = false
	}
	for _, l := range e.watch {
		at, ok := l.nextVisible()
		if !ok {
			continue
		}
		if at <= e.now {
			return
		}
		next = min(next, at)
	}
	if e.wake != noWake {
		if e.wake <= e.now {
			return
		}
		next = min(next, e.wake)
	}
	if next == noWake || next <= e.now+1 {
		return
	}
	if e.stepNext {
		// One idle cycle first, so that tracers see the last active
		// cycle's strobes and handshakes end.
		e.Step()
		if next <= e.now || !e.due.empty() {
			return
		}
	}
	e.now = next
	e.takeDue()
}
