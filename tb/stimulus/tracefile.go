package stimulus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// This file makes the trace workload (Workload.Kind trace): the accesses
// are read from a file (Workload.TraceFile) and replayed over the regions
// of the measurement workloads (measure.go: MRs MTT keys of MRBytes in
// pages of PageBytes, region of index k at virtual address k x 2^40, on
// QP 1, PD 1). docs/workloads.md describes the format; in short:
//
//	# a comment; blank lines are skipped too
//	qpn,key,addr,len,type
//	1,r1,0x10000000000,64,LOCAL_READ
//	1,0x200,0x20000001000,4096,remote_write
//
// or one JSON object a line with the same fields
// ({"qpn":1,"key":"r1","offset":64,"len":64,"type":"LOCAL_READ"}),
// told apart by the first line that is neither blank nor a comment ('{'
// starts JSON lines). A key is an MKey as in a scenario (decimal or 0x
// hex) or r and a region's index (r5 is MKey 0x500); an address is given
// as addr (in the key's address space) or as offset (from the start of the
// key's region). The file is read whole once, by Workload.Check, and the
// workload's copies share what it read.

// MaxTraceAccesses bounds the accesses of a trace file (the most a
// workload may make, workload.accesses).
const MaxTraceAccesses = 10_000_000

// MaxTraceLen bounds the length of one access of a trace, in bytes.
const MaxTraceLen = 1 << 30

// maxTraceLine bounds the bytes of one line of a trace file.
const maxTraceLine = 64 << 10

// traceFields are the fields of an access of a trace, as the format
// names them; addr and offset are alternatives.
var traceFields = []string{"qpn", "key", "addr", "offset", "len", "type"}

// traceFieldsWant lists them in an error.
const traceFieldsWant = "qpn, key, addr or offset, len and type"

// TraceError is a bad trace file: the file, the line (0 for the file as a
// whole), the field and its value (as written, or as read when it does
// not fit the regions; both empty when the line as a whole is bad) and
// the reason.
type TraceError struct {
	File   string
	Line   int
	Field  string
	Value  string
	Reason string
}

// Error reads "FILE: line N: FIELD = VALUE: REASON".
func (e *TraceError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
		if e.Value != "" {
			b.WriteString(" = " + e.Value)
		}
	}
	b.WriteString(": " + e.Reason)
	return b.String()
}

// traceAccess is one access of a trace file as written, before it is
// placed in the workload's regions.
type traceAccess struct {
	addr   uint64 // the address, or the offset in the key's region
	line   uint32 // in the file, from 1
	key    prm.Key
	len    uint32
	qpn    uint32
	typ    prm.AccessType
	offset bool // addr is an offset in the region
	region bool // the key was written as r and the region's index
}

// traceFile is a trace file read: its path as given and its accesses.
// It is not changed once read, so copies of a workload share it.
type traceFile struct {
	path     string
	accesses []traceAccess
}

// readTrace reads and parses the trace file at path.
func readTrace(path string) (*traceFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseTrace(path, f)
}

// traceParser reads one trace file.
type traceParser struct {
	file    string
	line    int
	jsonl   bool
	started bool           // the format is known (and the CSV header read)
	columns map[string]int // CSV: each field's column
	header  string         // CSV: the header line, for errors
	out     []traceAccess
}

// fail is an error at the current line.
func (p *traceParser) fail(field, value, format string, a ...any) error {
	return &TraceError{File: p.file, Line: p.line, Field: field, Value: value, Reason: fmt.Sprintf(format, a...)}
}

// parseTrace parses a trace file read from r; name is its path, for errors.
func parseTrace(name string, r io.Reader) (*traceFile, error) {
	p := &traceParser{file: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTraceLine)
	for sc.Scan() {
		p.line++
		if uint64(p.line) > math.MaxUint32 {
			return nil, p.fail("", "", "more than 2^32-1 lines")
		}
		text := sc.Bytes()
		if p.line == 1 {
			text = bytes.TrimPrefix(text, []byte("\uFEFF")) // a byte order mark
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		if err := p.parseLine(text); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			p.line++
			return nil, p.fail("", "", "longer than %d bytes", maxTraceLine)
		}
		return nil, &TraceError{File: name, Reason: err.Error()}
	}
	if len(p.out) == 0 {
		return nil, &TraceError{File: name, Reason: "no accesses (only blank lines, comments or a header)"}
	}
	return &traceFile{path: name, accesses: p.out}, nil
}

