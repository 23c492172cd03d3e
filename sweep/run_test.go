package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mkeysim/config"
	"mkeysim/tb"
	"mkeysim/tb/stats"
	"mkeysim/tb/stimulus"
)

// smallConfig is the default configuration on a small workload (64 keys,
// 2000 accesses) and a small MKC cache (4 sets), so that the cache
// geometry matters and a point runs in milliseconds.
func smallConfig() config.Config {
	c := config.Default()
	c.Workload.Keys = 64
	c.Workload.Accesses = 2000
	c.Workload.HotKeys = 16
	c.Model.MKCCache.Sets = 4
	c.Model.MKCCache.Replacement = "lru"
	return c
}

func mustVary(t *testing.T, specs ...string) []Axis {
	t.Helper()
	var axes []Axis
	for _, s := range specs {
		a, err := ParseVary(s)
		if err != nil {
			t.Fatal(err)
		}
		axes = append(axes, a)
	}
	return axes
}

// TestWaysMonotone: with LRU on a fixed workload, more ways per set never
// lowers the MKC hit rate (LRU is a stack algorithm), and here it raises
// it.
func TestWaysMonotone(t *testing.T) {
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2,4,8"), Check: true}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	prev := -1.0
	for _, r := range res.Rows {
		h, ok := r.Value("mkc_cache.hit_rate")
		if !ok {
			t.Fatalf("point %d: no MKC lookups", r.Point)
		}
		t.Logf("ways %s: MKC hit rate %.4f", r.Params[0].Text, h)
		if h < prev {
			t.Errorf("ways %s: MKC hit rate %.4f below %.4f of fewer ways", r.Params[0].Text, h, prev)
		}
		prev = h
		if r.Mismatches == nil || *r.Mismatches != 0 {
			t.Errorf("point %d: mismatches %v", r.Point, r.Mismatches)
		}
	}
	lo, _ := res.Rows[0].Value("mkc_cache.hit_rate")
	if hi, _ := res.Rows[3].Value("mkc_cache.hit_rate"); hi < lo+0.05 {
		t.Errorf("8 ways %.3f vs 1 way %.3f: the sweep does not exercise the cache", hi, lo)
	}
}

// byHand runs one configuration the way 'mkeysim run' does, with tb.
func byHand(t *testing.T, c config.Config) stats.Report {
	t.Helper()
	sc := stimulus.Generate(c.Workload)
	b, err := tb.New(c.Model)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(sc.Ops, nil); err != nil {
		t.Fatal(err)
	}
	return b.Stats(0)
}

// withoutWall drops wall_seconds and cycles_per_second, the figures that
// depend on the machine, from CSV text.
func withoutWall(t *testing.T, data []byte) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wall_seconds", "cycles_per_second"} {
		col := slices.Index(recs[0], name)
		if col < 0 {
			t.Fatalf("no %s column", name)
		}
		for i := range recs {
			recs[i] = append(recs[i][:col:col], recs[i][col+1:]...)
		}
	}
	return recs
}

