package iommu

import (
	"math/bits"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// HostPort is the host's ATS endpoint, between the root complex's side
// of the link and the translation agent (Agent): it takes the device's
// Translation Requests (MRd TLPs with AT 01b, from the gate) to the
// agent's TransReq under their tag, answers each with the Translation
// Completion the agent gives (one CplD of one entry: the leaf's range,
// by the S bit, and its R and W; a page the IOMMU does not map gets the
// completion of the 4 KiB page with R and W clear, as 10.2.3 gives it),
// sends the agent's Invalidate Requests down as MsgD TLPs, and takes the
// device's Invalidate Completions (Msg TLPs) to the agent's ATSDone. An
// unmap's range, which need not be a power of two or aligned, is
// invalidated as the smallest aligned power of two of at least 4 KiB
// that holds it (an ATS range: invalidating more than was unmapped only
// costs the device a refetch).
//
// One cycle: a TLP taken from the device, one answer and one Invalidate
// Request from the agent, and one TLP sent down (a completion before an
// Invalidate Request). Registers: the Translation Requests in flight (by
// tag) and the TLPs waiting to go down, written in place during Eval.
type HostPort struct {
	sim.Base
	name     string
	rid, cid uint16 // the device's requester ID, the root complex's ID
	p        HostPortPorts
	reqs     map[uint16]pcie.TLP
	downQ    []pcie.TLP
}

// HostPortPorts are the host endpoint's channels: TLPs from the device
// (Up, the gate's ATS output) and to it (Down, into the root complex's
// side input), and the agent's.
type HostPortPorts struct {
	Up, Down *sim.Chan[pcie.TLP]
	TransReq *sim.Chan[bus.TransReq]
	TransRsp *sim.Chan[bus.TransResp]
	ATSInval *sim.Chan[bus.ATSInval]
	ATSDone  *sim.Chan[bus.ATSInvalDone]
}

// NewHostPort makes the endpoint of the root complex cid for the device
// rid.
func NewHostPort(name string, rid, cid uint16, p HostPortPorts) *HostPort {
	return &HostPort{name: name, rid: rid, cid: cid, p: p, reqs: map[uint16]pcie.TLP{}}
}

// Name is the component's name.
func (h *HostPort) Name() string { return h.name }

// Connections lists the channels the endpoint pops and pushes
// (sim.Connected).
func (h *HostPort) Connections() (in, out []sim.Port) {
	p := &h.p
	return []sim.Port{p.Up, p.TransRsp, p.ATSInval}, []sim.Port{p.Down, p.TransReq, p.ATSDone}
}

// Eval runs one cycle.
func (h *HostPort) Eval(now uint64) bool {
	moves := h.Handshakes()
	p := &h.p
	if p.Up.Valid() {
		t := p.Up.Peek()
		switch {
		case t.Type == pcie.MRd && t.AT == pcie.ATTranslationRequest:
			if p.TransReq.Ready() {
				h.reqs[t.Tag] = *t
				a, _ := t.TranslationRequestAddr()
				p.TransReq.Push(bus.TransReq{ID: t.Tag, Addr: a.Addr})
				p.Up.Pop()
			}
		case t.Type == pcie.Msg:
			if p.ATSDone.Ready() {
				if c, err := t.InvalidateCompletion(); err == nil && c.ITagVector != 0 {
					p.ATSDone.Push(bus.ATSInvalDone{ITag: uint8(bits.TrailingZeros32(c.ITagVector))})
				}
				p.Up.Pop()
			}
		default: // nothing else comes this way
			p.Up.Pop()
		}
	}
	if p.TransRsp.Valid() {
		r := p.TransRsp.Peek()
		if req, ok := h.reqs[r.ID]; ok {
			delete(h.reqs, r.ID)
			var e prm.ATSCompletionEntry
			if r.OK {
				e.R, e.W = r.R, r.W
				e.SetRange(prm.ATSRange{Base: r.Translated &^ (r.Size - 1), Log2: uint8(bits.TrailingZeros64(r.Size))})
			} else {
				e.SetRange(prm.ATSRange{Base: 0, Log2: prm.ATSPageShift}) // R and W clear: no translation
			}
			h.downQ = append(h.downQ, pcie.NewTranslationCompletion(req, h.cid, []prm.ATSCompletionEntry{e}))
		}
		p.TransRsp.Pop()
	}
	if p.ATSInval.Valid() {
		r := p.ATSInval.Peek()
		var body prm.ATSInvalidateBody
		body.SetRange(atsRange(r.Addr, r.Size))
		h.downQ = append(h.downQ, pcie.NewInvalidateRequest(
			prm.ATSInvalidateRequestHeader{RequesterID: h.cid, ITag: r.ITag, DeviceID: h.rid}, body))
		p.ATSInval.Pop()
	}
	if len(h.downQ) > 0 && p.Down.Ready() {
		p.Down.Push(h.downQ[0])
		h.downQ = h.downQ[1:]
	}
	return len(h.downQ) > 0 || h.Handshakes() != moves
}

// atsRange is the smallest aligned power of two of at least 4 KiB that
// holds [addr, addr+size).
func atsRange(addr, size uint64) prm.ATSRange {
	end := addr + max(size, 1) - 1
	log := uint8(prm.ATSPageShift)
	for log < 63 && addr>>log != end>>log {
		log++
	}
	return prm.ATSRange{Base: addr &^ (1<<log - 1), Log2: log}
}
