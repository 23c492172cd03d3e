package iommu

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"mkeysim/pagetable"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

const tableBase = 0x7f80_0000_0000

var rid = pagetable.Space{ID: 0x100}

// change is a step of the driver: at cycle at, unmap or map a range of
// space, then send the IOMMU an invalidation of it.
type change struct {
	at          uint64
	unmap       bool
	iova, pa, n uint64
	r, w        bool
}

// driver pushes requests (recording when each went in), takes the
// responses, and applies its changes to the tables, each followed by an
// invalidation.
type driver struct {
	p       Ports
	tables  *pagetable.Tables
	at      []uint64
	reqs    []Request
	in      []uint64
	next    int
	got     []Response
	gotAt   []uint64
	changes []change
	nc      int
	pend    []Inval
	done    []uint64 // cycles the InvalDones came back
	t       *testing.T
}

func (d *driver) Name() string { return "driver" }
func (d *driver) Commit()      {}

func (d *driver) Eval(now uint64) bool {
	for d.nc < len(d.changes) && d.changes[d.nc].at == now {
		c := d.changes[d.nc]
		var err error
		if c.unmap {
			err = d.tables.Unmap(rid, c.iova, c.n)
		} else {
			err = d.tables.Map(rid, c.iova, c.pa, c.n, c.r, c.w)
		}
		if err != nil {
			d.t.Fatalf("cycle %d: change %+v: %v", now, c, err)
		}
		d.pend = append(d.pend, Inval{Space: rid, IOVA: c.iova, Size: c.n})
		d.nc++
	}
	if len(d.pend) > 0 && d.p.Inval.Ready() {
		d.p.Inval.Push(d.pend[0])
		d.pend = d.pend[1:]
	}
	if d.p.InvalOK.Valid() {
		d.done = append(d.done, now)
		d.p.InvalOK.Pop()
	}
	if d.next < len(d.reqs) && d.at[d.next] <= now && d.p.In.Ready() {
		d.p.In.Push(d.reqs[d.next])
		d.in = append(d.in, now)
		d.next++
	}
	if d.p.Out.Valid() {
		d.got = append(d.got, *d.p.Out.Peek())
		d.gotAt = append(d.gotAt, now)
		d.p.Out.Pop()
	}
	return d.next < len(d.reqs) || d.nc < len(d.changes) || len(d.pend) > 0
}

type bench struct {
	e   *sim.Engine
	u   *Unit
	d   *driver
	mem *pcie.Memory
}

func newBench(t *testing.T, cfg Config) *bench {
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	e, mem := sim.New(), pcie.NewMemory()
	tables := pagetable.New(mem, tableBase, 1<<30)
	p := Ports{In: sim.NewChan[Request](e, "iommu.in", 2, 1), Out: sim.NewChan[Response](e, "iommu.out", 2, 1),
		Inval: sim.NewChan[Inval](e, "iommu.inval", 2, 1), InvalOK: sim.NewChan[InvalDone](e, "iommu.inval_ok", 2, 1)}
	b := &bench{e: e, mem: mem, u: New("iommu", cfg, tables, mem, p), d: &driver{p: p, tables: tables, t: t}}
	e.Add(b.u, b.d)
	return b
}

func (b *bench) mapRange(t *testing.T, iova, pa, n uint64, r, w bool) {
	t.Helper()
	if err := b.d.tables.Map(rid, iova, pa, n, r, w); err != nil {
		t.Fatal(err)
	}
}

func (b *bench) add(at uint64, r Request) {
	r.ID, r.Space = uint32(len(b.d.reqs)), rid
	b.d.at = append(b.d.at, at)
	b.d.reqs = append(b.d.reqs, r)
}

func (b *bench) run(t *testing.T) {
	t.Helper()
	for b.e.Now() < 1_000_000 {
		b.e.Step()
		if len(b.d.got) == len(b.d.reqs) && b.d.nc == len(b.d.changes) && len(b.d.done) == len(b.d.changes) && !b.e.Held() {
			return
		}
	}
	t.Fatalf("not done: %d of %d answers", len(b.d.got), len(b.d.reqs))
}

// answer returns request id's response and the cycle it came.
func (b *bench) answer(id int) (Response, uint64) {
	for k, r := range b.d.got {
		if int(r.ID) == id {
			return r, b.d.gotAt[k]
		}
	}
	return Response{}, 0
}

