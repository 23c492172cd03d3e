package walk

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
)

// model is what Contexts must do, written from its contract with maps and
// slices, for a direct-mapped cache (one line a set, so no replacement
// policy to model): the test runs both on the same inputs and compares
// every answer, every payload pushed and every counter.
type model struct {
	n     int
	merge bool
	lb    uint64 // line bytes
	sets  uint64

	state  []State
	fetch  []uint64 // the line awaited, in Fetch
	stale  []bool
	kept   []mline // the last line filled for the context
	replay []bool  // the next hit repeats the lookup whose miss filled the line

	cache   []mline // by set
	rr      int
	memUsed bool
	cuts    map[uint16]mcut
	st      linecache.Stats

	reads []pcie.ReadReq // pushed on MemReq, not yet taken by the host
	acks  []uint32       // pushed on Ack, not yet taken
}

type mline struct {
	ok   bool
	la   uint64
	data []byte
}

type mcut struct{ gen, off uint64 }

func newModel(sh shape) *model {
	return &model{n: sh.n, merge: sh.merge, lb: uint64(sh.perLine * sh.entryBytes), sets: uint64(sh.sets),
		state: make([]State, sh.n), fetch: make([]uint64, sh.n), stale: make([]bool, sh.n), kept: make([]mline, sh.n),
		replay: make([]bool, sh.n), cache: make([]mline, sh.sets), cuts: map[uint16]mcut{}}
}

func (m *model) line(addr uint64) uint64 { return addr - addr%m.lb }

// overlaps: the line at la holds a byte of [lo, hi) (no wrap at 2^64).
func (m *model) overlaps(la, lo, hi uint64) bool { return la < hi && la+m.lb-1 >= lo }

func (m *model) set(la uint64) *mline { return &m.cache[la/m.lb%m.sets] }

func (m *model) start(i int) {
	m.state[i], m.stale[i], m.replay[i] = Act, false, false
	m.kept[i] = mline{}
}

func (m *model) finish(i int) { m.state[i] = Free }

func (m *model) busy() int {
	n := 0
	for _, s := range m.state {
		if s != Free {
			n++
		}
	}
	return n
}

// visits is the order in which Step offers the contexts in Act: from the
// one after the last that acted, round the ring.
func (m *model) visits() []int {
	var v []int
	for k := range m.n {
		if i := (m.rr + k) % m.n; m.state[i] == Act {
			v = append(v, i)
		}
	}
	return v
}

func (m *model) takeCut(c bus.Cut) {
	e, ok := m.cuts[c.Tag]
	if !ok || e.gen != uint64(c.Gen) || c.Offset < e.off {
		m.cuts[c.Tag] = mcut{uint64(c.Gen), c.Offset}
	}
}

func (m *model) stops(p *bus.Piece, off uint64) bool {
	e, ok := m.cuts[p.Tag]
	return ok && e.gen == uint64(p.Gen) && off >= e.off
}

// takeInval: with Ack ready, the lines and kept lines of the range go,
// reads in flight of it turn stale, and the invalidation is acknowledged.
func (m *model) takeInval(iv bus.Inval, ackReady bool) bool {
	if !ackReady {
		return false
	}
	in := func(la uint64) bool { return iv.All || m.overlaps(la, iv.Lo, iv.Hi) }
	for s := range m.cache {
		if l := &m.cache[s]; l.ok && in(l.la) {
			l.ok = false
			m.st.Invalidations++
		}
	}
	for i := range m.n {
		if m.state[i] == Fetch && in(m.fetch[i]) {
			m.stale[i] = true
		}
		if m.kept[i].ok && in(m.kept[i].la) {
			m.kept[i].ok = false
		}
	}
	m.acks = append(m.acks, iv.ID)
	return true
}

