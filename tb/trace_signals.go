package tb

import (
	"math/bits"
	"strings"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/vcd"
)

// This file declares what the tracer traces: one scope per unit under
// "top", the unit's state first, then every channel it consumes or
// produces (see trace.go for what each signal means).
//
// A channel belongs to the unit named before the first dot of its name
// ("mptcache.mem_req" -> top.mptcache, signals mem_req_*), with three
// exceptions that follow who drives the channel rather than its name: the
// top's own channels (top.in, top.out) go to top.core, the top's PCIe
// ports (top.tx, top.rx) to top.pcie with the requester that drives them,
// and the bench's links and root complex (pcie.up.wire, pcie.up_out,
// host.pipe, pcie.down_in, pcie.down.wire) to top.host.

// traceUnits are the unit scopes under "top" in data-flow order, each
// with the save-file group of its signals.
var traceUnits = []struct{ scope, group string }{
	{"tb", groupIn},
	{"core", groupOut},
	{"mptcache", "top.mptcache: MKC cache"},
	{"protcheck", "top.protcheck: protection checker"},
	{"mttwalk", "top.mttwalk: MTT walker"},
	{"klmwalk", "top.klmwalk: KLM walker"},
	{"pcie", "top.pcie: PCIe requester"},
	{"host", "top.host: links and root complex"},
}

// Save-file groups that are not one unit scope.
const (
	groupIn  = "top.tb and top.core.in: operations in"
	groupOut = "top.core: ROB, command path, results out"
)

// Bits of Tracer.walkTouched.
const (
	walkM = 1 << iota // a channel of top.mttwalk was touched
	walkK             // a channel of top.klmwalk was touched
)

// maxContexts bounds the walker contexts traced one by one.
const maxContexts = 32

// declarer declares the signals of one channel or unit.
type declarer struct {
	t      *Tracer
	sc     *vcd.Scope
	prefix string // "in_" for the channel in, "" for unit state
	group  string
}

// sig declares prefix+name. Filtered signals use the filter's width.
func (d declarer) sig(name string, width int, f vcd.Format, filter string) *sig {
	if filter != "" {
		width = traceFilters[filter].width
		f = filterFormat
	}
	v := d.sc.Var(d.prefix+name, width)
	if v == nil {
		return nil
	}
	t := d.t
	// Signals are carved from chunks so that those of one channel or unit
	// sit together in memory: the hook touches a few of them a cycle.
	if len(t.arena) == cap(t.arena) {
		t.arena = make([]sig, 0, 256)
	}
	t.arena = append(t.arena, sig{mask: ^uint64(0) >> uint(64-width), idx: uint32(len(t.vars))})
	s := &t.arena[len(t.arena)-1]
	t.vars = append(t.vars, v)
	t.sigs = append(t.sigs, s)
	if width == 1 {
		f = vcd.Bin
	}
	t.info = append(t.info, Signal{Path: v.Path(), Width: width, Format: f, Filter: filter, Group: d.group})
	return s
}

func (d declarer) bit(name string) *sig               { return d.sig(name, 1, vcd.Bin, "") }
func (d declarer) dec(name string, width int) *sig    { return d.sig(name, width, vcd.Dec, "") }
func (d declarer) hex(name string, width int) *sig    { return d.sig(name, width, vcd.Hex, "") }
func (d declarer) named(name, filter string) *sig     { return d.sig(name, 0, 0, filter) }
func (d declarer) with(prefix, group string) declarer { return declarer{d.t, d.sc, prefix, group} }

// widthFor is the width of a counter that reaches n.
func widthFor(n int) int { return max(1, bits.Len(uint(n))) }

