package protcheck

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
)

// refStatus is the oracle: ref.Check on the same piece (obj nil when the
// index is not created).
func refStatus(l *bus.Lookup) prm.Status {
	var obj *prm.MKC
	if l.Created {
		obj = &l.MKC
	}
	p := &l.Piece
	return ref.Check(obj, p.Key, int(p.Level), p.Addr, p.Len, p.QPN, p.PD, p.Type)
}

const (
	testPD  = 5
	testQPN = 0x11
	testVar = 0x3c
)

// baseLookup passes every check: a PA key over [0x1000, 0x11000) with every
// right, and a piece of 0x100 bytes at 0x2000.
func baseLookup() bus.Lookup {
	return bus.Lookup{
		Piece: bus.Piece{Tag: 1, Type: prm.LocalRead, Key: prm.MakeKey(7, testVar), Addr: 0x2000, Len: 0x100,
			QPN: testQPN, PD: testPD},
		MKC: prm.MKC{LR: true, LW: true, RR: true, RW: true, A: true, PD: testPD, QPN: prm.QPNNone, Variant: testVar,
			StartAddr: 0x1000, Len: 0x10000, AccessMode: prm.ModePA, LogEntitySize: 12},
		Created: true,
	}
}

const top = ^uint64(0) // 2^64 - 1

