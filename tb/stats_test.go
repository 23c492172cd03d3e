package tb

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/stats"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/counters.md from the counters the units declare")

// TestCountersDoc: docs/counters.md is the definition of every figure the
// statistics print, made from the declarations in the units (go test
// ./tb -run TestCountersDoc -update rewrites it).
func TestCountersDoc(t *testing.T) {
	// Every unit: the default model's, and the platform's (issue 36).
	cfg := rtl.DefaultConfig()
	cfg.IOMMU.Enabled, cfg.Data.Enabled, cfg.HCACap.ATS = true, true, true
	b, err := New(cfg)
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
that are not counters are defined in ` + "`tb/stats`" + `
(` + "`stats.Report.Figures`" + `). This page is generated from those
declarations (` + "`go test ./tb -run TestCountersDoc -update`" + `), and
` + "`examples/counters/`" + ` has traces whose counts are worked out by hand.
Every counter is also in the waveform, as ` + "`top.counters.NAME`" + `, cycle by
cycle, except the counts of cycles of waiting, which say so.
The groups ` + "`iommu`" + ` and ` + "`iommu.gate`" + ` are there when the run has the host
IOMMU (` + "`iommu.enabled`" + `, issue 36).

Every result is in cycles and in time: the figures in time
(` + "`simulated_ns`" + `, ` + "`throughput_maps`" + `, ` + "`throughput_gbps`" + `, ` + "`latency_ns.*`" + `) are
the cycles at the clock period ` + "`clock_ps`" + ` (4000 ps, 250 MHz, by default;
with ` + "`--clock-ps 1000`" + ` a nanosecond is a cycle). ` + "`latency_histogram`" + `, a
list, is only in the JSON (` + "`--stats`" + `, ` + "`sweep.json`" + `). Sweep tables also
carry a few figures under short names as well (` + "`latency_p99_ns`" + ` is
` + "`latency_ns.p99`" + `, ` + "`mkc_hit_rate`" + ` is ` + "`mkc_cache.hit_rate`" + `: [sweep.md](sweep.md)).

A *lookup* is one piece (MKC cache) or one list entry (MTT and KLM caches)
taking its turn at a tag array; it is a hit or a miss, counted once, when
the unit acts on it: a piece that stalls is not counted again, and the
lookup a walker repeats after its own read filled the line is not a hit
(its miss was counted). A merged miss is a miss.

Two lines of the summary belong to a front (` + "`--front`" + `), not to the
model, and are printed only with it (not in ` + "`--stats`" + `): ` + "`wire:`" + `
(` + "`--front wire`" + `, ` + "`mkeysim replay`" + `; [wire.md](wire.md)) counts the
` + "`messages`" + ` (operations that travelled as packets), the
` + "`request_packets`" + ` and ` + "`answer_packets`" + ` (ACKs, NAKs, read
responses, atomic acknowledgements), the ` + "`skipped_packets`" + ` (packets the
responder parsed that started no message: the rest of a WRITE,
retransmissions, answers in a capture), and the ` + "`recv_cqes`" + ` and
` + "`error_cqes`" + ` the host read back for SENDs with invalidate; ` + "`host:`" + `
(` + "`--front host`" + `; [host.md](host.md)) counts the ` + "`wqes`" + ` posted, the
` + "`nops`" + ` that padded a send queue's end, the ` + "`doorbells`" + ` rung, and the
` + "`cqes`" + ` and ` + "`error_cqes`" + ` the host polled and checked. The device's side
of the same traffic is in the counters below (` + "`sq.*`" + `,
` + "`pcie.host_writes`" + `).

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
	for _, k := range []string{"cycles", "simulated_ns", "wall_seconds", "cycles_per_second", "translations",
		"throughput_maps", "throughput_gbps", "latency_cycles", "latency_ns", "latency_histogram", "seed", "config"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %s in %s", k, data)
		}
	}
	// No access retired: throughput 0, the histogram an empty list.
	if h, ok := doc["latency_histogram"].([]any); !ok || len(h) != 0 {
		t.Errorf("latency_histogram = %v with no access, want []", doc["latency_histogram"])
	}
	if doc["throughput_maps"] != 0.0 || doc["throughput_gbps"] != 0.0 {
		t.Errorf("throughput %v M accesses/s, %v GB/s in no cycle, want 0", doc["throughput_maps"], doc["throughput_gbps"])
	}
	for _, g := range []string{"latency_cycles", "latency_ns"} {
		m, _ := doc[g].(map[string]any)
		for _, k := range []string{"p50", "p90", "p95", "p99", "max"} {
			if _, ok := m[k]; !ok {
				t.Errorf("no %s.%s", g, k)
			}
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
	if !strings.Contains(sum.String(), "mkc_cache: hit_rate -, hits 0, misses 0") || !strings.Contains(sum.String(), "\nlatency_ns: p50 0, p90 0, p95 0, p99 0, max 0\n") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// TestTimeFigures: the figures in time (simulated_ns, throughput_maps,
// throughput_gbps, latency_ns.*) and the latency histogram of hand-worked
// traces of examples/counters, at several clock periods, against numbers
// worked out by hand; the statistics JSON carries them in its shape and
// the summary prints the run's and the latency's figures, not the
// histogram.
//
// The cycle counts, with the defaults (stage_latency 1, cmd_latency 20):
// an operation offered at cycle 0 enters at cycle 1. A PA access that
// hits the MKC cache takes 3 cycles from issue to retirement (MKC lookup,
// protection check, reorder buffer), an MTT access 4 (and the MTT
// walker); each 64-byte read of host memory adds 178 (rtl/pcie's package
// doc: 4 + 2 x 75 link + 20 host + 1 to send the MRd + 3 the CplD). A
// query_mkey runs when the access before it has retired: 20 cycles of
// firmware and its result leaves 21 cycles after that retirement, the
// cycle the next operation enters. One result leaves a cycle; the run
// ends the cycle after the last result is taken (cycles counts 0 to it).
//
// time-figures (PA key, 4096 bytes): access 0 (4096 B) misses: 3 + 178
// = 181 cycles, retires at 182; query_mkey at 203; the 0-byte access
// enters at 203 and, with no piece to wait for, retires at 204 (1 cycle);
// the next five enter at 204..208 and retire 3 cycles later, 207..211,
// the one at 0xf00 of 512 bytes OUT_OF_RANGE. Cycles 211 + 2 = 213.
// Translations 7; bytes of the OK ones 4096 + 0 + 64 + 512 + 1024 + 2048
// = 7744 (the failure's 512 do not count). Latencies sorted: 1, 3 x 5,
// 181: p50 is the 4th (ceil(0.5 x 7)), 3; p90, p95, p99 the 7th, 181.
// Histogram: [1,1] 1, [2,3] 5, [4,7] .. [64,127] 0, [128,255] 1.
//
// all-hit (MTT key): access 0 misses the MKC and the MTT line: 4 + 2 x
// 178 = 360, retires at 361; query_mkey at 382; accesses 2..101 enter at
// 382..481 and hit: 4 cycles, retiring 386..485. Cycles 485 + 2 = 487.
// Translations 101, bytes 101 x 8 = 808. Latencies 4 x 100 and 360:
// p50..p99 (at most the 100th of 101) 4, max 360. Histogram: [4,7] 100,
// [256,511] 1, the 7 others below 512 empty.
//
// mkc-merged-misses: accesses 0..4 (8 bytes each) enter at 1..5; all wait
// for the one MKC read: access 0 retires at 182, the other four follow one
// a cycle, 183..186: every latency 181. Cycles 186 + 2 = 188, bytes 40.
//
// In time, at clock_ps P: ns = cycles x P / 1000; M accesses/s =
// translations / ns x 1000; GB/s = bytes / ns.
func TestTimeFigures(t *testing.T) {
	hist := func(counts ...uint64) []stats.LatencyBucket { // counts of [1,1], [2,3], ...
		h := []stats.LatencyBucket{}
		for k, c := range counts {
			h = append(h, stats.LatencyBucket{Lo: 1 << k, Hi: 1<<(k+1) - 1, Count: c})
		}
		return h
	}
	for _, c := range []struct {
		trace   string
		clockPS uint64
		want    map[string]float64 // figure by figure
		hist    []stats.LatencyBucket
		run     []string // items of the summary's run line
		latNS   string   // the summary's latency_ns line
	}{
		{"time-figures", 1000, map[string]float64{
			"cycles": 213, "simulated_ns": 213, "translations": 7, "core.translated_bytes": 7744,
			"throughput_maps":    7000.0 / 213,
			"throughput_gbps":    7744.0 / 213,
			"latency_cycles.p50": 3, "latency_cycles.p90": 181, "latency_cycles.p95": 181, "latency_cycles.p99": 181, "latency_cycles.max": 181,
			"latency_ns.p50": 3, "latency_ns.p90": 181, "latency_ns.p95": 181, "latency_ns.p99": 181, "latency_ns.max": 181,
		}, hist(1, 5, 0, 0, 0, 0, 0, 1),
			[]string{"cycles 213", "simulated_ns 213", "throughput_maps 32.864", "throughput_gbps 36.357"},
			"latency_ns: p50 3, p90 181, p95 181, p99 181, max 181"},
		// 3333 ps (300 MHz): 213 cycles are 709.929 ns, 3 cycles 9.999 ns,
		// 181 cycles 603.273 ns.
		{"time-figures", 3333, map[string]float64{
			"cycles": 213, "simulated_ns": 709.929, "translations": 7, "core.translated_bytes": 7744,
			"throughput_maps":    7000 / 709.929,
			"throughput_gbps":    7744 / 709.929,
			"latency_cycles.p50": 3, "latency_cycles.max": 181,
			"latency_ns.p50": 9.999, "latency_ns.p90": 603.273, "latency_ns.p95": 603.273, "latency_ns.p99": 603.273, "latency_ns.max": 603.273,
		}, hist(1, 5, 0, 0, 0, 0, 0, 1),
			[]string{"simulated_ns 709.929", "throughput_maps 9.860", "throughput_gbps 10.908"},
			"latency_ns: p50 9.999, p90 603.273, p95 603.273, p99 603.273, max 603.273"},
		{"all-hit", 1000, map[string]float64{
			"cycles": 487, "simulated_ns": 487, "translations": 101, "core.translated_bytes": 808,
			"throughput_maps":    101000.0 / 487,
			"throughput_gbps":    808.0 / 487,
			"latency_cycles.p50": 4, "latency_cycles.p90": 4, "latency_cycles.p95": 4, "latency_cycles.p99": 4, "latency_cycles.max": 360,
			"latency_ns.p50": 4, "latency_ns.p99": 4, "latency_ns.max": 360,
		}, hist(0, 0, 100, 0, 0, 0, 0, 0, 1),
			[]string{"cycles 487", "simulated_ns 487", "throughput_maps 207.392", "throughput_gbps 1.659"},
			"latency_ns: p50 4, p90 4, p95 4, p99 4, max 360"},
		// The default 4000 ps (250 MHz): 487 cycles are 1948 ns.
		{"all-hit", 4000, map[string]float64{
			"cycles": 487, "simulated_ns": 1948, "translations": 101, "core.translated_bytes": 808,
			"throughput_maps": 101000.0 / 1948,
			"throughput_gbps": 808.0 / 1948,
			"latency_ns.p50":  16, "latency_ns.p90": 16, "latency_ns.p95": 16, "latency_ns.p99": 16, "latency_ns.max": 1440,
		}, hist(0, 0, 100, 0, 0, 0, 0, 0, 1),
			[]string{"simulated_ns 1948", "throughput_maps 51.848", "throughput_gbps 0.415"},
			"latency_ns: p50 16, p90 16, p95 16, p99 16, max 1440"},
		{"mkc-merged-misses", 1000, map[string]float64{
			"cycles": 188, "simulated_ns": 188, "translations": 5, "core.translated_bytes": 40,
			"throughput_maps":    5000.0 / 188,
			"throughput_gbps":    40.0 / 188,
			"latency_cycles.p50": 181, "latency_cycles.max": 181, "latency_ns.p50": 181, "latency_ns.max": 181,
		}, hist(0, 0, 0, 0, 0, 0, 0, 5),
			[]string{"cycles 188", "throughput_maps 26.596", "throughput_gbps 0.213"},
			"latency_ns: p50 181, p90 181, p95 181, p99 181, max 181"},
	} {
		t.Run(fmt.Sprintf("%s/%dps", c.trace, c.clockPS), func(t *testing.T) {
			sc, err := scenario.ReadFile("../examples/counters/" + c.trace + ".json")
			if err != nil {
				t.Fatal(err)
			}
			cfg := rtl.DefaultConfig()
			cfg.ClockPS = c.clockPS
			st := runBench(t, cfg, sc).Stats(time.Second)
			for name, want := range c.want {
				f, ok := st.Figure(name)
				if got, isNum := toFloat(f.Value); !ok || !isNum || math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("%s = %v, want %v", name, f.Value, want)
				}
			}
			if f, _ := st.Figure("latency_histogram"); !reflect.DeepEqual(f.Value, c.hist) {
				t.Errorf("latency_histogram = %v, want %v", f.Value, c.hist)
			}

			// The JSON: the figures at their places, the histogram a list
			// of {lo, hi, count}.
			data, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			for name, want := range c.want {
				var v any = doc
				for _, part := range strings.Split(name, ".") {
					m, _ := v.(map[string]any)
					v = m[part]
				}
				if got, ok := v.(float64); !ok || math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("JSON %s = %v, want %v", name, v, want)
				}
			}
			if ns, _ := doc["latency_ns"].(map[string]any); len(ns) != 5 {
				t.Errorf("JSON latency_ns = %v, want p50, p90, p95, p99, max", doc["latency_ns"])
			}
			buckets, _ := doc["latency_histogram"].([]any)
			if len(buckets) != len(c.hist) {
				t.Fatalf("JSON latency_histogram = %v, want %d buckets", doc["latency_histogram"], len(c.hist))
			}
			for i, raw := range buckets {
				m, _ := raw.(map[string]any)
				want := map[string]any{"lo": float64(c.hist[i].Lo), "hi": float64(c.hist[i].Hi), "count": float64(c.hist[i].Count)}
				if !reflect.DeepEqual(m, want) {
					t.Errorf("JSON latency_histogram[%d] = %v, want %v", i, raw, want)
				}
			}

			// The summary: the run's line with the figures in time, a
			// latency_ns line, no histogram.
			var sum strings.Builder
			st.WriteSummary(&sum)
			lines := strings.Split(sum.String(), "\n")
			runItems := strings.Split(lines[0], ", ")
			for _, item := range c.run {
				if !slices.Contains(runItems, item) {
					t.Errorf("the summary's run line lacks %q:\n%s", item, lines[0])
				}
			}
			if !slices.Contains(lines, c.latNS) {
				t.Errorf("the summary lacks the line %q:\n%s", c.latNS, sum.String())
			}
			if strings.Contains(sum.String(), "histogram") {
				t.Errorf("the summary prints the histogram:\n%s", sum.String())
			}
		})
	}
}

// toFloat is a figure's value as a number.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
