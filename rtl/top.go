package rtl

import (
	"fmt"
	"slices"

	"github.com/hashicorp/go-hclog"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/rtl/atc"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/dma"
	"mkeysim/rtl/klmwalk"
	"mkeysim/rtl/mptcache"
	"mkeysim/rtl/mttwalk"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/protcheck"
	"mkeysim/rtl/sim"
	"mkeysim/rtl/sq"
	"mkeysim/rtl/walk"
	"mkeysim/scenario"
)

// Op is one operation of a scenario entering the model, with its position.
// With SQ set, the operation is the next work request the send-queue
// front delivers (the host posted it as a WQE and rang its doorbell): Op
// only says what the host meant, for messages; the model runs the WQE.
type Op struct {
	Seq int
	Op  *scenario.Op
	SQ  bool
	// Recv marks a SEND with invalidate that came from the wire: its end
	// is reported with a receive CQE (the send-queue front writes it).
	Recv bool
}

// Top is the clocked model: the units, their channels, the reorder buffer
// and the command path. It is itself a component (ingress, ROB, firmware),
// evaluated only in the cycles something happens to it (sim.Base).
type Top struct {
	sim.Base
	sim.CounterSet // stats, under core
	cfg            Config
	eng            *sim.Engine

	// Ops in, results out: the testbench's ports.
	In  *sim.Chan[Op]
	Out *sim.Chan[Result]
	// Tx and Rx carry TLPs to and from the PCIe link.
	Tx, Rx *sim.Chan[pcie.TLP]

	Cache *mptcache.Unit
	Check *protcheck.Unit
	MTT   *mttwalk.Unit
	KLM   *klmwalk.Unit
	Req   *pcie.Requester
	// DMA is the data path; it moves data only when data.enabled.
	DMA *dma.Unit
	// ATC is the device's ATS translation cache, nil unless the device
	// uses ATS (Config.ATSActive); atsPort carries its traffic over the
	// requester.
	ATC     *atc.Unit
	atsPort *atsPort
	// SQ is the send-queue front: it fetches the WQEs the host's
	// doorbells announce (operations In marks SQ); sq is the top's side
	// of it.
	SQ *sq.Unit
	sq sqFront
	// eq is the pages event queue (eq.go), nil under host.page_policy
	// eager.
	eq *eventQueue

	toCache                  *sim.Chan[bus.Piece]
	doneCheck, doneMTT       *sim.Chan[bus.Outcome]
	doneKLM                  *sim.Chan[bus.Outcome]
	ctrlCache, ctrlMTT       *sim.Chan[bus.Inval]
	ctrlKLM                  *sim.Chan[bus.Inval]
	ackCheck, ackMTT, ackKLM *sim.Chan[bus.Ack]
	cutMTT, cutKLM           *sim.Chan[bus.Cut]
	toDMA                    *sim.Chan[bus.Move]
	doneDMA                  *sim.Chan[bus.Moved]

	log   hclog.Logger // named "top"; the firmware logs as "top.firmware"
	fwLog hclog.Logger
	fw    *firmware
	rob   rob
	cmd   cmdPath

	// outRing holds the results on their way out: Out's depth, one being
	// built and one the sink is handing on. A slot is reused only after
	// the sink took it from Out.
	outRing []scenario.Result
	outNext int

	// statistics
	latency sim.Tally // retired accesses' cycles from issue to retirement (Latencies)
	stats   Stats
	cov     *cover.Collector // nil: coverage off

	// The fences (fence.go): the device's umr_fence, by QPN whether the
	// last WQE of the queue was a registration, and the counters.
	fenceCap prm.UMRFenceCap
	afterReg map[uint32]bool
	fence    FenceStats
}

