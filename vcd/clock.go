package vcd

import (
	"encoding/binary"
	"errors"
	"slices"
)

// The time base: the clock and the cycle counter that Writer.Clock
// declares and the writer drives, through every cycle of the window.

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
	clk := w.clk
	clk.word[0] = 0
	b := w.buf
	if len(b) >= chunkSize {
		b = w.drain(b)
	}
	b = w.appendTime(b, t*w.mult+w.mult/2)
	if clk.kind == kindBit {
		b = appendBitLine(b, clk, 0)
	} else {
		b = w.appendValue(b, clk)
	}
	w.buf = b
	clk.word[1] = 0
}

// clockAlone reports whether clockOnly can write the cycles At skips: no
// change is pending but the clock's, the clock and the counter are the
// first two variables (as Clock declares them when it is called first),
// and their lines take the fast forms of format.go.
func (w *Writer) clockAlone() bool {
	clk, cycle := w.clk, w.cycle
	if clk.d.index != 0 || cycle.d.index != 1 || clk.kind != kindBit || cycle.kind != kindWord {
		return false
	}
	for k, word := range w.dirty {
		if k == 0 {
			word &^= 3
		}
		if word != 0 || w.pend[k] != 0 {
			return false
		}
	}
	return true
}

// clockOnly writes cycle t, in the window and after its start, when
// nothing but the clock changes (clockAlone): the same lines as flush (the
// rising edge, the counter, the falling edge), without the bitmap and the
// calls. Half the cycles of a traced run are skipped ones, and this takes
// less than half the time flush does.
func (w *Writer) clockOnly(t uint64) {
	clk, cycle := w.clk, w.cycle
	w.dirty[0] &^= 3
	b := w.buf
	if len(b) >= chunkSize {
		b = w.drain(b)
	}
	// The tick, and the changes in declaration order.
	timed := false
	if clk.word[1] != 1 {
		b = w.appendTime(b, t*w.mult)
		timed = true
		b = appendBitLine(b, clk, 1)
	}
	if cycle.word[1] != t {
		if !timed {
			b = w.appendTime(b, t*w.mult)
		}
		b = appendWordLine(b, t, cycle.tail, int(cycle.tailLen))
	}
	clk.word, cycle.word = [2]uint64{}, [2]uint64{t, t}
	// The fall.
	b = w.appendTime(b, t*w.mult+w.mult/2)
	w.buf = appendBitLine(b, clk, 0)
}

// appendBitLine appends the value line of x, the value of v, a kindBit
// variable.
func appendBitLine(b []byte, v *Var, x uint64) []byte {
	n := len(b)
	if cap(b)-n < 8 {
		b = slices.Grow(b, 8)
	}
	binary.LittleEndian.PutUint64(b[n:n+8], v.tail+x)
	return b[:n+int(v.tailLen)]
}
