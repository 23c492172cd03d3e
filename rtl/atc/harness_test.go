package atc

import (
	"fmt"
	"math/rand"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
)

// The test bench: a host translation agent that answers Translation
// Requests from a map of ranges it changes at given cycles (each change
// followed by an Invalidate Request), a lookup source that records when
// each lookup went in, and a data path that takes results, holds the OK
// ones for a while and gives their entries back. Every change, lookup,
// result, release and invalidate completion is recorded with its cycle,
// for the oracle (check).

// region is one range of the host's map: 2^log bytes at base.
type region struct {
	base uint64
	log  uint8
	vs   []version // its states over time, the last current
}

// version is a region's state from start until end (0: still current):
// mapped to pa with r and w, or not mapped (!mapped). done is the cycle
// the Invalidate Completion of the change that ended it came back (0:
// not yet, or never ended).
type version struct {
	start, end, done uint64
	mapped, r, w     bool
	pa               uint64
}

// change remaps, unmaps or maps region at cycle at.
type change struct {
	at     uint64
	region int
	v      version
	itag   uint8
}

// answer is a Translation Completion due at a cycle.
type answer struct {
	due uint64
	r   bus.TransResp
}

// agent is the host's translation agent.
type agent struct {
	p        Ports
	regions  []region
	changes  []change // sorted by at
	next     int
	lat      func(seq uint64) uint64
	seq      uint64
	q        []answer
	invQ     []bus.ATSInval
	requests []uint64 // cycles a Translation Request was taken
}

func (a *agent) Name() string { return "host" }
func (a *agent) Commit()      {}

func (a *agent) Eval(now uint64) bool {
	for a.next < len(a.changes) && a.changes[a.next].at == now {
		c := &a.changes[a.next]
		r := &a.regions[c.region]
		r.vs[len(r.vs)-1].end = now
		v := c.v
		v.start = now
		r.vs = append(r.vs, v)
		a.invQ = append(a.invQ, bus.ATSInval{ITag: c.itag, Addr: r.base, Size: 1 << r.log})
		a.next++
	}
	if len(a.invQ) > 0 && a.p.Inval.Ready() {
		a.p.Inval.Push(a.invQ[0])
		a.invQ = a.invQ[1:]
	}
	if a.p.TransReq.Valid() {
		q := a.p.TransReq.Peek()
		a.q = append(a.q, answer{due: now + a.lat(a.seq), r: a.translate(q)})
		a.seq++
		a.requests = append(a.requests, now)
		a.p.TransReq.Pop()
	}
	// Answers leave in order (completions of one requester do not pass
	// each other here).
	if len(a.q) > 0 && a.q[0].due <= now && a.p.TransRsp.Ready() {
		a.p.TransRsp.Push(a.q[0].r)
		a.q = a.q[1:]
	}
	if a.p.InvalOK.Valid() {
		it := a.p.InvalOK.Peek().ITag
		for k := range a.changes[:a.next] {
			if c := &a.changes[k]; c.itag == it {
				r := &a.regions[c.region]
				for j := range r.vs {
					if r.vs[j].end == c.at && r.vs[j].done == 0 {
						r.vs[j].done = now
					}
				}
			}
		}
		a.p.InvalOK.Pop()
	}
	return a.next < len(a.changes) || len(a.q) > 0 || len(a.invQ) > 0
}

// translate answers a Translation Request from the map as it is now.
func (a *agent) translate(q *bus.TransReq) bus.TransResp {
	if k := a.find(q.Addr); k >= 0 {
		r := &a.regions[k]
		if v := r.vs[len(r.vs)-1]; v.mapped {
			return bus.TransResp{ID: q.ID, OK: true, Translated: v.pa, Size: 1 << r.log, R: v.r, W: v.w}
		}
	}
	return bus.TransResp{ID: q.ID} // UR
}

// find returns the region holding addr, -1 if none.
func (a *agent) find(addr uint64) int {
	for k := range a.regions {
		if r := &a.regions[k]; addr>>r.log == r.base>>r.log {
			return k
		}
	}
	return -1
}

// lookups pushes its lookups in order, each no earlier than its cycle,
// and records when each went in.
type lookups struct {
	ch   *sim.Chan[bus.ATSLookup]
	at   []uint64
	ls   []bus.ATSLookup
	in   []uint64 // push cycles
	next int
}

func (s *lookups) Name() string { return "lookups" }
func (s *lookups) Commit()      {}

func (s *lookups) Eval(now uint64) bool {
	if s.next < len(s.ls) && s.at[s.next] <= now && s.ch.Ready() {
		s.ch.Push(s.ls[s.next])
		s.in = append(s.in, now)
		s.next++
	}
	return s.next < len(s.ls)
}