// directed are the cases of translation.md 4, one or more rows per status,
// with the boundaries of the range check and the order of the checks.
var directed = []struct {
	name string
	mod  func(l *bus.Lookup)
	want prm.Status
}{
	{"ok PA", func(l *bus.Lookup) {}, prm.OK},
	{"ok every mode", func(l *bus.Lookup) { l.MKC.AccessMode = prm.ModeMEMIC }, prm.OK},

	{"bad key index", func(l *bus.Lookup) { l.Created = false }, prm.BadKeyIndex},
	{"bad key index before everything", func(l *bus.Lookup) {
		l.Created, l.MKC.Free, l.MKC.PD, l.Piece.Len = false, true, 9, 1<<40
	}, prm.BadKeyIndex},

	{"key mismatch", func(l *bus.Lookup) { l.Key = prm.MakeKey(7, testVar+1) }, prm.KeyMismatch},
	{"key mismatch: index ignored", func(l *bus.Lookup) { l.Key = prm.MakeKey(8, testVar) }, prm.OK},
	{"key mismatch before free", func(l *bus.Lookup) { l.Key, l.MKC.Free = prm.MakeKey(7, 0), true }, prm.KeyMismatch},

	{"free", func(l *bus.Lookup) { l.MKC.Free = true }, prm.MKeyFree},
	{"free before pd", func(l *bus.Lookup) { l.MKC.Free, l.PD = true, 6 }, prm.MKeyFree},

	{"pd mismatch", func(l *bus.Lookup) { l.PD = testPD + 1 }, prm.PDMismatch},
	{"pd mismatch before qpn", func(l *bus.Lookup) { l.PD, l.MKC.QPN = 0, 0x99 }, prm.PDMismatch},

	{"qpn mismatch", func(l *bus.Lookup) { l.MKC.QPN = testQPN + 1 }, prm.QPNMismatch},
	{"bound qpn matches", func(l *bus.Lookup) { l.MKC.QPN = testQPN }, prm.OK},
	{"bound qpn 0", func(l *bus.Lookup) { l.MKC.QPN, l.QPN = 0, 0 }, prm.OK},
	{"bound qpn 0, other qp", func(l *bus.Lookup) { l.MKC.QPN = 0 }, prm.QPNMismatch},
	{"qpn 0xffffff unbound for any qp", func(l *bus.Lookup) { l.QPN = prm.QPNNone - 1 }, prm.OK},
	{"qpn mismatch before range", func(l *bus.Lookup) { l.MKC.QPN, l.Addr = 1, 0 }, prm.QPNMismatch},

	{"range: below start", func(l *bus.Lookup) { l.Addr = 0xfff }, prm.OutOfRange},
	{"range: at start", func(l *bus.Lookup) { l.Addr = 0x1000 }, prm.OK},
	{"range: ends at limit", func(l *bus.Lookup) { l.Addr = 0x11000 - 0x100 }, prm.OK},
	{"range: one past limit", func(l *bus.Lookup) { l.Addr = 0x11000 - 0xff }, prm.OutOfRange},
	{"range: empty piece at limit", func(l *bus.Lookup) { l.Addr, l.Len = 0x11000, 0 }, prm.OK},
	{"range: len 0 key", func(l *bus.Lookup) { l.MKC.Len, l.Addr, l.Len = 0, 0x1000, 1 }, prm.OutOfRange},
	{"range: key ends exactly at 2^64", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = top-0xfff, 0x1000, top-0xff, 0x100
	}, prm.OK},
	{"range: piece ends exactly at 2^64, key passes 2^64", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = top-0xfff, 0x2000, top-0xff, 0x100
	}, prm.OK},
	{"range: piece passes 2^64 by one", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = top-0xfff, 0x2000, top-0xfe, 0x100
	}, prm.OutOfRange},
	{"range: piece wraps, key wraps further", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = top-0xfff, top, top-0xf, 0x20
	}, prm.OutOfRange},
	{"range: key len 2^64-1 from 1", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = 1, top, top, 1
	}, prm.OK},
	{"range: key passes 2^64, piece below start", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = top-0xfff, top, 0, 0x10
	}, prm.OutOfRange},
	{"range: whole space but one byte", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = 0, top, top-0x10, 0x10
	}, prm.OK},
	{"range: whole space, last byte", func(l *bus.Lookup) {
		l.MKC.StartAddr, l.MKC.Len, l.Addr, l.Len = 0, top, top, 1
	}, prm.OutOfRange},
	{"length64: anywhere", func(l *bus.Lookup) { l.MKC.Length64, l.Addr = true, 0 }, prm.OK},
	{"length64: len ignored", func(l *bus.Lookup) { l.MKC.Length64, l.MKC.Len, l.Addr = true, 0, 0x5 }, prm.OK},
	{"length64: ends at 2^64", func(l *bus.Lookup) { l.MKC.Length64, l.Addr, l.Len = true, top-0xff, 0x100 }, prm.OK},
	{"length64: passes 2^64", func(l *bus.Lookup) { l.MKC.Length64, l.Addr, l.Len = true, top-0xfe, 0x100 }, prm.OutOfRange},
	{"length64: 2^32-1 bytes at 2^64-2^32+1", func(l *bus.Lookup) {
		l.MKC.Length64, l.Addr, l.Len = true, top-(1<<32)+2, 1<<32-1
	}, prm.OK},
	{"range before rights", func(l *bus.Lookup) { l.Addr, l.MKC.LR = 0, false }, prm.OutOfRange},

	{"local read denied", func(l *bus.Lookup) { l.MKC.LR = false }, prm.AccessDenied},
	{"local write denied", func(l *bus.Lookup) { l.Type, l.MKC.LW = prm.LocalWrite, false }, prm.AccessDenied},
	{"remote read denied", func(l *bus.Lookup) { l.Type, l.MKC.RR = prm.RemoteRead, false }, prm.AccessDenied},
	{"remote write denied", func(l *bus.Lookup) { l.Type, l.MKC.RW = prm.RemoteWrite, false }, prm.AccessDenied},
	{"remote atomic denied", func(l *bus.Lookup) { l.Type, l.MKC.A, l.Len = prm.RemoteAtomic, false, 8 }, prm.AccessDenied},
	{"remote write, only rw", func(l *bus.Lookup) {
		l.Type = prm.RemoteWrite
		l.MKC.LR, l.MKC.LW, l.MKC.RR, l.MKC.A = false, false, false, false
	}, prm.OK},
	{"rights before mode", func(l *bus.Lookup) { l.MKC.LR, l.MKC.AccessMode = false, 7 }, prm.AccessDenied},

	{"reserved mode 6", func(l *bus.Lookup) { l.MKC.AccessMode = 6 }, prm.BadAccessMode},
	{"reserved mode 7", func(l *bus.Lookup) { l.MKC.AccessMode = 7 }, prm.BadAccessMode},
	{"reserved mode 0x1f", func(l *bus.Lookup) { l.MKC.AccessMode = 0x1f }, prm.BadAccessMode},
	{"MTT log 11", func(l *bus.Lookup) { l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeMTT, 11 }, prm.BadAccessMode},
	{"MTT log 0", func(l *bus.Lookup) { l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeMTT, 0 }, prm.BadAccessMode},
	{"MTT log 12", func(l *bus.Lookup) { l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeMTT, 12 }, prm.OK},
	{"MTT log 31", func(l *bus.Lookup) { l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeMTT, 31 }, prm.OK},
	{"fixed log 11", func(l *bus.Lookup) {
		l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeFixedBufferSize, 11
	}, prm.BadAccessMode},
	{"fixed log 12", func(l *bus.Lookup) {
		l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeFixedBufferSize, 12
	}, prm.OK},
	{"KLM log 0 is fine", func(l *bus.Lookup) { l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeKLM, 0 }, prm.OK},
	{"PA log 0 is fine", func(l *bus.Lookup) { l.MKC.LogEntitySize = 0 }, prm.OK},
	{"SW_ICM log 0 is fine", func(l *bus.Lookup) { l.MKC.AccessMode, l.MKC.LogEntitySize = prm.ModeSWICM, 0 }, prm.OK},
	{"mode before atomic alignment", func(l *bus.Lookup) {
		l.Type, l.Len, l.MKC.AccessMode = prm.RemoteAtomic, 4, 6
	}, prm.BadAccessMode},

	{"atomic ok", func(l *bus.Lookup) { l.Type, l.Len = prm.RemoteAtomic, 8 }, prm.OK},
	{"atomic length 4", func(l *bus.Lookup) { l.Type, l.Len = prm.RemoteAtomic, 4 }, prm.MisalignedAtomic},
	{"atomic length 16", func(l *bus.Lookup) { l.Type, l.Len = prm.RemoteAtomic, 16 }, prm.MisalignedAtomic},
	{"atomic address +4", func(l *bus.Lookup) { l.Type, l.Len, l.Addr = prm.RemoteAtomic, 8, 0x2004 }, prm.MisalignedAtomic},
	{"atomic address +1", func(l *bus.Lookup) { l.Type, l.Len, l.Addr = prm.RemoteAtomic, 8, 0x2001 }, prm.MisalignedAtomic},
	{"atomic level 1 length 4", func(l *bus.Lookup) { l.Type, l.Len, l.Level = prm.RemoteAtomic, 4, 1 }, prm.OK},
	{"atomic level 1 unaligned", func(l *bus.Lookup) {
		l.Type, l.Len, l.Addr, l.Level = prm.RemoteAtomic, 3, 0x2003, 1
	}, prm.OK},
	{"atomic level 4 unaligned", func(l *bus.Lookup) { l.Type, l.Len, l.Addr, l.Level = prm.RemoteAtomic, 8, 0x2002, 4 }, prm.OK},
	{"remote write length 4 level 0", func(l *bus.Lookup) { l.Type, l.Len = prm.RemoteWrite, 4 }, prm.OK},
	{"atomic out of range before alignment", func(l *bus.Lookup) {
		l.Type, l.Len, l.Addr = prm.RemoteAtomic, 4, 0x11000
	}, prm.OutOfRange},
}

