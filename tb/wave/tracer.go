package wave

import (
	"fmt"
	"io"
	"math/bits"
	"slices"

	"mkeysim/rtl/sim"
	"mkeysim/tb"
	"mkeysim/vcd"
)

// This file is the waveform tracer: it samples the bench every cycle and
// streams the changes to a vcd.Writer. signals.go declares what is
// traced, view.go writes the GTKWave save file and translate
// filters and manages the files.
//
// # What a signal means
//
// The tracer samples in the engine's OnCycle hook, after every component
// has evaluated cycle c and before the edge that commits it, and writes
// the values at time c (c times the clock period). For a channel X of a
// unit (X is the channel's name without its unit prefix, "in" for
// "mptcache.in"):
//
//   - X_push: the producer pushed a payload at cycle c (its valid and the
//     FIFO's ready were both high: the input side's handshake);
//   - X_valid: the consumer sees a payload at the head at cycle c (it is in
//     the FIFO and its latency has elapsed);
//   - X_ready: the consumer took the head at cycle c (the output side's
//     handshake). The model's consumers do not say whether they would take
//     a payload that is not there, so ready is only ever high with valid:
//     a cycle with X_valid and X_ready both high is one transfer, a cycle
//     with X_valid high and X_ready low is one of backpressure;
//   - X_count: the FIFO's committed occupancy during cycle c (it changes
//     one cycle after a push or a pop);
//   - X_<field>: a field of the payload at the head, updated on every
//     cycle X_valid is high and held otherwise (its value is meaningless
//     while X_valid is low, as on a real bus).
//
// Unit state (FSM summaries, strobes, MSHRs, contexts, the reorder buffer
// and the command path) is what the unit's accessors report after the
// evaluation of cycle c: strobes are the events of cycle c, and registers
// that a unit updates during evaluation (the top's ROB count and command
// state, the walkers' contexts) show their new value from cycle c on.
//
// Cycles the engine skips (sim.Engine.SkipIdle) have no change: the
// engine steps one idle cycle before jumping, so the tracer sees every
// strobe fall, and nothing changes in the cycles it jumps over.
//
// # Cost
//
// With no tracer the engine has no hook and pays nothing. With one, each
// cycle looks only at the channels whose signals can change: those with
// a push or a pop staged (sim.Engine.Touched), those touched the cycle
// before (their strobes fall, their occupancy and head change) and those
// whose head becomes visible (sim.Chan.HeadAt, kept in a heap). It reads
// the units' registers, skipping even that in cycles where no channel
// moves and nothing counts down, and compares every value with the last
// one; changes go to a log that a second goroutine turns into VCD text
// with the vcd.Writer, so the formatting and the writing run beside the
// model. docs/waveform.md has the measured cost.

// The log is a sequence of words: a time mark (markBit | cycle, for
// cycles below 2^62); a change of signal i to value v, packed in one
// word (i<<idxShift | v) when v fits in idxShift bits, else in two
// (longBit | i, then v); or a block, the whole sample of a unit or of a
// component's counters (markBit | longBit | b<<blockShift | n, then the
// n values of block b), which the writer goroutine hands to the block's
// variables as they are: vcd.Writer writes only the values that changed,
// so the model's goroutine copies a sample that differs from the last one
// instead of comparing it value by value.
const (
	markBit    = 1 << 63
	longBit    = 1 << 62
	blockBits  = markBit | longBit
	blockShift = 32
	idxShift   = 44
	maxSigs    = 1 << (62 - idxShift) // signals one tracer can declare (1<<18)
)

// logWords is the size of one log buffer handed to the writer goroutine,
// and logBuffers how many circulate.
const (
	logWords   = 1 << 14
	logBuffers = 32
)

// sig is one traced signal: its last sampled value and its variable.
type sig struct {
	v    uint64
	mask uint64
	idx  uint32
}

