package iommu

import "mkeysim/rtl/sim"

// Mux shares the IOMMU's one request port between the gate (the
// device's untranslated TLPs) and the translation agent (its ATS
// Translation Requests): it takes one request a cycle, the two turn
// about when both wait, marks the agent's by the top bit of the ID, and
// routes each answer back by that bit. The agent numbers its requests
// below 2^31 in flight (it counts them: they would wrap only after 2^31
// Translation Requests, which no run makes).
//
//	gate  Req ──\                    /──> gate  Resp
//	             [ mux ] ──> IOMMU ──
//	agent Req ──/                    \──> agent Resp
type Mux struct {
	sim.Base
	name              string
	gateReq, agentReq *sim.Chan[Request]
	gateRsp, agentRsp *sim.Chan[Response]
	req               *sim.Chan[Request]
	rsp               *sim.Chan[Response]
	agentFirst        bool
}

// MuxPorts are the mux's channels: each side's requests and answers,
// and the IOMMU's.
type MuxPorts struct {
	GateReq, AgentReq   *sim.Chan[Request]
	GateResp, AgentResp *sim.Chan[Response]
	Req                 *sim.Chan[Request]
	Resp                *sim.Chan[Response]
}

// agentBit marks the agent's requests.
const agentBit = 1 << 31

// NewMux makes the mux of p.
func NewMux(name string, p MuxPorts) *Mux {
	return &Mux{name: name, gateReq: p.GateReq, agentReq: p.AgentReq, gateRsp: p.GateResp, agentRsp: p.AgentResp, req: p.Req, rsp: p.Resp}
}

// Name is the component's name.
func (m *Mux) Name() string { return m.name }

// Connections lists the channels the mux pops and pushes (sim.Connected).
func (m *Mux) Connections() (in, out []sim.Port) {
	return []sim.Port{m.gateReq, m.agentReq, m.rsp}, []sim.Port{m.req, m.gateRsp, m.agentRsp}
}

// Eval passes one request and one answer.
func (m *Mux) Eval(now uint64) bool {
	moves := m.Handshakes()
	if m.req.Ready() {
		g, a := m.gateReq.Valid(), m.agentReq.Valid()
		switch {
		case a && (m.agentFirst || !g):
			r := *m.agentReq.Peek()
			r.ID |= agentBit
			m.req.Push(r)
			m.agentReq.Pop()
			m.agentFirst = false
		case g:
			m.req.Push(*m.gateReq.Peek())
			m.gateReq.Pop()
			m.agentFirst = true
		}
	}
	if m.rsp.Valid() {
		r := *m.rsp.Peek()
		to := m.gateRsp
		if r.ID&agentBit != 0 {
			to, r.ID = m.agentRsp, r.ID&^agentBit
		}
		if to.Ready() {
			to.Push(r)
			m.rsp.Pop()
		}
	}
	return m.Handshakes() != moves
}