// TestCheckDirected: protcheck.Check and ref.Check both give the spec's
// status on every directed case.
func TestCheckDirected(t *testing.T) {
	seen := map[prm.Status]bool{}
	for _, tc := range directed {
		l := baseLookup()
		tc.mod(&l)
		got, oracle := Check(&l), refStatus(&l)
		if got != tc.want || oracle != tc.want {
			t.Errorf("%s: protcheck %v, ref %v, spec %v (piece %+v mkc %+v created %v)",
				tc.name, got, oracle, tc.want, l.Piece, l.MKC, l.Created)
		}
		seen[tc.want] = true
	}
	for st := prm.BadKeyIndex; st <= prm.MisalignedAtomic; st++ {
		if !seen[st] {
			t.Errorf("no directed case for %v", st)
		}
	}
}

// genLookup draws a lookup biased to the boundaries of every check.
func genLookup(rng *rand.Rand) bus.Lookup {
	pick := func(vs ...uint64) uint64 { return vs[rng.Intn(len(vs))] }
	chance := func(n int) bool { return rng.Intn(n) == 0 }
	var l bus.Lookup
	m := &l.MKC
	p := &l.Piece
	l.Created = !chance(20)
	m.Variant = uint8(rng.Intn(4))
	p.Key = prm.MakeKey(uint32(rng.Intn(1<<24)), uint8(pick(uint64(m.Variant), uint64(m.Variant), uint64(m.Variant), uint64(m.Variant)^1)))
	m.Free = chance(15)
	p.PD = uint32(rng.Intn(1 << 24))
	m.PD = p.PD
	if chance(15) {
		m.PD ^= 1 << uint(rng.Intn(24))
	}
	p.QPN = uint32(rng.Intn(1 << 24))
	m.QPN = uint32(pick(prm.QPNNone, prm.QPNNone, prm.QPNNone, prm.QPNNone, uint64(p.QPN), uint64(p.QPN)^1, 0))
	m.LR, m.LW, m.RR, m.RW, m.A = !chance(10), !chance(10), !chance(10), !chance(10), !chance(10)
	m.AccessMode = prm.AccessMode(rng.Intn(6))
	if chance(12) {
		m.AccessMode = prm.AccessMode(6 + rng.Intn(26))
	}
	m.LogEntitySize = uint8(pick(12, 12, 13, 21, 31, 11, 0, uint64(rng.Intn(32))))
	m.Length64 = chance(8)
	p.Type = prm.AccessType(rng.Intn(5))
	p.Level = uint8(pick(0, 0, 0, 1, 2, 4, 5, 255))
	p.Len = pick(0, 1, 3, 7, 8, 8, 8, 9, 16, 4096, uint64(rng.Intn(1<<20)), 1<<32-1, uint64(rng.Uint32()))
	if chance(200) {
		p.Len = rng.Uint64()
	}
	m.StartAddr = pick(0, 1, 0x1000, 1<<63, top-0xfff, top-uint64(rng.Intn(1<<20)), top, rng.Uint64(), uint64(rng.Intn(1<<40)))
	room := top - m.StartAddr // len that ends exactly at 2^64 - 1 ... +1 below
	m.Len = pick(0, 1, 8, room, room+1, room+2, top, rng.Uint64(), uint64(rng.Intn(1<<32)), p.Len, p.Len+1)
	lim := m.StartAddr + m.Len // may wrap; the biases below aim at both sides
	off := uint64(rng.Intn(64))
	p.Addr = pick(m.StartAddr, m.StartAddr+off, m.StartAddr-1, m.StartAddr-off, lim-p.Len, lim-p.Len+1, lim-p.Len-1,
		top-p.Len+1, top-p.Len+2, top-p.Len, rng.Uint64(), 0, m.StartAddr+uint64(rng.Intn(1<<32)))
	if chance(3) {
		p.Addr &^= 7
		if chance(2) {
			p.Addr |= uint64(rng.Intn(8))
		}
	}
	if chance(4) {
		p.Type, p.Len = prm.RemoteAtomic, pick(8, 8, 8, 4, 16, 0)
	}
	p.Offset = uint64(rng.Intn(1 << 20))
	p.Tag = uint16(rng.Intn(1 << 16))
	return l
}

