package wave

import (
	"fmt"
	"slices"
	"strings"

	"mkeysim/rtl/sim"
	"mkeysim/tb"
	"mkeysim/vcd"
)

// This file declares what the tracer traces: one scope per unit under
// "top", the unit's state first, then every channel it consumes or
// produces (see tracer.go for what each signal means). The tracer knows
// no unit: a unit's state is what it declares (sim.Described), a
// channel's payload what its type declares (sim.Fielded).
//
// A channel belongs to the unit named before the first dot of its name
// ("mptcache.mem_req" -> top.mptcache, signals mem_req_*), with three
// exceptions that follow who drives the channel rather than its name: the
// top's own channels (top.in, top.out) go to top.core, the top's PCIe
// ports (top.tx, top.rx) to top.pcie with the requester that drives them,
// and the bench's links and root complex (pcie.up.wire, pcie.up_out,
// host.pipe, pcie.down_in, pcie.down.wire) to top.host.

// Save-file groups that are the bench's rather than one unit's: the
// operations going in (the bench's own scope and the top's input), the
// host side, and the counters (groupCounters). A unit's group is its
// scope and the title it declares (sim.Description.Title):
// "top.mptcache: MKC cache".
const (
	groupIn   = "top.tb and top.core.in: operations in"
	groupHost = "top.host: links and root complex"
)

// The scopes the tracer places itself: the bench's components, the top
// (whose input goes to groupIn, the rest to its own group), and the host
// side's links and root complex.
const (
	benchScope = "tb"
	coreScope  = "core"
	hostScope  = "host"
)

// filterFormat is the format of every filtered signal and filter file.
const filterFormat = vcd.Hex

// declarer declares the signals of one channel or unit.
type declarer struct {
	t      *Tracer
	sc     *vcd.Scope
	prefix string // "in_" for the channel in, "" for unit state
	group  string
}

// sig declares prefix+name, with its enum's width and a filter when it
// has value names; nil when its scope is filtered out.
func (d declarer) sig(name string, width int, f sim.Format, e *sim.Enum) *sig {
	vf := [...]vcd.Format{sim.Dec: vcd.Dec, sim.Hex: vcd.Hex, sim.Bin: vcd.Bin}[f]
	filter := ""
	if e != nil {
		width, vf, filter = e.Width, filterFormat, e.Name
		d.t.enums[e.Name] = e
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
		vf = vcd.Bin
	}
	t.info = append(t.info, Signal{Path: v.Path(), Width: width, Format: vf, Filter: filter, Group: d.group})
	return s
}

func (d declarer) bit(name string) *sig               { return d.sig(name, 1, sim.Bin, nil) }
func (d declarer) dec(name string, width int) *sig    { return d.sig(name, width, sim.Dec, nil) }
func (d declarer) with(prefix, group string) declarer { return declarer{d.t, d.sc, prefix, group} }

