package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mkeysim/config"
	"mkeysim/tb"
	"mkeysim/tb/stats"
)

// MergeError is why Merge, ReadSlice or Read refused a directory: it is
// not the output of a (sharded) sweep, or not a slice of the same sweep
// as the others, or a point is missing or given twice.
type MergeError struct {
	Dir string // the slice's directory (Read: the path read); "" for the slices as a whole
	Msg string
}

func (e *MergeError) Error() string {
	if e.Dir == "" {
		return e.Msg
	}
	return e.Dir + ": " + e.Msg
}

// sliceDoc is sweep.json as ReadSlice reads it.
type sliceDoc struct {
	Varied   []string          `json:"varied"`
	Values   [][]string        `json:"values"`
	Workload string            `json:"workload"`
	Checked  bool              `json:"checked"`
	Seeds    int               `json:"seeds"`
	Config   json.RawMessage   `json:"config"`
	Slice    *Slice            `json:"slice"`
	Rows     []json.RawMessage `json:"rows"`
	Stopped  bool              `json:"stopped"`
}

// ReadSlice reads the sweep.json that 'mkeysim sweep --shard I/N' wrote
// in dir back into a Result whose rows are those the slice ran, typed as
// a run makes them, so that the tables and plots made from them are
// those of the run.
func ReadSlice(dir string) (*Result, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, &MergeError{Dir: dir, Msg: fmt.Sprint(errors.Unwrap(err))}
	} else if !st.IsDir() {
		return nil, &MergeError{Dir: dir, Msg: "not a directory"}
	}
	return readResult(dir, filepath.Join(dir, "sweep.json"), true, false)
}

// Read reads back the output of any sweep, whole, sliced or interrupted:
// path is its directory or its sweep.json. The rows are typed as a run
// makes them (each figure with its unit), as ReadSlice reads them; errors
// are MergeErrors naming path.
func Read(path string) (*Result, error) { return read(path, false) }

// ReadAny is Read for redrawing: it also reads the output of an older
// mkeysim, whose parameters and figures differ from this one's. A
// parameter it lacks takes its default, a figure it lacks is undefined
// (no point drawn), and what this mkeysim no longer has is left out. Merge
// and resume use Read, which refuses such an output.
func ReadAny(path string) (*Result, error) { return read(path, true) }

func read(path string, lenient bool) (*Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, &MergeError{Dir: path, Msg: fmt.Sprint(errors.Unwrap(err))}
	}
	file := path
	if st.IsDir() {
		file = filepath.Join(path, "sweep.json")
	}
	res, err := readResult(path, file, false, lenient)
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, r := range res.Rows {
		if seen[r.Point] {
			return nil, &MergeError{Dir: path, Msg: fmt.Sprintf("sweep.json: point %d given twice", r.Point)}
		}
		seen[r.Point] = true
	}
	return res, nil
}