// Stats counts the top's work. Each field's tags are the counter's one
// definition (sim.Counter), under the group core.
type Stats struct {
	Translations uint64 `counter:"translations" unit:"accesses" help:"access results that left the reorder buffer (a failure or segments; an access run again inside page_fault_resume counts again)"`
	Commands     uint64 `counter:"commands" unit:"commands" help:"commands (every operation but access) whose result left the command path"`
	// TranslatedBytes counts only what succeeded: a failed access moves
	// no data, so throughput in GB/s is made of these bytes.
	TranslatedBytes uint64        `counter:"translated_bytes" unit:"bytes" help:"the len of every access result with status OK that left the reorder buffer, counted where core.translations is: the bytes the translations let move (a failure adds nothing)"`
	OrderStalls     sim.Stalls    `counter:"order_stall_cycles" unit:"request-cycles" kind:"wait" help:"translated requests that waited for an older one to retire first (results leave in order), summed over the cycles"`
	ROBCycles       sim.Occupancy `counter:"rob_cycles" unit:"entry-cycles" kind:"occupancy" mean:"mean_rob_in_use" help:"reorder buffer entries in use, summed over the cycles (mean_rob_in_use = rob_cycles / cycles)"`
}

// Latencies tallies the retired accesses' latencies, in cycles from
// issue to retirement, so far (a copy).
func (t *Top) Latencies() sim.Tally { return t.latency.Clone() }

// Translations is the number of access results retired (Stats).
func (t *Top) Translations() uint64 { return t.stats.Translations }

// SetCoverage makes the model hit its coverage points in c (nil:
// nowhere): the top's own and every unit's that hits points itself.
func (t *Top) SetCoverage(c *cover.Collector) {
	for _, u := range t.CoverUnits() {
		u.SetCoverage(c)
	}
}

// CoverUnits lists the parts of the model that hit coverage points, each
// saying which: the core (the top and its firmware: results at
// retirement, commands, ODP resumes, CREATE_MKEY refusals), then every
// unit of the engine that is a cover.Unit, in the engine's order
// (protcheck, mttwalk, klmwalk). The points the units' counters declare
// come from the counters (CoverCounters).
func (t *Top) CoverUnits() []cover.Unit {
	us := []cover.Unit{(*core)(t)}
	for _, c := range t.eng.Components() {
		if u, ok := c.(cover.Unit); ok {
			us = append(us, u)
		}
	}
	return us
}

// CoverCounters adds to c the points the units' counters declare (the
// cache outcomes) from this run so far; call it once, at the end of a
// run.
func (t *Top) CoverCounters(c *cover.Collector) error {
	return c.AddCounters(Readings(t.eng.Counters()))
}

// Readings are counters as the coverage collector reads them, with the
// points they declare.
func Readings(cs []sim.Counter) []cover.Reading {
	rs := make([]cover.Reading, len(cs))
	for i, x := range cs {
		p := x.Cover
		rs[i] = cover.Reading{Counter: x.Name, Value: x.Value, Point: p.Name, Desc: p.Desc, Why: p.Why, Minus: p.Minus}
	}
	return rs
}

// core is the top as a cover.Unit: the points it and its firmware hit.
type core Top

// Covers lists the top's points: each access result (at retirement, or
// inside page_fault_resume), what a resume did to each stalled access,
// each command's status and the command corners its firmware sees,
// with the firmware's pages (pages.go).
func (c *core) Covers() []cover.ID {
	out := slices.Concat(cover.ResultIDs(), cover.ResumeIDs(), cover.CommandIDs(), cover.CreateRefusalIDs())
	return append(out, cover.InvalAlreadyFree, cover.UMRList, cover.UMRRegUMRPD, cover.UMRTranslationMode,
		cover.FencePass, cover.FenceHeld, cover.FenceUnordered,
		cover.FenceModeNone, cover.FenceModeInitiatorSmall, cover.FenceModeFence, cover.FenceModeStrongOrdering, cover.FenceModeSmallAndFence, cover.CreateNoPages, cover.PagesEvent, cover.PagesEventWait, cover.PagesGiveBack, cover.PagesKept)
}

