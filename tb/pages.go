package tb

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// pagesDriver is the driver's side of the firmware's pages (the kernel's
// pagealloc.c; issue 37), under host.page_policy on_event or capped: it
// owns the pages event queue in host memory and, on the queue's
// interrupt, reads the new entries and answers each Pages Request Event
// host.page_event_latency_cycles later with a MANAGE_PAGES: it gives the
// pages asked, refuses them (CANT_GIVE) when capped and the pages given
// in all would pass host.max_pages, or takes back the pages the HCA
// gives back. It keeps the count of pages given as the driver does: its
// own answers, and the scenario's MANAGE_PAGES as they complete (issued,
// completed).
type pagesDriver struct {
	sim.Base
	mem     *pcie.Memory
	irq     *sim.Chan[pcie.TLP]
	out     *sim.Chan[bus.PagesAnswer]
	host    rtl.HostConfig // the policy, the cap and the latency
	ci      uint32         // the consumer index: entries read
	given   uint64         // pages given, less those taken back, boot and init included
	due     []dueAnswer    // answers waiting for their cycle, in order
	manage  map[int]int64  // the scenario's MANAGE_PAGES in flight, by operation: their change to given
	readErr error          // the first entry that was not a page request
	// Events counts the entries read.
	Events int
}

// dueAnswer is an answer and the cycle it goes out.
type dueAnswer struct {
	at uint64
	a  bus.PagesAnswer
}

// newPagesDriver makes the driver's pages over host memory mem, answering on
// out (rtl.Top.PagesAnswer) under the host's policy h, and writes the
// event queue's entries as the driver does before the HCA may use them:
// every owner bit 1 (the HCA's first pass writes 0).
func newPagesDriver(e *sim.Engine, mem *pcie.Memory, h rtl.HostConfig, out *sim.Chan[bus.PagesAnswer]) *pagesDriver {
	p := &pagesDriver{mem: mem, out: out, host: h, manage: map[int]int64{}, given: prm.BootPages + prm.InitPages}
	p.irq = sim.NewChan[pcie.TLP](e, "host.irq", 2, 1)
	for i := uint32(0); i < prm.PagesEQEntries; i++ {
		mem.Write(rtl.EQEAddr(i)+prm.EQESize-1, []byte{1})
	}
	return p
}

// Name is the driver's pages' hierarchical name.
func (p *pagesDriver) Name() string { return "host.pages" }

// irqs is the channel of the interrupt messages the root complex hands the
// CPU (pcie.HostOptions.IRQ).
func (p *pagesDriver) irqs() *sim.Chan[pcie.TLP] { return p.irq }

// Connections: the interrupts in, the answers out (sim.Connected).
func (p *pagesDriver) Connections() (in, out []sim.Port) {
	return []sim.Port{p.irq}, []sim.Port{p.out}
}

// Describe shows the entries read and the answers waiting, in
// host.pages (sim.Described).
func (p *pagesDriver) Describe() sim.Description {
	return sim.Description{Scope: "host.pages", Title: "the driver's pages", Signals: []sim.Signal{
		{Name: "eq_ci", Width: 32}, {Name: "answers_due", Width: 8}, {Name: "given", Width: 32}},
		Sample: func(vs []uint64) { vs[0], vs[1], vs[2] = uint64(p.ci), uint64(len(p.due)), p.given }}
}

// setGiven sets the pages given so far (after the scenario's initial
// keys, which the driver gave at once: rtl.Top.PagesGiven).
func (p *pagesDriver) setGiven(n uint64) { p.given = n }

// err is the first entry the driver could not read as a page request.
func (p *pagesDriver) err() error { return p.readErr }

// issued notes the scenario's operation seq, sent to the model: a
// MANAGE_PAGES changes the pages given when it completes OK.
func (p *pagesDriver) issued(seq int, op *scenario.Op) {
	if op.Kind != scenario.OpManagePages || op.Pages == nil {
		return
	}
	d := int64(op.Pages.N())
	if op.Pages.Take {
		d = -d
	}
	p.manage[seq] = d
}

// completed notes a result leaving the model (an engine hook sees it as
// it is pushed, before any later command runs).
func (p *pagesDriver) completed(r *scenario.Result) {
	d, ok := p.manage[r.Seq]
	if !ok {
		return
	}
	delete(p.manage, r.Seq)
	if r.Status == prm.OK {
		p.given = uint64(int64(p.given) + d)
	}
}

// Eval takes an interrupt and reads the new entries, then sends the next
// answer whose cycle has come.
func (p *pagesDriver) Eval(now uint64) bool {
	if p.irq.Valid() {
		p.irq.Pop()
		p.poll(now)
	}
	if len(p.due) > 0 && p.due[0].at <= now {
		if !p.out.Ready() {
			return false // woken when the port takes again
		}
		p.out.Push(p.due[0].a)
		p.due = p.due[1:]
	}
	if len(p.due) > 0 {
		if p.due[0].at <= now+1 {
			return true
		}
		p.WakeAt(p.due[0].at)
	}
	return false
}

// poll reads the entries the HCA wrote since the last, as the driver's
// interrupt handler does (an entry is new while its owner bit is the
// parity of the consumer's pass), and decides each one's answer.
func (p *pagesDriver) poll(now uint64) {
	var b [prm.EQESize]byte
	for p.readErr == nil {
		p.mem.Read(rtl.EQEAddr(p.ci), b[:])
		if prm.EQEOwner(b[:]) != (p.ci/prm.PagesEQEntries&1 != 0) {
			return
		}
		e, err := prm.ParsePageRequestEQE(b[:])
		if err != nil {
			p.readErr = fmt.Errorf("pages event queue entry %d: %v", p.ci, err)
			return
		}
		p.ci++
		p.Events++
		p.due = append(p.due, dueAnswer{at: now + uint64(p.host.PageEventLatencyCycles), a: p.answer(int64(e.NumPages))})
	}
}

// answer is the driver's MANAGE_PAGES for an event of n pages.
func (p *pagesDriver) answer(n int64) bus.PagesAnswer {
	switch {
	case n < 0:
		p.given -= uint64(-n)
	case p.host.Refuses(uint64(n), p.given):
		return bus.PagesAnswer{Refuse: true, Reason: p.host.Refusal(uint64(n), p.given)}
	default:
		p.given += uint64(n)
	}
	return bus.PagesAnswer{NumPages: n}
}
