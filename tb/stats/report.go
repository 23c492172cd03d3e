package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"mkeysim/rtl"
	"mkeysim/rtl/sim"
)

// Latency holds percentiles of access latency in cycles.
type Latency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// LatencyBucket is one bucket of the latency histogram: Count accesses
// took from Lo to Hi cycles, both included. Buckets are powers of two:
// [1, 1], [2, 3], [4, 7], ... ([0, 0] comes first only when an access
// took no cycle).
type LatencyBucket struct {
	Lo    uint64 `json:"lo"`
	Hi    uint64 `json:"hi"`
	Count uint64 `json:"count"`
}

// latencyHistogram counts the latencies (in cycles) of a tally in
// power-of-two buckets, from [1, 1] up to the bucket of the largest, every
// bucket in between listed even when empty, so that the buckets are
// contiguous; [0, 0] leads only when a latency is 0. No latency gives an
// empty histogram.
func latencyHistogram(t *sim.Tally) []LatencyBucket {
	h := []LatencyBucket{}
	if t.N() == 0 {
		return h
	}
	zeros, top := uint64(0), 1
	counts := make([]uint64, 65) // counts[k]: latencies in [2^k, 2^(k+1)-1]
	t.Each(func(v, n uint64) {
		if v == 0 {
			zeros += n
			return
		}
		k := bits.Len64(v) - 1
		counts[k] += n
		top = max(top, k+1)
	})
	if zeros > 0 {
		h = append(h, LatencyBucket{0, 0, zeros})
	}
	for k := range top {
		lo := uint64(1) << k
		h = append(h, LatencyBucket{lo, lo + (lo - 1), counts[k]})
	}
	return h
}

// latencyQuantiles returns the empirical quantiles of the latencies t
// counts (zero when none): those of every sample, computed from the
// distinct values weighted by their counts (exact in float64).
func latencyQuantiles(t *sim.Tally) Latency {
	var lat, weight []float64
	t.Each(func(v, n uint64) {
		lat, weight = append(lat, float64(v)), append(weight, float64(n))
	})
	if len(lat) == 0 {
		return Latency{}
	}
	return Latency{
		P50: stat.Quantile(0.50, stat.Empirical, lat, weight),
		P90: stat.Quantile(0.90, stat.Empirical, lat, weight),
		P95: stat.Quantile(0.95, stat.Empirical, lat, weight),
		P99: stat.Quantile(0.99, stat.Empirical, lat, weight),
		Max: lat[len(lat)-1],
	}
}

// SetLatencies sets the latency figures, LatencyCycles and
// LatencyHistogram, from the latencies in cycles of the accesses retired
// that t counts.
func (s *Report) SetLatencies(t *sim.Tally) {
	s.LatencyHistogram = latencyHistogram(t)
	s.LatencyCycles = latencyQuantiles(t)
}

// Report is a run's statistics, the statistics contract of
// architecture.md: the run's size and speed, every counter the units
// declare, and the latency percentiles. Figures lists all of it with one
// definition per number; the -stats JSON, the summary and sweep tables
// print those names.
type Report struct {
	Cycles          uint64
	WallSeconds     float64
	CyclesPerSecond float64
	// Translations is core.translations, kept at the top of the JSON
	// object as the contract has it.
	Translations  uint64
	Counters      []sim.Counter // in unit order (sim.Engine.Counters)
	LatencyCycles Latency
	// LatencyHistogram counts the retired accesses' latencies in
	// power-of-two buckets of cycles (latencyHistogram).
	LatencyHistogram []LatencyBucket
	// ClockPS is the model's clock period in picoseconds (clock_ps): the
	// figures in time (ns, M accesses/s, GB/s) are the cycles at it.
	ClockPS uint64
	Seed    int64
	Config  json.RawMessage // every parameter in force
	// Tenants are the caches' counts by protection domain: a tenant's
	// hit rates (workload.tenants), in PD order.
	Tenants []rtl.PDCounts
}

