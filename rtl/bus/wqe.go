package bus

import (
	"mkeysim/prm"
	"mkeysim/rtl/sim"
)

// WQE is a send-queue work request the SQ front fetched from host memory
// and parsed (rtl/sq), for the top to turn into a translation request or
// a command. Exactly one of Send and UMR applies, by Ctrl.Opcode.
type WQE struct {
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
