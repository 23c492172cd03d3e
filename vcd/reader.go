package vcd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// VarInfo describes one declared variable.
type VarInfo struct {
	Path  string // dotted path without bit range: "top.mptcache.key"
	Width int    // bits
	ID    string // identifier code
}

// Change is one value of a variable from Time on, in VCD time units.
// Value holds exactly Width digits, most significant first, each one of
// '0', '1', 'x', 'z' (shorter values are left-extended as IEEE 1364
// says: with '0', or with 'x'/'z' when that is the leading digit).
type Change struct {
	Time  uint64
	Value string
}

// File is a parsed VCD file.
type File struct {
	Timescale string    // "1ns"; empty if the file has no $timescale
	Date      string    // $date text
	Version   string    // $version text
	Vars      []VarInfo // in declaration order
	End       uint64    // last time line

	byPath  map[string]int      // path -> index in Vars
	changes map[string][]Change // id -> changes, one per time
}

// ParseError is the error Parse returns: the line of the offending token
// and the reason.
type ParseError struct {
	Line   int
	Reason string
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("vcd: line %d: %s", e.Line, e.Reason)
}

// readerMaxWidth bounds a declared width, so a hostile file cannot make
// the reader allocate without limit.
const readerMaxWidth = 1 << 16

// maxLine bounds one line of input.
const maxLine = 1 << 20

// Parse reads a whole VCD file and checks it strictly. It rejects, with a
// *ParseError naming the line: unknown keywords, a missing
// $enddefinitions, unbalanced $scope/$upscope, dotted scope or variable
// names, a malformed declaration, time or value line, an identifier
// declared twice with different widths, a path declared twice, a value
// for an undeclared identifier, a value wider than its variable, a value
// or $dumpvars before the first time line, and time that does not
// strictly increase. It accepts 'x' and 'z' digits.
func Parse(r io.Reader) (*File, error) {
	p := &parser{
		sc: bufio.NewScanner(r),
		f: &File{
			byPath:  map[string]int{},
			changes: map[string][]Change{},
		},
		widths: map[string]int{},
	}
	p.sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.f, nil
}

// parser holds the state of one Parse.
type parser struct {
	sc     *bufio.Scanner
	line   int      // line of the last token returned
	toks   []string // rest of the current line
	f      *File
	widths map[string]int // id -> width
	scopes []string       // open scopes
	timed  bool           // a time line has been seen
	now    uint64
}

// next returns the next whitespace-separated token, or io.EOF.
func (p *parser) next() (string, error) {
	for len(p.toks) == 0 {
		if !p.sc.Scan() {
			if err := p.sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return "", p.errorf("line longer than %d bytes", maxLine)
				}
				return "", p.errorf("read: %v", err)
			}
			return "", io.EOF
		}
		p.line++
		p.toks = strings.Fields(p.sc.Text())
	}
	t := p.toks[0]
	p.toks = p.toks[1:]
	return t, nil
}

// errorf returns a *ParseError at the current line.
func (p *parser) errorf(format string, args ...any) error {
	return &ParseError{Line: max(p.line, 1), Reason: fmt.Sprintf(format, args...)}
}

// untilEnd returns the tokens up to the next $end.
func (p *parser) untilEnd(kw string) ([]string, error) {
	var args []string
	for {
		t, err := p.next()
		if err == io.EOF {
			return nil, p.errorf("unterminated %s: missing $end", kw)
		}
		if err != nil {
			return nil, err
		}
		if t == "$end" {
			return args, nil
		}
		if len(args) > 1<<16 {
			return nil, p.errorf("%s section too long", kw)
		}
		args = append(args, t)
	}
}

// run parses the declarations then the value changes.
func (p *parser) run() error {
	if err := p.declarations(); err != nil {
		return err
	}
	return p.simulation()
}

