package vcd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path"
	"strconv"
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
type Writer struct {
	bw       *bufio.Writer
	opt      Options
	unit     string   // $timescale text, "1ns"
	mult     uint64   // timescale units per cycle
	patterns []string // Options.Scope split on commas

	roots []*Scope
	vars  []*Var // declared variables in declaration order
	ids   int    // identifier codes handed out

	state   writerState
	now     uint64   // current cycle
	lastT   uint64   // time of the last time line written, in timescale units
	timed   bool     // a time line has been written
	started bool     // the window has begun (its full dump is written)
	dirty   []uint64 // bit i: vars[i] was Set since the last flush
	scratch []byte   // reused line buffer
	err     error

	clk, cycle *Var // Clock's variables, or nil
}

// NewWriter returns a Writer that writes to w through a buffer. It never
// fails; an invalid option (a malformed Scope pattern) is reported by
// Begin.
func NewWriter(w io.Writer, o Options) *Writer {
	wr := &Writer{
		bw:      bufio.NewWriterSize(w, 64<<10),
		opt:     o,
		scratch: make([]byte, 0, 128),
		started: o.From == 0,
	}
	wr.unit, wr.mult = chooseTimescale(o.TimescalePS, o.Clock)
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

// Clock declares, first in scope s, the time base of the trace: clk, a
// clock that rises at the start of every cycle and falls halfway through
// it, and cycle, the cycle number (64 bits, decimal in a save file). The
// writer drives both itself, for every cycle of the window, also those in
// which At skipped ahead with nothing changing. They are declared whatever
// Options.Scope selects; call it before Begin, once, with Options.Clock
// set (so that a half cycle is a whole number of time units).
func (w *Writer) Clock(s *Scope) (clk, cycle *Var) {
	if w == nil || s == nil {
		return nil, nil
	}
	if w.state != declaring || w.clk != nil || !w.opt.Clock {
		w.fail(errors.New("vcd: Clock needs Options.Clock, once, before Begin"))
		return nil, nil
	}
	w.clk, w.cycle = s.declare("clk", 1), s.declare("cycle", 64)
	w.clk.Set(1)
	return w.clk, w.cycle
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
	bw := w.bw
	if w.opt.Date != "" {
		fmt.Fprintf(bw, "$date\n\t%s\n$end\n", headerText(w.opt.Date))
	}
	version := w.opt.Version
	if version == "" {
		version = "mkeysim vcd"
	}
	fmt.Fprintf(bw, "$version\n\t%s\n$end\n", headerText(version))
	if w.opt.Comment != "" {
		fmt.Fprintf(bw, "$comment\n\t%s\n$end\n", headerText(w.opt.Comment))
	}
	fmt.Fprintf(bw, "$timescale %s $end\n", w.unit)
	for _, s := range w.roots {
		s.writeDecl(bw)
	}
	bw.WriteString("$enddefinitions $end\n#0\n$dumpvars\n")
	for _, v := range w.vars {
		w.writeValue(v)
		copy(v.last, v.cur)
	}
	bw.WriteString("$end\n")
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
	if cycle < w.now {
		err := fmt.Errorf("vcd: time went backwards: At(%d) after At(%d)", cycle, w.now)
		w.fail(err)
		return err
	}
	if cycle == w.now {
		return nil
	}
	if cycle > math.MaxInt64/w.mult {
		err := fmt.Errorf("vcd: cycle %d overflows the VCD time (%d units per cycle)", cycle, w.mult)
		w.fail(err)
		return err
	}
	if w.state == running {
		w.flush(w.now)
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
			for k := lo; k <= hi && k > w.now; k++ {
				w.flush(k)
			}
		}
	}
	w.now = cycle
	return nil
}

// Now returns the current cycle.
func (w *Writer) Now() uint64 {
	if w == nil {
		return 0
	}
	return w.now
}

// tick sets the clock's rising edge of cycle t (if there is a clock).
func (w *Writer) tick(t uint64) {
	if w.clk != nil {
		w.clk.Set(1)
		w.cycle.Set(t)
	}
}