// readResult reads the sweep.json file of the output at path (named in
// errors); slice says that it must be a slice's, lenient that it may be
// an older mkeysim's (ReadAny).
func readResult(path, file string, slice, lenient bool) (*Result, error) {
	bad := func(format string, a ...any) error {
		return &MergeError{Dir: path, Msg: fmt.Sprintf(format, a...)}
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, bad("not a sweep output: no sweep.json")
	} else if err != nil {
		return nil, bad("%v", err)
	}
	var doc sliceDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, bad("not a sweep output: sweep.json: %v", err)
	}
	if len(doc.Varied) == 0 || len(doc.Varied) != len(doc.Values) || len(doc.Config) == 0 {
		return nil, bad("not a sweep output: sweep.json lacks varied, values or config")
	}
	if slice && doc.Slice == nil {
		return nil, bad("not a slice: its sweep.json is of a whole grid (made without --shard)")
	}
	if doc.Seeds < 0 || doc.Seeds == 1 {
		return nil, bad("not a sweep output: seeds %d", doc.Seeds)
	}
	res := &Result{Varied: doc.Varied, Values: doc.Values, Workload: doc.Workload, Checked: doc.Checked,
		Seeds: doc.Seeds, Config: doc.Config, Slice: doc.Slice, Stopped: doc.Stopped}
	for i, name := range doc.Varied {
		res.Axes = append(res.Axes, Axis{Name: name, Values: doc.Values[i]})
	}
	base, err := configFromJSON(doc.Config, lenient)
	if err != nil {
		return nil, bad("not a sweep output of this mkeysim: config: %v", err)
	}
	res.Config = base.JSON()
	if doc.Slice != nil {
		if n := Count(res.Axes); n != doc.Slice.GridPoints || n == 0 {
			return nil, bad("not a sweep output: slice of %d points, but the axes make %d", doc.Slice.GridPoints, n)
		}
		if _, err := ParseShard(doc.Slice.Shard().String()); err != nil {
			return nil, bad("not a sweep output: slice %s: %v", doc.Slice.Shard(), err)
		}
	}
	grid := Grid(res.Axes)
	for k, raw := range doc.Rows {
		row, err := readRow(raw, grid, res.Axes, base, doc.Seeds > 1, lenient)
		if err != nil {
			return nil, bad("sweep.json: row %d: %v", k, err)
		}
		if doc.Slice != nil && !doc.Slice.Shard().Has(row.Point) {
			return nil, bad("sweep.json: row %d: point %d is not of slice %s", k, row.Point, doc.Slice.Shard())
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// configFromJSON is the configuration Config.JSON wrote; lenient takes
// the defaults for parameters raw lacks and ignores those it has beyond
// this mkeysim's.
func configFromJSON(raw json.RawMessage, lenient bool) (config.Config, error) {
	cfg := config.Default()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return cfg, err
	}
	for _, p := range cfg.Params() {
		v, ok := m[p.Name]
		if !ok && lenient {
			continue
		}
		if !ok {
			return cfg, fmt.Errorf("no %s", p.Name)
		}
		text := string(v)
		var s string
		if json.Unmarshal(v, &s) == nil {
			text = s
		}
		if err := p.Set(text); err != nil {
			return cfg, err
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return cfg, err
	}
	if !lenient && !bytes.Equal(cfg.JSON(), compact.Bytes()) {
		return cfg, fmt.Errorf("parameters other than this mkeysim's")
	}
	return cfg, nil
}

// readRow decodes one row of sweep.json: its figures take the types and
// units of the figures of a bench of the point's configuration, its
// parameters are recomputed from the grid and checked against the row's.
// A row of several seeds (seeded) holds means, reals, and each figure's
// standard deviation, NAME_sd (Aggregate).
func readRow(raw json.RawMessage, grid []Point, axes []Axis, base config.Config, seeded, lenient bool) (Row, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Row{}, fmt.Errorf("not an object")
	}
	vals := map[string]json.RawMessage{}
	var order []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return Row{}, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return Row{}, fmt.Errorf("%s: %v", k, err)
		}
		if _, dup := vals[k]; dup {
			return Row{}, fmt.Errorf("%s given twice", k)
		}
		vals[k] = v
		order = append(order, k)
	}
	if _, err := dec.Token(); err != nil {
		return Row{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Row{}, fmt.Errorf("data after the row")
	}
	integer := func(k string) (int, error) {
		n, err := strconv.Atoi(string(vals[k]))
		if err != nil {
			return 0, fmt.Errorf("%s: want a whole number, not %s", k, vals[k])
		}
		return n, nil
	}
	var row Row
	var err error
	if row.Point, err = integer("point"); err != nil {
		return Row{}, err
	}
	if row.Point < 0 || row.Point >= len(grid) {
		return Row{}, fmt.Errorf("point %d is not in the grid of %d points", row.Point, len(grid))
	}
	if row.Operations, err = integer("operations"); err != nil {
		return Row{}, err
	}
	if _, ok := vals["mismatches"]; ok {
		n, err := integer("mismatches")
		if err != nil {
			return Row{}, err
		}
		row.Mismatches = &n
	}
	p := grid[row.Point]
	cfg, err := p.Apply(base, axes)
	if err != nil {
		return Row{}, err
	}
	m := cfg.Map()
	for i, a := range axes {
		row.Params = append(row.Params, Param{Name: a.Label(), Value: m[a.Name], Text: p.Values[i]})
	}
	want, _ := row.Params.MarshalJSON()
	var got bytes.Buffer
	if err := json.Compact(&got, vals["params"]); err != nil || !lenient && !bytes.Equal(got.Bytes(), want) {
		return Row{}, fmt.Errorf("params %s are not those of point %d (%s)", vals["params"], row.Point, want)
	}
	bench, err := tb.New(cfg.Model)
	if err != nil {
		return Row{}, fmt.Errorf("point %s: %v", p.Describe(axes), err)
	}
	known := map[string]bool{"point": true, "params": true, "operations": true, "mismatches": true}
	for _, a := range Aliases() {
		known[a.Name] = true
		if seeded {
			known[a.Name+SDSuffix] = true
		}
	}
	st := bench.Stats(0)
	for _, f := range st.Figures() {
		known[f.Name] = true
		v, ok := vals[f.Name]
		if !ok && lenient {
			v = json.RawMessage("null") // a figure the older mkeysim did not make
		} else if !ok {
			return Row{}, fmt.Errorf("no figure %s", f.Name)
		}
		like := f.Value
		if seeded && f.Scalar() {
			like = 0.0 // a mean
		}
		if f.Value, err = figureValue(like, v); err != nil {
			return Row{}, fmt.Errorf("%s: %v", f.Name, err)
		}
		row.Figures = append(row.Figures, f)
		if !seeded {
			continue
		}
		sd := stats.Figure{Name: f.Name, Unit: f.Unit, Help: f.Help}
		if !f.Scalar() {
			sd.Value = []stats.LatencyBucket(nil)
		} else {
			name := f.Name + SDSuffix
			known[name] = true
			v, ok := vals[name]
			if !ok && lenient {
				v = json.RawMessage("null")
			} else if !ok {
				return Row{}, fmt.Errorf("no figure %s", name)
			}
			if sd.Value, err = figureValue(0.0, v); err != nil {
				return Row{}, fmt.Errorf("%s: %v", name, err)
			}
		}
		row.SD = append(row.SD, sd)
	}
	for _, k := range order {
		if !known[k] && !lenient {
			return Row{}, fmt.Errorf("unknown figure %s", k)
		}
	}
	return row, nil
}

