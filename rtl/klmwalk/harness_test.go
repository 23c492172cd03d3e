package klmwalk

import (
	"fmt"
	"slices"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/internal/chantest"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/rtl/walk"
)

// loopSink stands for the MKC cache and the checker in open-loop tests: it
// takes every child from Loop and returns its reservation (a Credit of the
// child's level) delay(seq) cycles later, as the checker does for a child
// routed elsewhere than the nested queue, but never before cycle
// creditFrom.
type loopSink struct {
	loop       *sim.Chan[bus.Piece]
	credit     *sim.Chan[bus.Credit]
	delay      func(seq uint64) uint64
	creditFrom uint64
	got        []chantest.Rec[bus.Piece]
	due        []uint64
	lvl        []uint8 // the level of each credit due
}

func (s *loopSink) Name() string { return "loop_sink" }
func (s *loopSink) Eval(now uint64) bool {
	if s.loop.Valid() {
		p := *s.loop.Peek()
		s.got = append(s.got, chantest.Rec[bus.Piece]{Cycle: now, V: p})
		s.due = append(s.due, max(now+s.delay(uint64(len(s.got))), s.creditFrom))
		s.lvl = append(s.lvl, p.Level)
		s.loop.Pop()
	}
	if len(s.due) > 0 && s.due[0] <= now && s.credit.Ready() {
		s.credit.Push(bus.Credit{Level: s.lvl[0]})
		s.due, s.lvl = s.due[1:], s.lvl[1:]
	}
	return len(s.due) > 0
}
func (s *loopSink) Commit() {}

// loopItem is a child the loopback holds.
type loopItem struct {
	due, seq uint64
	p        bus.Piece
}

// loopback stands for the MKC cache and the checker in closed-loop tests,
// with the golden model as their oracle: it takes each child from Loop,
// holds it lat(seq) cycles, then looks its key up in the model, runs
// ref.Check at the child's level and routes it as the checker does: a
// failure or a direct mode ends here (an outcome, and the reservation back:
// a Credit of the child's level); a KLM or Fixed Buffer Size key goes to
// Nested, where it takes the context reserved for it (no credit).
type loopback struct {
	m      *ref.Model
	loop   *sim.Chan[bus.Piece]
	nested *sim.Chan[bus.Walk]
	credit *sim.Chan[bus.Credit]
	lat    func(seq uint64) uint64
	q      []loopItem
	seq    uint64
	out    []chantest.Rec[bus.Outcome]
	errs   []string
}

func (l *loopback) Name() string { return "loopback" }
func (l *loopback) Eval(now uint64) bool {
	if l.loop.Valid() {
		l.q = append(l.q, loopItem{due: now + l.lat(l.seq), seq: l.seq, p: *l.loop.Peek()})
		l.seq++
		l.loop.Pop()
	}
	best := -1
	for i, it := range l.q {
		if it.due <= now && (best < 0 || it.due < l.q[best].due || it.due == l.q[best].due && it.seq < l.q[best].seq) {
			best = i
		}
	}
	if best < 0 {
		return len(l.q) > 0
	}
	p := l.q[best].p
	var mkc *prm.MKC
	if o := l.m.Object(p.Key.Index()); o != nil {
		mkc = &o.MKC
	}
	st := ref.Check(mkc, p.Key, int(p.Level), p.Addr, p.Len, p.QPN, p.PD, p.Type)
	switch {
	case st == prm.OK && mkc.AccessMode.UsesKLMList():
		// The nested queue is LoopSlots deep, one slot per nested
		// context: it must be ready.
		if !l.nested.Ready() {
			l.errs = append(l.errs, fmt.Sprintf("cycle %d: nested queue full: more children out than nested contexts", now))
			return true
		}
		l.nested.Push(bus.Walk{Piece: p, MKC: *mkc})
	default:
		if !l.credit.Ready() {
			l.errs = append(l.errs, fmt.Sprintf("cycle %d: credit queue full", now))
			return true
		}
		o := bus.Outcome{Tag: p.Tag, Offset: p.Offset, Len: p.Len, Status: st, Level: p.Level}
		if st == prm.OK {
			sp := map[prm.AccessMode]prm.Space{prm.ModePA: prm.SpaceDMA, prm.ModeSWICM: prm.SpaceSWICM, prm.ModeMEMIC: prm.SpaceMEMIC}
			s, ok := sp[mkc.AccessMode]
			if !ok {
				panic("loopback: test world has a key of mode " + mkc.AccessMode.String())
			}
			o.Seg = prm.Segment{Space: s, Addr: p.Addr, Len: p.Len}
		}
		l.out = append(l.out, chantest.Rec[bus.Outcome]{Cycle: now, V: o})
		l.credit.Push(bus.Credit{Level: p.Level})
	}
	l.q = slices.Delete(l.q, best, best+1)
	return len(l.q) > 0
}
func (l *loopback) Commit() {}