// TestCheckRandom: protcheck.Check equals ref.Check on 100k random pieces;
// every status occurs often enough for the comparison to mean something.
func TestCheckRandom(t *testing.T) {
	const seed = 20240601
	const n = 100000
	rng := rand.New(rand.NewSource(seed))
	count := map[prm.Status]int{}
	for i := range n {
		l := genLookup(rng)
		got, want := Check(&l), refStatus(&l)
		if got != want {
			t.Fatalf("seed %d case %d: protcheck %v, ref %v\npiece %+v\nmkc %+v\ncreated %v", seed, i, got, want,
				l.Piece, l.MKC, l.Created)
		}
		count[want]++
	}
	for st := prm.OK; st <= prm.MisalignedAtomic; st++ {
		if st == prm.IndirectionDepth {
			continue // not this stage's check
		}
		if count[st] < 300 {
			t.Errorf("seed %d: only %d cases with status %v (generator lost its bias)", seed, count[st], st)
		}
	}
}

// ---------------------------------------------------------------------------
// The stage in an engine.

type timed struct {
	At uint64
	L  bus.Lookup
}

// source pushes its lookups in order, each no earlier than its cycle.
type source struct {
	name  string
	ch    *sim.Chan[bus.Lookup]
	items []timed
	next  int
}

func (s *source) Name() string { return s.name }
func (s *source) Eval(now uint64) bool {
	if s.next < len(s.items) && s.items[s.next].At <= now && s.ch.Ready() {
		s.ch.Push(s.items[s.next].L)
		s.next++
	}
	return s.next < len(s.items)
}
func (s *source) Commit() {}

// sink pops its channel when ready(now) (a pure function of the cycle).
type sink[T any] struct {
	name  string
	ch    *sim.Chan[T]
	ready func(now uint64) bool
}

func (s *sink[T]) Name() string { return s.name }
func (s *sink[T]) Eval(now uint64) bool {
	if s.ch.Valid() && (s.ready == nil || s.ready(now)) {
		s.ch.Pop()
	}
	return false
}
func (s *sink[T]) Commit() {}

// event is what happened in one cycle: the lookup taken (and from which
// VC) and every payload pushed on an output.
type event struct {
	Cycle  uint64
	FromVC string // "", "in", "loop"
	Taken  bus.Lookup
	Done   *bus.Outcome
	MTT    *bus.Walk
	KLM    *bus.Walk
	Nested *bus.Walk
	Credit bool
	Ack    *bus.Ack
	// heads visible this cycle on the two VCs
	InValid, LoopValid bool
}

func (ev event) String() string {
	s := fmt.Sprintf("@%d %s tag=%d", ev.Cycle, ev.FromVC, ev.Taken.Tag)
	if ev.Done != nil {
		s += fmt.Sprintf(" done=%+v", *ev.Done)
	}
	if ev.MTT != nil {
		s += " ->mtt"
	}
	if ev.KLM != nil {
		s += " ->klm"
	}
	if ev.Nested != nil {
		s += " ->nested"
	}
	if ev.Credit {
		s += " +credit"
	}
	if ev.Ack != nil {
		s += fmt.Sprintf(" ack=%d", ev.Ack.ID)
	}
	return s
}

type bench struct {
	e        *sim.Engine
	u        *Unit
	p        Ports
	in, loop *source
	events   []event
}

// sinkReady gives each output's consumer: nil is always ready.
type sinkReady struct {
	Done, MTT, KLM, Nested, Credit, Ack func(uint64) bool
}

type depths struct{ Done, MTT, KLM, Nested, Credit, Ack int }

