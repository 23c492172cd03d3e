package cover

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Report is every point under one depth limit with what each model that
// ran counted: the JSON that mkeysim run --coverage and mkeysim ref
// -coverage write, and the tables of docs/coverage.md.
type Report struct {
	MaxIndirection int `json:"max_indirection"`
	// Models are the models whose counts the report holds.
	Models []string `json:"models"`
	// Summary counts, per model that ran, the points it collects and
	// those it reached, and the same for the required ones.
	Summary map[string]Tally `json:"summary"`
	Points  []ReportPoint    `json:"points"`
	// Unreached lists each required point that a model which collects it
	// and ran left at zero, as "name (model)".
	Unreached []string `json:"unreached_required"`
}

// Tally is how much of the points a model collects it reached.
type Tally struct {
	Points          int `json:"points"`
	Reached         int `json:"reached"`
	Required        int `json:"required"`
	RequiredReached int `json:"required_reached"`
}

// ReportPoint is one point of a report.
type ReportPoint struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	CollectedBy []string `json:"collected_by"`
	Required    bool     `json:"required"`
	Why         string   `json:"why_not_required,omitempty"`
	DerivedFrom string   `json:"derived_from,omitempty"`
	Counts      Counts   `json:"counts"`

	models Models
}

// Counts are a point's hits in each model that collects it and ran.
type Counts struct {
	Golden  *uint64 `json:"golden,omitempty"`
	Clocked *uint64 `json:"clocked,omitempty"`
}