// wantLevels is the level each context serves, as the design gives it:
// the first Contexts-NestedContexts serve level 0, the nested ones levels
// 1..MaxIndirection round-robin (with MaxIndirection 0 there is no nested
// level and every context serves level 0).
func wantLevels(cfg Config) []uint8 {
	lv := make([]uint8, cfg.Contexts)
	if cfg.MaxIndirection == 0 {
		return lv
	}
	n0 := cfg.Contexts - cfg.NestedContexts
	for k := range cfg.NestedContexts {
		lv[n0+k] = uint8(1 + k%cfg.MaxIndirection)
	}
	return lv
}

// bench is the unit with its channels, a fake ICM and recorders; the loop
// side is a loopSink (open) or a loopback (closed).
type bench struct {
	e      *sim.Engine
	u      *Unit
	cfg    Config
	p      Ports
	in     *chantest.Source[bus.Walk]
	nested *chantest.Source[bus.Walk]
	ctrl   *chantest.Source[bus.Inval]
	mem    *chantest.Memory
	done   *chantest.Sink[bus.Outcome]
	ack    *chantest.Sink[bus.Ack]
	ls     *loopSink
	lb     *loopback

	// Reservation accounting, checked every cycle (unless direct): the
	// children of each level in the loop (sent, not yet back on Credit or
	// taken from Nested), never more than the free contexts of that level;
	// Credits() is the free contexts of the nested levels less those.
	levels         []uint8 // wantLevels(cfg)
	full           int     // Credits() of an idle unit: the nested contexts
	outstanding    []int   // by level
	maxOutstanding []int   // by level
	creditPops     []uint64
	creditErr      string
}

func newBench(cfg Config, mem chantest.Host, lat func(uint64) uint64, doneReady func(uint64) bool) *bench {
	e := sim.New()
	b := &bench{e: e, cfg: cfg, levels: wantLevels(cfg),
		outstanding: make([]int, cfg.MaxIndirection+2), maxOutstanding: make([]int, cfg.MaxIndirection+2)}
	for _, l := range b.levels {
		if l > 0 {
			b.full++
		}
	}
	slots := cfg.LoopSlots()
	b.p = Ports{
		In:     sim.NewChan[bus.Walk](e, "in", 2, 1),
		Nested: sim.NewChan[bus.Walk](e, "nested", slots, 1),
		Loop:   sim.NewChan[bus.Piece](e, "loop", slots, 1),
		Credit: sim.NewChan[bus.Credit](e, "credit", slots, 1),
		Done:   sim.NewChan[bus.Outcome](e, "done", 2, 1),
		Ports: walk.Ports{
			MemReq:  sim.NewChan[pcie.ReadReq](e, "mem_req", 2, 1),
			MemResp: sim.NewChan[pcie.ReadResp](e, "mem_resp", 2, 1),
			Ctrl:    sim.NewChan[bus.Inval](e, "ctrl", 2, 1),
			Ack:     sim.NewChan[bus.Ack](e, "ack", 2, 1),
		},
	}
	b.u = New("klmwalk", cfg, b.p)
	b.in = chantest.NewSource("src", b.p.In)
	b.ctrl = chantest.NewSource("ctrl_src", b.p.Ctrl)
	b.mem = chantest.NewMemory(b.p.MemReq, b.p.MemResp, mem, lat)
	b.done = chantest.NewSink("done", b.p.Done, doneReady)
	b.ack = chantest.NewSink[bus.Ack]("ack", b.p.Ack, nil)
	e.Add(b.in, b.ctrl, b.u, b.mem, b.done, b.ack)
	e.OnCycle(b.account)
	return b
}