// TestDeterministic: the rows of a sweep are those of running each point
// alone with tb, in point order, whatever the number of workers.
func TestDeterministic(t *testing.T) {
	axes := mustVary(t, "mkc_cache.ways=1,4", "pcie.link_latency_cycles=25,150", "mtt.walkers=2,8")
	s := &Sweep{Base: smallConfig(), Axes: axes}
	var csvs [][][]string
	var res0 *Result
	var jsons []string
	for _, w := range []int{1, 3, 8} {
		res, err := s.Run(Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, withoutWall(t, res.CSV()))
		res0 = res
		for i := range res.Rows {
			res.Rows[i].Figures = withoutWallFigures(res.Rows[i].Figures)
		}
		jsons = append(jsons, string(res.JSON()))
		if w != 1 {
			continue
		}
		// Each row against a run by hand.
		i := 0
		for _, ways := range []int{1, 4} {
			for _, lat := range []int{25, 150} {
				for _, walkers := range []int{2, 8} {
					c := smallConfig()
					c.Model.MKCCache.Ways, c.Model.PCIe.LinkLatencyCycles, c.Model.MTT.Walkers = ways, lat, walkers
					st := byHand(t, c)
					r := res.Rows[i]
					want := Row{Point: i, Params: r.Params, Operations: r.Operations, Figures: withoutWallFigures(st.Figures())}
					if !reflect.DeepEqual(r, want) {
						t.Errorf("point %d (ways %d, latency %d, walkers %d):\n got %s\nwant %s", i, ways, lat, walkers, js(r), js(want))
					}
					if got := fmt.Sprint(r.Params[0].Value, r.Params[1].Value, r.Params[2].Value); got != fmt.Sprint(ways, lat, walkers) {
						t.Errorf("point %d params %s", i, got)
					}
					i++
				}
			}
		}
		if r := res.Rows[0]; r.Operations != len(stimulus.Generate(smallConfig().Workload).Ops) {
			t.Errorf("operations %d", r.Operations)
		}
	}
	for i := 1; i < len(csvs); i++ {
		if !reflect.DeepEqual(csvs[i], csvs[0]) {
			t.Errorf("CSV differs with the number of workers:\n%v\n%v", csvs[0], csvs[i])
		}
		if jsons[i] != jsons[0] {
			t.Errorf("JSON differs with the number of workers")
		}
	}
	if len(csvs[0]) != 9 || len(csvs[0][0]) != 1+3+len(res0.Columns()) {
		t.Errorf("CSV shape %d x %d", len(csvs[0]), len(csvs[0][0]))
	}
	// The CSV's numbers are the rows'.
	if got := csvs[0][1]; got[0] != "0" || got[1] != "1" || got[2] != "25" || got[3] != "2" {
		t.Errorf("CSV row 0 = %v", got)
	}
}

// withoutWallFigures drops the figures that depend on the machine.
func withoutWallFigures(fs []stats.Figure) []stats.Figure {
	return slices.DeleteFunc(slices.Clone(fs), func(f stats.Figure) bool {
		return f.Name == "wall_seconds" || f.Name == "cycles_per_second"
	})
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestJSONShape: sweep.json has the varied names, the base config and
// rows with typed parameters in axis order.
func TestJSONShape(t *testing.T) {
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, "pcie.split_on_all_rcb=false,true", "mkc_cache.replacement=random")}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := res.JSON()
	var doc struct {
		Varied []string
		Values [][]string
		Config map[string]any
		Rows   []map[string]json.RawMessage
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc.Varied, []string{"pcie.split_on_all_rcb", "mkc_cache.replacement"}) || len(doc.Rows) != 2 {
		t.Fatalf("varied %v, %d rows", doc.Varied, len(doc.Rows))
	}
	var got bytes.Buffer
	json.Compact(&got, doc.Rows[1]["params"])
	if got.String() != `{"pcie.split_on_all_rcb":true,"mkc_cache.replacement":"random"}` {
		t.Errorf("params %s", got.String())
	}
	if doc.Config["workload.keys"] != 64.0 {
		t.Errorf("config echo %v", doc.Config["workload.keys"])
	}
	for _, k := range append([]string{"point"}, res.Columns()...) {
		if _, ok := doc.Rows[0][k]; !ok {
			t.Errorf("row has no %s", k)
		}
	}
	if _, ok := doc.Rows[0]["mismatches"]; ok {
		t.Errorf("mismatches present without -check")
	}
}