// declare declares every signal of the bench in data-flow order and
// builds the samplers.
func (t *Tracer) declare() {
	b := t.b
	root := t.w.Root("top")
	t.w.Clock(root) // top.clk and top.cycle first: the time base
	units := map[string]declarer{}
	var names []string // unit scopes in creation order
	unit := func(name, group string) declarer {
		if d, ok := units[name]; ok {
			return d
		}
		if group == "" {
			group = "top." + name
		}
		d := declarer{t: t, sc: root.Scope(name), group: group}
		units[name] = d
		names = append(names, name)
		return d
	}

	// Unit state first, so that it heads each group: what each component
	// declares, the bench's own scope first, then the units in the
	// engine's order, then the host side (which declares no state).
	type described struct {
		i int
		d sim.Description
	}
	var ds []described
	for i, c := range b.Eng.Components() {
		// A unit that shows nothing in this run (the root complex
		// without host.write_latency_cycles) has no scope of its own.
		if x, ok := c.(sim.Described); ok {
			if d := x.Describe(); len(d.Signals) > 0 {
				ds = append(ds, described{i, d})
			}
		}
	}
	notBench := func(d described) int {
		if d.d.Scope == benchScope {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(ds, func(a, b described) int { return notBench(a) - notBench(b) })
	unit(benchScope, groupIn)
	for _, x := range ds {
		group := "top." + x.d.Scope
		if x.d.Title != "" {
			group += ": " + x.d.Title
		}
		unit(x.d.Scope, group)
	}
	unit(hostScope, groupHost)
	for _, x := range ds {
		d := units[x.d.Scope]
		us := unitTracer{comp: x.i, sample: x.d.Sample, vals: make([]uint64, len(x.d.Signals)), last: make([]uint64, len(x.d.Signals))}
		for _, s := range x.d.Signals {
			us.sigs = append(us.sigs, d.sig(s.Name, s.Width, s.Format, s.Enum))
		}
		if slices.ContainsFunc(us.sigs, func(s *sig) bool { return s != nil }) {
			us.block = t.block(us.sigs)
			t.units = append(t.units, us)
		}
	}

	for _, p := range flowOrder(b) {
		name, local := portPlace(b, p)
		d := unit(name, "")
		group := d.group
		if name == coreScope && local == "in" {
			group = groupIn
		}
		// Every channel is followed, traced or not (its signals are nil
		// when its scope is filtered out).
		t.byPort[p] = len(t.ports)
		t.ports = append(t.ports, newChanTracer(p.(sim.TracedPort), d.with(local+"_", group)))
	}

	t.declareCounters(root)

	// Save-file groups: tb and top.in, the units in the order of their
	// scopes, the top's ROB and output, then the counters.
	t.order = []string{groupIn}
	for _, name := range names {
		if name != benchScope && name != coreScope {
			t.order = append(t.order, units[name].group)
		}
	}
	t.order = append(t.order, units[coreScope].group, groupCounters)
}

// groupCounters is the save-file group of the counters.
const groupCounters = "top.counters: the statistics (docs/counters.md)"

// declareCounters declares the counters every component declares
// (sim.Counted, read in place through sim.CounterWorder) under
// top.counters, by the names the statistics print: mkc_cache.hits is
// top.counters.mkc_cache.hits. A count of cycles spent waiting is left
// out (sim.Counter.Wait).
func (t *Tracer) declareCounters(root *vcd.Scope) {
	top := root.Scope("counters")
	scopes := map[string]*vcd.Scope{"": top}
	var scope func(path string) *vcd.Scope
	scope = func(path string) *vcd.Scope {
		if sc, ok := scopes[path]; ok {
			return sc
		}
		parent, name := "", path
		if i := strings.LastIndexByte(path, '.'); i >= 0 {
			parent, name = path[:i], path[i+1:]
		}
		sc := scope(parent).Scope(name)
		scopes[path] = sc
		return sc
	}
	for i, c := range t.b.Eng.Components() {
		cn, ok := c.(sim.Counted)
		if !ok {
			continue
		}
		cw, ok := c.(sim.CounterWorder)
		if !ok {
			continue // no way to read its counters every cycle
		}
		ct := counterTracer{comp: i, words: cw.CounterWords()}
		for _, x := range cn.Counters() {
			if !x.Wait {
				d := declarer{t: t, sc: scope(x.Group()), group: groupCounters}
				ct.sigs = append(ct.sigs, d.dec(x.Figure(), 64))
			}
		}
		if n := sumLen(ct.words); n != len(ct.sigs) {
			panic(fmt.Sprintf("trace: %s has %d counter words for %d counters", c.Name(), n, len(ct.sigs)))
		}
		ct.vals, ct.last = make([]uint64, 0, len(ct.sigs)), make([]uint64, 0, len(ct.sigs))
		if slices.ContainsFunc(ct.sigs, func(s *sig) bool { return s != nil }) {
			ct.block = t.block(ct.sigs)
			t.counters = append(t.counters, ct)
		}
	}
}

// block numbers a sample's signals for the log (logBlock): the writer
// goroutine sets the variables of block b from a sample of it.
func (t *Tracer) block(sigs []*sig) int {
	vars := make([]*vcd.Var, len(sigs))
	for i, s := range sigs {
		if s != nil {
			vars[i] = t.vars[s.idx]
		}
	}
	t.blocks = append(t.blocks, vars)
	return len(t.blocks) - 1
}

// counterTracer samples the counters of one component.
type counterTracer struct {
	comp  int // the component's number in the engine
	block int // its number in the log (Tracer.block)
	sigs  []*sig
	vals  []uint64 // this cycle's values
	last  []uint64 // the last ones
	// words are the counters in place (sim.CounterWorder), which change
	// only in the component's Eval.
	words [][]uint64
}

// sumLen is the number of words in runs.
func sumLen(runs [][]uint64) int {
	n := 0
	for _, r := range runs {
		n += len(r)
	}
	return n
}

// flowOrder lists the engine's channels in creation order, except the
// host side's, in the order a TLP crosses them: up the link, into the
// root complex, down the link.
func flowOrder(b *tb.Bench) []sim.Port {
	host := []sim.Port{b.Up.Wire(), b.Up.Out, b.RC.Pipe(), b.RC.DataPipe(), b.Down.In, b.Down.Wire()}
	var out []sim.Port
	for _, p := range b.Eng.Ports() {
		if !slices.Contains(host, p) {
			out = append(out, p)
		}
	}
	return append(out, host...)
}

// portPlace returns the unit scope (under top) and the local name of a
// channel.
func portPlace(b *tb.Bench, p sim.Port) (unit, local string) {
	switch p {
	case sim.Port(b.Top.In):
		return coreScope, "in"
	case sim.Port(b.Top.Out):
		return coreScope, "out"
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
	case sim.Port(b.Up.Wire()), sim.Port(b.Up.Out), sim.Port(b.Down.In), sim.Port(b.Down.Wire()), sim.Port(b.RC.Pipe()), sim.Port(b.RC.DataPipe()):
		unit = hostScope
	}
	if unit == "top" {
		unit = coreScope
	}
	return unit, strings.ReplaceAll(local, ".", "_")
}

// unitTracer samples the signals a component declares.
type unitTracer struct {
	comp   int // the component's number in the engine
	block  int // its number in the log (Tracer.block)
	sigs   []*sig
	vals   []uint64 // this cycle's sample
	last   []uint64 // the last one
	sample func([]uint64)
}

// ---------------------------------------------------------------------
// Channels.

// handshake are the signals every channel has.
type handshake struct {
	push, valid, ready, count *sig
	last                      uint64 // push | valid<<1 | ready<<2 | count<<3 as last sampled
}

// sample sets the handshake signals that changed.
func (h *handshake) sample(t *Tracer, push, valid, ready bool, n int) {
	x := sim.B(push) | sim.B(valid)<<1 | sim.B(ready)<<2 | uint64(n)<<3
	d := x ^ h.last
	if d == 0 {
		return
	}
	h.last = x
	if t.logging {
		// h.last is the signals' last value: log the changes as they
		// are (the signals' own last values serve only to start the
		// window, as for blocks).
		if d&1 != 0 {
			t.logChange(h.push, x&1)
		}
		if d&2 != 0 {
			t.logChange(h.valid, x>>1&1)
		}
		if d&4 != 0 {
			t.logChange(h.ready, x>>2&1)
		}
		if d>>3 != 0 {
			t.logChange(h.count, uint64(n))
		}
		return
	}
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

// chanTracer samples one channel: its handshake, and the fields of its
// payload type (sim.Fielded) when it has any.
type chanTracer struct {
	c      sim.TracedPort
	id     int // c.ID()
	h      handshake
	fields []*sig   // nil: none traced
	block  int      // the fields' block number in the log (Tracer.block)
	vals   []uint64 // the values shown
	shown  bool     // the payload signals show the current head
	traced bool     // some signal of it is traced (its scope is selected)
}

// newChanTracer declares the signals of channel c: its handshake, then
// its payload's fields.
func newChanTracer(c sim.TracedPort, d declarer) *chanTracer {
	ct := &chanTracer{c: c, id: c.ID(), h: handshake{push: d.bit("push"), valid: d.bit("valid"), ready: d.bit("ready"),
		count: d.dec("count", sim.WidthFor(c.Cap()))}}
	ct.traced = ct.h.push != nil || ct.h.valid != nil || ct.h.ready != nil || ct.h.count != nil
	fs := c.Fields()
	traced := false
	for _, f := range fs {
		s := d.sig(f.Name, f.Width, f.Format, f.Enum)
		ct.fields = append(ct.fields, s)
		traced = traced || s != nil
	}
	if !traced {
		ct.fields = nil
	} else {
		ct.block = d.t.block(ct.fields)
	}
	ct.traced = ct.traced || traced
	ct.vals = make([]uint64, len(fs))
	return ct
}

// sample sets the channel's signals for this cycle. It reports whether a
// handshake happened (so the channel must be looked at next cycle, when
// the strobes fall and the occupancy changes) and, when the channel holds
// a head not yet visible, the cycle it becomes so.
func (c *chanTracer) sample(t *Tracer) (uint64, bool) {
	st := t.b.Eng.ChanState(c.id)
	pushed, popped, valid := st.Pushed(), st.Popped(), st.HeadValid()
	c.h.sample(t, pushed, valid, popped, st.Len())
	// The head changes only when it is popped: set its fields once. A
	// payload writes the fields it carries over the values shown (a
	// token leaves a lookup's piece fields as they were).
	if valid && !c.shown && c.fields != nil {
		c.c.HeadValues(c.vals)
		if t.logging && t.seenUnits {
			// Once the window has begun the fields go to the log as one
			// block, as a unit's sample does: the writer keeps what
			// changed.
			t.logBlock(c.block, c.vals)
		} else {
			for k, s := range c.fields {
				t.set(s, c.vals[k])
			}
		}
		c.shown = true
	}
	if popped {
		c.shown = false
	}
	if pushed || popped {
		return 0, true
	}
	if !valid && st.HasHead() {
		return t.b.Eng.ChanHeadAt(c.id), false
	}
	return 0, false
}
