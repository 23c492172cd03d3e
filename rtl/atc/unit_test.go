package atc

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/internal/chantest"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/rangecache"
	"mkeysim/rtl/sim"
)

var seeds = flag.Int("atc.seeds", 40, "random benches TestRandom runs")

// fixed is a bench's timing with no stalls: the agent answers after lat
// cycles and the data path holds each entry for hold cycles.
func fixed(lat, hold uint64) latency {
	return latency{agent: func(uint64) uint64 { return lat }, hold: func(int) uint64 { return hold }}
}

// TestDirected: hand-counted traces. A 2 MiB translation serves every
// page of its range after one Translation Request; lookups of one page in
// flight merge; a write through a read-only translation faults; an
// address the host does not map faults and is not kept; a full set
// evicts its least recently used entry.
func TestDirected(t *testing.T) {
	big := region{base: 0x40_0000_0000, log: 21, vs: []version{{mapped: true, r: true, w: true, pa: 0x8000_0000}}}
	ro := region{base: 0x50_0000_0000, log: 12, vs: []version{{mapped: true, r: true, pa: 0x9000_0000}}}
	for _, tc := range []struct {
		name    string
		cfg     Config
		regions []region
		ls      []bus.ATSLookup // added 20 cycles apart unless at says otherwise
		at      []uint64
		want    Stats // the counts, waits and occupancy aside
		addrs   []uint64
		oks     []bool
	}{
		{name: "one range, many pages", cfg: DefaultConfig(), regions: []region{big},
			ls:    []bus.ATSLookup{{Tag: 0, Addr: 0x40_0000_1008, Len: 8}, {Tag: 1, Addr: 0x40_0010_0000, Len: 64}, {Tag: 2, Addr: 0x40_001f_f000, Len: 16, Write: true}},
			want:  Stats{Hits: 2, Misses: 1, Requests: 1, Fills: 1},
			addrs: []uint64{0x8000_1008, 0x8010_0000, 0x801f_f000}, oks: []bool{true, true, true}},
		{name: "merged miss", cfg: DefaultConfig(), regions: []region{big},
			ls: []bus.ATSLookup{{Tag: 0, Addr: 0x40_0000_0000, Len: 8}, {Tag: 1, Addr: 0x40_0000_0100, Len: 8}, {Tag: 2, Addr: 0x40_0000_2000, Len: 8}},
			at: []uint64{0, 1, 2}, want: Stats{Misses: 3, MergedMisses: 1, Requests: 2, Fills: 1, MaxMSHRs: 2},
			addrs: []uint64{0x8000_0000, 0x8000_0100, 0x8000_2000}, oks: []bool{true, true, true}},
		{name: "read-only", cfg: DefaultConfig(), regions: []region{ro},
			ls:    []bus.ATSLookup{{Tag: 0, Addr: 0x50_0000_0010, Len: 8}, {Tag: 1, Addr: 0x50_0000_0020, Len: 8, Write: true}},
			want:  Stats{Hits: 1, Misses: 1, Requests: 1, Fills: 1, Faults: 1, MaxMSHRs: 1},
			addrs: []uint64{0x9000_0010, 0}, oks: []bool{true, false}},
		{name: "not mapped", cfg: DefaultConfig(), regions: []region{ro},
			ls:   []bus.ATSLookup{{Tag: 0, Addr: 0x60_0000_0000, Len: 8}, {Tag: 1, Addr: 0x60_0000_0000, Len: 8}},
			want: Stats{Misses: 2, Requests: 2, Faults: 2, MaxMSHRs: 1}, addrs: []uint64{0, 0}, oks: []bool{false, false}},
		{name: "eviction", cfg: Config{Cache: rangecache.Config{Entries: 2, Ways: 0, Replacement: linecache.LRU}, MSHRs: 1, Targets: 1},
			regions: []region{ro, {base: 0x50_0000_1000, log: 12, vs: []version{{mapped: true, r: true, pa: 0x9100_0000}}},
				{base: 0x50_0000_2000, log: 12, vs: []version{{mapped: true, r: true, pa: 0x9200_0000}}}},
			ls: []bus.ATSLookup{{Tag: 0, Addr: 0x50_0000_0000, Len: 8}, {Tag: 1, Addr: 0x50_0000_1000, Len: 8},
				{Tag: 2, Addr: 0x50_0000_0000, Len: 8}, {Tag: 3, Addr: 0x50_0000_2000, Len: 8}, {Tag: 4, Addr: 0x50_0000_1000, Len: 8}},
			want:  Stats{Hits: 1, Misses: 4, Requests: 4, Fills: 4, Evictions: 2, MaxMSHRs: 1},
			addrs: []uint64{0x9000_0000, 0x9100_0000, 0x9000_0000, 0x9200_0000, 0x9100_0000}, oks: []bool{true, true, true, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			if tc.want.MaxMSHRs == 0 {
				tc.want.MaxMSHRs = 1
			}
			b := newBench(tc.cfg, tc.regions, fixed(10, 3))
			for i, l := range tc.ls {
				at := uint64(i) * 20
				if tc.at != nil {
					at = tc.at[i]
				}
				b.add(at, l)
			}
			if err := b.run(10000); err != nil {
				t.Fatal(err)
			}
			if err := b.check(); err != nil {
				t.Fatal(err)
			}
			st := b.u.Stats()
			st.Stalls, st.MSHRCycles = sim.Stalls{}, sim.Occupancy{}
			if st != tc.want {
				t.Errorf("stats %+v\nwant  %+v", st, tc.want)
			}
			for _, g := range b.dp.got {
				if i := int(g.r.Tag); g.r.OK != tc.oks[i] || g.r.OK && g.r.Addr != tc.addrs[i] {
					t.Errorf("tag %d: ok %v addr %#x, want %v %#x", i, g.r.OK, g.r.Addr, tc.oks[i], tc.addrs[i])
				}
			}
		})
	}
}