// declare declares every signal of the bench in data-flow order and
// builds the samplers.
func (t *Tracer) declare() {
	b := t.b
	root := t.w.Root("top")
	t.w.Clock(root) // top.clk and top.cycle first: the time base
	units := map[string]declarer{}
	var names []string // unit scopes in creation order
	unit := func(name string) declarer {
		if d, ok := units[name]; ok {
			return d
		}
		group := "top." + name
		for _, u := range traceUnits {
			if u.scope == name {
				group = u.group
			}
		}
		d := declarer{t: t, sc: root.Scope(name), group: group}
		units[name] = d
		names = append(names, name)
		return d
	}
	for _, u := range traceUnits {
		unit(u.scope)
	}

	// Unit state first, so that it heads each group.
	t.declareUnits(units)

	for _, p := range flowOrder(b) {
		name, local := portPlace(b, p)
		d := unit(name)
		group := d.group
		if name == "core" && local == "in" {
			group = groupIn
		}
		// Every channel is followed, traced or not (its signals are nil
		// when its scope is filtered out): the units' samplers rely on
		// knowing which cycles move a channel.
		pt := newPortTracer(p, d.with(local+"_", group))
		t.byPort[p] = len(t.ports)
		t.ports = append(t.ports, pt)
		t.walkBit = append(t.walkBit, map[string]uint8{"mttwalk": walkM, "klmwalk": walkK}[name])
	}

	// Save-file groups: tb and top.in, the units in data-flow order, any
	// other scope, then the top's ROB and output.
	t.order = []string{groupIn}
	for _, name := range names[2:] {
		t.order = append(t.order, units[name].group)
	}
	t.order = append(t.order, groupOut)
}

// flowOrder lists the engine's channels in creation order, except the
// host side's, in the order a TLP crosses them: up the link, into the
// root complex, down the link.
func flowOrder(b *Bench) []sim.Port {
	host := []sim.Port{b.Up.Wire(), b.Up.Out, b.RC.Pipe(), b.Down.In, b.Down.Wire()}
	isHost := func(p sim.Port) bool {
		for _, h := range host {
			if p == h {
				return true
			}
		}
		return false
	}
	var out []sim.Port
	for _, p := range b.Eng.Ports() {
		if !isHost(p) {
			out = append(out, p)
		}
	}
	return append(out, host...)
}

// portPlace returns the unit scope (under top) and the local name of a
// channel.
func portPlace(b *Bench, p sim.Port) (unit, local string) {
	switch p {
	case sim.Port(b.Top.In):
		return "core", "in"
	case sim.Port(b.Top.Out):
		return "core", "out"
	case sim.Port(b.Top.Tx):
		return "pcie", "tx"
	case sim.Port(b.Top.Rx):
		return "pcie", "rx"
	}
	name := p.Name()
	unit, local, ok := strings.Cut(name, ".")
	if !ok {
		unit, local = "other", name
	}
	switch p {
	case sim.Port(b.Up.Wire()), sim.Port(b.Up.Out), sim.Port(b.Down.In), sim.Port(b.Down.Wire()), sim.Port(b.RC.Pipe()):
		unit = "host"
	}
	if unit == "top" {
		unit = "core"
	}
	return unit, strings.ReplaceAll(local, ".", "_")
}

// unitSigs are the units' state signals.
type unitSigs struct {
	sent, results *sig           // top.tb
	regs          [nRegs]*sig    // registers (see nRegs)
	strobes       [nStrobes]*sig // strobes (see nStrobes)
	fkey, fstatus *sig           // top.protcheck: what fired
	mctx, kctx    []ctxSigs      // the walkers' contexts
	lastRegs      [nRegs]int     // values last sampled
	lastStrobes   uint           // strobes last sampled, bit k for strobes[k]
}

// declareUnits declares each unit's state.
func (t *Tracer) declareUnits(units map[string]declarer) {
	b := t.b
	top := b.Top
	cfg := top.Config()
	u := &t.u

	d := units["tb"]
	u.sent, u.results = d.dec("ops_sent", 32), d.dec("results", 32)

	d = units["core"].with("", groupOut)
	u.regs[0], u.regs[1] = d.named("cmd_state", "cmd_state"), d.dec("rob_count", widthFor(cfg.ROBEntries))

	d = units["mptcache"]
	u.regs[2], u.regs[3] = d.named("state", "mptcache_state"), d.dec("mshrs", widthFor(top.Cache.Config().MSHRs))
	u.strobes[0], u.strobes[1], u.strobes[2], u.strobes[3] = d.bit("hit"), d.bit("miss"), d.bit("fill"), d.bit("inval")

	d = units["protcheck"]
	u.strobes[4], u.fkey, u.fstatus = d.bit("fired"), d.hex("fired_key", 32), d.named("fired_status", "status")

	d = units["mttwalk"]
	walkers := cfg.MTT.Walkers
	u.regs[4], u.regs[5] = d.named("state", "mttwalk_state"), d.dec("in_use", widthFor(walkers))
	u.strobes[5], u.strobes[6], u.strobes[7] = d.bit("hit"), d.bit("miss"), d.bit("fill")
	u.mctx = contextSigs(d, min(walkers, maxContexts), "mttwalk_state")

	d = units["klmwalk"]
	u.regs[6], u.regs[7] = d.dec("in_use", widthFor(cfg.KLM.Contexts)), d.dec("credits", widthFor(cfg.KLM.LoopSlots()))
	u.kctx = contextSigs(d, min(cfg.KLM.Contexts, maxContexts), "klmwalk_state")

	d = units["pcie"]
	u.regs[8] = d.dec("tags_in_use", widthFor(top.Req.Config().Tags))
}

