package iommu

import (
	"mkeysim/pagetable"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// GateWindow is how many TLPs the gate holds at once: their translations
// are asked for as they arrive (a hit under a miss is answered at once),
// and they leave in arrival order.
const GateWindow = 16

// Observation is what the gate saw of one data TLP (traffic class
// pcie.TCData): whose bytes it carried (Origin), the IOVA of its first
// byte and the PA the IOMMU gave it, its byte count, and whether the
// IOMMU let it through (OK) or refused it (an MRd answered UR, an MWr
// dropped). Write tells an MWr from an MRd.
type Observation struct {
	Origin   sim.Origin
	IOVA, PA uint64
	Len      uint64
	OK       bool
	Write    bool
}

// GateStats counts the gate's TLPs. Each field's tags are the counter's
// one definition (sim.Counter), under the group iommu.gate.
type GateStats struct {
	Translated    uint64     `counter:"translated" unit:"TLPs" help:"untranslated memory requests the IOMMU translated (the data path's, and the ICM reads with iommu.translate_icm)"`
	Passed        uint64     `counter:"passed" unit:"TLPs" help:"TLPs that went to the root complex without a translation: completions, messages, translated requests (AT 10b) and, without iommu.translate_icm, the ICM reads"`
	FaultedReads  uint64     `counter:"faulted_reads" unit:"TLPs" help:"MRd TLPs the IOMMU refused: the root complex answers them with UR" cover:"faulted_read" coverdesc:"the IOMMU refused an MRd, which the root complex answered with UR"`
	DroppedWrites uint64     `counter:"dropped_writes" unit:"TLPs" help:"MWr TLPs the IOMMU refused: posted, so dropped without an answer" cover:"dropped_write" coverdesc:"the IOMMU refused a posted MWr, which was dropped"`
	WindowStalls  sim.Stalls `counter:"window_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a TLP waited on the link because the gate held GateWindow TLPs"`
}

// gateSlot is a TLP in the gate's window and its translation.
type gateSlot struct {
	tlp      pcie.TLP
	need     bool // asked the IOMMU (or waits to ask)
	asked    bool
	answered bool
	resp     Response
}

// Gate is the root complex's translation stage: between the up link and
// the root complex, it has the IOMMU translate every untranslated memory
// request the HCA sends before host memory sees it.
//
//	up link ──> In ──> [ window of GateWindow TLPs ] ──> Out ──> root complex
//	                        │ Req            ^ Resp
//	                        v                │
//	                        [     IOMMU      ]
//
// A TLP taken from In asks the IOMMU (Req) if it is an MRd or MWr with
// AT 00b (untranslated) of the data path (pcie.TCData), or of the ICM with
// Config.TranslateICM, in the table of its PASID prefix if it has one,
// else of its requester ID; every other TLP (completions, messages,
// translated requests) passes as it is. TLPs leave on Out in the order
// they came, each once its answer is in: translated, its address is the
// PA; refused, an MRd leaves marked (pcie.TLP.Fault) for the root
// complex to answer with UR, an MWr is dropped. Observe, when set, sees
// every data TLP's outcome (the testbench's monitor).
//
// One cycle: an answer is taken, the head leaves, a TLP is taken, a
// request asked. Registers: the window (a ring) and the next TLP to ask
// for, written in place during Eval; the count of TLPs let go, latched
// by Commit for the testbench (Released).
type Gate struct {
	sim.Base
	sim.CounterSet // stats, under iommu.gate
	name           string
	icm            bool
	in, out        *sim.Chan[pcie.TLP]
	req            *sim.Chan[Request]
	resp           *sim.Chan[Response]
	win            [GateWindow]gateSlot
	head, n        int // the oldest slot, the slots held
	ask            int // slots from head already asked for, or needing none
	sent, released uint64
	stats          GateStats
	// Observe, if not nil, is called with each data TLP's outcome as it
	// leaves the window (a monitor: it decides nothing).
	Observe func(Observation)
	// ats, if not nil (SetATS), takes the TLPs of the device's ATS
	// traffic for the host's translation agent: Translation Requests
	// (MRd with AT 01b) and messages (Invalidate Completions).
	ats *sim.Chan[pcie.TLP]
}

// SetATS gives the gate the channel to the host's ATS endpoint (the
// translation agent's, HostPort): the device's Translation Requests and
// Invalidate Completions leave there instead of to the root complex.
// Call it before the gate is added to the engine.
func (g *Gate) SetATS(c *sim.Chan[pcie.TLP]) { g.ats = c }

// GatePorts are the gate's channels: TLPs in from the up link and out to
// the root complex, and the IOMMU's requests and answers.
type GatePorts struct {
	In, Out *sim.Chan[pcie.TLP]
	Req     *sim.Chan[Request]
	Resp    *sim.Chan[Response]
}

// NewGate makes the gate of an IOMMU whose Config is cfg (TranslateICM).
func NewGate(name string, cfg Config, p GatePorts) *Gate {
	g := &Gate{name: name, icm: cfg.TranslateICM, in: p.In, out: p.Out, req: p.Req, resp: p.Resp}
	g.CounterSet = sim.Declare("iommu.gate", &g.stats)
	return g
}

// Name is the component's name.
func (g *Gate) Name() string { return g.name }

// Stats returns the counters.
func (g *Gate) Stats() GateStats { return g.stats }

// Connections lists the channels the gate pops and pushes (sim.Connected).
func (g *Gate) Connections() (in, out []sim.Port) {
	if g.ats != nil {
		return []sim.Port{g.in, g.resp}, []sim.Port{g.out, g.req, g.ats}
	}
	return []sim.Port{g.in, g.resp}, []sim.Port{g.out, g.req}
}

// toAgent reports whether t goes to the translation agent.
func (g *Gate) toAgent(t *pcie.TLP) bool {
	return g.ats != nil && (t.Type == pcie.MRd && t.AT == pcie.ATTranslationRequest || t.Type.IsMessage())
}

// Describe lists what the gate shows in its waveform scope: the TLPs it
// holds and those waiting for their translation (sim.Described).
func (g *Gate) Describe() sim.Description {
	return sim.Description{Scope: g.name, Title: "IOMMU gate (root complex)", Signals: []sim.Signal{
		{Name: "held", Width: sim.WidthFor(GateWindow)}, {Name: "waiting", Width: sim.WidthFor(GateWindow)}},
		Sample: func(vs []uint64) {
			w := 0
			for k := 0; k < g.n; k++ {
				if s := &g.win[(g.head+k)%GateWindow]; s.need && !s.answered {
					w++
				}
			}
			vs[0], vs[1] = uint64(g.n), uint64(w)
		}}
}

// Released is the number of TLPs the gate had let go (on to the root
// complex, or dropped) by the end of the last cycle: a register, so that
// what a monitor reads of it does not depend on the order of evaluation.
func (g *Gate) Released() uint64 { return g.released }

// Commit latches Released.
func (g *Gate) Commit() { g.released = g.sent }

// Eval runs one cycle.
func (g *Gate) Eval(now uint64) bool {
	moves := g.Handshakes()
	if g.resp.Valid() {
		r := g.resp.Peek()
		if s := &g.win[int(r.ID)%GateWindow]; s.asked && !s.answered {
			s.answered, s.resp = true, *r
		}
		g.resp.Pop()
	}
	g.release()
	waited := false
	if g.in.Valid() {
		if g.n < GateWindow {
			g.take(g.in.Peek())
			g.in.Pop()
		} else {
			waited = true
		}
	}
	g.askNext()
	g.stats.WindowStalls.Note(now, waited)
	return g.n > 0 && g.headReady() || g.Handshakes() != moves
}

// headReady reports whether the oldest TLP may leave.
func (g *Gate) headReady() bool {
	s := &g.win[g.head]
	return !s.need || s.answered
}

// take puts t at the tail of the window.
func (g *Gate) take(t *pcie.TLP) {
	s := &g.win[(g.head+g.n)%GateWindow]
	*s = gateSlot{tlp: *t, need: g.translates(t)}
	g.n++
}

// translates reports whether t asks the IOMMU: an interrupt message (an
// MWr in the MSI window) passes untranslated.
func (g *Gate) translates(t *pcie.TLP) bool {
	return (t.Type == pcie.MRd || t.Type == pcie.MWr) && t.AT == pcie.ATUntranslated && (t.TC == pcie.TCData || g.icm) &&
		!(t.Type == pcie.MWr && pcie.IsMSI(t.Addr))
}

// askNext sends the translation request of the oldest slot not yet
// asked for, if the IOMMU takes one.
func (g *Gate) askNext() {
	for g.ask < g.n {
		i := (g.head + g.ask) % GateWindow
		s := &g.win[i]
		if !s.need {
			g.ask++
			continue
		}
		if !g.req.Ready() {
			return
		}
		t := &s.tlp
		sp := pagetable.Space{ID: uint32(t.RequesterID)}
		switch {
		case t.TC != pcie.TCData:
			sp = pagetable.ICM // the ICM's identity map
		case t.Prefix.Present():
			sp = pagetable.Space{PASID: true, ID: t.Prefix.PASID()}
		}
		g.req.Push(Request{ID: uint32(i), Space: sp, IOVA: t.Addr, Write: t.Type == pcie.MWr})
		s.asked = true
		g.ask++
		return
	}
}

// release sends the oldest TLP on if its translation is in.
func (g *Gate) release() {
	if g.n == 0 || !g.headReady() {
		return
	}
	s := &g.win[g.head]
	t := &s.tlp
	ok := !s.need || s.resp.OK
	drop := !ok && t.Type == pcie.MWr
	out := g.out
	if g.toAgent(t) {
		out = g.ats
	}
	if !drop && !out.Ready() {
		return
	}
	iova := t.Addr
	switch {
	case !s.need:
		g.stats.Passed++
	case drop:
		g.stats.DroppedWrites++
	case !ok:
		g.stats.FaultedReads++
		t.Fault = true
	default:
		g.stats.Translated++
		t.Addr = s.resp.PA
	}
	if !drop {
		out.Push(*t)
	}
	if g.Observe != nil && (s.need || t.AT == pcie.ATTranslated) && t.TC == pcie.TCData {
		first := uint64(pcie.FirstByteOffset(t.FirstBE))
		if !s.need { // translated by the device's ATC: the IOVA is not on the TLP
			iova = t.Origin.IOVA &^ 3
		}
		g.Observe(Observation{Origin: t.Origin, IOVA: iova + first, PA: t.Addr + first,
			Len: uint64(pcie.EnabledBytes(int(t.LengthDW), t.FirstBE, t.LastBE)), OK: ok, Write: t.Type == pcie.MWr})
	}
	*s = gateSlot{}
	g.sent++
	g.head = (g.head + 1) % GateWindow
	g.n--
	if g.ask > 0 {
		g.ask--
	}
}
