package sweep

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PlotFiles are the names of the plots a sweep draws, in order.
var PlotFiles = []string{"hit_rates.png", "throughput.png", "latency.png"}

// MaxSeries is the most lines a plot shows: the product of the sizes of
// every axis but the first. Larger sweeps get tables only.
const MaxSeries = 12

// File is a named file's contents.
type File struct {
	Name string
	Data []byte
}

// metric is one plotted quantity of a row.
type metric struct {
	name  string // legend entry with one series
	title string // panel title with several
	get   func(*Row) (float64, bool)
}

// rate plots the fraction named name in percent.
func rate(name string) func(*Row) (float64, bool) {
	return func(r *Row) (float64, bool) {
		v, ok := r.Value(name)
		return 100 * v, ok
	}
}

// value plots the figure named name.
func value(name string) func(*Row) (float64, bool) {
	return func(r *Row) (float64, bool) { return r.Value(name) }
}

// figure is one PNG: metrics against the first axis.
type figure struct {
	file, title, ylabel string
	// minSpan is the least Y range shown, so that noise does not look
	// like a trend: an absolute span, or a fraction of the largest value.
	minSpan, minFrac float64
	metrics          []metric
}

var figures = []figure{
	{"hit_rates.png", "Hit rates", "hit rate (%)", 5, 0, []metric{
		{"mkc_cache.hit_rate", "mkc_cache.hit_rate", rate("mkc_cache.hit_rate")},
		{"mtt_cache.hit_rate", "mtt_cache.hit_rate", rate("mtt_cache.hit_rate")},
		{"klm_cache.hit_rate", "klm_cache.hit_rate", rate("klm_cache.hit_rate")},
	}},
	{"throughput.png", "Throughput", "translations per cycle", 0, 0.1, []metric{
		{"translations_per_cycle", "translations_per_cycle", value("translations_per_cycle")},
	}},
	{"latency.png", "Latency", "latency (cycles)", 0, 0.1, []metric{
		{"latency_cycles.p50", "latency_cycles.p50", value("latency_cycles.p50")},
		{"latency_cycles.p99", "latency_cycles.p99", value("latency_cycles.p99")},
	}},
}

// series is the rows of one combination of the values of every axis but
// the first, in the first axis's order.
type series struct {
	label string
	rows  []*Row
}

// xAxis maps the first axis's values to plot coordinates.
type xAxis struct {
	label string
	pos   []float64 // position of value i
	log   bool
	cat   bool // categories, evenly spaced
	ticks []plot.Tick
}

func newXAxis(a Axis) xAxis {
	x := xAxis{label: a.Label(), pos: make([]float64, len(a.Values))}
	numeric, pow2 := true, true
	for i, v := range a.Values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			numeric = false
			break
		}
		x.pos[i] = f
		if n, err := strconv.ParseUint(v, 10, 64); err != nil || n == 0 || bits.OnesCount64(n) != 1 {
			pow2 = false
		}
	}
	if !numeric {
		// Categories (lru/random, true/false): evenly spaced.
		x.cat = true
		for i, v := range a.Values {
			x.pos[i] = float64(i)
			x.ticks = append(x.ticks, plot.Tick{Value: float64(i), Label: v})
		}
		return x
	}
	lo, hi := x.pos[0], x.pos[0]
	for _, f := range x.pos {
		lo, hi = math.Min(lo, f), math.Max(hi, f)
	}
	x.log = pow2 && len(a.Values) >= 3 && hi/lo >= 8
	if x.log {
		x.label += " (log2 scale)"
	}
	// A size in bytes reads as one: 4 KiB, 2 MiB, 1 GiB.
	bytesAxis := strings.HasSuffix(a.Name, "_bytes")
	label := func(v string, f float64) string {
		if bytesAxis {
			return byteSize(f)
		}
		return v
	}
	if len(a.Values) <= 16 {
		// A mark at every value, a label at most at nine of them, so that
		// labels do not run into each other.
		step := (len(a.Values) + 8) / 9
		for i, v := range a.Values {
			t := plot.Tick{Value: x.pos[i]}
			if i%step == 0 {
				t.Label = label(v, x.pos[i])
			}
			x.ticks = append(x.ticks, t)
		}
	} else if x.log {
		x.ticks = log2Ticks(lo, hi, 10, bytesAxis)
	}
	return x
}

