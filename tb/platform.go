package tb

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"mkeysim/pagetable"
	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/iommu"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// This file is the platform around the clocked model (issue 36): the host
// IOMMU between the up link and the root complex (rtl/iommu's gate and
// unit), its I/O page tables in host memory, the driver that runs a
// scenario's iommu_unmap, and the monitor that gives each access result
// the physical addresses its TLPs went to, or the IOMMU's fault.
//
// An access's TLPs reach the IOMMU after its result has left the model
// (a posted write is on its way when the data path retires it): the sink
// holds each result until the gate has passed every TLP the device had
// sent when the result left it (the fence), then completes it from what
// the gate saw of its TLPs (their sim.Origin names the access and byte).

// platform is the host side's IOMMU and what the bench keeps of it.
type platform struct {
	cfg    iommu.Config
	rid    uint16 // the HCA's requester ID (pcie.requester_id)
	tables *pagetable.Tables
	unit   *iommu.Unit
	gate   *iommu.Gate
	drv    *driver
	// ats: the device uses ATS (rtl.Config.ATSActive): the host has the
	// translation agent, its endpoint on the link, and the mux that
	// shares the IOMMU between the gate and the agent; the driver unmaps
	// through the agent.
	ats   bool
	agent *iommu.Agent
	port  *iommu.HostPort
	down  *sim.Chan[pcie.TLP] // the agent's TLPs to the device
	cid   uint16
	// obs holds, per operation, what the gate saw of its data TLPs until
	// its result leaves the sink.
	obs map[int][]iommu.Observation
	// loaded: the scenario's mappings are in the tables (Bench.Load).
	loaded bool
	// The ICM's host pages the driver mapped one by one (iommu.translate_icm;
	// nil without): all of them in the scattered order, else the pages
	// given by list (outside the ICM regions mapped whole); bindErr is the
	// first mapping that failed (Bench.StreamFeed reports it).
	icmMapped map[uint64]bool
	scattered bool
	regions   []rtl.Region
	bindErr   error
}

// bindICM is the firmware's OnICMBind: each host page newly backing ICM
// is mapped one to one with a 4 KiB leaf unless the ICM regions' mapping
// already holds it, as a driver maps each page before it gives it
// (MANAGE_PAGES). A list's capacity of many pages in the scattered order
// may exhaust the I/O page tables' room: the run then fails, naming it.
func (p *platform) bindICM(top *rtl.Top) func(prm.PageRange) {
	return func(r prm.PageRange) {
		for k := r.Lo; k < r.Hi && p.bindErr == nil; k++ {
			h, ok := top.ICMHostPage(k)
			if !ok || p.icmMapped[h] || !p.scattered && p.inRegions(h) {
				continue
			}
			if err := p.tables.Map(pagetable.ICM, h, h, pagetable.PageBytes, true, false); err != nil {
				p.bindErr = fmt.Errorf("iommu.translate_icm: mapping the ICM's host page %#x: %v", h, err)
				return
			}
			p.icmMapped[h] = true
		}
	}
}

// inRegions reports whether host address h lies in an ICM region the
// tables map whole.
func (p *platform) inRegions(h uint64) bool {
	for _, r := range p.regions {
		if h >= r.Start && h-r.Start < r.Size {
			return true
		}
	}
	return false
}