func newBench(in, loop []timed, d depths, r sinkReady) *bench {
	e := sim.New()
	b := &bench{e: e}
	dd := func(n int) int {
		if n == 0 {
			return 64
		}
		return n
	}
	b.p = Ports{
		In:     sim.NewChan[bus.Lookup](e, "in", 4, 1),
		InLoop: sim.NewChan[bus.Lookup](e, "in_loop", 4, 1),
		Done:   sim.NewChan[bus.Outcome](e, "done", dd(d.Done), 1),
		MTT:    sim.NewChan[bus.Walk](e, "mtt", dd(d.MTT), 1),
		KLM:    sim.NewChan[bus.Walk](e, "klm", dd(d.KLM), 1),
		Nested: sim.NewChan[bus.Walk](e, "nested", dd(d.Nested), 1),
		Credit: sim.NewChan[bus.Credit](e, "credit", dd(d.Credit), 1),
		Ack:    sim.NewChan[bus.Ack](e, "ack", dd(d.Ack), 1),
	}
	b.u = New("protcheck", b.p)
	b.in = &source{name: "src_in", ch: b.p.In, items: in}
	b.loop = &source{name: "src_loop", ch: b.p.InLoop, items: loop}
	e.Add(b.in, b.loop, b.u,
		&sink[bus.Outcome]{name: "s_done", ch: b.p.Done, ready: r.Done},
		&sink[bus.Walk]{name: "s_mtt", ch: b.p.MTT, ready: r.MTT},
		&sink[bus.Walk]{name: "s_klm", ch: b.p.KLM, ready: r.KLM},
		&sink[bus.Walk]{name: "s_nested", ch: b.p.Nested, ready: r.Nested},
		&sink[bus.Credit]{name: "s_credit", ch: b.p.Credit, ready: r.Credit},
		&sink[bus.Ack]{name: "s_ack", ch: b.p.Ack, ready: r.Ack},
	)
	e.OnCycle(func(now uint64) {
		ev := event{Cycle: now, InValid: b.p.In.HeadValid(), LoopValid: b.p.InLoop.HeadValid()}
		if _, popped := b.p.In.Activity(); popped {
			ev.FromVC, ev.Taken = "in", *b.p.In.Peek()
		}
		if _, popped := b.p.InLoop.Activity(); popped {
			if ev.FromVC != "" {
				ev.FromVC = "both"
			} else {
				ev.FromVC, ev.Taken = "loop", *b.p.InLoop.Peek()
			}
		}
		if v, ok := b.p.Done.Pushed(); ok {
			c := *v
			ev.Done = &c
		}
		if v, ok := b.p.MTT.Pushed(); ok {
			c := *v
			ev.MTT = &c
		}
		if v, ok := b.p.KLM.Pushed(); ok {
			c := *v
			ev.KLM = &c
		}
		if v, ok := b.p.Nested.Pushed(); ok {
			c := *v
			ev.Nested = &c
		}
		_, ev.Credit = b.p.Credit.Pushed()
		if v, ok := b.p.Ack.Pushed(); ok {
			c := *v
			ev.Ack = &c
		}
		if ev.FromVC != "" || ev.Done != nil || ev.MTT != nil || ev.KLM != nil || ev.Nested != nil || ev.Credit || ev.Ack != nil {
			b.events = append(b.events, ev)
		}
	})
	return b
}

// run steps until both sources are empty and both VCs drained, or limit.
func (b *bench) run(limit uint64) {
	for b.e.Now() < limit {
		if b.in.next == len(b.in.items) && b.loop.next == len(b.loop.items) &&
			b.p.In.Len() == 0 && b.p.InLoop.Len() == 0 {
			return
		}
		if !b.e.Step() {
			b.e.SkipIdle()
		}
	}
}

// expect is the routing rule of the stage for one lookup, with ref.Check
// as the oracle of the status.
func expect(l *bus.Lookup) event {
	ev := event{Taken: *l}
	if l.Token {
		ev.Ack = &bus.Ack{ID: l.TokenID}
		return ev
	}
	loop := l.Level > 0
	st := refStatus(l)
	w := &bus.Walk{Piece: l.Piece, MKC: l.MKC}
	switch {
	case st != prm.OK:
		ev.Done = &bus.Outcome{Tag: l.Tag, Offset: l.Offset, Len: l.Len, Status: st, Level: l.Level}
		ev.Credit = loop
	case l.MKC.AccessMode == prm.ModeMTT:
		ev.MTT, ev.Credit = w, loop
	case l.MKC.AccessMode == prm.ModeKLM || l.MKC.AccessMode == prm.ModeFixedBufferSize:
		if loop {
			ev.Nested = w
		} else {
			ev.KLM = w
		}
	default:
		sp := map[prm.AccessMode]prm.Space{prm.ModePA: prm.SpaceDMA, prm.ModeSWICM: prm.SpaceSWICM, prm.ModeMEMIC: prm.SpaceMEMIC}[l.MKC.AccessMode]
		ev.Done = &bus.Outcome{Tag: l.Tag, Offset: l.Offset, Len: l.Len, Status: prm.OK, Level: l.Level,
			Seg: prm.Segment{Space: sp, Addr: l.Addr, Len: l.Len}, Key: l.Key, Plat: bus.PlatformOf(&l.MKC)}
		ev.Credit = loop
	}
	return ev
}

// checkEvents: every cycle takes at most one lookup and pushes exactly
// what the routing rule says for it, nothing else; every lookup is taken
// once, in its VC's order.
func checkEvents(t *testing.T, ctx string, b *bench, in, loop []timed) {
	t.Helper()
	var gotIn, gotLoop []bus.Lookup
	for _, ev := range b.events {
		if ev.FromVC == "both" {
			t.Fatalf("%s: cycle %d took from both VCs", ctx, ev.Cycle)
		}
		if ev.FromVC == "" {
			t.Fatalf("%s: cycle %d pushed outputs without taking a lookup: %v", ctx, ev.Cycle, ev)
		}
		want := expect(&ev.Taken)
		want.Cycle, want.FromVC, want.InValid, want.LoopValid = ev.Cycle, ev.FromVC, ev.InValid, ev.LoopValid
		if !reflect.DeepEqual(ev, want) {
			t.Fatalf("%s: cycle %d\n got %v\nwant %v", ctx, ev.Cycle, ev, want)
		}
		if ev.FromVC == "in" {
			gotIn = append(gotIn, ev.Taken)
		} else {
			gotLoop = append(gotLoop, ev.Taken)
		}
	}
	for _, c := range []struct {
		name      string
		got       []bus.Lookup
		want      []timed
		shouldBeL bool
	}{{"in", gotIn, in, false}, {"loop", gotLoop, loop, true}} {
		if len(c.got) != len(c.want) {
			t.Fatalf("%s: %s VC: %d lookups taken of %d", ctx, c.name, len(c.got), len(c.want))
		}
		for i := range c.got {
			if !reflect.DeepEqual(c.got[i], c.want[i].L) {
				t.Fatalf("%s: %s VC lookup %d out of order", ctx, c.name, i)
			}
		}
	}
}