// TestScenario: a scenario file runs at every point; a cache that sees no
// lookup has no hit rate (empty in CSV, null in JSON, – in Markdown).
func TestScenario(t *testing.T) {
	data, err := os.ReadFile("../examples/klm-nested.json")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sweep{Base: config.Default(), Axes: mustVary(t, "klm.contexts=12,16"), Scenario: data, ScenarioName: "klm-nested.json", Check: true}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		_, klm := r.Value("klm_cache.hit_rate")
		_, mkc := r.Value("mkc_cache.hit_rate")
		if n, _ := r.Value("translations"); !klm || !mkc || *r.Mismatches != 0 || n == 0 {
			t.Errorf("row %s", js(r))
		}
	}
	s = &Sweep{Base: config.Default(), Axes: mustVary(t, "mkc_cache.ways=1,2"), Scenario: mustRead(t, "../examples/pa-passthrough.json"), ScenarioName: "pa"}
	res, err = s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := res.Rows[0].Value("klm_cache.hit_rate"); ok {
		t.Fatalf("pa-passthrough: KLM hit rate %v", v)
	}
	recs, _ := csv.NewReader(bytes.NewReader(res.CSV())).ReadAll()
	if recs[1][indexOf(recs[0], "klm_cache.hit_rate")] != "" {
		t.Errorf("CSV klm_cache.hit_rate %q; want empty", recs[1][indexOf(recs[0], "klm_cache.hit_rate")])
	}
	if !bytes.Contains(res.JSON(), []byte(`"klm_cache.hit_rate": null`)) {
		t.Errorf("JSON klm_cache.hit_rate not null")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// TestMarkdown: a caption and an aligned table with one line per point.
func TestMarkdown(t *testing.T) {
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2")}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := string(res.Markdown())
	lines := bytes.Split(bytes.TrimSpace([]byte(md)), []byte("\n"))
	if len(lines) != 2+2+2 {
		t.Fatalf("markdown:\n%s", md)
	}
	if !bytes.HasPrefix(lines[0], []byte("Sweep of mkc_cache.ways (2 values): 2 points, workload: 64 keys, 2000 accesses, seed 1.")) {
		t.Errorf("caption %q", lines[0])
	}
	for _, l := range lines[2:] {
		if len(l) != len(lines[2]) {
			t.Errorf("ragged table:\n%s", md)
			break
		}
	}
	h, _ := res.Rows[1].Value("mkc_cache.hit_rate")
	want := strconv.FormatFloat(100*h, 'f', 1, 64) + "%"
	if !bytes.Contains(lines[5], []byte(" "+want+" ")) {
		t.Errorf("row %q lacks MKC hit rate %s", lines[5], want)
	}
}

// TestRunErrors: an invalid point is an input error naming it; nothing
// runs.
func TestRunErrors(t *testing.T) {
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.sets=4,48")}
	err := s.Validate()
	if _, ok := err.(*InputError); !ok || !strings.HasPrefix(err.Error(), "point mkc_cache.sets=48: ") || !strings.Contains(err.Error(), "sets = 48") {
		t.Errorf("Validate: %v", err)
	}
	if _, err := s.Run(Options{}); err == nil {
		t.Errorf("Run of an invalid point succeeded")
	}
	s = &Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1"), Scenario: []byte(`{"mkeys": 3}`), ScenarioName: "bad.json"}
	if err := s.Validate(); err == nil || !bytes.HasPrefix([]byte(err.Error()), []byte("bad.json: ")) {
		t.Errorf("bad scenario: %v", err)
	}
}

// TestStopKeepsFinishedPoints: a sweep stopped after its first point
// returns ErrStopped with the points that finished, in point order, each
// the row a full sweep gives; its tables say it was interrupted and it
// draws no plots (the grid has holes).
func TestStopKeepsFinishedPoints(t *testing.T) {
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, "mkc_cache.ways=1,2,4,8")}
	full, err := s.Run(Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var once bool
	res, err := s.Run(Options{Workers: 1, Stop: stop, Progress: func(done, _ int) {
		if !once {
			once = true
			close(stop)
		}
	}})
	if !errors.Is(err, ErrStopped) || res == nil || !res.Stopped {
		t.Fatalf("Run stopped: %v, %+v", err, res)
	}
	if n := len(res.Rows); n == 0 || n == len(full.Rows) {
		t.Fatalf("%d rows of %d kept", n, len(full.Rows))
	}
	for i, r := range res.Rows {
		if i > 0 && r.Point <= res.Rows[i-1].Point {
			t.Errorf("rows out of point order: %d after %d", r.Point, res.Rows[i-1].Point)
		}
		want := full.Rows[r.Point]
		r.Figures, want.Figures = withoutWallFigures(r.Figures), withoutWallFigures(want.Figures)
		if !reflect.DeepEqual(r, want) {
			t.Errorf("point %d: %s, the full sweep's %s", r.Point, js(r), js(want))
		}
	}
	if c := res.Caption(); !strings.Contains(c, "of 4 points (interrupted)") {
		t.Errorf("caption %q", c)
	}
	if !strings.Contains(string(res.JSON()), `"stopped": true`) {
		t.Errorf("sweep.json does not say it stopped")
	}
	if plots, note, err := res.Plots(); err != nil || len(plots) != 0 || !strings.Contains(note, "interrupted") {
		t.Errorf("plots of a stopped sweep: %d, %q, %v", len(plots), note, err)
	}
}

