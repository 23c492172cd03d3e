package pcie

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"
)

var seedFlag = flag.Int64("pcie.seed", 1, "seed of the random end-to-end tests")

// TestReadLatency checks the latency formula of the package doc on an idle
// system, below and above 4 GB, for a few configurations.
func TestReadLatency(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		want uint64 // 0: only the formula
	}{
		{"default", DefaultConfig(), 178},
		{"16 B/cycle", withDefaults(Config{LinkBytesPerCycle: 16}), 182},
		{"short", withDefaults(Config{LinkLatencyCycles: 1, ICMLatencyCycles: 1, LinkBytesPerCycle: 4}), 0},
	} {
		for _, addr := range []uint64{0x1000, 0x1010, 0x1_0000_1000} {
			mem := NewMemory()
			mem.Write(addr, bytes.Repeat([]byte{0xa5}, 64))
			s := newSystem(c.cfg, mem, []plannedRead{{ReadReq: ReadReq{ID: 7, Addr: addr, Len: 64}}})
			s.run(t, 10000)
			c0 := s.clients[0]
			got := c0.got[0].Cycle - c0.sentAt[7]
			want := oneReadLatency(c.cfg, addr, 64)
			if got != want || (c.want != 0 && addr == 0x1000 && got != c.want) {
				t.Errorf("%s @%#x: latency %d cycles, formula %d, doc %d", c.name, addr, got, want, c.want)
			}
			if !bytes.Equal(c0.got[0].Data, bytes.Repeat([]byte{0xa5}, 64)) || c0.got[0].Status != SC {
				t.Errorf("%s @%#x: response %+v", c.name, addr, c0.got[0])
			}
		}
	}
}

const (
	regionA = 0x1000_0000   // below 4 GB: 3DW headers
	regionB = 0x2_0000_0000 // above 4 GB: 4DW headers
	regionN = 1 << 20
)

func fillMemory(seed int64) *Memory {
	rng := rand.New(rand.NewSource(seed))
	mem := NewMemory()
	buf := make([]byte, regionN)
	for _, base := range []uint64{regionA, regionB} {
		rng.Read(buf)
		mem.Write(base, buf)
	}
	return mem
}

// randomPlans makes nReads reads per client: MKC-like 64-byte aligned
// reads, small unaligned ones, and large ones up to 9 KB (several MRRS
// blocks and 4 KB pages), a few running past the written regions.
func randomPlans(seed int64, clients, nReads int) [][]plannedRead {
	rng := rand.New(rand.NewSource(seed))
	var plans [][]plannedRead
	for c := 0; c < clients; c++ {
		var p []plannedRead
		at := uint64(0)
		for i := 0; i < nReads; i++ {
			if rng.Intn(20) == 0 {
				at += uint64(rng.Intn(600)) // a pause: lets the pipeline drain
			}
			base := uint64(regionA)
			if rng.Intn(2) == 0 {
				base = regionB
			}
			var addr uint64
			var n int
			switch k := rng.Intn(10); {
			case k < 4:
				addr, n = base+uint64(rng.Intn(regionN/64))*64, 64
			case k < 7:
				addr, n = base+uint64(rng.Intn(regionN)), 1+rng.Intn(256)
			default:
				addr, n = base+uint64(rng.Intn(regionN)), 1+rng.Intn(9000)
			}
			p = append(p, plannedRead{At: at, ReadReq: ReadReq{ID: uint32(c<<24 | i), Addr: addr, Len: n}})
		}
		plans = append(plans, p)
	}
	return plans
}

// tagMonitor watches the Requester's ports and counts MRds in flight from
// the TLPs alone: an MRd's tag is in flight from its push on Tx until the
// completion carrying its last byte is taken off Rx. It keeps the most in
// flight at once and their sum over the cycles (those the engine skips
// hold the count of the last one stepped), which the requester's
// max_tags_in_use and tag_cycles, counted in its Eval, must equal.
type tagMonitor struct {
	remaining map[uint16]int
	max       int
	cycles    uint64 // tags in flight summed over the cycles
	last      uint64 // the last cycle summed
	errs      []string
}

