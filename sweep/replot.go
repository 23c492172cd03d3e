package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"mkeysim/config"
	"mkeysim/tb"
)

// plotRefColor draws a measured reference curve, apart from the model's
// lines (plotutil's colours).
var plotRefColor = color.Black

// Series is one line of a redrawn plot (Result.Lines): the points of the
// rows that share the values of every axis but the x axis, in the x
// axis's order, with the figure's value at each (points where it is
// undefined, a hit rate of a cache that saw no lookup, are left out).
type Series struct {
	Label string // the other axes' values, "" when the x axis is the only one
	X, Y  []float64
	// SD, for a sweep of several seeds, is the standard deviation over the
	// seeds at each point (0 where undefined), drawn as error bars; nil
	// for one seed.
	SD []float64
}

// Lines is what 'mkeysim plot' draws, before any drawing: the x axis, the
// figure on y and its unit, and the series.
type Lines struct {
	X      Axis
	Y      string // the figure as asked for (a name or an alias)
	Unit   string // its unit in the statistics (stats.Figure.Unit)
	Series []Series
	xaxis  xAxis
}

// Reference is a measured curve to hold a sweep against: points read from
// a CSV file (ReadReference), drawn over the sweep's lines.
type Reference struct {
	Name string // the file's base name, its legend entry
	X, Y []float64
}

// Lines picks the series of figure y against axis x (an axis of the
// sweep, with or without the model. prefix): one per value of the axis
// group if not "", with the values of any other axis after it, else one
// per combination of the values of every other axis. An unknown axis or
// figure is an *InputError naming it and listing the choices, as is a
// plot of more than MaxSeries lines or without a value.
func (r *Result) Lines(x, y, group string) (*Lines, error) {
	bad := func(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }
	var names []string
	for _, a := range r.Axes {
		names = append(names, a.Name)
	}
	xi := slices.Index(names, strings.TrimPrefix(x, "model."))
	if xi < 0 {
		return nil, bad("--x %q: not a parameter this sweep varies; the choices are %s", x, strings.Join(names, ", "))
	}
	order := []int{} // the other axes, the group first
	if group != "" {
		gi := slices.Index(names, strings.TrimPrefix(group, "model."))
		switch {
		case gi < 0:
			return nil, bad("--group %q: not a parameter this sweep varies; the choices are %s", group, strings.Join(names, ", "))
		case gi == xi:
			return nil, bad("--group %q: the x axis itself; the other choices are %s", group, strings.Join(slices.Delete(slices.Clone(names), xi, xi+1), ", "))
		}
		order = append(order, gi)
	}
	for i := range names {
		if i != xi && !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	choices := r.figureNames()
	if !slices.Contains(choices, y) {
		return nil, bad("--y %q: not a figure of the sweep; the choices are %s", y, strings.Join(choices, ", "))
	}
	l := &Lines{X: r.Axes[xi], Y: y, xaxis: newXAxis(r.Axes[xi])}
	if len(r.Rows) > 0 {
		f, _ := r.Rows[0].Figure(y)
		l.Unit = f.Unit
	}
	// Each row's place: its series (the other axes' value indices) and
	// its index on x; the grid gives both from the point number.
	grid := Grid(r.Axes)
	type key string
	index := map[key]int{}
	var keys []key
	type pt struct {
		i    int // index on x
		y    float64
		have bool
		sd   float64 // over the seeds (Result.Seeds > 1)
	}
	var pts [][]pt
	for n := range r.Rows {
		row := &r.Rows[n]
		p := grid[row.Point]
		var k strings.Builder
		for _, i := range order {
			fmt.Fprintf(&k, "%08d.", p.Index/stride(r.Axes, i)%len(r.Axes[i].Values))
		}
		if _, ok := index[key(k.String())]; !ok {
			index[key(k.String())] = len(keys)
			keys = append(keys, key(k.String()))
			pts = append(pts, nil)
		}
		s := index[key(k.String())]
		v, ok := row.Value(y)
		sd, _ := row.SDValue(y)
		pts[s] = append(pts[s], pt{p.Index / stride(r.Axes, xi) % len(l.X.Values), v, ok, sd})
		if len(l.Series) < len(keys) {
			var parts []string
			for _, i := range order {
				pm := row.Params[i]
				text := pm.Text
				if f, err := strconv.ParseFloat(text, 64); err == nil && strings.HasSuffix(pm.Name, "_bytes") {
					text = byteSize(f)
				}
				parts = append(parts, pm.Name+"="+text)
			}
			l.Series = append(l.Series, Series{Label: strings.Join(parts, ", ")})
		}
	}
	// Series in the order of their values (the group slowest), points in
	// x order.
	perm := make([]int, len(keys))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, b int) int { return strings.Compare(string(keys[a]), string(keys[b])) })
	var out []Series
	for _, s := range perm {
		ps := pts[s]
		slices.SortFunc(ps, func(a, b pt) int { return a.i - b.i })
		ser := l.Series[s]
		for _, p := range ps {
			if p.have {
				ser.X = append(ser.X, l.xaxis.pos[p.i])
				ser.Y = append(ser.Y, p.y)
				if r.Seeds > 1 {
					ser.SD = append(ser.SD, p.sd)
				}
			}
		}
		if len(ser.X) > 0 {
			out = append(out, ser)
		}
	}
	l.Series = out
	if len(out) == 0 {
		return nil, bad("--y %q: no point of the sweep has a value of it", y)
	}
	if len(out) > MaxSeries {
		return nil, bad("%d lines (one per combination of %s), at most %d", len(out), r.others(order), MaxSeries)
	}
	return l, nil
}