// Tracer writes the waveform of a Bench's run. Make one with New or
// Create before the run and Close it after.
type Tracer struct {
	b        *tb.Bench
	w        *vcd.Writer
	from, to uint64

	vars  []*vcd.Var // by signal index
	sigs  []*sig     // by signal index
	arena []sig      // the chunk signals are allocated from
	info  []Signal   // by signal index
	order []string   // group names in data-flow order

	ports    []*chanTracer
	byPort   map[sim.Port]int
	index    portIndex // byPort, faster
	stamp    []uint64  // per port: 1 + the cycle it was last sampled
	due      []int     // ports to sample this cycle (scratch)
	touched  []int     // IDs of the channels touched this cycle (scratch)
	next     []int     // ports to sample next cycle
	wakes    wakeHeap  // ports to sample when their head becomes visible
	units    []unitTracer
	counters []counterTracer
	byComp   []compTracers // by component number: its units and counters
	// ranBefore is the engine's RanNow of the cycle ranAt-1, the last
	// one the hook sampled.
	ranBefore []uint64
	ranAt     uint64
	blocks    [][]*vcd.Var         // by block number: the variables of a unit's or counters' sample
	enums     map[string]*sim.Enum // the value names of the signals, by filter name

	now       uint64
	marked    uint64 // now+1 once this cycle's time mark is logged
	logging   bool   // changes are logged (the window has begun)
	seen      bool   // a cycle has been sampled
	seenUnits bool   // the units have been sampled once
	log       []uint64
	work      chan []uint64
	free      chan []uint64
	done      chan struct{}
	closed    bool
	closeErr  error

	file *files // Create's files, nil for New
}

// Signal describes one traced variable, for save files and tests.
type Signal struct {
	Path   string     // dotted path without range: "top.mptcache.in_key"
	Width  int        // bits
	Format vcd.Format // how GTKWave shows it
	Filter string     // translate filter name ("status"), "" for none
	Group  string     // the save-file group it belongs to
}

// Trace attaches a tracer to b that writes a VCD file to out with the
// options o (window, scope filter, timescale: o.TimescalePS 0 takes the
// model's clock period). It declares every signal, writes the header and
// registers the engine hook; the run then proceeds as usual and Close
// finishes the file. Call it before Run and at most once per bench.
func New(b *tb.Bench, out io.Writer, o vcd.Options) (*Tracer, error) {
	if o.TimescalePS == 0 {
		o.TimescalePS = b.Top.Config().ClockPS
	}
	if o.Version == "" {
		o.Version = "mkeysim tb.Trace" // the name it had before tb/wave: VCD headers stay as they were
	}
	if o.To != 0 && o.From > o.To {
		return nil, fmt.Errorf("trace: window starts at cycle %d, after its end %d", o.From, o.To)
	}
	o.Clock = true // top.clk and top.cycle, the time base
	t := newTracer(b, vcd.NewWriter(out, o))
	t.from, t.to = o.From, o.To
	t.declare()
	switch {
	case len(t.vars) == 0:
		return nil, fmt.Errorf("trace: scope %q selects no signal (scopes: %s)", o.Scope, joinScopes(t.b))
	case len(t.vars) > maxSigs || len(t.ports) > wakeMask:
		return nil, fmt.Errorf("trace: %d signals of %d channels, more than the tracer handles", len(t.vars), len(t.ports))
	}
	if err := t.w.Begin(); err != nil {
		return nil, err
	}
	t.stamp = make([]uint64, len(t.ports))
	t.index = newPortIndex(t.byPort, t.ports)
	t.indexComps()
	t.logging = o.From == 0
	t.log = make([]uint64, 0, logWords)
	t.work = make(chan []uint64, logBuffers)
	t.free = make(chan []uint64, logBuffers)
	for i := 0; i < logBuffers-1; i++ {
		t.free <- make([]uint64, 0, logWords)
	}
	t.done = make(chan struct{})
	go t.writer()
	b.Eng.OnCycle(t.hook)
	return t, nil
}

// newTracer returns a tracer of b into w with nothing declared.
func newTracer(b *tb.Bench, w *vcd.Writer) *Tracer {
	return &Tracer{b: b, w: w, byPort: map[sim.Port]int{}, enums: map[string]*sim.Enum{}}
}

// Signals lists the traced variables in data-flow order.
func (t *Tracer) Signals() []Signal { return append([]Signal(nil), t.info...) }

