// Package sweep runs the clocked model over a grid of parameters and
// reports the statistics of every point as CSV, JSON, a Markdown table and
// PNG plots: the engine of 'mkeysim sweep'.
//
// A sweep is the cartesian product of its axes, each one parameter of
// 'mkeysim config --defaults' with a list of values. Every point is an
// independent run of a fresh bench on its own copy of the workload, so
// the rows do not depend on how many run at once; they come out in point
// order.
package sweep

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"mkeysim/config"
)

// Axis is one varied parameter and the values it takes, in order.
type Axis struct {
	// Name is the parameter's dotted name, as in 'mkeysim config
	// --defaults' (mkc_cache.ways, workload.accesses).
	Name string
	// Values are canonical (as the parameter prints them: 0x10 is 16).
	Values []string
}

// Label is the parameter's name, as tables head its column.
func (a Axis) Label() string { return a.Name }

// maxRange bounds the values one range of a -vary list expands to.
const maxRange = 100_000

// ParseVary parses one -vary spec, PARAM=V1,V2,..., where PARAM is a
// parameter's dotted name with or without the model. prefix and each item
// is a value or a range of integers: A..B (step 1), A..B+S (step S) or
// A..B*F (A, A*F, A*F*F, ... up to B; 16..256*2 is 16,32,64,128,256). An
// item is a range only when it is written so and the parameter is not a
// string: any other item is a value as written (a path such as
// ../a.csv; a value of workload.trace_file or workload.kind is never a
// range). Every value is checked against the parameter's type;
// duplicates are errors.
func ParseVary(spec string) (Axis, error) {
	name, list, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Axis{}, fmt.Errorf("want PARAM=V1,V2,... (like mkc_cache.ways=1,2,4,8)")
	}
	cfg := config.Default()
	p, err := lookupParam(&cfg, name)
	if err != nil {
		return Axis{}, err
	}
	a := Axis{Name: p.Name}
	if strings.TrimSpace(list) == "" {
		return Axis{}, fmt.Errorf("%s: empty list of values", a.Label())
	}
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return Axis{}, fmt.Errorf("%s: empty value in %q", a.Label(), list)
		}
		vals, err := itemValues(p, item)
		if err != nil {
			return Axis{}, fmt.Errorf("%s: %v", a.Label(), err)
		}
		for _, v := range vals {
			if err := p.Set(v); err != nil {
				if strings.Contains(v, "..") {
					// Neither a value nor a range: say how a range is written.
					return Axis{}, fmt.Errorf("%s: %v", a.Label(), badRange(v))
				}
				return Axis{}, fmt.Errorf("%s = %q: %s", a.Label(), v, strings.TrimPrefix(err.Error(), fmt.Sprintf("%s = %q: ", p.Name, v)))
			}
			c := p.String()
			if seen[c] {
				return Axis{}, fmt.Errorf("%s: value %s given twice", a.Label(), c)
			}
			seen[c] = true
			a.Values = append(a.Values, c)
			if len(a.Values) > maxRange {
				return Axis{}, fmt.Errorf("%s: more than %d values", a.Label(), maxRange)
			}
		}
	}
	return a, nil
}

// itemValues are the values of one item of p's list: the range's when the
// item is a range (and p not a string), else the item as written.
func itemValues(p config.Param, item string) ([]string, error) {
	if p.Type() == "string" {
		return []string{item}, nil
	}
	if _, _, _, _, ok := rangeParts(item); ok {
		return expandRange(item)
	}
	return []string{item}, nil
}