func lk(tag uint16, level uint8, mode prm.AccessMode, mod func(l *bus.Lookup)) bus.Lookup {
	l := baseLookup()
	l.Tag, l.Level, l.MKC.AccessMode = tag, level, mode
	l.Offset = uint64(tag) * 0x1000
	if mod != nil {
		mod(&l)
	}
	return l
}

func token(id uint32, level uint8) bus.Lookup {
	return bus.Lookup{Piece: bus.Piece{Level: level}, Token: true, TokenID: id}
}

// TestRouting: each kind of piece, on each VC, goes where it must.
func TestRouting(t *testing.T) {
	fail := func(l *bus.Lookup) { l.MKC.Free = true }
	cases := []struct {
		name string
		l    bus.Lookup
		want string
	}{
		{"level0 fail", lk(1, 0, prm.ModeMTT, fail), "@0 in tag=1 done={Tag:1 Offset:4096 Len:256 Status:MKEY_FREE Level:0 Seg:{Space:dma HasPA:false Addr:0 Len:0 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x0 Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}}"},
		{"level0 unknown index", lk(2, 0, prm.ModeKLM, func(l *bus.Lookup) { l.Created = false }), "@0 in tag=2 done={Tag:2 Offset:8192 Len:256 Status:BAD_KEY_INDEX Level:0 Seg:{Space:dma HasPA:false Addr:0 Len:0 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x0 Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}}"},
		{"level0 PA", lk(3, 0, prm.ModePA, nil), "@0 in tag=3 done={Tag:3 Offset:12288 Len:256 Status:OK Level:0 Seg:{Space:dma HasPA:false Addr:8192 Len:256 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x73c Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}}"},
		{"level0 SW_ICM", lk(4, 0, prm.ModeSWICM, nil), "@0 in tag=4 done={Tag:4 Offset:16384 Len:256 Status:OK Level:0 Seg:{Space:sw_icm HasPA:false Addr:8192 Len:256 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x73c Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}}"},
		{"level0 MEMIC", lk(5, 0, prm.ModeMEMIC, nil), "@0 in tag=5 done={Tag:5 Offset:20480 Len:256 Status:OK Level:0 Seg:{Space:memic HasPA:false Addr:8192 Len:256 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x73c Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}}"},
		{"level0 MTT", lk(6, 0, prm.ModeMTT, nil), "@0 in tag=6 ->mtt"},
		{"level0 KLM", lk(7, 0, prm.ModeKLM, nil), "@0 in tag=7 ->klm"},
		{"level0 KSM", lk(8, 0, prm.ModeFixedBufferSize, nil), "@0 in tag=8 ->klm"},
		{"loop fail", lk(9, 2, prm.ModeKLM, func(l *bus.Lookup) { l.PD = 0 }), "@0 loop tag=9 done={Tag:9 Offset:36864 Len:256 Status:PD_MISMATCH Level:2 Seg:{Space:dma HasPA:false Addr:0 Len:0 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x0 Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}} +credit"},
		{"loop PA", lk(10, 1, prm.ModePA, nil), "@0 loop tag=10 done={Tag:10 Offset:40960 Len:256 Status:OK Level:1 Seg:{Space:dma HasPA:false Addr:8192 Len:256 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x73c Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}} +credit"},
		{"loop MEMIC", lk(11, 3, prm.ModeMEMIC, nil), "@0 loop tag=11 done={Tag:11 Offset:45056 Len:256 Status:OK Level:3 Seg:{Space:memic HasPA:false Addr:8192 Len:256 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x73c Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}} +credit"},
		{"loop MTT", lk(12, 1, prm.ModeMTT, nil), "@0 loop tag=12 ->mtt +credit"},
		{"loop KLM", lk(13, 1, prm.ModeKLM, nil), "@0 loop tag=13 ->nested"},
		{"loop KSM", lk(14, 4, prm.ModeFixedBufferSize, nil), "@0 loop tag=14 ->nested"},
		{"loop atomic len 4", lk(15, 1, prm.ModeMTT, func(l *bus.Lookup) { l.Type, l.Len = prm.RemoteAtomic, 4 }), "@0 loop tag=15 ->mtt +credit"},
		{"level0 atomic len 4", lk(16, 0, prm.ModeMTT, func(l *bus.Lookup) { l.Type, l.Len = prm.RemoteAtomic, 4 }), "@0 in tag=16 done={Tag:16 Offset:65536 Len:4 Status:MISALIGNED_ATOMIC Level:0 Seg:{Space:dma HasPA:false Addr:0 Len:0 PA:0} Missing:false FaultKey:0x0 FaultAddr:0 Cut:false Key:0x0 Plat:{Mode:0 PASID:0 SmallFence:false ROWrite:false RORead:false}}"},
		{"token level0", token(77, 0), "@0 in tag=0 ack=77"},
		{"token loop", token(78, 1), "@0 loop tag=0 ack=78"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var in, loop []timed
			if tc.l.Level > 0 {
				loop = []timed{{0, tc.l}}
			} else {
				in = []timed{{0, tc.l}}
			}
			b := newBench(in, loop, depths{}, sinkReady{})
			b.run(100)
			checkEvents(t, tc.name, b, in, loop)
			if len(b.events) != 1 {
				t.Fatalf("%d events, want 1: %v", len(b.events), b.events)
			}
			ev := b.events[0]
			ev.Cycle = 0 // the source pushes at 0; the stage sees it at 1
			if got := ev.String(); got != tc.want {
				t.Fatalf("\n got %s\nwant %s", got, tc.want)
			}
			if b.events[0].Cycle != 1 {
				t.Fatalf("checked at cycle %d, want 1 (one cycle of channel latency)", b.events[0].Cycle)
			}
			if st := b.u.Stats(); !tc.l.Token && st.Checked != 1 {
				t.Fatalf("Stats.Checked %d", st.Checked)
			}
		})
	}
}

