package iommu

import (
	"fmt"
	"math/rand"
	"testing"

	"mkeysim/pagetable"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// gateBench is a gate and an IOMMU over tables in memory: a source pushes
// TLPs (one a cycle) on in, a sink takes what leaves on out, and the
// gate's monitor records what it saw.
type gateBench struct {
	e      *sim.Engine
	g      *Gate
	tables *pagetable.Tables
	src    *tlpSource
	out    []pcie.TLP
	outAt  []uint64
	obs    []Observation
}

// tlpSource pushes its TLPs in order, each from its cycle on.
type tlpSource struct {
	sim.Base
	ch   *sim.Chan[pcie.TLP]
	tlps []pcie.TLP
	at   []uint64
	next int
}

func (s *tlpSource) Name() string { return "src" }
func (s *tlpSource) Eval(now uint64) bool {
	if s.next < len(s.tlps) && s.at[s.next] <= now && s.ch.Ready() {
		s.ch.Push(s.tlps[s.next])
		s.next++
	}
	return s.next < len(s.tlps)
}

// tlpSink takes every TLP the gate lets go.
type tlpSink struct {
	sim.Base
	ch *sim.Chan[pcie.TLP]
	b  *gateBench
}

func (s *tlpSink) Name() string { return "sink" }
func (s *tlpSink) Eval(now uint64) bool {
	if s.ch.Valid() {
		s.b.out = append(s.b.out, *s.ch.Peek())
		s.b.outAt = append(s.b.outAt, now)
		s.ch.Pop()
	}
	return false
}

func newGateBench(t *testing.T, cfg Config) *gateBench {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	e, mem := sim.New(), pcie.NewMemory()
	b := &gateBench{e: e, tables: pagetable.New(mem, tableBase, 1<<30)}
	in := sim.NewChan[pcie.TLP](e, "gate.in", 2, 1)
	out := sim.NewChan[pcie.TLP](e, "gate.out", 2, 1)
	p := Ports{In: sim.NewChan[Request](e, "iommu.req", 2, 1), Out: sim.NewChan[Response](e, "iommu.resp", GateWindow, 1),
		Inval: sim.NewChan[Inval](e, "iommu.inval", 1, 1), InvalOK: sim.NewChan[InvalDone](e, "iommu.inval_ok", 1, 1)}
	u := New("iommu", cfg, b.tables, mem, p)
	b.g = NewGate("gate", cfg, GatePorts{In: in, Out: out, Req: p.In, Resp: p.Out})
	b.g.Observe = func(o Observation) { b.obs = append(b.obs, o) }
	b.src = &tlpSource{ch: in}
	e.Add(b.src, b.g, u, &tlpSink{ch: out, b: b})
	return b
}

func (b *gateBench) send(at uint64, t pcie.TLP) {
	b.src.tlps = append(b.src.tlps, t)
	b.src.at = append(b.src.at, at)
}

// run steps until the gate has let every TLP go.
func (b *gateBench) run(t *testing.T) {
	t.Helper()
	for b.e.Now() < 100_000 {
		b.e.Step()
		if b.src.next == len(b.src.tlps) && b.g.Released() == uint64(len(b.src.tlps)) && !b.e.Held() {
			return
		}
	}
	t.Fatalf("not done: %d of %d TLPs let go", b.g.Released(), len(b.src.tlps))
}

// dataRead is an MRd of the data path from requester 0x100 of n bytes at
// addr, origin off.
func dataRead(addr uint64, n int, off uint64) pcie.TLP {
	t := pcie.NewRead(0x100, 1, addr, n)
	t.TC, t.Origin = pcie.TCData, sim.Origin{Seq: 7, Off: off, Key: 0x42, Level: 1}
	return t
}

// dataWrite is the MWr of n bytes at addr.
func dataWrite(addr uint64, n int, off uint64) pcie.TLP {
	t := pcie.NewWrite(0x100, addr, make([]byte, n))
	t.TC, t.Origin = pcie.TCData, sim.Origin{Seq: 7, Off: off, Key: 0x42, Level: 1}
	return t
}

// TestGateDirected: what leaves the gate, in what order, and what the
// monitor sees, for each kind of TLP.
func TestGateDirected(t *testing.T) {
	b := newGateBench(t, DefaultConfig())
	for _, m := range []struct {
		s           pagetable.Space
		iova, pa, n uint64
		r, w        bool
	}{
		{rid, 0x1000, 0x9_0000_1000, 0x1000, true, true},
		{rid, 0x2000, 0x9_0005_2000, 0x1000, true, false}, // read-only
		{pagetable.Space{PASID: true, ID: 5}, 0x1000, 0x5_5000_1000, 0x1000, true, true},
		{pagetable.ICM, 0x4000_0000, 0x4000_0000, 0x1000, true, true},
	} {
		if err := b.tables.Map(m.s, m.iova, m.pa, m.n, m.r, m.w); err != nil {
			t.Fatal(err)
		}
	}
	capi := dataRead(0x1010, 16, 48)
	capi.Prefix = pcie.NewPASIDPrefix(5, false, false)
	icm := pcie.NewRead(0x100, 2, 0x4000_0040, 64) // TC 0: the ICM's table
	translated := dataRead(0x77000, 64, 64)
	translated.AT, translated.Origin.IOVA = pcie.ATTranslated, 0x5000 // the device's ATC translated 0x5000
	cpl := pcie.TLP{Type: pcie.Cpl, Status: pcie.SC, RequesterID: 0x100}
	b.send(0, dataRead(0x1ff0, 16, 0))  // 0: a miss, then
	b.send(0, dataRead(0x1000, 16, 16)) // 1: the same page: waits for its walk
	b.send(0, dataWrite(0x2010, 8, 32)) // 2: a write to the read-only page: dropped
	b.send(0, dataRead(0x3000, 8, 40))  // 3: unmapped: UR
	b.send(0, capi)                     // 4: the PASID's table
	b.send(0, icm)                      // 5: the ICM's table
	b.send(0, translated)               // 6: AT 10b passes
	b.send(0, cpl)                      // 7: a completion passes
	b.run(t)

	var got []string
	for _, o := range b.out {
		got = append(got, fmt.Sprintf("%v %#x fault=%v", o.Type, o.Addr, o.Fault))
	}
	want := []string{"MRd 0x900001ff0 fault=false", "MRd 0x900001000 fault=false", "MRd 0x3000 fault=true",
		"MRd 0x550001010 fault=false", "MRd 0x40000040 fault=false", "MRd 0x77000 fault=false", "Cpl 0x0 fault=false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("out\n%v\nwant\n%v", got, want)
	}
	for i := 1; i < len(b.outAt); i++ {
		if b.outAt[i] < b.outAt[i-1] {
			t.Errorf("TLP %d left at cycle %d, before TLP %d at %d", i, b.outAt[i], i-1, b.outAt[i-1])
		}
	}
	var obs []string
	for _, o := range b.obs {
		obs = append(obs, fmt.Sprintf("off %d iova %#x pa %#x len %d ok %v w %v", o.Origin.Off, o.IOVA, o.PA, o.Len, o.OK, o.Write))
	}
	wantObs := []string{
		"off 0 iova 0x1ff0 pa 0x900001ff0 len 16 ok true w false",
		"off 16 iova 0x1000 pa 0x900001000 len 16 ok true w false",
		"off 32 iova 0x2010 pa 0x2010 len 8 ok false w true",
		"off 40 iova 0x3000 pa 0x3000 len 8 ok false w false",
		"off 48 iova 0x1010 pa 0x550001010 len 16 ok true w false",
		"off 64 iova 0x5000 pa 0x77000 len 64 ok true w false", // translated: the IOVA is the origin's
	}
	if fmt.Sprint(obs) != fmt.Sprint(wantObs) {
		t.Errorf("monitor\n%v\nwant\n%v", obs, wantObs)
	}
	s := b.g.Stats()
	if s.Translated != 4 || s.Passed != 2 || s.FaultedReads != 1 || s.DroppedWrites != 1 {
		t.Errorf("stats %+v, want translated 4, passed 2, faulted_reads 1, dropped_writes 1", s)
	}
}

// TestGateRandom: random data TLPs over random mappings (seeds 1..20):
// every TLP leaves in arrival order (or is dropped: a refused write),
// translated exactly as the tables walk (pagetable.Tables.Walk), and a
// refused read leaves marked; Released counts them all.
func TestGateRandom(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		cfg := DefaultConfig()
		cfg.IOTLB.Entries, cfg.Walkers, cfg.WalkLatencyCycles = 1<<r.Intn(4), 1+r.Intn(4), 1+r.Intn(20)
		b := newGateBench(t, cfg)
		for p := uint64(0); p < 32; p++ {
			if r.Intn(4) > 0 {
				rd := r.Intn(4) > 0
				wr := !rd || r.Intn(4) > 0 // a mapping grants something
				if err := b.tables.Map(rid, p<<12, (p*7+3)<<12, 1<<12, rd, wr); err != nil {
					t.Fatal(err)
				}
			}
		}
		var sent []pcie.TLP
		at := uint64(0)
		for i := 0; i < 300; i++ {
			at += uint64(r.Intn(3))
			addr := uint64(r.Intn(33))<<12 | uint64(r.Intn(64))*4
			var tl pcie.TLP
			if r.Intn(2) == 0 {
				tl = dataRead(addr, 4, uint64(i))
			} else {
				tl = dataWrite(addr, 4, uint64(i))
			}
			b.send(at, tl)
			sent = append(sent, tl)
		}
		b.run(t)
		k := 0
		for i, tl := range sent {
			w := b.tables.Walk(rid, tl.Addr)
			ok := w.OK && (tl.Type == pcie.MRd && w.R || tl.Type == pcie.MWr && w.W)
			if !ok && tl.Type == pcie.MWr {
				continue // dropped
			}
			if k >= len(b.out) {
				t.Fatalf("seed %d: TLP %d never left", seed, i)
			}
			o := b.out[k]
			k++
			wantAddr := tl.Addr
			if ok {
				wantAddr = w.PA
			}
			if o.Origin.Off != uint64(i) || o.Fault == ok || o.Addr != wantAddr {
				t.Fatalf("seed %d: TLP %d (%v %#x) left as %v %#x fault %v (origin %d), want %#x fault %v", seed, i, tl.Type, tl.Addr, o.Type, o.Addr, o.Fault, o.Origin.Off, wantAddr, !ok)
			}
		}
		if k != len(b.out) || b.g.Released() != uint64(len(sent)) {
			t.Fatalf("seed %d: %d TLPs out (want %d), %d released (want %d)", seed, len(b.out), k, b.g.Released(), len(sent))
		}
	}
}
