package rtl

import (
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// This file is how the top's ports show in a waveform (sim.Fielded) and
// the top's own signals (sim.Described).

// Result is a result leaving the model on Top.Out. The top reuses the
// memory it points to once the result has left Out: a consumer that keeps
// it copies it (scenario.Result.Clone).
type Result struct{ *scenario.Result }

// OpEnum names the operation kinds the clocked model takes (a translate
// filter): all but iommu_unmap, which it does not take yet (issue 36: it
// refuses a scenario with an iommu section); with query_pages and
// manage_pages (issue 37) they take 4 bits.
var OpEnum = func() *sim.Enum {
	m := map[uint64]string{}
	for k := scenario.OpKind(0); k.String() != "op?"; k++ {
		if k != scenario.OpIOMMUUnmap {
			m[uint64(k)] = k.String()
		}
	}
	return &sim.Enum{Name: "op", Width: 4, Names: m}
}()

// CmdStateEnum names the command path's states in waveforms.
var CmdStateEnum = &sim.Enum{Name: "cmd_state", Width: 3, Names: CmdStateNames()}

var opFields = []sim.Field{
	{Name: "seq", Width: 32}, {Name: "op", Enum: OpEnum}, {Name: "qpn", Width: 24, Format: sim.Hex},
	{Name: "key", Width: 32, Format: sim.Hex}, {Name: "addr", Width: 64, Format: sim.Hex},
	{Name: "len", Width: 32}, {Name: "type", Enum: bus.AccessTypeEnum},
}

// Fields lists an operation's fields (sim.Fielded).
func (o *Op) Fields() []sim.Field { return opFields }

// FieldValues writes the operation's fields: the QPN, key, address,
// length and type of an access, the QPN and key of a UMR or an
// invalidation, the key of a resume, 0 for what an operation lacks.
func (o *Op) FieldValues(vs []uint64) {
	op := o.Op
	var qpn uint32
	var key prm.Key
	var addr, n uint64
	var typ prm.AccessType
	switch op.Kind {
	case scenario.OpAccess:
		a := &op.Access
		qpn, key, addr, n, typ = a.QPN, a.Key, a.Addr, uint64(a.Len), a.Type
	case scenario.OpUMR:
		qpn, key = op.UMR.QPN, op.UMR.Key
	case scenario.OpLocalInvalidate, scenario.OpSendWithInvalidate:
		qpn, key = op.QPN, op.Key
	case scenario.OpPageFaultResume:
		key = op.Key
	}
	vs[0], vs[1], vs[2], vs[3] = uint64(o.Seq), uint64(op.Kind), uint64(qpn), uint64(key)
	vs[4], vs[5], vs[6] = addr, n, uint64(typ)
}

var resultFields = []sim.Field{
	{Name: "seq", Width: 32}, {Name: "op", Enum: OpEnum}, {Name: "status", Enum: bus.StatusEnum},
	{Name: "level", Width: 8}, {Name: "offset", Width: 32}, {Name: "segs", Width: 8},
	{Name: "seg_addr", Width: 64, Format: sim.Hex},
}

// Fields lists a result's fields (sim.Fielded): segs is the number of
// segments (at most 255 shown), seg_addr the first one's address.
func (r *Result) Fields() []sim.Field { return resultFields }

// FieldValues writes the result's fields.
func (r *Result) FieldValues(vs []uint64) {
	x := r.Result
	var a uint64
	if len(x.Segments) > 0 {
		a = x.Segments[0].Addr
	}
	vs[0], vs[1], vs[2], vs[3] = uint64(x.Seq), uint64(x.Op), uint64(x.Status), uint64(x.Level)
	vs[4], vs[5], vs[6] = x.Offset, uint64(min(len(x.Segments), 255)), a
}

// Describe lists what the top shows in its waveform scope, core: the
// command path's state, the requests in the reorder buffer, and those of
// them that entered past the UMR or local invalidate in progress
// (overtakers, fence.go: non-zero marks an overtaking; they saw the old
// mapping) (sim.Described).
func (t *Top) Describe() sim.Description {
	w := sim.WidthFor(t.cfg.ROBEntries)
	d := sim.Description{Scope: "core", Title: "ROB, command path, results out",
		Signals: []sim.Signal{{Name: "cmd_state", Enum: CmdStateEnum}, {Name: "rob_count", Width: w}, {Name: "overtakers", Width: w}},
		Sample: func(vs []uint64) {
			vs[0], vs[1], vs[2] = uint64(t.cmd.state), uint64(t.rob.count), uint64(t.cmd.overtakers)
		}}
	if t.eq != nil {
		// The pages event queue's producer index (entries written) and
		// the writes waiting for the requester (eq.go).
		d.Signals = append(d.Signals, sim.Signal{Name: "eq_pi", Width: 32}, sim.Signal{Name: "eq_writes", Width: 2})
		sample := d.Sample
		d.Sample = func(vs []uint64) {
			sample(vs)
			vs[3], vs[4] = uint64(t.eq.pi), uint64(len(t.eq.out))
		}
	}
	return d
}
