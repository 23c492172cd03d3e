package wave

import (
	"bytes"
	"fmt"
	"mkeysim/internal/tooltest"
	"mkeysim/tb"
	"mkeysim/tb/stimulus"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mkeysim/rtl"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/vcd"
)

// smallWorkload is a run of a few thousand cycles with every kind of key
// (MTT, KLM, fixed buffer size, windows), misses, commands and failures.
func smallWorkload(seed int64) *scenario.Scenario { return workload(seed, 400) }

func workload(seed int64, accesses int) *scenario.Scenario {
	w := stimulus.DefaultWorkload()
	w.Seed, w.Keys, w.Accesses = seed, 48, accesses
	// Commands often enough that a few hundred accesses see each kind.
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 30, 20, 10, 100
	return stimulus.Generate(w)
}

// runCounts are the operations the bench has handed the model and the
// results it has taken so far, counted from the run's own callbacks
// (RunOptions.OnIssue and OnResult).
type runCounts struct{ sent, taken int }

// tracedRun runs sc through a bench built with cfg and traced with o into
// a buffer. watch, if not nil, makes a hook that runs after the tracer's,
// so it sees the state the tracer sampled (n counts the run so far).
func tracedRun(t *testing.T, sc *scenario.Scenario, cfg rtl.Config, o vcd.Options, tweak func(*tb.Bench), watch func(b *tb.Bench, n *runCounts) func(uint64)) (*vcd.File, []byte, []scenario.Result, *Tracer) {
	t.Helper()
	b, err := tb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(b)
	}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tr, err := New(b, &buf, o)
	if err != nil {
		t.Fatal(err)
	}
	n := &runCounts{}
	if watch != nil {
		b.Eng.OnCycle(watch(b, n))
	}
	var res []scenario.Result
	err = b.Stream(sc.Ops, tb.RunOptions{OnIssue: func(int, uint64) { n.sent++ }, OnResult: func(r *scenario.Result) error {
		n.taken++
		res = append(res, r.Clone())
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := vcd.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("strict reader rejects the trace: %v", err)
	}
	return f, buf.Bytes(), res, tr
}

// portPath is where trace.go documents a channel's signals: the scope of
// the unit named before the first dot, with the documented exceptions.
func portPath(name string) string {
	switch name {
	case "top.in":
		return "top.core.in"
	case "top.out":
		return "top.core.out"
	case "top.tx":
		return "top.pcie.tx"
	case "top.rx":
		return "top.pcie.rx"
	case "pcie.up.wire", "pcie.up_out", "pcie.down_in", "pcie.down.wire":
		return "top.host." + strings.ReplaceAll(strings.TrimPrefix(name, "pcie."), ".", "_")
	case "host.pipe":
		return "top.host.pipe"
	}
	unit, rest, _ := strings.Cut(name, ".")
	return "top." + unit + "." + strings.ReplaceAll(rest, ".", "_")
}

// maxContexts is how many walker contexts the waveform shows one by one.
const maxContexts = 32

// expectation is a value the model had at a cycle.
type expectation struct {
	cycle uint64
	path  string
	value uint64
}

// recorder notes the model's state through its own accessors, not the
// tracer's code.
type recorder struct {
	b    *tb.Bench
	n    *runCounts
	want []expectation
}

func (r *recorder) note(c uint64, path string, v uint64) {
	r.want = append(r.want, expectation{c, path, v})
}

func b01(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (r *recorder) hook(now uint64) {
	b := r.b
	for _, p := range b.Eng.Ports() {
		path := portPath(p.Name())
		push, pop := p.Activity()
		r.note(now, path+"_push", b01(push))
		r.note(now, path+"_ready", b01(pop))
		r.note(now, path+"_valid", b01(p.HeadValid()))
		r.note(now, path+"_count", uint64(p.Len()))
		if !p.HeadValid() {
			continue
		}
		switch c := p.(type) {
		case *sim.Chan[rtl.Op]:
			r.note(now, path+"_seq", uint64(c.Peek().Seq))
			r.note(now, path+"_op", uint64(c.Peek().Op.Kind))
		case *sim.Chan[rtl.Result]:
			res := c.Peek().Result
			r.note(now, path+"_seq", uint64(res.Seq))
			r.note(now, path+"_status", uint64(res.Status))
		case *sim.Chan[scenario.Result]:
			r.note(now, path+"_seq", uint64(c.Peek().Seq))
			r.note(now, path+"_status", uint64(c.Peek().Status))
		case *sim.Chan[bus.Piece]:
			x := c.Peek()
			r.note(now, path+"_tag", uint64(x.Tag))
			r.note(now, path+"_key", uint64(x.Key))
			r.note(now, path+"_addr", x.Addr)
			r.note(now, path+"_len", x.Len)
			r.note(now, path+"_level", uint64(x.Level))
		case *sim.Chan[bus.Lookup]:
			x := c.Peek()
			if x.Token {
				r.note(now, path+"_token_id", uint64(x.TokenID))
				continue
			}
			r.note(now, path+"_tag", uint64(x.Tag))
			r.note(now, path+"_key", uint64(x.Key))
			r.note(now, path+"_mkc_mode", uint64(x.MKC.AccessMode))
			r.note(now, path+"_created", b01(x.Created))
		case *sim.Chan[bus.Walk]:
			x := c.Peek()
			r.note(now, path+"_tag", uint64(x.Tag))
			r.note(now, path+"_offset", x.Offset)
			r.note(now, path+"_mkc_start", x.MKC.StartAddr)
		case *sim.Chan[bus.Outcome]:
			x := c.Peek()
			r.note(now, path+"_tag", uint64(x.Tag))
			r.note(now, path+"_status", uint64(x.Status))
			r.note(now, path+"_seg_addr", x.Seg.Addr)
		case *sim.Chan[bus.Inval]:
			r.note(now, path+"_id", uint64(c.Peek().ID))
		case *sim.Chan[bus.Ack]:
			r.note(now, path+"_id", uint64(c.Peek().ID))
		case *sim.Chan[pcie.ReadReq]:
			r.note(now, path+"_id", uint64(c.Peek().ID))
			r.note(now, path+"_addr", c.Peek().Addr)
		case *sim.Chan[pcie.ReadResp]:
			r.note(now, path+"_id", uint64(c.Peek().ID))
			r.note(now, path+"_len", uint64(len(c.Peek().Data)))
		case *sim.Chan[pcie.TLP]:
			x := c.Peek()
			r.note(now, path+"_type", uint64(x.Type))
			r.note(now, path+"_tag", uint64(x.Tag))
			r.note(now, path+"_len_dw", uint64(x.LengthDW))
			r.note(now, path+"_addr", x.Addr)
		}
	}
	top := b.Top
	r.note(now, "top.tb.ops_sent", uint64(r.n.sent))
	r.note(now, "top.tb.results", uint64(r.n.taken))
	r.note(now, "top.core.cmd_state", uint64(top.CmdState()))
	r.note(now, "top.core.rob_count", uint64(top.InFlight()))
	c := top.Cache
	r.note(now, "top.mptcache.state", uint64(c.State()))
	r.note(now, "top.mptcache.mshrs", uint64(c.MSHRsInUse()))
	h, m, f, i := c.Strobes()
	r.note(now, "top.mptcache.hit", b01(h))
	r.note(now, "top.mptcache.miss", b01(m))
	r.note(now, "top.mptcache.fill", b01(f))
	r.note(now, "top.mptcache.inval", b01(i))
	fired, key, st := top.Check.Fired()
	r.note(now, "top.protcheck.fired", b01(fired))
	if fired {
		r.note(now, "top.protcheck.fired_key", uint64(key))
		r.note(now, "top.protcheck.fired_status", uint64(st))
	}
	mw := top.MTT
	r.note(now, "top.mttwalk.state", uint64(mw.State()))
	r.note(now, "top.mttwalk.in_use", uint64(mw.InUse()))
	h, m, f = mw.Strobes()
	r.note(now, "top.mttwalk.hit", b01(h))
	r.note(now, "top.mttwalk.miss", b01(m))
	r.note(now, "top.mttwalk.fill", b01(f))
	for k := 0; k < top.Config().MTT.Walkers && k < maxContexts; k++ {
		s, w, _ := mw.Current(k)
		r.note(now, fmt.Sprintf("top.mttwalk.ctx%d_state", k), uint64(s))
		if s != 0 {
			r.note(now, fmt.Sprintf("top.mttwalk.ctx%d_tag", k), uint64(w.Tag))
		}
	}
	kw := top.KLM
	r.note(now, "top.klmwalk.in_use", uint64(kw.InUse()))
	r.note(now, "top.klmwalk.credits", uint64(kw.Credits()))
	for k := 0; k < top.Config().KLM.Contexts && k < maxContexts; k++ {
		s, w := kw.Context(k)
		r.note(now, fmt.Sprintf("top.klmwalk.ctx%d_state", k), uint64(s))
		if s != 0 {
			r.note(now, fmt.Sprintf("top.klmwalk.ctx%d_tag", k), uint64(w.Tag))
		}
	}
	r.note(now, "top.pcie.tags_in_use", uint64(top.Req.TagsInUse()))
}

// value reads a variable at a cycle as a number.
func value(t *testing.T, f *vcd.File, path string, cycle, mult uint64) uint64 {
	t.Helper()
	s, ok := f.ValueAt(path, cycle*mult)
	if !ok {
		t.Fatalf("%s: no value at cycle %d", path, cycle)
	}
	v, err := strconv.ParseUint(s, 2, 64)
	if err != nil {
		t.Fatalf("%s at cycle %d: %q: %v", path, cycle, s, err)
	}
	return v
}

// TestTraceMatchesModel: the waveform of a small run holds, at every cycle
// the engine stepped, the state the model had then, read through the
// units' and channels' own accessors (a second hook runs after the
// tracer's, between the same evaluation and commit).
func TestTraceMatchesModel(t *testing.T) {
	tiny := rtl.DefaultConfig()
	tiny.FIFODepth, tiny.ROBEntries, tiny.StageLat = 1, 3, 2
	tiny.MKCCache.Sets, tiny.MKCCache.Ways, tiny.MKCCache.MSHRs, tiny.MKCCache.LoopMSHRs = 1, 1, 1, 1
	tiny.KLM.Contexts, tiny.KLM.NestedContexts = 5, 4
	wide := rtl.DefaultConfig()
	wide.ROBEntries, wide.StageLat, wide.MTT.Walkers = 128, 3, maxContexts+8
	for _, c := range []struct {
		name     string
		seed     int64
		accesses int
		cfg      rtl.Config
	}{{"default", 3, 400, rtl.DefaultConfig()}, {"default", 11, 400, rtl.DefaultConfig()}, {"tiny", 4, 40, tiny}, {"wide", 5, 400, wide}} {
		t.Run(fmt.Sprint(c.name, "-seed", c.seed), func(t *testing.T) {
			var rec *recorder
			f, _, res, tr := tracedRun(t, workload(c.seed, c.accesses), c.cfg, vcd.Options{}, nil, func(b *tb.Bench, n *runCounts) func(uint64) {
				rec = &recorder{b: b, n: n}
				return rec.hook
			})
			if len(res) == 0 || len(rec.want) == 0 {
				t.Fatal("nothing ran")
			}
			_, mult := tr.Writer().Timescale()
			if unit, _ := tr.Writer().Timescale(); unit != f.Timescale {
				t.Errorf("timescale %q, writer says %q", f.Timescale, unit)
			}
			bad := 0
			for _, e := range rec.want {
				if _, ok := f.Var(e.path); !ok {
					t.Fatalf("%s is not traced", e.path)
				}
				if got := value(t, f, e.path, e.cycle, mult); got != e.value {
					if bad++; bad <= 10 {
						t.Errorf("cycle %d: %s = %d in the waveform, %d in the model", e.cycle, e.path, got, e.value)
					}
				}
			}
			if bad > 0 {
				t.Fatalf("%d of %d values differ", bad, len(rec.want))
			}
			t.Logf("%d values checked over %d cycles, %d signals", len(rec.want), rec.b.Eng.Now(), len(f.Vars))
		})
	}
}

// cyclesHigh lists the cycles at which the 1-bit variable path is 1. A
// value lasts until the next change; the last one lasts to the end of the
// dump. Skipped cycles never hold a strobe: the engine steps one idle
// cycle, where the tracer lowers it, before it skips.
func cyclesHigh(f *vcd.File, path string, mult uint64) []uint64 {
	ch := f.Changes(path)
	var out []uint64
	for i, c := range ch {
		if c.Value != "1" {
			continue
		}
		end := f.End/mult + 1
		if i+1 < len(ch) {
			end = ch[i+1].Time / mult
		}
		for k := c.Time / mult; k < end; k++ {
			out = append(out, k)
		}
	}
	return out
}

// TestTraceHoldsScoreboardTransactions: the results leaving the model on
// top.out, counted as handshakes in the waveform, are exactly the ones the
// testbench collected, in the same order, each with its seq and status,
// and each pushed at the cycle the result reports.
func TestTraceHoldsScoreboardTransactions(t *testing.T) {
	f, _, res, tr := tracedRun(t, smallWorkload(5), rtl.DefaultConfig(), vcd.Options{}, nil, nil)
	_, mult := tr.Writer().Timescale()
	valid := map[uint64]bool{}
	for _, c := range cyclesHigh(f, "top.core.out_valid", mult) {
		valid[c] = true
	}
	var taken []uint64
	for _, c := range cyclesHigh(f, "top.core.out_ready", mult) {
		if !valid[c] {
			t.Fatalf("cycle %d: out_ready without out_valid", c)
		}
		taken = append(taken, c)
	}
	pushed := cyclesHigh(f, "top.core.out_push", mult)
	if len(taken) != len(res) || len(pushed) != len(res) {
		t.Fatalf("waveform: %d results pushed and %d taken on top.out, the scoreboard saw %d", len(pushed), len(taken), len(res))
	}
	for i, r := range res {
		c := taken[i]
		if seq := value(t, f, "top.core.out_seq", c, mult); seq != uint64(r.Seq) {
			t.Errorf("handshake %d at cycle %d: seq %d, scoreboard has seq %d", i, c, seq, r.Seq)
		}
		if st := value(t, f, "top.core.out_status", c, mult); st != uint64(r.Status) {
			t.Errorf("handshake %d at cycle %d: status %d, scoreboard has %v", i, c, st, r.Status)
		}
		if pushed[i] != r.Cycle {
			t.Errorf("result %d (seq %d) completes at cycle %d, pushed on top.out at cycle %d", i, r.Seq, r.Cycle, pushed[i])
		}
	}
}

// TestTraceGTKWaveLoadsDefaultRun: the waveform of the default run (about
// 100 MB) with its save file and filters loads in GTKWave and vcd2fst
// without a complaint, every signal the save file names is displayed and
// every filter file is readable (scripts/gtkwave-check.sh).
func TestTraceGTKWaveLoadsDefaultRun(t *testing.T) {
	tooltest.Need(t, tooltest.GTKWave...)
	if testing.Short() {
		t.Skip("the default run's waveform takes about 15 s to check")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "default.vcd")
	sc := stimulus.Generate(stimulus.DefaultWorkload())
	b := loadedBench(t, rtl.DefaultConfig(), sc)
	tr, err := Create(b, path, vcd.Options{Comment: "TestTraceGTKWaveLoadsDefaultRun"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(sc.Ops, nil); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	gtkw, filters := Paths(path)
	for _, p := range []string{path, gtkw, filepath.Join(filters, "status.txt")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	if len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	out, err := exec.Command("bash", "../../scripts/gtkwave-check.sh", path, gtkw).CombinedOutput()
	if err != nil {
		t.Fatalf("gtkwave-check: %v\n%s", err, out)
	}
	save, _ := os.ReadFile(gtkw)
	for _, want := range []string{`[dumpfile] "default.vcd"`, `[savefile] "default.gtkw"`, "^1 default.filters/",
		"top.clk\n", "top.cycle[63:0]", "top.core.out_status[4:0]", "top.mptcache.state[2:0]"} {
		if !bytes.Contains(save, []byte(want)) {
			t.Errorf("save file lacks %q", want)
		}
	}
	if bytes.Contains(save, []byte(dir)) {
		t.Errorf("save file names its directory %s: a copied folder would not open", dir)
	}
	// The folder copied elsewhere opens the same (gtkwave-check runs
	// GTKWave from another directory), every translate filter applied.
	moved := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.MkdirAll(filepath.Join(moved, "default.filters"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"default.vcd", "default.gtkw"} {
		copyFile(t, filepath.Join(dir, f), filepath.Join(moved, f))
	}
	ents, _ := os.ReadDir(filters)
	for _, e := range ents {
		copyFile(t, filepath.Join(filters, e.Name()), filepath.Join(moved, "default.filters", e.Name()))
	}
	os.RemoveAll(dir)
	out, err = exec.Command("bash", "../../scripts/gtkwave-check.sh", filepath.Join(moved, "default.vcd"), filepath.Join(moved, "default.gtkw")).CombinedOutput()
	if err != nil {
		t.Fatalf("gtkwave-check on the copied folder: %v\n%s", err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTraceWindowAndScope: a window and a scope filter give a strict VCD
// with only the selected scopes (and the time base, top.clk and
// top.cycle, always), no change outside the window (but the #0 dump; the
// clock falls halfway through the window's last cycle), and inside it the
// values of the full trace.
func TestTraceWindowAndScope(t *testing.T) {
	sc := smallWorkload(7)
	full, _, _, tr := tracedRun(t, sc, rtl.DefaultConfig(), vcd.Options{}, nil, nil)
	_, mult := tr.Writer().Timescale()
	end := full.End / mult
	for _, o := range []vcd.Options{
		{From: end / 3, To: end / 2, Scope: "top.mptcache,top.pcie"},
		{From: end / 4, Scope: "top.*walk"},
		{To: end / 5, Scope: "top.host"},
		{Scope: "top.tb"},
		{From: end / 2, To: end / 2},
	} {
		t.Run(fmt.Sprintf("%d-%d-%s", o.From, o.To, o.Scope), func(t *testing.T) {
			f, _, _, tr := tracedRun(t, sc, rtl.DefaultConfig(), o, nil, nil)
			pats := strings.Split(o.Scope, ",")
			for _, v := range f.Vars {
				ok := o.Scope == "" || v.Path == "top.clk" || v.Path == "top.cycle"
				for _, p := range pats {
					scope := v.Path[:strings.LastIndexByte(v.Path, '.')]
					if m, _ := filepath.Match(p, scope); m || strings.HasPrefix(v.Path, p+".") {
						ok = true
					}
				}
				if !ok {
					t.Fatalf("%s is traced, outside scope %q", v.Path, o.Scope)
				}
			}
			if len(f.Vars) == 0 {
				t.Fatal("no variable")
			}
			to := o.To
			if to == 0 {
				to = end
			}
			for _, v := range f.Vars {
				for _, c := range f.Changes(v.Path) {
					if c.Time != 0 && (c.Time < o.From*mult || c.Time >= (to+1)*mult) {
						t.Fatalf("%s changes at cycle %d, outside [%d, %d]", v.Path, c.Time/mult, o.From, to)
					}
				}
				// Inside the window, every cycle where either file has a
				// change, the values agree with the full trace.
				times := []uint64{o.From * mult}
				for _, c := range full.Changes(v.Path) {
					if c.Time >= o.From*mult && c.Time <= to*mult {
						times = append(times, c.Time)
					}
				}
				for _, tm := range times {
					a, _ := f.ValueAt(v.Path, tm)
					b, _ := full.ValueAt(v.Path, tm)
					if a != b {
						t.Fatalf("%s at cycle %d: %s in the window, %s in the full trace", v.Path, tm/mult, a, b)
					}
				}
			}
			// The save file names exactly the traced signals.
			sf := tr.SaveFile("x.gtkw", "x.vcd", "x.filters")
			n := 0
			for _, g := range sf.Groups {
				for _, s := range g.Signals {
					if _, ok := f.Var(s.Path); !ok {
						t.Errorf("save file names %s, not traced", s.Path)
					}
					n++
				}
			}
			if n < len(f.Vars) {
				t.Errorf("save file shows %d signals of %d", n, len(f.Vars))
			}
			if sf.TimeStart != o.From*mult {
				t.Errorf("save file starts at %d, want %d", sf.TimeStart, o.From*mult)
			}
		})
	}
}

// TestTraceDoesNotPerturb: results and their cycles are the same with
// and without tracing, and the waveform is the same whether or not the
// engine skips idle cycles.
func TestTraceDoesNotPerturb(t *testing.T) {
	sc := smallWorkload(9)
	b := loadedBench(t, rtl.DefaultConfig(), sc)
	plain, err := b.Run(sc.Ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, skipVCD, traced, _ := tracedRun(t, sc, rtl.DefaultConfig(), vcd.Options{}, nil, nil)
	if len(plain) != len(traced) {
		t.Fatalf("%d results traced, %d untraced", len(traced), len(plain))
	}
	for i := range plain {
		if d := scenario.Diff(&traced[i], &plain[i]); d != "" || traced[i].Cycle != plain[i].Cycle {
			t.Fatalf("result %d differs when traced: %s (cycle %d, untraced %d)", i, d, traced[i].Cycle, plain[i].Cycle)
		}
	}
	_, noSkipVCD, _, _ := tracedRun(t, sc, rtl.DefaultConfig(), vcd.Options{}, func(b *tb.Bench) { b.Eng.NoSkip = true }, nil)
	if !bytes.Equal(skipVCD, noSkipVCD) {
		t.Fatalf("the waveform depends on idle skipping (%d bytes with, %d without)", len(skipVCD), len(noSkipVCD))
	}
	// Two-phase discipline: evaluating the units in a different random
	// order every cycle gives the same waveform, byte for byte.
	for _, seed := range []int64{1, 2} {
		_, shuffled, _, _ := tracedRun(t, sc, rtl.DefaultConfig(), vcd.Options{}, func(b *tb.Bench) { b.Eng.Shuffle(seed) }, nil)
		if !bytes.Equal(skipVCD, shuffled) {
			t.Fatalf("shuffle seed %d: the waveform depends on the order units are evaluated in", seed)
		}
	}
}

// TestTraceScopeCheck: scope patterns are checked against the scopes the
// tracer declares.
func TestTraceScopeCheck(t *testing.T) {
	scopes, err := Scopes()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"top", "top.tb", "top.core", "top.mptcache", "top.protcheck", "top.mttwalk", "top.klmwalk", "top.pcie", "top.dma", "top.sq", "top.host",
		"top.counters.core", "top.counters.sq", "top.counters.pages", "top.counters.mkc_cache", "top.counters.protcheck", "top.counters.mttwalk", "top.counters.mtt_cache",
		"top.counters.klmwalk", "top.counters.klm_cache", "top.counters.pcie.requester", "top.counters.data", "top.counters.pcie.up", "top.counters.pcie",
		"top.counters.pcie.down"}
	if strings.Join(scopes, ",") != strings.Join(want, ",") {
		t.Errorf("scopes %v, want %v", scopes, want)
	}
	for _, ok := range []string{"", "top", "top.mptcache", "top.*walk, top.host", "top.*"} {
		if err := CheckScope(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"mptcache", "top.nothing", "top.mptcache,top.typo", "top.[", "*.mshr"} {
		if err := CheckScope(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestTraceFileLeavesNothingOnError: a VCD file that cannot be written
// fails at TraceFile and leaves no file behind.
func TestTraceFileLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	b, err := tb.New(rtl.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(b, filepath.Join(dir, "missing", "x.vcd"), vcd.Options{}); err == nil {
		t.Fatal("no error for a file in a missing directory")
	}
	if _, err := Create(b, filepath.Join(dir, "x.vcd"), vcd.Options{Scope: "top.none"}); err == nil {
		t.Fatal("no error for a scope that selects nothing")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// TestTraceFileReplaces: a waveform already at the path survives a
// TraceFile that fails, and is replaced by the one a traced run writes
// (removeOld takes it away beside the run); a directory at the path is
// left alone and Close reports that it cannot be replaced.
func TestTraceFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.vcd")
	old := []byte("an earlier run's waveform\n")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	sc := stimulus.Generate(hotWorkload())
	sc.Ops = sc.Ops[:200]
	trace := func(path string, o vcd.Options) error {
		b := loadedBench(t, rtl.DefaultConfig(), sc)
		tr, err := Create(b, path, o)
		if err != nil {
			return err
		}
		if _, err := b.Run(sc.Ops, nil); err != nil {
			t.Fatal(err)
		}
		return tr.Close()
	}
	if err := trace(path, vcd.Options{Scope: "top.none"}); err == nil {
		t.Fatal("no error for a scope that selects nothing")
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Fatalf("a failed TraceFile changed the file at its path: %q", got)
	}
	if err := trace(path, vcd.Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.HasPrefix(got, []byte("$version")) {
		t.Fatalf("the new waveform did not replace the old one: it starts %q", got[:min(len(got), 40)])
	}
	sub := filepath.Join(dir, "sub.vcd")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := trace(sub, vcd.Options{}); err == nil {
		t.Fatal("no error for a directory at the path")
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Fatalf("the directory at the path is gone: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestTraceCounters: every counter a unit declares is in the waveform
// under top.counters by its statistics name, and holds at every cycle the
// engine stepped the value the unit reports then (sim.Counted), except
// the counts of cycles spent waiting, which the waveform leaves out
// (sim.Counter.Wait). Each unit's CounterWords agrees with its
// Counters.
func TestTraceCounters(t *testing.T) {
	type want struct {
		cycle uint64
		path  string
		value uint64
	}
	var wants []want
	names, waits := map[string]bool{}, map[string]bool{}
	f, _, _, tr := tracedRun(t, workload(3, 400), rtl.DefaultConfig(), vcd.Options{}, nil, func(b *tb.Bench, _ *runCounts) func(uint64) {
		return func(now uint64) {
			for _, c := range b.Eng.Components() {
				cn, ok := c.(sim.Counted)
				if !ok {
					continue
				}
				cw, ok := c.(sim.CounterWorder)
				if !ok {
					t.Fatalf("%s declares counters but no way to read them every cycle (sim.CounterWorder)", c.Name())
				}
				var vs []uint64
				for _, w := range cw.CounterWords() {
					vs = append(vs, w...)
				}
				var shown []sim.Counter
				for _, x := range cn.Counters() {
					if x.Wait {
						waits[x.Name] = true // the waveform leaves it out
					} else {
						shown = append(shown, x)
					}
				}
				if len(vs) != len(shown) {
					t.Fatalf("%s: %d counters shown, %d words", c.Name(), len(shown), len(vs))
				}
				for i, x := range shown {
					if vs[i] != x.Value {
						t.Fatalf("cycle %d: %s: the words say %d, Counters %d", now, x.Name, vs[i], x.Value)
					}
					names[x.Name] = true
					wants = append(wants, want{now, "top.counters." + x.Name, x.Value})
				}
			}
		}
	})
	_, mult := tr.Writer().Timescale()
	for name := range names {
		if _, ok := f.Var("top.counters." + name); !ok {
			t.Errorf("counter %s is not in the waveform", name)
		}
	}
	if len(names) < 40 {
		t.Errorf("only %d counters seen", len(names))
	}
	bad, moved := 0, map[string]bool{}
	for _, w := range wants {
		if w.value > 0 {
			moved[w.path] = true
		}
		if got := value(t, f, w.path, w.cycle, mult); got != w.value {
			if bad++; bad <= 10 {
				t.Errorf("cycle %d: %s = %d in the waveform, %d in the model", w.cycle, w.path, got, w.value)
			}
		}
	}
	if len(moved) < 20 {
		t.Errorf("only %d counters ever left 0: the workload does not exercise them", len(moved))
	}
	for name := range waits {
		if _, ok := f.Var("top.counters." + name); ok {
			t.Errorf("%s counts waiting cycles and should not be traced", name)
		}
	}
	if len(waits) != 24 {
		t.Errorf("%d counters of waiting cycles and occupancies, want 24 (waits: mkc_cache and its four causes, ROB order, walker contexts, KLM level-0 contexts, protcheck, klmwalk credits, requester tags, data path slots and small fence, the send-queue front's read slots, two links; occupancies: ROB, MSHRs, walkers, KLM contexts, tags, data requests, the send-queue front's busy cycles and reads in flight): %v", len(waits), waits)
	}
	t.Logf("%d values of %d counters checked", len(wants), len(names))
}

// loadedBench is a new bench of cfg with sc loaded.
func loadedBench(t testing.TB, cfg rtl.Config, sc *scenario.Scenario) *tb.Bench {
	t.Helper()
	b, err := tb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	return b
}

// hotWorkload is tb's hit-bound benchmark workload: every access to a
// working set of 128 keys, no commands.
func hotWorkload() stimulus.Workload {
	w := stimulus.DefaultWorkload()
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille, w.HotPerMille = 0, 0, 0, 0, 1000
	return w
}
