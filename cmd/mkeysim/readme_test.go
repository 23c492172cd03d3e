package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update", false, "rewrite the README's sample of the default run's summary")

// readmeSummaryStart is the first line of the summary the README shows
// for make run, inside a fenced block of its own.
const readmeSummaryStart = "```\ndefault workload: "

// wallFigures matches the summary's two figures that depend on the
// machine, not on the model: they are compared as placeholders.
var wallFigures = regexp.MustCompile(`wall_seconds [0-9.]+, cycles_per_second [0-9]+`)

// TestREADMESummary: the summary the README shows for make run is, line
// for line and figure for figure, the one the default run prints (the
// wall time and the cycles per second aside), so that a counter a unit
// adds, or a change of a figure, cannot leave the README behind: it
// once lacked three counters and a unit's line for two issues. With
// -update the test rewrites the README's block from the run.
func TestREADMESummary(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI("run", "--quiet", "--out", filepath.Join(dir, "default.jsonl"))
	if code != 0 {
		t.Fatalf("mkeysim run: exit %d: %s", code, stderr)
	}
	path := filepath.Join(repoRoot, "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	start := strings.Index(readme, readmeSummaryStart)
	if start < 0 {
		t.Fatalf("%s: no fenced block starting %q (the summary of make run)", path, strings.TrimPrefix(readmeSummaryStart, "```\n"))
	}
	start += len("```\n")
	end := strings.Index(readme[start:], "```")
	if end < 0 {
		t.Fatalf("%s: the summary's block does not end", path)
	}
	block := readme[start : start+end]
	if wallFigures.ReplaceAllString(block, "WALL") == wallFigures.ReplaceAllString(stderr, "WALL") {
		return
	}
	if *updateReadme {
		// The README's wall figures stay: they are those of make run,
		// which writes the waveform too.
		if w := wallFigures.FindString(block); w != "" {
			stderr = wallFigures.ReplaceAllLiteralString(stderr, w)
		}
		if err := os.WriteFile(path, []byte(readme[:start]+stderr+readme[start+end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := strings.Split(strings.TrimSuffix(wallFigures.ReplaceAllString(stderr, "WALL"), "\n"), "\n")
	have := strings.Split(strings.TrimSuffix(wallFigures.ReplaceAllString(block, "WALL"), "\n"), "\n")
	i := 0
	for i < len(want) && i < len(have) && want[i] == have[i] {
		i++
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return ls[i]
		}
		return "(none)"
	}
	t.Errorf("README.md's summary of make run is not the default run's (%d lines, the run %d); first difference, line %d:\n README %q\n run    %q\ngo test ./cmd/mkeysim -run TestREADMESummary -update rewrites it",
		len(have), len(want), i+1, line(have), line(want))
}
