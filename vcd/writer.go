package vcd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path"
	"strings"
)

// Options configures a Writer. The zero value is usable: a 1 ns cycle, no
// window, every scope traced.
type Options struct {
	// Date is written in $date; empty omits $date, which keeps the output
	// byte-for-byte reproducible.
	Date string
	// Version is written in $version; empty writes "mkeysim vcd".
	Version string
	// Comment, if not empty, is written in a $comment section of the
	// header (for instance the run's seed and command line).
	Comment string
	// TimescalePS is the clock period in picoseconds (4000 for 250 MHz).
	// Zero means 1000 (1 ns). The writer picks the largest $timescale of
	// the form 1, 10 or 100 s/ms/us/ns/ps that divides the period, so that
	// GTKWave shows real time and one cycle is a whole number of units.
	TimescalePS uint64
	// From and To bound the traced cycles (both inclusive; To 0 means no
	// end). Changes outside [From, To] are not written; the first time
	// written inside the window carries the full current state, so every
	// value shown from then on is right. The header and the #0 $dumpvars
	// are written whatever the window.
	From, To uint64
	// Scope selects which scopes have their variables declared: a
	// comma-separated list of path.Match patterns matched against the
	// dotted scope path ("top.mptcache", "top.*walk"), with '.' as the
	// separator, so '*' matches within one level ("top.*.mshr", not
	// "*.mshr", selects "top.mptcache.mshr"). A scope is selected
	// if a pattern matches its path or the path of one of its ancestors,
	// so "top.mptcache" also selects "top.mptcache.mshr". Empty selects
	// everything. Variables of unselected scopes are returned as nil. A
	// pattern that selects nothing gives a file without variables, which
	// GTKWave refuses ("No symbols in VCD file").
	Scope string
	// Clock makes the timescale fine enough for half cycles, so that a
	// clock declared with Writer.Clock can show both edges.
	Clock bool
}

// MaxWidth is the widest variable a Writer declares.
const MaxWidth = 4096

// writerState is where a Writer is in its life.
type writerState uint8

const (
	declaring writerState = iota // before Begin: scopes and vars may be added
	running                      // after Begin: values and times
	closed                       // after Close: everything is ignored
)

// Writer streams a VCD file. Declare scopes and variables, call Begin, then
// for each cycle call At followed by the Set calls of that cycle, and
// finally Close. A Writer is not safe for concurrent use. All methods
// accept a nil receiver and then do nothing.
//
// Errors (a write error, time going backwards, a declaration after Begin)
// never panic: the first one is kept, returned by Err, Begin and Close, and
// the offending call is ignored.
//
// The text goes straight into one buffer (buffer.go) in the forms of
// format.go; a Set only stores the value and marks the variable, and the
// time step formats what changed.
type Writer struct {
	out      io.Writer
	buf      []byte // text not yet handed to out
	werr     error  // out's first error, reported by Close
	opt      Options
	unit     string   // $timescale text, "1ns"
	mult     uint64   // timescale units per cycle
	maxCycle uint64   // the last cycle whose time fits in VCD time
	patterns []string // Options.Scope split on commas

	roots  []*Scope
	vars   []*Var      // declared variables in declaration order
	blocks []*varBlock // the same, 64 a block
	dirty  []uint64    // bit i of word k: blocks[k].vars[i] was Set since the last flush
	pend   []uint64    // the same for a Set of a wide variable waiting in its word[0]
	wide   bool        // a variable is wider than 64 bits
	ids    int         // identifier codes handed out

	state   writerState
	now     uint64 // current cycle
	lastT   uint64 // time of the last time line written, in timescale units
	timed   bool   // a time line has been written
	started bool   // the window has begun (its full dump is written)
	err     error

	clk, cycle *Var // Clock's variables, or nil
}

// NewWriter returns a Writer that writes to w through a buffer. It never
// fails; an invalid option (a malformed Scope pattern) is reported by
// Begin.
func NewWriter(w io.Writer, o Options) *Writer {
	wr := &Writer{
		out:     w,
		buf:     make([]byte, 0, chunkSize+bufSlack),
		opt:     o,
		started: o.From == 0,
	}
	wr.unit, wr.mult = chooseTimescale(o.TimescalePS, o.Clock)
	wr.maxCycle = math.MaxInt64 / wr.mult
	for _, p := range strings.Split(o.Scope, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		// Match level by level: '.' becomes path.Match's separator, so
		// '*' never crosses a hierarchy level.
		slashed := strings.ReplaceAll(p, ".", "/")
		if _, err := path.Match(slashed, ""); err != nil {
			wr.fail(fmt.Errorf("vcd: bad scope pattern %q: %w", p, err))
			continue
		}
		wr.patterns = append(wr.patterns, slashed)
	}
	return wr
}

