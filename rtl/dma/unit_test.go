package dma

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/internal/chantest"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// taken is one request the fake requester took, with its cycle.
type taken struct {
	cycle uint64
	req   pcie.ReadReq
}

// requester stands in for pcie.Requester's data client: it takes one
// request a cycle, answers a write the next cycle and a read after a
// latency that varies by request (so answers pass each other), and
// records what it took and the most requests in flight.
type requester struct {
	req  *sim.Chan[pcie.ReadReq]
	resp *sim.Chan[pcie.ReadResp]
	lat  func(uint64) uint64
	seq  uint64
	q    []struct {
		due, seq uint64
		r        pcie.ReadResp
	}
	Taken   []taken
	MaxOpen int
	// Answered is the cycle each request's answer left, by its address.
	Answered map[uint64]uint64
}

func (r *requester) Name() string { return "requester" }

func (r *requester) Eval(now uint64) bool {
	if r.req.Valid() {
		q := *r.req.Peek()
		r.req.Pop()
		due := now + 1
		if !q.Write {
			due = now + r.lat(r.seq)
		}
		r.q = append(r.q, struct {
			due, seq uint64
			r        pcie.ReadResp
		}{due, r.seq, pcie.ReadResp{ID: q.ID, Addr: q.Addr, Status: pcie.SC}})
		r.seq++
		r.Taken = append(r.Taken, taken{now, q})
		r.MaxOpen = max(r.MaxOpen, len(r.q))
	}
	if len(r.q) > 0 && r.resp.Ready() {
		best := -1
		for i, p := range r.q {
			if p.due <= now && (best < 0 || p.due < r.q[best].due || p.due == r.q[best].due && p.seq < r.q[best].seq) {
				best = i
			}
		}
		if best >= 0 {
			if r.Answered == nil {
				r.Answered = map[uint64]uint64{}
			}
			r.Answered[r.q[best].r.Addr] = now
			r.resp.Push(r.q[best].r)
			r.q = append(r.q[:best], r.q[best+1:]...)
		}
	}
	return len(r.q) > 0
}

func (r *requester) Commit() {}

type bench struct {
	e    *sim.Engine
	u    *Unit
	in   *chantest.Source[bus.Move]
	done *chantest.Sink[bus.Moved]
	req  *requester
}

func newBench(cfg Config, tags int, seed int64) *bench {
	e := sim.New()
	p := Ports{
		In:      sim.NewChan[bus.Move](e, "in", 2, 1),
		Done:    sim.NewChan[bus.Moved](e, "done", 2, 1),
		MemReq:  sim.NewChan[pcie.ReadReq](e, "mem_req", 2, 1),
		MemResp: sim.NewChan[pcie.ReadResp](e, "mem_resp", 2, 1),
	}
	b := &bench{e: e, u: New("dma", cfg, tags, p)}
	b.in = chantest.NewSource("src", p.In)
	b.done = chantest.NewSink("done", p.Done, chantest.Stall(seed))
	b.req = &requester{req: p.MemReq, resp: p.MemResp, lat: chantest.Jitter(seed, 3, 40)}
	e.Add(b.in, b.u, b.req, b.done)
	return b
}

// run steps until every request with a last segment has its Moved.
func (b *bench) run(t *testing.T, want int, limit uint64) {
	t.Helper()
	for b.e.Now() < limit {
		if len(b.done.Got) == want && b.u.InFlight() == 0 {
			return
		}
		b.e.Step()
	}
	t.Fatalf("not done after %d cycles: %d of %d Moved, %d in flight", limit, len(b.done.Got), want, b.u.InFlight())
}

