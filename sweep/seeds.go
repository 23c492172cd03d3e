package sweep

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"mkeysim/tb/stats"
)

// SDSuffix ends the name of the column (CSV) or key (JSON) that holds a
// figure's standard deviation over the seeds: cycles_sd, mkc_hit_rate_sd.
const SDSuffix = "_sd"

// Aggregate is the row of a point run once per seed: runs[k] is its run
// with the k-th seed, all of the same point. Every figure that is a
// number (counts, cycles, rates, latencies, wall time) becomes the mean of
// the runs where it is defined (stat.MeanStdDev), and SD its sample
// standard deviation (undefined, nil, when fewer than two runs define it;
// a hit rate is undefined in a run whose cache saw no lookup). Operations
// is the mean number of operations, rounded; mismatches add up, and
// Differences keeps the first few, each naming its seed's run. The
// latency histogram, a list, is that of the first seed.
func Aggregate(runs []Row) Row {
	first := runs[0]
	row := Row{Point: first.Point, Params: first.Params, Figures: make([]stats.Figure, len(first.Figures)), SD: make([]stats.Figure, len(first.Figures))}
	ops := 0
	for _, r := range runs {
		ops += r.Operations
	}
	row.Operations = int(math.Round(float64(ops) / float64(len(runs))))
	for i, f := range first.Figures {
		row.Figures[i], row.SD[i] = f, stats.Figure{Name: f.Name, Unit: f.Unit, Help: f.Help}
		if !f.Scalar() {
			row.SD[i].Value = []stats.LatencyBucket(nil)
			continue
		}
		var xs []float64
		for _, r := range runs {
			if v, ok := r.Value(f.Name); ok {
				xs = append(xs, v)
			}
		}
		row.Figures[i].Value = nil
		if len(xs) == 0 {
			continue
		}
		mean, sd := stat.MeanStdDev(xs, nil)
		row.Figures[i].Value = mean
		if len(xs) > 1 {
			row.SD[i].Value = sd
		}
	}
	for k, r := range runs {
		if r.Mismatches == nil {
			continue
		}
		if row.Mismatches == nil {
			row.Mismatches = new(int)
		}
		*row.Mismatches += *r.Mismatches
		for _, d := range r.Differences {
			if len(row.Differences) < 5 {
				row.Differences = append(row.Differences, fmt.Sprintf("seed %d of %d: %s", k+1, len(runs), d))
			}
		}
	}
	return row
}

// SDFigure returns the standard deviation over the seeds of the figure
// named name (or an alias of it); false when the row has none (a row of
// one run, or no such figure).
func (r *Row) SDFigure(name string) (stats.Figure, bool) {
	name = aliasOf(name)
	for i, f := range r.Figures {
		if f.Name == name && r.SD != nil {
			return r.SD[i], true
		}
	}
	return stats.Figure{}, false
}

// SDValue returns SDFigure as a number; false when undefined.
func (r *Row) SDValue(name string) (float64, bool) {
	f, ok := r.SDFigure(name)
	if !ok {
		return 0, false
	}
	v, ok := f.Value.(float64)
	return v, ok
}