// chooseTimescale returns the largest $timescale GTKWave loads (1, 10 or
// 100 of s/ms/us/ns/ps) that divides the period (half the period with
// halves, so that a clock can fall mid-cycle), and the number of its
// units in one period.
func chooseTimescale(periodPS uint64, halves bool) (unit string, mult uint64) {
	if periodPS == 0 {
		periodPS = 1000
	}
	units := [...]struct {
		ps   uint64
		name string
	}{
		{100e12, "100s"}, {10e12, "10s"}, {1e12, "1s"},
		{100e9, "100ms"}, {10e9, "10ms"}, {1e9, "1ms"},
		{100e6, "100us"}, {10e6, "10us"}, {1e6, "1us"},
		{100e3, "100ns"}, {10e3, "10ns"}, {1e3, "1ns"},
		{100, "100ps"}, {10, "10ps"}, {1, "1ps"},
	}
	for _, u := range units {
		if periodPS%u.ps == 0 && (!halves || (periodPS/u.ps)%2 == 0) {
			return u.name, periodPS / u.ps
		}
	}
	// An odd number of picoseconds: no unit GTKWave loads halves it.
	return "1ps", periodPS
}

// Timescale returns the $timescale the writer uses ("1ns") and how many of
// its units make one cycle.
func (w *Writer) Timescale() (unit string, unitsPerCycle uint64) {
	if w == nil {
		return "", 0
	}
	return w.unit, w.mult
}

// Err returns the first error the writer met, or nil.
func (w *Writer) Err() error {
	if w == nil {
		return nil
	}
	return w.err
}

// fail records err if it is the first error.
func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// selected reports whether a scope path is traced under Options.Scope.
func (w *Writer) selected(scopePath string) bool {
	if len(w.patterns) == 0 {
		return true
	}
	slashed := strings.ReplaceAll(scopePath, ".", "/")
	for _, p := range w.patterns {
		// Try the path itself and each ancestor ("top", "top/mptcache", ...).
		for i := 0; i <= len(slashed); i++ {
			if i == len(slashed) || slashed[i] == '/' {
				if ok, _ := path.Match(p, slashed[:i]); ok {
					return true
				}
			}
		}
	}
	return false
}

// Begin ends the declarations: it writes the header, then "#0" and a
// $dumpvars section with every variable's value (the value Set before
// Begin, 0 by default). It returns the first error met so far.
func (w *Writer) Begin() error {
	if w == nil {
		return nil
	}
	if w.state != declaring {
		w.fail(errors.New("vcd: Begin called twice or after Close"))
		return w.err
	}
	w.state = running
	if w.opt.Date != "" {
		w.buf = fmt.Appendf(w.buf, "$date\n\t%s\n$end\n", headerText(w.opt.Date))
	}
	version := w.opt.Version
	if version == "" {
		version = "mkeysim vcd"
	}
	w.buf = fmt.Appendf(w.buf, "$version\n\t%s\n$end\n", headerText(version))
	if w.opt.Comment != "" {
		w.buf = fmt.Appendf(w.buf, "$comment\n\t%s\n$end\n", headerText(w.opt.Comment))
	}
	w.buf = fmt.Appendf(w.buf, "$timescale %s $end\n", w.unit)
	w.spill()
	for _, s := range w.roots {
		s.writeDecl()
	}
	w.buf = append(w.buf, "$enddefinitions $end\n#0\n$dumpvars\n"...)
	w.clearDirty() // the values set so far are the ones dumped
	w.dumpVars()
	w.buf = append(w.buf, "$end\n"...)
	w.timed, w.lastT = true, 0
	if !w.started && w.now > w.opt.From {
		// At was called before Begin past the window start: the state at
		// From is the initial state, already dumped at #0.
		w.started = true
	}
	return w.err
}

// headerText makes s safe inside a $date/$version/$comment section: one
// line, no "$end" that would close it early.
func headerText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "$", "")
}

// At sets the current time to cycle. Changes Set so far belong to the
// previous cycle; when cycle is later than it they are written under that
// cycle's time line (none if nothing changed). A cycle earlier than the
// current one is an error: it is recorded, returned, and ignored.
func (w *Writer) At(cycle uint64) error {
	if w == nil {
		return nil
	}
	if w.state == closed {
		return nil
	}
	if cycle <= w.now {
		if cycle == w.now {
			return nil
		}
		err := fmt.Errorf("vcd: time went backwards: At(%d) after At(%d)", cycle, w.now)
		w.fail(err)
		return err
	}
	if cycle > w.maxCycle {
		err := fmt.Errorf("vcd: cycle %d overflows the VCD time (%d units per cycle)", cycle, w.mult)
		w.fail(err)
		return err
	}
	if w.state == running {
		w.flush(w.now)
		if w.clk != nil || !w.started {
			w.skip(cycle)
		}
	}
	w.now = cycle
	return nil
}