// TestInvalidationWaitsForHolders: an Invalidate Request of a range whose
// translation a result still holds completes only in the cycle after the
// data path gives the entry back; the next lookup of the range asks the
// host again and gets the new translation.
func TestInvalidationWaitsForHolders(t *testing.T) {
	r := region{base: 0x40_0000_0000, log: 12, vs: []version{{mapped: true, r: true, w: true, pa: 0x8000_0000}}}
	b := newBench(DefaultConfig(), []region{r}, fixed(10, 200))
	b.add(0, bus.ATSLookup{Tag: 0, Addr: 0x40_0000_0010, Len: 8})
	b.add(400, bus.ATSLookup{Tag: 1, Addr: 0x40_0000_0010, Len: 8})
	b.a.changes = []change{{at: 50, region: 0, v: version{mapped: true, r: true, w: true, pa: 0xa000_0000}, itag: 7}}
	if err := b.run(10000); err != nil {
		t.Fatal(err)
	}
	if err := b.check(); err != nil {
		t.Fatal(err)
	}
	g0, old := b.dp.got[0], b.a.regions[0].vs[0]
	if old.done <= g0.released || old.done > g0.released+4 {
		t.Errorf("invalidation completed at %d; the entry was given back at %d: want just after", old.done, g0.released)
	}
	if g1 := b.dp.got[1]; !g1.r.OK || g1.r.Addr != 0xa000_0010 {
		t.Errorf("after the invalidation: %+v, want the new translation 0xa0000010", g1.r)
	}
	if st := b.u.Stats(); st.HeldInvals != 1 || st.Invalidations != 1 || st.Requests != 2 {
		t.Errorf("stats %+v: want one held invalidation of one entry, and two requests", st)
	}
}

// TestStaleRequest: an Invalidate Request that meets a Translation
// Request in flight makes the ATC drop its answer and ask again.
func TestStaleRequest(t *testing.T) {
	r := region{base: 0x40_0000_0000, log: 12, vs: []version{{mapped: true, r: true, w: true, pa: 0x8000_0000}}}
	b := newBench(DefaultConfig(), []region{r}, fixed(40, 5))
	b.add(0, bus.ATSLookup{Tag: 0, Addr: 0x40_0000_0010, Len: 8})
	b.a.changes = []change{{at: 10, region: 0, v: version{mapped: true, r: true, w: true, pa: 0xa000_0000}, itag: 1}}
	if err := b.run(10000); err != nil {
		t.Fatal(err)
	}
	if err := b.check(); err != nil {
		t.Fatal(err)
	}
	if g := b.dp.got[0]; !g.r.OK || g.r.Addr != 0xa000_0010 {
		t.Errorf("result %+v: want the translation after the change, 0xa0000010", g.r)
	}
	if st := b.u.Stats(); st.Refetches != 1 || st.Requests != 2 {
		t.Errorf("stats %+v: want one refetch, two requests", st)
	}
}