// TestDirected: a read split at 4 KiB boundaries, a write, an atomic's
// read then write, and Moved once each request's bytes have all moved.
func TestDirected(t *testing.T) {
	b := newBench(Config{Enabled: true, Outstanding: 4}, 4, 1)
	b.in.Add(0, bus.Move{Tag: 0, Kind: bus.MoveRead, Addr: 0x1800, Len: 0x2000, Last: true}) // 0x1800..0x3800
	b.in.Add(0, bus.Move{Tag: 1, Kind: bus.MoveWrite, Addr: 0x5f00, Len: 0x200})
	b.in.Add(0, bus.Move{Tag: 1, Kind: bus.MoveWrite, Addr: 0x9000, Len: 8, Last: true})
	b.in.Add(0, bus.Move{Tag: 2, Kind: bus.MoveAtomic, Addr: 0x7008, Len: 8, Last: true})
	b.run(t, 3, 1000)
	var got []string
	for _, k := range b.req.Taken {
		got = append(got, fmt.Sprintf("%v %#x+%#x", k.req.Write, k.req.Addr, k.req.Len))
	}
	want := []string{"false 0x1800+0x800", "false 0x2000+0x1000", "false 0x3000+0x800", // 4 KiB pieces
		"true 0x5f00+0x100", "true 0x6000+0x100", "true 0x9000+0x8", "false 0x7008+0x8", "true 0x7008+0x8"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests\n%v\nwant\n%v", got, want)
	}
	// The atomic's write leaves after its read is answered.
	var rd, wr uint64
	for _, k := range b.req.Taken {
		if k.req.Addr == 0x7008 {
			if k.req.Write {
				wr = k.cycle
			} else {
				rd = k.cycle
			}
		}
	}
	if wr <= rd+3 {
		t.Errorf("atomic write at cycle %d, read at %d: the write must wait for the read's answer (3+ cycles)", wr, rd)
	}
	// Each request's Moved leaves after the answers to all its requests.
	last := map[uint16][]uint64{0: {0x1800, 0x2000, 0x3000}, 1: {0x5f00, 0x6000, 0x9000}, 2: {0x7008}}
	for _, got := range b.done.Got {
		for _, a := range last[got.V.Tag] {
			if at, ok := b.req.Answered[a]; !ok || got.Cycle <= at {
				t.Errorf("tag %d Moved at cycle %d, its request at %#x answered at %d (%v)", got.V.Tag, got.Cycle, a, at, ok)
			}
		}
	}
	s := b.u.Stats()
	if s.Reads != 4 || s.ReadBytes != 0x2008 || s.Writes != 4 || s.WriteBytes != 0x210 || s.Atomics != 1 || s.Moved != 3 {
		t.Errorf("stats %+v", s)
	}
}

// TestAtomicAcrossAPage: an atomic a KLM places across a 4 KiB page is
// read in two parts, and each part's write covers that part's bytes only
// (it once wrote 8 bytes from the second part's address: 5 past the
// atomic).
func TestAtomicAcrossAPage(t *testing.T) {
	b := newBench(Config{Enabled: true, Outstanding: 4}, 4, 1)
	b.in.Add(0, bus.Move{Tag: 0, Kind: bus.MoveAtomic, Addr: 0x7ffd, Len: 8, Last: true})
	b.run(t, 1, 1000)
	var got []string
	for _, k := range b.req.Taken {
		got = append(got, fmt.Sprintf("%v %#x+%d", k.req.Write, k.req.Addr, k.req.Len))
	}
	slices.Sort(got) // the writes follow their reads' answers, in any order
	want := []string{"false 0x7ffd+3", "false 0x8000+5", "true 0x7ffd+3", "true 0x8000+5"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests\n%v\nwant\n%v", got, want)
	}
	if s := b.u.Stats(); s.ReadBytes != 8 || s.WriteBytes != 8 {
		t.Errorf("read %d and wrote %d bytes, want 8 and 8", s.ReadBytes, s.WriteBytes)
	}
}