// others names the axes of order.
func (r *Result) others(order []int) string {
	var s []string
	for _, i := range order {
		s = append(s, r.Axes[i].Name)
	}
	return strings.Join(s, ", ")
}

// stride is how many points apart two values of axis i are in the grid
// (the first axis varies slowest).
func stride(axes []Axis, i int) int {
	n := 1
	for _, a := range axes[i+1:] {
		n *= len(a.Values)
	}
	return n
}

// figureNames are the names --y takes: every scalar figure of the rows,
// then the Aliases.
func (r *Result) figureNames() []string {
	var names []string
	if len(r.Rows) > 0 {
		for _, f := range r.Rows[0].Figures {
			if f.Scalar() {
				names = append(names, f.Name)
			}
		}
	}
	for _, a := range Aliases() {
		names = append(names, a.Name)
	}
	return names
}

// FigureNames are the names of the figures a sweep's rows hold that can
// be plotted (every scalar figure of stats.Report.Figures, then the Aliases),
// for completion and help.
func FigureNames() []string {
	bench, err := tb.New(config.Default().Model)
	if err != nil {
		panic(err) // the defaults are valid
	}
	st := bench.Stats(0)
	// The columns of a sweep of one row of these figures, but "operations".
	r := Result{Rows: []Row{{Figures: st.Figures()}}}
	return r.Columns()[1:]
}

// ReferenceError is why ReadReference refused a file: the file, the line
// (0 for the file as a whole) and the reason.
type ReferenceError struct {
	File string
	Line int
	Msg  string
}