// TestAliases: sweep.csv and the rows of sweep.json have the columns issue
// 11 names (throughput_maps, throughput_gbps, latency_p50_ns,
// latency_p99_ns, mkc_hit_rate, mtt_hit_rate, pcie_reads), each alias
// equal to the figure it copies, Row.Value reads them, and the latency
// histogram is in sweep.json only. Varying clock_ps changes no cycle and
// scales every figure in time.
func TestAliases(t *testing.T) {
	s := &Sweep{Base: smallConfig(), Axes: mustVary(t, "clock_ps=1000,4000")}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(res.CSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	for _, name := range []string{"throughput_maps", "throughput_gbps", "latency_p50_ns", "latency_p99_ns", "mkc_hit_rate", "mtt_hit_rate", "pcie_reads",
		"latency_cycles.p95", "latency_ns.p50", "latency_ns.p95", "simulated_ns", "core.translated_bytes"} {
		if indexOf(head, name) < 0 {
			t.Errorf("sweep.csv has no column %s: %v", name, head)
		}
	}
	if indexOf(head, "latency_histogram") >= 0 {
		t.Errorf("sweep.csv has a latency_histogram column")
	}
	var doc struct{ Rows []map[string]any }
	if err := json.Unmarshal(res.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	for i, row := range res.Rows {
		for _, a := range Aliases() {
			col, fcol := indexOf(head, a.Name), indexOf(head, a.Figure)
			if fcol < 0 || recs[i+1][col] != recs[i+1][fcol] || recs[i+1][col] == "" {
				t.Errorf("point %d: sweep.csv %s = %q, %s = %q", i, a.Name, recs[i+1][col], a.Figure, recs[i+1][fcol])
			}
			if got, want := doc.Rows[i][a.Name], doc.Rows[i][a.Figure]; got == nil || got != want {
				t.Errorf("point %d: sweep.json %s = %v, %s = %v", i, a.Name, got, a.Figure, want)
			}
			v, ok1 := row.Value(a.Name)
			w, ok2 := row.Value(a.Figure)
			if !ok1 || !ok2 || v != w {
				t.Errorf("point %d: Value(%s) = %v, Value(%s) = %v", i, a.Name, v, a.Figure, w)
			}
		}
		if h, ok := doc.Rows[i]["latency_histogram"].([]any); !ok || len(h) == 0 {
			t.Errorf("point %d: sweep.json latency_histogram = %v", i, doc.Rows[i]["latency_histogram"])
		}
	}
	// 1000 ps against 4000 ps: the same cycles; ns 4 times as many, the
	// throughputs a quarter.
	for _, c := range []struct {
		name   string
		factor float64 // the 4000 ps point's value over the 1000 ps point's
	}{
		{"cycles", 1}, {"latency_cycles.p99", 1}, {"core.translated_bytes", 1},
		{"simulated_ns", 4}, {"latency_p50_ns", 4}, {"latency_p99_ns", 4}, {"latency_ns.max", 4},
		{"throughput_maps", 0.25}, {"throughput_gbps", 0.25},
	} {
		a, ok1 := res.Rows[0].Value(c.name)
		b, ok2 := res.Rows[1].Value(c.name)
		if !ok1 || !ok2 || a == 0 || math.Abs(b-a*c.factor) > 1e-9*b {
			t.Errorf("%s: %v at 1000 ps, %v at 4000 ps; want a factor %v", c.name, a, b, c.factor)
		}
	}
	p50, _ := res.Rows[0].Value("latency_cycles.p50")
	if ns, _ := res.Rows[0].Value("latency_p50_ns"); ns != p50 {
		t.Errorf("at 1000 ps latency_p50_ns %v, latency_cycles.p50 %v: want equal", ns, p50)
	}
}