// parseLine parses one line that is neither blank nor a comment.
func (p *traceParser) parseLine(text []byte) error {
	if !p.started {
		p.started = true
		if text[0] == '{' {
			p.jsonl = true
		} else {
			return p.parseHeader(string(text))
		}
	}
	if len(p.out) == MaxTraceAccesses {
		return p.fail("", "", "more than %d accesses", MaxTraceAccesses)
	}
	var fields map[string]traceValue
	var err error
	if p.jsonl {
		fields, err = p.jsonFields(text)
	} else {
		fields, err = p.csvFields(string(text))
	}
	if err != nil {
		return err
	}
	a, err := p.access(fields)
	if err != nil {
		return err
	}
	p.out = append(p.out, a)
	return nil
}

// traceValue is one field's value as written: CSV text, or a JSON string,
// number or other value (its JSON text).
type traceValue struct {
	text string
	kind byte // 'c' CSV, 's' JSON string, 'n' JSON number, 'j' other JSON
}

// String shows the value in an error.
func (v traceValue) String() string {
	if v.kind == 'c' || v.kind == 's' {
		return rtl.Quote(v.text)
	}
	if len(v.text) > rtl.QuoteMax {
		return v.text[:rtl.QuoteMax] + "…"
	}
	return v.text
}

// parseHeader reads the CSV header: the fields, each once, in any order
// and any case, addr or offset but not both.
func (p *traceParser) parseHeader(text string) error {
	p.header = text
	p.columns = map[string]int{}
	for i, c := range strings.Split(text, ",") {
		name := strings.ToLower(strings.TrimSpace(c))
		if !isTraceField(name) {
			return p.fail("", "", "header %s: column %s: want the columns %s", rtl.Quote(text), rtl.Quote(strings.TrimSpace(c)), traceFieldsWant)
		}
		if _, ok := p.columns[name]; ok {
			return p.fail("", "", "header %s: column %s given twice", rtl.Quote(text), name)
		}
		p.columns[name] = i
	}
	if why := missing(func(f string) bool { _, ok := p.columns[f]; return ok }, "column"); why != "" {
		return p.fail("", "", "header %s: %s", rtl.Quote(text), why)
	}
	return nil
}

// isTraceField reports whether name is a field of the format.
func isTraceField(name string) bool {
	for _, f := range traceFields {
		if f == name {
			return true
		}
	}
	return false
}

// missing says which field has lacks, or that it holds both addr and
// offset; "" when it has every field. what names a field (column, field).
func missing(has func(string) bool, what string) string {
	for _, f := range []string{"qpn", "key", "len", "type"} {
		if !has(f) {
			return fmt.Sprintf("no %s %s", what, f)
		}
	}
	switch {
	case has("addr") && has("offset"):
		return fmt.Sprintf("both %ss addr and offset: want one of them", what)
	case !has("addr") && !has("offset"):
		return fmt.Sprintf("no %s addr (nor offset)", what)
	}
	return ""
}

// csvFields splits a CSV line by the header's columns.
func (p *traceParser) csvFields(text string) (map[string]traceValue, error) {
	cells := strings.Split(text, ",")
	if len(cells) != len(p.columns) {
		return nil, p.fail("", "", "%d fields, want %d (the header %s)", len(cells), len(p.columns), rtl.Quote(p.header))
	}
	fields := make(map[string]traceValue, len(cells))
	for name, i := range p.columns {
		fields[name] = traceValue{text: strings.TrimSpace(cells[i]), kind: 'c'}
	}
	return fields, nil
}

