package tb

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/tb/host"
	"mkeysim/tb/stats"
	"mkeysim/tb/stimulus"
)

// Bench is the clocked model in its environment.
type Bench struct {
	Eng *sim.Engine
	Top *rtl.Top
	// Host is the host side opposite the model, as rtl/pcie builds it:
	// Mem, the links Up and Down, the root complex RC.
	*pcie.Host

	src  *source
	sink *sink
	plat *platform // the host IOMMU (iommu.enabled), nil without
	// pages is the driver's side of the firmware's pages, nil under
	// host.page_policy eager (its events need no answer).
	pages *pagesDriver
	log   hclog.Logger

	// Watchdog is the number of cycles with no progress and nothing
	// pending after which Stream gives up and names the stuck unit (0:
	// WatchdogCycles of the configuration).
	Watchdog uint64

	warm warmup // where the measurement starts (Warmup)
}

// warmup is the state of the bench at the end of the warm-up, which Stats
// subtracts.
type warmup struct {
	after        int  // access results before the measurement starts; 0: none
	done         bool // the snapshot is taken
	cycle        uint64
	translations uint64
	counters     []sim.Counter
	latencies    sim.Tally // Top.Latencies before the measurement
	byPD         []rtl.PDCounts
}

// Warmup makes Stats count only what follows the moment the first
// accesses access results have left the model (across every Stream of
// the run): cycles, counters and latencies then measure a warm model.
// High-water marks (kind max) keep the whole run's value. 0 measures the
// whole run. Call it before the run.
func (b *Bench) Warmup(accesses int) { b.warm = warmup{after: accesses} }

// InterArrival sets the offered load: the bench hands the model an
// operation at most every cycles cycles (a later one if the model does
// not take it then); 0 or 1 hands them as fast as the model takes them.
// Latencies count from the reorder buffer, so an operation that waits to
// enter does not count its wait. Call it before the run.
func (b *Bench) InterArrival(cycles uint64) { b.src.gap = cycles }

// PostAhead sets how many operations ahead of the model's input the host
// front's driver posts WQEs (workload.post_ahead, DefaultPostAhead when
// not called; 1..MaxPostAhead). Call it before the run.
func (b *Bench) PostAhead(n int) { b.src.ahead = n }

// Warmed returns the warm-up's accesses and cycles, and whether it ended
// (false also when there was none).
func (b *Bench) Warmed() (accesses int, cycles uint64, ok bool) {
	return b.warm.after, b.warm.cycle, b.warm.done
}

// Accesses is the number of access results taken so far, over every
// Stream of the run.
func (b *Bench) Accesses() int { return b.sink.accesses }

// takeWarm ends the warm-up: what the bench has counted so far is
// subtracted from the statistics.
func (b *Bench) takeWarm() {
	b.warm.done = true
	b.warm.cycle, b.warm.translations = b.Eng.Now(), b.Top.Translations()
	b.warm.counters, b.warm.latencies = b.Eng.Counters(), b.Top.Latencies()
	b.warm.byPD = b.Top.ByPD()
}

// Stats gathers the bench's statistics after a run of wall duration,
// measured from the end of the warm-up if there was one (Warmup).
func (b *Bench) Stats(wall time.Duration) stats.Report {
	lats := b.Top.Latencies()
	s := stats.Report{Cycles: b.Eng.Now(), WallSeconds: wall.Seconds(), Translations: b.Top.Translations(), Counters: b.Eng.Counters(),
		ClockPS: b.Top.Config().ClockPS}
	s.Tenants = b.Top.ByPD()
	if w := &b.warm; w.done {
		// Measured from the end of the warm-up (Bench.Warmup).
		for i := range s.Tenants {
			t := &s.Tenants[i]
			for _, before := range w.byPD {
				if before.PD == t.PD {
					t.MKCHits -= before.MKCHits
					t.MKCMisses -= before.MKCMisses
					t.MTTHits -= before.MTTHits
					t.MTTMisses -= before.MTTMisses
				}
			}
		}
		s.Cycles -= w.cycle
		s.Translations -= w.translations
		for i := range s.Counters {
			if c := &s.Counters[i]; !c.Max && i < len(w.counters) && w.counters[i].Name == c.Name {
				c.Value -= w.counters[i].Value
			}
		}
		lats = lats.Since(&w.latencies)
	}
	if s.WallSeconds > 0 {
		s.CyclesPerSecond = float64(s.Cycles) / s.WallSeconds
	}
	s.SetLatencies(&lats)
	return s
}

