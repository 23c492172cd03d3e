package tb

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/vcd"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/counters.md from the counters the units declare")

// TestCountersDoc: docs/counters.md is the definition of every figure the
// statistics print, made from the declarations in the units (go test
// ./tb -run TestCountersDoc -update rewrites it).
func TestCountersDoc(t *testing.T) {
	b, err := New(rtl.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	st := b.Stats(time.Second)
	var doc bytes.Buffer
	doc.WriteString(countersDocHead)
	st.WriteCountersDoc(&doc)
	const path = "../docs/counters.md"
	if *updateDocs {
		if err := os.WriteFile(path, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, doc.Bytes()) {
		t.Fatalf("%s is not what the units declare: run go test ./tb -run TestCountersDoc -update", path)
	}
	seen := map[string]bool{}
	for _, f := range st.Figures() {
		if seen[f.Name] || f.Unit == "" || f.Help == "" {
			t.Errorf("figure %q: repeated, or without unit or definition", f.Name)
		}
		seen[f.Name] = true
	}
}

const countersDocHead = `# Counters and figures

Every number that ` + "`mkeysim run`" + ` prints in its summary, writes with
` + "`--stats FILE.json`" + ` (nested at the dots of its name:
` + "`mkc_cache.hits`" + ` is ` + "`\"mkc_cache\": {\"hits\": ...}`" + `) and that ` + "`mkeysim sweep`" + `
puts in its tables, under the same name. A counter is declared once, in
the tags of the unit's Stats struct (` + "`rtl/sim.Counter`" + `); the figures
that are not counters are defined in ` + "`tb/stats.go`" + `. This page is
generated from those declarations (` + "`go test ./tb -run TestCountersDoc -update`" + `),
and ` + "`examples/counters/`" + ` has traces whose counts are worked out by hand.
Every counter is also in the waveform, as ` + "`top.counters.NAME`" + `, cycle by
cycle, except the counts of cycles of waiting, which say so.

A *lookup* is one piece (MKC cache) or one list entry (MTT and KLM caches)
taking its turn at a tag array; it is a hit or a miss, counted once, when
the unit acts on it: a piece that stalls is not counted again, and the
lookup a walker repeats after its own read filled the line is not a hit
(its miss was counted). A merged miss is a miss.

`

// TestStatsJSON: the statistics object nests each counter at its dots,
// keeps the contract's top-level names and carries every figure.
func TestStatsJSON(t *testing.T) {
	b, err := New(rtl.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	st := b.Stats(0)
	st.Seed = 7
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cycles", "wall_seconds", "cycles_per_second", "translations", "latency_cycles", "seed", "config"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %s in %s", k, data)
		}
	}
	for _, g := range []string{"mkc_cache", "mtt_cache"} {
		m, _ := doc[g].(map[string]any)
		for _, k := range []string{"hits", "misses", "fills", "evictions", "invalidations"} {
			if _, ok := m[k]; !ok {
				t.Errorf("no %s.%s (architecture.md's contract)", g, k)
			}
		}
		if v, ok := m["hit_rate"]; !ok || v != nil {
			t.Errorf("%s.hit_rate = %v, want null with no lookup", g, v)
		}
	}
	pc, _ := doc["pcie"].(map[string]any)
	for _, k := range []string{"reads", "read_bytes", "writes", "write_bytes", "completions"} {
		if _, ok := pc[k]; !ok {
			t.Errorf("no pcie.%s (architecture.md's contract)", k)
		}
	}
	var sum strings.Builder
	st.WriteSummary(&sum)
	if !strings.Contains(sum.String(), "mkc_cache: hit_rate -, hits 0, misses 0") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// probe is a unit that declares one counter, the way every unit does (a
// tagged Stats field, Counters, CounterValues) and nothing else: it counts
// the results that leave the model, watching top.out's handshake.
type probe struct {
	sim.Base
	out   sim.Port
	stats struct {
		Seen uint64 `counter:"seen" unit:"results" help:"results the probe saw leave"`
	}
	cread sim.CounterReader
}

func (p *probe) Name() string { return "probe" }
func (p *probe) Eval(uint64) bool {
	if _, popped := p.out.Activity(); popped {
		p.stats.Seen++
	}
	return true // looks at every cycle stepped
}
func (p *probe) Connections() (in, out []sim.Port)  { return nil, nil }
func (p *probe) Counters() []sim.Counter            { return sim.CountersOf("probe", &p.stats) }
func (p *probe) CounterValues(vs []uint64) []uint64 { return p.cread.Values(&p.stats, vs) }

// TestNewCounterShowsEverywhere: a counter a unit declares is in the
// statistics JSON, the summary and the waveform with no change anywhere
// else (issue 10): a probe unit added to the bench declares one.
func TestNewCounterShowsEverywhere(t *testing.T) {
	sc, err := scenario.ReadFile("../examples/klm-nested.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(rtl.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := &probe{out: b.Top.Out}
	b.Eng.Add(p)
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	var wave bytes.Buffer
	tr, err := Trace(b, &wave, vcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Run(sc.Ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	want := uint64(len(res))
	if p.stats.Seen != want {
		t.Fatalf("the probe saw %d results, the run has %d", p.stats.Seen, want)
	}
	st := b.Stats(time.Second)
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if wantJS := fmt.Sprintf(`"probe":{"seen":%d}`, want); !strings.Contains(string(js), wantJS) {
		t.Errorf("the statistics JSON lacks %s: %s", wantJS, js)
	}
	var sum bytes.Buffer
	st.WriteSummary(&sum)
	if wantSum := fmt.Sprintf("probe: seen %d\n", want); !strings.Contains(sum.String(), wantSum) {
		t.Errorf("the summary lacks %q:\n%s", wantSum, sum.String())
	}
	f, err := vcd.Parse(bytes.NewReader(wave.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	_, mult := tr.Writer().Timescale()
	if got := value(t, f, "top.counters.probe.seen", b.Eng.Now()-1, mult); got != want {
		t.Errorf("top.counters.probe.seen ends at %d in the waveform, want %d", got, want)
	}
}