// Count returns the counter named name (sim.Counter.Name).
func (s *Report) Count(name string) (uint64, bool) {
	c, ok := sim.Find(s.Counters, name)
	return c.Value, ok
}

// cacheGroups are the caches whose hit rate is a figure.
var cacheGroups = []string{"mkc_cache", "mtt_cache", "klm_cache", "atc"}

// linkGroups are the link directions whose utilization is a figure.
var linkGroups = []string{"pcie.up", "pcie.down"}

// HitRate is the cache's hits / (hits + misses); false when the cache saw
// no lookup (or has no such counters).
func (s *Report) HitRate(cache string) (float64, bool) {
	h, ok1 := s.Count(cache + ".hits")
	m, ok2 := s.Count(cache + ".misses")
	if !ok1 || !ok2 {
		return 0, false
	}
	r, ok := rate(h, m).(float64)
	return r, ok
}

// Figure is one number of the statistics with its definition: a counter
// declared by a unit, or a figure defined here from the run or from
// counters. Value is a uint64 (a count), a float64, nil (undefined in
// this run, such as the hit rate of a cache that saw no lookup), or, for
// latency_histogram alone, a []LatencyBucket (Scalar tells which).
type Figure struct {
	Name  string
	Unit  string
	Help  string
	Value any
}

// Scalar reports whether the figure's value is a number (or undefined)
// rather than a list: tables and the summary show only these.
func (f Figure) Scalar() bool {
	switch f.Value.(type) {
	case nil, uint64, int64, float64:
		return true
	}
	return false
}

// ns converts cycles at the stats' clock to nanoseconds: cycles x
// clock_ps / 1000, exact to the picosecond (three decimals).
func (s *Report) ns(cycles float64) float64 { return cycles * float64(s.ClockPS) / 1000 }