// New builds the bench. Logging goes to log's sub-loggers ("tb", "top",
// "top.firmware"); nil logs nothing.
func New(cfg rtl.Config, log ...hclog.Logger) (*Bench, error) {
	var l hclog.Logger
	if len(log) > 0 {
		l = log[0]
	}
	return build(cfg, l, nil)
}

// build makes the bench; completer, if not nil, stands in for the root
// complex between the two link directions (tests use it to break the
// host).
func build(cfg rtl.Config, log hclog.Logger, completer func(e *sim.Engine, mem *pcie.Memory, rx, tx *sim.Chan[pcie.TLP]) sim.Component) (*Bench, error) {
	e := sim.New()
	mem := pcie.NewMemory()
	l := hclog.NewNullLogger()
	if log != nil {
		l = log
	}
	top, err := rtl.New(cfg, e, mem, l)
	if err != nil {
		return nil, err
	}
	b := &Bench{Eng: e, Top: top, log: l.Named("tb")}
	opt := pcie.HostOptions{Depth: cfg.FIFODepth, Completer: completer}
	if cfg.IOMMU.Enabled {
		if b.plat, err = newPlatform(cfg, mem); err != nil {
			return nil, err
		}
		opt.Translate = func(e *sim.Engine, rx *sim.Chan[pcie.TLP]) (*sim.Chan[pcie.TLP], []sim.Component) {
			return b.plat.translate(e, rx, mem)
		}
		if b.plat.ats {
			opt.Side = func() *sim.Chan[pcie.TLP] { return b.plat.down }
		}
		if b.plat.icmMapped != nil {
			top.OnICMBind(b.plat.bindICM(top))
		}
	}
	if a := top.PagesAnswer(); a != nil {
		// The driver's pages answer the HCA's Pages Request Events
		// (on_event, capped): the root complex hands it the queue's
		// interrupts; it sees the scenario's MANAGE_PAGES complete.
		b.pages = newPagesDriver(e, mem, cfg.Host, a)
		opt.IRQ = b.pages.irqs()
		e.OnCycle(func(uint64) {
			if r, ok := top.Out.Pushed(); ok {
				b.pages.completed(r.Result)
			}
		})
	}
	b.Host = pcie.NewHost(e, cfg.PCIe, mem, top.Tx, top.Rx, opt)
	if b.Host.RC != nil {
		// Host memory's write latency and the posted-write buffer
		// (issue 37 part 4; off by default).
		b.Host.RC.SetHost(cfg.Host.HostConfig)
	}
	// The CPU's doorbells (the host front) go down through the root
	// complex.
	b.sink = &sink{in: top.Out, plat: b.plat, tx: top.Tx, up: b.Up}
	b.src = &source{out: top.In, cpu: b.CPU, plat: b.plat, sink: b.sink, overlap: cfg.OverlapInvalidate, ahead: DefaultPostAhead, pages: b.pages}
	e.Add(b.src, b.sink)
	if b.pages != nil {
		e.Add(b.pages)
	}
	return b, nil
}

// Load declares the scenario's QPs and creates its initial MKeys. A key
// that CREATE_MKEY refuses is a scenario error naming mkeys[i].
func (b *Bench) Load(sc *scenario.Scenario) error {
	if err := b.plat.load(sc); err != nil {
		return err
	}
	for _, qp := range sc.QPs {
		b.Top.AddQP(qp)
	}
	for i := range sc.MKeys {
		if _, err := b.Top.Create(&sc.MKeys[i]); err != nil {
			return &scenario.Error{Path: fmt.Sprintf("mkeys[%d]", i), Msg: err.Error()}
		}
		if b.plat != nil && b.plat.bindErr != nil {
			return &scenario.Error{Path: fmt.Sprintf("mkeys[%d]", i), Msg: b.plat.bindErr.Error()}
		}
	}
	if b.pages != nil {
		b.pages.setGiven(b.Top.PagesGiven()) // the initial keys' pages, given at once
	}
	return nil
}