// Writer is the underlying VCD writer (for its Timescale).
func (t *Tracer) Writer() *vcd.Writer { return t.w }

// hook samples cycle now. A channel is looked at only on the cycles
// where one of its signals can change: when it is touched (a push or a
// pop is staged), the cycle after (the strobes fall, the occupancy and
// the head change), and the cycle its head becomes visible.
func (t *Tracer) hook(now uint64) {
	if t.closed {
		return
	}
	if t.to != 0 && now > t.to {
		if !t.logging {
			// The window lay in cycles the engine skipped: its state is
			// the one sampled last.
			t.begin()
		}
		return
	}
	t.now = now
	if !t.logging && now >= t.from {
		t.begin()
	}
	due := append(t.due[:0], t.next...)
	t.next = t.next[:0]
	if !t.seen {
		// The first cycle: look at every channel once.
		t.seen = true
		for i, p := range t.ports {
			if p.traced {
				due = append(due, i)
			}
		}
	}
	t.touched = t.b.Eng.Touched(t.touched[:0])
	for _, id := range t.touched {
		if i := t.index.find(id); i >= 0 {
			due = append(due, i)
		}
	}
	for len(t.wakes) > 0 && t.wakes[0]>>wakeShift <= now {
		due = append(due, int(t.wakes.pop()&wakeMask))
	}
	t.due = due
	stamp := now + 1
	for _, i := range due {
		if t.stamp[i] == stamp {
			continue
		}
		t.stamp[i] = stamp
		switch at, ev := t.ports[i].sample(t); {
		case ev:
			t.next = append(t.next, i)
		case at > now:
			t.wakes.push(at<<wakeShift | uint64(i))
		}
	}
	t.sampleUnits()
	if len(t.log) >= logWords-2048 {
		t.flush()
	}
}

// sampleUnits samples the signals of the components that ran this cycle
// or the one before: a unit's signals change only when it runs (its
// strobes and the registers it stages) and at the commit that follows
// (the strobes fall, latched registers show) (sim.Description). Its
// counters change only when it runs: every unit counts in Eval, never in
// Commit (sim's package doc), so they are read only in the cycles it ran.
// It walks the engine's set of the components that ran
// (sim.Engine.RanNow) and the one kept from the cycle before, not every
// unit.
func (t *Tracer) sampleUnits() {
	ran := t.b.Eng.RanNow()
	if !t.seenUnits {
		for k := range t.units {
			t.sampleUnit(k)
		}
		for k := range t.counters {
			t.sampleCounters(k)
		}
		t.seenUnits = true
	} else {
		var before []uint64
		if t.ranAt == t.now { // the hook ran at cycle now-1
			before = t.ranBefore
		}
		for w, x := range ran {
			y := x
			if w < len(before) {
				y |= before[w]
			}
			for ; y != 0; y &= y - 1 {
				i := w<<6 + bits.TrailingZeros64(y)
				if i >= len(t.byComp) {
					break
				}
				ranNow := x>>(i&63)&1 != 0
				c := &t.byComp[i]
				for _, k := range c.units {
					t.sampleUnit(k)
				}
				if ranNow {
					for _, k := range c.counters {
						t.sampleCounters(k)
					}
				}
			}
		}
	}
	t.ranBefore = append(t.ranBefore[:0], ran...)
	t.ranAt = t.now + 1
}

// sampleUnit samples unit k's signals.
func (t *Tracer) sampleUnit(k int) {
	u := &t.units[k]
	// Most of a unit's signals hold from one cycle to the next (idle
	// contexts): compare the whole sample with the last one first.
	u.vals, u.last = u.last, u.vals
	u.sample(u.vals)
	if t.seenUnits && slices.Equal(u.vals, u.last) {
		return
	}
	if t.logging && t.seenUnits {
		t.logBlock(u.block, u.vals)
		return
	}
	for i, s := range u.sigs {
		if x := u.vals[i]; x != u.last[i] || !t.seenUnits {
			t.set(s, x)
		}
	}
}

