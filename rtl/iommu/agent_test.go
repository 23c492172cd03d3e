package iommu

import (
	"fmt"
	"math/rand"
	"testing"

	"mkeysim/pagetable"
	"mkeysim/rtl/atc"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// The platform end to end: the device's ATC asks the host's translation
// agent, which asks the IOMMU, which walks the I/O page tables; the
// driver unmaps and remaps ranges while lookups run, each unmap going
// through the IOMMU's invalidation and then the ATC's.

// span is one range the driver maps: its versions over time.
type span struct {
	iova uint64
	n    uint64
	vs   []mapping
}

// mapping is a span mapped to pa from start until end (0: still), the
// unmap of which completed at done.
type mapping struct {
	pa               uint64
	start, end, done uint64
}

// platformDriver maps and unmaps the spans, one change at a time, each
// unmap waiting for its UnmapDone before the span is mapped again.
type platformDriver struct {
	tables *pagetable.Tables
	unmap  *sim.Chan[Unmap]
	done   *sim.Chan[UnmapDone]
	spans  []span
	plan   []int    // the spans to remap, in order
	at     []uint64 // no earlier than
	k      int
	busy   bool
	fresh  uint64
	t      *testing.T
}

func (d *platformDriver) Name() string { return "driver" }
func (d *platformDriver) Commit()      {}

func (d *platformDriver) Eval(now uint64) bool {
	if d.busy {
		if d.done.Valid() {
			d.done.Pop()
			s := &d.spans[d.plan[d.k]]
			s.vs[len(s.vs)-1].done = now
			d.fresh += 1 << 30
			if err := d.tables.Map(rid, s.iova, d.fresh, s.n, true, true); err != nil {
				d.t.Fatal(err)
			}
			s.vs = append(s.vs, mapping{pa: d.fresh, start: now})
			d.busy = false
			d.k++
		}
		return true
	}
	if d.k < len(d.plan) && d.at[d.k] <= now && d.unmap.Ready() {
		s := &d.spans[d.plan[d.k]]
		if err := d.tables.Unmap(rid, s.iova, s.n); err != nil {
			d.t.Fatal(err)
		}
		s.vs[len(s.vs)-1].end = now
		d.unmap.Push(Unmap{Space: rid, IOVA: s.iova, Size: s.n})
		d.busy = true
	}
	return d.k < len(d.plan)
}

// feeder pushes lookups, takes results, holds each OK one for a while and
// releases it.
type feeder struct {
	in      *sim.Chan[bus.ATSLookup]
	out     *sim.Chan[bus.ATSResult]
	rel     *sim.Chan[bus.ATSRelease]
	ls      []bus.ATSLookup
	at, ins []uint64
	got     []bus.ATSResult
	gotAt   []uint64
	relAt   []uint64
	held    []int
	next    int
	hold    uint64
}

func (f *feeder) Name() string { return "feeder" }
func (f *feeder) Commit()      {}

func (f *feeder) Eval(now uint64) bool {
	if f.next < len(f.ls) && f.at[f.next] <= now && f.in.Ready() {
		f.in.Push(f.ls[f.next])
		f.ins = append(f.ins, now)
		f.next++
	}
	if f.out.Valid() {
		r := *f.out.Peek()
		f.out.Pop()
		f.got = append(f.got, r)
		f.gotAt = append(f.gotAt, now)
		f.relAt = append(f.relAt, 0)
		if r.OK {
			f.held = append(f.held, len(f.got)-1)
		}
	}
	if len(f.held) > 0 && f.gotAt[f.held[0]]+f.hold <= now && f.rel.Ready() {
		k := f.held[0]
		f.rel.Push(bus.ATSRelease{Entry: f.got[k].Entry})
		f.relAt[k] = now
		f.held = f.held[1:]
	}
	return f.next < len(f.ls) || len(f.held) > 0
}

// TestPlatform: random lookups through the ATC while the driver unmaps
// and remaps ranges; every result is a mapping of its address that held
// when the lookup went in (none whose unmap had completed), every fault a
// time its range was unmapped, and every unmap completed only after the
// results that used the old mapping were released.
func TestPlatform(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			e, mem := sim.New(), pcie.NewMemory()
			tables := pagetable.New(mem, tableBase, 1<<30)
			d := &platformDriver{tables: tables, fresh: 1 << 40, t: t}
			for k := range 12 {
				n := uint64(4096)
				if k%3 == 0 {
					n = 2 << 20
				}
				s := span{iova: uint64(k) << 22, n: n, vs: []mapping{{pa: uint64(0x1_0000_0000) + uint64(k)<<22}}}
				if err := tables.Map(rid, s.iova, s.vs[0].pa, n, true, true); err != nil {
					t.Fatal(err)
				}
				d.spans = append(d.spans, s)
			}
			ap := AgentPorts{
				TransReq: sim.NewChan[bus.TransReq](e, "atc.trans_req", 2, 1), TransRsp: sim.NewChan[bus.TransResp](e, "atc.trans_rsp", 2, 3),
				ATSInval: sim.NewChan[bus.ATSInval](e, "atc.inval", 2, 3), ATSDone: sim.NewChan[bus.ATSInvalDone](e, "atc.inval_ok", 2, 3),
				Req: sim.NewChan[Request](e, "iommu.in", 2, 1), Resp: sim.NewChan[Response](e, "iommu.out", 2, 1),
				Inval: sim.NewChan[Inval](e, "iommu.inval", 2, 1), InvalOK: sim.NewChan[InvalDone](e, "iommu.inval_ok", 2, 1),
				Unmap: sim.NewChan[Unmap](e, "agent.unmap", 2, 1), UnmapDone: sim.NewChan[UnmapDone](e, "agent.unmap_done", 2, 1),
			}
			d.unmap, d.done = ap.Unmap, ap.UnmapDone
			f := &feeder{in: sim.NewChan[bus.ATSLookup](e, "atc.in", 2, 1), out: sim.NewChan[bus.ATSResult](e, "atc.out", 2, 1),
				rel: sim.NewChan[bus.ATSRelease](e, "atc.release", 2, 1), hold: uint64(5 + seed*3)}
			acfg := atc.DefaultConfig()
			acfg.Cache.Entries, acfg.MSHRs = 8, 2
			icfg := DefaultConfig()
			icfg.IOTLB.Entries, icfg.WalkLatencyCycles = 4, 6
			u := atc.New("atc", acfg, atc.Ports{In: f.in, Out: f.out, Release: f.rel, TransReq: ap.TransReq, TransRsp: ap.TransRsp, Inval: ap.ATSInval, InvalOK: ap.ATSDone})
			mmu := New("iommu", icfg, tables, mem, Ports{In: ap.Req, Out: ap.Resp, Inval: ap.Inval, InvalOK: ap.InvalOK})
			agent := NewAgent("agent", uint16(rid.ID), ap)
			e.Add(u, mmu, agent, d, f)
			at := uint64(0)
			for i := range 600 {
				at += uint64(rng.Intn(3))
				s := d.spans[rng.Intn(len(d.spans))]
				addr := s.iova + uint64(rng.Int63n(int64(s.n)))&^7
				f.ls = append(f.ls, bus.ATSLookup{Tag: uint16(i), Addr: addr, Len: 8, Write: rng.Intn(2) == 0})
				f.at = append(f.at, at)
			}
			for range 10 {
				d.plan = append(d.plan, rng.Intn(len(d.spans)))
				d.at = append(d.at, uint64(rng.Intn(int(at))))
			}
			for i := 1; i < len(d.at); i++ {
				d.at[i] = max(d.at[i], d.at[i-1])
			}
			for e.Now() < 2_000_000 && !(len(f.got) == len(f.ls) && len(f.held) == 0 && d.k == len(d.plan) && !e.Held()) {
				e.Step()
			}
			if len(f.got) != len(f.ls) || d.k != len(d.plan) {
				t.Fatalf("seed %d: %d of %d results, %d of %d unmaps", seed, len(f.got), len(f.ls), d.k, len(d.plan))
			}
			for k, r := range f.got {
				l, in := f.ls[r.Tag], f.ins[r.Tag]
				var s *span
				for i := range d.spans {
					if x := &d.spans[i]; l.Addr >= x.iova && l.Addr < x.iova+x.n {
						s = x
					}
				}
				if !r.OK {
					// A fault is an unmap in progress while the lookup ran,
					// or shortly before: a lookup may join a Translation
					// Request asked while its range was unmapped (the
					// driver remaps only after the unmap completed, and a
					// negative answer is not an old translation).
					const joined = 200
					unmapped := false
					for _, v := range s.vs {
						if v.end != 0 && v.end <= f.gotAt[k] && (v.done == 0 || v.done+joined >= in) {
							unmapped = true
						}
					}
					if !unmapped {
						t.Fatalf("seed %d: tag %d (%#x in at %d): fault at %d, but its range was mapped throughout", seed, r.Tag, l.Addr, in, f.gotAt[k])
					}
					continue
				}
				used := -1
				for j, v := range s.vs {
					if v.pa+(l.Addr-s.iova) == r.Addr {
						used = j
					}
				}
				if used < 0 {
					t.Fatalf("seed %d: tag %d: %#x -> %#x, which its range never mapped", seed, r.Tag, l.Addr, r.Addr)
				}
				v := s.vs[used]
				if v.done != 0 && v.done <= in {
					t.Fatalf("seed %d: tag %d (in at %d) used the mapping to %#x whose unmap completed at %d", seed, r.Tag, in, v.pa, v.done)
				}
				if v.done != 0 && f.relAt[k] >= v.done {
					t.Fatalf("seed %d: tag %d released at %d, after the unmap of its mapping completed at %d", seed, r.Tag, f.relAt[k], v.done)
				}
			}
			st, ist := u.Stats(), mmu.Stats()
			if st.Requests != ist.Hits+ist.Misses || ist.Invalidations == 0 && st.Invalidations == 0 {
				t.Errorf("seed %d: the ATC sent %d Translation Requests, the IOMMU answered %d; invalidations %d, %d",
					seed, st.Requests, ist.Hits+ist.Misses, ist.Invalidations, st.Invalidations)
			}
		})
	}
}