// RunOptions are how Stream runs the operations; none changes a result.
type RunOptions struct {
	// OnResult, if not nil, is called with each result as it leaves the
	// model, in the order results leave; an error from it stops the run
	// and is returned. The result is valid until OnResult returns: the
	// model reuses its memory, so keep a copy (scenario.Result.Clone).
	OnResult func(*scenario.Result) error
	// Progress, if not nil, is called now and then with the number of
	// results so far.
	Progress func(done int)
	// SeqBase numbers the operations from SeqBase on instead of 0: a long
	// run streamed in chunks keeps one numbering (page_fault_resume names
	// the accesses it runs again by number, whatever chunk they were in).
	SeqBase int
	// OnIssue, if not nil, is called with each operation's number and the
	// cycle the model's input took it.
	OnIssue func(seq int, cycle uint64)
	// Stop, if not nil, stops the run at a cycle boundary once it is
	// closed (looked at every stopEvery cycles stepped): Stream returns
	// ErrStopped, every result that left the model before having been
	// passed to OnResult.
	Stop <-chan struct{}
}

// stopEvery is how many cycles Stream steps between two looks at
// RunOptions.Stop (a power of two): a receive from a channel every cycle
// cost about 2 % of a run, a stop 256 cycles late costs nothing (tens of
// microseconds).
const stopEvery = 256

// ErrStopped is Stream's error when RunOptions.Stop closed.
var ErrStopped = errors.New("stopped")

// WatchdogCycles is the default watchdog bound for cfg: the cycles the
// model may go with no handshake on any channel, no unit acting and
// nothing pending (no payload on its way, no timer running) before Stream
// gives up. Every legal stretch without any of those is a few cycles of a
// unit's own state machine; a model that does nothing with nothing on its
// way can never move again, so the bound only has to exceed the longest
// such stretch: 1000 cycles plus 16 channel stage latencies, plus the
// longest a posted write may take host memory to accept
// (host.write_latency_cycles + write_latency_spread_cycles, issue 37):
// while the link backs up behind a full posted-write buffer nothing
// moves until the oldest write leaves, and the root complex's timer for
// it, once due in the next cycle, no longer counts as pending.
func WatchdogCycles(cfg rtl.Config) uint64 {
	return 1000 + 16*uint64(cfg.StageLat) + uint64(cfg.Host.WriteLatencyCycles+cfg.Host.WriteLatencySpreadCycles)
}

// Run streams ops through the model and returns every result, in the
// order they left it. On an error it returns the results that left the
// model before it.
func (b *Bench) Run(ops []scenario.Op, progress func(done int)) ([]scenario.Result, error) {
	results := make([]scenario.Result, 0, len(ops))
	err := b.Stream(ops, RunOptions{Progress: progress, OnResult: func(r *scenario.Result) error {
		results = append(results, r.Clone())
		return nil
	}})
	return results, err
}

// Stream runs ops through the model until every result is out, handing
// each to opt.OnResult as it leaves. It stops early, with an error, when
// the sink sees a lost, duplicated or reordered result, when OnResult
// fails, when opt.Stop closes, or when the watchdog finds the model stuck
// (no progress and nothing pending for Watchdog cycles, WatchdogCycles by
// default): its error names the stuck unit and the oldest operation.
func (b *Bench) Stream(ops []scenario.Op, opt RunOptions) error {
	return b.StreamFeed(stimulus.FeedOf(ops, opt.SeqBase), opt)
}