// TestTiming: a cold miss reads the four levels (walk_latency_cycles
// each), a second request of the page hits, and a page beside it in the
// same last-level table reads only that level (the page-walk cache holds
// the three above); a 2 MiB leaf is three levels from a cold cache.
func TestTiming(t *testing.T) {
	cfg := DefaultConfig()
	cfg.WalkLatencyCycles = 10
	b := newBench(t, cfg)
	b.mapRange(t, 0x1000, 0x9000_0000, 2*4096, true, true)
	b.mapRange(t, 0x4000_0000, 0x8000_0000, 2<<20, true, false)
	b.add(0, Request{IOVA: 0x1010})        // 0: cold: 4 levels
	b.add(100, Request{IOVA: 0x1ff8})      // 1: hit
	b.add(200, Request{IOVA: 0x2000})      // 2: PWC holds 4, 3, 2: one level
	b.add(300, Request{IOVA: 0x4001_0000}) // 3: new 1 GiB region: levels 3 and 2 (root from the PWC)
	b.run(t)
	want := []struct {
		pa      uint64
		latency uint64 // from the push to the answer taken
	}{{0x9000_0010, 40 + 2}, {0x9000_0ff8, 2}, {0x9000_1000, 10 + 2}, {0x8001_0000, 20 + 2}}
	for i, w := range want {
		r, at := b.answer(i)
		if !r.OK || r.PA != w.pa || at-b.d.in[i] != w.latency {
			t.Errorf("request %d: %+v after %d cycles, want pa %#x after %d", i, r, at-b.d.in[i], w.pa, w.latency)
		}
	}
	st := b.u.Stats()
	if st.Hits != 1 || st.Misses != 3 || st.Walks != 3 || st.LevelsRead != 7 || st.PWCHits != 4 || st.WalkCycles != 70 || st.Faults != 0 {
		t.Errorf("stats %+v: want 1 hit, 3 misses and walks, 7 levels read, 4 PWC hits, 70 walk cycles", st)
	}
}

// TestFaults: an IOVA not mapped, a write through a read-only leaf, and a
// space with no table fault; a fault leaves nothing in the IOTLB, and a
// read-only leaf still serves reads.
func TestFaults(t *testing.T) {
	b := newBench(t, DefaultConfig())
	b.mapRange(t, 0x1000, 0x9000_0000, 4096, true, false)
	b.add(0, Request{IOVA: 0x5000})                // not mapped
	b.add(100, Request{IOVA: 0x1000, Write: true}) // read-only
	b.add(200, Request{IOVA: 0x1008})              // read: hit
	b.run(t)
	for i, ok := range []bool{false, false, true} {
		if r, _ := b.answer(i); r.OK != ok {
			t.Errorf("request %d: %+v, want ok %v", i, r, ok)
		}
	}
	if st := b.u.Stats(); st.Faults != 2 || st.Hits != 1 || st.Walks != 2 {
		t.Errorf("stats %+v: want 2 faults, 1 hit, 2 walks", st)
	}
}

// TestInvalidation: after the driver remaps a page and invalidates it, a
// request hits no stale entry; a walk that an invalidation meets in
// flight walks again and answers with the new mapping.
func TestInvalidation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.WalkLatencyCycles = 50
	b := newBench(t, cfg)
	b.mapRange(t, 0x1000, 0x9000_0000, 4096, true, true)
	b.mapRange(t, 0x3000, 0xa000_0000, 4096, true, true)
	b.add(0, Request{IOVA: 0x1000})   // 0: walks, fills
	b.add(300, Request{IOVA: 0x1000}) // 1: after the remap: walks again
	b.add(400, Request{IOVA: 0x3000}) // 2: its walk is in flight when 0x3000 is remapped
	b.d.changes = []change{
		{at: 250, unmap: true, iova: 0x1000, n: 4096}, {at: 251, iova: 0x1000, pa: 0xb000_0000, n: 4096, r: true, w: true},
		{at: 420, unmap: true, iova: 0x3000, n: 4096}, {at: 421, iova: 0x3000, pa: 0xc000_0000, n: 4096, r: true, w: true},
	}
	b.run(t)
	for i, pa := range []uint64{0x9000_0000, 0xb000_0000, 0xc000_0000} {
		if r, _ := b.answer(i); !r.OK || r.PA != pa {
			t.Errorf("request %d: %+v, want pa %#x", i, r, pa)
		}
	}
	if st := b.u.Stats(); st.Rewalks < 1 || st.Invalidations < 1 {
		t.Errorf("stats %+v: want a rewalk and an invalidated entry", st)
	}
}