// TestRandom: random lookups over ranges the host changes while they run
// (remaps, unmaps, permission changes, each followed by an Invalidate
// Request), under random latencies and stalls, on several geometries;
// the oracle (check) holds every result and every completion, and the
// counts add up.
func TestRandom(t *testing.T) {
	geoms := []Config{
		DefaultConfig(),
		{Cache: rangecache.Config{Entries: 4, Ways: 0, Replacement: linecache.LRU}, MSHRs: 1, Targets: 1},
		{Cache: rangecache.Config{Entries: 8, Ways: 2, Replacement: linecache.PLRU}, MSHRs: 2, Targets: 2},
		{Cache: rangecache.Config{Entries: 16, Ways: 4, Replacement: linecache.Random, Seed: 3}, MSHRs: 4, Targets: 8},
		{Cache: rangecache.Config{Entries: 2, Ways: 1, Replacement: linecache.NRU}, MSHRs: 3, Targets: 1},
	}
	for seed := int64(1); seed <= int64(*seeds); seed++ {
		cfg := geoms[int(seed)%len(geoms)]
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			lat := latency{agent: chantest.Jitter(seed, 5, 40), hold: func(k int) uint64 { return uint64(k*7919+int(seed)) % 60 }, ready: chantest.Stall(seed)}
			b := newBench(cfg, testRegions(), lat)
			randomWork(b, seed, 400, 12)
			if err := b.run(1_000_000); err != nil {
				t.Fatalf("seed %d, %+v: %v", seed, cfg, err)
			}
			if err := b.check(); err != nil {
				t.Fatalf("seed %d, %+v: %v", seed, cfg, err)
			}
			st := b.u.Stats()
			if st.Hits+st.Misses != 400 || st.InvalRequests != 12 || st.Requests != uint64(len(b.a.requests)) {
				t.Errorf("seed %d: %+v: hits+misses %d (want 400), %d invalidate requests (want 12), %d translation requests (the host took %d)",
					seed, st, st.Hits+st.Misses, st.InvalRequests, st.Requests, len(b.a.requests))
			}
			if b.u.inUse != 0 || b.u.arr.HiddenIn(0, ^uint64(0)) {
				t.Errorf("seed %d: at the end %d MSHRs busy or an entry still dying", seed, b.u.inUse)
			}
		})
	}
}

// TestOrderIndependence: the results and their cycles do not depend on
// the order the components are evaluated in, or on the engine skipping
// idle cycles; evaluated in every cycle under the engine's audit, the
// ATC never acts in a cycle it was not due.
func TestOrderIndependence(t *testing.T) {
	run := func(shuffle int64, noSkip bool) string {
		lat := latency{agent: chantest.Jitter(5, 5, 30), hold: func(k int) uint64 { return uint64(k) % 25 }, ready: chantest.Stall(5)}
		b := newBench(Config{Cache: rangecache.Config{Entries: 8, Ways: 2, Replacement: linecache.LRU}, MSHRs: 2, Targets: 2}, testRegions(), lat)
		randomWork(b, 5, 300, 8)
		if shuffle != 0 {
			b.e.Shuffle(shuffle)
		}
		b.e.Audit = noSkip
		if err := b.run(1_000_000); err != nil {
			t.Fatal(err)
		}
		if len(b.e.Violations) > 0 {
			t.Fatalf("the ATC broke the wake rules: %v", b.e.Violations)
		}
		var s strings.Builder
		for _, g := range b.dp.got {
			fmt.Fprintf(&s, "%d %d %#x %v %d|", g.at, g.r.Tag, g.r.Addr, g.r.OK, g.released)
		}
		fmt.Fprint(&s, b.u.Counters())
		return s.String()
	}
	base := run(0, false)
	for _, sh := range []int64{1, 2, 99} {
		for _, noSkip := range []bool{false, true} {
			if got := run(sh, noSkip); got != base {
				t.Fatalf("shuffle %d, no skip %v: results, cycles or counters differ", sh, noSkip)
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
		{func(c *Config) { c.Cache.Entries = 0 }, "atc.entries = 0"},
		{func(c *Config) { c.Cache.Ways = 3 }, "atc.ways = 3"},
		{func(c *Config) { c.Cache.Entries, c.Cache.Ways = 24, 4 }, "sets = atc.entries / atc.ways = 6"},
		{func(c *Config) { c.Cache.Replacement = "fifo" }, `atc.replacement = "fifo"`},
		{func(c *Config) { c.Cache.Entries, c.Cache.Ways, c.Cache.Replacement = 12, 0, linecache.PLRU }, "plru: needs a power-of-two number of ways, not 12"},
		{func(c *Config) { c.MSHRs = 0 }, "atc.mshrs = 0"},
		{func(c *Config) { c.Targets = 65 }, "atc.targets = 65"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %q", c, err, tc.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
}
