package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestValidatePlatform: Validate refuses the IOMMU without the data path
// whose TLPs it translates, the workload's ATS keys on a device without
// hca_cap.ats, and takes every translation mode with both.
func TestValidatePlatform(t *testing.T) {
	c := Default()
	c.Model.IOMMU.Enabled = true
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "iommu.enabled = true needs data.enabled = true") {
		t.Errorf("iommu without the data path: %v", err)
	}
	c.Model.Data.Enabled, c.Workload.TranslationMode = true, "mixed"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "workload.translation_mode = mixed needs hca_cap.ats = true") {
		t.Errorf("mixed without hca_cap.ats: %v", err)
	}
	c.Model.HCACap.ATS = true
	for _, mode := range []string{"none", "ats", "capi", "mixed"} {
		c.Workload.TranslationMode, c.Workload.IOMMUUnmapPerMille = mode, 1000
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
	}
}

// TestValidateHost: host memory's write parameters (issue 37 part 4) and
// workload.relaxed_ordering refuse bad values naming the key and the
// value.
func TestValidateHost(t *testing.T) {
	for _, c := range []struct {
		set  func(c *Config)
		want string
	}{
		{func(c *Config) { c.Model.Host.WriteLatencySpreadCycles = 5 }, "host.write_latency_spread_cycles = 5 needs host.write_latency_cycles >= 1"},
		{func(c *Config) { c.Model.Host.WriteLatencyCycles = 70000 }, "host.write_latency_cycles = 70000: want 0..2^16"},
		{func(c *Config) { c.Model.Host.WriteBufferEntries = 0 }, "host.write_buffer_entries = 0: want 1..4096"},
		{func(c *Config) { c.Workload.RelaxedOrdering = "sometimes" }, `workload.relaxed_ordering = "sometimes": want none, write, read or both`},
	} {
		cfg := Default()
		c.set(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	cfg := Default()
	cfg.Model.Host.WriteLatencyCycles, cfg.Model.Host.WriteLatencySpreadCycles = 100, 400
	for _, ro := range []string{"none", "write", "read", "both"} {
		cfg.Workload.RelaxedOrdering = ro
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", ro, err)
		}
	}
}