// newPlatform makes the IOMMU of cfg over mem, with the ICM mapped one
// to one in its ICM space when cfg.IOMMU.TranslateICM; translate is the
// stage pcie.NewHost puts between the up link and the root complex.
func newPlatform(cfg rtl.Config, mem *pcie.Memory) (*platform, error) {
	p := &platform{cfg: cfg.IOMMU, rid: cfg.PCIe.RequesterID, obs: map[int][]iommu.Observation{}, ats: cfg.ATSActive(), cid: cfg.PCIe.CompleterID}
	p.tables = pagetable.New(mem, scenario.IOMMUTableBase, scenario.IOMMUTableSize)
	if cfg.IOMMU.TranslateICM && cfg.Host.ICMPageOrder == rtl.OrderScattered {
		// Scattered: the driver maps each page it gives on its own, a
		// 4 KiB leaf (bindICM), and the page an ICM page not backed reads.
		p.scattered, p.icmMapped = true, map[uint64]bool{rtl.ICMZeroPage: true}
		if err := p.tables.Map(pagetable.ICM, rtl.ICMZeroPage, rtl.ICMZeroPage, pagetable.PageBytes, true, false); err != nil {
			return nil, fmt.Errorf("iommu.translate_icm: mapping the zero page: %v", err)
		}
	} else if cfg.IOMMU.TranslateICM {
		p.icmMapped = map[uint64]bool{}
		for _, r := range cfg.ICMRegions() {
			lo := r.Start &^ (pagetable.PageBytes - 1)
			hi := min(r.Start+r.Size, 1<<pagetable.IOVABits)
			if err := p.tables.Map(pagetable.ICM, lo, lo, hi-lo, true, true); err != nil {
				return nil, fmt.Errorf("iommu.translate_icm: mapping the %s one to one: %v", r.Name, err)
			}
			p.regions = append(p.regions, rtl.Region{Name: r.Name, Start: lo, Size: hi - lo})
		}
	}
	if cfg.IOMMU.TranslateICM && cfg.Host.PagePolicy != rtl.PolicyEager {
		// The pages event queue, which the device writes (eq.go).
		if err := p.tables.Map(pagetable.ICM, prm.PagesEQ, prm.PagesEQ, pagetable.PageBytes, false, true); err != nil {
			return nil, fmt.Errorf("iommu.translate_icm: mapping the pages event queue: %v", err)
		}
	}
	return p, nil
}