// contextSigs declares ctxN_state and ctxN_tag for n contexts; nil if
// the scope is filtered out.
func contextSigs(d declarer, n int, filter string) []ctxSigs {
	out := make([]ctxSigs, n)
	for i := range out {
		out[i] = ctxSigs{state: d.named(ctxName(i, "state"), filter), tag: d.dec(ctxName(i, "tag"), 16)}
		if out[i].state == nil {
			return nil // the scope is filtered out
		}
	}
	return out
}

// live reports whether a unit may change in a cycle where no channel
// moves: the command path counts firmware cycles, or a strobe is high and
// may fall.
func (u *unitSigs) live() bool { return u.lastRegs[0] != 0 || u.lastStrobes != 0 }

// The units' registers and strobes, in the order of unitSigs.regs and
// unitSigs.strobes.
const (
	nRegs    = 9 // cmd_state, rob_count, mptcache state and mshrs, mttwalk state and in_use, klmwalk in_use and credits, tags
	nStrobes = 8 // mptcache hit, miss, fill, inval; protcheck fired; mttwalk hit, miss, fill
)

// sampleUnits sets the units' state signals. It compares the raw values
// with the last ones first, so that a value that did not change costs one
// comparison and a strobe that did not toggle nothing.
func (t *Tracer) sampleUnits() {
	u := &t.u
	b := t.b
	top := b.Top
	c, pc, mw, kw := top.Cache, top.Check, top.MTT, top.KLM
	h, m, f, i := c.Strobes()
	fired, key, status := pc.Fired()
	mh, mm, mf := mw.Strobes()
	regs := [nRegs]int{int(top.CmdState()), top.InFlight(), int(c.State()), c.MSHRsInUse(),
		int(mw.State()), mw.InUse(), kw.InUse(), kw.Credits(), top.Req.TagsInUse()}
	// A walker context changes only when the walker takes a piece or
	// ends one (its in_use changes, or one of its channels is touched:
	// another piece came in), asks for a line (mem_req) or gets one
	// (mem_resp).
	scanM := regs[5] != u.lastRegs[5] || t.walkTouched&walkM != 0
	scanK := regs[6] != u.lastRegs[6] || t.walkTouched&walkK != 0
	for k, v := range regs {
		if v != u.lastRegs[k] {
			u.lastRegs[k] = v
			t.set(u.regs[k], uint64(v))
		}
	}
	strobes := bit(h, 0) | bit(m, 1) | bit(f, 2) | bit(i, 3) | bit(fired, 4) | bit(mh, 5) | bit(mm, 6) | bit(mf, 7)
	for x := strobes ^ u.lastStrobes; x != 0; x &= x - 1 {
		k := bits.TrailingZeros(x)
		t.set(u.strobes[k], uint64(strobes>>k&1))
	}
	u.lastStrobes = strobes
	if fired {
		t.set(u.fkey, uint64(key))
		t.set(u.fstatus, uint64(status))
	}
	t.set(u.sent, uint64(b.src.next))
	t.set(u.results, uint64(b.sink.n))
	if scanM {
		for i := range u.mctx {
			st, w, _ := mw.Current(i)
			t.context(&u.mctx[i], uint32(st), w.Tag)
		}
	}
	if scanK {
		for i := range u.kctx {
			st, w := kw.Context(i)
			t.context(&u.kctx[i], uint32(st), w.Tag)
		}
	}
}

// ctxSigs are one walker context's signals and their last value.
type ctxSigs struct {
	state, tag *sig
	last       uint32 // state<<16 | tag as last sampled
}

// context samples a walker context: its state, and its tag while busy
// (state 0 is idle in both walkers).
func (t *Tracer) context(c *ctxSigs, state uint32, tag uint16) {
	x := state<<16 | uint32(tag)
	if state == 0 {
		x = c.last & 0xffff // the tag of an idle context holds
	}
	if x == c.last {
		return
	}
	c.last = x
	t.set(c.state, uint64(state))
	if state != 0 {
		t.set(c.tag, uint64(tag))
	}
}