// declarations parses the header up to $enddefinitions.
func (p *parser) declarations() error {
	for {
		t, err := p.next()
		if err == io.EOF {
			return p.errorf("missing $enddefinitions")
		}
		if err != nil {
			return err
		}
		switch t {
		case "$date", "$version", "$comment":
			args, err := p.untilEnd(t)
			if err != nil {
				return err
			}
			switch t {
			case "$date":
				p.f.Date = strings.Join(args, " ")
			case "$version":
				p.f.Version = strings.Join(args, " ")
			}
		case "$timescale":
			args, err := p.untilEnd(t)
			if err != nil {
				return err
			}
			ts, ok := parseTimescale(strings.Join(args, ""))
			if !ok {
				return p.errorf("malformed $timescale %q", strings.Join(args, " "))
			}
			p.f.Timescale = ts
		case "$scope":
			if err := p.scope(); err != nil {
				return err
			}
		case "$upscope":
			args, err := p.untilEnd(t)
			if err != nil {
				return err
			}
			if len(args) != 0 {
				return p.errorf("malformed $upscope: unexpected %q", args[0])
			}
			if len(p.scopes) == 0 {
				return p.errorf("unbalanced $upscope: no open $scope")
			}
			p.scopes = p.scopes[:len(p.scopes)-1]
		case "$var":
			if err := p.variable(); err != nil {
				return err
			}
		case "$enddefinitions":
			args, err := p.untilEnd(t)
			if err != nil {
				return err
			}
			if len(args) != 0 {
				return p.errorf("malformed $enddefinitions: unexpected %q", args[0])
			}
			if n := len(p.scopes); n != 0 {
				return p.errorf("unbalanced $scope: %d scope(s) not closed by $upscope at $enddefinitions (innermost %q)", n, p.scopes[n-1])
			}
			return nil
		default:
			if strings.HasPrefix(t, "$") {
				return p.errorf("unknown keyword %s in declarations", t)
			}
			if strings.HasPrefix(t, "#") {
				return p.errorf("time %s before $enddefinitions: missing $enddefinitions", t)
			}
			return p.errorf("malformed declaration: unexpected %q", t)
		}
	}
}

// isScopeType reports whether t is a $scope type of IEEE 1364 or 1800.
func isScopeType(t string) bool {
	switch t {
	case "module", "task", "function", "begin", "fork", "interface", "package",
		"program", "struct", "union", "class", "generate":
		return true
	}
	return false
}

// scope parses "$scope TYPE NAME $end".
func (p *parser) scope() error {
	args, err := p.untilEnd("$scope")
	if err != nil {
		return err
	}
	if len(args) != 2 {
		return p.errorf("malformed $scope: want TYPE NAME, got %d word(s)", len(args))
	}
	if !isScopeType(args[0]) {
		return p.errorf("malformed $scope: unknown scope type %q", args[0])
	}
	if strings.Contains(args[1], ".") {
		return p.errorf("malformed $scope: name %q contains '.'", args[1])
	}
	if len(p.scopes) > 1024 {
		return p.errorf("$scope nested deeper than 1024")
	}
	p.scopes = append(p.scopes, args[1])
	return nil
}

// isVarType reports whether t is a $var type of IEEE 1364/1800 for
// scalar and vector nets and variables (real and event are not supported).
func isVarType(t string) bool {
	switch t {
	case "wire", "reg", "integer", "parameter", "supply0", "supply1", "tri",
		"triand", "trior", "trireg", "tri0", "tri1", "wand", "wor", "logic",
		"bit", "int", "time":
		return true
	}
	return false
}

