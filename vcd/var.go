package vcd

import "math/bits"

// Var is one traced signal: a wire of 1 to MaxWidth bits. A nil *Var is
// valid: its setters do nothing, so a unit can keep nil variables when
// tracing is off or its scope is filtered out.
//
// A Var holds, in 64 bytes, what a Set and the writing of a change touch.
// The writer allocates its variables 64 to a block (varBlock), in
// declaration order, so that a time step finds a changed variable from
// its bit in Writer.dirty without loading a pointer, and the hot data of
// a few hundred variables stays in the first-level cache. What describes
// the variable is in varDecl.
type Var struct {
	// word[0] is the current value and word[1] the value last written of
	// a variable of up to 64 bits. For a wider one, word[0] is the value
	// of a Set not yet moved to varDecl.cur (see Writer.pend).
	word    [2]uint64
	top     uint64  // mask of the bits Set keeps: the width's, all 64 for a wider variable
	dword   *uint64 // where Set marks the variable: its word of Writer.dirty, or of Writer.pend
	dbit    uint64  // the variable's bit in that word
	tail    uint64  // the line's end packed (format.go): " id\n", or "0id\n"
	kind    varKind
	tailLen uint8 // bytes of tail
	wide    bool  // wider than 64 bits: the value lives in varDecl.cur
	d       *varDecl
}

// varDecl is what describes a variable, and the value of a wide one.
type varDecl struct {
	w     *Writer
	scope *Scope
	name  string
	id    string
	width int
	index int      // declaration order
	cur   []uint64 // current value, little-endian words (Var.word[:1] up to 64 bits)
	top   uint64   // mask of the valid bits in the last word
	last  []uint64 // value last written (Var.word[1:] up to 64 bits)
}

// varBlock holds 64 variables in declaration order: block k holds
// Writer.vars[64k:64k+64], whose changes are the bits of Writer.dirty[k].
type varBlock struct {
	vars [64]Var
}

// newVar makes the variable that d describes, the next in declaration
// order, and sets up its value, its place in the bitmaps and the form of
// its value lines.
func (w *Writer) newVar(d *varDecl) *Var {
	i := len(w.vars)
	if i%64 == 0 {
		w.blocks = append(w.blocks, new(varBlock))
		w.growBitmaps()
	}
	v := &w.blocks[i/64].vars[i%64]
	n := (d.width + 63) / 64
	d.w, d.index = w, i
	d.top = ^uint64(0) >> uint(64*n-d.width)
	*v = Var{top: d.top, dbit: 1 << uint(i%64), d: d}
	if n > 1 {
		// Set writes the low word, all of whose bits are the value's.
		v.top = ^uint64(0)
	}
	if n == 1 {
		d.cur, d.last = v.word[:1:1], v.word[1:]
	} else {
		words := make([]uint64, 2*n)
		d.cur, d.last = words[:n:n], words[n:]
		w.wide, v.wide = true, true
	}
	w.vars = append(w.vars, v)
	w.pointBitmap(v)
	tail := " " + d.id + "\n"
	if d.width == 1 {
		tail = "0" + d.id + "\n"
	}
	if n == 1 && len(tail) <= 8 {
		v.kind, v.tail, v.tailLen = kindWord, packTail(tail), uint8(len(tail))
		if d.width == 1 {
			v.kind = kindBit
		}
	}
	return v
}

// growBitmaps adds a word to Writer.dirty and Writer.pend for a new
// block. When that takes new arrays it points every variable at them, so
// a Set never needs to know where the bitmaps are: that happens for 1, 2,
// 4, 8, ... blocks, a constant cost a variable.
func (w *Writer) growBitmaps() {
	if len(w.dirty) < cap(w.dirty) {
		w.dirty, w.pend = append(w.dirty, 0), append(w.pend, 0)
		return
	}
	n := max(2*cap(w.dirty), 4)
	dirty, pend := make([]uint64, len(w.dirty)+1, n), make([]uint64, len(w.pend)+1, n)
	copy(dirty, w.dirty)
	copy(pend, w.pend)
	w.dirty, w.pend = dirty, pend
	for _, v := range w.vars {
		w.pointBitmap(v)
	}
}

// pointBitmap points v's mark at its bitmap word: Writer.pend for a
// variable wider than 64 bits, Writer.dirty for the others.
func (w *Writer) pointBitmap(v *Var) {
	k := v.d.index / 64
	if len(v.d.cur) > 1 {
		v.dword = &w.pend[k]
	} else {
		v.dword = &w.dirty[k]
	}
}

