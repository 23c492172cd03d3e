package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mkeysim/config"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
)

// TestPagesExamples runs the firmware pages' examples (examples/pages,
// issue 37) through the golden model, as TestExamples the others: each
// NAME.json with the default host against NAME.expected.jsonl, and with
// each NAME-VARIANT.toml beside it (mkeysim ref NAME.json --config
// NAME-VARIANT.toml) against NAME-VARIANT.expected.jsonl; every BAD_PARAM
// has a reason.
func TestPagesExamples(t *testing.T) {
	files := scenarios(t, "pages")
	if len(files) < 2 {
		t.Fatalf("%d page scenarios, want at least 2", len(files))
	}
	runs := 0
	for _, path := range files {
		name := strings.TrimSuffix(path, ".json")
		variants, _ := filepath.Glob(name + "-*.toml")
		for _, v := range append([]string{""}, variants...) {
			cfg, expected := ref.DefaultConfig(), name+".expected.jsonl"
			if v != "" {
				c, err := config.Load(v)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Pages = ref.PagesConfig{Capped: c.Model.Host.PagePolicy == rtl.PolicyCapped, MaxPages: c.Model.Host.MaxPages, ICMBase: c.Model.MKCCache.ICMBase}
				expected = strings.TrimSuffix(v, ".toml") + ".expected.jsonl"
			}
			if _, err := os.Stat(expected); err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			runs++
			want, err := readLines(expected)
			if err != nil {
				t.Fatal(err)
			}
			results, got := refLines(t, path, cfg)
			for i := range results {
				if results[i].Status == prm.BadParam && results[i].Reason == "" {
					t.Errorf("%s seq %d: BAD_PARAM without a reason", expected, i)
				}
			}
			for _, d := range compareLines(got, want) {
				t.Errorf("%s: %s", expected, d)
			}
		}
	}
	if runs < 3 {
		t.Errorf("%d runs, want 3 or more", runs)
	}
}
