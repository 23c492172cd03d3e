package main

import (
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"mkeysim/tb/stats"
)

// handCounts is an examples/counters/NAME.counts.json file: the counter
// values of NAME.json derived by hand (examples/counters/README.md), the
// latency histogram when derived too, and the flags it runs with; a file
// may name another trace of the directory to run (scenario), to count it
// under other flags.
type handCounts struct {
	Counts    map[string]float64    `json:"counts"`
	Histogram []stats.LatencyBucket `json:"latency_histogram"`
	Flags     []string              `json:"flags"`
	Scenario  string                `json:"scenario"`
}

// near reports whether got is want, to the last digit of a number
// printed with as many decimals as text has (a summary prints 3), or to
// a part in 10^12 when text is "" (JSON and CSV carry every digit).
func near(got, want float64, text string) bool {
	tol := 1e-12 * math.Abs(want)
	if _, dec, ok := strings.Cut(text, "."); ok {
		tol = max(tol, 0.5*math.Pow(10, -float64(len(dec))))
	}
	return math.Abs(got-want) <= tol+1e-12
}

// TestHandCountedTraces runs each hand-counted trace of examples/counters
// through 'mkeysim run' and 'mkeysim sweep' and checks that the summary,
// the -stats JSON and the sweep table all give the counts derived by
// hand, under the same names: all hits, all misses, merged misses,
// evictions, invalidations, and the figures in time (throughput in
// M accesses/s and GB/s, latency in ns, the latency histogram). Counts
// match exactly; reals to the digits each output prints.
func TestHandCountedTraces(t *testing.T) {
	files, _ := filepath.Glob("../../examples/counters/*.counts.json")
	if len(files) < 5 {
		t.Fatalf("%d hand-counted traces, want at least 5", len(files))
	}
	for _, cf := range files {
		name := strings.TrimSuffix(filepath.Base(cf), ".counts.json")
		t.Run(name, func(t *testing.T) {
			var hc handCounts
			readJSON(t, cf, &hc)
			sc := strings.TrimSuffix(cf, ".counts.json") + ".json"
			if hc.Scenario != "" {
				sc = filepath.Join(filepath.Dir(cf), hc.Scenario)
			}
			dir := t.TempDir()
			statsFile := filepath.Join(dir, "stats.json")
			args := append([]string{"run", "-stats", statsFile, "-out", filepath.Join(dir, "out.jsonl")}, hc.Flags...)
			code, _, stderr := runCLI(append(args, sc)...)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			var doc map[string]any
			readJSON(t, statsFile, &doc)
			sweepDir := filepath.Join(dir, "sweep")
			sargs := append([]string{"sweep", "-scenario", sc, "-vary", "mkc_cache.seed=1", "-out", sweepDir}, hc.Flags...)
			if code, _, stderr := runCLI(sargs...); code != 0 {
				t.Fatalf("sweep: exit %d: %s", code, stderr)
			}
			table := readCSV(t, filepath.Join(sweepDir, "sweep.csv"))
			for key, want := range hc.Counts {
				// The stats JSON nests the name at its dots.
				var v any = doc
				for _, part := range strings.Split(key, ".") {
					m, _ := v.(map[string]any)
					v = m[part]
				}
				if got, ok := v.(float64); !ok || !near(got, want, "") {
					t.Errorf("stats JSON %s = %v, want %v", key, v, want)
				}
				// The summary prints "figure value" on its group's line
				// (a figure without a dot on the run's line).
				group, fig := "", key
				if i := strings.LastIndexByte(key, '.'); i >= 0 {
					group, fig = key[:i], key[i+1:]
				}
				text, ok := summaryItem(stderr, group, fig)
				num, scale := text, 1.0
				if pct, isPct := strings.CutSuffix(text, "%"); isPct {
					num, scale = pct, 100 // a hit rate, in percent
				}
				got, err := strconv.ParseFloat(num, 64)
				if !ok || err != nil || !near(got, want*scale, num) {
					t.Errorf("summary has %s %q on its %q line, want %v:\n%s", fig, text, group, want, stderr)
				}
				// The sweep table has a column of that name.
				if got, err := strconv.ParseFloat(table[key], 64); err != nil || !near(got, want, "") {
					t.Errorf("sweep.csv %s = %q, want %v", key, table[key], want)
				}
			}
			if hc.Histogram != nil {
				var got struct {
					H []stats.LatencyBucket `json:"latency_histogram"`
				}
				if readJSON(t, statsFile, &got); !reflect.DeepEqual(got.H, hc.Histogram) {
					t.Errorf("stats JSON latency_histogram = %+v, want %+v", got.H, hc.Histogram)
				}
				if strings.Contains(stderr, "histogram") {
					t.Errorf("the summary prints the histogram:\n%s", stderr)
				}
			}
		})
	}
}

// summaryItem returns the value the summary prints after fig on the line
// of group (group "": the run's line, the one without a group), as
// "fig VALUE" among the line's comma-separated items.
func summaryItem(summary, group, fig string) (string, bool) {
	for _, l := range strings.Split(summary, "\n") {
		rest, ok := strings.CutPrefix(l, group+": ")
		if group == "" {
			rest, ok = l, !strings.Contains(l, ": ")
		}
		if !ok {
			continue
		}
		for _, item := range strings.Split(rest, ", ") {
			if v, ok := strings.CutPrefix(item, fig+" "); ok {
				return v, true
			}
		}
	}
	return "", false
}

// readCSV returns the first row of a sweep.csv by column name.
func readCSV(t *testing.T, path string) map[string]string {
	t.Helper()
	recs := readCSVFile(t, path)
	if len(recs) < 2 {
		t.Fatalf("%s: %d records", path, len(recs))
	}
	row := map[string]string{}
	for i, h := range recs[0] {
		row[h] = recs[1][i]
	}
	return row
}
