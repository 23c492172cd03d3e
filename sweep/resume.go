package sweep

import "fmt"

// Resume returns the rows of prev, the output of an earlier run of this
// sweep (Read), by point index, for Options.Done: a sweep interrupted, or
// run in part, then goes on where it stopped. prev must be of the same
// sweep (axes and values, workload or scenario, seeds, base
// configuration, checking, and the same slice when sharded); dir names it
// in errors, which are MergeErrors.
func (s *Sweep) Resume(prev *Result, dir string) (map[int]Row, error) {
	bad := func(format string, a ...any) error {
		return &MergeError{Dir: dir, Msg: fmt.Sprintf(format, a...)}
	}
	cur := &Result{Varied: labels(s.Axes), Values: values(s.Axes), Workload: s.Describe(), Checked: s.Check,
		Seeds: s.seeds(), Config: s.Base.JSON(), Slice: s.slice()}
	if why := differs(cur, prev); why != "" {
		return nil, bad("not an output of the same sweep: %s", why)
	}
	switch a, b := cur.Slice, prev.Slice; {
	case a == nil && b != nil:
		return nil, bad("not an output of the same sweep: it is slice %s, and this sweep is not sharded", b.Shard())
	case a != nil && b == nil:
		return nil, bad("not an output of the same sweep: it is of the whole grid, and this sweep is slice %s", a.Shard())
	case a != nil && (a.Shard() != b.Shard() || a.ScenarioSHA256 != b.ScenarioSHA256):
		return nil, bad("not an output of the same sweep: it is slice %s, not %s", b.Shard(), a.Shard())
	}
	mine := map[int]bool{}
	for _, p := range s.Points() {
		mine[p.Index] = true
	}
	done := map[int]Row{}
	for _, r := range prev.Rows {
		if !mine[r.Point] {
			return nil, bad("point %d is not a point of this sweep", r.Point)
		}
		done[r.Point] = r
	}
	return done, nil
}

// labels are the axes' labels, as Result.Varied holds them.
func labels(axes []Axis) []string {
	var out []string
	for _, a := range axes {
		out = append(out, a.Label())
	}
	return out
}

// values are the axes' values, as Result.Values holds them.
func values(axes []Axis) [][]string {
	var out [][]string
	for _, a := range axes {
		out = append(out, a.Values)
	}
	return out
}