func (s *system) monitorTags() *tagMonitor {
	m := &tagMonitor{remaining: map[uint16]int{}}
	s.e.OnCycle(func(now uint64) {
		if _, popped := s.rx.Activity(); popped {
			c := s.rx.Peek()
			if rem, ok := m.remaining[c.Tag]; ok {
				carried := int(c.LengthDW)*4 - int(c.LowerAddr&3)
				if c.Type == Cpl || carried >= rem {
					delete(m.remaining, c.Tag)
				} else {
					m.remaining[c.Tag] = rem - carried
				}
			} else if len(m.errs) < 10 {
				m.errs = append(m.errs, fmt.Sprintf("cycle %d: completion for tag %d not in flight", now, c.Tag))
			}
		}
		if p, pushed := s.tx.Pushed(); pushed && p.Type == MRd {
			if _, dup := m.remaining[p.Tag]; dup && len(m.errs) < 10 {
				m.errs = append(m.errs, fmt.Sprintf("cycle %d: tag %d reused while in flight", now, p.Tag))
			}
			m.remaining[p.Tag] = EnabledBytes(int(p.LengthDW), p.FirstBE, p.LastBE)
		}
		m.max = max(m.max, len(m.remaining))
		if now > m.last+1 {
			// Skipped cycles: the level of the last one stepped. That is
			// the level now too (it moves only in a cycle the engine steps).
			m.cycles += uint64(len(m.remaining)) * (now - m.last - 1)
		}
		m.cycles += uint64(len(m.remaining))
		m.last = now
		if len(m.remaining) > s.cfg.Tags && len(m.errs) < 10 {
			m.errs = append(m.errs, fmt.Sprintf("cycle %d: %d tags in flight, over %d", now, len(m.remaining), s.cfg.Tags))
		}
	})
	return m
}

type runMode int

const (
	plain runMode = iota
	shuffled
	noSkip
)

// runRandom runs the random scenario and checks every response against
// Memory and the tags in flight against the bound; it returns the
// responses each client saw and all statistics.
func runRandom(t *testing.T, cfg Config, seed int64, clients, nReads int, mode runMode) ([][]respRecord, string, RequesterStats) {
	t.Helper()
	mem := fillMemory(seed)
	plans := randomPlans(seed, clients, nReads)
	s := newSystem(cfg, mem, plans...)
	switch mode {
	case shuffled:
		s.e.Shuffle(seed)
	case noSkip:
		s.e.NoSkip = true
	}
	mon := s.monitorTags()
	s.run(t, 50_000_000)

	for _, e := range mon.errs {
		t.Error(e)
	}
	for _, e := range s.req.Errors() {
		t.Errorf("requester: %v", e)
	}
	st := s.req.Stats()
	if st.MaxTagsInUse > s.cfg.Tags || st.MaxTagsInUse != mon.max {
		t.Errorf("max tags in use %d, monitor %d, bound %d", st.MaxTagsInUse, mon.max, s.cfg.Tags)
	}
	if st.TagCycles.Count() != mon.cycles || mon.cycles == 0 {
		t.Errorf("tag cycles %d, monitor %d", st.TagCycles.Count(), mon.cycles)
	}
	want := make([]byte, 0, 9000)
	var logs [][]respRecord
	for ci, c := range s.clients {
		planned := map[uint32]ReadReq{}
		for _, p := range c.plan {
			planned[p.ID] = p.ReadReq
		}
		for _, r := range c.got {
			q, ok := planned[r.ID]
			if !ok {
				t.Errorf("client %d: response %d unexpected or repeated", ci, r.ID)
				continue
			}
			delete(planned, r.ID)
			want = want[:q.Len]
			mem.Read(q.Addr, want)
			if r.Status != SC || r.Addr != q.Addr || !bytes.Equal(r.Data, want) {
				t.Errorf("client %d: read %d (%#x+%d): status %v addr %#x, data differs from memory: %v",
					ci, r.ID, q.Addr, q.Len, r.Status, r.Addr, !bytes.Equal(r.Data, want))
			}
		}
		if len(planned) != 0 {
			t.Errorf("client %d: %d reads unanswered", ci, len(planned))
		}
		logs = append(logs, c.got)
	}
	up, down, rc := s.up.Stats(), s.down.Stats(), s.rc.Stats()
	if up.PerType[MRd].TLPs != st.Reads || down.PerType[CplD].TLPs != rc.Completions || rc.Completions != st.Completions || rc.Reads != st.Reads {
		t.Errorf("counts disagree: requester %+v, up %+v, down %+v, rc %+v", st, up, down, rc)
	}
	if st.Responses != uint64(clients*nReads) || !s.req.Idle() {
		t.Errorf("responses %d, idle %v", st.Responses, s.req.Idle())
	}
	stats := fmt.Sprintf("cycle %d\nrequester %+v\nup %+v\ndown %+v\nrc %+v", s.e.Now(), st, up, down, rc)
	return logs, stats, st
}

