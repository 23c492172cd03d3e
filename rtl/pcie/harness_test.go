package pcie

import (
	"fmt"
	"reflect"
	"testing"

	"mkeysim/rtl/sim"
)

// plannedRead is a ReadReq a test client pushes at cycle At or later.
type plannedRead struct {
	At uint64
	ReadReq
}

// respRecord is a response as a client saw it.
type respRecord struct {
	Cycle uint64 // cycle the client popped it
	ReadResp
}

// testClient is a unit using the Requester: it pushes its plan in order,
// each request no earlier than its At, and pops every response at once.
type testClient struct {
	name   string
	req    *sim.Chan[ReadReq]
	resp   *sim.Chan[ReadResp]
	plan   []plannedRead
	next   int
	sentAt map[uint32]uint64
	got    []respRecord

	// staged
	pushed  bool
	popped  bool
	rec     respRecord
	pushAt  uint64
	forever func(i int) ReadReq // when set, the plan is endless
	count   int                 // responses seen
	discard bool                // count responses without keeping them
}

func (c *testClient) Name() string { return c.name }

func (c *testClient) more() bool { return c.forever != nil || c.next < len(c.plan) }

func (c *testClient) Eval(now uint64) bool {
	c.pushed, c.popped = false, false
	if c.more() && c.req.Ready() {
		var q plannedRead
		if c.forever != nil {
			q = plannedRead{ReadReq: c.forever(c.next)}
		} else {
			q = c.plan[c.next]
		}
		if now >= q.At {
			c.req.Push(q.ReadReq)
			c.pushed, c.pushAt = true, now
		}
	}
	if c.resp.Valid() {
		c.rec = respRecord{Cycle: now, ReadResp: *c.resp.Peek()}
		c.resp.Pop()
		c.popped = true
	}
	return c.more()
}

func (c *testClient) Commit() {
	if c.pushed {
		if c.forever == nil {
			c.sentAt[c.plan[c.next].ID] = c.pushAt
		}
		c.next++
	}
	if c.popped {
		c.count++
		if !c.discard {
			c.got = append(c.got, c.rec)
		}
		c.rec = respRecord{}
	}
}

// system is Requester + the host side of NewHost (Link up, RootComplex,
// Link down), all channels of latency 1, with test clients.
type system struct {
	cfg     Config
	e       *sim.Engine
	mem     *Memory
	req     *Requester
	up      *Link
	down    *Link
	rc      *RootComplex
	clients []*testClient
	tx, rx  *sim.Chan[TLP] // Requester's ports
}

func newSystem(cfg Config, mem *Memory, plans ...[]plannedRead) *system {
	e := sim.New()
	s := &system{cfg: cfg, e: e, mem: mem}
	s.tx = sim.NewChan[TLP](e, "dev.tx", 2, 1)
	s.rx = sim.NewChan[TLP](e, "dev.rx", 2, 1)
	s.req = NewRequester("dev.rd", cfg, s.tx, s.rx)
	h := NewHost(e, cfg, mem, s.tx, s.rx, HostOptions{Depth: 2})
	s.up, s.down, s.rc = h.Up, h.Down, h.RC
	for i, p := range plans {
		c := &testClient{name: fmt.Sprintf("client%d", i), plan: p, sentAt: map[uint32]uint64{},
			req:  sim.NewChan[ReadReq](e, fmt.Sprintf("client%d.req", i), 2, 1),
			resp: sim.NewChan[ReadResp](e, fmt.Sprintf("client%d.resp", i), 2, 1)}
		s.req.AddClient(c.req, c.resp)
		s.clients = append(s.clients, c)
		e.Add(c)
	}
	e.Add(s.req)
	return s
}

// withDefaults is c with its zero fields taken from DefaultConfig: the
// tests' shorthand for a configuration that differs from the defaults in
// a few fields. (The model reads no zero as a default: Validate refuses
// one.)
func withDefaults(c Config) Config {
	v, d := reflect.ValueOf(&c).Elem(), reflect.ValueOf(DefaultConfig())
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			v.Field(i).Set(d.Field(i))
		}
	}
	return c
}

func (s *system) done() bool {
	for _, c := range s.clients {
		if c.more() || len(c.got) < len(c.plan) {
			return false
		}
	}
	return true
}

// run steps the engine with idle skipping until every client has all its
// responses, or limit cycles pass.
func (s *system) run(t testing.TB, limit uint64) {
	t.Helper()
	for !s.done() {
		if s.e.Now() > limit {
			t.Fatalf("not done after %d cycles: requester %+v, tags in use %d", limit, s.req.Stats(), s.req.TagsInUse())
		}
		if busy := s.e.Step(); !busy {
			s.e.SkipIdle()
		}
	}
}

// expected latency of a read that needs one MRd and one CplD, with every
// channel of latency 1 (see the package doc).
func oneReadLatency(cfg Config, addr uint64, n int) uint64 {
	mrd := NewRead(0, 0, addr, n)
	cpl := TLP{Type: CplD, LengthDW: mrd.LengthDW}
	return uint64(4 + 2*cfg.LinkLatencyCycles + cfg.ICMLatencyCycles +
		cfg.SerializationCycles(mrd.WireBytes()) + cfg.SerializationCycles(cpl.WireBytes()))
}
