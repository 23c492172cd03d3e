package wave

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/vcd"
)

// probe is a unit that declares one counter, the way every unit does (a
// tagged Stats field, Counters, CounterWords) and nothing else: it counts
// the results that leave the model, watching top.out's handshake.
type probe struct {
	sim.Base
	out   sim.Port
	stats struct {
		Seen uint64 `counter:"seen" unit:"results" help:"results the probe saw leave"`
	}
}

func (p *probe) Name() string { return "probe" }
func (p *probe) Eval(uint64) bool {
	if _, popped := p.out.Activity(); popped {
		p.stats.Seen++
	}
	return true // looks at every cycle stepped
}
func (p *probe) Connections() (in, out []sim.Port) { return nil, nil }
func (p *probe) Counters() []sim.Counter           { return sim.CountersOf("probe", &p.stats) }
func (p *probe) CounterWords() [][]uint64          { return sim.WordsOf(&p.stats) }

// TestNewCounterShowsEverywhere: a counter a unit declares is in the
// statistics JSON, the summary and the waveform with no change anywhere
// else (issue 10): a probe unit added to the bench declares one.
func TestNewCounterShowsEverywhere(t *testing.T) {
	sc, err := scenario.ReadFile("../../examples/klm-nested.json")
	if err != nil {
		t.Fatal(err)
	}
	var b *tb.Bench
	var p *probe
	f, _, res, tr := tracedRun(t, sc, rtl.DefaultConfig(), vcd.Options{}, func(bench *tb.Bench) {
		b, p = bench, &probe{out: bench.Top.Out}
		bench.Eng.Add(p)
	}, nil)
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
	_, mult := tr.Writer().Timescale()
	if got := value(t, f, "top.counters.probe.seen", b.Eng.Now()-1, mult); got != want {
		t.Errorf("top.counters.probe.seen ends at %d in the waveform, want %d", got, want)
	}
}
