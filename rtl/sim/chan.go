package sim

import "fmt"

// Port is what the engine and tracers need of any channel, whatever its
// payload type.
type Port interface {
	Name() string
	// ID is the channel's number in its engine, 0, 1, ... in creation
	// order: tracers index their tables with it.
	ID() int
	// nextVisible returns the cycle at which the head becomes visible, if
	// the channel holds anything.
	nextVisible() (uint64, bool)
	// Len is the committed occupancy.
	Len() int
	// Cap is the depth.
	Cap() int
	// Activity reports this cycle's handshakes: a push happened (valid and
	// ready on the input side) and a pop happened (on the output side).
	Activity() (pushed, popped bool)
	// HeadValid reports whether the consumer sees a payload this cycle.
	HeadValid() bool
	// bindConsumer and bindProducer name the components (by number) that
	// pop and push the channel, for the engine to wake them.
	bindConsumer(i int)
	bindProducer(i int)
	// consumed reports whether a Connected component pops the channel.
	consumed() bool
}

// link is the part of a channel that does not depend on its payload
// type: occupancy, the cycle's handshakes, when each payload becomes
// visible and who to wake. The engine commits links directly (no
// interface call per channel and cycle), and Valid and Ready read only
// this struct.
type link struct {
	clk     *Engine
	id      int
	depth   int
	latency uint64
	head, n int
	// headAt is at[head] while the channel holds a payload: the cycle the
	// head becomes visible, kept here so that Valid reads one line.
	headAt uint64
	at     []uint64 // by slot: the cycle its payload becomes visible

	pushed bool
	popped bool
	dirty  bool
	// blocked: the producer found the channel not ready (full, or pushed
	// to already this cycle) since the last slot freed: it is woken when
	// one does.
	blocked bool

	// prod and cons are the components that push and pop, -1 for none
	// known (a test, a component evaluated every cycle).
	prod, cons int
}

// Chan is a valid/ready channel: a FIFO of Depth entries with a Latency
// in cycles. One producer pushes at most one payload a cycle; one consumer
// pops at most one.
type Chan[T any] struct {
	link
	name string
	buf  []T
}

// NewChan makes a channel registered with the engine. depth >= 1,
// latency >= 1.
func NewChan[T any](e *Engine, name string, depth, latency int) *Chan[T] {
	if depth < 1 {
		depth = 1
	}
	if latency < 1 {
		latency = 1
	}
	c := &Chan[T]{name: name, buf: make([]T, depth)}
	c.link = link{clk: e, id: len(e.ports), depth: depth, latency: uint64(latency), at: make([]uint64, depth),
		prod: -1, cons: -1}
	e.addPort(c, &c.link)
	return c
}

// Name is the channel's hierarchical name.
func (c *Chan[T]) Name() string { return c.name }

// ID is the channel's number in its engine (creation order).
func (c *link) ID() int { return c.id }

// Ready reports whether the producer may push this cycle. A producer told
// no is woken when the channel can take a payload again.
func (c *Chan[T]) Ready() bool {
	if c.n < c.depth && !c.pushed && !c.clk.stalls(c.id) {
		return true
	}
	c.blocked = true
	return false
}

// Push stages v; it becomes visible Latency cycles later. Pushing when not
// Ready is a modelling bug and panics. v is written straight into the
// FIFO's free slot (Ready means there is one, even if the head leaves in
// the same cycle); it counts only from the commit on.
func (c *Chan[T]) Push(v T) {
	if !c.Ready() {
		panic(fmt.Sprintf("sim: push to %s when not ready", c.name))
	}
	c.pushed = true
	c.buf[c.tail()] = v
	c.clk.handshakes++
	c.markDirty()
}

// tail is the slot after the last payload held.
func (c *link) tail() int {
	i := c.head + c.n
	if i >= c.depth {
		i -= c.depth
	}
	return i
}

func (c *link) bindConsumer(i int) { c.cons = i }
func (c *link) bindProducer(i int) { c.prod = i }
func (c *link) consumed() bool     { return c.cons >= 0 }

// Valid reports whether the consumer sees a payload this cycle.
func (c *Chan[T]) Valid() bool {
	return c.n > 0 && !c.popped && c.headAt <= c.clk.now && !c.clk.stalls(c.id)
}

// HeadValid is Valid ignoring a pop staged this cycle (for tracing).
func (c *link) HeadValid() bool { return c.n > 0 && c.headAt <= c.clk.now }

// Peek returns the visible head; call it only when Valid.
func (c *Chan[T]) Peek() *T { return &c.buf[c.head] }

// Pop stages the removal of the head; call it only when Valid.
func (c *Chan[T]) Pop() {
	if !c.Valid() {
		panic(fmt.Sprintf("sim: pop from %s when not valid", c.name))
	}
	c.popped = true
	c.clk.handshakes++
	c.markDirty()
}

func (c *link) markDirty() {
	if !c.dirty {
		c.dirty = true
		c.clk.dirty = append(c.clk.dirty, c)
	}
}

// Len is the committed occupancy.
func (c *link) Len() int { return c.n }

// Cap is the depth.
func (c *link) Cap() int { return c.depth }

// Activity reports whether a push and a pop are staged this cycle, that is
// whether each side's valid and ready are both high; call it from an
// OnCycle hook, which runs between evaluation and commit.
func (c *link) Activity() (bool, bool) { return c.pushed, c.popped }

// Pushed returns the payload staged this cycle, if any (for tracing).
func (c *Chan[T]) Pushed() (*T, bool) {
	if !c.pushed {
		return nil, false
	}
	return &c.buf[c.tail()], true
}

// Each calls f on every payload held, head first.
func (c *Chan[T]) Each(f func(*T)) {
	for i := 0; i < c.n; i++ {
		f(&c.buf[(c.head+i)%c.depth])
	}
}

// commit latches the cycle's push and pop and wakes the components they
// concern: the producer, if the channel refused it since it last freed,
// the cycle after a pop or its own push; the consumer when the head it
// will see next becomes visible.
func (c *link) commit() {
	e := c.clk
	pushed, popped := c.pushed, c.popped
	if pushed {
		// The payload was written at the tail before the pop moved the
		// head: place it first.
		c.at[c.tail()] = e.now + c.latency
	}
	// The popped slot keeps its old payload until overwritten: clearing
	// it would cost a copy of the payload every cycle for nothing.
	c.head = Wrap(c.head+int(B(popped)), c.depth)
	c.n += int(B(pushed)) - int(B(popped))
	// The producer is woken when the channel can take again what it was
	// refused: the cycle after a pop freed a slot, or after its own push
	// if it wanted to push again; the consumer when a head shows.
	if c.blocked && (popped || pushed) {
		c.blocked = false
		if c.prod >= 0 {
			e.schedule(c.prod, e.now+1)
		}
	}
	if c.n > 0 {
		c.headAt = c.at[c.head]
		if c.cons >= 0 {
			e.schedule(c.cons, max(c.headAt, e.now+1))
		}
	}
	c.pushed, c.popped, c.dirty = false, false, false
}

func (c *link) nextVisible() (uint64, bool) {
	if c.n == 0 {
		return 0, false
	}
	return c.headAt, true
}