// Figures lists every number of the statistics in print order: the run,
// the counters of each group (with its hit rate for a cache), latency in
// cycles and in ns, and the latency histogram.
func (s *Report) Figures() []Figure {
	okBytes, _ := s.Count("core.translated_bytes")
	// Simulated time in ps is cycles x clock_ps: accesses per us is
	// translations x 10^6 / ps, bytes per ns (GB/s) bytes x 10^3 / ps.
	ps := float64(s.Cycles) * float64(s.ClockPS)
	f := []Figure{
		{"cycles", "cycles", "core clock cycles from the first operation entering the model to the last result leaving it", s.Cycles},
		{"simulated_ns", "ns", "cycles x clock_ps / 1000: the simulated time the cycles stand for at the model's clock period (config clock_ps)", s.ns(float64(s.Cycles))},
		{"translations", "accesses", "the same as core.translations", s.Translations},
		{"translations_per_cycle", "accesses/cycle", "translations / cycles", ratio(float64(s.Translations), float64(s.Cycles))},
		{"throughput_maps", "M accesses/s", "translations per microsecond of simulated time: translations / (cycles x clock_ps x 10^-12) / 10^6 (0 when cycles is 0)", ratio(float64(s.Translations)*1e6, ps)},
		{"throughput_gbps", "GB/s", "bytes of the accesses translated with status OK per second of simulated time, in 10^9 bytes: core.translated_bytes / (cycles x clock_ps x 10^-12) / 10^9 (0 when cycles is 0)", ratio(float64(okBytes)*1e3, ps)},
		{"wall_seconds", "s", "wall time the simulation loop took, less the time it spent making a generated workload's operations (not part of the model: varies from run to run)", s.WallSeconds},
		{"cycles_per_second", "cycles/s", "cycles / wall_seconds: the simulator's speed", s.CyclesPerSecond},
	}
	for _, g := range groupOrder(s.Counters) {
		for _, c := range s.Counters {
			if c.Group() == g {
				help := c.Help
				switch {
				case c.Mean != "":
					help += " (summed in the cycles its unit sleeps too: not in the waveform, see docs/waveform.md)"
				case c.Wait:
					help += " (cycles of waiting: not in the waveform, see docs/waveform.md)"
				}
				f = append(f, Figure{c.Name, c.Unit, help, c.Value})
				if c.Mean != "" {
					f = append(f, Figure{c.Mean, "mean", c.Name + " / cycles: how many were in use on average over the run (0 when no cycle ran)",
						ratio(float64(c.Value), float64(s.Cycles))})
				}
			}
		}
		if slices.Contains(cacheGroups, g) {
			var v any
			if r, ok := s.HitRate(g); ok {
				v = r
			}
			f = append(f, Figure{g + ".hit_rate", "fraction", g + ".hits / (" + g + ".hits + " + g + ".misses); null in the JSON (- in the summary, empty in a sweep CSV) when the cache saw no lookup", v})
		}
		if g == "iommu" {
			var v any
			hits, _ := s.Count("iommu.iotlb_hits")
			misses, _ := s.Count("iommu.iotlb_misses")
			if hits+misses > 0 {
				v = float64(hits) / float64(hits+misses)
			}
			f = append(f, Figure{"iommu.iotlb_hit_rate", "fraction", "iommu.iotlb_hits / (iommu.iotlb_hits + iommu.iotlb_misses): the host IOMMU's translations its IOTLB held; null in the JSON (- in the summary, empty in a sweep CSV) when it translated nothing", v})
		}
		if slices.Contains(linkGroups, g) {
			var v float64
			if busy, ok := s.Count(g + ".busy_cycles"); ok && s.Cycles > 0 {
				v = float64(busy) / float64(s.Cycles)
			}
			f = append(f, Figure{g + ".utilization", "fraction", g + ".busy_cycles / cycles: the share of the run the link's serializer was sending (1: the link is the bottleneck); 0 when no cycle ran", v})
		}
	}
	const lat = "cycles from an access entering the reorder buffer to its result leaving it, over the accesses retired"
	const pct = " (the empirical percentile: the least latency that at least that fraction of the accesses do not exceed; 0 when no access was retired)"
	l := &s.LatencyCycles
	pcts := []struct {
		name, help string
		cycles     float64
	}{
		{"p50", "median of " + lat + pct, l.P50},
		{"p90", "90th percentile of " + lat + pct, l.P90},
		{"p95", "95th percentile of " + lat + pct, l.P95},
		{"p99", "99th percentile of " + lat + pct, l.P99},
		{"max", "the longest of " + lat + " (0 when none was retired)", l.Max},
	}
	for _, p := range pcts {
		f = append(f, Figure{"latency_cycles." + p.name, "cycles", p.help, p.cycles})
	}
	for _, p := range pcts {
		f = append(f, Figure{"latency_ns." + p.name, "ns", "latency_cycles." + p.name + " x clock_ps / 1000: the same latency in simulated time", s.ns(p.cycles)})
	}
	hist := s.LatencyHistogram
	if hist == nil {
		hist = []LatencyBucket{}
	}
	f = append(f, Figure{"latency_histogram", "accesses",
		"the retired accesses counted by latency (as in latency_cycles) in power-of-two buckets of cycles: a list of {lo, hi, count}, count accesses of lo to hi cycles, for [1, 1], [2, 3], [4, 7], ... up to the bucket of latency_cycles.max, empty buckets included ([0, 0] first only if an access took 0 cycles; [] when none retired); in the statistics JSON and sweep.json only, not in the summary or a table",
		hist})
	return f
}

// findFigure returns the figure of fs named name.
func findFigure(fs []Figure, name string) (Figure, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return Figure{}, false
}