// StreamFeed is Stream over the operations of f, numbered as f numbers
// them (opt.SeqBase is not used), made as the model's input takes them
// and forgotten once their results are in: the same results, cycles and
// counters as Stream over all of them at once, in the memory of a few
// chunks.
func (b *Bench) StreamFeed(f *stimulus.Feed, opt RunOptions) error {
	base := f.First()
	b.src.feed, b.src.base, b.src.seq = f, base, base
	b.src.chunk = f.From(base)
	b.src.onIssue = opt.OnIssue
	b.src.err, b.src.posted = nil, base
	b.src.Wake()
	b.sink.feed, b.sink.base, b.sink.lo, b.sink.seen = f, base, base, b.sink.seen[:0]
	b.sink.inOrder = !b.Top.Config().OverlapInvalidate
	b.sink.err, b.sink.n = nil, 0
	b.sink.onResult = opt.OnResult
	limit := b.Watchdog
	if limit == 0 {
		limit = WatchdogCycles(b.Top.Config())
	}
	var still uint64 // cycles without progress and with nothing pending
	lastN := 0
	for step := 0; !b.sink.all(); step++ {
		busy := b.Eng.Step()
		if b.sink.err != nil {
			return b.sink.err
		}
		if b.src.err != nil {
			return b.src.err
		}
		if b.plat != nil && b.plat.bindErr != nil {
			return b.plat.bindErr
		}
		if b.pages != nil && b.pages.err() != nil {
			return b.pages.err()
		}
		if opt.Stop != nil && step&(stopEvery-1) == 0 {
			select {
			case <-opt.Stop:
				return ErrStopped
			default:
			}
		}
		if b.warm.after > 0 && !b.warm.done && b.sink.accesses >= b.warm.after {
			b.takeWarm() // between two cycles
		}
		if n := b.sink.n; n != lastN {
			lastN = n
			if opt.Progress != nil && n%4096 == 0 {
				opt.Progress(n)
			}
		}
		// Pending scans every channel, so it is asked only when the
		// model has gone limit cycles without progress.
		if b.Eng.Progressed() {
			still = 0
		} else if still++; still > limit && b.Eng.Pending() {
			still = 0
		} else if still > limit {
			where := b.Stuck()
			b.log.Error("watchdog", "cycle", b.Eng.Now(), "done", lastN, "of", f.Made()-base, "where", where)
			return fmt.Errorf("watchdog: nothing moved for %d cycles and nothing is on its way, at cycle %d (%d of %d operations done); oldest operation: %s; %s",
				limit, b.Eng.Now(), lastN, f.Made()-base, b.Top.Oldest(), where)
		}
		if !busy && !b.sink.all() {
			// Not past the last result: posted writes still on the link
			// would move the end of the run.
			b.Eng.SkipIdle()
		}
	}
	if opt.Progress != nil {
		opt.Progress(b.sink.n)
	}
	return nil
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
	// Reads sent and nothing on the link or in the host: the host never
	// answered them.
	if n := b.Top.Req.TagsInUse(); n > 0 {
		onLink := false
		for _, p := range b.Eng.Ports() {
			if name := p.Name(); p.Len() > 0 && (strings.HasPrefix(name, "pcie.") || strings.HasPrefix(name, "host.") || name == "top.rx" || name == "top.tx") {
				onLink = true
			}
		}
		if !onLink {
			unit = fmt.Sprintf("host (%d reads sent, none answered or on the link)", n)
		}
	}
	if unit == "" {
		unit = strings.SplitN(parts[0], " ", 2)[0]
	}
	return "stuck unit: " + unit + " (" + strings.Join(parts, "; ") + ")"
}

// source feeds operations into the model as fast as it takes them.
type source struct {
	sim.Base
	out *sim.Chan[rtl.Op]
	// feed holds the run's operations; chunk is the rest of the one
	// that holds seq, the number of the next operation to push (nil when
	// there is none), and base the number of the run's first.
	feed  *stimulus.Feed
	chunk []scenario.Op
	seq   int
	base  int
	// gap is the offered load: at least gap cycles between two pushes (0:
	// as fast as the model takes them); nextAt the first cycle of the next.
	gap, nextAt uint64
	onIssue     func(seq int, cycle uint64)
	// cpu carries the doorbells of the host front to the root complex;
	// host, when not nil, posts the WQEs of the operations it carries.
	cpu    *sim.Chan[pcie.TLP]
	host   *host.Host
	posted int // the operation up to which the host has posted WQEs
	ahead  int // how far ahead of seq it posts (Bench.PostAhead)
	// recv: the SENDs with invalidate come from the wire (rtl.Op.Recv),
	// as every one does in a run through the wire front.
	recv bool
	err  error
	// plat, when not nil, is the host IOMMU: an iommu_unmap goes to its
	// driver once every earlier result has left the sink, and the
	// operations after it wait for its result (scenario order).
	plat  *platform
	sink  *sink
	after int // the next operation waits until the sink has every result before it
	// overlap (overlap_invalidate): an iommu_unmap does not wait for the
	// accesses before it, as a host's driver does not: their TLPs may
	// meet the new tables (and the ATC holds their translations until
	// they finish).
	overlap bool
	// pages, when not nil, is the driver's pages, told of each operation
	// sent (a MANAGE_PAGES changes the pages it has given).
	pages *pagesDriver
}

func (s *source) Name() string { return "tb.source" }

// Connections: the source pushes the model's input and the CPU's
// doorbells (sim.Connected).
func (s *source) Connections() (in, out []sim.Port) {
	if s.plat != nil {
		return nil, []sim.Port{s.out, s.cpu, s.plat.drv.in}
	}
	return nil, []sim.Port{s.out, s.cpu}
}

// Describe: the source shows the operations it has pushed, in top.tb
// (sim.Described).
func (s *source) Describe() sim.Description {
	return sim.Description{Scope: "tb", Signals: []sim.Signal{{Name: "ops_sent", Width: 32}},
		Sample: func(vs []uint64) { vs[0] = uint64(s.seq - s.base) }}
}

