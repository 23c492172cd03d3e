package vcd

import (
	"bufio"
	"fmt"
	"strconv"
)

// Scope is one level of the hierarchy, written as "$scope module NAME
// $end". A nil *Scope is valid and declares nothing.
type Scope struct {
	w        *Writer
	parent   *Scope
	name     string // sanitised and unique in the parent
	key      string // sanitised name asked for, to find the scope again
	path     string // dotted path from the root, "top.mptcache"
	selected bool   // Options.Scope lets its variables be declared
	children []*Scope
	vars     []*Var
	names    map[string]bool // names taken by children and vars
	declared int             // variables declared in this subtree
}

// Var is one traced signal: a wire of 1 to MaxWidth bits. A nil *Var is
// valid: its setters do nothing, so a unit can keep nil variables when
// tracing is off or its scope is filtered out.
type Var struct {
	w     *Writer
	scope *Scope
	name  string
	id    string
	width int
	top   uint64   // mask of the valid bits in the last word
	cur   []uint64 // current value, little-endian words
	last  []uint64 // value last written
	index int      // declaration order: changes of one time are written in it
}

// Root returns the top-level scope called name (sanitised), creating it on
// first use. It returns nil after Begin (and records an error) or on a nil
// Writer.
func (w *Writer) Root(name string) *Scope {
	if w == nil {
		return nil
	}
	if w.state != declaring {
		w.fail(fmt.Errorf("vcd: Root(%q) after Begin", name))
		return nil
	}
	name = sanitize(name)
	for _, s := range w.roots {
		if s.name == name {
			return s
		}
	}
	s := &Scope{w: w, name: name, key: name, path: name, names: map[string]bool{}}
	s.selected = w.selected(s.path)
	w.roots = append(w.roots, s)
	return s
}

// Scope returns the child scope called name (sanitised), creating it on
// first use, so two callers asking for the same child share it. If name is
// already taken by a variable of s, the scope gets a numbered suffix.
func (s *Scope) Scope(name string) *Scope {
	if s == nil {
		return nil
	}
	w := s.w
	if w.state != declaring {
		w.fail(fmt.Errorf("vcd: Scope(%q) in %s after Begin", name, s.path))
		return nil
	}
	key := sanitize(name)
	for _, c := range s.children {
		if c.key == key {
			return c
		}
	}
	name = s.unique(key)
	c := &Scope{w: w, parent: s, name: name, key: key, path: s.path + "." + name, names: map[string]bool{}}
	c.selected = s.selected || w.selected(c.path)
	s.children = append(s.children, c)
	return c
}

// Var declares a wire of width bits (1..MaxWidth) called name (sanitised;
// a name already used in s gets a numbered suffix). It returns nil when
// the scope is filtered out by Options.Scope, after Begin, or for a bad
// width (the last two also record an error).
func (s *Scope) Var(name string, width int) *Var {
	if s == nil {
		return nil
	}
	w := s.w
	if w.state != declaring {
		w.fail(fmt.Errorf("vcd: Var(%q) in %s after Begin", name, s.path))
		return nil
	}
	if width < 1 || width > MaxWidth {
		w.fail(fmt.Errorf("vcd: Var(%q) in %s: width %d not in 1..%d", name, s.path, width, MaxWidth))
		return nil
	}
	if !s.selected {
		return nil
	}
	return s.declare(name, width)
}

// declare adds the variable whatever Options.Scope selects.
func (s *Scope) declare(name string, width int) *Var {
	w := s.w
	n := (width + 63) / 64
	words := make([]uint64, 2*n)
	v := &Var{
		w:     w,
		scope: s,
		name:  s.unique(sanitize(name)),
		id:    idCode(w.ids),
		width: width,
		top:   ^uint64(0) >> uint(64*n-width),
		cur:   words[:n:n],
		last:  words[n:],
	}
	w.ids++
	v.index = len(w.vars)
	s.vars = append(s.vars, v)
	w.vars = append(w.vars, v)
	if len(w.vars) > 64*len(w.dirty) {
		w.dirty = append(w.dirty, 0)
	}
	for p := s; p != nil; p = p.parent {
		p.declared++
	}
	return v
}

// Path returns the scope's dotted path ("top.mptcache").
func (s *Scope) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// unique returns name, or name_2, name_3, ... if it is taken in s, and
// marks the result taken.
func (s *Scope) unique(name string) string {
	n := name
	for i := 2; s.names[n]; i++ {
		n = name + "_" + strconv.Itoa(i)
	}
	s.names[n] = true
	return n
}

