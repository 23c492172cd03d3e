package bus

import "mkeysim/rtl/sim"

// PagesAnswer is the host driver's answer to a Pages Request Event: the
// MANAGE_PAGES it sends over the command interface (issue 37). NumPages
// > 0 gives that many pages (op_mod GIVE), < 0 takes back that many of
// the pages the HCA offered (op_mod TAKE); Refuse is MANAGE_PAGES with
// op_mod CANT_GIVE (the host will not give what the HCA asked), Reason
// the host's words for it.
type PagesAnswer struct {
	NumPages int64
	Refuse   bool
	Reason   string
}

var pagesAnswerFields = []sim.Field{{Name: "num_pages", Width: 32, Format: sim.Hex}, {Name: "refuse", Width: 1}}

// Fields lists an answer's fields (sim.Fielded).
func (a *PagesAnswer) Fields() []sim.Field { return pagesAnswerFields }

// FieldValues writes an answer's fields in the order of Fields:
// num_pages as its 32-bit two's complement (the EQE's field).
func (a *PagesAnswer) FieldValues(vs []uint64) {
	vs[0], vs[1] = uint64(uint32(int32(a.NumPages))), sim.B(a.Refuse)
}
