package rtl

import (
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// atsPort is the device's ATS endpoint between the ATC and the PCIe
// requester (issue 36): it turns the ATC's Translation Requests into
// requests of a requester client on traffic class 0 (a read of 8 bytes,
// AT 01b: the Translation Request of one translation, whose Translation
// Completion comes back as the read's data, prm.ATSCompletionEntry), and
// its answers into Translation Completions (bus.TransResp); it takes the
// host's Invalidate Requests (MsgD TLPs off Rx) to the ATC's Inval and
// sends the ATC's Invalidate Completions up as Msg TLPs. One of each a
// cycle; it holds no registers but the translation agent's ID, taken
// from the Invalidate Requests (the Device ID of their completions).
type atsPort struct {
	sim.Base
	rid uint16 // the device's requester ID
	ta  uint16 // the translation agent's ID, from its Invalidate Requests

	transReq *sim.Chan[bus.TransReq]
	transRsp *sim.Chan[bus.TransResp]
	inval    *sim.Chan[bus.ATSInval]
	invalOK  *sim.Chan[bus.ATSInvalDone]
	memReq   *sim.Chan[pcie.ReadReq]
	memResp  *sim.Chan[pcie.ReadResp]
	msgIn    *sim.Chan[pcie.TLP] // Invalidate Requests from the requester
	msgOut   *sim.Chan[pcie.TLP] // Invalidate Completions to it
}

func (p *atsPort) Name() string { return "atc.port" }

// Connections lists the channels the port pops and pushes (sim.Connected).
func (p *atsPort) Connections() (in, out []sim.Port) {
	return []sim.Port{p.transReq, p.memResp, p.msgIn, p.invalOK}, []sim.Port{p.memReq, p.transRsp, p.inval, p.msgOut}
}

// transReqBytes is what a Translation Request of one translation asks
// for: one completion data entry.
const transReqBytes = prm.ATSCompletionEntrySize

// Eval forwards one of each: a Translation Request, a completion, an
// Invalidate Request, an Invalidate Completion.
func (p *atsPort) Eval(now uint64) bool {
	moves := p.Handshakes()
	if p.transReq.Valid() && p.memReq.Ready() {
		q := p.transReq.Peek()
		p.memReq.Push(pcie.ReadReq{ID: uint32(q.ID), Addr: q.Addr &^ (prm.ATSPageSize - 1), Len: transReqBytes, AT: pcie.ATTranslationRequest})
		p.transReq.Pop()
	}
	if p.memResp.Valid() && p.transRsp.Ready() {
		r := p.memResp.Peek()
		c := bus.TransResp{ID: uint16(r.ID)}
		if r.Status == pcie.SC && len(r.Data) == transReqBytes {
			// A malformed entry gives no translation, as UR does.
			if e, err := prm.ParseATSCompletionEntry(r.Data); err == nil {
				if rg, ok := e.Range(); ok {
					c.OK, c.Translated, c.Size, c.R, c.W = !e.U, rg.Base, 1<<rg.Log2, e.R, e.W
				}
			}
		}
		p.transRsp.Push(c)
		p.memResp.Pop()
	}
	if p.msgIn.Valid() && p.inval.Ready() {
		t := p.msgIn.Peek()
		// The model's host sends no other message; one that is not a
		// well-formed Invalidate Request is dropped.
		if h, body, err := t.InvalidateRequest(); err == nil && h.DeviceID == p.rid {
			if rg, ok := body.Range(); ok {
				p.ta = h.RequesterID
				p.inval.Push(bus.ATSInval{ITag: h.ITag, Addr: rg.Base, Size: 1 << rg.Log2})
			}
		}
		p.msgIn.Pop()
	}
	if p.invalOK.Valid() && p.msgOut.Ready() {
		d := p.invalOK.Peek()
		p.msgOut.Push(pcie.NewInvalidateCompletion(prm.ATSInvalidateCompletionHeader{RequesterID: p.rid, DeviceID: p.ta, CC: 1, ITagVector: 1 << d.ITag}))
		p.invalOK.Pop()
	}
	return p.Handshakes() != moves
}