// writeDecl writes the $scope block of s and its subtree, skipping scopes
// with no declared variable.
func (s *Scope) writeDecl(bw *bufio.Writer) {
	if s.declared == 0 {
		return
	}
	fmt.Fprintf(bw, "$scope module %s $end\n", s.name)
	for _, v := range s.vars {
		if v.width == 1 {
			fmt.Fprintf(bw, "$var wire 1 %s %s $end\n", v.id, v.name)
		} else {
			fmt.Fprintf(bw, "$var wire %d %s %s [%d:0] $end\n", v.width, v.id, v.name, v.width-1)
		}
	}
	for _, c := range s.children {
		c.writeDecl(bw)
	}
	bw.WriteString("$upscope $end\n")
}

// sanitize turns any string into a name GTKWave reads as one hierarchy
// level: letters, digits and '_' only (anything else, notably '.', ' ',
// '[' and '$', becomes '_'), never empty.
func sanitize(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// idCode returns the n-th identifier code: "!" .. "~", then "!!", "\"!",
// ... (bijective base 94 over the printable ASCII range, least significant
// character first, as Verilator does).
func idCode(n int) string {
	var b [8]byte
	i := 0
	for {
		b[i] = byte('!' + n%94)
		i++
		n /= 94
		if n == 0 {
			break
		}
		n--
	}
	return string(b[:i])
}

// Set sets the value of a variable of up to 64 bits (wider variables get
// v in their low word and zeros above). Bits above the width are dropped.
// The change is written at the next time step if the value then differs
// from the one last written.
func (v *Var) Set(x uint64) {
	if v == nil {
		return
	}
	x &= v.top
	if len(v.cur) == 1 {
		if v.cur[0] == x {
			return
		}
		v.cur[0] = x
		v.mark()
		return
	}
	changed := v.cur[0] != x
	v.cur[0] = x
	for i := 1; i < len(v.cur); i++ {
		if v.cur[i] != 0 {
			v.cur[i] = 0
			changed = true
		}
	}
	if changed {
		v.mark()
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
	changed := false
	last := len(v.cur) - 1
	for i := range v.cur {
		var x uint64
		if i < len(words) {
			x = words[i]
		}
		if i == last {
			x &= v.top
		}
		if v.cur[i] != x {
			v.cur[i] = x
			changed = true
		}
	}
	if changed {
		v.mark()
	}
}

// SetBytes sets the value from big-endian bytes (b[len(b)-1] holds bits
// 7..0), the layout of a hardware image such as a 64-byte MKC. Missing
// bytes are zero; bits above the width are dropped.
func (v *Var) SetBytes(b []byte) {
	if v == nil {
		return
	}
	changed := false
	last := len(v.cur) - 1
	for i := range v.cur {
		var x uint64
		for k := 0; k < 8; k++ {
			j := len(b) - 1 - (8*i + k)
			if j < 0 {
				break
			}
			x |= uint64(b[j]) << uint(8*k)
		}
		if i == last {
			x &= v.top
		}
		if v.cur[i] != x {
			v.cur[i] = x
			changed = true
		}
	}
	if changed {
		v.mark()
	}
}

// mark puts v on the writer's list of pending changes. Before Begin the
// value is only the initial one, after Close nothing is written.
func (v *Var) mark() {
	w := v.w
	if w.state != running {
		return
	}
	w.dirty[v.index>>6] |= 1 << (v.index & 63)
}

// Path returns the variable's dotted path without bit range
// ("top.mptcache.req_key"), the path Parse reports in VarInfo.
func (v *Var) Path() string {
	if v == nil {
		return ""
	}
	return v.scope.path + "." + v.name
}

// Name returns the name GTKWave shows for the variable, the one a save
// file lists: the path plus "[W-1:0]" when wider than one bit.
func (v *Var) Name() string {
	if v == nil {
		return ""
	}
	return SignalName(v.Path(), v.width)
}

// Width returns the variable's width in bits (0 for nil).
func (v *Var) Width() int {
	if v == nil {
		return 0
	}
	return v.width
}

// ID returns the variable's VCD identifier code.
func (v *Var) ID() string {
	if v == nil {
		return ""
	}
	return v.id
}