// Eval pushes the next operation when the input has room; a push wakes it
// the next cycle, a pop of the input when it was full.
func (s *source) Eval(now uint64) bool {
	posting := s.host != nil && s.postAhead()
	if len(s.chunk) > 0 && now < s.nextAt {
		s.WakeAt(s.nextAt) // offered load: not yet
		return posting
	}
	if len(s.chunk) > 0 && s.err == nil {
		op := &s.chunk[0]
		if s.plat != nil && (s.sink.loQ < s.after || op.Kind == scenario.OpIOMMUUnmap && s.sink.loQ < s.seq && !s.overlap) {
			return true // scenario order around an iommu_unmap: the next cycle
		}
		if op.Kind == scenario.OpIOMMUUnmap {
			s.unmap(op, now)
			return len(s.chunk) > 0 || posting
		}
		viaSQ := s.host != nil && host.Carries(op)
		if viaSQ && s.posted <= s.seq {
			return true // its WQE is not posted yet: the next cycle
		}
		if !s.out.Ready() {
			return posting // refused: woken when top.in takes again
		}
		s.out.Push(rtl.Op{Seq: s.seq, Op: op, SQ: viaSQ, Recv: s.recv && op.Kind == scenario.OpSendWithInvalidate})
		if s.pages != nil {
			s.pages.issued(s.seq, op)
		}
		if s.onIssue != nil {
			s.onIssue(s.seq, now)
		}
		s.seq++
		if s.chunk = s.chunk[1:]; len(s.chunk) == 0 {
			s.chunk = s.feed.From(s.seq)
		}
		if s.gap > 1 {
			s.nextAt = now + s.gap
			if len(s.chunk) > 0 {
				s.WakeAt(s.nextAt)
			}
			return posting
		}
		return len(s.chunk) > 0 || posting // more to push next cycle
	}
	return posting
}

// unmap hands the iommu_unmap op to the host's driver; the operations
// after it wait for its result.
func (s *source) unmap(op *scenario.Op, now uint64) {
	if s.plat == nil || op.Unmap == nil {
		s.err = fmt.Errorf("operation %d: iommu_unmap without an IOMMU (iommu.enabled = false)", s.seq)
		return
	}
	if !s.plat.drv.in.Ready() {
		return
	}
	s.plat.drv.in.Push(unmapOp{seq: s.seq, unmap: *op.Unmap})
	if s.onIssue != nil {
		s.onIssue(s.seq, now)
	}
	s.seq++
	s.after = s.seq
	if s.chunk = s.chunk[1:]; len(s.chunk) == 0 {
		s.chunk = s.feed.From(s.seq)
	}
}

// DefaultPostAhead is how many operations ahead of the model's input the
// host posts WQEs by default (a driver posts work before the device takes
// it), MaxPostAhead the most it may: 256 WQEs of up to 3 basic blocks,
// and the NOPs that pad a queue's end, fit a send queue of sq.SQRing
// (1024) basic blocks with room for the few the model's input holds.
const (
	DefaultPostAhead = 64
	MaxPostAhead     = 256
)

// postAhead posts the WQE of the next operation the host carries, if it
// is at most s.ahead operations ahead and the doorbell channel takes
// one this cycle; it reports whether more remain to post.
func (s *source) postAhead() bool {
	limit := s.seq + s.ahead
	var op *scenario.Op
	for ; s.posted < limit; s.posted++ {
		if op = s.feed.At(s.posted); op == nil || host.Carries(op) {
			break
		}
		s.host.Pass(op)
	}
	if op == nil || s.posted >= limit || s.err != nil {
		return false
	}
	if !s.cpu.Ready() {
		return false // woken when the doorbell channel frees
	}
	db, err := s.host.Post(s.posted, op)
	if err != nil {
		s.err = fmt.Errorf("operation %d: posting its WQE: %v", s.posted, err)
		return false
	}
	s.cpu.Push(db)
	s.posted++
	return true
}