// skip writes what the cycles strictly between now and cycle, in which
// nothing changes, show: the window's start if it lies there, and the
// clock running through them.
func (w *Writer) skip(cycle uint64) {
	from := w.opt.From
	lo := max(w.now+1, from) // the first cycle skipped inside the window
	if !w.started && w.now < from && cycle > from && (w.opt.To == 0 || from <= w.opt.To) {
		// Nothing changes between now and cycle, so the state at the
		// window start is the current one.
		w.started = true
		w.tick(from)
		w.dumpAll(from)
		w.fall(from)
		lo = from + 1
	}
	if w.clk != nil {
		// The clock runs through the cycles skipped.
		hi := cycle - 1
		if w.opt.To != 0 {
			hi = min(hi, w.opt.To)
		}
		k := lo
		if w.clockAlone() {
			for ; k <= hi && k > w.now; k++ {
				w.clockOnly(k)
			}
		}
		for ; k <= hi && k > w.now; k++ {
			w.flush(k)
		}
	}
}

// Now returns the current cycle.
func (w *Writer) Now() uint64 {
	if w == nil {
		return 0
	}
	return w.now
}

// flush writes the changes made during cycle t, as the window allows.
func (w *Writer) flush(t uint64) {
	switch {
	case t < w.opt.From || (w.opt.To != 0 && t > w.opt.To):
		w.clearDirty()
	case !w.started:
		w.started = true
		w.clearDirty()
		w.tick(t)
		w.dumpAll(t)
		w.fall(t)
	default:
		w.tick(t)
		w.writeChanges(t)
		w.fall(t)
	}
}

// writeChanges writes the variables marked since the last flush whose
// value differs from the one last written, under the time line of cycle
// t, in declaration order (the bitmap's), not the order of the Set calls:
// the file then depends only on the values, not on who set them first.
func (w *Writer) writeChanges(t uint64) {
	w.applyPending()
	b := w.buf
	timed := false
	dirty := w.dirty
	for k, word := range dirty {
		if word == 0 {
			continue
		}
		dirty[k] = 0
		blk := w.blocks[k]
		for ; word != 0; word &= word - 1 {
			v := &blk.vars[bits.TrailingZeros64(word)]
			x := v.word[0]
			if v.kind != kindGeneric {
				if x == v.word[1] {
					continue
				}
				v.word[1] = x
			} else if !v.d.sync() {
				continue
			}
			if len(b) >= chunkSize {
				b = w.drain(b)
			}
			if !timed {
				b = w.appendTime(b, t*w.mult)
				timed = true
			}
			switch n := len(b); {
			case v.kind == kindGeneric || cap(b)-n < wordLineRoom:
				b = w.appendValue(b, v)
			case v.kind == kindBit:
				// As putLine does, without the call.
				binary.LittleEndian.PutUint64(lineAt(b, n)[:8], v.tail+x)
				b = b[:n+int(v.tailLen)]
			default:
				b = b[:n+putWordLine(lineAt(b, n), x, v.tail, int(v.tailLen))]
			}
		}
	}
	w.buf = b
}

// clearDirty forgets the pending changes without writing them; the
// values set stay current.
func (w *Writer) clearDirty() {
	w.applyPending()
	clear(w.dirty)
}

// dumpAll writes every variable's current value at cycle t.
func (w *Writer) dumpAll(t uint64) {
	w.buf = w.appendTime(w.buf, t*w.mult)
	w.dumpVars()
}

// dumpVars writes every variable's current value as the value last
// written.
func (w *Writer) dumpVars() {
	b := w.buf
	for _, v := range w.vars {
		if len(b) >= chunkSize {
			b = w.drain(b)
		}
		b = w.appendValue(b, v)
		copy(v.d.last, v.d.cur)
	}
	w.buf = b
}

// appendTime appends the time line of time u (timescale units) unless it
// is already the open time block.
func (w *Writer) appendTime(b []byte, u uint64) []byte {
	if w.timed && u == w.lastT {
		return b
	}
	w.timed, w.lastT = true, u
	return appendTimeLine(b, u)
}

// sync reports whether the current value differs from the one last
// written, and makes it the one last written.
func (d *varDecl) sync() bool {
	if equalWords(d.cur, d.last) {
		return false
	}
	copy(d.last, d.cur)
	return true
}

// equalWords reports whether a and b (same length) hold the same value.
func equalWords(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Close writes the changes of the current cycle, flushes the buffer and
// returns the first error met. If Begin was never called, Close calls it
// so the output is still a complete VCD file. Close does not close the
// underlying io.Writer.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	switch w.state {
	case closed:
		return w.err
	case declaring:
		w.Begin()
	}
	w.flush(w.now)
	w.state = closed
	if err := w.flushAll(); err != nil {
		w.fail(fmt.Errorf("vcd: write: %w", err))
	}
	return w.err
}