// log2Ticks are ticks at the powers of two from lo to hi, at most about
// n labelled (as byte sizes if bytes).
func log2Ticks(lo, hi float64, n int, bytes bool) []plot.Tick {
	var ticks []plot.Tick
	e0, e1 := int(math.Ceil(math.Log2(lo))), int(math.Floor(math.Log2(hi)))
	step := (e1 - e0 + n) / n
	for e := e0; e <= e1; e++ {
		t := plot.Tick{Value: math.Ldexp(1, e)}
		if (e-e0)%step == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
			if bytes {
				t.Label = byteSize(t.Value)
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func (x xAxis) apply(p *plot.Plot) {
	p.X.Label.Text = x.label
	if x.log {
		p.X.Scale = plot.LogScale{}
	}
	if x.ticks != nil {
		p.X.Tick.Marker = plot.ConstantTicks(x.ticks)
	}
	if len(x.pos) > 0 {
		lo, hi := x.pos[0], x.pos[0]
		for _, f := range x.pos {
			lo, hi = math.Min(lo, f), math.Max(hi, f)
		}
		// A little room so the end points' glyphs are whole.
		switch {
		case x.cat:
			p.X.Min, p.X.Max = lo-0.3, hi+0.3
		case x.log:
			p.X.Min, p.X.Max = lo/math.Pow(hi/lo, 0.03), hi*math.Pow(hi/lo, 0.03)
		case hi > lo:
			p.X.Min, p.X.Max = lo-(hi-lo)*0.03, hi+(hi-lo)*0.03
		default:
			p.X.Min, p.X.Max = lo-0.5, hi+0.5
		}
	}
}

// groups splits the rows into one series per combination of the values of
// the axes after the first.
func (r *Result) groups() []series {
	if len(r.Axes) == 0 {
		return nil
	}
	per := len(r.Axes[0].Values)
	n := len(r.Rows) / max(per, 1)
	out := make([]series, n)
	// Grid order: the first axis varies slowest, so series j is the rows
	// j, j+n, j+2n, ...
	for j := range n {
		s := &out[j]
		for i := range per {
			s.rows = append(s.rows, &r.Rows[i*n+j])
		}
		var parts []string
		for _, p := range s.rows[0].Params[1:] {
			text := p.Text
			if f, err := strconv.ParseFloat(text, 64); err == nil && strings.HasSuffix(p.Name, "_bytes") {
				text = byteSize(f)
			}
			parts = append(parts, p.Name+"="+text)
		}
		s.label = strings.Join(parts, ", ")
	}
	return out
}

// Plots draws the sweep's PNG plots against the first axis, one line per
// combination of the other axes' values. With more than MaxSeries lines
// it draws none and says why.
func (r *Result) Plots() ([]File, string, error) {
	if len(r.Rows) == 0 || len(r.Axes) == 0 {
		return nil, "no points to plot", nil
	}
	if r.Stopped {
		return nil, "no plots: the sweep was interrupted before its grid was complete", nil
	}
	groups := r.groups()
	if len(groups) > MaxSeries {
		return nil, fmt.Sprintf("no plots: %d lines per plot (the values of every --vary after the first), at most %d", len(groups), MaxSeries), nil
	}
	x := newXAxis(r.Axes[0])
	var files []File
	for _, f := range figures {
		data, err := r.draw(f, x, groups)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %v", f.file, err)
		}
		if data != nil {
			files = append(files, File{f.file, data})
		}
	}
	return files, "", nil
}

const (
	dpi     = 96
	panelW  = 6 * vg.Inch
	panelH  = 4.2 * vg.Inch
	bannerH = 0.35 * vg.Inch
)

// draw renders one figure: with a single series, one panel with a line
// per metric; otherwise one panel per metric with a line per series.
// Metrics with no value anywhere (a cache never looked up) are left out.
// The legend is to the right of the panels, clear of the data.
func (r *Result) draw(f figure, x xAxis, groups []series) ([]byte, error) {
	var ms []metric
	for _, m := range f.metrics {
		for i := range r.Rows {
			if _, ok := m.get(&r.Rows[i]); ok {
				ms = append(ms, m)
				break
			}
		}
	}
	if len(ms) == 0 {
		return nil, nil
	}
	leg := plot.NewLegend()
	var panels []*plot.Plot
	if len(groups) == 1 {
		p := newPanel(f.title+" vs "+r.Axes[0].Label(), f.ylabel, x)
		var lines []line
		for i, m := range ms {
			xys, errs := points(groups[0].rows, m, x)
			lines = append(lines, line{m.name, i, xys, errs})
		}
		if err := addLines(p, f, lines, &leg); err != nil {
			return nil, err
		}
		panels = append(panels, p)
		if len(ms) == 1 {
			leg = plot.NewLegend() // the title says it all
		}
	} else {
		for k, m := range ms {
			p := newPanel(m.title+" vs "+r.Axes[0].Label(), f.ylabel, x)
			var lines []line
			for i, g := range groups {
				xys, errs := points(g.rows, m, x)
				lines = append(lines, line{g.label, i, xys, errs})
			}
			l := &leg
			if k > 0 {
				l = nil // one legend for the panels
			}
			if err := addLines(p, f, lines, l); err != nil {
				return nil, err
			}
			panels = append(panels, p)
		}
	}
	return render(panels, &leg, r.Workload)
}

type line struct {
	name  string
	style int
	xys   plotter.XYs
	// errs, if not nil, is the standard deviation over the seeds at each
	// point of xys, drawn as error bars of ± one sd.
	errs []float64
}

// points are the metric's values over the rows, and with several seeds
// (Row.SD) their standard deviations, 0 where undefined.
func points(rows []*Row, m metric, x xAxis) (plotter.XYs, []float64) {
	var xys plotter.XYs
	var errs []float64
	for i, row := range rows {
		if y, ok := m.get(row); ok {
			xys = append(xys, plotter.XY{X: x.pos[i], Y: y})
			if row.SD != nil {
				// The metric of a row of the deviations: the same
				// scaling (a hit rate in percent) applied to the sd.
				sd, _ := m.get(&Row{Figures: row.SD})
				errs = append(errs, sd)
			}
		}
	}
	if len(errs) != len(xys) {
		errs = nil
	}
	return xys, errs
}

func newPanel(title, ylabel string, x xAxis) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = plot.TickerFunc(niceTicks)
	x.apply(p)
	p.Add(plotter.NewGrid())
	return p
}

// niceTicks labels about six round values (1, 2, 2.5 or 5 times a power
// of ten apart) with minor ticks between them.
func niceTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(step/math.Pow(10, -float64(prec))-math.Round(step/math.Pow(10, -float64(prec)))) > 1e-9 {
		prec++ // 2.5, 0.25
	}
	var ts []plot.Tick
	minor := step / 2
	for i := math.Ceil(lo / minor); i*minor <= hi+minor*1e-9; i++ {
		v := i * minor
		t := plot.Tick{Value: v}
		if math.Mod(math.Abs(i), 2) == 0 {
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
			if t.Label == "-0" {
				t.Label = "0"
			}
		}
		ts = append(ts, t)
	}
	return ts
}