// SetCoverage makes the top and its firmware hit their points in cv.
func (c *core) SetCoverage(cv *cover.Collector) { c.cov, c.fw.cov, c.fw.pg.cov = cv, cv, cv }

// New builds the model on engine e with ICM as its host memory backdoor.
// log may be nil (no logging).
func New(cfg Config, e *sim.Engine, icm ICM, log hclog.Logger) (*Top, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, l := cfg.FIFODepth, cfg.StageLat
	if log == nil {
		log = hclog.NewNullLogger()
	}
	t := &Top{cfg: cfg, eng: e, fw: newFirmware(icm, cfg.MKCCache.ICMBase, cfg.Host), rob: newROB(cfg.ROBEntries, cfg.Data.Enabled),
		log: log.Named("top")}
	t.fw.ats = cfg.HCACap.ATS
	t.fenceCap, t.afterReg = cfg.HCACap.UMRFenceCap(), map[uint32]bool{}
	t.CounterSet = sim.Declare("core", &t.stats)
	t.fwLog = t.log.Named("firmware")
	t.In = sim.NewChan[Op](e, "top.in", d, 1)
	t.Out = sim.NewChan[Result](e, "top.out", d, 1)
	t.outRing = make([]scenario.Result, d+2)
	t.Tx = sim.NewChan[pcie.TLP](e, "top.tx", d, 1)
	t.Rx = sim.NewChan[pcie.TLP](e, "top.rx", d, 1)

	credits := cfg.KLM.LoopSlots()
	t.toCache = sim.NewChan[bus.Piece](e, "mptcache.in", d, l)
	loop := sim.NewChan[bus.Piece](e, "mptcache.loop", credits, l)
	out := sim.NewChan[bus.Lookup](e, "protcheck.in", d, l)
	outLoop := sim.NewChan[bus.Lookup](e, "protcheck.in_loop", d, l)
	t.ctrlCache = sim.NewChan[bus.Inval](e, "mptcache.ctrl", 2, 1)
	cReq := sim.NewChan[pcie.ReadReq](e, "mptcache.mem_req", d, 1)
	cResp := sim.NewChan[pcie.ReadResp](e, "mptcache.mem_resp", d, 1)
	t.Cache = mptcache.New("mptcache", cfg.MKCCache, mptcache.Ports{
		In: t.toCache, Loop: loop, Out: out, OutLoop: outLoop, MemReq: cReq, MemResp: cResp, Ctrl: t.ctrlCache,
	})

	t.doneCheck = sim.NewChan[bus.Outcome](e, "protcheck.done", d, 1)
	toMTT := sim.NewChan[bus.Walk](e, "mttwalk.in", d, l)
	toKLM := sim.NewChan[bus.Walk](e, "klmwalk.in", d, l)
	nested := sim.NewChan[bus.Walk](e, "klmwalk.nested", credits, l)
	credit := sim.NewChan[bus.Credit](e, "klmwalk.credit", credits, 1)
	t.ackCheck = sim.NewChan[bus.Ack](e, "protcheck.ack", 2, 1)
	t.Check = protcheck.New("protcheck", protcheck.Ports{
		In: out, InLoop: outLoop, Done: t.doneCheck, MTT: toMTT, KLM: toKLM, Nested: nested, Credit: credit, Ack: t.ackCheck,
	})

	t.cutMTT = sim.NewChan[bus.Cut](e, "mttwalk.cut", 2, 1)
	t.cutKLM = sim.NewChan[bus.Cut](e, "klmwalk.cut", 2, 1)
	t.doneMTT = sim.NewChan[bus.Outcome](e, "mttwalk.done", d, 1)
	t.ctrlMTT = sim.NewChan[bus.Inval](e, "mttwalk.ctrl", 2, 1)
	t.ackMTT = sim.NewChan[bus.Ack](e, "mttwalk.ack", 2, 1)
	mReq := sim.NewChan[pcie.ReadReq](e, "mttwalk.mem_req", d, 1)
	mResp := sim.NewChan[pcie.ReadResp](e, "mttwalk.mem_resp", d, 1)
	t.MTT = mttwalk.New("mttwalk", cfg.MTT, mttwalk.Ports{
		In: toMTT, Done: t.doneMTT, Ports: walk.Ports{MemReq: mReq, MemResp: mResp, Ctrl: t.ctrlMTT, Ack: t.ackMTT, Cut: t.cutMTT},
	})

	t.doneKLM = sim.NewChan[bus.Outcome](e, "klmwalk.done", d, 1)
	t.ctrlKLM = sim.NewChan[bus.Inval](e, "klmwalk.ctrl", 2, 1)
	t.ackKLM = sim.NewChan[bus.Ack](e, "klmwalk.ack", 2, 1)
	kReq := sim.NewChan[pcie.ReadReq](e, "klmwalk.mem_req", d, 1)
	kResp := sim.NewChan[pcie.ReadResp](e, "klmwalk.mem_resp", d, 1)
	t.KLM = klmwalk.New("klmwalk", cfg.KLM, klmwalk.Ports{
		In: toKLM, Nested: nested, Loop: loop, Credit: credit, Done: t.doneKLM,
		Ports: walk.Ports{MemReq: kReq, MemResp: kResp, Ctrl: t.ctrlKLM, Ack: t.ackKLM, Cut: t.cutKLM},
	})

	t.Req = pcie.NewRequester("pcie", cfg.PCIe, t.Tx, t.Rx)
	// The ICM's clients: the requester looks each read's page up in the
	// firmware's page table as it issues it (fused, on chip).
	for _, c := range [][2]any{{cReq, cResp}, {mReq, mResp}, {kReq, kResp}} {
		i := t.Req.AddClient(c[0].(*sim.Chan[pcie.ReadReq]), c[1].(*sim.Chan[pcie.ReadResp]))
		t.Req.SetTranslate(i, t.fw.pg.icmHost)
	}

	// The data path is always there, so that its counters are in every
	// run's statistics; it sees traffic only when data.enabled.
	t.toDMA = sim.NewChan[bus.Move](e, "dma.in", d, l)
	t.doneDMA = sim.NewChan[bus.Moved](e, "dma.done", d, 1)
	dReq := sim.NewChan[pcie.ReadReq](e, "dma.mem_req", d, 1)
	dResp := sim.NewChan[pcie.ReadResp](e, "dma.mem_resp", d, 1)
	dp := dma.Ports{In: t.toDMA, Done: t.doneDMA, MemReq: dReq, MemResp: dResp}
	var ap atc.Ports
	if cfg.ATSActive() {
		// Every chunk of an ATS key's segment is looked up in the ATC
		// first (a run without ATS makes none of these channels, so its
		// waveform and statistics are as they were).
		ap = atc.Ports{
			In:       sim.NewChan[bus.ATSLookup](e, "atc.in", d, l),
			Out:      sim.NewChan[bus.ATSResult](e, "atc.out", d, 1),
			Release:  sim.NewChan[bus.ATSRelease](e, "atc.release", d, 1),
			TransReq: sim.NewChan[bus.TransReq](e, "atc.trans_req", 2, 1),
			TransRsp: sim.NewChan[bus.TransResp](e, "atc.trans_rsp", 2, 1),
			Inval:    sim.NewChan[bus.ATSInval](e, "atc.inval", 2, 1),
			InvalOK:  sim.NewChan[bus.ATSInvalDone](e, "atc.inval_ok", 2, 1),
		}
		dp.Lookup, dp.Result, dp.Release = ap.In, ap.Out, ap.Release
	}
	t.DMA = dma.New("dma", cfg.Data, cfg.ROBEntries, dp)
	t.Req.AddDataClient(dReq, dResp)

	// The send-queue front reads WQEs as an ICM client does; the
	// requester hands it the host's doorbells (MWr TLPs on Rx).
	doorbell := sim.NewChan[pcie.TLP](e, "sq.doorbell", d, 1)
	// (Channels are made in the order the waveform lists them.)
	fromSQ := sim.NewChan[bus.WQE](e, "sq.out", d, l)
	sReq := sim.NewChan[pcie.ReadReq](e, "sq.mem_req", d, 1)
	sResp := sim.NewChan[pcie.ReadResp](e, "sq.mem_resp", d, 1)
	t.sq = newSQFront(fromSQ, sim.NewChan[bus.Completion](e, "sq.done", d, 1))
	t.SQ = sq.New("sq", cfg.SQ, sq.Ports{Doorbell: doorbell, Out: t.sq.from, Done: t.sq.to, MemReq: sReq, MemResp: sResp})
	t.Req.AddClient(sReq, sResp)
	t.Req.SetTarget(doorbell)
	if ap.In != nil {
		// The ATC's Translation Requests are a client of the requester
		// on traffic class 0 (the ICM's: the host tells them by AT 01b),
		// its Invalidate messages the requester's message ports.
		t.ATC = atc.New("atc", cfg.ATC, ap)
		t.atsPort = &atsPort{rid: cfg.PCIe.RequesterID, transReq: ap.TransReq, transRsp: ap.TransRsp, inval: ap.Inval, invalOK: ap.InvalOK,
			memReq: sim.NewChan[pcie.ReadReq](e, "atc.mem_req", 2, 1), memResp: sim.NewChan[pcie.ReadResp](e, "atc.mem_resp", 2, 1),
			msgIn: sim.NewChan[pcie.TLP](e, "atc.msg_in", 2, 1), msgOut: sim.NewChan[pcie.TLP](e, "atc.msg_out", 2, 1)}
		t.Req.AddClient(t.atsPort.memReq, t.atsPort.memResp)
		t.Req.SetMessages(t.atsPort.msgIn, t.atsPort.msgOut)
	}
	if cfg.Host.PagePolicy != PolicyEager {
		// The pages event queue's writes are a client of the requester
		// (host addresses: no page table); the host's answers come on a
		// port of their own.
		t.eq = newEventQueue(e, d)
		t.Req.AddClient(t.eq.req, t.eq.resp)
	}
	e.Add(t, t.Cache, t.Check, t.MTT, t.KLM, t.Req, t.DMA, t.SQ)
	if t.ATC != nil {
		e.Add(t.ATC, t.atsPort)
	}
	return t, nil
}