// got is a result taken, with its cycle and, for an OK one, the cycle its
// entry was given back.
type got struct {
	at, released uint64
	r            bus.ATSResult
}

// datapath takes results (when ready), holds each OK one for hold(k)
// cycles and then gives its entry back.
type datapath struct {
	p     Ports
	ready func(now uint64) bool
	hold  func(k int) uint64
	got   []got
	rel   []int // indexes of got waiting to be released, by due cycle
}

func (d *datapath) Name() string { return "data" }
func (d *datapath) Commit()      {}

func (d *datapath) Eval(now uint64) bool {
	if d.p.Out.Valid() && (d.ready == nil || d.ready(now)) {
		r := *d.p.Out.Peek()
		d.p.Out.Pop()
		d.got = append(d.got, got{at: now, r: r})
		if r.OK {
			d.rel = append(d.rel, len(d.got)-1)
		}
	}
	// Release the first one due (one a cycle).
	for k, i := range d.rel {
		g := &d.got[i]
		if g.at+d.hold(i) <= now && d.p.Release.Ready() {
			d.p.Release.Push(bus.ATSRelease{Entry: g.r.Entry})
			g.released = now
			d.rel = append(d.rel[:k], d.rel[k+1:]...)
			break
		}
	}
	return len(d.rel) > 0
}

// bench is the ATC with its bench around it.
type bench struct {
	e  *sim.Engine
	u  *Unit
	a  *agent
	s  *lookups
	dp *datapath
}

// latency is the agent's and the channels' timing of a bench.
type latency struct {
	agent func(seq uint64) uint64
	hold  func(k int) uint64
	ready func(now uint64) bool
}

func newBench(cfg Config, regions []region, t latency) *bench {
	e := sim.New()
	p := Ports{
		In: sim.NewChan[bus.ATSLookup](e, "atc.in", 2, 1), Out: sim.NewChan[bus.ATSResult](e, "atc.out", 2, 1),
		Release:  sim.NewChan[bus.ATSRelease](e, "atc.release", 2, 1),
		TransReq: sim.NewChan[bus.TransReq](e, "atc.trans_req", 2, 1), TransRsp: sim.NewChan[bus.TransResp](e, "atc.trans_rsp", 2, 1),
		Inval: sim.NewChan[bus.ATSInval](e, "atc.inval", 2, 1), InvalOK: sim.NewChan[bus.ATSInvalDone](e, "atc.inval_ok", 2, 1),
	}
	b := &bench{e: e, u: New("atc", cfg, p), a: &agent{p: p, regions: regions, lat: t.agent},
		s: &lookups{ch: p.In}, dp: &datapath{p: p, ready: t.ready, hold: t.hold}}
	e.Add(b.u, b.a, b.s, b.dp)
	return b
}

// add queues a lookup no earlier than cycle at.
func (b *bench) add(at uint64, l bus.ATSLookup) {
	b.s.at = append(b.s.at, at)
	b.s.ls = append(b.s.ls, l)
}

// run steps until every lookup is answered, every entry given back and
// every invalidation completed, or limit cycles pass.
func (b *bench) run(limit uint64) error {
	for b.e.Now() < limit {
		b.e.Step()
		done := len(b.dp.got) == len(b.s.ls) && len(b.dp.rel) == 0 && b.a.next == len(b.a.changes) &&
			len(b.u.invals) == 0 && len(b.u.doneQ) == 0 && len(b.a.invQ) == 0 && !b.e.Held()
		if done {
			return nil
		}
	}
	return fmt.Errorf("not done after %d cycles: %d of %d results, %d held, %d of %d changes, %d invalidations pending",
		limit, len(b.dp.got), len(b.s.ls), len(b.dp.rel), b.a.next, len(b.a.changes), len(b.u.invals))
}