// addLines adds the lines to p, and their entries to leg if not nil, and
// sets a Y range that shows at least the figure's least span.
func addLines(p *plot.Plot, f figure, lines []line, leg *plot.Legend) error {
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		if len(l.xys) == 0 {
			continue
		}
		ln, sc, err := plotter.NewLinePoints(l.xys)
		if err != nil {
			return err
		}
		c := plotutil.Color(l.style)
		ln.Color, ln.Width = c, vg.Points(1.5)
		sc.Color, sc.Shape, sc.Radius = c, plotutil.Shape(l.style), vg.Points(3)
		p.Add(ln, sc)
		if l.errs != nil {
			eb, err := plotter.NewYErrorBars(yErrors{l.xys, l.errs})
			if err != nil {
				return err
			}
			eb.Color, eb.Width = c, vg.Points(1)
			p.Add(eb)
		}
		if leg != nil {
			leg.Add(l.name, ln, sc)
		}
		for k, xy := range l.xys {
			e := 0.0
			if l.errs != nil {
				e = l.errs[k]
			}
			ymin, ymax = math.Min(ymin, xy.Y-e), math.Max(ymax, xy.Y+e)
		}
	}
	if math.IsInf(ymin, 0) {
		return nil
	}
	if want := math.Max(f.minSpan, f.minFrac*math.Max(math.Abs(ymin), math.Abs(ymax))); ymax-ymin < want {
		mid := (ymin + ymax) / 2
		lo := mid - want/2
		if lo < 0 && ymin >= 0 {
			lo = 0
		}
		ymin, ymax = lo, lo+want
	}
	span := ymax - ymin
	if span == 0 {
		span = 1
		ymin -= span / 2
		ymax += span / 2
	}
	p.Y.Min = ymin - 0.05*span
	if ymin >= 0 && p.Y.Min < 0 {
		p.Y.Min = 0
	}
	p.Y.Max = ymax + 0.05*span
	return nil
}

