package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Error is a scenario error: the JSON path where it arose and why.
type Error struct {
	File string
	Path string // like ops[3].len; empty for the whole document
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ReadFile parses the scenario file at path.
func ReadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	sc, err := Parse(data)
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			se.File = path
			return nil, se
		}
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return sc, nil
}

// Parse parses a scenario document.
//
// Memory: Parse reads data in place and keeps nothing of it. Besides the
// Scenario it returns, with its slices sized exactly, it allocates only
// for strings written with escapes or outside ASCII, and for an error.
// Its peak heap beyond data is therefore the Scenario plus a constant:
// one Op (unsafe.Sizeof(Op{}), 72 bytes) an operation, plus the MKey or
// UMR of the ops that carry one. For a file made mostly of access ops
// written as in scenario.md (about 110 bytes each) that is half a byte per
// byte of file (TestParseMemory); the worst is a file of the shortest op
// that allocates, {"op":"create_mkey"}, at about 11. A long array of
// short bad elements costs no more than that before its error.
func Parse(data []byte) (*Scenario, error) {
	doc, ok := validDocument(data)
	if !ok {
		return nil, syntaxError(data)
	}
	p := &parser{}
	sc := p.scenario(doc)
	if p.err != nil {
		return nil, p.err
	}
	return sc, nil
}

// syntaxError describes why data is not one JSON document, with the
// messages of encoding/json. It runs only on a document already found
// malformed.
func syntaxError(data []byte) *Error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return &Error{Msg: jsonError(data, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Msg: fmt.Sprintf("malformed JSON: extra data after the document at byte %d", dec.InputOffset())}
	}
	return &Error{Msg: "malformed JSON"} // not reached: the two readers agree (FuzzValid)
}

func jsonError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &ue):
		off = ue.Offset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: unexpected end of input"
	}
	if off < 0 {
		return "malformed JSON: " + err.Error()
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("malformed JSON at line %d column %d: %v", line, col, err)
}

// scenario parses the whole document: its qps, mkeys, iommu and ops, in
// that order; it returns at the first error inside a list.
func (p *parser) scenario(doc value) *Scenario {
	var root path
	o := p.object(root, doc, "qps", "mkeys", "iommu", "ops")
	if !o.ok {
		return nil
	}
	sc := &Scenario{}
	qpns := map[uint32]bool{}
	if v, ok := o.get("qps"); ok {
		p.array(root.dot("qps"), v)
		sc.QPs = makeFor[QP](v, len(`{"qpn":0,"pd":0}`))
		for i, q := range v.elems() {
			at := root.dot("qps").at(i)
			qo := p.object(at, q, "qpn", "pd", "type")
			var qp QP
			if v, ok := p.required(at, &qo, "qpn"); ok {
				qp.QPN = uint32(p.number(at.dot("qpn"), v, 24))
			}
			if v, ok := p.required(at, &qo, "pd"); ok {
				qp.PD = uint32(p.number(at.dot("pd"), v, 24))
			}
			if v, ok := qo.get("type"); ok {
				switch t := p.name(at.dot("type"), v); string(t) {
				case "RC":
				case "REG_UMR":
					qp.RegUMR = true
				default:
					p.fail(at.dot("type"), "unknown QP type %s (want RC or REG_UMR)", quote(t))
				}
			}
			if p.err == nil && qpns[qp.QPN] {
				p.fail(at.dot("qpn"), "duplicate qpn %d", qp.QPN)
			}
			if p.err != nil {
				return sc
			}
			qpns[qp.QPN] = true
			sc.QPs = append(sc.QPs, qp)
		}
	}
	if v, ok := o.get("mkeys"); ok {
		p.array(root.dot("mkeys"), v)
		sc.MKeys = makeFor[MKey](v, len(`{"index":0}`))
		for i, mk := range v.elems() {
			sc.MKeys = append(sc.MKeys, p.mkey(root.dot("mkeys").at(i), mk, true))
			if p.err != nil {
				return sc
			}
		}
	}
	if v, ok := o.get("iommu"); ok {
		sc.IOMMU = p.iommu(root.dot("iommu"), v)
		if p.err != nil {
			return sc
		}
		p.iommuSection = sc.IOMMU
	}
	if v, ok := o.get("ops"); ok {
		p.array(root.dot("ops"), v)
		sc.Ops = makeFor[Op](v, len(`{"op":"create_mkey"}`))
		for i, op := range v.elems() {
			sc.Ops = append(sc.Ops, Op{})
			p.op(&sc.Ops[i], root.dot("ops").at(i), op, qpns)
			if p.err != nil {
				return sc
			}
		}
	}
	return sc
}

// makeFor makes room for the elements of array v: for all of them, but
// no more than could be valid if each takes at least shortest bytes, so
// that a long array of short bad elements costs little before its first
// error. Sized exactly, the Scenario holds no spare capacity. It is nil
// for no elements, as appending none would leave it.
func makeFor[T any](v value, shortest int) []T {
	n := min(v.n, len(v.raw)/shortest)
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}
