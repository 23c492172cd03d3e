package bus

import (
	"mkeysim/prm"
	"mkeysim/rtl/sim"
)

// This file is how the payloads show in a waveform (sim.Fielded): each
// payload lists its fields once and writes a value's fields in that order.
// Widths follow the fields' types: keys and indexes 32 and 24 bits,
// addresses 64, request lengths and offsets 32 (an access is at most
// 2^32-1 bytes), QPNs and PDs 24.

// The value names of the prm codes that payloads carry (translate
// filters).
var (
	StatusEnum     = enum("status", 5, func(m map[uint64]string) { named(m, prm.Statuses()) })
	AccessTypeEnum = enum("access_type", 3, func(m map[uint64]string) { named(m, prm.AccessTypes()) })
	AccessModeEnum = enum("access_mode", 5, func(m map[uint64]string) {
		for i, n := range prm.ModeNames() {
			m[uint64(i)] = n
		}
	})
	SpaceEnum = enum("space", 2, func(m map[uint64]string) {
		named(m, []prm.Space{prm.SpaceDMA, prm.SpaceSWICM, prm.SpaceMEMIC})
	})
)

func enum(name string, width int, fill func(map[uint64]string)) *sim.Enum {
	m := map[uint64]string{}
	fill(m)
	return &sim.Enum{Name: name, Width: width, Names: m}
}

// named adds each code under its String.
func named[T interface {
	~uint8 | ~uint16 | ~uint32
	String() string
}](m map[uint64]string, codes []T) {
	for _, c := range codes {
		m[uint64(c)] = c.String()
	}
}

var pieceFields = []sim.Field{
	{Name: "tag", Width: 16}, {Name: "level", Width: 8}, {Name: "type", Enum: AccessTypeEnum},
	{Name: "key", Width: 32, Format: sim.Hex}, {Name: "addr", Width: 64, Format: sim.Hex},
	{Name: "len", Width: 32}, {Name: "offset", Width: 32},
	{Name: "qpn", Width: 24, Format: sim.Hex}, {Name: "pd", Width: 24, Format: sim.Hex},
}

// Fields lists a piece's fields (sim.Fielded).
func (p *Piece) Fields() []sim.Field { return pieceFields }

// FieldValues writes the piece's fields.
func (p *Piece) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(p.Tag), uint64(p.Level), uint64(p.Type), uint64(p.Key), p.Addr
	vs[5], vs[6], vs[7], vs[8] = p.Len, p.Offset, uint64(p.QPN), uint64(p.PD)
}

// lookupFields are a piece's, then the lookup's own; mkc_rights are the
// MKC's A, RW, RR, LW, LR bits, A the highest.
var lookupFields = append(append([]sim.Field{}, pieceFields...),
	sim.Field{Name: "created", Width: 1, Format: sim.Bin}, sim.Field{Name: "token", Width: 1, Format: sim.Bin},
	sim.Field{Name: "token_id", Width: 32}, sim.Field{Name: "mkc_free", Width: 1, Format: sim.Bin},
	sim.Field{Name: "mkc_mode", Enum: AccessModeEnum}, sim.Field{Name: "mkc_rights", Width: 5, Format: sim.Bin},
	sim.Field{Name: "mkc_pd", Width: 24, Format: sim.Hex}, sim.Field{Name: "mkc_start", Width: 64, Format: sim.Hex},
	sim.Field{Name: "mkc_len", Width: 64, Format: sim.Hex})

// Fields lists a lookup's fields (sim.Fielded).
func (l *Lookup) Fields() []sim.Field { return lookupFields }

// FieldValues writes the lookup's fields. A token carries no piece: its
// other fields keep the values they showed.
func (l *Lookup) FieldValues(vs []uint64) {
	n := len(pieceFields)
	vs[n+1] = sim.B(l.Token)
	if l.Token {
		vs[n+2] = uint64(l.TokenID)
		return
	}
	l.Piece.FieldValues(vs)
	m := &l.MKC
	vs[n], vs[n+3], vs[n+4] = sim.B(l.Created), sim.B(m.Free), uint64(m.AccessMode)
	vs[n+5] = sim.B(m.A)<<4 | sim.B(m.RW)<<3 | sim.B(m.RR)<<2 | sim.B(m.LW)<<1 | sim.B(m.LR)
	vs[n+6], vs[n+7], vs[n+8] = uint64(m.PD), m.StartAddr, m.Len
}