// sink takes results as they leave the model, hands each to onResult and
// fails on a lost, duplicated or reordered completion (out of order is
// allowed only with overlapping invalidation).
type sink struct {
	sim.Base
	in       *sim.Chan[rtl.Result]
	onResult func(*scenario.Result) error
	// feed holds the run's operations, from base on; seen marks, from
	// lo (the oldest operation without a result), the results taken: a
	// window as wide as the model's reorder, whatever the run's length.
	feed     *stimulus.Feed
	base     int
	lo       int
	seen     []bool
	n        int // results taken
	inOrder  bool
	err      error
	accesses int // access results taken, over every Stream of the run
	// With the host IOMMU (plat not nil): the results held until the
	// gate has let go of every TLP the device had sent when each left it
	// (fence: the TLPs into the up link, tx's and up's), and the results
	// of the driver's operations. loQ is lo at the end of the last cycle,
	// for the source.
	plat *platform
	tx   *sim.Chan[pcie.TLP]
	up   *pcie.Link
	held []heldResult
	loQ  int
}

// heldResult is an access result waiting for its TLPs to pass the IOMMU.
type heldResult struct {
	r     scenario.Result
	fence uint64
}

// Commit latches lo for the source (loQ).
func (s *sink) Commit() { s.loQ = s.lo }

func (s *sink) Name() string { return "tb.sink" }

// Describe: the sink shows the results it has taken, in top.tb
// (sim.Described).
func (s *sink) Describe() sim.Description {
	return sim.Description{Scope: "tb", Signals: []sim.Signal{{Name: "results", Width: 32}},
		Sample: func(vs []uint64) { vs[0] = uint64(s.n) }}
}

// Connections: the sink pops the model's output (sim.Connected).
func (s *sink) Connections() (in, out []sim.Port) {
	if s.plat != nil {
		return []sim.Port{s.in, s.plat.drv.done}, nil
	}
	return []sim.Port{s.in}, nil
}

// all reports whether every operation of the run has its result.
func (s *sink) all() bool { return s.feed.Done() && s.lo == s.feed.Made() }

func (s *sink) Eval(now uint64) bool {
	if s.plat != nil {
		return s.evalHeld(now)
	}
	if !s.in.Valid() || s.err != nil {
		return false
	}
	r := s.in.Peek().Result
	s.in.Pop()
	s.take(r, now)
	return false
}

// evalHeld is Eval with the host IOMMU: results wait for their TLPs
// (fence) and are completed from what the gate saw of them; the driver's
// results join in scenario order.
func (s *sink) evalHeld(now uint64) bool {
	if s.err != nil {
		return false
	}
	if s.in.Valid() {
		// Both as they were at the end of the last cycle: every TLP the
		// device had sent by then.
		fence := s.up.Entered() + uint64(s.tx.Len())
		s.held = append(s.held, heldResult{r: s.in.Peek().Result.Clone(), fence: fence})
		s.in.Pop()
	}
	released := s.plat.gate.Released()
	for len(s.held) > 0 && s.held[0].fence <= released && s.err == nil {
		h := &s.held[0]
		if err := s.plat.complete(&h.r); err != nil {
			s.err = fmt.Errorf("cycle %d: %v", now, err)
			return false
		}
		s.take(&h.r, now)
		s.held[0] = heldResult{}
		s.held = s.held[1:]
	}
	if d := s.plat.drv.done; d.Valid() && s.err == nil {
		s.take(d.Peek(), now)
		d.Pop()
	}
	return len(s.held) > 0
}

// take checks the result r and hands it on.
func (s *sink) take(r *scenario.Result, now uint64) {
	i := r.Seq - s.lo
	switch {
	case r.Seq < s.base || r.Seq >= s.feed.Made():
		s.err = fmt.Errorf("cycle %d: completion of seq %d, which was never issued", now, r.Seq)
		return
	case i < 0 || i < len(s.seen) && s.seen[i]:
		s.err = fmt.Errorf("cycle %d: seq %d completed twice", now, r.Seq)
		return
	case s.inOrder && r.Seq != s.base+s.n:
		s.err = fmt.Errorf("cycle %d: seq %d completed before seq %d (reordered or lost)", now, r.Seq, s.base+s.n)
		return
	}
	switch {
	case i == 0 && len(s.seen) == 0:
		s.lo++ // in order: nothing to mark
	case i == 0:
		k := 1
		for k < len(s.seen) && s.seen[k] {
			k++
		}
		s.lo += k
		s.seen = append(s.seen[:0], s.seen[k:]...)
	default:
		for len(s.seen) <= i {
			s.seen = append(s.seen, false)
		}
		s.seen[i] = true
	}
	s.n++
	if r.Op == scenario.OpAccess {
		s.accesses++
	}
	if s.onResult != nil {
		if err := s.onResult(r); err != nil {
			s.err = err
		}
	}
	// After onResult: a scoreboard reads the operation of the result.
	s.feed.Forget(s.lo)
}