// figureValue decodes v as a value of the type of like (a figure of a
// bench that has not run: a count, a real, a histogram, or nil for a hit
// rate, a real when defined).
func figureValue(like any, v json.RawMessage) (any, error) {
	if string(v) == "null" {
		return nil, nil
	}
	var err error
	switch like.(type) {
	case uint64:
		var n uint64
		n, err = strconv.ParseUint(string(v), 10, 64)
		return n, err
	case int64:
		var n int64
		n, err = strconv.ParseInt(string(v), 10, 64)
		return n, err
	case float64, nil:
		var x float64
		err = json.Unmarshal(v, &x)
		return x, err
	case []stats.LatencyBucket:
		var h []stats.LatencyBucket
		err = json.Unmarshal(v, &h)
		return h, err
	}
	return nil, fmt.Errorf("figure of unknown type %T", like)
}

// Merge joins the slices of one sweep (ReadSlice; dirs[i] is where
// parts[i] was read, for errors) into the Result of the whole grid, rows
// in grid order: the Result an unsharded run of the sweep returns, except
// for the figures that vary from run to run (wall_seconds,
// cycles_per_second). It refuses slices of different sweeps (axes,
// workload or scenario, base configuration, checking), an interrupted
// slice, a point in two slices and a point in none.
func Merge(parts []*Result, dirs []string) (*Result, error) {
	if len(parts) == 0 {
		return nil, &MergeError{Msg: "no slice to merge"}
	}
	first, dir0 := parts[0], dirs[0]
	res := &Result{Varied: first.Varied, Values: first.Values, Workload: first.Workload, Checked: first.Checked,
		Seeds: first.Seeds, Config: first.Config, Axes: first.Axes}
	n := Count(first.Axes)
	rows := make([]*Row, n)
	from := make([]string, n)
	for k, s := range parts {
		dir := dirs[k]
		bad := func(format string, a ...any) error {
			return &MergeError{Dir: dir, Msg: fmt.Sprintf(format, a...)}
		}
		if k > 0 {
			if why := differs(first, s); why != "" {
				return nil, bad("not a slice of the same sweep as %s: %s", dir0, why)
			}
		}
		if s.Stopped {
			return nil, bad("slice %s was interrupted: it holds %d of its %d points; run it again", s.Slice.Shard(), len(s.Rows), s.expected())
		}
		for i := range s.Rows {
			r := &s.Rows[i]
			if rows[r.Point] != nil {
				return nil, bad("point %d (%s) is also in %s", r.Point, Grid(first.Axes)[r.Point].Describe(first.Axes), from[r.Point])
			}
			rows[r.Point], from[r.Point] = r, dir
		}
	}
	grid := Grid(first.Axes)
	for i, r := range rows {
		if r == nil {
			var have []string
			for k, s := range parts {
				have = append(have, s.Slice.Shard().String()+" in "+dirs[k])
			}
			sh := first.Slice.Shard()
			return nil, &MergeError{Msg: fmt.Sprintf("point %d (%s) is in no slice given: it is of slice %d/%d; given %s",
				i, grid[i].Describe(first.Axes), i%sh.Count+1, sh.Count, strings.Join(have, ", "))}
		}
		res.Rows = append(res.Rows, *r)
	}
	return res, nil
}

