package mttwalk

import (
	"mkeysim/rtl/bus"
	"mkeysim/rtl/internal/chantest"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/rtl/walk"
)

// bench is the walker with its channels, a fake ICM and recorders.
type bench struct {
	e    *sim.Engine
	u    *Unit
	p    Ports
	in   *chantest.Source[bus.Walk]
	ctrl *chantest.Source[bus.Inval]
	mem  *chantest.Memory
	done *chantest.Sink[bus.Outcome]
	ack  *chantest.Sink[bus.Ack]
}

func newBench(cfg Config, mem chantest.Host, lat func(uint64) uint64, doneReady func(uint64) bool) *bench {
	e := sim.New()
	b := &bench{e: e}
	b.p = Ports{
		In:   sim.NewChan[bus.Walk](e, "in", 2, 1),
		Done: sim.NewChan[bus.Outcome](e, "done", 2, 1),
		Ports: walk.Ports{
			MemReq:  sim.NewChan[pcie.ReadReq](e, "mem_req", 2, 1),
			MemResp: sim.NewChan[pcie.ReadResp](e, "mem_resp", 2, 1),
			Ctrl:    sim.NewChan[bus.Inval](e, "ctrl", 2, 1),
			Ack:     sim.NewChan[bus.Ack](e, "ack", 2, 1),
		},
	}
	b.u = New("mttwalk", cfg, b.p)
	b.in = chantest.NewSource("src", b.p.In)
	b.ctrl = chantest.NewSource("ctrl_src", b.p.Ctrl)
	b.mem = chantest.NewMemory(b.p.MemReq, b.p.MemResp, mem, lat)
	b.done = chantest.NewSink("done", b.p.Done, doneReady)
	b.ack = chantest.NewSink[bus.Ack]("ack", b.p.Ack, nil)
	e.Add(b.in, b.ctrl, b.u, b.mem, b.done, b.ack)
	return b
}

// run steps until every walk's bytes are covered and every invalidation
// acknowledged; it reports false if limit cycles pass first.
func (b *bench) run(limit uint64) bool {
	want := uint64(0)
	for _, w := range b.in.Items {
		want += w.Len
	}
	for b.e.Now() < limit {
		got := uint64(0)
		for _, r := range b.done.Got {
			got += r.V.Len
		}
		if got >= want && b.in.Next == len(b.in.Items) && len(b.ack.Got) == len(b.ctrl.Items) &&
			b.u.InUse() == 0 && b.p.Done.Len() == 0 {
			return true
		}
		if !b.e.Step() {
			b.e.SkipIdle()
		}
	}
	return false
}