// account runs between evaluation and commit: the unit's registers hold
// this cycle's new values and the channels this cycle's handshakes.
func (b *bench) account(now uint64) {
	if b.creditErr != "" || b.nested != nil {
		return
	}
	fail := func(format string, a ...any) {
		b.creditErr = fmt.Sprintf("cycle %d: ", now) + fmt.Sprintf(format, a...)
	}
	if v, pushed := b.p.Loop.Pushed(); pushed {
		if v.Level < 1 || int(v.Level) > b.cfg.MaxIndirection {
			fail("child of level %d sent to be looked up (max_indirection %d)", v.Level, b.cfg.MaxIndirection)
			return
		}
		b.outstanding[v.Level]++
	}
	if _, pop := b.p.Credit.Activity(); pop {
		l := b.p.Credit.Peek().Level
		if int(l) >= len(b.outstanding) || b.outstanding[l] == 0 {
			fail("credit of level %d with no child of that level outstanding", l)
			return
		}
		b.outstanding[l]--
		b.creditPops = append(b.creditPops, now)
	}
	if b.p.Nested.HeadValid() {
		if _, pop := b.p.Nested.Activity(); !pop {
			fail("nested piece of level %d not taken: its reserved context is missing", b.p.Nested.Peek().Level)
			return
		}
		l := b.p.Nested.Peek().Level
		if int(l) >= len(b.outstanding) || b.outstanding[l] == 0 {
			fail("nested piece of level %d with no child of that level outstanding", l)
			return
		}
		b.outstanding[l]--
	}
	free := make([]int, len(b.outstanding))
	for i, l := range b.levels {
		st, w := b.u.Context(i)
		switch {
		case st == walk.Free:
			free[l]++
		case l > 0 && w.Level != l:
			fail("context %d of level %d holds a piece of level %d", i, l, w.Level)
			return
		case b.lb != nil && w.Level != l:
			fail("context %d of level %d holds a piece of level %d", i, l, w.Level)
			return
		}
	}
	credits := 0
	for l := 1; l < len(b.outstanding); l++ {
		b.maxOutstanding[l] = max(b.maxOutstanding[l], b.outstanding[l])
		if b.outstanding[l] > free[l] {
			fail("%d children of level %d outstanding, only %d contexts of that level free", b.outstanding[l], l, free[l])
			return
		}
		credits += free[l] - b.outstanding[l]
	}
	if b.u.Credits() != credits {
		fail("unit holds %d credits; free nested contexts less children outstanding: %d (outstanding by level %v, free %v)",
			b.u.Credits(), credits, b.outstanding, free)
	}
}

// open attaches a loopSink; closed attaches a loopback over model m.
func (b *bench) open(delay func(uint64) uint64, creditFrom uint64) {
	b.ls = &loopSink{loop: b.p.Loop, credit: b.p.Credit, delay: delay, creditFrom: creditFrom}
	b.e.Add(b.ls)
}

func (b *bench) closed(m *ref.Model, lat func(uint64) uint64) {
	b.lb = &loopback{m: m, loop: b.p.Loop, nested: b.p.Nested, credit: b.p.Credit, lat: lat}
	b.e.Add(b.lb)
}

// direct attaches a source that pushes on Nested (directed tests; its
// pieces hold no reservation, so the accounting is then not checked).
func (b *bench) direct() {
	b.nested = chantest.NewSource("nested_src", b.p.Nested)
	b.e.Add(b.nested)
}

// final sums the bytes that ended: outcomes of the unit and, closed, of
// the loopback; open, children count as ended.
func (b *bench) final() uint64 {
	n := uint64(0)
	for _, r := range b.done.Got {
		n += r.V.Len
	}
	if b.ls != nil {
		for _, r := range b.ls.got {
			n += r.V.Len
		}
	}
	if b.lb != nil {
		for _, r := range b.lb.out {
			n += r.V.Len
		}
	}
	return n
}

// run steps until every piece's bytes ended, every reservation is back
// and every invalidation acknowledged; false if limit cycles pass first.
func (b *bench) run(limit uint64) bool {
	want := uint64(0)
	for _, w := range b.in.Items {
		want += w.Len
	}
	for b.e.Now() < limit {
		if b.final() >= want && b.in.Next == len(b.in.Items) && len(b.ack.Got) == len(b.ctrl.Items) &&
			b.u.InUse() == 0 && b.p.Done.Len() == 0 && b.u.Credits() == b.full {
			return true
		}
		if !b.e.Step() {
			b.e.SkipIdle()
		}
	}
	return false
}