// TestLoopPriority: when both VCs show a head, the loop VC goes first.
func TestLoopPriority(t *testing.T) {
	var in, loop []timed
	for i := range 6 {
		in = append(in, timed{0, lk(uint16(i), 0, prm.ModePA, nil)})
		loop = append(loop, timed{0, lk(uint16(100+i), 1, prm.ModePA, nil)})
	}
	b := newBench(in, loop, depths{}, sinkReady{})
	b.run(200)
	checkEvents(t, "priority", b, in, loop)
	var order []string
	for _, ev := range b.events {
		if ev.LoopValid && ev.FromVC != "loop" {
			t.Fatalf("cycle %d: took from %s while the loop VC had a head", ev.Cycle, ev.FromVC)
		}
		order = append(order, ev.FromVC)
	}
	// Both sources push one a cycle from cycle 0: loop pieces 1..6, then
	// the level-0 ones.
	want := []string{"loop", "loop", "loop", "loop", "loop", "loop", "in", "in", "in", "in", "in", "in"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

// TestBackPressure: a full destination stalls only the VC whose head
// needs it; the other VC keeps flowing, and the stalled piece goes as soon
// as its destination frees.
func TestBackPressure(t *testing.T) {
	const release = 40
	after := func(now uint64) bool { return now >= release }
	cases := []struct {
		name    string
		in      []bus.Lookup
		loop    []bus.Lookup
		d       depths
		r       sinkReady
		stalled string // the VC that must wait until release
	}{
		{
			name: "MTT full stalls level-0",
			in:   []bus.Lookup{lk(1, 0, prm.ModeMTT, nil), lk(2, 0, prm.ModeMTT, nil), lk(3, 0, prm.ModePA, nil)},
			loop: []bus.Lookup{lk(11, 1, prm.ModePA, nil), lk(12, 1, prm.ModeKLM, nil), lk(13, 2, prm.ModePA, nil)},
			d:    depths{MTT: 1}, r: sinkReady{MTT: after}, stalled: "in",
		},
		{
			name: "MTT full stalls loop",
			in:   []bus.Lookup{lk(1, 0, prm.ModePA, nil), lk(2, 0, prm.ModeKLM, nil), lk(3, 0, prm.ModePA, nil)},
			loop: []bus.Lookup{lk(11, 1, prm.ModeMTT, nil), lk(12, 1, prm.ModeMTT, nil), lk(13, 1, prm.ModePA, nil)},
			d:    depths{MTT: 1}, r: sinkReady{MTT: after}, stalled: "loop",
		},
		{
			name: "KLM full stalls level-0 only",
			in:   []bus.Lookup{lk(1, 0, prm.ModeKLM, nil), lk(2, 0, prm.ModeFixedBufferSize, nil), lk(3, 0, prm.ModeMTT, nil)},
			loop: []bus.Lookup{lk(11, 1, prm.ModeKLM, nil), lk(12, 1, prm.ModeFixedBufferSize, nil), lk(13, 1, prm.ModeMTT, nil)},
			d:    depths{KLM: 1}, r: sinkReady{KLM: after}, stalled: "in",
		},
		{
			name: "Nested full stalls loop only",
			in:   []bus.Lookup{lk(1, 0, prm.ModeKLM, nil), lk(2, 0, prm.ModeKLM, nil), lk(3, 0, prm.ModePA, nil)},
			loop: []bus.Lookup{lk(11, 1, prm.ModeKLM, nil), lk(12, 1, prm.ModeKLM, nil), lk(13, 1, prm.ModePA, nil)},
			d:    depths{Nested: 1}, r: sinkReady{Nested: after}, stalled: "loop",
		},
		{
			name: "Done full stalls loop failure, not level-0 MTT",
			in:   []bus.Lookup{lk(1, 0, prm.ModeMTT, nil), lk(2, 0, prm.ModeMTT, nil), lk(3, 0, prm.ModeKLM, nil)},
			loop: []bus.Lookup{lk(11, 1, prm.ModePA, nil), lk(12, 1, prm.ModeKLM, func(l *bus.Lookup) { l.MKC.Free = true }), lk(13, 1, prm.ModeMTT, nil)},
			d:    depths{Done: 1}, r: sinkReady{Done: after}, stalled: "loop",
		},
		{
			name: "Credit full stalls loop PA",
			in:   []bus.Lookup{lk(1, 0, prm.ModePA, nil), lk(2, 0, prm.ModePA, nil), lk(3, 0, prm.ModePA, nil)},
			loop: []bus.Lookup{lk(11, 1, prm.ModeMTT, nil), lk(12, 1, prm.ModePA, nil), lk(13, 1, prm.ModePA, nil)},
			d:    depths{Credit: 1}, r: sinkReady{Credit: after}, stalled: "loop",
		},
		{
			name: "Ack full stalls a token's VC",
			in:   []bus.Lookup{token(1, 0), token(2, 0), lk(3, 0, prm.ModePA, nil)},
			loop: []bus.Lookup{lk(11, 1, prm.ModePA, nil), lk(12, 1, prm.ModeMTT, nil), lk(13, 1, prm.ModeKLM, nil)},
			d:    depths{Ack: 1}, r: sinkReady{Ack: after}, stalled: "in",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var in, loop []timed
			for _, l := range tc.in {
				in = append(in, timed{0, l})
			}
			for _, l := range tc.loop {
				loop = append(loop, timed{0, l})
			}
			b := newBench(in, loop, tc.d, tc.r)
			b.run(500)
			checkEvents(t, tc.name, b, in, loop)
			var inCycles, loopCycles []uint64
			for _, ev := range b.events {
				if ev.FromVC == "in" {
					inCycles = append(inCycles, ev.Cycle)
				} else {
					loopCycles = append(loopCycles, ev.Cycle)
				}
			}
			free, stuck := inCycles, loopCycles
			if tc.stalled == "in" {
				free, stuck = loopCycles, inCycles
			}
			// The free VC finishes long before the release.
			if len(free) != 3 || free[2] >= 12 {
				t.Fatalf("free VC taken at %v: it was held up by the other VC's destination", free)
			}
			// The stalled VC: its first piece goes at once, the second
			// only once the consumer drains after the release.
			if len(stuck) != 3 || stuck[0] >= 12 || stuck[1] <= release {
				t.Fatalf("stalled VC taken at %v: want the first at once, the second after %d", stuck, release)
			}
			if b.u.Stats().Stalls.Count() == 0 {
				t.Fatalf("no stall cycles counted")
			}
		})
	}
}

// TestRandomTraffic: random lookups on both VCs with random consumers;
// every cycle's routing equals the rule with ref.Check as the oracle, and
// the whole run is the same in every evaluation order and with or without
// idle skipping.
func TestRandomTraffic(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		mk := func() ([]timed, []timed, sinkReady) {
			rng := rand.New(rand.NewSource(seed))
			var in, loop []timed
			at := uint64(0)
			for i := range 300 {
				l := genLookup(rng)
				l.Tag = uint16(i)
				if rng.Intn(30) == 0 {
					l = token(uint32(i), l.Level)
				}
				at += uint64(rng.Intn(3))
				if l.Level > 0 {
					loop = append(loop, timed{at, l})
				} else {
					in = append(in, timed{at, l})
				}
			}
			rd := func(k uint64) func(uint64) bool {
				return func(now uint64) bool { return (now*0x9e3779b97f4a7c15+k*uint64(seed)*0xbf58476d1ce4e5b9)>>62 != 0 }
			}
			return in, loop, sinkReady{Done: rd(1), MTT: rd(2), KLM: rd(3), Nested: rd(4), Credit: rd(5), Ack: rd(6)}
		}
		in, loop, r := mk()
		d := depths{Done: 2, MTT: 1, KLM: 2, Nested: 1, Credit: 2, Ack: 1}
		base := newBench(in, loop, d, r)
		base.e.NoSkip = true
		base.run(100000)
		checkEvents(t, fmt.Sprintf("seed %d", seed), base, in, loop)
		for _, sh := range []int64{0, 1, 2, 3} {
			b := newBench(in, loop, d, r)
			if sh != 0 {
				b.e.Shuffle(sh * seed)
			}
			b.run(100000)
			if !slices.EqualFunc(b.events, base.events, func(a, c event) bool { return reflect.DeepEqual(a, c) }) {
				t.Fatalf("seed %d shuffle %d: events differ from the in-order, no-skip run", seed, sh)
			}
			if !reflect.DeepEqual(b.u.Counters(), base.u.Counters()) || !reflect.DeepEqual(b.u.Stats().Failures, base.u.Stats().Failures) {
				t.Fatalf("seed %d shuffle %d: stats differ", seed, sh)
			}
		}
	}
}