// check is the oracle: every result answers its lookup (in any order, by
// tag) with a translation the host gave for its address, none of a state
// whose invalidation had completed before the lookup went in; a fault is
// a state that denied the access at some time the lookup could see; and
// every Invalidate Completion came after every result that used the
// dropped translation was given back. It returns the first violation.
func (b *bench) check() error {
	byTag := map[uint16]int{}
	for i, l := range b.s.ls {
		byTag[l.Tag] = i
	}
	if len(b.dp.got) != len(b.s.ls) {
		return fmt.Errorf("%d results for %d lookups", len(b.dp.got), len(b.s.ls))
	}
	seen := map[uint16]bool{}
	for _, g := range b.dp.got {
		i, ok := byTag[g.r.Tag]
		if !ok || seen[g.r.Tag] {
			return fmt.Errorf("cycle %d: result of tag %d: unknown or twice", g.at, g.r.Tag)
		}
		seen[g.r.Tag] = true
		l, in := b.s.ls[i], b.s.in[i]
		k := b.a.find(l.Addr)
		if g.r.Len != l.Len {
			return fmt.Errorf("tag %d: len %d, want %d", l.Tag, g.r.Len, l.Len)
		}
		if !g.r.OK {
			if k < 0 {
				continue // never mapped
			}
			denied := false
			for _, v := range b.a.regions[k].vs {
				live := v.end == 0 || v.end > in || v.done == 0 || v.done > in
				if v.start <= g.at && live && (!v.mapped || l.Write && !v.w || !l.Write && !v.r) {
					denied = true
				}
			}
			if !denied {
				return fmt.Errorf("tag %d (%#x, write %v, in at %d): fault at %d, but every state of its region then allowed it", l.Tag, l.Addr, l.Write, in, g.at)
			}
			continue
		}
		if k < 0 {
			return fmt.Errorf("tag %d: translated %#x to %#x, but the host never mapped it", l.Tag, l.Addr, g.r.Addr)
		}
		r := &b.a.regions[k]
		used := -1
		for j, v := range r.vs {
			if v.mapped && v.pa+(l.Addr-r.base) == g.r.Addr && (l.Write && v.w || !l.Write && v.r) && v.start <= g.at {
				used = j
			}
		}
		if used < 0 {
			return fmt.Errorf("tag %d: translated %#x to %#x, which no state of its region gives", l.Tag, l.Addr, g.r.Addr)
		}
		v := r.vs[used]
		if v.end != 0 && v.done != 0 && v.done <= in {
			return fmt.Errorf("tag %d (in at %d): used the translation to %#x whose invalidation completed at %d", l.Tag, in, v.pa, v.done)
		}
		if v.end != 0 && v.done != 0 && g.released >= v.done {
			return fmt.Errorf("tag %d: released its entry at %d, after the invalidation of its translation completed at %d", l.Tag, g.released, v.done)
		}
	}
	for _, r := range b.a.regions {
		for _, v := range r.vs {
			if v.end != 0 && v.done == 0 {
				return fmt.Errorf("region %#x: the invalidation at %d never completed", r.base, v.end)
			}
		}
	}
	return nil
}

// randomWork fills b with n lookups over its regions and m changes, from
// seed: addresses in the regions and a few outside, reads and writes,
// remaps to fresh addresses, unmaps, maps again and permission changes.
func randomWork(b *bench, seed int64, n, m int) {
	rng := rand.New(rand.NewSource(seed))
	at := uint64(0)
	regions := b.a.regions
	for i := range n {
		at += uint64(rng.Intn(4))
		k := rng.Intn(len(regions) + 1)
		var addr uint64
		if k == len(regions) {
			addr = 0x7000_0000_0000 + uint64(rng.Intn(16))<<12 // never mapped
		} else {
			r := &regions[k]
			addr = r.base + uint64(rng.Int63n(1<<r.log))&^7
		}
		length := uint32(8 + rng.Intn(64))
		if room := 4096 - addr%4096; uint64(length) > room {
			length = uint32(room)
		}
		b.add(at, bus.ATSLookup{Tag: uint16(i), Addr: addr, Len: length, Write: rng.Intn(3) == 0})
	}
	fresh := uint64(0x100_0000_0000)
	for i := range m {
		k := rng.Intn(len(regions))
		v := version{mapped: rng.Intn(4) != 0, r: rng.Intn(4) != 0, w: rng.Intn(2) == 0}
		v.r = v.r || !v.w // a mapping grants something
		if v.mapped {
			fresh += 1 << 30
			v.pa = fresh
		}
		cAt := uint64(10 + rng.Intn(int(at)+10))
		b.a.changes = append(b.a.changes, change{at: cAt, region: k, v: v, itag: uint8(i % 32)})
	}
	sortChanges(b.a.changes)
}

func sortChanges(cs []change) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && (cs[j].at < cs[j-1].at); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	// One change of a cycle at most: push the others on.
	for i := 1; i < len(cs); i++ {
		if cs[i].at <= cs[i-1].at {
			cs[i].at = cs[i-1].at + 1
		}
	}
}

// testRegions are 2 MiB and 4 KiB ranges, mapped read-write.
func testRegions() []region {
	var rs []region
	for i := range 4 {
		base := uint64(0x40_0000_0000) + uint64(i)<<21
		rs = append(rs, region{base: base, log: 21, vs: []version{{mapped: true, r: true, w: true, pa: 0x8000_0000 + uint64(i)<<21}}})
	}
	for i := range 24 {
		base := uint64(0x50_0000_0000) + uint64(i)<<12
		rs = append(rs, region{base: base, log: 12, vs: []version{{mapped: true, r: i%7 != 3, w: i%5 != 0 || i%7 == 3, pa: 0x9000_0000 + uint64(23-i)<<12}}})
	}
	return rs
}
