package vcd

import (
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
	v := w.newVar(&varDecl{
		scope: s,
		name:  s.unique(sanitize(name)),
		id:    idCode(w.ids),
		width: width,
	})
	w.ids++
	s.vars = append(s.vars, v)
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

// writeDecl appends the $scope block of s and its subtree to the
// writer's buffer, skipping scopes with no declared variable.
func (s *Scope) writeDecl() {
	if s.declared == 0 {
		return
	}
	w := s.w
	w.buf = fmt.Appendf(w.buf, "$scope module %s $end\n", s.name)
	for _, v := range s.vars {
		if d := v.d; d.width == 1 {
			w.buf = fmt.Appendf(w.buf, "$var wire 1 %s %s $end\n", d.id, d.name)
		} else {
			w.buf = fmt.Appendf(w.buf, "$var wire %d %s %s [%d:0] $end\n", d.width, d.id, d.name, d.width-1)
		}
		w.spill()
	}
	for _, c := range s.children {
		c.writeDecl()
	}
	w.buf = append(w.buf, "$upscope $end\n"...)
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