// jsonFields reads a JSON-lines line: one object, each field once.
func (p *traceParser) jsonFields(text []byte) (map[string]traceValue, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	bad := func(err error) error {
		return p.fail("", "", "want one JSON object with the fields %s: %v", traceFieldsWant, err)
	}
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		if err == nil {
			err = fmt.Errorf("starts with %v", t)
		}
		return nil, bad(err)
	}
	fields := map[string]traceValue{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, bad(err)
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, bad(err)
		}
		if !isTraceField(name) {
			return nil, p.fail("", "", "field %s: want the fields %s", rtl.Quote(name), traceFieldsWant)
		}
		if _, ok := fields[name]; ok {
			return nil, p.fail(name, "", "given twice")
		}
		v := traceValue{text: string(raw), kind: 'j'}
		switch c := raw[0]; {
		case c == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, bad(err)
			}
			v = traceValue{text: s, kind: 's'}
		case c == '-' || c >= '0' && c <= '9':
			v.kind = 'n'
		}
		fields[name] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, bad(err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, p.fail("", "", "text after the JSON object")
	}
	if why := missing(func(f string) bool { _, ok := fields[f]; return ok }, "field"); why != "" {
		return nil, p.fail("", "", "%s", why)
	}
	return fields, nil
}

// access makes an access of the fields of a line.
func (p *traceParser) access(f map[string]traceValue) (traceAccess, error) {
	a := traceAccess{line: uint32(p.line)}
	qpn, err := p.number("qpn", f["qpn"], 24)
	if err != nil {
		return a, err
	}
	if !workloadQP(uint32(qpn)) {
		return a, p.fail("qpn", f["qpn"].String(), "want a QP of the workload: 1 or 2 (on the regions' PD 1), 3 or 4 (on PD 2)")
	}
	a.qpn = uint32(qpn)
	if a.key, a.region, err = p.key(f["key"]); err != nil {
		return a, err
	}
	field := "addr"
	if _, ok := f["offset"]; ok {
		field, a.offset = "offset", true
	}
	if a.addr, err = p.number(field, f[field], 64); err != nil {
		return a, err
	}
	n, err := p.number("len", f["len"], 64)
	if err != nil {
		return a, err
	}
	if n == 0 || n > MaxTraceLen {
		return a, p.fail("len", f["len"].String(), "want 1..2^30 bytes")
	}
	a.len = uint32(n)
	t := f["type"]
	typ, ok := prm.ParseAccessType(strings.ToUpper(t.text))
	if t.kind == 'j' || t.kind == 'n' || !ok {
		return a, p.fail("type", t.String(), "want LOCAL_READ, LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE or REMOTE_ATOMIC (in any case)")
	}
	a.typ = typ
	return a, nil
}

// workloadQP reports whether qpn is one of the QPs of the workloads' scenarios.
func workloadQP(qpn uint32) bool {
	for _, q := range genQPs {
		if q.QPN == qpn {
			return true
		}
	}
	return false
}

// number parses an unsigned number of at most bits bits: decimal or 0x
// hex digits in CSV and in a JSON string, a JSON integer.
func (p *traceParser) number(field string, v traceValue, bits int) (uint64, error) {
	if v.kind == 'j' {
		return 0, p.fail(field, v.String(), "want a number")
	}
	n, err := scenario.ParseUint(v.text, v.kind != 'n')
	if err != nil {
		want := "want decimal digits or 0x and hex digits"
		if v.kind == 'n' {
			want = "want an unsigned integer (or a string of decimal digits or 0x and hex digits)"
		}
		if strings.Contains(err.Error(), "wider than") {
			want = "wider than 64 bits"
		}
		return 0, p.fail(field, v.String(), "%s", want)
	}
	if bits < 64 && n>>uint(bits) != 0 {
		return 0, p.fail(field, v.String(), "wider than %d bits", bits)
	}
	return n, nil
}