// sampleCounters samples the counters of component k, in a cycle its
// unit ran (and in the first cycle sampled). A counter changes only in its unit's Eval: it shows the count
// up to the cycle before, and what the unit's evaluation of this cycle
// added.
func (t *Tracer) sampleCounters(k int) {
	c := &t.counters[k]
	// Read in place: copy only a sample that changed.
	if t.seenUnits && c.sameWords() {
		return
	}
	c.vals, c.last = c.last[:0], c.vals
	for _, w := range c.words {
		c.vals = append(c.vals, w...)
	}
	if t.logging && t.seenUnits {
		t.logBlock(c.block, c.vals[:min(len(c.sigs), len(c.vals))])
		return
	}
	for i, s := range c.sigs[:min(len(c.sigs), len(c.vals))] {
		if x := c.vals[i]; !t.seenUnits || i >= len(c.last) || x != c.last[i] {
			t.set(s, x)
		}
	}
}

// sameWords reports whether the counters in place hold the last sample.
func (c *counterTracer) sameWords() bool {
	at := 0
	for _, w := range c.words {
		if !slices.Equal(w, c.vals[at:at+len(w)]) {
			return false
		}
		at += len(w)
	}
	return true
}

// compTracers lists the unit and counter tracers of one component.
type compTracers struct {
	units, counters []int
}

// indexComps fills Tracer.byComp from the units and counters declared.
func (t *Tracer) indexComps() {
	n := 0
	for _, u := range t.units {
		n = max(n, u.comp+1)
	}
	for _, c := range t.counters {
		n = max(n, c.comp+1)
	}
	t.byComp = make([]compTracers, n)
	for k, u := range t.units {
		t.byComp[u.comp].units = append(t.byComp[u.comp].units, k)
	}
	for k, c := range t.counters {
		t.byComp[c.comp].counters = append(t.byComp[c.comp].counters, k)
	}
}

// portIndex finds a traced channel's index from the engine's sim.Port by
// the port's ID: a slice lookup, cheaper than hashing the interface in
// the hook several times a cycle.
type portIndex struct {
	byID []int // port ID -> traced index, -1 if not traced
}

// newPortIndex indexes the channels of byPort that have a traced signal
// (ports, by index): the others are never looked at.
func newPortIndex(byPort map[sim.Port]int, ports []*chanTracer) portIndex {
	n := 0
	for p := range byPort {
		n = max(n, p.ID()+1)
	}
	x := portIndex{byID: make([]int, n)}
	for i := range x.byID {
		x.byID[i] = -1
	}
	for p, i := range byPort {
		if ports[i].traced {
			x.byID[p.ID()] = i
		}
	}
	return x
}

// find returns the index of the channel numbered id, or -1 if it is not
// traced.
func (x *portIndex) find(id int) int {
	if id < len(x.byID) {
		return x.byID[id]
	}
	return -1
}

// Wake-ups are kept in a min-heap of cycle<<wakeShift | port index.
const (
	wakeShift = 16
	wakeMask  = 1<<wakeShift - 1
)

type wakeHeap []uint64

func (h *wakeHeap) push(x uint64) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *wakeHeap) pop() uint64 {
	a := *h
	x := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a[l] < a[m] {
			m = l
		}
		if r := l + 1; r < n && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return x
}

// begin starts logging at the window's first cycle: the values sampled
// so far (the state held since the last sampled cycle, which lasts until
// the window starts, or until now if the engine skipped to it) are logged
// at cycle From, where the writer dumps them all; the changes sampled now
// follow.
func (t *Tracer) begin() {
	t.logging = true
	t.log = append(t.log, markBit|t.from)
	t.marked = t.from + 1
	for i, s := range t.sigs {
		t.log = append(t.log, longBit|uint64(i), s.v)
	}
}

// set samples signal s (nil: not traced).
func (t *Tracer) set(s *sig, x uint64) {
	if s == nil {
		return
	}
	x &= s.mask
	if x == s.v {
		return
	}
	s.v = x
	if !t.logging {
		return
	}
	t.markNow()
	if x < 1<<idxShift {
		t.log = append(t.log, uint64(s.idx)<<idxShift|x)
	} else {
		t.log = append(t.log, longBit|uint64(s.idx), x)
	}
}