// render draws the panels side by side under a banner naming the
// workload, with the legend to their right, as a PNG.
func render(panels []*plot.Plot, leg *plot.Legend, note string) ([]byte, error) {
	leg.TextStyle.Font.Size = vg.Points(11)
	leg.Padding = vg.Points(4)
	leg.ThumbnailWidth = vg.Points(24)
	leg.Top, leg.Left = true, true
	var lw vg.Length
	if r := leg.Rectangle(draw.Canvas{}); r.Max.X > r.Min.X {
		lw = r.Max.X - r.Min.X + vg.Points(16)
	}
	w, h := panelW*vg.Length(len(panels))+lw, panelH+bannerH
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	sty := plot.New().Title.TextStyle
	sty.Font.Size = vg.Points(10)
	sty.Color = color.Gray{Y: 0x40}
	// Centred over the panels, or over the whole width when longer.
	nx := (w - lw) / 2
	if tw := sty.Width(note); tw/2+vg.Points(4) > nx {
		nx = max(w/2, tw/2+vg.Points(4))
	}
	dc.FillText(sty, vg.Point{X: nx, Y: h - vg.Points(6)}, note)
	body := draw.Crop(dc, 0, -lw, 0, -bannerH)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Points(20), PadLeft: vg.Points(6), PadRight: vg.Points(10), PadBottom: vg.Points(6)}
	canvases := plot.Align([][]*plot.Plot{panels}, tiles, body)
	for i, p := range panels {
		p.Draw(canvases[0][i])
	}
	if lw > 0 {
		// Level with the top of the data area, below the titles.
		legC := draw.Crop(dc, w-lw, 0, 0, -bannerH-vg.Points(30))
		leg.Draw(legC)
	}
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// byteSize writes a number of bytes with the largest binary unit that
// divides it (4 KiB, 2 MiB, 1 GiB), or in bytes.
func byteSize(f float64) string {
	n := uint64(f)
	if float64(n) != f {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	for _, u := range []struct {
		shift uint
		name  string
	}{{60, "EiB"}, {50, "PiB"}, {40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatUint(n>>u.shift, 10) + " " + u.name
		}
	}
	return strconv.FormatUint(n, 10) + " B"
}

// yErrors are points with symmetric Y errors, for plotter.NewYErrorBars.
type yErrors struct {
	plotter.XYs
	errs []float64
}

// YError is the error below and above point i: one sd each way.
func (e yErrors) YError(i int) (float64, float64) { return e.errs[i], e.errs[i] }