func (e *ReferenceError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ReadReference reads a measured curve: a CSV file with a header line
// naming its two columns and at least two lines of two numbers, x (in
// the unit of the plot's parameter) and y (in the unit of its figure).
// Lines starting with # are comments. Anything else is a
// *ReferenceError naming the file, the line and the reason.
func ReadReference(path string) (*Reference, error) {
	bad := func(line int, format string, a ...any) error {
		return &ReferenceError{File: path, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, bad(0, "%v", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	ref := &Reference{Name: filepath.Base(path)}
	header := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, bad(pe.Line, "%v", pe.Err)
			}
			return nil, bad(0, "%v", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != 2 {
			what := "line"
			if header {
				what = "header"
			}
			return nil, bad(line, "%d fields; want 2 on every %s (x,y)", len(rec), what)
		}
		if header {
			header = false
			for _, h := range rec {
				if _, err := strconv.ParseFloat(strings.TrimSpace(h), 64); err == nil || strings.TrimSpace(h) == "" {
					return nil, bad(line, "want a header naming the two columns (like window_bytes,throughput_maps), not %q", strings.Join(rec, ","))
				}
			}
			continue
		}
		var xy [2]float64
		for i, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, bad(line, "%s %q is not a number", [2]string{"x", "y"}[i], s)
			}
			xy[i] = v
		}
		ref.X = append(ref.X, xy[0])
		ref.Y = append(ref.Y, xy[1])
	}
	if header {
		return nil, bad(0, "empty; want a header line and at least 2 lines of x,y")
	}
	if len(ref.X) < 2 {
		return nil, bad(0, "%d line(s) of x,y; want at least 2", len(ref.X))
	}
	return ref, nil
}

// unitOf is the unit of a parameter, from its name's suffix; "" when the
// name does not say.
func unitOf(param string) string {
	for _, u := range []struct{ suffix, unit string }{
		{"_bytes", "bytes"}, {"_cycles", "cycles"}, {"_ps", "ps"}, {"_ns", "ns"}, {"_per_mille", "‰"},
	} {
		if strings.HasSuffix(param, u.suffix) {
			return u.unit
		}
	}
	return ""
}

// Draw renders the lines as a PNG of one panel, the figure against the
// parameter, with the reference's points over them if ref is not nil,
// and the legend to the right: the x axis as the sweep's own plots draw
// it (log2 for powers of two spanning a factor of 8, sizes in KiB, MiB,
// GiB), labelled with the units, y from zero. A reference that a log2 or
// category axis cannot show is an *InputError.
// Normalize divides each series (and its spread) by its value at its
// first x, so that curves of different scales, and a measured curve
// normalised the same way, compare as shapes: the throughput against the
// window as a fraction of the small-window throughput. A series whose
// first value is 0 cannot be and is an *InputError naming it.
func (l *Lines) Normalize() error {
	for i := range l.Series {
		s := &l.Series[i]
		if len(s.Y) == 0 {
			continue
		}
		y0 := s.Y[0]
		if y0 == 0 {
			name := s.Label
			if name == "" {
				name = l.Y
			}
			return &InputError{Msg: fmt.Sprintf("--normalize: %s is 0 at the first point (%s = %g): nothing to divide by", name, l.X.Name, s.X[0])}
		}
		for k := range s.Y {
			s.Y[k] /= y0
		}
		for k := range s.SD {
			s.SD[k] /= y0
		}
	}
	l.Unit = "fraction of its value at the first point"
	return nil
}

func (l *Lines) Draw(note string, ref *Reference) ([]byte, error) {
	x := l.xaxis
	xlabel := l.X.Name
	var extra []string
	if u := unitOf(l.X.Name); u != "" {
		extra = append(extra, u)
	}
	if x.log {
		extra = append(extra, "log2 scale")
	}
	if len(extra) > 0 {
		xlabel += " (" + strings.Join(extra, ", ") + ")"
	}
	ylabel := l.Y
	if l.Unit != "" {
		ylabel += " (" + l.Unit + ")"
	}
	p := newPanel(l.Y+" vs "+l.X.Name, ylabel, x)
	p.X.Label.Text = xlabel
	leg := plot.NewLegend()
	var lines []line
	for i, s := range l.Series {
		var xys plotter.XYs
		for k := range s.X {
			xys = append(xys, plotter.XY{X: s.X[k], Y: s.Y[k]})
		}
		name := s.Label
		if name == "" {
			name = l.Y
		}
		lines = append(lines, line{name, i, xys, s.SD})
	}
	if err := addLines(p, figure{}, lines, &leg); err != nil {
		return nil, err
	}
	ymax := 0.0
	allPos := true
	for _, s := range l.Series {
		for _, v := range s.Y {
			ymax = math.Max(ymax, v)
			allPos = allPos && v >= 0
		}
	}
	if ref != nil {
		if x.cat {
			return nil, &InputError{Msg: fmt.Sprintf("--reference %s: %s takes values that are not numbers; a measured curve cannot be placed on it", ref.Name, l.X.Name)}
		}
		var xys plotter.XYs
		for k := range ref.X {
			if x.log && ref.X[k] <= 0 {
				return nil, &InputError{Msg: fmt.Sprintf("--reference %s: x = %g on a log2 axis; want x > 0", ref.Name, ref.X[k])}
			}
			xys = append(xys, plotter.XY{X: ref.X[k], Y: ref.Y[k]})
			ymax = math.Max(ymax, ref.Y[k])
			allPos = allPos && ref.Y[k] >= 0
		}
		// Room for the reference's points, as apply leaves for the lines'.
		lo, hi := slices.Min(append(slices.Clone(ref.X), x.pos...)), slices.Max(append(slices.Clone(ref.X), x.pos...))
		if beyond := lo < slices.Min(x.pos) || hi > slices.Max(x.pos); beyond && x.log {
			p.X.Min, p.X.Max = math.Min(p.X.Min, lo/math.Pow(hi/lo, 0.03)), math.Max(p.X.Max, hi*math.Pow(hi/lo, 0.03))
			p.X.Tick.Marker = plot.ConstantTicks(log2Ticks(lo, hi, 8, strings.HasSuffix(l.X.Name, "_bytes")))
		} else if beyond {
			p.X.Min, p.X.Max = math.Min(p.X.Min, lo-(hi-lo)*0.03), math.Max(p.X.Max, hi+(hi-lo)*0.03)
			p.X.Tick.Marker = plot.DefaultTicks{}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.Color = plotRefColor
		sc.Shape = draw.CrossGlyph{}
		sc.Radius = vg.Points(5)
		p.Add(sc)
		leg.Add(ref.Name+" (reference)", sc)
	}
	// Y from zero: differences read as proportions.
	if allPos {
		p.Y.Min = 0
		if ymax == 0 {
			ymax = 1
		}
		p.Y.Max = ymax * 1.05
	}
	if len(l.Series) == 1 && ref == nil && l.Series[0].Label == "" {
		leg = plot.NewLegend() // the title says it all
	}
	return render([]*plot.Plot{p}, &leg, note)
}
