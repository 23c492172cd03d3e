package config

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/spf13/pflag"
)

// TestOverlay: a flag given on the command line wins over the --config
// file, a flag not given leaves the file's value, and both spellings of
// a flag (- or _) name the same parameter.
func TestOverlay(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(file, []byte("[mkc_cache]\nways = 4\nsets = 32\n[pcie]\ntags = 16\n"), 0o644)
	for _, c := range []struct {
		args       []string
		ways, sets uint64
	}{
		{nil, 4, 32},
		{[]string{"--mkc-cache.ways", "2"}, 2, 32},
		{[]string{"--mkc_cache.ways=8", "--mkc-cache.sets", "64"}, 8, 64},
	} {
		flags := Default()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetNormalizeFunc(NormalizeFlag)
		flags.RegisterFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		cfg, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Overlay(fs); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		ways, _ := cfg.Param("mkc_cache.ways")
		sets, _ := cfg.Param("mkc_cache.sets")
		tags, _ := cfg.Param("pcie.tags")
		if ways.String() != strconv.FormatUint(c.ways, 10) || sets.String() != strconv.FormatUint(c.sets, 10) || tags.String() != "16" {
			t.Errorf("%q: ways %s sets %s tags %s, want %d %d 16", c.args, ways, sets, tags, c.ways, c.sets)
		}
	}
}