// variable parses "$var TYPE WIDTH ID NAME [RANGE] $end".
func (p *parser) variable() error {
	args, err := p.untilEnd("$var")
	if err != nil {
		return err
	}
	if len(args) != 4 && len(args) != 5 {
		return p.errorf("malformed $var: want TYPE WIDTH ID NAME [RANGE], got %d word(s)", len(args))
	}
	typ, ws, id, name := args[0], args[1], args[2], args[3]
	if !isVarType(typ) {
		return p.errorf("malformed $var: unsupported type %q", typ)
	}
	width, err := strconv.Atoi(ws)
	if err != nil || width < 1 || width > readerMaxWidth {
		return p.errorf("malformed $var: width %q not in 1..%d", ws, readerMaxWidth)
	}
	if !validID(id) {
		return p.errorf("malformed $var: bad identifier code %q", id)
	}
	rng := ""
	if len(args) == 5 {
		rng = args[4]
	} else if i := strings.IndexByte(name, '['); i > 0 {
		name, rng = name[:i], name[i:]
	}
	if name == "" || strings.ContainsAny(name, ".[]") {
		return p.errorf("malformed $var: bad name %q", name)
	}
	if rng != "" {
		rw, ok := rangeWidth(rng)
		if !ok {
			return p.errorf("malformed $var: bad range %q", rng)
		}
		if rw != width {
			return p.errorf("$var %s: range %s is %d bits, declared width is %d", name, rng, rw, width)
		}
	}
	if len(p.scopes) == 0 {
		return p.errorf("$var %s outside any $scope", name)
	}
	if w, ok := p.widths[id]; ok && w != width {
		return p.errorf("identifier %s declared twice with different widths (%d and %d)", id, w, width)
	}
	path := strings.Join(p.scopes, ".") + "." + name
	if _, dup := p.f.byPath[path]; dup {
		return p.errorf("variable %s declared twice", path)
	}
	p.widths[id] = width
	p.f.byPath[path] = len(p.f.Vars)
	p.f.Vars = append(p.f.Vars, VarInfo{Path: path, Width: width, ID: id})
	return nil
}

// validID reports whether s is a VCD identifier code: printable ASCII
// without spaces.
func validID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}

// rangeWidth returns the width of "[msb:lsb]" or "[bit]".
func rangeWidth(r string) (int, bool) {
	if len(r) < 3 || r[0] != '[' || r[len(r)-1] != ']' {
		return 0, false
	}
	inner := r[1 : len(r)-1]
	msb, lsb, two := strings.Cut(inner, ":")
	m, err := strconv.Atoi(msb)
	if err != nil {
		return 0, false
	}
	if !two {
		return 1, true
	}
	l, err := strconv.Atoi(lsb)
	if err != nil {
		return 0, false
	}
	d := m - l
	if d < 0 {
		d = -d
	}
	if d >= readerMaxWidth {
		return 0, false
	}
	return d + 1, true
}

// parseTimescale accepts "1ns", "10ps", "100 us" (spaces removed by the
// caller) and returns it normalised.
func parseTimescale(s string) (string, bool) {
	n := strings.TrimLeft(s, "0123456789")
	num := s[:len(s)-len(n)]
	switch num {
	case "1", "10", "100":
	default:
		return "", false
	}
	switch n {
	case "s", "ms", "us", "ns", "ps", "fs":
		return num + n, true
	}
	return "", false
}