// bit is b as bit n.
func bit(b bool, n uint) uint {
	if b {
		return 1 << n
	}
	return 0
}

func ctxName(i int, field string) string {
	return "ctx" + itoa(i) + "_" + field
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// ---------------------------------------------------------------------
// Channels.

// portTracer samples one channel.
type portTracer interface {
	port() sim.Port
	// sample sets the channel's signals for this cycle. It reports
	// whether a handshake happened (so the channel must be looked at next
	// cycle, when the strobes fall and the occupancy changes) and, when
	// the channel holds a head not yet visible, the cycle it becomes so.
	sample(t *Tracer) (at uint64, handshake bool)
}

// handshake are the signals every channel has.
type handshake struct {
	push, valid, ready, count *sig
	last                      uint64 // push | valid<<1 | ready<<2 | count<<3 as last sampled
}

// sample sets the handshake signals that changed.
func (h *handshake) sample(t *Tracer, push, valid, ready bool, n int) {
	x := uint64(bit(push, 0)|bit(valid, 1)|bit(ready, 2)) | uint64(n)<<3
	d := x ^ h.last
	if d == 0 {
		return
	}
	h.last = x
	if d&1 != 0 {
		t.setBool(h.push, push)
	}
	if d&2 != 0 {
		t.setBool(h.valid, valid)
	}
	if d&4 != 0 {
		t.setBool(h.ready, ready)
	}
	if d>>3 != 0 {
		t.set(h.count, uint64(n))
	}
}

func newHandshake(p sim.Port, d declarer) handshake {
	return handshake{push: d.bit("push"), valid: d.bit("valid"), ready: d.bit("ready"), count: d.dec("count", widthFor(p.Cap()))}
}

// chanTracer samples a channel of payload type T.
type chanTracer[T any] struct {
	c     *sim.Chan[T]
	h     handshake
	pay   func(*Tracer, *T) // sets the payload signals; nil: none
	shown bool              // the payload signals show the current head
}

func (c *chanTracer[T]) port() sim.Port { return c.c }

func (c *chanTracer[T]) sample(t *Tracer) (uint64, bool) {
	pushed, popped := c.c.Activity()
	valid := c.c.HeadValid()
	c.h.sample(t, pushed, valid, popped, c.c.Len())
	// The head changes only when it is popped: set its fields once.
	if valid && !c.shown && c.pay != nil {
		c.pay(t, c.c.Peek())
		c.shown = true
	}
	if popped {
		c.shown = false
	}
	if pushed || popped {
		return 0, true
	}
	if !valid {
		if at, ok := c.c.HeadAt(); ok {
			return at, false
		}
	}
	return 0, false
}

// portOnly samples a channel of a payload type the tracer does not know:
// handshake and occupancy only.
type portOnly struct {
	p  sim.Port
	h  handshake
	at headAt // nil if the channel cannot tell
}

func (c *portOnly) port() sim.Port { return c.p }

func (c *portOnly) sample(t *Tracer) (uint64, bool) {
	pushed, popped := c.p.Activity()
	valid := c.p.HeadValid()
	c.h.sample(t, pushed, valid, popped, c.p.Len())
	if pushed || popped {
		return 0, true
	}
	switch {
	case valid:
	case c.at != nil:
		if at, ok := c.at.HeadAt(); ok {
			return at, false
		}
	case c.p.Len() > 0:
		return 0, true // cannot tell when the head shows: look every cycle
	}
	return 0, false
}

// newChan declares the signals of channel c: its handshake, then its
// payload's (declare, which reports whether any is traced; set then sets
// them from a payload).
func newChan[T any](c *sim.Chan[T], d declarer, declare func(declarer) bool, set func(*Tracer, *T)) portTracer {
	h := newHandshake(c, d)
	ct := &chanTracer[T]{c: c, h: h}
	if declare(d) {
		ct.pay = set
	}
	return ct
}

// deref adapts a payload setter to a channel of pointers to payloads.
func deref[T any](set func(*Tracer, *T)) func(*Tracer, **T) {
	return func(t *Tracer, v **T) {
		if *v != nil {
			set(t, *v)
		}
	}
}

// newPortTracer declares a channel's signals by its payload type (a
// payload or a pointer to one); nil if its scope is filtered out. A
// payload type it does not know gets the handshake signals only.
func newPortTracer(p sim.Port, d declarer) portTracer {
	switch c := p.(type) {
	case *sim.Chan[rtl.Op]:
		s := &opSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*rtl.Op]:
		s := &opSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[scenario.Result]:
		s := &resultSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*scenario.Result]:
		s := &resultSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[bus.Piece]:
		s := &pieceSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*bus.Piece]:
		s := &pieceSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[bus.Lookup]:
		s := &lookupSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*bus.Lookup]:
		s := &lookupSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[bus.Walk]:
		s := &walkSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*bus.Walk]:
		s := &walkSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[bus.Outcome]:
		s := &outcomeSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*bus.Outcome]:
		s := &outcomeSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[bus.Inval]:
		s := &invalSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*bus.Inval]:
		s := &invalSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[bus.Cut]:
		s := &cutSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[bus.Ack]:
		s := &ackSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*bus.Ack]:
		s := &ackSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[pcie.ReadReq]:
		s := &readReqSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*pcie.ReadReq]:
		s := &readReqSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[pcie.ReadResp]:
		s := &readRespSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*pcie.ReadResp]:
		s := &readRespSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	case *sim.Chan[pcie.TLP]:
		s := &tlpSigs{}
		return newChan(c, d, s.declare, s.set)
	case *sim.Chan[*pcie.TLP]:
		s := &tlpSigs{}
		return newChan(c, d, s.declare, deref(s.set))
	}
	h := newHandshake(p, d)
	if c, ok := p.(headAt); ok {
		return &portOnly{p: p, h: h, at: c}
	}
	return &portOnly{p: p, h: h}
}