var walkFields = append(append([]sim.Field{}, pieceFields...),
	sim.Field{Name: "mkc_mode", Enum: AccessModeEnum}, sim.Field{Name: "mkc_start", Width: 64, Format: sim.Hex})

// Fields lists a walk's fields (sim.Fielded).
func (w *Walk) Fields() []sim.Field { return walkFields }

// FieldValues writes the walk's fields.
func (w *Walk) FieldValues(vs []uint64) {
	w.Piece.FieldValues(vs)
	n := len(pieceFields)
	vs[n], vs[n+1] = uint64(w.MKC.AccessMode), w.MKC.StartAddr
}

var outcomeFields = []sim.Field{
	{Name: "tag", Width: 16}, {Name: "offset", Width: 32}, {Name: "len", Width: 32},
	{Name: "status", Enum: StatusEnum}, {Name: "level", Width: 8}, {Name: "space", Enum: SpaceEnum},
	{Name: "seg_addr", Width: 64, Format: sim.Hex}, {Name: "missing", Width: 1, Format: sim.Bin},
}

// Fields lists an outcome's fields (sim.Fielded).
func (o *Outcome) Fields() []sim.Field { return outcomeFields }

// FieldValues writes the outcome's fields.
func (o *Outcome) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3] = uint64(o.Tag), o.Offset, o.Len, uint64(o.Status)
	vs[4], vs[5], vs[6], vs[7] = uint64(o.Level), uint64(o.Seg.Space), o.Seg.Addr, sim.B(o.Missing)
}

var invalFields = []sim.Field{
	{Name: "id", Width: 32}, {Name: "index", Width: 24, Format: sim.Hex},
	{Name: "lo", Width: 64, Format: sim.Hex}, {Name: "hi", Width: 64, Format: sim.Hex},
	{Name: "all", Width: 1, Format: sim.Bin},
}

// Fields lists an invalidation's fields (sim.Fielded).
func (v *Inval) Fields() []sim.Field { return invalFields }

// FieldValues writes the invalidation's fields.
func (v *Inval) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(v.ID), uint64(v.Index), v.Lo, v.Hi, sim.B(v.All)
}

var ackFields = []sim.Field{{Name: "id", Width: 32}}

// Fields lists an acknowledgement's fields (sim.Fielded).
func (a *Ack) Fields() []sim.Field { return ackFields }

// FieldValues writes the acknowledgement's fields.
func (a *Ack) FieldValues(vs []uint64) { vs[0] = uint64(a.ID) }

var cutFields = []sim.Field{{Name: "tag", Width: 16}, {Name: "gen", Width: 16}, {Name: "offset", Width: 64}}

// Fields lists a cut's fields (sim.Fielded).
func (c *Cut) Fields() []sim.Field { return cutFields }

// FieldValues writes the cut's fields.
func (c *Cut) FieldValues(vs []uint64) { vs[0], vs[1], vs[2] = uint64(c.Tag), uint64(c.Gen), c.Offset }

// MoveKindEnum names the moves in waveforms.
var MoveKindEnum = &sim.Enum{Name: "move_kind", Width: 2, Names: map[uint64]string{0: "READ", 1: "WRITE", 2: "ATOMIC"}}

var moveFields = []sim.Field{{Name: "tag", Width: 16}, {Name: "kind", Enum: MoveKindEnum},
	{Name: "addr", Width: 64, Format: sim.Hex}, {Name: "len", Width: 32}, {Name: "last", Width: 1, Format: sim.Bin}}

// Fields lists a move's fields (sim.Fielded).
func (m *Move) Fields() []sim.Field { return moveFields }

// FieldValues writes the move's fields.
func (m *Move) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(m.Tag), uint64(m.Kind), m.Addr, m.Len, sim.B(m.Last)
}

var movedFields = []sim.Field{{Name: "tag", Width: 16}}

// Fields lists a Moved's fields (sim.Fielded).
func (m *Moved) Fields() []sim.Field { return movedFields }

// FieldValues writes its fields.
func (m *Moved) FieldValues(vs []uint64) { vs[0] = uint64(m.Tag) }