// differs says how b is not a slice of the same sweep as a, "" if it is.
func differs(a, b *Result) string {
	switch {
	case !slices.Equal(a.Varied, b.Varied):
		return fmt.Sprintf("it varies %s, not %s", strings.Join(b.Varied, ", "), strings.Join(a.Varied, ", "))
	case !slices.EqualFunc(a.Values, b.Values, slices.Equal[[]string]):
		for i := range a.Values {
			if !slices.Equal(a.Values[i], b.Values[i]) {
				return fmt.Sprintf("its values of %s are %s, not %s", a.Varied[i], strings.Join(b.Values[i], ","), strings.Join(a.Values[i], ","))
			}
		}
	case a.Seeds != b.Seeds:
		return fmt.Sprintf("it ran --seeds %d, not --seeds %d", max(b.Seeds, 1), max(a.Seeds, 1))
	case a.Workload != b.Workload:
		return fmt.Sprintf("it ran %q, not %q", b.Workload, a.Workload)
	case a.Slice != nil && b.Slice != nil && a.Slice.ScenarioSHA256 != b.Slice.ScenarioSHA256:
		return "it ran another scenario (its scenario file's contents differ)"
	case a.Checked != b.Checked:
		return fmt.Sprintf("checked against the golden model: %v, not %v", b.Checked, a.Checked)
	case !bytes.Equal(a.Config, b.Config):
		ca, _ := configFromJSON(a.Config, false)
		cb, _ := configFromJSON(b.Config, false)
		ma, mb := ca.Map(), cb.Map()
		for _, p := range ca.Params() {
			if fmt.Sprint(ma[p.Name]) != fmt.Sprint(mb[p.Name]) {
				return fmt.Sprintf("its base configuration differs: %s = %v, not %v", p.Name, mb[p.Name], ma[p.Name])
			}
		}
		return "its base configuration differs"
	}
	return ""
}