// takeResp handles completion r (the cycle's first use of the read
// port); it reports whether r is taken and whether it filled the cache.
func (m *model) takeResp(r *pcie.ReadResp, reqReady bool) (taken, filled bool) {
	id := int(r.ID) % m.n
	switch {
	case m.state[id] != Fetch || m.fetch[id] != r.Addr:
		return true, false
	case m.stale[id]:
		if !reqReady {
			return false, false
		}
		m.stale[id], m.memUsed = false, true
		m.st.Refetches++
		m.reads = append(m.reads, pcie.ReadReq{ID: r.ID, Addr: m.fetch[id], Len: int(m.lb)})
		return true, false
	}
	ok := r.Status == pcie.SC
	var data []byte
	if ok {
		data = make([]byte, m.lb)
		copy(data, r.Data)
		l := m.set(r.Addr)
		if l.ok && l.la != r.Addr {
			m.st.Evictions++
		}
		*l = mline{true, r.Addr, data}
		m.st.Fills++
	}
	for i := range m.n {
		if m.state[i] == Fetch && m.fetch[i] == r.Addr && (i == id || m.merge) {
			m.state[i] = Act
			if ok {
				m.kept[i], m.replay[i] = mline{true, r.Addr, data}, true
			}
		}
	}
	return true, ok
}

func (m *model) get(i int, addr uint64) ([]byte, bool) {
	la := m.line(addr)
	if l := m.set(la); l.ok && l.la == la {
		return l.data, true
	}
	if k := m.kept[i]; k.ok && k.la == la {
		return k.data, true
	}
	return nil, false
}

func (m *model) hit(i int) linecache.Counted {
	replay := m.replay[i]
	m.replay[i] = false
	if replay {
		return linecache.CountedNothing
	}
	m.st.Hits++
	return linecache.CountedHit
}

func (m *model) miss(i int, addr uint64, reqReady bool) (linecache.Counted, bool) {
	la := m.line(addr)
	merged := false
	for j := range m.n {
		merged = merged || m.merge && m.state[j] == Fetch && m.fetch[j] == la
	}
	if !merged && (m.memUsed || !reqReady) {
		return linecache.CountedNothing, false
	}
	m.replay[i] = false
	m.st.Misses++
	if merged {
		m.st.MergedMisses++
	} else {
		m.memUsed = true
		m.reads = append(m.reads, pcie.ReadReq{ID: uint32(i), Addr: la, Len: int(m.lb)})
	}
	m.state[i], m.fetch[i], m.stale[i] = Fetch, la, false
	return linecache.CountedMiss, true
}

// pending is a completion the host holds until its cycle.
type pending struct {
	due, seq uint64
	r        pcie.ReadResp
}