// TestRandom: random segments of random requests, memory answering out of
// order, Done stalling: every byte of every segment is asked for exactly
// once, in pieces that cross no 4 KiB boundary; never more than
// Outstanding requests are in flight; a request's Moved comes after the
// answers to all its requests, once.
func TestRandom(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewSource(seed))
		cfg := Config{Enabled: true, Outstanding: 1 + rng.Intn(8)}
		tags := 8
		b := newBench(cfg, tags, seed)
		type span struct{ lo, hi uint64 }
		wantBytes := map[uint16][]span{}
		at := uint64(0)
		reqs := 0
		for r := 0; r < 40; r++ {
			tag := uint16(r % tags)
			kind := bus.MoveKind(rng.Intn(3))
			n := 1 + rng.Intn(3)
			for s := 0; s < n; s++ {
				m := bus.Move{Tag: tag, Kind: kind, Addr: uint64(rng.Int63n(1 << 20)), Len: uint64(1 + rng.Intn(9000)), Last: s == n-1}
				if kind == bus.MoveAtomic {
					m.Addr, m.Len, m.Last, s = m.Addr&^7, 8, true, n
				}
				wantBytes[tag] = append(wantBytes[tag], span{m.Addr, m.Addr + m.Len})
				b.in.Add(at, m)
			}
			reqs++
			at += uint64(rng.Intn(20))
			// A tag is reused only after its Moved: run to there.
			if r%tags == tags-1 {
				b.run(t, reqs, 100000)
			}
		}
		b.run(t, reqs, 100000)
		if b.req.MaxOpen > cfg.Outstanding {
			t.Fatalf("seed %d: %d requests in flight, more than %d", seed, b.req.MaxOpen, cfg.Outstanding)
		}
		var reads, writes uint64
		for _, k := range b.req.Taken {
			q := k.req
			if q.Len < 1 || q.Addr/ChunkBytes != (q.Addr+uint64(q.Len)-1)/ChunkBytes {
				t.Fatalf("seed %d: request %+v crosses a 4 KiB boundary", seed, q)
			}
			if q.Write {
				writes += uint64(q.Len)
			} else {
				reads += uint64(q.Len)
			}
		}
		s := b.u.Stats()
		if s.ReadBytes != reads || s.WriteBytes != writes || s.Moved != uint64(reqs) {
			t.Fatalf("seed %d: stats %+v, requests read %d wrote %d, %d requests", seed, s, reads, writes, reqs)
		}
		var total uint64
		for _, ss := range wantBytes {
			for _, sp := range ss {
				total += sp.hi - sp.lo
			}
		}
		if reads+writes != total+8*s.Atomics {
			t.Fatalf("seed %d: %d bytes asked for, want %d (+8 a atomic)", seed, reads+writes, total)
		}
	}
}

// TestValidate: data.outstanding is named with its value when out of range.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		n  int
		ok bool
	}{{1, true}, {4096, true}, {0, false}, {4097, false}} {
		err := Config{Outstanding: tc.n}.Validate()
		if (err == nil) != tc.ok || err != nil && err.Error() != fmt.Sprintf("data.outstanding = %d: want 1..4096", tc.n) {
			t.Errorf("outstanding %d: %v", tc.n, err)
		}
	}
}