// translate builds the IOMMU and its gate on the device's TLPs out of
// the up link (pcie.HostOptions.Translate).
func (p *platform) translate(e *sim.Engine, rx *sim.Chan[pcie.TLP], mem *pcie.Memory) (*sim.Chan[pcie.TLP], []sim.Component) {
	out := sim.NewChan[pcie.TLP](e, "iommu.gate_out", 2, 1)
	req := sim.NewChan[iommu.Request](e, "iommu.req", 2, 1)
	resp := sim.NewChan[iommu.Response](e, "iommu.resp", iommu.GateWindow, 1)
	inval := sim.NewChan[iommu.Inval](e, "iommu.inval", 1, 1)
	invalOK := sim.NewChan[iommu.InvalDone](e, "iommu.inval_ok", 1, 1)
	p.unit = iommu.New("iommu", p.cfg, p.tables, mem, iommu.Ports{In: req, Out: resp, Inval: inval, InvalOK: invalOK})
	if !p.ats {
		p.gate = iommu.NewGate("iommu.gate", p.cfg, iommu.GatePorts{In: rx, Out: out, Req: req, Resp: resp})
		p.gate.Observe = p.observe
		p.drv = &driver{p: p, inval: inval, invalOK: invalOK,
			in: sim.NewChan[unmapOp](e, "host.driver_in", 1, 1), done: sim.NewChan[scenario.Result](e, "host.driver_done", 1, 1)}
		return out, []sim.Component{p.gate, p.unit, p.drv}
	}
	// ATS: the gate and the translation agent share the IOMMU through a
	// mux; the agent owns its invalidations (an unmap: the IOMMU's, then
	// the device's ATC's); the gate hands the device's ATS TLPs to the
	// host's endpoint, whose TLPs to the device the root complex sends
	// down (Side).
	gReq := sim.NewChan[iommu.Request](e, "iommu.gate_req", 2, 1)
	gResp := sim.NewChan[iommu.Response](e, "iommu.gate_resp", iommu.GateWindow, 1)
	aReq := sim.NewChan[iommu.Request](e, "iommu.agent_req", 2, 1)
	aResp := sim.NewChan[iommu.Response](e, "iommu.agent_resp", 4, 1)
	up := sim.NewChan[pcie.TLP](e, "iommu.ats_up", 2, 1)
	p.down = sim.NewChan[pcie.TLP](e, "iommu.ats_down", 2, 1)
	ap := iommu.AgentPorts{
		TransReq: sim.NewChan[bus.TransReq](e, "iommu.trans_req", 2, 1), TransRsp: sim.NewChan[bus.TransResp](e, "iommu.trans_rsp", 2, 1),
		ATSInval: sim.NewChan[bus.ATSInval](e, "iommu.ats_inval", 1, 1), ATSDone: sim.NewChan[bus.ATSInvalDone](e, "iommu.ats_done", 1, 1),
		Req: aReq, Resp: aResp, Inval: inval, InvalOK: invalOK,
		Unmap: sim.NewChan[iommu.Unmap](e, "iommu.unmap", 1, 1), UnmapDone: sim.NewChan[iommu.UnmapDone](e, "iommu.unmap_done", 1, 1),
	}
	mux := iommu.NewMux("iommu.mux", iommu.MuxPorts{GateReq: gReq, AgentReq: aReq, GateResp: gResp, AgentResp: aResp, Req: req, Resp: resp})
	p.gate = iommu.NewGate("iommu.gate", p.cfg, iommu.GatePorts{In: rx, Out: out, Req: gReq, Resp: gResp})
	p.gate.SetATS(up)
	p.gate.Observe = p.observe
	p.agent = iommu.NewAgent("iommu.agent", p.rid, ap)
	p.port = iommu.NewHostPort("iommu.ats_port", p.rid, p.cid, iommu.HostPortPorts{Up: up, Down: p.down,
		TransReq: ap.TransReq, TransRsp: ap.TransRsp, ATSInval: ap.ATSInval, ATSDone: ap.ATSDone})
	p.drv = &driver{p: p, unmap: ap.Unmap, unmapDone: ap.UnmapDone,
		in: sim.NewChan[unmapOp](e, "host.driver_in", 1, 1), done: sim.NewChan[scenario.Result](e, "host.driver_done", 1, 1)}
	return out, []sim.Component{p.gate, mux, p.unit, p.agent, p.port, p.drv}
}

// observe keeps what the gate saw of a data TLP, under its access.
func (p *platform) observe(o iommu.Observation) {
	p.obs[o.Origin.Seq] = append(p.obs[o.Origin.Seq], o)
}

// load maps the scenario's iommu section in the tables; the bench must
// have been built with the IOMMU (iommu.enabled), for the same requester
// ID.
func (p *platform) load(sc *scenario.Scenario) error {
	switch {
	case p == nil && sc.IOMMU != nil:
		return &scenario.Error{Path: "iommu", Msg: "the scenario has an iommu section: run it with iommu.enabled = true (mkeysim run turns it on for such a scenario)"}
	case p == nil:
		return nil
	case sc.IOMMU == nil:
		return &scenario.Error{Path: "iommu", Msg: "iommu.enabled = true, but the scenario has no iommu section: the IOMMU would map none of its DMA addresses"}
	case sc.IOMMU.RequesterID != p.rid:
		return &scenario.Error{Path: "iommu.requester_id", Msg: fmt.Sprintf("%#x, but the device's pcie.requester_id is %#x (mkeysim run takes the scenario's)", sc.IOMMU.RequesterID, p.rid)}
	case p.loaded:
		return &scenario.Error{Path: "iommu", Msg: "a second scenario's mappings: the bench's tables hold the first's"}
	}
	for i, m := range sc.IOMMU.Mappings {
		if err := scenario.MapChecked(p.tables, m); err != nil {
			return &scenario.Error{Path: fmt.Sprintf("iommu.mappings[%d]", i), Msg: err.Error()}
		}
	}
	p.loaded = true
	return nil
}

