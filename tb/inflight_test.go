package tb

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// TestInvalidateInFlight shows the in-flight rule of translation.md 3.2:
// an access that passed its key check before an invalidation completes on
// the old mapping; one that starts after the invalidation's completion
// fails. The model is driven directly with overlapping invalidation, not
// through scenario order.
func TestInvalidateInFlight(t *testing.T) {
	cfg := rtl.DefaultConfig()
	cfg.OverlapInvalidate = true
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	key := prm.MakeKey(5, 0x33)
	mkc := prm.MKC{AccessMode: prm.ModeMTT, QPN: prm.QPNNone, Variant: 0x33, PD: 1, LR: true, LW: true,
		StartAddr: 0x10000, Len: 64 << 12, LogEntitySize: 12, TranslationsOctwordSize: 32}
	var mtt []prm.MTTEntry
	for i := 0; i < 64; i++ {
		mtt = append(mtt, prm.MTTEntry{PTag: 0x4000_0000 + uint64(i)<<12, RdEn: true, WrEn: true})
	}
	sc := &scenario.Scenario{
		QPs:   []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{{Index: 5, HasIndex: true, MKC: mkc, MTT: mtt, PgAccess: true}},
	}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	acc := func(page int) scenario.Op {
		return scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: key,
			Addr: 0x10000 + uint64(page)<<12, Len: 64, Type: prm.LocalRead}}
	}
	ops := []scenario.Op{
		acc(0),                                 // warms the MKC cache (and the first MTT line)
		{Kind: scenario.OpQueryMKey, Index: 5}, // a command: waits until acc(0) is done
		acc(40),                                // hits the MKC, passes the key check, misses in the MTT cache: in flight
		{Kind: scenario.OpLocalInvalidate, QPN: 1, Key: key},
		acc(2), // starts after the invalidation's completion
	}
	got, err := b.Run(ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Seq < got[j].Seq })
	inflight, inval, after := got[2], got[3], got[4]
	if inflight.Status != prm.OK || len(inflight.Segments) != 1 || inflight.Segments[0].Addr != 0x4000_0000+40<<12 {
		t.Fatalf("the access in flight did not complete on the old mapping: %+v", inflight)
	}
	if inval.Status != prm.OK {
		t.Fatalf("invalidation: %v", inval.Status)
	}
	if !(inval.Cycle < inflight.Cycle) {
		t.Fatalf("the invalidation (cycle %d) did not overlap the access in flight (cycle %d): the test shows nothing", inval.Cycle, inflight.Cycle)
	}
	if after.Status != prm.MKeyFree {
		t.Fatalf("an access after the invalidation's completion got %v, want MKEY_FREE", after.Status)
	}
	if after.Cycle <= inval.Cycle {
		t.Fatalf("the later access completed at %d, before the invalidation at %d", after.Cycle, inval.Cycle)
	}
}

// deafHost takes every TLP and never answers: a host that hangs.
type deafHost struct{ rx *sim.Chan[pcie.TLP] }

func (h *deafHost) Name() string { return "host" }
func (h *deafHost) Eval(uint64) bool {
	if h.rx.Valid() {
		h.rx.Pop()
	}
	return false
}
func (h *deafHost) Commit() {}

// TestWatchdogNamesStuckUnit: a host that never answers hangs the model;
// the watchdog ends the run as soon as nothing has moved and nothing is on
// its way for its bound, and names the stuck unit and the oldest
// operation. A host that is merely slow (60,000 cycles a read) is not a
// hang: the run completes.
func TestWatchdogNamesStuckUnit(t *testing.T) {
	cfg := rtl.DefaultConfig()
	sc := stimulus.Generate(stimulus.Workload{Seed: 3, Keys: 16, Accesses: 10})
	b, err := build(cfg, nil, func(e *sim.Engine, _ *pcie.Memory, rx, tx *sim.Chan[pcie.TLP]) sim.Component {
		return &deafHost{rx: rx}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	_, err = b.Run(sc.Ops, nil)
	if err == nil || !strings.Contains(err.Error(), "watchdog") || !strings.Contains(err.Error(), "stuck unit: host") ||
		!strings.Contains(err.Error(), "oldest operation: seq 0") {
		t.Fatalf("got %v, want the watchdog naming the host and seq 0", err)
	}
	if now, bound := b.Eng.Now(), WatchdogCycles(cfg); now > 2000+bound {
		t.Errorf("the watchdog fired at cycle %d, long after the hang (bound %d)", now, bound)
	}

	cfg.PCIe.ICMLatencyCycles = 60_000
	sc = stimulus.Generate(stimulus.Workload{Seed: 3, Keys: 16, Accesses: 10})
	runBoth(t, "slow host", sc, cfg, nil)
}

// forgetfulHost answers the first n reads through a real root complex,
// then takes every TLP and answers none.
type forgetfulHost struct {
	rx, fwd *sim.Chan[pcie.TLP]
	n       int
}

func (h *forgetfulHost) Name() string { return "host.gate" }
func (h *forgetfulHost) Eval(uint64) bool {
	if !h.rx.Valid() || h.n > 0 && !h.fwd.Ready() {
		return false
	}
	if h.n > 0 {
		h.fwd.Push(*h.rx.Peek())
		h.n--
	}
	h.rx.Pop()
	return false
}
func (h *forgetfulHost) Commit() {}

// TestStopKeepsRetiredResults: when the watchdog stops a run, every
// result that left the model before has been handed on (and mkeysim run
// writes them), in order.
func TestStopKeepsRetiredResults(t *testing.T) {
	cfg := rtl.DefaultConfig()
	b, err := build(cfg, nil, func(e *sim.Engine, mem *pcie.Memory, rx, tx *sim.Chan[pcie.TLP]) sim.Component {
		fwd := sim.NewChan[pcie.TLP](e, "host.fwd", 4, 1)
		rc := pcie.NewRootComplex(e, "host", cfg.PCIe, mem, fwd, tx)
		e.Add(rc)
		return &forgetfulHost{rx: rx, fwd: fwd, n: 1}
	})
	if err != nil {
		t.Fatal(err)
	}
	pa := func(i uint32) scenario.MKey {
		return scenario.MKey{Index: i, HasIndex: true, PgAccess: true,
			MKC: prm.MKC{AccessMode: prm.ModePA, QPN: prm.QPNNone, PD: 1, LR: true, Len: 4096}}
	}
	acc := func(i uint32) scenario.Op {
		return scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(i, 0), Len: 8, Type: prm.LocalRead}}
	}
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}}, MKeys: []scenario.MKey{pa(1), pa(2)},
		Ops: []scenario.Op{acc(1), {Kind: scenario.OpQueryMKey, Index: 1}, acc(1), acc(2), acc(1)}}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	var seqs []int
	err = b.Stream(sc.Ops, RunOptions{OnResult: func(r *scenario.Result) error {
		seqs = append(seqs, r.Seq)
		return nil
	}})
	if err == nil || !strings.Contains(err.Error(), "watchdog") || !strings.Contains(err.Error(), "oldest operation: seq 3") {
		t.Fatalf("err %v, want the watchdog at seq 3", err)
	}
	if fmt.Sprint(seqs) != "[0 1 2]" {
		t.Fatalf("results handed on before the stop: %v, want [0 1 2]", seqs)
	}
}