// TestWalkRandomVsModel runs Contexts and the model side by side on random
// shapes, with a host that answers reads late and out of order, fails
// some, sends some nobody asked for, holds MemReq and Ack, and rewrites
// and invalidates lines, while
// the walker side starts, steps and finishes contexts at random. Besides
// the model, every line a context gets must be the one asked for and no
// older than the last invalidation of it in force. A drain at the end
// must free every context.
func TestWalkRandomVsModel(t *testing.T) {
	const seeds, cycles = 40, 4000
	for seed := int64(1); seed <= seeds; seed++ {
		if err := randomRun(seed, cycles); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func randomRun(seed int64, cycles uint64) (err error) {
	rng := rand.New(rand.NewSource(seed))
	pick := func(xs ...int) int { return xs[rng.Intn(len(xs))] }
	sh := shape{n: pick(1, 2, 3, 8, 65, 130), merge: rng.Intn(2) == 0, sets: pick(1, 2, 4, 16),
		perLine: pick(2, 4, 8), entryBytes: pick(8, 16), reqDepth: pick(1, 2, 3), ackDepth: pick(1, 2), noCut: rng.Intn(4) == 0}
	if sh.perLine*sh.entryBytes > linecache.MaxLineBytes {
		sh.perLine = 4
	}
	r, m := newRig(sh), newModel(sh)
	lb := m.lb
	// The lines the contexts use: a few near each other (so that sets
	// are shared) and the last line below 2^64.
	pool := []uint64{^uint64(0) - lb + 1}
	for k := range uint64(7) {
		pool = append(pool, 0x10000+k*lb*uint64(1+rng.Intn(3)))
	}
	// Generations count modulo 256: a line is rewritten far fewer than
	// 128 times while a read of it is in flight.
	gen := map[uint64]uint8{}              // the host's generation of each line
	snaps := map[uint32]map[uint64]uint8{} // by invalidation: the generations it puts in force
	inForce := map[uint64]uint8{}          // the oldest generation a context may still get
	var q []pending
	var seq uint64
	ids := uint32(0)
	draining := false
	fail := func(now uint64, f string, a ...any) {
		if err == nil {
			err = fmt.Errorf("shape %+v, cycle %d: %s", sh, now, fmt.Sprintf(f, a...))
		}
	}

	r.env = func(now uint64) {
		hold := !draining && rng.Intn(5) == 0
		if !hold && r.p.MemReq.Valid() {
			got := *r.p.MemReq.Peek()
			r.p.MemReq.Pop()
			if len(m.reads) == 0 || !reflect.DeepEqual(got, m.reads[0]) {
				fail(now, "read %+v, want %v", got, m.reads)
				return
			}
			m.reads = m.reads[1:]
			resp := pcie.ReadResp{ID: got.ID, Addr: got.Addr, Status: pcie.SC, Data: lineData(got.Addr, gen[got.Addr], int(lb))}
			if !draining && rng.Intn(8) == 0 {
				resp.Status, resp.Data = pcie.UR, []byte{0xde, 0xad}
			}
			q = append(q, pending{due: now + uint64(rng.Intn(9)), seq: seq, r: resp})
			seq++
		}
		if !hold && r.p.Ack.Valid() {
			got := r.p.Ack.Peek().ID
			r.p.Ack.Pop()
			if len(m.acks) == 0 || got != m.acks[0] {
				fail(now, "ack %d, want %v", got, m.acks)
				return
			}
			m.acks = m.acks[1:]
		}
		if best := -1; r.p.MemResp.Ready() {
			for i, p := range q {
				if p.due <= now && (best < 0 || p.due < q[best].due || p.due == q[best].due && p.seq < q[best].seq) {
					best = i
				}
			}
			if best >= 0 {
				r.p.MemResp.Push(q[best].r)
				q = slices.Delete(q, best, best+1)
			} else if !draining && rng.Intn(30) == 0 {
				// A completion nobody asked for (of a line no context
				// reads), by any ID.
				r.p.MemResp.Push(pcie.ReadResp{ID: uint32(rng.Intn(2 * m.n)), Addr: 0x8000, Status: pcie.SC, Data: lineData(0x8000, 0, int(lb))})
			}
		}
		if !draining && rng.Intn(12) == 0 && r.p.Ctrl.Ready() {
			// A rewrite of list bytes, then its invalidation.
			ids++
			iv := bus.Inval{ID: ids, All: rng.Intn(8) == 0}
			if !iv.All {
				iv.Lo = pool[rng.Intn(len(pool))] + uint64(rng.Intn(int(2*lb))) - lb/2
				iv.Hi = iv.Lo + uint64(rng.Intn(int(2*lb)))
				if iv.Hi < iv.Lo {
					iv.Hi = ^uint64(0)
				}
			}
			snap := map[uint64]uint8{}
			for _, la := range pool {
				if iv.All || m.overlaps(la, iv.Lo, iv.Hi) {
					gen[la]++
				}
				snap[la] = gen[la]
			}
			snaps[iv.ID] = snap
			r.p.Ctrl.Push(iv)
		}
		if r.p.Cut != nil && rng.Intn(20) == 0 && r.p.Cut.Ready() {
			r.p.Cut.Push(bus.Cut{Tag: uint16(rng.Intn(4)), Gen: uint16(rng.Intn(3)), Offset: uint64(rng.Intn(300))})
		}
	}

	r.walker = func(now uint64) {
		// The model first, from the channels' heads; then Take.
		if r.p.Cut != nil && r.p.Cut.Valid() {
			m.takeCut(*r.p.Cut.Peek())
		}
		ctrl, ackReady := r.p.Ctrl.Valid(), r.p.Ack.Ready()
		var wantIv bus.Inval
		if ctrl {
			wantIv = *r.p.Ctrl.Peek()
		}
		want := ctrl && m.takeInval(wantIv, ackReady)
		m.memUsed = false
		resp, reqReady := r.p.MemResp.Valid(), r.p.MemReq.Ready()
		var wantTaken, wantFilled bool
		if resp {
			wantTaken, wantFilled = m.takeResp(r.p.MemResp.Peek(), reqReady)
		}
		iv, filled := r.c.Take()
		if (iv != nil) != want || iv != nil && *iv != wantIv {
			fail(now, "Take's invalidation %+v; want %+v, %v", iv, wantIv, want)
			return
		}
		if filled != wantFilled || resp && r.p.MemResp.Valid() == wantTaken {
			fail(now, "Take filled %v, completion taken %v; want %v, %v", filled, resp && !r.p.MemResp.Valid(), wantFilled, wantTaken)
			return
		}
		if want {
			for la, g := range snaps[wantIv.ID] {
				if wantIv.All || m.overlaps(la, wantIv.Lo, wantIv.Hi) {
					if int8(g-inForce[la]) > 0 {
						inForce[la] = g
					}
				}
			}
		}

		// Intake: a piece for a free context, now and then.
		if !draining && rng.Intn(3) == 0 {
			if free := slices.Index(m.state, Free); free >= 0 {
				i := free
				if rng.Intn(2) == 0 {
					i = rng.Intn(m.n)
				}
				if m.state[i] == Free {
					r.c.Start(i, uint16(rng.Intn(1<<16)))
					m.start(i)
				}
			}
		}

		visits, k := m.visits(), 0
		acted := r.c.Step(func(i int) bool {
			if k >= len(visits) || i != visits[k] {
				fail(now, "Step visited %d, want the order %v (from %d)", i, visits, k)
				return true
			}
			k++
			if !draining && rng.Intn(6) == 0 {
				return false // an output not ready
			}
			addr := pool[rng.Intn(len(pool))] + uint64(rng.Intn(int(lb)))&^uint64(sh.entryBytes-1)
			data, ok := r.c.Get(i, addr)
			wdata, wok := m.get(i, addr)
			if ok != wok || !bytes.Equal(data, wdata) {
				fail(now, "context %d: Get(%#x) = % x, %v; want % x, %v", i, addr, data, ok, wdata, wok)
				return true
			}
			if ok {
				if la, g, carries := lineOf(data); carries && (la != m.line(addr) || int8(g-inForce[la]) < 0) {
					fail(now, "context %d: Get(%#x) returned line %#x of generation %d; an invalidation put %d in force", i, addr, la, g, inForce[la])
					return true
				}
				if !draining && rng.Intn(8) == 0 {
					return false
				}
				if c, w := r.c.Hit(i, addr), m.hit(i); c != w {
					fail(now, "context %d: Hit(%#x) counted %d, want %d", i, addr, c, w)
				}
				if draining || rng.Intn(3) == 0 {
					r.c.Finish(i)
					m.finish(i)
				}
				return true
			}
			ready := r.p.MemReq.Ready()
			c, acted := r.c.Miss(i, addr)
			if wc, wacted := m.miss(i, addr, ready); c != wc || acted != wacted {
				fail(now, "context %d: Miss(%#x) = %d, %v; want %d, %v", i, addr, c, acted, wc, wacted)
			}
			return acted
		})
		if err != nil {
			return
		}
		if acted {
			// The pointer moves past the context that acted.
			m.rr = (visits[k-1] + 1) % m.n
		}
		if !acted && k != len(visits) || r.c.rr != m.rr {
			fail(now, "Step = %v after visiting %d of %v; pointer %d, want %d", acted, k, visits, r.c.rr, m.rr)
			return
		}

		for range 2 {
			p := bus.Piece{Tag: uint16(rng.Intn(5)), Gen: uint16(rng.Intn(3))}
			off := uint64(rng.Intn(320))
			if got, want := r.c.Stops(&p, off), m.stops(&p, off); got != want {
				fail(now, "Stops(tag %d gen %d, %d) = %v, want %v", p.Tag, p.Gen, off, got, want)
			}
		}
		for i := range m.n {
			if r.c.State(i) != m.state[i] {
				fail(now, "context %d in state %d, want %d", i, r.c.State(i), m.state[i])
				return
			}
		}
		if r.c.Busy() != m.busy() || r.c.Cache.Stats != m.st {
			fail(now, "busy %d, cache counters %+v; want %d, %+v", r.c.Busy(), r.c.Cache.Stats, m.busy(), m.st)
		}
	}

	for r.e.Now() < cycles && err == nil {
		r.e.Step()
	}
	// Drain: no new pieces, failures, holds or invalidations; every
	// context must find its lines and finish.
	draining = true
	for limit := r.e.Now() + 2000; err == nil && (r.c.Busy() > 0 || len(q) > 0); {
		if r.e.Now() >= limit {
			return fmt.Errorf("shape %+v: drain: %d contexts busy (%s), %d completions held, after 2000 cycles", sh, r.c.Busy(), states(&r.c), len(q))
		}
		r.e.Step()
	}
	return err
}
