package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"mkeysim/tb/stats"
)

// Columns are the CSV columns after the point and the varied parameters:
// operations, then every figure of the rows that is a number
// (stats.Report.Figures; latency_histogram, a list, is in sweep.json only),
// by the names 'mkeysim run -stats' uses, then the Aliases; mismatches
// follows when the sweep was checked. With several seeds (Result.Seeds)
// each figure and alias is followed by its standard deviation,
// NAME_sd. The rows of sweep.json hold the same keys.
func (r *Result) Columns() []string {
	cols := []string{"operations"}
	sd := func(name string) {
		if r.Seeds > 1 {
			cols = append(cols, name+SDSuffix)
		}
	}
	if len(r.Rows) > 0 {
		for _, f := range r.Rows[0].Figures {
			if f.Scalar() {
				cols = append(cols, f.Name)
				sd(f.Name)
			}
		}
	}
	for _, a := range Aliases() {
		cols = append(cols, a.Name)
		sd(a.Name)
	}
	return cols
}

// Alias is a second name of a figure: a column of sweep.csv and a key of
// sweep.json's rows holding a copy of the figure's value.
type Alias struct {
	Name   string // the column's name
	Figure string // the figure it copies (stats.Report.Figures)
}

// Aliases are the columns under the short names issue 11 gives the
// figures an architect plots most, after every figure under its own
// name: each is a copy of the figure named, nothing new is computed.
// (throughput_maps and throughput_gbps need none: they are figures of
// those names.)
func Aliases() []Alias {
	return []Alias{
		{"latency_p50_ns", "latency_ns.p50"},
		{"latency_p99_ns", "latency_ns.p99"},
		{"mkc_hit_rate", "mkc_cache.hit_rate"},
		{"mtt_hit_rate", "mtt_cache.hit_rate"},
		{"pcie_reads", "pcie.reads"},
	}
}