// NewReport builds the report of the points under maxIndirection from
// the golden and clocked models' collectors, then of the points the
// clocked model's counters declared (Collector.AddCounters); a nil
// collector is a model that did not run.
func NewReport(maxIndirection int, golden, clocked *Collector) *Report {
	r := &Report{MaxIndirection: maxIndirection, Summary: map[string]Tally{}, Unreached: []string{}}
	ran := Models(0)
	if golden != nil {
		ran |= Golden
	}
	if clocked != nil {
		ran |= Clocked
	}
	r.Models = ran.Names()
	points := Points(maxIndirection)
	derived, dn := clocked.Derived()
	points = append(points, derived...)
	for i, p := range points {
		rp := ReportPoint{Name: p.Name, Description: p.Desc, CollectedBy: p.Models.Names(), Required: p.Required, Why: p.Why, models: p.Models}
		if p.Counter != "" {
			rp.DerivedFrom = p.Counter
			if p.Minus != "" {
				rp.DerivedFrom += " - " + p.Minus
			}
		}
		for _, m := range []struct {
			model Models
			c     *Collector
			slot  **uint64
		}{{Golden, golden, &rp.Counts.Golden}, {Clocked, clocked, &rp.Counts.Clocked}} {
			if p.Models&m.model == 0 || m.c == nil {
				continue
			}
			n := m.c.Count(p.ID)
			if k := i - (len(points) - len(derived)); k >= 0 {
				n = dn[k]
			}
			*m.slot = &n
			name := m.model.Names()[0]
			t := r.Summary[name]
			t.Points++
			if n > 0 {
				t.Reached++
			}
			if p.Required {
				t.Required++
				if n > 0 {
					t.RequiredReached++
				} else {
					r.Unreached = append(r.Unreached, fmt.Sprintf("%s (%s)", p.Name, name))
				}
			}
			r.Summary[name] = t
		}
		r.Points = append(r.Points, rp)
	}
	return r
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// mark shows whether a model reached a point: ✓, ✗, or "-" when the
// model does not collect it or did not run.
func mark(n *uint64) string {
	switch {
	case n == nil:
		return "-"
	case *n > 0:
		return "✓"
	}
	return "✗"
}

// WriteMarkdown writes the report as Markdown tables: statuses and modes
// as level grids, then the other points by group, each with its event,
// whether each model reached it (not the counts, which the JSON has: the
// clocked model's depend on timing) and why a point is not required.
func (r *Report) WriteMarkdown(w io.Writer) {
	byName := map[string]*ReportPoint{}
	for i := range r.Points {
		byName[r.Points[i].Name] = &r.Points[i]
	}
	fmt.Fprintf(w, "Models: %s. Each mark is one model's: ✓ reached, ✗ not reached, - not collected by that model.\n\n", strings.Join(r.Models, ", "))
	for _, m := range r.Models {
		t := r.Summary[m]
		fmt.Fprintf(w, "- %s model: %d of %d points reached, %d of %d required ones.\n", m, t.Reached, t.Points, t.RequiredReached, t.Required)
	}
	if len(r.Unreached) > 0 {
		fmt.Fprintf(w, "- required and not reached: %s.\n", strings.Join(r.Unreached, ", "))
	}
	levels := r.MaxIndirection + 2
	grid := func(title, prefix string, rows []string, what string) {
		fmt.Fprintf(w, "\n## %s\n\n%s Each cell is golden then clocked; a blank cell is not a point.\n\n| %s |", title, what, strings.TrimSuffix(prefix, "."))
		for l := 0; l < levels; l++ {
			fmt.Fprintf(w, " L%d |", l)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", levels))
		for _, row := range rows {
			fmt.Fprintf(w, "| %s |", row)
			for l := 0; l < levels; l++ {
				if p := byName[fmt.Sprintf("%s%s.L%d", prefix, row, l)]; p != nil {
					fmt.Fprintf(w, " %s%s |", mark(p.Counts.Golden), mark(p.Counts.Clocked))
				} else {
					fmt.Fprint(w, " |")
				}
			}
			fmt.Fprintln(w)
		}
	}
	// The rows of the grids: status.S.Ln and mode.M.Ln by S and M, in
	// catalog order; the other points, by group.
	rows := map[string][]string{}
	var rest []*ReportPoint
	for i := range r.Points {
		p := &r.Points[i]
		parts := strings.Split(p.Name, ".")
		if g := parts[0]; (g == "status" || g == "mode") && len(parts) == 3 {
			if n := len(rows[g]); n == 0 || rows[g][n-1] != parts[1] {
				rows[g] = append(rows[g], parts[1])
			}
			continue
		}
		rest = append(rest, p)
	}
	group, grids := "", false
	for _, p := range rest {
		g := groupTitle(p)
		if g != group && g != "Access results" && !grids {
			grids = true
			grid("Access statuses by level", "status.", rows["status"], "status.S.Ln: an access ended with S at level n (translation.md 4), at every level where S can arise.")
			grid("Access modes by level", "mode.", rows["mode"], "mode.M.Ln: a piece passed every check at level n on a key of mode M.")
		}
		if g != group {
			group = g
			fmt.Fprintf(w, "\n## %s\n\n| point | event | golden | clocked | required |\n|---|---|---|---|---|\n", g)
		}
		req := "yes"
		if !p.Required {
			req = "no: " + p.Why
		}
		desc := p.Description
		if p.DerivedFrom != "" {
			desc += " (`" + p.DerivedFrom + "`)"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", p.Name, desc, mark(p.Counts.Golden), mark(p.Counts.Clocked), req)
	}
}

// groupTitle is the Markdown section of a point.
func groupTitle(p *ReportPoint) string {
	if p.DerivedFrom != "" {
		return "Units of the clocked model (derived from their counters)"
	}
	name := p.Name
	switch g := name[:max(strings.IndexByte(name, '.'), 0)]; g {
	case "ok", "length":
		return "Access results"
	case "range", "wrap":
		return "Ranges and arithmetic modulo 2^64"
	case "mtt", "klm", "fbs":
		return "Pages and entries"
	case "odp":
		return "ODP page faults"
	case "cmd":
		return "Commands"
	case "inval", "umr", "create":
		return "Command corners and CREATE_MKEY refusals"
	case "pages":
		return "Firmware pages"
	default:
		return g
	}
}