// applyPending moves the pending Set values of the wide variables to
// their current value and marks them changed. Every reader of a wide
// variable's value calls it first.
func (w *Writer) applyPending() {
	if !w.wide {
		return
	}
	for k, p := range w.pend {
		if p == 0 {
			continue
		}
		w.pend[k] = 0
		w.dirty[k] |= p
		blk := w.blocks[k]
		for ; p != 0; p &= p - 1 {
			v := &blk.vars[bits.TrailingZeros64(p)]
			cur := v.d.cur
			cur[0] = v.word[0]
			clear(cur[1:])
		}
	}
}

// Set sets the value of a variable of up to 64 bits (wider variables get
// v in their low word and zeros above). Bits above the width are dropped.
// The change is written at the next time step if the value then differs
// from the one last written.
//
// Set is small enough to be inlined: it stores the value and marks the
// variable, whether or not the value changed (the time step compares it
// with the value last written anyway) and whatever the width (a wide
// variable's value waits in word[0]: see Writer.pend).
func (v *Var) Set(x uint64) {
	if v == nil {
		return
	}
	v.word[0] = x & v.top
	*v.dword |= v.dbit
}

// Update is Set for a caller that hands over whole samples, most of whose
// values have not changed: a variable of up to 64 bits is marked only
// when x differs from its current value, so that the time step looks at
// fewer variables. The file written is the same as with Set.
func (v *Var) Update(x uint64) {
	if v == nil {
		return
	}
	if x &= v.top; x != v.word[0] || v.wide {
		v.word[0] = x
		*v.dword |= v.dbit
	}
}

// SetBool sets a 1-bit variable: 1 for true, 0 for false.
func (v *Var) SetBool(b bool) {
	if b {
		v.Set(1)
	} else {
		v.Set(0)
	}
}

// SetBits sets the value from little-endian 64-bit words (words[0] holds
// bits 63..0). Missing words are zero; bits above the width are dropped.
func (v *Var) SetBits(words []uint64) {
	if v == nil {
		return
	}
	cur := v.setWords()
	changed := false
	last := len(cur) - 1
	for i := range cur {
		var x uint64
		if i < len(words) {
			x = words[i]
		}
		if i == last {
			x &= v.d.top
		}
		if cur[i] != x {
			cur[i] = x
			changed = true
		}
	}
	if changed {
		v.markChanged()
	}
}

// SetBytes sets the value from big-endian bytes (b[len(b)-1] holds bits
// 7..0), the layout of a hardware image such as a 64-byte MKC. Missing
// bytes are zero; bits above the width are dropped.
func (v *Var) SetBytes(b []byte) {
	if v == nil {
		return
	}
	var buf [8]uint64 // 512 bits: a 64-byte image without allocating
	words := buf[:0]
	for i := 0; 8*i < len(b); i++ {
		var x uint64
		for k := 0; k < 8 && 8*i+k < len(b); k++ {
			x |= uint64(b[len(b)-1-(8*i+k)]) << uint(8*k)
		}
		words = append(words, x)
	}
	v.SetBits(words)
}

// setWords returns the words that SetBits and SetBytes overwrite, after
// moving a pending Set of a wide variable to them (the Set came first).
func (v *Var) setWords() []uint64 {
	d := v.d
	if len(d.cur) > 1 && *v.dword&v.dbit != 0 {
		*v.dword &^= v.dbit
		d.cur[0] = v.word[0]
		clear(d.cur[1:])
		v.markChanged()
	}
	return d.cur
}

// markChanged marks v in Writer.dirty, whatever its width.
func (v *Var) markChanged() {
	d := v.d
	d.w.dirty[d.index/64] |= v.dbit
}

// Path returns the variable's dotted path without bit range
// ("top.mptcache.req_key"), the path Parse reports in VarInfo.
func (v *Var) Path() string {
	if v == nil {
		return ""
	}
	return v.d.scope.path + "." + v.d.name
}

// Name returns the name GTKWave shows for the variable, the one a save
// file lists: the path plus "[W-1:0]" when wider than one bit.
func (v *Var) Name() string {
	if v == nil {
		return ""
	}
	return SignalName(v.Path(), v.d.width)
}

// Width returns the variable's width in bits (0 for nil).
func (v *Var) Width() int {
	if v == nil {
		return 0
	}
	return v.d.width
}

// ID returns the variable's VCD identifier code.
func (v *Var) ID() string {
	if v == nil {
		return ""
	}
	return v.d.id
}
