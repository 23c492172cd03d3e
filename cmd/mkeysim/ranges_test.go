package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mkeysim/config"
)

// TestRefMaxIndirectionRange: ref's depth limit is run's
// --klm.max-indirection (the old -max-indirection works too), with its
// range taken from the declaration: a value outside it ends with exit
// status 2, nothing on standard output and an error naming the flag, the
// value and the range; the bounds themselves run.
func TestRefMaxIndirectionRange(t *testing.T) {
	def := config.Default()
	p, ok := def.Param("klm.max_indirection")
	if !ok {
		t.Fatal("no klm.max_indirection")
	}
	lo, hi, _ := p.Range.Bounds()
	f := "../../examples/klm-nested.json"
	for _, flag := range []string{"--klm.max-indirection", "--klm.max_indirection", "-max-indirection"} {
		for _, v := range []string{"10000000", "-1", "65"} {
			code, out, errs := runCLI("ref", flag, v, f)
			want := "--klm.max-indirection = " + v + ": want " + p.Range.String()
			if code != exitUsage || out != "" || !strings.Contains(errs, want) {
				t.Errorf("ref %s %s: exit %d, stdout %q, stderr %q; want exit 2, nothing, %q", flag, v, code, out, errs, want)
			}
		}
		for _, v := range []string{lo.String(), hi.String()} {
			if code, out, errs := runCLI("ref", flag, v, f); code != 0 || out == "" {
				t.Errorf("ref %s %s: exit %d, %s", flag, v, code, errs)
			}
		}
	}
	if _, help, _ := runCLI("ref", "--help"); !strings.Contains(help, "["+p.Range.String()+"]") {
		t.Errorf("ref --help does not show the range %s:\n%s", p.Range, help)
	}
}