// fall writes the clock's falling edge halfway through cycle t.
func (w *Writer) fall(t uint64) {
	if w.clk == nil {
		return
	}
	w.clk.cur[0] = 0
	w.writeTimeUnits(t*w.mult + w.mult/2)
	w.writeValue(w.clk)
	copy(w.clk.last, w.clk.cur)
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
		// Declaration order (the bitmap's), not the order of the Set
		// calls: the file then depends only on the values, not on who
		// set them first.
		timed := false
		for i, word := range w.dirty {
			if word == 0 {
				continue
			}
			w.dirty[i] = 0
			for ; word != 0; word &= word - 1 {
				v := w.vars[i<<6+bits.TrailingZeros64(word)]
				if equalWords(v.cur, v.last) {
					continue
				}
				if !timed {
					w.writeTime(t)
					timed = true
				}
				w.writeValue(v)
				copy(v.last, v.cur)
			}
		}
		w.fall(t)
	}
}

// clearDirty forgets the pending changes without writing them.
func (w *Writer) clearDirty() {
	clear(w.dirty)
}

// dumpAll writes every variable's current value at cycle t.
func (w *Writer) dumpAll(t uint64) {
	w.writeTime(t)
	for _, v := range w.vars {
		w.writeValue(v)
		copy(v.last, v.cur)
	}
}

// writeTime writes the time line of cycle t unless it is already the open
// time block.
func (w *Writer) writeTime(t uint64) { w.writeTimeUnits(t * w.mult) }

// writeTimeUnits writes the time line of time u (timescale units) unless
// it is already the open time block.
func (w *Writer) writeTimeUnits(u uint64) {
	if w.timed && u == w.lastT {
		return
	}
	w.timed, w.lastT = true, u
	b := append(w.scratch[:0], '#')
	b = strconv.AppendUint(b, u, 10)
	b = append(b, '\n')
	w.bw.Write(b)
	w.scratch = b
}

// writeValue writes one value change line for v's current value: "1!" for
// a scalar, "b1011 !" for a vector, with no leading zeros.
func (w *Writer) writeValue(v *Var) {
	b := w.scratch[:0]
	if v.width == 1 {
		b = append(b, byte('0'+v.cur[0]&1))
	} else {
		b = append(b, 'b')
		b = appendBinary(b, v.cur)
		b = append(b, ' ')
	}
	b = append(b, v.id...)
	b = append(b, '\n')
	w.bw.Write(b)
	w.scratch = b
}

// appendBinary appends the little-endian words as binary digits, most
// significant first, without leading zeros ("0" for zero).
func appendBinary(b []byte, words []uint64) []byte {
	hi := len(words) - 1
	for hi > 0 && words[hi] == 0 {
		hi--
	}
	// The top word without leading zeros, then every lower word in full,
	// eight digits a byte.
	top := words[hi]
	if top == 0 {
		b = append(b, '0')
	} else {
		lead := bits.LeadingZeros64(top)
		for shift := 56 - lead/8*8; shift >= 0; shift -= 8 {
			d := byteDigits(byte(top >> uint(shift)))
			if shift == 56-lead/8*8 {
				skip := lead % 8
				var buf [8]byte
				binary.BigEndian.PutUint64(buf[:], d)
				b = append(b, buf[skip:]...)
				continue
			}
			b = binary.BigEndian.AppendUint64(b, d)
		}
	}
	for i := hi - 1; i >= 0; i-- {
		x := words[i]
		for shift := 56; shift >= 0; shift -= 8 {
			b = binary.BigEndian.AppendUint64(b, byteDigits(byte(x>>uint(shift))))
		}
	}
	return b
}

// byteDigits returns the eight binary digits of c as ASCII bytes packed
// big-endian in a word ('0'+bit7 in the top byte): c is copied into every
// byte, each byte keeps its own bit (byte k bit k), adding 0x7f carries a
// set bit into bit 7 without crossing bytes, and bit 7 is moved to bit 0.
func byteDigits(c byte) uint64 {
	y := uint64(c) * 0x0101010101010101 & 0x8040201008040201
	return (y+0x7f7f7f7f7f7f7f7f)>>7&0x0101010101010101 | 0x3030303030303030
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
	if err := w.bw.Flush(); err != nil {
		w.fail(fmt.Errorf("vcd: write: %w", err))
	}
	return w.err
}