// logChange logs a change of signal s (nil: not traced) to x, which fits
// its width, once the window has begun, without comparing x with the
// signal's last value: the caller knows it changed.
func (t *Tracer) logChange(s *sig, x uint64) {
	if s == nil {
		return
	}
	t.markNow()
	t.log = append(t.log, uint64(s.idx)<<idxShift|x)
}

// logBlock logs the sample vals of block b at this cycle. The signals'
// last values (sig.v) are not kept: they serve only to start the window,
// and blocks are logged only once it has begun.
func (t *Tracer) logBlock(b int, vals []uint64) {
	t.markNow()
	t.log = append(t.log, blockBits|uint64(b)<<blockShift|uint64(len(vals)))
	t.log = append(t.log, vals...)
}

// markNow logs this cycle's time mark unless it is logged already.
func (t *Tracer) markNow() {
	if t.marked != t.now+1 {
		t.marked = t.now + 1
		t.log = append(t.log, markBit|t.now)
	}
}

func (t *Tracer) setBool(s *sig, b bool) {
	if b {
		t.set(s, 1)
	} else {
		t.set(s, 0)
	}
}

// flush hands the log to the writer goroutine and takes an empty buffer.
func (t *Tracer) flush() {
	if len(t.log) == 0 {
		return
	}
	t.work <- t.log
	t.log = <-t.free
}

// writer turns logs into VCD text.
func (t *Tracer) writer() {
	defer close(t.done)
	// The loop reads nothing of the Tracer the hook writes: its fields
	// share cache lines with the log's slice header, which the hook
	// changes at every entry, and reading them here made the two cores
	// pass those lines back and forth (the traced run took as long on
	// two CPUs as on one).
	blocks, vars, w := t.blocks, t.vars, t.w
	for buf := range t.work {
		for i := 0; i < len(buf); {
			x := buf[i]
			switch {
			case x&blockBits == blockBits:
				n := int(x & (1<<blockShift - 1))
				vals := buf[i+1 : i+1+n]
				for k, v := range blocks[(x&^blockBits)>>blockShift][:n] {
					v.Update(vals[k])
				}
				i += 1 + n
			case x&markBit != 0:
				w.At(x &^ markBit)
				i++
			case x&longBit != 0:
				vars[x&^longBit].Set(buf[i+1])
				i += 2
			default:
				vars[x>>idxShift].Set(x & (1<<idxShift - 1))
				i++
			}
		}
		t.free <- buf[:0]
	}
}

// Failed reports whether a Create tracer's file has met a write
// error (a full disk): the waveform cannot be whole, and a run may stop
// instead of simulating for nothing. Safe to call while the tracer writes.
func (t *Tracer) Failed() bool { return t.file != nil && t.file.f.Failed() }

// Abort stops the tracer without finishing its files: a Create
// tracer removes what it was writing. After Close it does nothing, so
// that "defer t.Abort()" covers every early return.
func (t *Tracer) Abort() {
	if t.closed {
		return
	}
	t.closed = true
	close(t.work)
	<-t.done
	if t.file != nil {
		t.file.abort()
	}
}

// Close writes what is left and ends the VCD file (it does not close the
// io.Writer given to New). A Create tracer also writes the save file
// and the filters and moves everything to its final name. The engine hook
// stays registered but does nothing after Close. Close returns the first
// error met; calling it again returns the same error.
func (t *Tracer) Close() error {
	if t.closed {
		return t.closeErr
	}
	t.closed = true
	t.flush()
	close(t.work)
	<-t.done
	// The time base runs to the last cycle simulated (or the window's
	// end), whether or not a traced signal changed in it.
	if last := t.b.Eng.Now(); last > 0 {
		last--
		if t.to != 0 {
			last = min(last, t.to)
		}
		if last > t.w.Now() {
			t.w.At(last)
		}
	}
	err := t.w.Close()
	if t.file != nil {
		err = t.file.finish(t, err)
	}
	t.closeErr = err
	return err
}
