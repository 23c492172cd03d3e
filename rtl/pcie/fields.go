package pcie

import "mkeysim/rtl/sim"

// This file is how TLPs and reads show in a waveform (sim.Fielded).

// The value names of TLP types, address types and completion statuses
// (translate filters). TypeEnum names every type, in 3 bits: the ATS
// messages (Msg, MsgD) travel on the links with hca_cap.ats.
var (
	TypeEnum = func() *sim.Enum {
		m := map[uint64]string{}
		for t := MRd; t <= MsgD; t++ {
			m[uint64(t)] = t.String()
		}
		return &sim.Enum{Name: "tlp_type", Width: 3, Names: m}
	}()
	ATEnum = &sim.Enum{Name: "tlp_at", Width: 2, Names: map[uint64]string{
		uint64(ATUntranslated): "untranslated", uint64(ATTranslationRequest): "translation_request", uint64(ATTranslated): "translated"}}
	CplStatusEnum = &sim.Enum{Name: "cpl_status", Width: 3, Names: map[uint64]string{
		uint64(SC): SC.String(), uint64(UR): UR.String(), uint64(CA): CA.String()}}
)

// tlpFields: status and byte_count mean something on completions only,
// addr on requests only; ro (Relaxed Ordering, Attr[1]) on requests and
// completions.
var tlpFields = []sim.Field{
	{Name: "type", Enum: TypeEnum}, {Name: "tag", Width: 10}, {Name: "addr", Width: 64, Format: sim.Hex},
	{Name: "len_dw", Width: 11}, {Name: "status", Enum: CplStatusEnum}, {Name: "byte_count", Width: 13},
	{Name: "at", Enum: ATEnum}, {Name: "ro", Width: 1},
}

// Fields lists a TLP's fields (sim.Fielded).
func (t *TLP) Fields() []sim.Field { return tlpFields }

// FieldValues writes the TLP's fields.
func (t *TLP) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2] = uint64(t.Type), uint64(t.Tag), t.Addr
	vs[3], vs[4], vs[5] = uint64(t.LengthDW), uint64(t.Status), uint64(t.ByteCount)
	vs[6], vs[7] = uint64(t.AT), sim.B(t.RO)
}

var readReqFields = []sim.Field{{Name: "id", Width: 32}, {Name: "addr", Width: 64, Format: sim.Hex}, {Name: "len", Width: 32}}

// Fields lists a read request's fields (sim.Fielded).
func (r *ReadReq) Fields() []sim.Field { return readReqFields }

// FieldValues writes the read request's fields.
func (r *ReadReq) FieldValues(vs []uint64) { vs[0], vs[1], vs[2] = uint64(r.ID), r.Addr, uint64(r.Len) }

// readRespFields: len is the data bytes.
var readRespFields = []sim.Field{
	{Name: "id", Width: 32}, {Name: "addr", Width: 64, Format: sim.Hex},
	{Name: "status", Enum: CplStatusEnum}, {Name: "len", Width: 32},
}

// Fields lists a read response's fields (sim.Fielded).
func (r *ReadResp) Fields() []sim.Field { return readRespFields }

// FieldValues writes the read response's fields.
func (r *ReadResp) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3] = uint64(r.ID), r.Addr, uint64(r.Status), uint64(len(r.Data))
}