// Name is the top's hierarchical name.
func (t *Top) Name() string { return "top" }

// Connections lists the channels the top pops (operations, outcomes,
// acknowledgements) and pushes (results, pieces, invalidations, cuts)
// (sim.Connected).
func (t *Top) Connections() (in, out []sim.Port) {
	in = []sim.Port{t.In, t.doneCheck, t.doneMTT, t.doneKLM, t.ackCheck, t.ackMTT, t.ackKLM, t.doneDMA, t.sq.from}
	out = []sim.Port{t.Out, t.toCache, t.ctrlCache, t.ctrlMTT, t.ctrlKLM, t.cutMTT, t.cutKLM, t.toDMA, t.sq.to}
	if t.eq != nil {
		in, out = append(in, t.eq.resp, t.eq.answer), append(out, t.eq.req)
	}
	return in, out
}

// PagesAnswer is the port of the host's answers to the Pages Request
// Events (eq.go); nil under host.page_policy eager, which writes none.
func (t *Top) PagesAnswer() *sim.Chan[bus.PagesAnswer] {
	if t.eq == nil {
		return nil
	}
	return t.eq.answer
}

// PagesGiven is the number of pages the host has given the HCA so far,
// less those it took back (boot and init included): after Load, what the
// driver gave for the scenario's initial keys.
func (t *Top) PagesGiven() uint64 { return t.fw.pg.given }

