// Package chantest holds the test benches' stand-ins shared by the walker
// units' tests: a fake ICM that answers PCIe line reads from host memory,
// a Source that pushes payloads on a channel at given cycles, a Sink that
// takes and records them, and the pure-function stalls and latencies that
// drive them. Every stand-in is a sim.Component.
package chantest

import (
	"fmt"
	"slices"

	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// Host is host memory as the fake ICM sees it (ref.Memory, pcie.Memory).
type Host interface {
	Read(addr uint64, b []byte)
	Write(addr uint64, b []byte)
}

// Write is a change to memory at cycle At, applied by the Memory itself
// before it serves any read of that cycle.
type Write struct {
	At   uint64
	Addr uint64
	Data []byte
}

// pending is an answer the Memory holds until cycle due; seq orders
// answers due on the same cycle.
type pending struct {
	due, seq uint64
	r        pcie.ReadResp
}

// Memory is a fake ICM that answers ReadReqs from host memory: it takes
// one request a cycle, reads memory then, and answers after lat(seq)
// cycles (so answers may pass each other). It panics on a request that is
// not one aligned line.
type Memory struct {
	req   *sim.Chan[pcie.ReadReq]
	resp  *sim.Chan[pcie.ReadResp]
	mem   Host
	lat   func(seq uint64) uint64
	nextW int
	q     []pending
	seq   uint64
	// failed is the lines whose first read FailFirst has failed.
	failed map[uint64]bool

	// Writes are applied to memory in order, each on its cycle At (they
	// must be sorted by At); set them before the run.
	Writes []Write
	// FailFirst makes the first read of every line answer UR.
	FailFirst bool
	// AnySize takes reads of any length at any address (the send-queue
	// front's), not only aligned lines.
	AnySize bool
	// Reads is every request taken, in order.
	Reads []pcie.ReadReq
	// Cycles is the cycle each of Reads was taken.
	Cycles []uint64
}

// Failures is the number of reads FailFirst answered with UR.
func (m *Memory) Failures() int { return len(m.failed) }

// NewMemory returns a Memory that takes requests from req and answers on
// resp from mem, the answer to the seq-th request (from 0) lat(seq) cycles
// after it is taken.
func NewMemory(req *sim.Chan[pcie.ReadReq], resp *sim.Chan[pcie.ReadResp], mem Host, lat func(seq uint64) uint64) *Memory {
	return &Memory{req: req, resp: resp, mem: mem, lat: lat}
}

// Name is the component's name, "icm".
func (m *Memory) Name() string { return "icm" }

// Eval applies the writes due, takes a request if one is waiting and answers
// the oldest one due, if resp is ready; it reports whether work remains.
func (m *Memory) Eval(now uint64) bool {
	for m.nextW < len(m.Writes) && m.Writes[m.nextW].At <= now {
		w := m.Writes[m.nextW]
		m.mem.Write(w.Addr, w.Data)
		m.nextW++
	}
	if m.req.Valid() && len(m.q) < 64 {
		r := *m.req.Peek()
		m.req.Pop()
		if !m.AnySize && (r.Len < 1 || r.Len > linecache.MaxLineBytes || r.Len&(r.Len-1) != 0 || r.Addr%uint64(r.Len) != 0) {
			panic(fmt.Sprintf("walker read %+v: not one aligned line", r))
		}
		resp := pcie.ReadResp{ID: r.ID, Addr: r.Addr, Status: pcie.SC}
		if r.Write {
			// A write with its data (the send-queue front's CQEs) is
			// applied now and answered SC.
			m.mem.Write(r.Addr, r.Data)
		} else if m.FailFirst && !m.failed[r.Addr] {
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
		m.Reads = append(m.Reads, r)
		m.Cycles = append(m.Cycles, now)
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
	return len(m.q) > 0 || m.nextW < len(m.Writes)
}

// Commit does nothing: the Memory has no registers.
func (m *Memory) Commit() {}

// Source pushes its items on a channel in order, each no earlier than its
// cycle.
type Source[T any] struct {
	name string
	ch   *sim.Chan[T]
	at   []uint64
	// Items is every payload added, in order.
	Items []T
	// Next is how many of Items have been pushed.
	Next int
}

// NewSource returns an empty Source, named name, that pushes on ch.
func NewSource[T any](name string, ch *sim.Chan[T]) *Source[T] {
	return &Source[T]{name: name, ch: ch}
}

// Name is the name given to NewSource.
func (s *Source[T]) Name() string { return s.name }

// Eval pushes the next item if its cycle has come and the channel is
// ready; it reports whether items remain.
func (s *Source[T]) Eval(now uint64) bool {
	if s.Next < len(s.Items) && s.at[s.Next] <= now && s.ch.Ready() {
		s.ch.Push(s.Items[s.Next])
		s.Next++
	}
	return s.Next < len(s.Items)
}

// Commit does nothing: the Source has no registers.
func (s *Source[T]) Commit() {}

// Add queues v to be pushed no earlier than cycle at, after every item
// added before it.
func (s *Source[T]) Add(at uint64, v T) {
	s.at = append(s.at, at)
	s.Items = append(s.Items, v)
}

// Rec is one payload taken by a Sink, with its cycle.
type Rec[T any] struct {
	Cycle uint64
	V     T
}

// Sink pops a channel when ready(now), a pure function of the cycle, and
// records what it takes.
type Sink[T any] struct {
	name  string
	ch    *sim.Chan[T]
	ready func(now uint64) bool
	// Got is every payload taken, in order, with its cycle.
	Got []Rec[T]
}

// NewSink returns a Sink, named name, that pops ch on the cycles ready
// gives (every cycle if ready is nil).
func NewSink[T any](name string, ch *sim.Chan[T], ready func(now uint64) bool) *Sink[T] {
	return &Sink[T]{name: name, ch: ch, ready: ready}
}

// Name is the name given to NewSink.
func (s *Sink[T]) Name() string { return s.name }

// Eval takes and records a payload if one is valid and the Sink is ready;
// the Sink never has work of its own, so it reports false.
func (s *Sink[T]) Eval(now uint64) bool {
	if s.ch.Valid() && (s.ready == nil || s.ready(now)) {
		s.Got = append(s.Got, Rec[T]{now, *s.ch.Peek()})
		s.ch.Pop()
	}
	return false
}

// Commit does nothing: the Sink has no registers.
func (s *Sink[T]) Commit() {}

// Stall is a consumer that takes a payload on about 3 cycles of 4, as a
// pure function of the cycle.
func Stall(seed int64) func(uint64) bool {
	return func(now uint64) bool {
		h := (now + uint64(seed)*0x51ed27) * 0x9e3779b97f4a7c15
		return h>>62 != 0
	}
}

// Jitter is a memory latency of base..base+spread-1 cycles, by request.
func Jitter(seed int64, base, spread uint64) func(uint64) uint64 {
	return func(seq uint64) uint64 {
		h := (seq + uint64(seed)*0x2545f491) * 0xbf58476d1ce4e5b9
		return base + (h>>32)%spread
	}
}
