package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"mkeysim/config"
	"mkeysim/ref"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/tb/score"
	"mkeysim/tb/stats"
	"mkeysim/tb/stimulus"
)

// Sweep is what to run: a base configuration, the axes varied over it and
// the workload.
type Sweep struct {
	Base config.Config
	Axes []Axis
	// Scenario is a scenario document run at every point; nil runs the
	// constrained-random workload of each point's [workload] section.
	Scenario []byte
	// ScenarioName names the scenario (its file) in errors and reports.
	ScenarioName string
	// Check compares every result with the golden model.
	Check bool
	// Shard, if not zero, runs only that slice of the grid (Merge joins
	// the slices' results).
	Shard Shard
	// Seeds, if above 1, runs every point Seeds times, with workload.seed
	// s, s+1, ..., s+Seeds-1 (s the point's seed), and makes its row the
	// mean and standard deviation of the runs (Aggregate). 0 and 1 run
	// every point once. A scenario has no seed: Validate refuses Seeds
	// above 1 with a Scenario.
	Seeds int
	// Stop, if not nil, stops Validate when it closes (ErrStopped):
	// checking a grid of --max-points points takes seconds.
	Stop <-chan struct{}
}

// Options are how to run a sweep; they change no result.
type Options struct {
	// Workers is the number of points run at once (<= 0: GOMAXPROCS).
	Workers int
	// Progress, if not nil, is called after each point with the number of
	// points done, from one goroutine at a time.
	Progress func(done, total int)
	// Stop, if not nil, stops the sweep when it closes: the points running
	// stop at a cycle boundary and Run returns ErrStopped.
	Stop <-chan struct{}
	// Done holds rows already run, by point index (Sweep.Resume): Run
	// keeps them and runs only the other points.
	Done map[int]Row
}

// ErrStopped is Run's error when Options.Stop closed.
var ErrStopped = errors.New("sweep stopped")

// InputError is an error of the sweep's input: a point whose
// configuration is invalid or a scenario the model refuses.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Row is the statistics of one point: its figures are those of
// stats.Report.Figures, under the same names as in 'mkeysim run -stats' and
// its summary (mkc_cache.hit_rate, pcie.reads, latency_cycles.p99, ...).
type Row struct {
	Point int
	// Params are the point's values of the varied parameters, typed as in
	// the configuration, in axis order.
	Params     Params
	Operations int
	Figures    []stats.Figure
	// Mismatches counts results that differ from the golden model (nil
	// when not checked); Differences describes the first few.
	Mismatches  *int
	Differences []string
	// SD, for a row of several seeds (Sweep.Seeds), holds the sample
	// standard deviation of each figure over the seeds, index for index
	// with Figures (then the means); nil for a row of one run.
	SD []stats.Figure
}

// Figure returns the figure named name, or named by the alias name
// (Aliases); false when the row has none.
func (r *Row) Figure(name string) (stats.Figure, bool) {
	name = aliasOf(name)
	for _, f := range r.Figures {
		if f.Name == name {
			return f, true
		}
	}
	return stats.Figure{}, false
}