// Config returns the model's parameters.
func (t *Top) Config() Config { return t.cfg }

// AddQP declares a QP to the firmware.
func (t *Top) AddQP(qp scenario.QP) { t.fw.qps[qp.QPN] = qp }

// Create runs CREATE_MKEY at once, outside simulated time: how a
// scenario's initial MKeys are made.
func (t *Top) Create(k *scenario.MKey) (uint32, error) {
	idx, _, r := t.fw.create(k)
	if r != nil {
		msg := r.st.String()
		if r.reason != "" {
			msg += ": " + r.reason
		}
		return 0, fmt.Errorf("CREATE_MKEY refuses it: %s", msg)
	}
	return idx, nil
}

// InFlight is the number of requests in the reorder buffer.
func (t *Top) InFlight() int { return t.rob.count }

// CmdState is the command path's state, for waveforms.
func (t *Top) CmdState() uint8 { return uint8(t.cmd.state) }

// Idle reports whether nothing is in flight and no command runs.
func (t *Top) Idle() bool { return t.rob.count == 0 && t.cmd.state == cmdIdle }

// Eval runs the ingress, the ROB and the command path for one cycle.
func (t *Top) Eval(now uint64) bool {
	moves := t.Handshakes()
	if t.sq.from.Valid() {
		t.sq.accept()
	}
	t.collect(t.doneCheck)
	t.collect(t.doneMTT)
	t.collect(t.doneKLM)
	if t.cmd.acks > 0 { // an invalidation's acknowledgements are awaited
		t.ack(t.ackCheck)
		t.ack(t.ackMTT)
		t.ack(t.ackKLM)
	}
	t.moved()
	t.retire(now)
	t.move()
	t.command(now)
	t.sendCut()
	if t.cmd.state == cmdIdle || t.open(now) {
		t.ingress(now)
	}
	if len(t.sq.ends) > 0 {
		t.sq.sendEnd()
	}
	// The firmware's timer wakes the engine at its end; work that needs no
	// input: a result to send, a finished request to retire, re-runs to
	// issue. Everything else waits on a channel, which wakes the engine.
	if t.cmd.state == cmdExec {
		t.WakeAt(t.cmd.wait)
	}
	eqBusy := t.eq != nil && t.eq.step()
	// A cycle that moved anything may let the command path or the
	// ingress go on (the pipeline drained, a slot freed): look again.
	t.stats.ROBCycles.NoteN(now, uint64(t.rob.count))
	t.stats.OrderStalls.NoteN(now, t.rob.orderWaits())
	return t.cmd.state == cmdDone || len(t.cmd.rerun) > 0 || len(t.sq.ends) > 0 || eqBusy ||
		t.rob.retirable() && !t.heldBehind(t.rob.oldest()) || t.canMove() || t.Handshakes() != moves
}

