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

// TestPCIeCountersAtTheirEvents: the PCIe units count in Eval, so their
// counters in the waveform move in the cycle of the handshake that is
// their event (docs/waveform.md), not in the one after: at every cycle,
// each sum of counters below grows by exactly one when the strobe beside
// it is high, and holds otherwise. (The requester's Tx takes only its
// MRd and MWr TLPs, its Rx only completions on this front, and the root
// complex's pipes only the requests it takes.)
func TestPCIeCountersAtTheirEvents(t *testing.T) {
	f, _, _, tr := tracedRun(t, workload(3, 400), rtl.DefaultConfig(), vcd.Options{}, nil, nil)
	_, mult := tr.Writer().Timescale()
	for _, c := range []struct {
		strobes  []string // high in the cycles of the event (at most one is)
		counters []string // under top.counters.
	}{
		{[]string{"top.pcie.tx_push"}, []string{"pcie.requester.reads", "pcie.requester.writes"}},
		{[]string{"top.pcie.tx_ready"}, []string{"pcie.up.tlps"}},
		{[]string{"top.host.pipe_ready", "top.host.data_pipe_ready"}, []string{"pcie.reads", "pcie.writes", "pcie.data_writes", "pcie.dropped"}},
		{[]string{"top.host.down_in_push"}, []string{"pcie.completions", "pcie.host_writes"}},
		{[]string{"top.host.down_in_ready"}, []string{"pcie.down.tlps"}},
		{[]string{"top.pcie.rx_ready"}, []string{"pcie.requester.completions"}},
	} {
		sum := func(cycle uint64) (n uint64) {
			for _, x := range c.counters {
				n += value(t, f, "top.counters."+x, cycle, mult)
			}
			return n
		}
		events, bad := 0, 0
		last := sum(0)
		for cycle := uint64(1); cycle <= f.End/mult; cycle++ {
			var want uint64
			for _, s := range c.strobes {
				want += value(t, f, s, cycle, mult)
			}
			events += int(want)
			n := sum(cycle)
			if n-last != want {
				if bad++; bad <= 5 {
					t.Errorf("cycle %d: %v grew by %d, %v high %d times", cycle, c.counters, n-last, c.strobes, want)
				}
			}
			last = n
		}
		if events == 0 {
			t.Errorf("%v never high: the run does not exercise %v", c.strobes, c.counters)
		}
	}
}
