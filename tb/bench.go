package tb

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-hclog"

	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// Bench is the clocked model in its environment.
type Bench struct {
	Eng  *sim.Engine
	Top  *rtl.Top
	Mem  *pcie.Memory
	Up   *pcie.Link
	Down *pcie.Link
	RC   *pcie.RootComplex

	src  *source
	sink *sink
	log  hclog.Logger

	// Watchdog is the number of cycles without a result after which Run
	// gives up and names the stuck units (0: the default, 2 million).
	Watchdog uint64
}

// New builds the bench. Logging goes to log's sub-loggers ("tb", "top",
// "top.firmware"); nil logs nothing.
func New(cfg rtl.Config, log ...hclog.Logger) (*Bench, error) {
	e := sim.New()
	mem := pcie.NewMemory()
	l := hclog.NewNullLogger()
	if len(log) > 0 && log[0] != nil {
		l = log[0]
	}
	top, err := rtl.New(cfg, e, mem, l)
	if err != nil {
		return nil, err
	}
	b := &Bench{Eng: e, Top: top, Mem: mem, log: l.Named("tb")}
	d := cfg.FIFODepth
	upOut := sim.NewChan[pcie.TLP](e, "pcie.up_out", d, 1)
	downIn := sim.NewChan[pcie.TLP](e, "pcie.down_in", d, 1)
	b.Up = pcie.NewLink(e, "pcie.up", cfg.PCIe.Link(), top.Tx, upOut)
	b.RC = pcie.NewRootComplex(e, "host", cfg.PCIe.RootComplex(), mem, upOut, downIn)
	b.Down = pcie.NewLink(e, "pcie.down", cfg.PCIe.Link(), downIn, top.Rx)
	b.src = &source{out: top.In}
	b.sink = &sink{in: top.Out}
	e.Add(b.Up, b.RC, b.Down, b.src, b.sink)
	return b, nil
}

// Load declares the scenario's QPs and creates its initial MKeys. A key
// that CREATE_MKEY refuses is a scenario error naming mkeys[i].
func (b *Bench) Load(sc *scenario.Scenario) error {
	for _, qp := range sc.QPs {
		b.Top.AddQP(qp)
	}
	for i := range sc.MKeys {
		if _, err := b.Top.Create(&sc.MKeys[i]); err != nil {
			return &scenario.Error{Path: fmt.Sprintf("mkeys[%d]", i), Msg: err.Error()}
		}
	}
	return nil
}

// Run streams ops through the model until every result is out. progress,
// if not nil, is called now and then with the results so far.
func (b *Bench) Run(ops []scenario.Op, progress func(done int)) ([]scenario.Result, error) {
	b.src.ops, b.src.next = ops, 0
	b.sink.results = make([]scenario.Result, 0, len(ops))
	b.sink.seen = make([]bool, len(ops))
	b.sink.inOrder = !b.Top.Config().OverlapInvalidate
	b.sink.err = nil
	limit := b.Watchdog
	if limit == 0 {
		limit = 2_000_000
	}
	last, lastN := b.Eng.Now(), 0
	for len(b.sink.results) < len(ops) {
		busy := b.Eng.Step()
		if !busy {
			b.Eng.SkipIdle()
		}
		if b.sink.err != nil {
			return b.sink.results, b.sink.err
		}
		if n := len(b.sink.results); n != lastN {
			lastN, last = n, b.Eng.Now()
			if progress != nil && n%4096 == 0 {
				progress(n)
			}
		} else if b.Eng.Now()-last > limit {
			b.log.Error("watchdog", "cycle", b.Eng.Now(), "done", lastN, "of", len(ops), "where", b.Stuck())
			return b.sink.results, fmt.Errorf("watchdog: no result for %d cycles at cycle %d (%d of %d done): %s",
				limit, b.Eng.Now(), lastN, len(ops), b.Stuck())
		}
	}
	if progress != nil {
		progress(len(b.sink.results))
	}
	return b.sink.results, nil
}

// Stuck names the unit where work sits: the consumer of the first
// channel, in data-flow order, that holds payloads, then everything else
// that is held.
func (b *Bench) Stuck() string {
	var parts []string
	unit := ""
	for _, p := range b.Eng.Ports() {
		if p.Len() > 0 {
			if unit == "" {
				unit = strings.SplitN(p.Name(), ".", 2)[0]
			}
			parts = append(parts, fmt.Sprintf("%s holds %d/%d", p.Name(), p.Len(), p.Cap()))
		}
	}
	if n := b.Top.Cache.MSHRsInUse(); n > 0 {
		parts = append(parts, fmt.Sprintf("mptcache has %d MSHRs waiting", n))
	}
	if n := b.Top.MTT.InUse(); n > 0 {
		parts = append(parts, fmt.Sprintf("mttwalk has %d walkers busy", n))
	}
	if n := b.Top.Req.TagsInUse(); n > 0 {
		parts = append(parts, fmt.Sprintf("pcie requester has %d tags in use", n))
	}
	if n := b.Top.KLM.InUse(); n > 0 {
		parts = append(parts, fmt.Sprintf("klmwalk has %d contexts busy and %d credits", n, b.Top.KLM.Credits()))
	}
	if b.Top.InFlight() > 0 {
		parts = append(parts, fmt.Sprintf("top ROB holds %d: %s", b.Top.InFlight(), b.Top.Dump()))
	}
	if len(parts) == 0 {
		return "nothing is held anywhere"
	}
	if unit == "" {
		unit = strings.SplitN(parts[0], " ", 2)[0]
	}
	return "stuck unit: " + unit + " (" + strings.Join(parts, "; ") + ")"
}

// source feeds operations into the model as fast as it takes them.
type source struct {
	out  *sim.Chan[rtl.Op]
	ops  []scenario.Op
	next int
}

func (s *source) Name() string { return "tb.source" }

func (s *source) Eval(now uint64) bool {
	if s.next < len(s.ops) && s.out.Ready() {
		s.out.Push(rtl.Op{Seq: s.next, Op: &s.ops[s.next]})
		s.next++
	}
	return s.next < len(s.ops)
}

func (s *source) Commit() {}

// sink collects results and fails on a lost, duplicated or reordered
// completion (out of order is allowed only with overlapping invalidation).
type sink struct {
	in      *sim.Chan[*scenario.Result]
	results []scenario.Result
	seen    []bool
	inOrder bool
	err     error
}

func (s *sink) Name() string { return "tb.sink" }

func (s *sink) Eval(now uint64) bool {
	if s.in.Valid() {
		r := *s.in.Peek()
		s.in.Pop()
		switch {
		case r.Seq < 0 || r.Seq >= len(s.seen):
			s.err = fmt.Errorf("cycle %d: completion of seq %d, which was never issued", now, r.Seq)
		case s.seen[r.Seq]:
			s.err = fmt.Errorf("cycle %d: seq %d completed twice", now, r.Seq)
		case s.inOrder && r.Seq != len(s.results):
			s.err = fmt.Errorf("cycle %d: seq %d completed before seq %d (reordered or lost)", now, r.Seq, len(s.results))
		default:
			s.seen[r.Seq] = true
		}
		s.results = append(s.results, *r)
	}
	return false
}

func (s *sink) Commit() {}
