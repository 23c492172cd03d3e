package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Columns are the CSV columns after the point and the varied parameters;
// mismatches follows when the sweep was checked.
var Columns = []string{
	"operations", "cycles", "translations", "translations_per_cycle", "wall_seconds",
	"mkc_hit_rate", "mtt_hit_rate", "klm_hit_rate", "pcie_reads", "pcie_read_bytes",
	"latency_p50", "latency_p90", "latency_p99", "latency_max",
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func fmtRate(r *float64) string {
	if r == nil {
		return ""
	}
	return fmtFloat(*r)
}

// CSV is one header line and one line per point. Hit rates are fractions
// (empty when the cache saw no lookup); latencies are in cycles.
func (r *Result) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := append([]string{"point"}, r.Varied...)
	head = append(head, Columns...)
	if r.Checked {
		head = append(head, "mismatches")
	}
	w.Write(head)
	for _, row := range r.Rows {
		rec := []string{strconv.Itoa(row.Point)}
		for _, p := range row.Params {
			rec = append(rec, p.Text)
		}
		rec = append(rec,
			strconv.Itoa(row.Operations),
			strconv.FormatUint(row.Cycles, 10),
			strconv.FormatUint(row.Translations, 10),
			fmtFloat(row.TranslationsPerCycle),
			strconv.FormatFloat(row.WallSeconds, 'f', 4, 64),
			fmtRate(row.MKCHitRate), fmtRate(row.MTTHitRate), fmtRate(row.KLMHitRate),
			strconv.FormatUint(row.PCIeReads, 10),
			strconv.FormatUint(row.PCIeReadBytes, 10),
			fmtFloat(row.LatencyP50), fmtFloat(row.LatencyP90), fmtFloat(row.LatencyP99), fmtFloat(row.LatencyMax),
		)
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
	return fmt.Sprintf("Sweep of %s: %d points, %s.", strings.Join(axes, " × "), len(r.Rows), r.Workload)
}

// Markdown is a caption and a table with one line per point: the varied
// values, hit rates in percent, translations per cycle, cycles, PCIe
// reads, latency percentiles in cycles and wall time.
func (r *Result) Markdown() []byte {
	head := append([]string{}, r.Varied...)
	head = append(head, "MKC hit %", "MTT hit %", "KLM hit %", "transl./cycle", "cycles", "PCIe reads", "p50", "p90", "p99", "max", "wall s")
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
		line = append(line, pct(row.MKCHitRate), pct(row.MTTHitRate), pct(row.KLMHitRate),
			strconv.FormatFloat(row.TranslationsPerCycle, 'f', 3, 64),
			strconv.FormatUint(row.Cycles, 10), strconv.FormatUint(row.PCIeReads, 10),
			fmtInt(row.LatencyP50), fmtInt(row.LatencyP90), fmtInt(row.LatencyP99), fmtInt(row.LatencyMax),
			strconv.FormatFloat(row.WallSeconds, 'f', 2, 64))
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

func pct(r *float64) string {
	if r == nil {
		return "–"
	}
	return strconv.FormatFloat(100**r, 'f', 1, 64)
}

func fmtInt(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
