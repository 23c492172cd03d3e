package bus

import "mkeysim/rtl/sim"

// The payloads of PCIe Address Translation Services between the data
// path, the device's ATC (rtl/atc) and the host's translation agent (the
// IOMMU). Addresses are untranslated (the DMA addresses the MKeys give)
// unless named translated; a range is a power of two of at least 4 KiB,
// aligned to its size, as an ATS Translation Completion gives it.

// ATSLookup asks the ATC to translate the untranslated address Addr of
// request Tag for Len bytes, which cross no 4 KiB boundary (the data
// path's chunks never do).
type ATSLookup struct {
	Tag   uint16
	Addr  uint64
	Len   uint32
	Write bool // the access writes host memory: the translation must grant W
}

// ATSResult answers a lookup. OK: Addr is the translated address of the
// lookup's first byte and the result holds ATC entry Entry until the data
// path gives it back (ATSRelease): an invalidation of the entry's range
// completes only after that. Not OK: the host gave no translation with
// the permission the lookup needs (a fault), and nothing is held.
type ATSResult struct {
	Tag   uint16
	Addr  uint64
	Len   uint32
	OK    bool
	Entry uint16
}

// ATSRelease gives an ATC entry back: the data movement that used the
// translation of an OK ATSResult has finished.
type ATSRelease struct{ Entry uint16 }

// TransReq is an ATS Translation Request for the 4 KiB page at Addr
// (untranslated, aligned), sent by the ATC under ID.
type TransReq struct {
	ID   uint16
	Addr uint64
}

// TransResp is the Translation Completion of request ID. OK: the range of
// Size bytes holding the page asked for maps to the range at Translated,
// with read (R) and write (W) permission; a completion with neither, or
// not OK (UR, CA), gives no translation.
type TransResp struct {
	ID         uint16
	OK         bool
	Translated uint64
	Size       uint64
	R, W       bool
}

// ATSInval is an ATS Invalidate Request: the host no longer maps the
// untranslated range [Addr, Addr+Size) as before, and asks under ITag for
// an Invalidate Completion once the device uses no translation of it.
type ATSInval struct {
	ITag uint8
	Addr uint64
	Size uint64
}

// ATSInvalDone is the Invalidate Completion of request ITag.
type ATSInvalDone struct{ ITag uint8 }

var (
	atsLookupFields  = []sim.Field{{Name: "tag", Width: 16}, {Name: "addr", Width: 64, Format: sim.Hex}, {Name: "len", Width: 32}, {Name: "write", Width: 1}}
	atsResultFields  = []sim.Field{{Name: "tag", Width: 16}, {Name: "addr", Width: 64, Format: sim.Hex}, {Name: "len", Width: 32}, {Name: "ok", Width: 1}, {Name: "entry", Width: 16}}
	atsReleaseFields = []sim.Field{{Name: "entry", Width: 16}}
	transReqFields   = []sim.Field{{Name: "id", Width: 16}, {Name: "addr", Width: 64, Format: sim.Hex}}
	transRespFields  = []sim.Field{{Name: "id", Width: 16}, {Name: "ok", Width: 1}, {Name: "translated", Width: 64, Format: sim.Hex},
		{Name: "size", Width: 64, Format: sim.Hex}, {Name: "r", Width: 1}, {Name: "w", Width: 1}}
	atsInvalFields     = []sim.Field{{Name: "itag", Width: 5}, {Name: "addr", Width: 64, Format: sim.Hex}, {Name: "size", Width: 64, Format: sim.Hex}}
	atsInvalDoneFields = []sim.Field{{Name: "itag", Width: 5}}
)

// Fields lists a lookup's fields (sim.Fielded).
func (l *ATSLookup) Fields() []sim.Field { return atsLookupFields }

// FieldValues writes a lookup's fields in the order of Fields.
func (l *ATSLookup) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3] = uint64(l.Tag), l.Addr, uint64(l.Len), sim.B(l.Write)
}

// Fields lists a result's fields (sim.Fielded).
func (r *ATSResult) Fields() []sim.Field { return atsResultFields }

// FieldValues writes a result's fields in the order of Fields.
func (r *ATSResult) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(r.Tag), r.Addr, uint64(r.Len), sim.B(r.OK), uint64(r.Entry)
}

// Fields lists a release's fields (sim.Fielded).
func (r *ATSRelease) Fields() []sim.Field { return atsReleaseFields }

// FieldValues writes a release's fields in the order of Fields.
func (r *ATSRelease) FieldValues(vs []uint64) { vs[0] = uint64(r.Entry) }

// Fields lists a translation request's fields (sim.Fielded).
func (r *TransReq) Fields() []sim.Field { return transReqFields }

// FieldValues writes a translation request's fields in the order of Fields.
func (r *TransReq) FieldValues(vs []uint64) { vs[0], vs[1] = uint64(r.ID), r.Addr }

// Fields lists a translation completion's fields (sim.Fielded).
func (r *TransResp) Fields() []sim.Field { return transRespFields }

// FieldValues writes a translation completion's fields in the order of
// Fields.
func (r *TransResp) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3], vs[4], vs[5] = uint64(r.ID), sim.B(r.OK), r.Translated, r.Size, sim.B(r.R), sim.B(r.W)
}

// Fields lists an invalidate request's fields (sim.Fielded).
func (r *ATSInval) Fields() []sim.Field { return atsInvalFields }

// FieldValues writes an invalidate request's fields in the order of Fields.
func (r *ATSInval) FieldValues(vs []uint64) { vs[0], vs[1], vs[2] = uint64(r.ITag), r.Addr, r.Size }

// Fields lists an invalidate completion's fields (sim.Fielded).
func (r *ATSInvalDone) Fields() []sim.Field { return atsInvalDoneFields }

// FieldValues writes an invalidate completion's fields in the order of
// Fields.
func (r *ATSInvalDone) FieldValues(vs []uint64) { vs[0] = uint64(r.ITag) }