// key parses a key: an MKey (a number of 32 bits) or r and a region's
// index (the region's key, variant 0).
func (p *traceParser) key(v traceValue) (k prm.Key, region bool, err error) {
	if v.kind != 'n' && len(v.text) > 1 && (v.text[0] == 'r' || v.text[0] == 'R') {
		n, err := strconv.ParseUint(v.text[1:], 10, 24)
		if err != nil {
			return 0, false, p.fail("key", v.String(), "want r and a region's index in decimal (r1..r%d at most)", 1<<24-1)
		}
		return prm.MakeKey(uint32(n), 0), true, nil
	}
	n, err := p.number("key", v, 32)
	if err != nil {
		var te *TraceError
		if errors.As(err, &te) {
			te.Reason += " (an MKey), or r and a region's index (r5)"
		}
		return 0, false, err
	}
	return prm.Key(n), false, nil
}

// check checks the trace's accesses against the workload's regions: each
// key's index is a region's, each access lies in its region.
func (t *traceFile) check(w *Workload) error {
	for i := range t.accesses {
		a := &t.accesses[i]
		fail := func(field, value, format string, x ...any) error {
			return &TraceError{File: t.path, Line: int(a.line), Field: field, Value: value, Reason: fmt.Sprintf(format, x...)}
		}
		k := a.key.Index()
		if k < 1 || uint64(k) > uint64(w.MRs) {
			key := a.key.String()
			if a.region {
				key = fmt.Sprintf("r%d", k)
			}
			return fail("key", key, "index %d is not a region's: want an index in 1..%d (workload.mrs = %d)", k, w.MRs, w.MRs)
		}
		base := regionBase(int(k) - 1)
		if a.offset {
			if a.addr > w.MRBytes || uint64(a.len) > w.MRBytes-a.addr {
				return fail("offset", strconv.FormatUint(a.addr, 10), "offset + len = %d + %d passes the end of region %d (workload.mr_bytes = %d)", a.addr, a.len, k, w.MRBytes)
			}
			continue
		}
		if a.addr < base || a.addr-base > w.MRBytes || uint64(a.len) > w.MRBytes-(a.addr-base) {
			return fail("addr", fmt.Sprintf("%#x", a.addr), "%#x + len %d is not inside region %d [%#x, %#x) (region k lies at k x 2^40, workload.mr_bytes = %d)",
				a.addr, a.len, k, base, base+w.MRBytes, w.MRBytes)
		}
	}
	return nil
}

// access is the scenario access of the trace's access i.
func (t *traceFile) access(i int) scenario.Access {
	a := &t.accesses[i]
	addr := a.addr
	if a.offset {
		addr += regionBase(int(a.key.Index()) - 1)
	}
	return scenario.Access{QPN: a.qpn, Key: a.key, Type: a.typ, Addr: addr, Len: a.len}
}

// checkTrace checks the trace workload: its file read (once: w keeps it,
// and its copies share it) and every access against the regions.
func (w *Workload) checkTrace() error {
	if w.TraceFile == "" {
		return errors.New(`workload.trace_file = "": want the path of the trace to replay (workload.kind = trace)`)
	}
	if w.trace == nil || w.trace.path != w.TraceFile {
		t, err := readTrace(w.TraceFile)
		if err != nil {
			return fmt.Errorf("workload.trace_file: %w", err)
		}
		w.trace = t
	}
	if err := w.trace.check(w); err != nil {
		return fmt.Errorf("workload.trace_file: %w", err)
	}
	return nil
}

// traceAccesses is the number of accesses a trace workload makes:
// workload.accesses, or the trace's once when that is 0.
func (w *Workload) traceAccesses() int {
	if w.Accesses == 0 && w.trace != nil {
		return len(w.trace.accesses)
	}
	return w.Accesses
}

// TraceSummary says what a trace workload replays, for the run's
// summary: the file, its accesses, and whether workload.accesses wraps
// around it or stops before its end. It is "" for another kind or
// before Check has read the file.
func (w *Workload) TraceSummary() string {
	if w.Kind != KindTrace || w.trace == nil || w.trace.path != w.TraceFile {
		return ""
	}
	n, made := len(w.trace.accesses), w.traceAccesses()
	s := fmt.Sprintf("trace %s (%d accesses", w.TraceFile, n)
	switch {
	case made > n:
		s += fmt.Sprintf(", wrapped around to make %d", made)
	case made < n:
		s += fmt.Sprintf(", the first %d", made)
	}
	return s + ")"
}
