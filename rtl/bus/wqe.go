package bus

import (
	"mkeysim/prm"
	"mkeysim/rtl/sim"
)

// WQE is a send-queue work request the SQ front fetched from host memory
// and parsed (rtl/sq), for the top to turn into a translation request or
// a command. Exactly one of Send and UMR applies, by Ctrl.Opcode.
type WQE struct {
	// SQ is the QP whose send queue the WQE was read from.
	SQ   uint32
	Ctrl prm.CtrlSeg
	// Send holds a SEND, RDMA READ or WRITE, or atomic's segments.
	Send prm.SendWQE
	// UMR holds a UMR's (and local invalidate's) segments; its List is
	// the translation list, read inline or through the UMR pointer.
	UMR prm.UMRWQE
	// Bad, when not empty, says why the WQE could not be fetched or
	// parsed: the top fails its operation with it.
	Bad string
}

// Fields: the control segment's opcode, QPN, WQE index and immediate
// (sim.Fielded).
func (*WQE) Fields() []sim.Field {
	return []sim.Field{{Name: "opcode", Width: 8, Format: sim.Hex}, {Name: "qpn", Width: 24, Format: sim.Hex},
		{Name: "wqe_index", Width: 16}, {Name: "imm", Width: 32, Format: sim.Hex}}
}

// FieldValues writes the fields of w (sim.Fielded).
func (w *WQE) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3] = uint64(w.Ctrl.Opcode), uint64(w.Ctrl.QPN), uint64(w.Ctrl.WQEIndex), uint64(w.Ctrl.Imm)
}

// Completion is the end of a work request the send-queue front fetched:
// the top sends it when the operation's result leaves, for the front to
// write the CQE to the host.
type Completion struct {
	QPN      uint32
	WQEIndex uint16
	Opcode   prm.Opcode
	Status   prm.Status
	Bytes    uint32 // the access's length (byte_cnt of the CQE)
	// Recv marks a receive completion: a SEND with invalidate from the
	// wire, whose CQE names the key it invalidated (Key).
	Recv bool
	Key  prm.Key
}

// Fields: the QP, WQE index, opcode and status (sim.Fielded).
func (*Completion) Fields() []sim.Field {
	return []sim.Field{{Name: "qpn", Width: 24, Format: sim.Hex}, {Name: "wqe_index", Width: 16},
		{Name: "opcode", Width: 8, Format: sim.Hex}, {Name: "status", Width: 5, Enum: StatusEnum}}
}

// FieldValues writes the fields of c (sim.Fielded).
func (c *Completion) FieldValues(vs []uint64) {
	vs[0], vs[1], vs[2], vs[3] = uint64(c.QPN), uint64(c.WQEIndex), uint64(c.Opcode), uint64(c.Status)
}