// TestRandomReads: two clients issue many random reads; every returned byte
// must equal Memory, tags in flight never exceed the bound, and the same run
// with shuffled evaluation order, and without idle skipping, gives the same
// responses at the same cycles.
func TestRandomReads(t *testing.T) {
	seed := *seedFlag
	for _, c := range []struct {
		name     string
		cfg      Config
		reads    int
		saturate bool // the run must hit the tag bound
	}{
		{"default", DefaultConfig(), 400, true},
		{"10-bit tags, small sizes, split on all RCB", withDefaults(Config{Tags: 300, MaxReadRequest: 128, MaxPayload: 128, RCB: 128,
			SplitOnAllRCB: true, LinkLatencyCycles: 20, LinkBytesPerCycle: 8, ICMLatencyCycles: 5,
			RequesterID: 0x0300, CompleterID: 0x0008}), 150, false},
		{"one tag, 4 KB sizes", withDefaults(Config{Tags: 1, MaxReadRequest: 4096, MaxPayload: 4096, LinkLatencyCycles: 3,
			LinkBytesPerCycle: 64, ICMLatencyCycles: 1}), 150, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("seed %d (rerun with -pcie.seed=%d)", seed, seed)
				}
			}()
			if err := c.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			logs, stats, st := runRandom(t, c.cfg, seed, 2, c.reads, plain)
			t.Logf("%s", stats)
			if c.saturate && (st.MaxTagsInUse != c.cfg.Tags || st.TagStallCycles.Count() == 0) {
				t.Errorf("tags not saturated: %+v", st)
			}
			for _, mode := range []runMode{shuffled, noSkip} {
				logs2, stats2, _ := runRandom(t, c.cfg, seed, 2, c.reads, mode)
				if stats2 != stats {
					t.Errorf("mode %d: statistics differ:\n%s\nvs\n%s", mode, stats2, stats)
				}
				if !reflect.DeepEqual(logs, logs2) {
					t.Errorf("mode %d: responses differ", mode)
				}
			}
		})
	}
}

// TestTagBound: a burst of reads from two clients saturates the tags, which
// stall issue, and never exceeds them.
func TestTagBound(t *testing.T) {
	for _, tags := range []int{1, 4, 32} {
		var plans [][]plannedRead
		for c := 0; c < 2; c++ {
			var p []plannedRead
			for i := 0; i < 200; i++ {
				p = append(p, plannedRead{ReadReq: ReadReq{ID: uint32(i), Addr: uint64(c<<20 + i*64), Len: 64}})
			}
			plans = append(plans, p)
		}
		s := newSystem(withDefaults(Config{Tags: tags}), NewMemory(), plans...)
		mon := s.monitorTags()
		s.run(t, 1_000_000)
		st := s.req.Stats()
		if st.MaxTagsInUse != tags || mon.max != tags || st.TagStallCycles.Count() == 0 || len(mon.errs) > 0 {
			t.Errorf("tags %d: max in use %d (monitor %d), stall cycles %d, %v", tags, st.MaxTagsInUse, mon.max, st.TagStallCycles.Count(), mon.errs)
		}
		if st.TagCycles.Count() != mon.cycles {
			t.Errorf("tags %d: tag cycles %d, monitor %d", tags, st.TagCycles.Count(), mon.cycles)
		}
	}
}

// BenchmarkRead64 measures simulated 64-byte reads per wall-clock second
// through the whole path (one client, default configuration).
func BenchmarkRead64(b *testing.B) {
	mem := NewMemory()
	s := newSystem(DefaultConfig(), mem, nil)
	rng := rand.New(rand.NewSource(1))
	c := s.clients[0]
	c.discard = true
	c.forever = func(i int) ReadReq {
		return ReadReq{ID: uint32(i), Addr: regionA + uint64(rng.Intn(1<<20))*64, Len: 64}
	}
	b.ResetTimer()
	start := time.Now()
	for c.count < b.N {
		if busy := s.e.Step(); !busy {
			s.e.SkipIdle()
		}
	}
	el := time.Since(start)
	b.ReportMetric(float64(b.N)/el.Seconds(), "reads/s")
	b.ReportMetric(float64(s.e.Now())/float64(b.N), "cycles/read")
}
