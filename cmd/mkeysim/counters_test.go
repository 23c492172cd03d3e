package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// handCounts is an examples/counters/NAME.counts.json file: the counter
// values of NAME.json derived by hand (examples/counters/README.md), and
// the flags it runs with.
type handCounts struct {
	Counts map[string]float64 `json:"counts"`
	Flags  []string           `json:"flags"`
}

// TestHandCountedTraces runs each hand-counted trace of examples/counters
// through 'mkeysim run' and 'mkeysim sweep' and checks that the summary,
// the -stats JSON and the sweep table all give exactly the counts derived
// by hand, under the same names: all hits, all misses, merged misses,
// evictions and invalidations.
func TestHandCountedTraces(t *testing.T) {
	files, _ := filepath.Glob("../../examples/counters/*.counts.json")
	if len(files) < 5 {
		t.Fatalf("%d hand-counted traces, want at least 5", len(files))
	}
	for _, cf := range files {
		name := strings.TrimSuffix(filepath.Base(cf), ".counts.json")
		t.Run(name, func(t *testing.T) {
			var hc handCounts
			data, err := os.ReadFile(cf)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &hc); err != nil {
				t.Fatal(err)
			}
			sc := strings.TrimSuffix(cf, ".counts.json") + ".json"
			dir := t.TempDir()
			statsFile := filepath.Join(dir, "stats.json")
			args := append([]string{"run", "-stats", statsFile, "-out", filepath.Join(dir, "out.jsonl")}, hc.Flags...)
			code, _, stderr := runCLI(append(args, sc)...)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			raw, err := os.ReadFile(statsFile)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
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
				if got, ok := v.(float64); !ok || got != want {
					t.Errorf("stats JSON %s = %v, want %v", key, v, want)
				}
				// The summary prints "figure value" on its group's line.
				group, fig := key[:strings.LastIndexByte(key, '.')], key[strings.LastIndexByte(key, '.')+1:]
				text := fmt.Sprintf("%s %v", fig, want)
				if fig == "hit_rate" {
					text = fmt.Sprintf("%s %.1f%%", fig, 100*want)
				}
				if !summaryHas(stderr, group, text) {
					t.Errorf("summary has no %q on its %s line:\n%s", text, group, stderr)
				}
				// The sweep table has a column of that name.
				if got := table[key]; got != strconv.FormatFloat(want, 'g', -1, 64) {
					t.Errorf("sweep.csv %s = %q, want %v", key, got, want)
				}
			}
		})
	}
}

// summaryHas reports whether the summary line of group contains text as
// one of its comma-separated items.
func summaryHas(summary, group, text string) bool {
	for _, l := range strings.Split(summary, "\n") {
		if rest, ok := strings.CutPrefix(l, group+": "); ok {
			for _, item := range strings.Split(rest, ", ") {
				if item == text {
					return true
				}
			}
		}
	}
	return false
}

// readCSV returns the first row of a sweep.csv by column name.
func readCSV(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v, %d records", path, err, len(recs))
	}
	row := map[string]string{}
	for i, h := range recs[0] {
		row[h] = recs[1][i]
	}
	return row
}