// simulation parses the value change section.
func (p *parser) simulation() error {
	dumping := "" // open $dumpvars/$dumpall/... section
	for {
		t, err := p.next()
		if err == io.EOF {
			if dumping != "" {
				return p.errorf("unterminated %s: missing $end", dumping)
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case t[0] == '#':
			if dumping != "" {
				return p.errorf("time %s inside %s", t, dumping)
			}
			if err := p.time(t); err != nil {
				return err
			}
		case t == "$dumpvars", t == "$dumpall", t == "$dumpon", t == "$dumpoff":
			if !p.timed {
				return p.errorf("%s before the first time line (#0)", t)
			}
			if dumping != "" {
				return p.errorf("%s inside %s", t, dumping)
			}
			dumping = t
		case t == "$end":
			if dumping == "" {
				return p.errorf("$end without an open section")
			}
			dumping = ""
		case t == "$comment":
			if _, err := p.untilEnd(t); err != nil {
				return err
			}
		case t == "$date", t == "$version", t == "$timescale", t == "$scope",
			t == "$upscope", t == "$var", t == "$enddefinitions":
			return p.errorf("%s after $enddefinitions", t)
		case t[0] == '$':
			return p.errorf("unknown keyword %s", t)
		default:
			if err := p.value(t); err != nil {
				return err
			}
		}
	}
}

// time parses "#N".
func (p *parser) time(t string) error {
	n, err := strconv.ParseUint(t[1:], 10, 64)
	if err != nil {
		return p.errorf("malformed time %q", t)
	}
	if n > math.MaxInt64 {
		return p.errorf("time %d not below 2^63", n)
	}
	if p.timed && n <= p.now {
		return p.errorf("time not strictly increasing: #%d after #%d", n, p.now)
	}
	p.timed, p.now, p.f.End = true, n, n
	return nil
}

// value parses a scalar ("1!") or vector ("b1011 !") value change.
func (p *parser) value(t string) error {
	var digits, id string
	switch c := t[0]; c {
	case '0', '1', 'x', 'X', 'z', 'Z':
		digits, id = t[:1], t[1:]
		if id == "" {
			return p.errorf("malformed scalar value %q: no identifier", t)
		}
	case 'b', 'B':
		digits = t[1:]
		if digits == "" {
			return p.errorf("malformed vector value %q: no digits", t)
		}
		line := p.line
		var err error
		id, err = p.next()
		if err == io.EOF || (err == nil && p.line != line) {
			p.line = line
			return p.errorf("malformed vector value %q: no identifier on its line", t)
		}
		if err != nil {
			return err
		}
	case 'r', 'R':
		return p.errorf("real value %q not supported", t)
	default:
		return p.errorf("malformed value change %q", t)
	}
	for i := 0; i < len(digits); i++ {
		switch digits[i] {
		case '0', '1', 'x', 'X', 'z', 'Z':
		default:
			return p.errorf("malformed value %q: bad digit %q", t, digits[i])
		}
	}
	width, ok := p.widths[id]
	if !ok {
		return p.errorf("value change for undeclared identifier %q", id)
	}
	if !p.timed {
		return p.errorf("value change %q before the first time line (#0)", t)
	}
	if len(digits) > width {
		return p.errorf("value %q for %s has %d bits, wider than its %d-bit variable", t, id, len(digits), width)
	}
	v := extend(strings.ToLower(digits), width)
	ch := p.f.changes[id]
	if n := len(ch); n > 0 && ch[n-1].Time == p.now {
		ch[n-1].Value = v
	} else {
		p.f.changes[id] = append(ch, Change{Time: p.now, Value: v})
	}
	return nil
}

// extend left-extends a value to width digits as IEEE 1364 §18.2.1 says.
func extend(d string, width int) string {
	if len(d) == width {
		return d
	}
	pad := byte('0')
	if d[0] == 'x' || d[0] == 'z' {
		pad = d[0]
	}
	return strings.Repeat(string(pad), width-len(d)) + d
}

// Var returns the declaration of the variable at path.
func (f *File) Var(path string) (VarInfo, bool) {
	i, ok := f.byPath[path]
	if !ok {
		return VarInfo{}, false
	}
	return f.Vars[i], true
}

// Changes returns the values of the variable at path, one per time at
// which it was written, in time order (nil for an unknown path). The slice
// is a copy.
func (f *File) Changes(path string) []Change {
	v, ok := f.Var(path)
	if !ok {
		return nil
	}
	return slices.Clone(f.changes[v.ID])
}

// ValueAt returns the value of the variable at path at time t (VCD time
// units): the last value written at or before t, as Width binary digits.
// ok is false for an unknown path or before the first value.
func (f *File) ValueAt(path string, t uint64) (value string, ok bool) {
	v, ok := f.Var(path)
	if !ok {
		return "", false
	}
	ch := f.changes[v.ID]
	i := sort.Search(len(ch), func(i int) bool { return ch[i].Time > t })
	if i == 0 {
		return "", false
	}
	return ch[i-1].Value, true
}
