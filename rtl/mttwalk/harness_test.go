package mttwalk

import (
	"fmt"
	"slices"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// reader is host memory as the fake ICM sees it (ref.Memory, pcie.Memory).
type reader interface {
	Read(addr uint64, b []byte)
	Write(addr uint64, b []byte)
}

// memWrite is a change to memory at cycle At, applied by the memory itself
// before it serves any read of that cycle.
type memWrite struct {
	At   uint64
	Addr uint64
	Data []byte
}

type pending struct {
	due, seq uint64
	r        pcie.ReadResp
}

// fakeMem answers ReadReqs from mem: it takes one request a cycle, reads
// memory then, and answers after lat(seq) cycles (so answers may pass each
// other). failFirst makes the first read of every line answer UR.
type fakeMem struct {
	req       *sim.Chan[pcie.ReadReq]
	resp      *sim.Chan[pcie.ReadResp]
	mem       reader
	lat       func(seq uint64) uint64
	writes    []memWrite
	nextW     int
	q         []pending
	seq       uint64
	failFirst bool
	failed    map[uint64]bool
	reads     []pcie.ReadReq // every request taken, in order
	cycles    []uint64       // the cycle each was taken
}

func (m *fakeMem) Name() string { return "icm" }
func (m *fakeMem) Eval(now uint64) bool {
	for m.nextW < len(m.writes) && m.writes[m.nextW].At <= now {
		w := m.writes[m.nextW]
		m.mem.Write(w.Addr, w.Data)
		m.nextW++
	}
	if m.req.Valid() && len(m.q) < 64 {
		r := *m.req.Peek()
		m.req.Pop()
		if r.Len != linecache.LineSize || r.Addr%linecache.LineSize != 0 {
			panic(fmt.Sprintf("walker read %+v: not one aligned line", r))
		}
		resp := pcie.ReadResp{ID: r.ID, Addr: r.Addr, Status: pcie.SC}
		if m.failFirst && !m.failed[r.Addr] {
			if m.failed == nil {
				m.failed = map[uint64]bool{}
			}
			m.failed[r.Addr] = true
			resp.Status = pcie.UR // Data undefined: leave garbage in it
			resp.Data = []byte{0xde, 0xad}
		} else {
			resp.Data = make([]byte, r.Len)
			m.mem.Read(r.Addr, resp.Data)
		}
		m.q = append(m.q, pending{due: now + m.lat(m.seq), seq: m.seq, r: resp})
		m.seq++
		m.reads = append(m.reads, r)
		m.cycles = append(m.cycles, now)
	}
	if len(m.q) > 0 && m.resp.Ready() {
		best := -1
		for i, p := range m.q {
			if p.due <= now && (best < 0 || p.due < m.q[best].due || p.due == m.q[best].due && p.seq < m.q[best].seq) {
				best = i
			}
		}
		if best >= 0 {
			m.resp.Push(m.q[best].r)
			m.q = slices.Delete(m.q, best, best+1)
		}
	}
	return len(m.q) > 0 || m.nextW < len(m.writes)
}
func (m *fakeMem) Commit() {}

// source pushes its items in order, each no earlier than its cycle.
type source[T any] struct {
	name  string
	ch    *sim.Chan[T]
	at    []uint64
	items []T
	next  int
}

func (s *source[T]) Name() string { return s.name }
func (s *source[T]) Eval(now uint64) bool {
	if s.next < len(s.items) && s.at[s.next] <= now && s.ch.Ready() {
		s.ch.Push(s.items[s.next])
		s.next++
	}
	return s.next < len(s.items)
}
func (s *source[T]) Commit() {}

func (s *source[T]) add(at uint64, v T) {
	s.at = append(s.at, at)
	s.items = append(s.items, v)
}

// rec is one payload taken by a sink, with its cycle.
type rec[T any] struct {
	Cycle uint64
	V     T
}

// sink pops when ready(now), a pure function of the cycle, and records.
type sink[T any] struct {
	name  string
	ch    *sim.Chan[T]
	ready func(now uint64) bool
	got   []rec[T]
}

func (s *sink[T]) Name() string { return s.name }
func (s *sink[T]) Eval(now uint64) bool {
	if s.ch.Valid() && (s.ready == nil || s.ready(now)) {
		s.got = append(s.got, rec[T]{now, *s.ch.Peek()})
		s.ch.Pop()
	}
	return false
}
func (s *sink[T]) Commit() {}

// stall is a consumer that takes a payload on about 3 cycles of 4, as a
// pure function of the cycle.
func stall(seed int64) func(uint64) bool {
	return func(now uint64) bool {
		h := (now + uint64(seed)*0x51ed27) * 0x9e3779b97f4a7c15
		return h>>62 != 0
	}
}

// jitter is a memory latency of base..base+spread-1 cycles, by request.
func jitter(seed int64, base, spread uint64) func(uint64) uint64 {
	return func(seq uint64) uint64 {
		h := (seq + uint64(seed)*0x2545f491) * 0xbf58476d1ce4e5b9
		return base + (h>>32)%spread
	}
}

// bench is the walker with its channels, a fake ICM and recorders.
type bench struct {
	e    *sim.Engine
	u    *Unit
	p    Ports
	in   *source[bus.Walk]
	ctrl *source[bus.Inval]
	mem  *fakeMem
	done *sink[bus.Outcome]
	ack  *sink[bus.Ack]
}

func newBench(cfg Config, mem reader, lat func(uint64) uint64, doneReady func(uint64) bool) *bench {
	e := sim.New()
	b := &bench{e: e}
	b.p = Ports{
		In:      sim.NewChan[bus.Walk](e, "in", 2, 1),
		Done:    sim.NewChan[bus.Outcome](e, "done", 2, 1),
		MemReq:  sim.NewChan[pcie.ReadReq](e, "mem_req", 2, 1),
		MemResp: sim.NewChan[pcie.ReadResp](e, "mem_resp", 2, 1),
		Ctrl:    sim.NewChan[bus.Inval](e, "ctrl", 2, 1),
		Ack:     sim.NewChan[bus.Ack](e, "ack", 2, 1),
	}
	b.u = New("mttwalk", cfg, b.p)
	b.in = &source[bus.Walk]{name: "src", ch: b.p.In}
	b.ctrl = &source[bus.Inval]{name: "ctrl_src", ch: b.p.Ctrl}
	b.mem = &fakeMem{req: b.p.MemReq, resp: b.p.MemResp, mem: mem, lat: lat}
	b.done = &sink[bus.Outcome]{name: "done", ch: b.p.Done, ready: doneReady}
	b.ack = &sink[bus.Ack]{name: "ack", ch: b.p.Ack}
	e.Add(b.in, b.ctrl, b.u, b.mem, b.done, b.ack)
	return b
}

// run steps until every walk's bytes are covered and every invalidation
// acknowledged; it reports false if limit cycles pass first.
func (b *bench) run(limit uint64) bool {
	want := uint64(0)
	for _, w := range b.in.items {
		want += w.Len
	}
	for b.e.Now() < limit {
		got := uint64(0)
		for _, r := range b.done.got {
			got += r.V.Len
		}
		if got >= want && b.in.next == len(b.in.items) && len(b.ack.got) == len(b.ctrl.items) &&
			b.u.InUse() == 0 && b.p.Done.Len() == 0 {
			return true
		}
		if !b.e.Step() {
			b.e.SkipIdle()
		}
	}
	return false
}