// TestRunRefusesOutOfRange: run refuses, with exit status 2, a zero that
// would once have meant "default", a negative number for an unsigned
// parameter in the file, and an MKC table inside the list area, each
// named with its value and range.
func TestRunRefusesOutOfRange(t *testing.T) {
	dir := t.TempDir()
	neg := filepath.Join(dir, "neg.toml")
	os.WriteFile(neg, []byte("[model]\nclock_ps = -1\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-pcie.tags", "0"}, "pcie.tags = 0: want 1..768"},
		{[]string{"run", "-pcie.link_latency_cycles", "0"}, "pcie.link_latency_cycles = 0: want 1..2^16"},
		{[]string{"run", "--config", neg}, neg + ": line 2: model.clock_ps = -1: want 1..1000000"},
		{[]string{"run", "-clock_ps", "-1"}, `clock_ps = "-1": want an unsigned integer in 1..1000000`},
		{[]string{"run", "-mkc_cache.icm_base", "0x100000000"}, "the MKC table [0x100000000, 0x140000000) overlaps the translation lists [0x100000000, 0x1000000000000)"},
		{[]string{"run", "-mkc_cache.sets", "1048576"}, "mkc_cache.sets x ways = 1048576 x 4: want at most 2^20 entries"},
		{[]string{"run", "-workload.keys", "16777214"}, "workload.keys = 16777214: want 8..2^20"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestRangesShown: every parameter's range is in its flag help and in the
// commented defaults file.
func TestRangesShown(t *testing.T) {
	_, help, _ := runCLI("run", "--help")
	_, defaults, _ := runCLI("config", "--defaults")
	def := config.Default()
	for _, p := range def.Params() {
		r := "[" + p.Range.String() + "]"
		if p.Range.String() == "" {
			t.Errorf("%s: no range", p.Name)
			continue
		}
		flagName := "--" + config.FlagName(p.Name)
		i := max(strings.Index(help, "      "+flagName+" "), strings.Index(help, "      "+flagName+"[="))
		if i < 0 || !strings.Contains(strings.Join(strings.Fields(help[i:min(len(help), i+600)]), " "), r) {
			t.Errorf("run --help: %s does not show %s", flagName, r)
		}
		key := p.Name[strings.LastIndex(p.Name, ".")+1:]
		if !strings.Contains(defaults, r+"\n"+key+" = ") {
			t.Errorf("config --defaults: %s has no %s", p.Name, r)
		}
	}
}

// TestStatsReportWhatRan: the statistics' config echo holds the values the
// run used, the PCIe defaults written out rather than zeros.
func TestStatsReportWhatRan(t *testing.T) {
	st := filepath.Join(t.TempDir(), "st.json")
	code, _, errs := runCLI("run", "-quiet", "-pcie.rcb", "128", "-stats", st, "../../examples/klm-nested.json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Config map[string]any `json:"config"`
	}
	readJSON(t, st, &doc)
	for k, want := range map[string]float64{"pcie.tags": 32, "pcie.rcb": 128, "pcie.max_read_request": 512, "pcie.link_latency_cycles": 75} {
		if got, _ := doc.Config[k].(float64); got != want {
			t.Errorf("config %s = %v, want %v", k, doc.Config[k], want)
		}
	}
}

// TestRunConfigFiles (issue 46, items 5 and 6): run reads a configuration
// file of the older layout, the model's parameters under [model], with
// the keys of its time, and an integer written as a float (1e3) as that
// integer, as the statistics' config echo shows; it refuses a float that
// is not an integer and an unknown key with exit status 2, naming the
// file, the line, the key and the value as written.
func TestRunConfigFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		args       []string
		want       map[string]float64 // in the statistics' config
		err        string             // after "mkeysim run: --config: FILE: "
	}{
		{"the issue's", "[model]\nclock_ps = 2000\n[model.mtt.cache]\nsets = 64\nways = 4\n[workload]\naccesses = 300\n", []string{"--workload.keys", "64"}, map[string]float64{
			"clock_ps": 2000, "mtt.cache.entries": 2048, "mtt.cache.ways": 4, "workload.keys": 64}, ""},
		{"older keys", "[model.mkc_cache]\nmshrs = 16\nloop_mshrs = 4\n[model.mtt.cache]\nsets = 16\nways = 2\n[model.klm.cache]\nsets = 8\n[model.pcie]\nhost_latency_cycles = 30\n[workload]\naccesses = 300\n", nil, map[string]float64{
			"mkc_cache.mshrs": 12, "mkc_cache.loop_mshrs": 4, "mtt.cache.entries": 256, "mtt.cache.ways": 2, "klm.cache.entries": 128, "pcie.icm_latency_cycles": 30, "pcie.data_latency_cycles": 20}, ""},
		{"floats", "[workload]\naccesses = 3e2\nkeys = 1.28e2\nseed = 7.0\n", nil, map[string]float64{"workload.accesses": 300, "workload.keys": 128, "workload.seed": 7}, ""},
		{"the issue's float", "[workload]\naccesses = 1e3\n", nil, map[string]float64{"workload.accesses": 1000}, ""},
		{"not an integer", "[workload]\naccesses = 1.5\n", nil, nil, "line 2: workload.accesses = 1.5: want an integer in 0..10_000_000"},
		{"out of range", "[workload]\naccesses = 1e8\n", nil, nil, "line 2: workload.accesses = 1e8: want 0..10_000_000"},
		{"unknown older key", "[model.mtt.cache]\nsets = 64\nwayz = 4\n", nil, nil, `line 3: unknown parameter "model.mtt.cache.wayz" (see 'mkeysim config --defaults')`},
		{"unknown key", "[mtt.cache]\nentries = 1024\nsets = 64\n", nil, nil, `line 3: unknown parameter "mtt.cache.sets": the MTT cache is sized in entries now`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".toml")
			os.WriteFile(f, []byte(tc.body), 0o644)
			st := filepath.Join(dir, "st.json")
			os.Remove(st)
			args := append([]string{"run", "--config", f, "--quiet", "--no-summary", "--stats", st, "--out", filepath.Join(dir, "r.jsonl")}, tc.args...)
			code, out, errs := runCLI(args...)
			if tc.err != "" {
				want := "mkeysim run: --config: " + f + ": " + tc.err
				if code != exitUsage || out != "" || !strings.HasPrefix(errs, want) {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", code, out, errs, want)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var doc struct {
				Config map[string]any `json:"config"`
			}
			readJSON(t, st, &doc)
			for k, want := range tc.want {
				if got, _ := doc.Config[k].(float64); got != want {
					t.Errorf("config %s = %v, want %v", k, doc.Config[k], want)
				}
			}
		})
	}
}
