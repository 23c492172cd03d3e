package iommu

import (
	"mkeysim/pagetable"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
)

// Unmap tells the agent that the driver changed the tables of
// [IOVA, IOVA+Size) in Space (an IOMMU_UNMAP): the IOMMU must forget
// them, then the device's ATC; UnmapDone answers when both have.
type Unmap struct {
	Space      pagetable.Space
	IOVA, Size uint64
}

// UnmapDone completes an Unmap.
type UnmapDone struct{}

// AgentPorts are the translation agent's channels: the device's ATS
// Translation Requests and Completions and its Invalidate Requests and
// Completions; the IOMMU's requests, answers and invalidations; and the
// driver's unmaps.
type AgentPorts struct {
	TransReq *sim.Chan[bus.TransReq]
	TransRsp *sim.Chan[bus.TransResp]
	ATSInval *sim.Chan[bus.ATSInval]
	ATSDone  *sim.Chan[bus.ATSInvalDone]

	Req     *sim.Chan[Request]
	Resp    *sim.Chan[Response]
	Inval   *sim.Chan[Inval]
	InvalOK *sim.Chan[InvalDone]

	Unmap     *sim.Chan[Unmap]
	UnmapDone *sim.Chan[UnmapDone]
}

// Agent is the host's ATS translation agent: it answers the device's
// Translation Requests through the IOMMU (a Translation Completion of the
// leaf that maps the page, or UR), and carries out the driver's unmaps in
// the order the PCIe rules give: the IOMMU's invalidation first, then an
// ATS Invalidate Request to the device, whose completion ends the unmap.
// One unmap is in flight at a time. Host side, like the IOMMU.
type Agent struct {
	sim.Base
	name  string
	p     AgentPorts
	space pagetable.Space // the device's requester ID
	ids   map[uint32]uint16
	next  uint32
	rspQ  []bus.TransResp
	// phase is where the unmap in flight is (cur).
	phase unmapPhase
	cur   Unmap
	itag  uint8
}

// unmapPhase is a step of the unmap in flight.
type unmapPhase uint8

const (
	noUnmap     unmapPhase = iota // none in flight
	iommuInval                    // waiting for the IOMMU's InvalDone
	sendATS                       // to send the ATS Invalidate Request
	deviceInval                   // waiting for the device's Invalidate Completion
	unmapDone                     // to send UnmapDone
)

// NewAgent returns the agent of the device whose requester ID is rid.
func NewAgent(name string, rid uint16, p AgentPorts) *Agent {
	return &Agent{name: name, p: p, space: pagetable.Space{ID: uint32(rid)}, ids: map[uint32]uint16{}}
}

// Name is the component's name.
func (a *Agent) Name() string { return a.name }

// Connections lists the channels the agent pops and pushes (sim.Connected).
func (a *Agent) Connections() (in, out []sim.Port) {
	p := &a.p
	return []sim.Port{p.TransReq, p.Resp, p.InvalOK, p.ATSDone, p.Unmap},
		[]sim.Port{p.TransRsp, p.Req, p.Inval, p.ATSInval, p.UnmapDone}
}

// Eval forwards one Translation Request and one answer, and moves the
// unmap in flight one step.
func (a *Agent) Eval(now uint64) bool {
	moves := a.Handshakes()
	p := &a.p
	if p.TransReq.Valid() && p.Req.Ready() {
		q := p.TransReq.Peek()
		a.ids[a.next] = q.ID
		// A Translation Request asks for reads and writes (no NW): the
		// completion grants what the leaf does.
		p.Req.Push(Request{ID: a.next, Space: a.space, IOVA: q.Addr})
		a.next++
		p.TransReq.Pop()
	}
	if p.Resp.Valid() {
		r := p.Resp.Peek()
		if id, ok := a.ids[r.ID]; ok {
			delete(a.ids, r.ID)
			c := bus.TransResp{ID: id}
			if r.R || r.W {
				c.OK, c.Translated, c.Size, c.R, c.W = true, r.PA&^(r.Size-1), r.Size, r.R, r.W
			}
			a.rspQ = append(a.rspQ, c)
		}
		p.Resp.Pop()
	}
	if len(a.rspQ) > 0 && p.TransRsp.Ready() {
		p.TransRsp.Push(a.rspQ[0])
		a.rspQ = a.rspQ[1:]
	}
	switch a.phase {
	case noUnmap:
		if p.Unmap.Valid() && p.Inval.Ready() {
			a.cur = *p.Unmap.Peek()
			p.Unmap.Pop()
			p.Inval.Push(Inval(a.cur))
			a.phase = iommuInval
		}
	case iommuInval:
		if p.InvalOK.Valid() {
			p.InvalOK.Pop()
			a.phase = sendATS
		}
	case sendATS:
		if a.cur.Space != a.space {
			a.phase = unmapDone // not the device's space: nothing of it is in its ATC
		} else if p.ATSInval.Ready() {
			p.ATSInval.Push(bus.ATSInval{ITag: a.itag, Addr: a.cur.IOVA, Size: a.cur.Size})
			a.itag = (a.itag + 1) % 32
			a.phase = deviceInval
		}
	case deviceInval:
		if p.ATSDone.Valid() {
			p.ATSDone.Pop()
			a.phase = unmapDone
		}
	}
	if a.phase == unmapDone && p.UnmapDone.Ready() {
		p.UnmapDone.Push(UnmapDone{})
		a.phase = noUnmap
	}
	return len(a.rspQ) > 0 || a.phase == sendATS || a.phase == unmapDone || a.Handshakes() != moves
}
