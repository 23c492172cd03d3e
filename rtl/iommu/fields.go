package iommu

import "mkeysim/rtl/sim"

// The IOMMU's payloads as the waveform shows them (sim.Fielded).

var requestFields = []sim.Field{{Name: "id", Width: 32}, {Name: "pasid", Width: 1, Format: sim.Bin},
	{Name: "space_id", Width: 20, Format: sim.Hex}, {Name: "iova", Width: 64, Format: sim.Hex}, {Name: "write", Width: 1, Format: sim.Bin}}

// Fields lists a translation request's fields: its ID, its table (a
// PASID's, or a requester ID's; the ICM's is requester ID 0 of no PASID
// in the waveform), the IOVA and whether the access writes.
func (r *Request) Fields() []sim.Field { return requestFields }

// FieldValues writes the request's fields.
func (r *Request) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(r.ID), sim.B(r.Space.PASID), uint64(r.Space.ID), r.IOVA, sim.B(r.Write)
}

var responseFields = []sim.Field{{Name: "id", Width: 32}, {Name: "ok", Width: 1, Format: sim.Bin},
	{Name: "pa", Width: 64, Format: sim.Hex}, {Name: "size", Width: 64, Format: sim.Hex}}

// Fields lists an answer's fields: the request's ID, OK (translated, not
// a fault), the PA and the leaf's size.
func (r *Response) Fields() []sim.Field { return responseFields }

// FieldValues writes the answer's fields.
func (r *Response) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3] = uint64(r.ID), sim.B(r.OK), r.PA, r.Size
}

var invalFields = []sim.Field{{Name: "pasid", Width: 1, Format: sim.Bin}, {Name: "space_id", Width: 20, Format: sim.Hex},
	{Name: "iova", Width: 64, Format: sim.Hex}, {Name: "size", Width: 64, Format: sim.Hex}}

// Fields lists an invalidation's fields: its table, the IOVA and size.
func (v *Inval) Fields() []sim.Field { return invalFields }

// FieldValues writes the invalidation's fields.
func (v *Inval) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3] = sim.B(v.Space.PASID), uint64(v.Space.ID), v.IOVA, v.Size
}