// headAt is what every *sim.Chan[T] has (see sim.Chan.HeadAt).
type headAt interface{ HeadAt() (uint64, bool) }

// anySig reports whether one of sigs is traced.
func anySig(sigs ...*sig) bool {
	for _, s := range sigs {
		if s != nil {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------
// Payloads. Widths follow the fields' types: keys and indexes 32 and 24
// bits, addresses 64, request lengths and offsets 32 (an access is at most
// 2^32-1 bytes), QPNs and PDs 24.

// opSigs: an operation entering the model (top.in).
type opSigs struct{ seq, op, qpn, key, addr, len, typ *sig }

func (s *opSigs) declare(d declarer) bool {
	*s = opSigs{d.dec("seq", 32), d.named("op", "op"), d.hex("qpn", 24), d.hex("key", 32),
		d.hex("addr", 64), d.dec("len", 32), d.named("type", "access_type")}
	return anySig(s.seq, s.op, s.qpn, s.key, s.addr, s.len, s.typ)
}

func (s *opSigs) set(t *Tracer, o *rtl.Op) {
	t.set(s.seq, uint64(o.Seq))
	op := o.Op
	t.set(s.op, uint64(op.Kind))
	var qpn uint32
	var key prm.Key
	var addr, n uint64
	var typ prm.AccessType
	switch op.Kind {
	case scenario.OpAccess:
		a := &op.Access
		qpn, key, addr, n, typ = a.QPN, a.Key, a.Addr, uint64(a.Len), a.Type
	case scenario.OpUMR:
		qpn, key = op.UMR.QPN, op.UMR.Key
	case scenario.OpLocalInvalidate, scenario.OpSendWithInvalidate:
		qpn, key = op.QPN, op.Key
	case scenario.OpPageFaultResume:
		key = op.Key
	}
	t.set(s.qpn, uint64(qpn))
	t.set(s.key, uint64(key))
	t.set(s.addr, addr)
	t.set(s.len, n)
	t.set(s.typ, uint64(typ))
}

// resultSigs: a result leaving the model (top.out).
type resultSigs struct{ seq, op, status, level, offset, segs, segAddr *sig }

func (s *resultSigs) declare(d declarer) bool {
	*s = resultSigs{d.dec("seq", 32), d.named("op", "op"), d.named("status", "status"), d.dec("level", 8),
		d.dec("offset", 32), d.dec("segs", 8), d.hex("seg_addr", 64)}
	return anySig(s.seq, s.op, s.status, s.level, s.offset, s.segs, s.segAddr)
}

func (s *resultSigs) set(t *Tracer, r *scenario.Result) {
	t.set(s.seq, uint64(r.Seq))
	t.set(s.op, uint64(r.Op))
	t.set(s.status, uint64(r.Status))
	t.set(s.level, uint64(r.Level))
	t.set(s.offset, r.Offset)
	t.set(s.segs, uint64(min(len(r.Segments), 255)))
	var a uint64
	if len(r.Segments) > 0 {
		a = r.Segments[0].Addr
	}
	t.set(s.segAddr, a)
}

// pieceSigs: a translation job (mptcache.in, mptcache.loop).
type pieceSigs struct{ tag, level, typ, key, addr, len, offset, qpn, pd *sig }

func (s *pieceSigs) declare(d declarer) bool {
	*s = pieceSigs{d.dec("tag", 16), d.dec("level", 8), d.named("type", "access_type"), d.hex("key", 32),
		d.hex("addr", 64), d.dec("len", 32), d.dec("offset", 32), d.hex("qpn", 24), d.hex("pd", 24)}
	return anySig(s.tag, s.level, s.typ, s.key, s.addr, s.len, s.offset, s.qpn, s.pd)
}

func (s *pieceSigs) set(t *Tracer, p *bus.Piece) {
	t.set(s.tag, uint64(p.Tag))
	t.set(s.level, uint64(p.Level))
	t.set(s.typ, uint64(p.Type))
	t.set(s.key, uint64(p.Key))
	t.set(s.addr, p.Addr)
	t.set(s.len, p.Len)
	t.set(s.offset, p.Offset)
	t.set(s.qpn, uint64(p.QPN))
	t.set(s.pd, uint64(p.PD))
}

// lookupSigs: a piece with its MKC (protcheck.in, protcheck.in_loop).
// mkc_rights are the MKC's A, RW, RR, LW, LR bits, A the highest.
type lookupSigs struct {
	pieceSigs
	created, token, tokenID, free, mode, rights, pd, start, len *sig
}

func (s *lookupSigs) declare(d declarer) bool {
	p := s.pieceSigs.declare(d)
	s.created, s.token, s.tokenID = d.bit("created"), d.bit("token"), d.dec("token_id", 32)
	s.free, s.mode, s.rights = d.bit("mkc_free"), d.named("mkc_mode", "access_mode"), d.sig("mkc_rights", 5, vcd.Bin, "")
	s.pd, s.start, s.len = d.hex("mkc_pd", 24), d.hex("mkc_start", 64), d.hex("mkc_len", 64)
	return p || anySig(s.created, s.token, s.tokenID, s.free, s.mode, s.rights, s.pd, s.start, s.len)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (s *lookupSigs) set(t *Tracer, l *bus.Lookup) {
	t.setBool(s.token, l.Token)
	if l.Token {
		t.set(s.tokenID, uint64(l.TokenID))
		return
	}
	s.pieceSigs.set(t, &l.Piece)
	m := &l.MKC
	t.setBool(s.created, l.Created)
	t.setBool(s.free, m.Free)
	t.set(s.mode, uint64(m.AccessMode))
	t.set(s.rights, b2u(m.A)<<4|b2u(m.RW)<<3|b2u(m.RR)<<2|b2u(m.LW)<<1|b2u(m.LR))
	t.set(s.pd, uint64(m.PD))
	t.set(s.start, m.StartAddr)
	t.set(s.len, m.Len)
}

// walkSigs: a checked piece sent to a walker (mttwalk.in, klmwalk.in,
// klmwalk.nested).
type walkSigs struct {
	pieceSigs
	mode, start *sig
}

func (s *walkSigs) declare(d declarer) bool {
	p := s.pieceSigs.declare(d)
	s.mode, s.start = d.named("mkc_mode", "access_mode"), d.hex("mkc_start", 64)
	return p || anySig(s.mode, s.start)
}

func (s *walkSigs) set(t *Tracer, w *bus.Walk) {
	s.pieceSigs.set(t, &w.Piece)
	t.set(s.mode, uint64(w.MKC.AccessMode))
	t.set(s.start, w.MKC.StartAddr)
}

// outcomeSigs: a final result for part of a request (*.done).
type outcomeSigs struct{ tag, offset, len, status, level, space, segAddr, missing *sig }

func (s *outcomeSigs) declare(d declarer) bool {
	*s = outcomeSigs{d.dec("tag", 16), d.dec("offset", 32), d.dec("len", 32), d.named("status", "status"),
		d.dec("level", 8), d.named("space", "space"), d.hex("seg_addr", 64), d.bit("missing")}
	return anySig(s.tag, s.offset, s.len, s.status, s.level, s.space, s.segAddr, s.missing)
}

func (s *outcomeSigs) set(t *Tracer, o *bus.Outcome) {
	t.set(s.tag, uint64(o.Tag))
	t.set(s.offset, o.Offset)
	t.set(s.len, o.Len)
	t.set(s.status, uint64(o.Status))
	t.set(s.level, uint64(o.Level))
	t.set(s.space, uint64(o.Seg.Space))
	t.set(s.segAddr, o.Seg.Addr)
	t.setBool(s.missing, o.Missing)
}

// invalSigs: an invalidation order (*.ctrl).
type invalSigs struct{ id, index, lo, hi, all *sig }

func (s *invalSigs) declare(d declarer) bool {
	*s = invalSigs{d.dec("id", 32), d.hex("index", 24), d.hex("lo", 64), d.hex("hi", 64), d.bit("all")}
	return anySig(s.id, s.index, s.lo, s.hi, s.all)
}

func (s *invalSigs) set(t *Tracer, v *bus.Inval) {
	t.set(s.id, uint64(v.ID))
	t.set(s.index, uint64(v.Index))
	t.set(s.lo, v.Lo)
	t.set(s.hi, v.Hi)
	t.setBool(s.all, v.All)
}

// ackSigs: an invalidation acknowledgement (*.ack).
type ackSigs struct{ id *sig }

func (s *ackSigs) declare(d declarer) bool { s.id = d.dec("id", 32); return s.id != nil }

func (s *ackSigs) set(t *Tracer, a *bus.Ack) { t.set(s.id, uint64(a.ID)) }

// cutSigs: a cut from the reorder buffer to a walker (*.cut).
type cutSigs struct{ tag, gen, offset *sig }

func (s *cutSigs) declare(d declarer) bool {
	*s = cutSigs{d.dec("tag", 16), d.dec("gen", 16), d.dec("offset", 64)}
	return anySig(s.tag, s.gen, s.offset)
}

func (s *cutSigs) set(t *Tracer, c *bus.Cut) {
	t.set(s.tag, uint64(c.Tag))
	t.set(s.gen, uint64(c.Gen))
	t.set(s.offset, c.Offset)
}

// readReqSigs: a read asked of the PCIe requester (*.mem_req).
type readReqSigs struct{ id, addr, len *sig }

func (s *readReqSigs) declare(d declarer) bool {
	*s = readReqSigs{d.dec("id", 32), d.hex("addr", 64), d.dec("len", 32)}
	return anySig(s.id, s.addr, s.len)
}

func (s *readReqSigs) set(t *Tracer, r *pcie.ReadReq) {
	t.set(s.id, uint64(r.ID))
	t.set(s.addr, r.Addr)
	t.set(s.len, uint64(r.Len))
}

// readRespSigs: the answer to a read (*.mem_resp); len is the data bytes.
type readRespSigs struct{ id, addr, status, len *sig }

func (s *readRespSigs) declare(d declarer) bool {
	*s = readRespSigs{d.dec("id", 32), d.hex("addr", 64), d.named("status", "cpl_status"), d.dec("len", 32)}
	return anySig(s.id, s.addr, s.status, s.len)
}

func (s *readRespSigs) set(t *Tracer, r *pcie.ReadResp) {
	t.set(s.id, uint64(r.ID))
	t.set(s.addr, r.Addr)
	t.set(s.status, uint64(r.Status))
	t.set(s.len, uint64(len(r.Data)))
}

// tlpSigs: a TLP (top.tx, top.rx and the host side). status and
// byte_count mean something on completions only, addr on requests only.
type tlpSigs struct{ typ, tag, addr, lenDW, status, byteCount *sig }

func (s *tlpSigs) declare(d declarer) bool {
	*s = tlpSigs{d.named("type", "tlp_type"), d.dec("tag", 10), d.hex("addr", 64), d.dec("len_dw", 11),
		d.named("status", "cpl_status"), d.dec("byte_count", 13)}
	return anySig(s.typ, s.tag, s.addr, s.lenDW, s.status, s.byteCount)
}

func (s *tlpSigs) set(t *Tracer, p *pcie.TLP) {
	t.set(s.typ, uint64(p.Type))
	t.set(s.tag, uint64(p.Tag))
	t.set(s.addr, p.Addr)
	t.set(s.lenDW, uint64(p.LengthDW))
	t.set(s.status, uint64(p.Status))
	t.set(s.byteCount, uint64(p.ByteCount))
}