// TestRandom: random mappings of 4 KiB and 2 MiB leaves, random reads and
// writes over them and beside them; every answer is what the tables give
// (pagetable.Walk), and the counts add up, on several geometries.
func TestRandom(t *testing.T) {
	geoms := []func(*Config){
		func(*Config) {},
		func(c *Config) { c.IOTLB.Entries, c.IOTLB.Ways, c.PWC.Entries, c.Walkers = 4, 0, 0, 1 },
		func(c *Config) { c.IOTLB.Entries, c.IOTLB.Ways, c.IOTLB.Replacement, c.Walkers = 16, 4, "plru", 2 },
		func(c *Config) { c.IOTLB.Entries, c.IOTLB.Ways, c.IOTLB.Replacement, c.PWC.Entries = 8, 1, "random", 3 },
	}
	for seed := int64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			cfg := DefaultConfig()
			geoms[seed%int64(len(geoms))](&cfg)
			cfg.WalkLatencyCycles = 1 + int(seed%7)
			b := newBench(t, cfg)
			rng := rand.New(rand.NewSource(seed))
			for k := range 40 {
				iova := uint64(k) << 22 // 4 MiB apart
				if rng.Intn(2) == 0 {
					r := rng.Intn(4) != 0
					b.mapRange(t, iova, uint64(0x1_0000_0000)+uint64(k)<<21, 2<<20, r, !r || rng.Intn(2) == 0)
				} else {
					b.mapRange(t, iova, uint64(0x2_0000_0000)+uint64(k)<<12, 4096, true, rng.Intn(2) == 0)
				}
			}
			at := uint64(0)
			for range 500 {
				at += uint64(rng.Intn(3))
				b.add(at, Request{IOVA: uint64(rng.Intn(40))<<22 + uint64(rng.Intn(1<<21))&^7, Write: rng.Intn(3) == 0})
			}
			b.run(t)
			for i, q := range b.d.reqs {
				r, _ := b.answer(i)
				w := b.d.tables.Walk(rid, q.IOVA)
				ok := w.OK && (q.Write && w.W || !q.Write && w.R)
				if r.OK != ok || ok && (r.PA != w.PA || r.Size != w.Size) {
					t.Fatalf("seed %d: request %d (%#x write %v): %+v, the tables give %+v", seed, i, q.IOVA, q.Write, r, w)
				}
			}
			if st := b.u.Stats(); st.Hits+st.Misses != 500 || st.Walks+st.MergedMisses != st.Misses {
				t.Errorf("seed %d: %+v: hits+misses %d (want 500), walks+merged %d (want the misses)", seed, st, st.Hits+st.Misses, st.Walks+st.MergedMisses)
			}
		})
	}
}

// TestOrderIndependence: the answers, their cycles and the counters do not
// depend on the order of evaluation or on skipping idle cycles, and under
// the engine's audit the IOMMU acts only in cycles it is due.
func TestOrderIndependence(t *testing.T) {
	run := func(shuffle int64, audit bool) string {
		cfg := DefaultConfig()
		cfg.IOTLB.Entries, cfg.Walkers, cfg.WalkLatencyCycles = 8, 2, 7
		b := newBench(t, cfg)
		for k := range 16 {
			b.mapRange(t, uint64(k)<<21, uint64(0x1_0000_0000)+uint64(k)<<21, 2<<20, true, k%3 != 0)
		}
		rng := rand.New(rand.NewSource(9))
		for i := range 300 {
			b.add(uint64(i), Request{IOVA: uint64(rng.Intn(16)<<21 + rng.Intn(1<<21)), Write: rng.Intn(2) == 0})
		}
		if shuffle != 0 {
			b.e.Shuffle(shuffle)
		}
		b.e.Audit = audit
		b.run(t)
		if len(b.e.Violations) > 0 {
			t.Fatalf("wake rules broken: %v", b.e.Violations)
		}
		var s strings.Builder
		for k, r := range b.d.got {
			fmt.Fprintf(&s, "%d:%+v|", b.d.gotAt[k], r)
		}
		fmt.Fprint(&s, b.u.Counters())
		return s.String()
	}
	base := run(0, false)
	for _, sh := range []int64{1, 5} {
		for _, audit := range []bool{false, true} {
			if run(sh, audit) != base {
				t.Fatalf("shuffle %d, audit %v: answers, cycles or counters differ", sh, audit)
			}
		}
	}
}

// TestConfigValidate: each bad parameter is named with its value.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.IOTLB.Entries = 0 }, "iommu.iotlb.entries = 0"},
		{func(c *Config) { c.IOTLB.Ways = 3 }, "iommu.iotlb.ways = 3"},
		{func(c *Config) { c.IOTLB.Replacement = "fifo" }, `iommu.iotlb.replacement = "fifo"`},
		{func(c *Config) { c.IOTLB.Entries, c.IOTLB.Replacement = 12, "plru" }, "plru: needs a power-of-two number of ways, not 12"},
		{func(c *Config) { c.PWC.Entries = -1 }, "iommu.pwc.entries = -1"},
		{func(c *Config) { c.Walkers = 0 }, "iommu.walkers = 0"},
		{func(c *Config) { c.WalkLatencyCycles = 0 }, "iommu.walk_latency_cycles = 0"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %q", c, err, tc.want)
		}
	}
}
