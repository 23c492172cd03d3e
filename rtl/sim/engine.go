package sim

import (
	"math/rand"
)

// Component is a clocked unit.
type Component interface {
	// Name is the unit's hierarchical name.
	Name() string
	// Eval computes this cycle from registered state and visible channel
	// heads; it stages register updates, pushes and pops, and reports
	// whether the unit has work of its own (so the engine must not skip).
	Eval(now uint64) bool
	// Commit latches the staged register updates.
	Commit()
}

// Actor is a component that can change its state in a cycle without a
// handshake on any channel (a walker stepping over cached list entries):
// Acted reports whether it did in the cycle just evaluated, so that the
// engine can tell progress from a hang (Progressed).
type Actor interface {
	Acted() bool
}

// Engine is the clock: it evaluates every component, then commits every
// component and every channel touched, once a cycle.
type Engine struct {
	now    uint64
	comps  []Component
	actors []Actor
	ports  []Port
	dirty  []Port

	// progressed: the last cycle had a handshake or an actor acted.
	progressed bool
	// wake is the earliest cycle a component asked to be evaluated at
	// (WakeAt) in the last cycle; wakeNext gathers this cycle's requests.
	wake, wakeNext uint64

	// NoSkip disables idle skipping (for tests that compare traces).
	NoSkip bool
	// order, when set, shuffles the evaluation order every cycle (tests of
	// order independence).
	order *rand.Rand
	perm  []int
	// Hooks run after each commit, for tracers and statistics.
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
// Results must not change; only their timing does. 0 turns it off.
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
// shuffled).
func (e *Engine) Add(cs ...Component) {
	e.comps = append(e.comps, cs...)
	for _, c := range cs {
		if a, ok := c.(Actor); ok {
			e.actors = append(e.actors, a)
		}
	}
}

// WakeAt asks, from a component's Eval, that the engine evaluate a cycle
// no later than at even if nothing else happens before: a timer of the
// component's own (the firmware's command latency). A component waiting
// on a timer asks again each cycle it is evaluated. Idle skipping stops
// at the earliest request, and a pending request is not a hang.
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
// component's timer (WakeAt) not yet reached. A model that neither
// progresses nor has anything pending is stuck.
func (e *Engine) Pending() bool {
	if e.wake != noWake && e.wake >= e.now {
		return true
	}
	for _, p := range e.ports {
		if at, ok := p.nextVisible(); ok && at > e.now {
			return true
		}
	}
	return false
}

func (e *Engine) addPort(p Port) { e.ports = append(e.ports, p) }

// Ports lists every channel, in creation order.
func (e *Engine) Ports() []Port { return e.ports }

// Components lists every component, in the order added.
func (e *Engine) Components() []Component { return e.comps }

// Shuffle makes every cycle evaluate the components in a random order
// drawn from seed: results must not change.
func (e *Engine) Shuffle(seed int64) { e.order = rand.New(rand.NewSource(seed)) }

// OnCycle adds a hook called every cycle between evaluation and commit:
// registers still hold this cycle's values and channels show this cycle's
// handshakes, so tracers sample there.
func (e *Engine) OnCycle(f func(now uint64)) { e.hooks = append(e.hooks, f) }

// Step runs one cycle and reports whether a component had work of its own.
func (e *Engine) Step() bool {
	busy := false
	if e.order != nil {
		if len(e.perm) != len(e.comps) {
			e.perm = make([]int, len(e.comps))
		}
		for i := range e.perm {
			e.perm[i] = i
		}
		e.order.Shuffle(len(e.perm), func(i, j int) { e.perm[i], e.perm[j] = e.perm[j], e.perm[i] })
		for _, i := range e.perm {
			if e.comps[i].Eval(e.now) {
				busy = true
			}
		}
	} else {
		for _, c := range e.comps {
			if c.Eval(e.now) {
				busy = true
			}
		}
	}
	for _, h := range e.hooks {
		h(e.now)
	}
	e.progressed = len(e.dirty) > 0
	for _, a := range e.actors {
		if a.Acted() {
			e.progressed = true
		}
	}
	e.wake, e.wakeNext = e.wakeNext, noWake
	for _, c := range e.comps {
		c.Commit()
	}
	for _, p := range e.dirty {
		p.commit()
	}
	e.dirty = e.dirty[:0]
	e.now++
	return busy
}

// Held reports whether any channel holds a payload.
func (e *Engine) Held() bool {
	for _, p := range e.ports {
		if p.Len() > 0 {
			return true
		}
	}
	return false
}

// SkipIdle is called after a Step in which no component was busy: if no
// channel shows a payload now, time jumps to the cycle at which the next one
// becomes visible. With hooks, one idle cycle is stepped first so that
// tracers see the handshakes of the last active cycle end.
func (e *Engine) SkipIdle() {
	if e.NoSkip {
		return
	}
	next := ^uint64(0)
	for _, p := range e.ports {
		at, ok := p.nextVisible()
		if !ok {
			continue
		}
		if at <= e.now {
			return
		}
		if at < next {
			next = at
		}
	}
	if e.wake < next {
		if e.wake <= e.now {
			return
		}
		next = e.wake
	}
	if next == ^uint64(0) || next <= e.now+1 {
		return
	}
	if len(e.hooks) > 0 {
		e.Step()
	}
	e.now = next
}