// complete gives an access result what its TLPs met in the IOMMU: the
// first byte (in request order) the IOMMU refused makes it IOMMU_FAULT,
// naming the key, its level, the offset and the IOVA; else each DMA
// segment is cut where its physical addresses stop being contiguous,
// each piece with its PA (as ref cuts them). It reports an error when
// the TLPs seen do not cover a segment (a bench fault, never the
// model's result).
func (p *platform) complete(r *scenario.Result) error {
	if r.Op == scenario.OpPageFaultResume {
		for i := range r.Resumed { // the accesses run again, under their own numbers
			if err := p.complete(&r.Resumed[i]); err != nil {
				return err
			}
		}
		return nil
	}
	obs := p.obs[r.Seq]
	delete(p.obs, r.Seq)
	if r.Op != scenario.OpAccess || r.Status != prm.OK {
		return nil
	}
	slices.SortStableFunc(obs, func(a, b iommu.Observation) int { return cmp.Compare(a.Origin.Off, b.Origin.Off) })
	for _, o := range obs {
		if !o.OK {
			*r = scenario.Result{Seq: r.Seq, Op: r.Op, Status: prm.IOMMUFault, Level: int(o.Origin.Level), Offset: o.Origin.Off,
				FaultKey: prm.Key(o.Origin.Key), FaultAddr: o.IOVA, Cycle: r.Cycle, HasCycle: r.HasCycle}
			return nil
		}
	}
	segs := make([]prm.Segment, 0, len(r.Segments))
	off := uint64(0)
	k := 0
	for _, s := range r.Segments {
		end := off + s.Len
		if s.Space != prm.SpaceDMA || s.Len == 0 {
			segs = append(segs, s)
			off = end
			continue
		}
		at := off // the next byte of s to place
		for ; k < len(obs) && obs[k].Origin.Off < end; k++ {
			o := &obs[k]
			if o.Origin.Off+o.Len <= at {
				continue // an atomic's write after its read: the same bytes
			}
			if o.Origin.Off != at {
				return fmt.Errorf("seq %d: the IOMMU saw no TLP of bytes %d.. of the segment at offset %d", r.Seq, at, off)
			}
			if n := len(segs); at > off && segs[n-1].PA+segs[n-1].Len == o.PA {
				segs[n-1].Len += o.Len
			} else {
				segs = append(segs, prm.Segment{Space: prm.SpaceDMA, HasPA: true, Addr: o.IOVA, Len: o.Len, PA: o.PA})
			}
			at += o.Len
		}
		if at != end {
			return fmt.Errorf("seq %d: the IOMMU saw %d of the %d bytes of the segment at offset %d", r.Seq, at-off, s.Len, off)
		}
		off = end
	}
	if len(segs) > scenario.MaxSegments {
		return fmt.Errorf("seq %d: %d segments once cut at the IOMMU's pages, more than the %d a result lists (not modelled)", r.Seq, len(segs), scenario.MaxSegments)
	}
	r.Segments = segs
	return nil
}

// driver is the host's driver as an iommu_unmap needs it: it unmaps the
// range from the tables, has the IOMMU forget it (Inval, InvalOK) or,
// when the device uses ATS, has the translation agent make the IOMMU
// then the device's ATC forget it (Unmap, UnmapDone), then reports the
// operation's result on Done. The source hands it the
// operation (In) once every earlier result has left the bench, and the
// next operation only after its result.
type driver struct {
	sim.Base
	p       *platform
	in      *sim.Chan[unmapOp]
	done    *sim.Chan[scenario.Result]
	inval   *sim.Chan[iommu.Inval]
	invalOK *sim.Chan[iommu.InvalDone]
	// with ATS, instead of inval and invalOK
	unmap     *sim.Chan[iommu.Unmap]
	unmapDone *sim.Chan[iommu.UnmapDone]
	// the operation under way: its number, and whether its invalidation
	// has gone to the IOMMU
	busy, sent bool
	seq        int
	op         scenario.IOMMUUnmap
}