// Figure returns the figure named name.
func (s *Report) Figure(name string) (Figure, bool) { return findFigure(s.Figures(), name) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// summaryGroups are the groups the summary prints first, in this order,
// after the run's line; the other groups follow in unit order, so that a
// counter a unit adds shows in the summary as in the JSON.
var summaryGroups = []string{"core", "mkc_cache", "mtt_cache", "klm_cache", "pcie"}

// groupOrder lists the counter groups: the summary's first, then the
// others in unit order.
func groupOrder(cs []sim.Counter) []string {
	var gs []string
	for _, g := range summaryGroups {
		for _, c := range cs {
			if c.Group() == g {
				gs = append(gs, g)
				break
			}
		}
	}
	for _, c := range cs {
		if g := c.Group(); !slices.Contains(gs, g) {
			gs = append(gs, g)
		}
	}
	return gs
}

// MarshalJSON writes the statistics as one object: the run's figures at
// the top, each counter nested at the dots of its name (mkc_cache.hits is
// "mkc_cache": {"hits": ...}), latency_cycles, seed and config.
func (s Report) MarshalJSON() ([]byte, error) {
	root := &node{}
	for _, f := range s.Figures() {
		root.put(strings.Split(f.Name, "."), f.Value)
	}
	root.put([]string{"tenants"}, s.tenantsJSON())
	root.put([]string{"seed"}, s.Seed)
	cfg := s.Config
	if len(cfg) == 0 {
		cfg = json.RawMessage("{}")
	}
	root.put([]string{"config"}, cfg)
	var b bytes.Buffer
	if err := root.write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// node is a JSON object that keeps its keys in insertion order.
type node struct {
	keys []string
	vals []any // *node or a leaf value
}

func (n *node) put(path []string, v any) {
	i := slices.Index(n.keys, path[0])
	if len(path) == 1 {
		if i < 0 {
			n.keys, n.vals = append(n.keys, path[0]), append(n.vals, v)
		} else {
			n.vals[i] = v
		}
		return
	}
	if i < 0 {
		n.keys, n.vals = append(n.keys, path[0]), append(n.vals, &node{})
		i = len(n.keys) - 1
	}
	child, ok := n.vals[i].(*node)
	if !ok {
		child = &node{}
		n.vals[i] = child
	}
	child.put(path[1:], v)
}

// MarshalJSON writes the object, keys in order (a node inside a list).
func (n *node) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := n.write(&b)
	return b.Bytes(), err
}

func (n *node) write(b *bytes.Buffer) error {
	b.WriteByte('{')
	for i, k := range n.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if c, ok := n.vals[i].(*node); ok {
			if err := c.write(b); err != nil {
				return err
			}
			continue
		}
		if f, ok := n.vals[i].(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			b.WriteString("null")
			continue
		}
		vb, err := json.Marshal(n.vals[i])
		if err != nil {
			return err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return nil
}

// FormatValue writes a figure's value as the summary and tables show it:
// counts in full, hit rates as percentages, times in ns with every digit
// (at most three decimals: a picosecond), other reals with three decimals
// below 1000 and none above, "-" when undefined.
func FormatValue(f Figure) string {
	switch v := f.Value.(type) {
	case nil:
		return "-"
	case uint64:
		return strconv.FormatUint(v, 10)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		switch {
		case f.Unit == "fraction":
			return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
		case f.Unit == "ns":
			return strconv.FormatFloat(v, 'f', -1, 64)
		case v == math.Trunc(v) && math.Abs(v) < 1e15:
			return strconv.FormatFloat(v, 'f', 0, 64)
		case math.Abs(v) >= 1000:
			return strconv.FormatFloat(v, 'f', 0, 64)
		default:
			return strconv.FormatFloat(v, 'f', 3, 64)
		}
	}
	return fmt.Sprint(f.Value)
}

// WriteSummary prints the statistics for people: the run's line (the
// figures without a dot), one line per counter group (summaryGroups
// first) with every counter of it, the latency lines in cycles and in
// ns; each number follows its figure's name as the JSON and sweep tables
// spell it. The latency histogram is left to the JSON.
func (s *Report) WriteSummary(w io.Writer) {
	figs := s.Figures()
	line := func(prefix string, names []Figure) {
		parts := make([]string, len(names))
		for i, f := range names {
			parts[i] = f.Name[len(prefix):] + " " + FormatValue(f)
		}
		if prefix != "" {
			fmt.Fprintf(w, "%s %s\n", strings.TrimSuffix(prefix, ".")+":", strings.Join(parts, ", "))
		} else {
			fmt.Fprintln(w, strings.Join(parts, ", "))
		}
	}
	var run []Figure
	for _, f := range figs {
		if !strings.Contains(f.Name, ".") && f.Scalar() {
			run = append(run, f)
		}
	}
	line("", run)
	for _, g := range groupOrder(s.Counters) {
		var fs []Figure
		var rate []Figure
		for _, f := range figs {
			if strings.HasPrefix(f.Name, g+".") && !strings.Contains(f.Name[len(g)+1:], ".") {
				if strings.HasSuffix(f.Name, ".hit_rate") {
					rate = append(rate, f)
				} else {
					fs = append(fs, f)
				}
			}
		}
		if len(fs) > 0 {
			line(g+".", append(rate, fs...))
		}
	}
	if n := len(s.Tenants); n >= 2 && n <= maxTenantLines {
		for _, t := range s.Tenants {
			fmt.Fprintf(w, "tenant pd %d: mkc_cache hit_rate %s (hits %d, misses %d), mtt_cache hit_rate %s (hits %d, misses %d)\n", t.PD,
				FormatValue(Figure{Unit: "fraction", Value: rate(t.MKCHits, t.MKCMisses)}), t.MKCHits, t.MKCMisses,
				FormatValue(Figure{Unit: "fraction", Value: rate(t.MTTHits, t.MTTMisses)}), t.MTTHits, t.MTTMisses)
		}
	}
	for _, prefix := range []string{"latency_cycles.", "latency_ns."} {
		var lat []Figure
		for _, f := range figs {
			if strings.HasPrefix(f.Name, prefix) {
				lat = append(lat, f)
			}
		}
		line(prefix, lat)
	}
}

// WriteCountersDoc writes the definition of every figure of s as a
// Markdown table (docs/counters.md is made by it).
func (s *Report) WriteCountersDoc(w io.Writer) {
	fmt.Fprintln(w, "| name | unit | definition |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, f := range s.Figures() {
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", f.Name, f.Unit, strings.ReplaceAll(f.Help, "|", `\|`))
	}
}

// maxTenantLines is the most tenants the summary prints a line for (the
// JSON has them all).
const maxTenantLines = 16

// rate is hits / (hits + misses), nil when there was no lookup: the one
// definition of a hit rate, a cache's (HitRate) as a tenant's.
func rate(hits, misses uint64) any {
	if hits+misses == 0 {
		return nil
	}
	return float64(hits) / float64(hits+misses)
}

// tenantsJSON is the tenants' counts as the JSON shows them: per PD, each
// cache's hits, misses and hit rate.
func (s *Report) tenantsJSON() []any {
	out := []any{}
	for _, t := range s.Tenants {
		n := &node{}
		n.put([]string{"pd"}, t.PD)
		n.put([]string{"mkc_cache", "hits"}, t.MKCHits)
		n.put([]string{"mkc_cache", "misses"}, t.MKCMisses)
		n.put([]string{"mkc_cache", "hit_rate"}, rate(t.MKCHits, t.MKCMisses))
		n.put([]string{"mtt_cache", "hits"}, t.MTTHits)
		n.put([]string{"mtt_cache", "misses"}, t.MTTMisses)
		n.put([]string{"mtt_cache", "hit_rate"}, rate(t.MTTHits, t.MTTMisses))
		out = append(out, n)
	}
	return out
}