// TestSmallFence: an RDMA READ response's segment of 8 KiB (two 4 KiB
// reads) whose key has small_fence_on_rdma_read_response keeps one read
// of its QP in flight: with reads answered 10 cycles after the requester
// takes them, the first read is pushed at cycle 1 and taken at 2, its
// answer pushed at 12 and seen at 13, when the second is pushed (taken at
// 14); the second waited at the head of In from cycle 2 to 12, 11 cycles
// (fence_stall_cycles). Without the fence the second is taken at 3, and
// a fenced segment of another QP is not held by this one's.
func TestSmallFence(t *testing.T) {
	for _, c := range []struct {
		name                          string
		fence                         bool
		secondAt, stalls, fencedReads uint64
	}{
		{"fence", true, 14, 11, 2},
		{"no fence", false, 3, 0, 0},
	} {
		b := newBench(Config{Enabled: true, Outstanding: 4}, 4, 1)
		b.req.lat = func(uint64) uint64 { return 10 }
		b.in.Add(0, bus.Move{Tag: 0, Kind: bus.MoveRead, Addr: 0x10000, Len: 0x2000, Last: true, QPN: 1, Plat: bus.Platform{SmallFence: c.fence}})
		b.run(t, 1, 1000)
		if len(b.req.Taken) != 2 || b.req.Taken[0].cycle != 2 || b.req.Taken[1].cycle != c.secondAt {
			t.Errorf("%s: reads taken %+v, want at cycles 2 and %d", c.name, b.req.Taken, c.secondAt)
		}
		s := b.u.Stats()
		if s.FenceStalls.Count() != c.stalls || s.FencedReads != c.fencedReads {
			t.Errorf("%s: fence_stall_cycles %d, fenced_reads %d; want %d, %d", c.name, s.FenceStalls.Count(), s.FencedReads, c.stalls, c.fencedReads)
		}
	}
	// Two QPs' fenced segments, one 4 KiB read each: neither waits.
	b := newBench(Config{Enabled: true, Outstanding: 4}, 4, 1)
	b.req.lat = func(uint64) uint64 { return 10 }
	b.in.Add(0, bus.Move{Tag: 0, Kind: bus.MoveRead, Addr: 0x10000, Len: 0x1000, Last: true, QPN: 1, Plat: bus.Platform{SmallFence: true}})
	b.in.Add(0, bus.Move{Tag: 1, Kind: bus.MoveRead, Addr: 0x20000, Len: 0x1000, Last: true, QPN: 2, Plat: bus.Platform{SmallFence: true}})
	b.run(t, 2, 1000)
	if s := b.u.Stats(); s.FenceStalls.Count() != 0 || len(b.req.Taken) != 2 || b.req.Taken[1].cycle != 3 {
		t.Errorf("two QPs: %d fence stall cycles, reads %+v; want none, the second taken at 3", s.FenceStalls.Count(), b.req.Taken)
	}
	// QP 1's segment of two reads under the fence, then QP 2's of one:
	// without room to set QP 1's aside (fence_queue 0), QP 2's read waits
	// behind QP 1's second, taken at 14 (as above), to 15; with room, QP
	// 1's segment is set aside at cycle 3 (its first read went at 2) and
	// QP 2's read goes at 4, QP 1's second still at 14.
	for _, c := range []struct {
		queue             int
		qp2At, stalls     uint64
		parked, secondQP1 uint64
	}{{0, 15, 11, 0, 14}, {8, 4, 0, 1, 14}} {
		b := newBench(Config{Enabled: true, Outstanding: 4, FenceQueue: c.queue}, 4, 1)
		b.req.lat = func(uint64) uint64 { return 10 }
		b.in.Add(0, bus.Move{Tag: 0, Kind: bus.MoveRead, Addr: 0x10000, Len: 0x2000, Last: true, QPN: 1, Plat: bus.Platform{SmallFence: true}})
		b.in.Add(0, bus.Move{Tag: 1, Kind: bus.MoveRead, Addr: 0x40000, Len: 0x1000, Last: true, QPN: 2, Plat: bus.Platform{SmallFence: true}})
		b.run(t, 2, 1000)
		var qp2, second uint64
		for _, k := range b.req.Taken {
			switch k.req.Addr {
			case 0x40000:
				qp2 = k.cycle
			case 0x11000:
				second = k.cycle
			}
		}
		s := b.u.Stats()
		if qp2 != c.qp2At || second != c.secondQP1 || s.FenceStalls.Count() != c.stalls || s.FenceParked != c.parked {
			t.Errorf("fence_queue %d: QP 2's read at %d, QP 1's second at %d, %d stall cycles, %d parked; want %d, %d, %d, %d",
				c.queue, qp2, second, s.FenceStalls.Count(), s.FenceParked, c.qp2At, c.secondQP1, c.stalls, c.parked)
		}
	}
}

// TestRelaxedOrdering: a read carries RO when its key has
// relaxed_ordering_read, a write when it has relaxed_ordering_write,
// each bit for its own direction only; an atomic's read and write never
// (the model keeps the read-modify-write strictly ordered).
func TestRelaxedOrdering(t *testing.T) {
	both := bus.Platform{ROWrite: true, RORead: true}
	for _, c := range []struct {
		name string
		kind bus.MoveKind
		plat bus.Platform
		want []bool // RO of each request taken
	}{
		{"read, RO read", bus.MoveRead, bus.Platform{RORead: true}, []bool{true}},
		{"read, RO write", bus.MoveRead, bus.Platform{ROWrite: true}, []bool{false}},
		{"write, RO write", bus.MoveWrite, bus.Platform{ROWrite: true}, []bool{true}},
		{"write, RO read", bus.MoveWrite, bus.Platform{RORead: true}, []bool{false}},
		{"atomic, both", bus.MoveAtomic, both, []bool{false, false}},
	} {
		b := newBench(Config{Enabled: true, Outstanding: 4}, 4, 1)
		b.in.Add(0, bus.Move{Tag: 0, Kind: c.kind, Addr: 0x10000, Len: 8, Last: true, Plat: c.plat})
		b.run(t, 1, 1000)
		var got []bool
		for _, k := range b.req.Taken {
			got = append(got, k.req.RO)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: RO of the requests %v, want %v", c.name, got, c.want)
		}
	}
}