// unmapOp is an iommu_unmap operation and its number.
type unmapOp struct {
	seq   int
	unmap scenario.IOMMUUnmap
}

func (d *driver) Name() string { return "host.driver" }

// Connections: the driver pops the source's operations and the IOMMU's
// invalidation completions, and pushes invalidations and results
// (sim.Connected).
func (d *driver) Connections() (in, out []sim.Port) {
	if d.unmap != nil {
		return []sim.Port{d.in, d.unmapDone}, []sim.Port{d.unmap, d.done}
	}
	return []sim.Port{d.in, d.invalOK}, []sim.Port{d.inval, d.done}
}

// Eval takes an operation (a range the tables refuse ends at once with
// BAD_PARAM naming why, as ref's, the tables unchanged), sends its
// invalidation, then takes the completion and reports the result.
func (d *driver) Eval(now uint64) bool {
	switch {
	case !d.busy && d.in.Valid():
		if !d.done.Ready() {
			return true
		}
		op := *d.in.Peek()
		d.in.Pop()
		if err := d.p.tables.Unmap(op.unmap.Space, op.unmap.IOVA, op.unmap.Size); err != nil {
			d.done.Push(scenario.Result{Seq: op.seq, Op: scenario.OpIOMMUUnmap, Status: prm.BadParam, Reason: err.Error(), Cycle: now, HasCycle: true})
			return false
		}
		d.busy, d.sent, d.seq, d.op = true, false, op.seq, op.unmap
		return true
	case d.busy && !d.sent && d.unmap != nil:
		if d.unmap.Ready() {
			d.unmap.Push(iommu.Unmap{Space: d.op.Space, IOVA: d.op.IOVA, Size: d.op.Size})
			d.sent = true
		}
		return true
	case d.busy && !d.sent:
		if d.inval.Ready() {
			d.inval.Push(iommu.Inval{Space: d.op.Space, IOVA: d.op.IOVA, Size: d.op.Size})
			d.sent = true
		}
		return true
	case d.busy && d.done.Ready():
		// Done when the agent (with ATS) or the IOMMU has forgotten it.
		if d.unmap != nil && d.unmapDone.Valid() {
			d.unmapDone.Pop()
		} else if d.unmap == nil && d.invalOK.Valid() {
			d.invalOK.Pop()
		} else {
			return true
		}
		d.busy = false
		d.done.Push(scenario.Result{Seq: d.seq, Op: scenario.OpIOMMUUnmap, Status: prm.OK, Cycle: now, HasCycle: true})
	}
	return d.busy
}

// ConfigFor is cfg as the scenario sc needs it: a scenario with an iommu
// section describes a platform with the host IOMMU, so it turns on
// iommu.enabled and data.enabled (the IOMMU translates the data path's
// TLPs) and takes its requester_id as the device's pcie.requester_id.
// what says what it changed ("" for nothing).
func ConfigFor(cfg rtl.Config, sc *scenario.Scenario) (c rtl.Config, what string) {
	if sc == nil || sc.IOMMU == nil {
		return cfg, ""
	}
	var parts []string
	if !cfg.IOMMU.Enabled {
		cfg.IOMMU.Enabled = true
		parts = append(parts, "iommu.enabled = true")
	}
	if !cfg.Data.Enabled {
		cfg.Data.Enabled = true
		parts = append(parts, "data.enabled = true")
	}
	if cfg.PCIe.RequesterID != sc.IOMMU.RequesterID {
		cfg.PCIe.RequesterID = sc.IOMMU.RequesterID
		parts = append(parts, fmt.Sprintf("pcie.requester_id = %#x", sc.IOMMU.RequesterID))
	}
	if len(parts) == 0 {
		return cfg, ""
	}
	return cfg, "the scenario's iommu section sets " + strings.Join(parts, ", ")
}