// ack takes an acknowledgement of the invalidation in progress from a.
func (t *Top) ack(a *sim.Chan[bus.Ack]) {
	if a.Valid() {
		a.Pop()
		t.cmd.acks--
	}
}

// PDCounts is what the caches counted of one protection domain's lookups
// (a tenant's): MKC and MTT hits and misses, as mkc_cache and mtt_cache
// count them.
type PDCounts struct {
	PD                 uint32
	MKCHits, MKCMisses uint64
	MTTHits, MTTMisses uint64
}

// ByPD lists the caches' counts by PD, in PD order.
func (t *Top) ByPD() []PDCounts {
	m := map[uint32]*PDCounts{}
	get := func(pd uint32) *PDCounts {
		if m[pd] == nil {
			m[pd] = &PDCounts{PD: pd}
		}
		return m[pd]
	}
	for _, c := range t.Cache.ByPD() {
		p := get(c.Key)
		p.MKCHits, p.MKCMisses = c.Hits, c.Misses
	}
	for _, c := range t.MTT.ByPD() {
		p := get(c.Key)
		p.MTTHits, p.MTTMisses = c.Hits, c.Misses
	}
	out := make([]PDCounts, 0, len(m))
	for _, p := range m {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b PDCounts) int { return int(int64(a.PD) - int64(b.PD)) })
	return out
}