// Value returns the figure named name (or an alias of it) as a number;
// false when the row has no such figure or it is undefined (the hit rate
// of a cache that saw no lookup) or not a number (latency_histogram).
func (r *Row) Value(name string) (float64, bool) {
	f, _ := r.Figure(name)
	switch v := f.Value.(type) {
	case uint64:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// MarshalJSON writes the row as one object: point, params, operations,
// every figure by its name (latency_histogram as a list of buckets), the
// Aliases, and mismatches when checked.
func (r Row) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"point":%d,"params":`, r.Point)
	ps, err := r.Params.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b.Write(ps)
	fmt.Fprintf(&b, `,"operations":%d`, r.Operations)
	field := func(name string, value any) error {
		k, _ := json.Marshal(name)
		v, err := json.Marshal(value)
		if err != nil {
			return err
		}
		b.WriteByte(',')
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
		return nil
	}
	for i, f := range r.Figures {
		if err := field(f.Name, f.Value); err != nil {
			return nil, err
		}
		if r.SD != nil && f.Scalar() {
			if err := field(f.Name+SDSuffix, r.SD[i].Value); err != nil {
				return nil, err
			}
		}
	}
	for _, a := range Aliases() {
		f, _ := r.Figure(a.Figure)
		if err := field(a.Name, f.Value); err != nil {
			return nil, err
		}
		if r.SD != nil {
			sd, _ := r.SDFigure(a.Figure)
			if err := field(a.Name+SDSuffix, sd.Value); err != nil {
				return nil, err
			}
		}
	}
	if r.Mismatches != nil {
		fmt.Fprintf(&b, `,"mismatches":%d`, *r.Mismatches)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Param is one varied parameter's value at a point.
type Param struct {
	Name  string // as flags spell it (no model. prefix)
	Value any    // int, uint, bool or string, as in the configuration
	Text  string // as given on the command line, canonical
}

// Params keep axis order in JSON.
type Params []Param

// MarshalJSON writes the parameters as an object in axis order.
func (ps Params) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(p.Name)
		v, err := json.Marshal(p.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// Result is a whole sweep: what was run and one row per point, in point
// order.
type Result struct {
	Varied   []string   `json:"varied"`   // axis labels
	Values   [][]string `json:"values"`   // each axis's values
	Workload string     `json:"workload"` // what ran at every point
	Checked  bool       `json:"checked"`  // compared with the golden model
	// Seeds is the number of seeds each row averages (Sweep.Seeds), 0
	// (left out of sweep.json) for one run a point.
	Seeds  int             `json:"seeds,omitempty"`
	Config json.RawMessage `json:"config"` // the base configuration
	// Slice says which slice of the grid Rows hold when the sweep was
	// sharded (Sweep.Shard); nil for the whole grid.
	Slice *Slice `json:"slice,omitempty"`
	Rows  []Row  `json:"rows"`
	// Stopped says the sweep was interrupted (Options.Stop): Rows holds
	// only the points that finished, in point order.
	Stopped bool   `json:"stopped,omitempty"`
	Axes    []Axis `json:"-"`
}

// Points is the sweep's grid, or the points of its slice of the grid
// when Shard is set.
func (s *Sweep) Points() []Point {
	pts := Grid(s.Axes)
	if s.Shard.Count == 0 {
		return pts
	}
	var mine []Point
	for _, p := range pts {
		if s.Shard.Has(p.Index) {
			mine = append(mine, p)
		}
	}
	return mine
}

// Describe names the workload every point runs.
func (s *Sweep) Describe() string {
	if s.Scenario != nil {
		return "scenario " + s.ScenarioName
	}
	w := s.Base.Workload
	varied := map[string]bool{}
	var others []string
	for _, a := range s.Axes {
		varied[a.Name] = true
		switch a.Name {
		case "workload.keys", "workload.accesses", "workload.seed", "workload.mrs":
		default:
			if strings.HasPrefix(a.Name, "workload.") {
				others = append(others, a.Label())
			}
		}
	}
	field := func(name string, v any, unit string) string {
		if varied["workload."+name] {
			return unit + " varied"
		}
		return fmt.Sprint(v) + " " + unit
	}
	keys := field("keys", w.Keys, "keys")
	if w.Kind != stimulus.KindMixed && w.Kind != "" && !varied["workload.kind"] {
		keys = w.Kind + " over " + field("mrs", w.MRs, "MRs")
	}
	desc := "workload: " + keys + ", " + field("accesses", w.Accesses, "accesses") + ", "
	switch {
	case varied["workload.seed"] && s.seeds() > 0:
		desc += fmt.Sprintf("seed varied, %d seeds from each", s.Seeds)
	case varied["workload.seed"]:
		desc += "seed varied"
	case s.seeds() > 0:
		desc += fmt.Sprintf("seeds %d..%d", w.Seed, w.Seed+int64(s.Seeds)-1)
	default:
		desc += fmt.Sprintf("seed %d", w.Seed)
	}
	if len(others) > 0 {
		desc += " (" + strings.Join(others, ", ") + " varied)"
	}
	return desc
}

// Validate checks every point's configuration, naming the first bad
// point, and the scenario's syntax. It checks the whole grid even when
// the sweep is sharded, so that every slice refuses the same input.
func (s *Sweep) Validate() error {
	if s.Seeds > 1 && s.Scenario != nil {
		return &InputError{Msg: fmt.Sprintf("%d seeds: %s has no seed to vary", s.Seeds, s.ScenarioName)}
	}
	if s.Seeds < 0 {
		return &InputError{Msg: fmt.Sprintf("%d seeds: want at least 1", s.Seeds)}
	}
	if s.Scenario != nil {
		if _, err := s.scenario(); err != nil {
			return err
		}
	}
	for i, p := range Grid(s.Axes) {
		if i%1024 == 1023 && s.stopped() {
			return ErrStopped
		}
		if _, err := s.config(p); err != nil {
			return err
		}
	}
	return nil
}

// stopped reports whether s.Stop has closed.
func (s *Sweep) stopped() bool {
	select {
	case <-s.Stop:
		return true
	default:
		return false
	}
}

// BaseError is the error that every point of the sweep shares with c, a
// configuration its points are made from (its Base, or the file Base
// was read from): c's Validate error when the first point, c with the
// axes' first values set, fails the same way. It is nil when c is valid,
// and when the axes' values change what is wrong (c leaves out the
// workload.trace_file an axis gives, say): only the points run, and
// Validate checks each. A command reports it as the base's error, naming
// where c came from. Validating c keeps a trace workload's file read in
// it, for the points to share.
func (s *Sweep) BaseError(c *config.Config) error {
	err := c.Validate()
	if err == nil || Count(s.Axes) == 0 {
		return err
	}
	p := Point{Values: make([]string, len(s.Axes))}
	for i, a := range s.Axes {
		p.Values[i] = a.Values[0]
	}
	first, aerr := p.Apply(*c, s.Axes)
	if aerr != nil {
		return nil // Validate names the point
	}
	if ferr := first.Validate(); ferr == nil || ferr.Error() != err.Error() {
		return nil
	}
	return err
}

// config is the point's configuration, validated.
func (s *Sweep) config(p Point) (config.Config, error) {
	c, err := p.Apply(s.Base, s.Axes)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		return c, &InputError{Msg: fmt.Sprintf("point %s: %v", p.Describe(s.Axes), err)}
	}
	return c, nil
}

// scenario is a fresh copy of the scenario, for one run.
func (s *Sweep) scenario() (*scenario.Scenario, error) {
	sc, err := scenario.Parse(s.Scenario)
	if err != nil {
		if se, ok := err.(*scenario.Error); ok {
			se.File = s.ScenarioName
		}
		return nil, &InputError{Msg: err.Error()}
	}
	return sc, nil
}

// Run runs every point, Workers at a time, and returns the rows in point
// order. The first error stops the sweep. When Options.Stop stops it, Run
// returns the points that finished (Result.Stopped) with ErrStopped.
func (s *Sweep) Run(opt Options) (*Result, error) {
	pts := s.Points()
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(pts))
	res := &Result{Workload: s.Describe(), Checked: s.Check, Seeds: s.seeds(), Config: s.Base.JSON(), Axes: s.Axes, Slice: s.slice(), Rows: make([]Row, len(pts))}
	res.Varied, res.Values = labels(s.Axes), values(s.Axes)
	type done struct {
		i   int
		row Row
		err error
	}
	var todo []int
	finished := make([]bool, len(pts))
	for i, p := range pts {
		if row, ok := opt.Done[p.Index]; ok {
			res.Rows[i], finished[i] = row, true
		} else {
			todo = append(todo, i)
		}
	}
	n := len(pts) - len(todo)
	if len(todo) == 0 {
		return res, nil
	}
	workers = min(workers, len(todo))
	jobs := make(chan int)
	results := make(chan done)
	stop := make(chan struct{}) // closed on the first error or on opt.Stop
	var once sync.Once
	halt := func() { once.Do(func() { close(stop) }) }
	if opt.Stop != nil {
		finished := make(chan struct{})
		defer close(finished)
		go func() {
			select {
			case <-opt.Stop:
				halt()
			case <-finished:
			}
		}()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				row, err := s.runPoint(pts[i], stop)
				results <- done{i, row, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, i := range todo {
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var first error
	for d := range results {
		n++
		if d.err != nil {
			if first == nil || errors.Is(first, ErrStopped) && !errors.Is(d.err, ErrStopped) {
				first = d.err
			}
			halt()
			continue
		}
		res.Rows[d.i], finished[d.i] = d.row, true
		if opt.Progress != nil && first == nil {
			opt.Progress(n, len(pts))
		}
	}
	select {
	case <-stop:
		if first == nil && opt.Stop != nil {
			first = ErrStopped
		}
	default:
	}
	if errors.Is(first, ErrStopped) {
		rows := res.Rows[:0]
		for i, ok := range finished {
			if ok {
				rows = append(rows, res.Rows[i])
			}
		}
		res.Rows, res.Stopped = rows, true
		return res, first
	}
	if first != nil {
		return nil, first
	}
	return res, nil
}

// RunPoint runs one point on a fresh bench and its own copy of the
// workload.
func (s *Sweep) RunPoint(p Point) (Row, error) { return s.runPoint(p, nil) }

// runPoint is RunPoint stopping when stop closes (ErrStopped): one run,
// or one run per seed in turn, aggregated (Aggregate).
func (s *Sweep) runPoint(p Point, stop <-chan struct{}) (Row, error) {
	cfg, err := s.config(p)
	if err != nil {
		return Row{}, err
	}
	if s.seeds() == 0 {
		return s.runOnce(p, cfg, stop)
	}
	rows := make([]Row, s.Seeds)
	first := cfg.Workload.Seed
	for k := range rows {
		cfg.Workload.Seed = first + int64(k)
		if rows[k], err = s.runOnce(p, cfg, stop); err != nil {
			return Row{}, err
		}
	}
	return Aggregate(rows), nil
}

// seeds is Result.Seeds: Seeds when above 1, else 0.
func (s *Sweep) seeds() int {
	if s.Seeds > 1 {
		return s.Seeds
	}
	return 0
}

// runOnce runs the point once with the configuration cfg.
func (s *Sweep) runOnce(p Point, cfg config.Config, stop <-chan struct{}) (Row, error) {
	var err error
	var sc *scenario.Scenario
	var feed *stimulus.Feed
	if s.Scenario != nil {
		if sc, err = s.scenario(); err != nil {
			return Row{}, err
		}
		feed = stimulus.FeedOf(sc.Ops, 0)
	} else {
		// Made as the point runs: points of millions of accesses in
		// parallel hold a few thousand operations each.
		g := stimulus.NewGenerator(cfg.Workload)
		sc, feed = g.Setup(), g.Feed()
	}
	where := "point " + p.Describe(s.Axes)
	cfg.Model, _ = tb.ConfigFor(cfg.Model, sc) // a scenario's iommu section
	bench, err := tb.New(cfg.Model)
	if err != nil {
		return Row{}, &InputError{Msg: fmt.Sprintf("%s: %v", where, err)}
	}
	bench.Warmup(cfg.Workload.WarmupAccesses)
	bench.InterArrival(cfg.Workload.InterArrivalCycles)
	bench.PostAhead(cfg.Workload.PostAhead)
	if err := bench.Load(sc); err != nil {
		return Row{}, &InputError{Msg: fmt.Sprintf("%s: %s: %v", where, s.Describe(), err)}
	}
	var board *score.Board
	if s.Check {
		if board, err = score.NewBoard(sc, ref.Config{MaxIndirection: cfg.Model.KLM.MaxIndirection, ATS: cfg.Model.HCACap.ATS, UMRFence: cfg.Model.HCACap.UMRFenceCap(), Pages: ref.PagesConfig{Capped: cfg.Model.Host.PagePolicy == "capped", MaxPages: cfg.Model.Host.MaxPages, ICMBase: cfg.Model.MKCCache.ICMBase}}); err != nil {
			return Row{}, &InputError{Msg: fmt.Sprintf("%s: %s: %v", where, s.Describe(), err)}
		}
		board.Overlap = cfg.Model.OverlapInvalidate
		board.Follow(feed)
	}
	opt := tb.RunOptions{Stop: stop}
	if board != nil {
		opt.OnResult = func(r *scenario.Result) error { board.Check(r); return nil }
	}
	start, making := time.Now(), feed.Making()
	err = bench.StreamFeed(feed, opt)
	wall := time.Since(start) - (feed.Making() - making)
	if errors.Is(err, tb.ErrStopped) {
		return Row{}, ErrStopped
	}
	if err != nil {
		return Row{}, fmt.Errorf("%s: %v", where, err)
	}
	row := NewRow(p, s.Axes, &cfg, feed.Made(), bench.Stats(wall))
	if board != nil {
		bad := board.Mismatches
		row.Mismatches, row.Differences = &bad, board.First
	}
	return row, nil
}

// NewRow is a point's row from its run's statistics; cfg is the point's
// configuration, ops the number of operations run.
func NewRow(p Point, axes []Axis, cfg *config.Config, ops int, st stats.Report) Row {
	m := cfg.Map()
	row := Row{Point: p.Index, Operations: ops, Figures: st.Figures()}
	for i, a := range axes {
		row.Params = append(row.Params, Param{Name: a.Label(), Value: m[a.Name], Text: p.Values[i]})
	}
	return row
}