// aliasOf is the figure an alias names; name itself when it is none.
func aliasOf(name string) string {
	for _, a := range Aliases() {
		if a.Name == name {
			return a.Figure
		}
	}
	return name
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// csvValue writes a figure for the CSV: counts in full, fractions and
// other reals with every digit, empty when undefined.
func csvValue(f stats.Figure) string {
	switch v := f.Value.(type) {
	case nil:
		return ""
	case float64:
		if f.Name == "wall_seconds" {
			return strconv.FormatFloat(v, 'f', 4, 64)
		}
		return fmtFloat(v)
	}
	return stats.FormatValue(f)
}

// CSV is one header line and one line per point. Hit rates are fractions
// (empty when the cache saw no lookup); latencies are in cycles
// (latency_cycles.*) and in ns (latency_ns.*, latency_p50_ns,
// latency_p99_ns).
func (r *Result) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := append([]string{"point"}, r.Varied...)
	head = append(head, r.Columns()...)
	if r.Checked {
		head = append(head, "mismatches")
	}
	w.Write(head)
	for _, row := range r.Rows {
		rec := []string{strconv.Itoa(row.Point)}
		for _, p := range row.Params {
			rec = append(rec, p.Text)
		}
		rec = append(rec, strconv.Itoa(row.Operations))
		for i, f := range row.Figures {
			if f.Scalar() {
				rec = append(rec, csvValue(f))
				if row.SD != nil {
					rec = append(rec, csvValue(row.SD[i]))
				}
			}
		}
		for _, a := range Aliases() {
			f, _ := row.Figure(a.Figure)
			rec = append(rec, csvValue(f))
			if row.SD != nil {
				sd, _ := row.SDFigure(a.Figure)
				rec = append(rec, csvValue(sd))
			}
		}
		if r.Checked && row.Mismatches != nil {
			rec = append(rec, strconv.Itoa(*row.Mismatches))
		}
		w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

// JSON is the whole result, indented.
func (r *Result) JSON() []byte {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // every field marshals
	}
	return append(data, '\n')
}

// Mismatches is the total count of results that differ from the golden
// model, and the points where they do.
func (r *Result) Mismatches() (total int, points []int) {
	for _, row := range r.Rows {
		if row.Mismatches != nil && *row.Mismatches > 0 {
			total += *row.Mismatches
			points = append(points, row.Point)
		}
	}
	return total, points
}

// Caption says what the table shows.
func (r *Result) Caption() string {
	var axes []string
	for i, a := range r.Varied {
		axes = append(axes, fmt.Sprintf("%s (%d values)", a, len(r.Values[i])))
	}
	points := fmt.Sprintf("%d points", len(r.Rows))
	if r.Stopped {
		points = fmt.Sprintf("%d of %d points (interrupted)", len(r.Rows), r.expected())
	}
	if r.Slice != nil {
		points += fmt.Sprintf(" of slice %s (of %d points)", r.Slice.Shard(), r.Slice.GridPoints)
	}
	seeds := ""
	if r.Seeds > 1 {
		seeds = fmt.Sprintf("; each figure the mean ± sample standard deviation of %d seeds", r.Seeds)
	}
	return fmt.Sprintf("Sweep of %s: %s, %s%s.", strings.Join(axes, " × "), points, r.Workload, seeds)
}

// expected is the number of points the result would hold had it run to
// the end: the grid's, or its slice's.
func (r *Result) expected() int {
	n := Count(r.Axes)
	if r.Slice == nil {
		return n
	}
	k := 0
	for i := range n {
		if r.Slice.Shard().Has(i) {
			k++
		}
	}
	return k
}

// MarkdownFigures are the figures of the Markdown table, by their names
// in the statistics (the CSV and JSON hold every figure).
var MarkdownFigures = []string{
	"mkc_cache.hit_rate", "mtt_cache.hit_rate", "klm_cache.hit_rate",
	"mkc_cache.misses", "mkc_cache.merged_misses", "mkc_cache.evictions",
	"translations_per_cycle", "cycles", "pcie.reads",
	"latency_cycles.p50", "latency_cycles.p99", "latency_cycles.max", "wall_seconds",
}

// Markdown is a caption and a table with one line per point: the varied
// values and the MarkdownFigures, headed by their names (hit rates in
// percent, latencies in cycles).
func (r *Result) Markdown() []byte {
	head := append([]string{}, r.Varied...)
	head = append(head, MarkdownFigures...)
	total, _ := r.Mismatches()
	if total > 0 {
		head = append(head, "mismatches")
	}
	rows := [][]string{head}
	for _, row := range r.Rows {
		var line []string
		for _, p := range row.Params {
			line = append(line, p.Text)
		}
		for _, name := range MarkdownFigures {
			line = append(line, mdValue(&row, name))
		}
		if total > 0 {
			line = append(line, strconv.Itoa(*row.Mismatches))
		}
		rows = append(rows, line)
	}
	width := make([]int, len(head))
	for _, l := range rows {
		for i, c := range l {
			width[i] = max(width[i], len([]rune(c)), 3)
		}
	}
	var b bytes.Buffer
	b.WriteString(r.Caption())
	b.WriteString("\n\n")
	for n, l := range rows {
		for i, c := range l {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if n == 0 || i < len(r.Varied) {
				fmt.Fprintf(&b, "| %s%s ", c, pad)
			} else {
				fmt.Fprintf(&b, "| %s%s ", pad, c)
			}
		}
		b.WriteString("|\n")
		if n == 0 {
			for i := range l {
				if i < len(r.Varied) {
					fmt.Fprintf(&b, "|:%s", strings.Repeat("-", width[i]+1))
				} else {
					fmt.Fprintf(&b, "|%s:", strings.Repeat("-", width[i]+1))
				}
			}
			b.WriteString("|\n")
		}
	}
	return b.Bytes()
}

// mdValue is a figure as the Markdown table shows it: as the run summary
// does (stats.FormatValue), "–" when undefined, wall time to 0.01 s; with
// several seeds, "mean ± sd".
func mdValue(row *Row, name string) string {
	v := mdOne(row.Figures, name)
	if row.SD != nil && v != "–" {
		if sd := mdOne(row.SD, name); sd != "–" {
			v += " ± " + sd
		}
	}
	return v
}

// mdOne is the figure named name of figs as the table shows it.
func mdOne(figs []stats.Figure, name string) string {
	for _, f := range figs {
		if f.Name != name {
			continue
		}
		if v, ok := f.Value.(float64); ok && name == "wall_seconds" {
			return strconv.FormatFloat(v, 'f', 2, 64)
		}
		if f.Value == nil {
			return "–"
		}
		return stats.FormatValue(f)
	}
	return "–"
}