// lookupParam finds a parameter of c by its name (or its legacy
// model. name, or with - for _: config.Param); the error names close
// matches.
func lookupParam(c *config.Config, name string) (config.Param, error) {
	if p, ok := c.Param(name); ok {
		return p, nil
	}
	var near []string
	for _, p := range c.Params() {
		if strings.HasSuffix(p.Name, "."+name) || editDistance(p.Name, strings.TrimPrefix(name, "model.")) <= 2 {
			near = append(near, p.Name)
		}
	}
	msg := fmt.Sprintf("unknown parameter %q", name)
	if why, ok := config.Removed(name); ok {
		return config.Param{}, errors.New(msg + ": " + why)
	}
	if len(near) > 0 {
		msg += " (did you mean " + strings.Join(near, " or ") + "?)"
	} else {
		msg += " (see 'mkeysim config --defaults')"
	}
	return config.Param{}, errors.New(msg)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			d := prev[j-1]
			if a[i-1] != b[j-1] {
				d++
			}
			cur[j] = min(d, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// rangeParts reads s as a range, A..B, A..B+S or A..B*F, with integers
// as Go writes them (16, 0x10, -1, 1_000): ok is false when s is not one.
// op is '+' or '*', and step 1 for A..B.
func rangeParts(s string) (a, b, step int64, op byte, ok bool) {
	lo, rest, found := strings.Cut(s, "..")
	if !found {
		return 0, 0, 0, 0, false
	}
	op, stepStr := byte('+'), "1"
	if i := strings.IndexAny(rest, "+*"); i >= 0 {
		op, stepStr, rest = rest[i], rest[i+1:], rest[:i]
	}
	var err1, err2, err3 error
	a, err1 = strconv.ParseInt(strings.TrimSpace(lo), 0, 64)
	b, err2 = strconv.ParseInt(strings.TrimSpace(rest), 0, 64)
	step, err3 = strconv.ParseInt(strings.TrimSpace(stepStr), 0, 64)
	return a, b, step, op, err1 == nil && err2 == nil && err3 == nil
}

// badRange says how a range is written.
func badRange(s string) error {
	return fmt.Errorf("range %q: want A..B, A..B+STEP or A..B*FACTOR with integers (like 16..256*2)", s)
}

// expandRange expands A..B, A..B+S or A..B*F into decimal integers.
func expandRange(s string) ([]string, error) {
	a, b, st, op, ok := rangeParts(s)
	if !ok {
		return nil, badRange(s)
	}
	if a > b {
		return nil, fmt.Errorf("range %q: start %d is above end %d", s, a, b)
	}
	var out []string
	switch op {
	case '+':
		if st < 1 {
			return nil, fmt.Errorf("range %q: step %d: want >= 1", s, st)
		}
		if uint64(b-a)/uint64(st) >= maxRange {
			return nil, fmt.Errorf("range %q: more than %d values", s, maxRange)
		}
		for v := a; ; v += st {
			out = append(out, strconv.FormatInt(v, 10))
			if v > b-st {
				break
			}
		}
	case '*':
		if st < 2 {
			return nil, fmt.Errorf("range %q: factor %d: want >= 2", s, st)
		}
		if a < 1 {
			return nil, fmt.Errorf("range %q: a geometric range wants a start >= 1", s)
		}
		for v := a; v <= b; {
			out = append(out, strconv.FormatInt(v, 10))
			hi, lo := bits.Mul64(uint64(v), uint64(st))
			if hi != 0 || lo > math.MaxInt64 {
				break
			}
			v = int64(lo)
		}
	}
	return out, nil
}

// Point is one combination of values, one per axis.
type Point struct {
	Index  int      // position in the grid
	Values []string // Values[i] is the value of axis i
}

// DefaultMaxPoints bounds a sweep unless --max-points says otherwise.
const DefaultMaxPoints = 1000

// MaxPoints is the most --max-points may allow: a sweep makes its grid
// in memory (Grid, about 100 bytes a point) and checks every point's
// configuration before it runs (about a quarter of a millisecond a
// point): 100,000 points take about 10 MB and half a minute.
const MaxPoints = 100_000

// CountText is the number of points of the grid in decimal, exactly,
// however large (Count saturates).
func CountText(axes []Axis) string {
	n := big.NewInt(1)
	for _, a := range axes {
		n.Mul(n, big.NewInt(int64(len(a.Values))))
	}
	return n.String()
}

// Count is the number of points of the grid, saturating at math.MaxInt.
func Count(axes []Axis) int {
	n := 1
	for _, a := range axes {
		if len(a.Values) == 0 {
			return 0
		}
		if n > math.MaxInt/len(a.Values) {
			return math.MaxInt
		}
		n *= len(a.Values)
	}
	return n
}

// Grid is the cartesian product of the axes in row-major order: the first
// axis varies slowest, the last fastest, each in the order given.
func Grid(axes []Axis) []Point {
	n := Count(axes)
	pts := make([]Point, n)
	for i := range pts {
		vals := make([]string, len(axes))
		r := i
		for k := len(axes) - 1; k >= 0; k-- {
			m := len(axes[k].Values)
			vals[k] = axes[k].Values[r%m]
			r /= m
		}
		pts[i] = Point{Index: i, Values: vals}
	}
	return pts
}

// Apply returns base with the point's values set.
func (p Point) Apply(base config.Config, axes []Axis) (config.Config, error) {
	c := base
	for i, a := range axes {
		prm, err := lookupParam(&c, a.Name)
		if err != nil {
			return c, err
		}
		if err := prm.Set(p.Values[i]); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Describe is the point as name=value pairs.
func (p Point) Describe(axes []Axis) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Label() + "=" + p.Values[i]
	}
	return strings.Join(parts, ", ")
}
