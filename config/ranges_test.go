package config

import (
	"bytes"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"

	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
)

// defaultJSON is the default configuration as it was before ranges were
// declared (declaring them must not change a default), with the
// measurement workload's parameters added since (issue 11), and the MTT
// and KLM caches given in entries (the same geometries as the sets and
// ways before), mkc_cache.mshrs counting level-0 MSHRs only (14 + 2 for
// the loop, the 16 of before), walker miss merging, the data path (off)
// and pcie.host_latency_cycles renamed icm_latency_cycles beside
// data_latency_cycles, workload.tenants (issue 11), hca_cap.ats (issue
// 36: the device has no ATS unless told), and the workload's IOMMU knobs
// (issue 36: translation_mode none, no unmaps, 4 KiB leaves),
// hca_cap.umr_fence (issue 37: strong, the ordering of every UMR before),
// and host memory's write latency (issue 37 part 4: 0, writes accepted at
// once, a posted-write buffer of 32 for when they are not), and the
// host's side of the firmware's pages (issue 37 part 1: an eager host
// that gives every page at once, in contiguous order: the ICM of before;
// the mixed workload without page commands).
const defaultJSON = `{"atc.entries":64,"atc.mshrs":4,"atc.replacement":"lru","atc.seed":0,"atc.targets":4,"atc.ways":0,"clock_ps":4000,"cmd_latency":20,"data.enabled":false,"data.fence_queue":8,"data.outstanding":16,"fifo_depth":4,"hca_cap.ats":false,"hca_cap.umr_fence":"strong","host.icm_page_order":"contiguous","host.icm_page_seed":1,"host.max_pages":1048576,"host.page_event_latency_cycles":2000,"host.page_policy":"eager","host.write_buffer_entries":32,"host.write_latency_cycles":0,"host.write_latency_seed":0,"host.write_latency_spread_cycles":0,"iommu.enabled":false,"iommu.iotlb.entries":64,"iommu.iotlb.replacement":"lru","iommu.iotlb.seed":0,"iommu.iotlb.ways":0,"iommu.pwc.entries":32,"iommu.translate_icm":true,"iommu.walk_latency_cycles":15,"iommu.walkers":4,"klm.cache.entries":512,"klm.cache.entries_per_line":4,"klm.cache.replacement":"lru","klm.cache.seed":1,"klm.cache.ways":4,"klm.contexts":16,"klm.cursors":16,"klm.max_indirection":4,"klm.merge_misses":true,"klm.nested_contexts":8,"mkc_cache.icm_base":0,"mkc_cache.loop_mshrs":2,"mkc_cache.loop_targets":1,"mkc_cache.mshrs":14,"mkc_cache.replacement":"lru","mkc_cache.seed":1,"mkc_cache.sets":128,"mkc_cache.targets":8,"mkc_cache.ways":4,"mtt.cache.entries":2048,"mtt.cache.entries_per_line":8,"mtt.cache.replacement":"lru","mtt.cache.seed":1,"mtt.cache.ways":4,"mtt.merge_misses":true,"mtt.walkers":8,"overlap_invalidate":false,"pcie.completer_id":0,"pcie.data_latency_cycles":20,"pcie.icm_latency_cycles":20,"pcie.link_bytes_per_cycle":32,"pcie.link_latency_cycles":75,"pcie.max_payload":256,"pcie.max_read_request":512,"pcie.rcb":64,"pcie.requester_id":0,"pcie.split_on_all_rcb":false,"pcie.tags":32,"rob_entries":64,"sq.fetch_outstanding":8,"sq.wqe_cache_bbs":32,"stage_latency":1,"workload.access_bytes":64,"workload.access_type":"LOCAL_READ","workload.accesses":100000,"workload.bad_per_mille":50,"workload.fence_per_mille":0,"workload.footprint_bytes":0,"workload.hot_keys":128,"workload.hot_per_mille":800,"workload.inter_arrival_cycles":0,"workload.inval_per_mille":2,"workload.iommu_page_bytes":4096,"workload.iommu_unmap_per_mille":0,"workload.keys":1024,"workload.kind":"mixed","workload.mr_bytes":1048576,"workload.mrs":64,"workload.page_bytes":4096,"workload.pages_per_mille":0,"workload.post_ahead":64,"workload.query_per_mille":1,"workload.relaxed_ordering":"none","workload.resume_per_mille":2,"workload.seed":1,"workload.small_fence":false,"workload.stride_bytes":4096,"workload.tenants":1,"workload.trace_file":"","workload.translation_mode":"none","workload.umr_per_mille":3,"workload.warmup_accesses":0,"workload.zipf_s":0.99}`

// TestDefaultsUnchanged: every default keeps its value, and the defaults
// validate.
func TestDefaultsUnchanged(t *testing.T) {
	c := Default()
	if got := string(c.JSON()); got != defaultJSON {
		t.Errorf("defaults changed:\n%s\nwant\n%s", got, defaultJSON)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

// TestEveryParamHasRange: every parameter declares a range that parses,
// fits its field's type, holds its default and shows in its help.
func TestEveryParamHasRange(t *testing.T) {
	c := Default()
	ps := c.Params()
	if len(ps) < 40 {
		t.Fatalf("only %d parameters", len(ps))
	}
	for _, p := range ps {
		if p.RangeErr != nil {
			t.Errorf("%s: %v", p.Name, p.RangeErr)
			continue
		}
		if !p.Range.Contains(p.v) {
			t.Errorf("%s: default %v not in its range %s", p.Name, p.v.Interface(), p.Range)
		}
		if !strings.HasSuffix(p.Help, " ["+p.Range.String()+"]") || len(p.Help) <= len(p.Range.String())+3 {
			t.Errorf("%s: help %q does not end with its range", p.Name, p.Help)
		}
	}
}

// companions are the settings that let a parameter's extreme pass the
// rules that tie it to others, by "name=value" of the extreme.
var companions = map[string]map[string]int64{
	"mkc_cache.sets=1048576":        {"mkc_cache.ways": 1},
	"mkc_cache.mshrs=1023":          {"mkc_cache.loop_mshrs": 1},
	"mkc_cache.loop_mshrs=1023":     {"mkc_cache.mshrs": 1},
	"mkc_cache.loop_targets=255":    {"mkc_cache.targets": 256},
	"mtt.cache.entries=1":           {"mtt.cache.entries_per_line": 1, "mtt.cache.ways": 1},
	"klm.cache.entries=1":           {"klm.cache.entries_per_line": 1, "klm.cache.ways": 1},
	"klm.cache.entries=8388608":     {"klm.cache.entries_per_line": 8},
	"mtt.cache.ways=1048576":        {"mtt.cache.entries": 1 << 23},
	"klm.cache.ways=1048576":        {"klm.cache.entries": 1 << 22},
	"klm.contexts=2":                {"klm.nested_contexts": 1, "klm.max_indirection": 1},
	"klm.nested_contexts=0":         {"klm.max_indirection": 0},
	"klm.nested_contexts=4095":      {"klm.contexts": 4096},
	"klm.max_indirection=64":        {"klm.nested_contexts": 64, "klm.contexts": 65},
	"workload.umr_per_mille=1000":   {"workload.inval_per_mille": 0, "workload.query_per_mille": 0},
	"workload.inval_per_mille=1000": {"workload.umr_per_mille": 0, "workload.query_per_mille": 0},
	"workload.query_per_mille=1000": {"workload.umr_per_mille": 0, "workload.inval_per_mille": 0},
}

// refusedByLayout are extremes of a range that the host memory layout, or
// another parameter at its default, refuses.
var refusedByLayout = map[string]string{
	"mkc_cache.icm_base=18446744073709551552": "passes the end of host memory",
	// A warm-up as long as the default run leaves nothing to measure.
	"workload.warmup_accesses=10000000": "want fewer than accesses = 100000",
}

// param finds name in c.
func param(t *testing.T, c *Config, name string) Param {
	t.Helper()
	for _, p := range c.Params() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no parameter %s", name)
	return Param{}
}

// fits reports whether v can be stored in p's field.
func fits(p Param, v *big.Int) bool {
	bits := p.v.Type().Bits()
	if isUint(p.v.Kind()) {
		return v.Sign() >= 0 && v.BitLen() <= bits
	}
	lim := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	return v.Cmp(new(big.Int).Neg(lim)) >= 0 && v.Cmp(lim) < 0
}

// store sets p's field to v, which must fit.
func store(p Param, v *big.Int) {
	if isUint(p.v.Kind()) {
		p.v.SetUint(v.Uint64())
	} else {
		p.v.SetInt(v.Int64())
	}
}

// withValue is the defaults with name set to v (and the companions of
// that extreme), or false when v does not fit the field.
func withValue(t *testing.T, name string, v *big.Int) (Config, bool) {
	c := Default()
	p := param(t, &c, name)
	if !fits(p, v) {
		return c, false
	}
	store(p, v)
	for k, x := range companions[name+"="+v.String()] {
		store(param(t, &c, k), big.NewInt(x))
	}
	return c, true
}

// skipped is the first value between lo and hi that p's range leaves out
// ("power of two", "multiple of"), or nil.
func skipped(p Param, lo, hi *big.Int) *big.Int {
	v := new(big.Int).Set(lo)
	for i := 0; i < 200 && v.Cmp(hi) < 0; i++ {
		if v.Add(v, big.NewInt(1)); !p.Range.ContainsInt(v) {
			return v
		}
	}
	return nil
}

// mentionsOther reports whether msg names a parameter other than name: a
// refusal by a rule between parameters, not by name's own range.
func mentionsOther(c *Config, name, msg string) bool {
	for _, p := range c.Params() {
		last := p.Name[strings.LastIndex(p.Name, ".")+1:]
		if p.Name != name && !strings.Contains(name, last) && strings.Contains(msg, last) {
			return true
		}
	}
	return false
}

// TestRangeBoundaries: for every integer parameter, the least and greatest
// values of its declared range are accepted (a rule between parameters
// aside), and one below, one above, a value skipped by "power of two" or
// "multiple of", or one off a list, is refused by Validate naming the
// parameter as its flag and file key spell it (pcie.tags), the value and
// the range: through a flag and through the TOML file alike.
func TestRangeBoundaries(t *testing.T) {
	dir := t.TempDir()
	def := Default()
	one := big.NewInt(1)
	for _, p := range def.Params() {
		k := p.v.Kind()
		if !isInt(k) && !isUint(k) {
			continue
		}
		var in, out []*big.Int
		if lo, hi, ok := p.Range.Bounds(); ok {
			in = append(in, lo, hi)
			out = append(out, new(big.Int).Sub(lo, one), new(big.Int).Add(hi, one))
			if v := skipped(p, lo, hi); v != nil {
				out = append(out, v)
			}
		} else {
			for _, s := range p.Range.Values() {
				v, _ := new(big.Int).SetString(s, 0)
				in = append(in, v)
			}
			// The least value above the first that is not listed.
			v := new(big.Int).Add(in[0], one)
			for slices.ContainsFunc(in, func(x *big.Int) bool { return x.Cmp(v) == 0 }) {
				v.Add(v, one)
			}
			out = append(out, v)
		}
		short := strings.TrimPrefix(p.Name, "model.")
		for _, v := range in {
			c, ok := withValue(t, p.Name, v)
			if !ok {
				t.Errorf("%s: range bound %s does not fit the field", p.Name, v)
				continue
			}
			err := c.Validate()
			if want, ok := refusedByLayout[p.Name+"="+v.String()]; ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s = %s: %v, want a refusal saying %q", p.Name, v, err, want)
				}
				continue
			}
			if err != nil && !mentionsOther(&c, p.Name, err.Error()) {
				t.Errorf("%s = %s, in its range %s, refused: %v", p.Name, v, p.Range, err)
			} else if err != nil {
				t.Logf("%s = %s refused by a rule between parameters: %v", p.Name, v, err)
			}
		}
		for _, v := range out {
			want := short + " = " + p.Range.FormatInt(v) + ": want " + p.Range.String()
			if p.Why != "" {
				want += ": " + p.Why
			}
			// Validate.
			if c, ok := withValue(t, p.Name, v); ok {
				if err := c.Validate(); err == nil || err.Error() != want {
					t.Errorf("Validate with %s = %s: %v, want %q", p.Name, v, err, want)
				}
			}
			// Flag.
			c := Default()
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.RegisterFlags(fs)
			err := fs.Parse([]string{"--" + FlagName(short), v.String()})
			switch {
			case err != nil:
				if fits(p, v) || !strings.Contains(err.Error(), short+` = "`+v.String()+`": want an `) || !strings.Contains(err.Error(), p.Range.String()) {
					t.Errorf("-%s %s: %v", short, v, err)
				}
			default:
				if err := c.Validate(); err == nil || err.Error() != want {
					t.Errorf("-%s %s: Validate says %v, want %q", short, v, err, want)
				}
			}
			// File.
			if !v.IsInt64() {
				continue
			}
			text, line := p.Name+" = "+v.String()+"\n", "1"
			if i := strings.LastIndex(p.Name, "."); i >= 0 {
				text, line = "["+p.Name[:i]+"]\n"+p.Name[i+1:]+" = "+v.String()+"\n", "2"
			}
			f := filepath.Join(dir, "t.toml")
			os.WriteFile(f, []byte(text), 0o644)
			wantFile := f + ": line " + line + ": " + p.Name + " = " + p.Range.FormatInt(v) + ": want " + p.Range.String()
			if _, err := Load(f); err == nil || err.Error() != wantFile {
				t.Errorf("file with %s = %s: %v, want %q", p.Name, v, err, wantFile)
			}
		}
	}
}

// TestOtherKinds: strings and booleans take exactly the values their
// ranges list, from a flag and from the file.
func TestOtherKinds(t *testing.T) {
	c := Default()
	p := param(t, &c, "mkc_cache.replacement")
	for _, v := range p.Range.Values() {
		c := Default()
		param(t, &c, p.Name).Set(v)
		if err := c.Validate(); err != nil {
			t.Errorf("replacement %q: %v", v, err)
		}
	}
	param(t, &c, p.Name).Set("fifo")
	if err := c.Validate(); err == nil || err.Error() != `mkc_cache.replacement = "fifo": want lru or random` {
		t.Errorf("replacement fifo: %v", err)
	}
	for _, p := range c.Params() {
		if p.v.Kind() == reflect.Bool {
			for _, v := range []string{"true", "false"} {
				c := Default()
				if p.Name == "iommu.enabled" && v == "true" {
					c.Model.Data.Enabled = true // the IOMMU translates the data path's TLPs
				}
				if err := param(t, &c, p.Name).Set(v); err != nil {
					t.Error(err)
				} else if err := c.Validate(); err != nil {
					t.Errorf("%s = %s: %v", p.Name, v, err)
				}
			}
		}
	}
}

// TestFileTypes: a value of the wrong type, a negative number for an
// unsigned parameter, a number too wide for its field or for TOML, a key
// spelt in another case, a table given a value and a long string are all
// refused, naming the file, the line, the key as the file spells it, the
// value (at most 64 characters quoted) and the range.
func TestFileTypes(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 100)
	for _, c := range []struct{ body, want string }{
		{"[model]\nclock_ps = -1\n", "line 2: model.clock_ps = -1: want 1..1000000"},
		{"[model.mkc_cache]\nicm_base = -64\n", "line 2: model.mkc_cache.icm_base = -0x40: want multiple of 64 in 0..0xffffffffffffffc0"},
		{"[model.mkc_cache]\nseed = -1\n", "line 2: model.mkc_cache.seed = -1: want 0..2^64-1"},
		{"[model.pcie]\nrequester_id = -1\n", "line 2: model.pcie.requester_id = -0x1: want 0..0xffff"},
		{"[model.pcie]\nrequester_id = 70000\n", "line 2: model.pcie.requester_id = 0x11170: want 0..0xffff"},
		{"[model.pcie]\ntags = 99999999999999999999\n", "line 2: model.pcie.tags = 99999999999999999999: want 1..768 (a TOML integer is at most 2^63-1)"},
		{"[model.mkc_cache]\nicm_base = 0xFFFFFFFFF0000000\n", "line 2: model.mkc_cache.icm_base = 0xFFFFFFFFF0000000: want multiple of 64 in 0..0xffffffffffffffc0 (a TOML integer is at most 2^63-1)"},
		{"[model]\n\nrob_entries = \"x\"\n", `line 3: model.rob_entries = "x": want an integer in 1..128`},
		{"[model]\nrob_entries = 1.5\n", "line 2: model.rob_entries = 1.5: want an integer in 1..128"},
		{"[model]\nrob_entries = [1]\n", "line 2: model.rob_entries = […]: want an integer in 1..128"},
		{"[model.pcie]\nsplit_on_all_rcb = 1\n", "line 2: model.pcie.split_on_all_rcb = 1: want true or false"},
		{"[hca_cap]\nats = \"yes\"\n", `line 2: hca_cap.ats = "yes": want true or false`},
		{"[model.mkc_cache]\nreplacement = 1\n", "line 2: model.mkc_cache.replacement = 1: want lru or random"},
		{"[model.mkc_cache]\nreplacement = \"" + long + "\"\n", `line 2: model.mkc_cache.replacement = "` + long[:64] + `"…: want lru or random`},
		{"[model.pcie]\nTags = 5\n", `unknown parameter "model.pcie.Tags"`},
		{"[klm.cache]\nsets = 32\n", `unknown parameter "klm.cache.sets": the KLM cache is sized in entries now`},
		{"[model]\n\"pcie.tags\" = 5\n", `unknown parameter "model.\"pcie.tags\""`},
		{"[model]\npcie = 5\n", "model.pcie = 5: want a table of parameters ([model.pcie])"},
		{"[model.pcie.tags]\n", "model.pcie.tags = {…}: want an integer in 1..768"},
		{"[model.pcie]\ntags = 0\n", "line 2: model.pcie.tags = 0: want 1..768"},
		{"[model.pcie]\ntags = 1\ntags = 2\n", "line 3: model.pcie.tags: Key 'model.pcie.tags' has already been defined."},
		{"[workload]\numr_per_mille = 600\ninval_per_mille = 600\n", "workload.umr_per_mille + inval_per_mille + query_per_mille = 600 + 600 + 1 = 1201: want at most 1000"},
		// The IOMMU knobs of issue 36 need an IOMMU (iommu.enabled).
		{"[workload]\ntranslation_mode = \"ats\"\n", "workload.translation_mode = ats needs iommu.enabled = true"},
		{"[workload]\ntranslation_mode = \"bogus\"\n", `line 2: workload.translation_mode = "bogus": want none, ats, capi or mixed`},
		{"[workload]\niommu_unmap_per_mille = 5\n", "workload.iommu_unmap_per_mille = 5 needs iommu.enabled = true"},
		{"[workload]\niommu_page_bytes = 8192\n", "line 2: workload.iommu_page_bytes = 8192: want 4096, 2097152 or 1073741824"},
	} {
		f := filepath.Join(dir, "c.toml")
		os.WriteFile(f, []byte(c.body), 0o644)
		_, err := Load(f)
		if err == nil || !strings.HasPrefix(err.Error(), f+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	// Values in range are taken as written.
	f := filepath.Join(dir, "ok.toml")
	os.WriteFile(f, []byte("[model.pcie]\ntags = 768\nrequester_id = 0xffff\n[model.mkc_cache]\nicm_base = 0xC0000000\nreplacement = \"random\"\n[workload]\nseed = -5\n"), 0o644)
	c, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.PCIe.Tags != 768 || c.Model.PCIe.RequesterID != 0xffff || c.Model.MKCCache.ICMBase != 0xC0000000 || c.Model.MKCCache.Replacement != "random" || c.Workload.Seed != -5 {
		t.Errorf("loaded %+v", c)
	}
}

// TestFlagTypes: a flag value of the wrong type, a negative number for an
// unsigned parameter or one too wide for its field is refused naming the
// flag's key, the value and the range.
func TestFlagTypes(t *testing.T) {
	long := strings.Repeat("7", 100)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--clock_ps", "-1"}, `clock_ps = "-1": want an unsigned integer in 1..1000000`},
		{[]string{"--mkc_cache.icm_base", "-64"}, `mkc_cache.icm_base = "-64": want an unsigned integer in multiple of 64 in 0..0xffffffffffffffc0`},
		{[]string{"--pcie.requester_id", "70000"}, `pcie.requester_id = "70000": want an unsigned integer in 0..0xffff`},
		{[]string{"--pcie.tags", "x"}, `pcie.tags = "x": want an integer in 1..768`},
		{[]string{"--pcie.tags", long}, `pcie.tags = "` + long[:64] + `"…: want an integer in 1..768`},
		{[]string{"--overlap_invalidate=maybe"}, `overlap_invalidate = "maybe": want true or false`},
		{[]string{"--hca-cap.ats=maybe"}, `hca_cap.ats = "maybe": want true or false`},
	} {
		cfg := Default()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.SetNormalizeFunc(NormalizeFlag)
		cfg.RegisterFlags(fs)
		if err := fs.Parse(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestNoHiddenDefaults: the defaults are written out (the PCIe ones are
// pcie.DefaultConfig, the one place that gives them), so what the run
// reports is what it runs with, and a zero is refused, not read as the
// default.
func TestNoHiddenDefaults(t *testing.T) {
	c := Default()
	if c.Model.PCIe != pcie.DefaultConfig() {
		t.Errorf("pcie defaults %+v are not pcie.DefaultConfig %+v", c.Model.PCIe, pcie.DefaultConfig())
	}
	for _, p := range c.Params() {
		k := p.v.Kind()
		if (!isInt(k) && !isUint(k)) || p.Range.ContainsInt(big.NewInt(0)) {
			continue
		}
		c := Default()
		store(param(t, &c, p.Name), big.NewInt(0))
		want := strings.TrimPrefix(p.Name, "model.") + " = " + p.Range.FormatInt(big.NewInt(0)) + ": want " + p.Range.String()
		if p.Why != "" {
			want += ": " + p.Why
		}
		if err := c.Validate(); err == nil || err.Error() != want {
			t.Errorf("%s = 0: %v, want %q", p.Name, err, want)
		}
	}
}

// TestUnitBoundsAgree: each unit's own Validate (which it runs when built
// alone) refuses every value outside the ranges the run's configuration
// declares for it, and pcie.Config.Validate, which the PCIe components
// run when built, says what the run says.
func TestUnitBoundsAgree(t *testing.T) {
	one := big.NewInt(1)
	def := Default()
	for _, p := range def.Params() {
		k := p.v.Kind()
		if !isInt(k) && !isUint(k) {
			continue
		}
		var unit func(c *Config) error
		same := false // the unit's refusal must be the run's, word for word
		switch {
		case strings.HasPrefix(p.Name, "mkc_cache."):
			unit = func(c *Config) error { return c.Model.MKCCache.Validate() }
		case strings.HasPrefix(p.Name, "mtt."):
			unit = func(c *Config) error { return c.Model.MTT.Validate() }
		case strings.HasPrefix(p.Name, "klm."):
			unit = func(c *Config) error { return c.Model.KLM.Validate() }
		case strings.HasPrefix(p.Name, "pcie."):
			unit, same = func(c *Config) error { return c.Model.PCIe.Validate() }, true
		default:
			continue
		}
		lo, hi, ok := p.Range.Bounds()
		if !ok {
			continue
		}
		vals := []*big.Int{new(big.Int).Sub(lo, one), new(big.Int).Add(hi, one)}
		if v := skipped(p, lo, hi); v != nil {
			vals = append(vals, v)
		}
		for _, v := range vals {
			c, ok := withValue(t, p.Name, v)
			if !ok {
				continue
			}
			err := unit(&c)
			if err == nil {
				t.Errorf("%s = %s, outside %s: the unit's Validate accepts it", p.Name, v, p.Range)
			} else if want := p.Name + " = " + p.Range.FormatInt(v) + ": want " + p.Range.String(); same && err.Error() != want {
				t.Errorf("%s = %s: the unit's Validate says %q, the run %q", p.Name, v, err, want)
			}
		}
	}
}

// TestKeysAreFlags: a parameter's key, dotted, is its name and its flag
// (with - for _), and a file of the old layout, with the model's
// parameters under [model], still reads (every key of that layout:
// TestOlderLayout).
func TestKeysAreFlags(t *testing.T) {
	c := Default()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetNormalizeFunc(NormalizeFlag)
	c.RegisterFlags(fs)
	for _, p := range c.Params() {
		if strings.HasPrefix(p.Name, "model.") {
			t.Errorf("%s: a name with the model. prefix", p.Name)
		}
		if fs.Lookup(FlagName(p.Name)) == nil || fs.Lookup(p.Name) == nil {
			t.Errorf("%s: no flag --%s (nor --%s)", p.Name, FlagName(p.Name), p.Name)
		}
	}
	if err := fs.Parse([]string{"--mkc-cache.ways", "8", "--pcie.link_latency_cycles", "9", "--overlap-invalidate"}); err != nil {
		t.Fatal(err)
	}
	if c.Model.MKCCache.Ways != 8 || c.Model.PCIe.LinkLatencyCycles != 9 || !c.Model.OverlapInvalidate {
		t.Fatalf("flags set %+v", c.Model)
	}
	dir := t.TempDir()
	for _, text := range []string{"clock_ps = 2000\n[mkc_cache]\nways = 2\n", "[model]\nclock_ps = 2000\n[model.mkc_cache]\nways = 2\n"} {
		f := filepath.Join(dir, "c.toml")
		os.WriteFile(f, []byte(text), 0o644)
		c, err := Load(f)
		if err != nil || c.Model.ClockPS != 2000 || c.Model.MKCCache.Ways != 2 {
			t.Errorf("%q: %v, clock_ps %d, ways %d", text, err, c.Model.ClockPS, c.Model.MKCCache.Ways)
		}
	}
	// A file read after the flags yields to them (Overlay).
	f := filepath.Join(dir, "c.toml")
	file, _ := Load(f)
	if err := file.Overlay(fs); err != nil || file.Model.MKCCache.Ways != 8 || file.Model.ClockPS != 2000 {
		t.Fatalf("overlay: %v, ways %d (want the flag's 8), clock_ps %d (the file's)", err, file.Model.MKCCache.Ways, file.Model.ClockPS)
	}
}

// olderDefaults is the defaults file of the older layout, as the last
// version that wrote it wrote it ('mkeysim config -defaults' at the
// commit before b6191a5, its comments left out): every key of that
// layout, the model's under [model].
const olderDefaults = `[model]
clock_ps = 4000
rob_entries = 64
fifo_depth = 4
stage_latency = 1
overlap_invalidate = false
cmd_latency = 20

[model.mkc_cache]
sets = 128
ways = 4
replacement = "lru"
seed = 1
mshrs = 16
loop_mshrs = 2
targets = 8
loop_targets = 1
icm_base = 0x0

[model.mtt.cache]
sets = 64
ways = 4

[model.mtt]
walkers = 8

[model.klm.cache]
sets = 32
ways = 4

[model.klm]
contexts = 16
nested_contexts = 8
max_indirection = 4
cursors = 16

[model.pcie]
tags = 32
max_read_request = 512
max_payload = 256
rcb = 64
split_on_all_rcb = false
requester_id = 0x0
completer_id = 0x0
link_latency_cycles = 75
link_bytes_per_cycle = 32
host_latency_cycles = 20

[workload]
seed = 1
keys = 1024
accesses = 100000
umr_per_mille = 3
inval_per_mille = 2
resume_per_mille = 2
query_per_mille = 1
bad_per_mille = 50
hot_keys = 128
hot_per_mille = 800
`

// TestOlderLayout (issue 46, item 5): a file of the older layout, the
// model's parameters under [model] as every version before the flat
// layout wrote them, reads as the model it described then. Its defaults
// file is today's defaults, and each of its keys, set alone, sets
// today's parameter it became: renamed (pcie.host_latency_cycles is
// pcie.icm_latency_cycles), sized otherwise (the MTT and KLM caches'
// sets x ways lines of 8 or 4 entries are their entries) or counted
// otherwise (mkc_cache.mshrs counted the loop's MSHRs too). Today's keys
// under [model] keep today's meaning. An unknown key, in either layout,
// is refused naming the file, the line and the key; so is a bad value
// of an older key, with the range it had, and an older key beside the
// one that replaced it.
func TestOlderLayout(t *testing.T) {
	dir := t.TempDir()
	load := func(body string) (Config, string, error) {
		f := filepath.Join(dir, "old.toml")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(f)
		return c, f, err
	}
	c, _, err := load(olderDefaults)
	def := Default()
	if err != nil || string(c.JSON()) != string(def.JSON()) {
		t.Fatalf("the older layout's defaults: %v\n%s\nwant today's\n%s", err, c.JSON(), def.JSON())
	}

	cases := []struct {
		body string
		want map[string]string // parameters and their values; the others keep their defaults
	}{
		{"[model]\nclock_ps = 2000\n", map[string]string{"clock_ps": "2000"}},
		{"[model]\nrob_entries = 32\n", map[string]string{"rob_entries": "32"}},
		{"[model]\nfifo_depth = 8\n", map[string]string{"fifo_depth": "8"}},
		{"[model]\nstage_latency = 2\n", map[string]string{"stage_latency": "2"}},
		{"[model]\noverlap_invalidate = true\n", map[string]string{"overlap_invalidate": "true"}},
		{"[model]\ncmd_latency = 40\n", map[string]string{"cmd_latency": "40"}},
		{"[model.mkc_cache]\nsets = 64\n", map[string]string{"mkc_cache.sets": "64"}},
		{"[model.mkc_cache]\nways = 8\n", map[string]string{"mkc_cache.ways": "8"}},
		{"[model.mkc_cache]\nreplacement = \"random\"\n", map[string]string{"mkc_cache.replacement": "random"}},
		{"[model.mkc_cache]\nseed = 7\n", map[string]string{"mkc_cache.seed": "7"}},
		// mshrs counted the loop's too: 32 of them, 2 the loop's.
		{"[model.mkc_cache]\nmshrs = 32\n", map[string]string{"mkc_cache.mshrs": "30", "mkc_cache.loop_mshrs": "2"}},
		{"[model.mkc_cache]\nloop_mshrs = 4\n", map[string]string{"mkc_cache.mshrs": "12", "mkc_cache.loop_mshrs": "4"}},
		{"[model.mkc_cache]\nmshrs = 32\nloop_mshrs = 4\n", map[string]string{"mkc_cache.mshrs": "28", "mkc_cache.loop_mshrs": "4"}},
		{"[model.mkc_cache]\nmshrs = 1024\nloop_mshrs = 1\n", map[string]string{"mkc_cache.mshrs": "1023", "mkc_cache.loop_mshrs": "1"}},
		{"[model.mkc_cache]\ntargets = 16\n", map[string]string{"mkc_cache.targets": "16"}},
		{"[model.mkc_cache]\nloop_targets = 2\n", map[string]string{"mkc_cache.loop_targets": "2"}},
		{"[model.mkc_cache]\nicm_base = 0x40000000\n", map[string]string{"mkc_cache.icm_base": "1073741824"}},
		// sets x ways lines of 8 MTT entries; 64 sets, 4 ways when not given.
		{"[model.mtt.cache]\nsets = 128\n", map[string]string{"mtt.cache.entries": "4096", "mtt.cache.entries_per_line": "8", "mtt.cache.ways": "4"}},
		{"[model.mtt.cache]\nways = 8\n", map[string]string{"mtt.cache.entries": "4096", "mtt.cache.ways": "8"}},
		{"[model.mtt.cache]\nsets = 16\nways = 2\n", map[string]string{"mtt.cache.entries": "256", "mtt.cache.ways": "2"}},
		{"[model.mtt.cache]\nsets = 1048576\nways = 1\n", map[string]string{"mtt.cache.entries": "8388608", "mtt.cache.ways": "1"}},
		{"[model.mtt]\nwalkers = 4\n", map[string]string{"mtt.walkers": "4"}},
		// ... of 4 KLM entries; 32 sets, 4 ways when not given.
		{"[model.klm.cache]\nsets = 64\n", map[string]string{"klm.cache.entries": "1024", "klm.cache.entries_per_line": "4", "klm.cache.ways": "4"}},
		{"[model.klm.cache]\nways = 2\n", map[string]string{"klm.cache.entries": "256", "klm.cache.ways": "2"}},
		{"[model.klm]\ncontexts = 32\n", map[string]string{"klm.contexts": "32"}},
		{"[model.klm]\nnested_contexts = 4\n", map[string]string{"klm.nested_contexts": "4"}},
		{"[model.klm]\nmax_indirection = 2\n", map[string]string{"klm.max_indirection": "2"}},
		{"[model.klm]\ncursors = 0\n", map[string]string{"klm.cursors": "0"}},
		{"[model.pcie]\ntags = 64\n", map[string]string{"pcie.tags": "64"}},
		{"[model.pcie]\nmax_read_request = 256\n", map[string]string{"pcie.max_read_request": "256"}},
		{"[model.pcie]\nmax_payload = 128\n", map[string]string{"pcie.max_payload": "128"}},
		{"[model.pcie]\nrcb = 128\n", map[string]string{"pcie.rcb": "128"}},
		{"[model.pcie]\nsplit_on_all_rcb = true\n", map[string]string{"pcie.split_on_all_rcb": "true"}},
		{"[model.pcie]\nrequester_id = 0x100\n", map[string]string{"pcie.requester_id": "256"}},
		{"[model.pcie]\ncompleter_id = 0x8\n", map[string]string{"pcie.completer_id": "8"}},
		{"[model.pcie]\nlink_latency_cycles = 100\n", map[string]string{"pcie.link_latency_cycles": "100"}},
		{"[model.pcie]\nlink_bytes_per_cycle = 16\n", map[string]string{"pcie.link_bytes_per_cycle": "16"}},
		// The host's latency was the ICM reads' (there was no data path).
		{"[model.pcie]\nhost_latency_cycles = 50\n", map[string]string{"pcie.icm_latency_cycles": "50", "pcie.data_latency_cycles": "20"}},
		{"[workload]\nseed = 5\n", map[string]string{"workload.seed": "5"}},
		{"[workload]\nkeys = 512\n", map[string]string{"workload.keys": "512"}},
		{"[workload]\naccesses = 5000\n", map[string]string{"workload.accesses": "5000"}},
		{"[workload]\numr_per_mille = 10\n", map[string]string{"workload.umr_per_mille": "10"}},
		{"[workload]\ninval_per_mille = 5\n", map[string]string{"workload.inval_per_mille": "5"}},
		{"[workload]\nresume_per_mille = 4\n", map[string]string{"workload.resume_per_mille": "4"}},
		{"[workload]\nquery_per_mille = 2\n", map[string]string{"workload.query_per_mille": "2"}},
		{"[workload]\nbad_per_mille = 20\n", map[string]string{"workload.bad_per_mille": "20"}},
		{"[workload]\nhot_keys = 64\n", map[string]string{"workload.hot_keys": "64"}},
		{"[workload]\nhot_per_mille = 500\n", map[string]string{"workload.hot_per_mille": "500"}},
		// Today's keys under [model] mean what they mean today.
		{"[model.mtt.cache]\nentries = 4096\nways = 8\n", map[string]string{"mtt.cache.entries": "4096", "mtt.cache.ways": "8"}},
		{"[model.mtt.cache]\nways = 8\n[mtt.cache]\nentries = 1024\n", map[string]string{"mtt.cache.entries": "1024", "mtt.cache.ways": "8"}},
		{"[model.klm.cache]\nentries_per_line = 8\nways = 0\n", map[string]string{"klm.cache.entries": "512", "klm.cache.entries_per_line": "8", "klm.cache.ways": "0"}},
		{"[model.mkc_cache]\nloop_mshrs = 4\n[mkc_cache]\nmshrs = 20\n", map[string]string{"mkc_cache.mshrs": "20", "mkc_cache.loop_mshrs": "4"}},
		{"[model.pcie]\nicm_latency_cycles = 30\ndata_latency_cycles = 40\n", map[string]string{"pcie.icm_latency_cycles": "30", "pcie.data_latency_cycles": "40"}},
		{"[model.data]\nenabled = true\n", map[string]string{"data.enabled": "true"}},
		{"[model.hca_cap]\nats = true\n", map[string]string{"hca_cap.ats": "true"}},
	}
	gives := map[string]bool{} // the keys the cases give
	for _, tc := range cases {
		var raw map[string]any
		md, err := toml.Decode(tc.body, &raw)
		if err != nil {
			t.Fatalf("%q: %v", tc.body, err)
		}
		for _, k := range md.Keys() {
			gives[k.String()] = true
		}
		c, _, err := load(tc.body)
		if err != nil {
			t.Errorf("%q: %v", tc.body, err)
			continue
		}
		for _, p := range c.Params() {
			want, ok := tc.want[p.Name]
			if !ok {
				want = param(t, &def, p.Name).String()
			}
			if got := p.String(); got != want {
				t.Errorf("%q: %s = %s, want %s", tc.body, p.Name, got, want)
			}
		}
	}
	var raw map[string]any
	md, _ := toml.Decode(olderDefaults, &raw)
	for _, k := range md.Keys() {
		if _, isTable := lookup(raw, k).(map[string]any); !isTable && !gives[k.String()] {
			t.Errorf("no case sets %s, a key of the older layout", k)
		}
	}

	for _, tc := range []struct{ body, want string }{
		{"[model.mtt.cache]\nsets = 64\nwayz = 4\n", `line 3: unknown parameter "model.mtt.cache.wayz" (see 'mkeysim config --defaults')`},
		{"[model.pcie]\nhost_latency = 5\n", `line 2: unknown parameter "model.pcie.host_latency" (see 'mkeysim config --defaults')`},
		{"[model]\n\n[model.mkc_cache]\nways = 2\n[model.mtt]\nwalkerz = 2\n", `line 6: unknown parameter "model.mtt.walkerz" (see 'mkeysim config --defaults')`},
		{"clock_ps = 1\n[pcie]\ntagz = 1\n", `line 3: unknown parameter "pcie.tagz" (see 'mkeysim config --defaults')`},
		{"[workload]\naccesses = 5\n[wrkload]\n", `line 3: unknown parameter "wrkload" (see 'mkeysim config --defaults')`},
		// Today's layout never had the older keys.
		{"[mtt.cache]\nsets = 64\n", `line 2: unknown parameter "mtt.cache.sets": the MTT cache is sized in entries now: mtt.cache.entries = sets x ways x 8 (mtt.cache.entries_per_line)`},
		{"[klm.cache]\nsets = 32\n", `line 2: unknown parameter "klm.cache.sets": the KLM cache is sized in entries now`},
		{"[pcie]\nhost_latency_cycles = 5\n", `line 2: unknown parameter "pcie.host_latency_cycles": the host latency is pcie.icm_latency_cycles now`},
		{"[model.klm]\nloop_credits = 4\n", `line 2: unknown parameter "model.klm.loop_credits": the KLM walker has no loop credits: a child reserves a context one level down, of klm.nested_contexts`},
		// The older keys' values, in the ranges they had.
		{"[model.mtt.cache]\nsets = 48\n", "line 2: model.mtt.cache.sets = 48: want power of two in 1..2^20"},
		{"[model.klm.cache]\nsets = \"x\"\n", `line 2: model.klm.cache.sets = "x": want an integer in power of two in 1..2^20`},
		{"[model.pcie]\nhost_latency_cycles = 0\n", "line 2: model.pcie.host_latency_cycles = 0: want 1..2^16"},
		{"[model.mkc_cache]\nmshrs = 1025\n", "line 2: model.mkc_cache.mshrs = 1025: want 2..1024"},
		{"[model.mkc_cache]\nmshrs = 4\nloop_mshrs = 4\n", "line 2: model.mkc_cache.mshrs = 4: want more than loop_mshrs = 4 (in the [model] layout, mshrs counts the loop's MSHRs too)"},
		{"[model.mkc_cache]\nloop_mshrs = 16\n", "line 2: model.mkc_cache.loop_mshrs = 16: want fewer than mshrs, 16 when not given (in the [model] layout, mshrs counts the loop's MSHRs too)"},
		{"[model.mtt.cache]\nsets = 1048576\nways = 2\n", "line 2: model.mtt.cache.sets x ways = 1048576 x 2 lines: want at most 2^20"},
		{"[model.klm.cache]\nways = 0\n", "line 2: model.klm.cache.ways = 0: want 1..64 in the [model] layout, sets x ways lines (0, fully associative, is klm.cache.ways with klm.cache.entries)"},
		// An older key beside the one that replaced it.
		{"[model.mtt.cache]\nsets = 64\nentries = 2048\n", "line 2: model.mtt.cache.sets and model.mtt.cache.entries: give one (model.mtt.cache.sets is the older [model] layout's key, model.mtt.cache.entries today's)"},
		{"[klm.cache]\nentries_per_line = 2\n[model.klm.cache]\nsets = 64\n", "line 4: model.klm.cache.sets and klm.cache.entries_per_line: give one"},
		{"[model.pcie]\nhost_latency_cycles = 30\n[pcie]\nicm_latency_cycles = 30\n", "line 2: model.pcie.host_latency_cycles and pcie.icm_latency_cycles: give one"},
		{"[model.mkc_cache]\nmshrs = 16\n[mkc_cache]\nmshrs = 14\n", "line 2: model.mkc_cache.mshrs and mkc_cache.mshrs: give one"},
	} {
		_, f, err := load(tc.body)
		if err == nil || !strings.HasPrefix(err.Error(), f+": "+tc.want) {
			t.Errorf("%q: %v, want %q", tc.body, err, f+": "+tc.want)
		}
	}
}

// TestIntegersWrittenAsFloats (issue 46, item 6): an integer parameter
// takes an integer written as a float, in a file (1e3, 1000.0, as TOML
// writes floats) and in a flag, as that integer, checked against its
// range as any; a float that is not an integer is refused, naming the
// value as the file writes it. So for every integer parameter.
func TestIntegersWrittenAsFloats(t *testing.T) {
	dir := t.TempDir()
	load := func(body string) (Config, string, error) {
		f := filepath.Join(dir, "f.toml")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(f)
		return c, f, err
	}
	for _, tc := range []struct {
		body, param, want string // want: the parameter's value, or the error after the file's name
	}{
		{"[workload]\naccesses = 1e3\n", "workload.accesses", "1000"},
		{"[workload]\naccesses = 1E3\n", "workload.accesses", "1000"},
		{"[workload]\naccesses = 1000.0\n", "workload.accesses", "1000"},
		{"[workload]\naccesses = 2.5e3\n", "workload.accesses", "2500"},
		{"[workload]\naccesses = 1_000.0\n", "workload.accesses", "1000"},
		{"[workload]\naccesses = 0.0\n", "workload.accesses", "0"},
		{"[workload]\naccesses = 1e7\n", "workload.accesses", "10000000"},
		{"[workload]\nseed = -1e3\n", "workload.seed", "-1000"},
		{"[mkc_cache]\nseed = 1e19\n", "mkc_cache.seed", "10000000000000000000"},
		{"[mkc_cache]\nicm_base = 1.073741824e9\n", "mkc_cache.icm_base", "1073741824"},
		{"[model.pcie]\ntags = 6.4e1\n", "pcie.tags", "64"},
		{"clock_ps = 2e3\n", "clock_ps", "2000"},
		{"[workload]\naccesses = 1.5\n", "", "line 2: workload.accesses = 1.5: want an integer in 0..10_000_000"},
		{"[workload]\naccesses = 1.50\n", "", "line 2: workload.accesses = 1.50: want an integer in 0..10_000_000"},
		{"[workload]\n\naccesses = 15e-1\n", "", "line 3: workload.accesses = 15e-1: want an integer in 0..10_000_000"},
		{"[workload]\naccesses = 1e-9\n", "", "line 2: workload.accesses = 1e-9: want an integer in 0..10_000_000"},
		{"[workload]\naccesses = inf\n", "", "line 2: workload.accesses = inf: want an integer in 0..10_000_000"},
		{"[workload]\naccesses = nan\n", "", "line 2: workload.accesses = nan: want an integer in 0..10_000_000"},
		{"[workload]\naccesses = 1e8\n", "", "line 2: workload.accesses = 1e8: want 0..10_000_000"},
		{"[workload]\naccesses = -1e0\n", "", "line 2: workload.accesses = -1e0: want 0..10_000_000"},
		{"[pcie]\nrequester_id = 6.5536e4\n", "", "line 2: pcie.requester_id = 6.5536e4: want 0..0xffff"},
		{"clock_ps = 1e300\n", "", "line 1: clock_ps = 1e300: want 1..1000000"},
		{"[model.pcie]\ntags = 6.45e1 # a comment\n", "", "line 2: model.pcie.tags = 6.45e1: want an integer in 1..768"},
		{"[workload]\naccesses = 1e3\nwarmup_accesses = 1e3\n", "", "workload.warmup_accesses = 1000: want fewer than accesses = 1000 (nothing would be measured)"},
	} {
		c, f, err := load(tc.body)
		if tc.param == "" {
			if err == nil || err.Error() != f+": "+tc.want {
				t.Errorf("%q: %v, want %q", tc.body, err, f+": "+tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.body, err)
		} else if got := param(t, &c, tc.param).String(); got != tc.want {
			t.Errorf("%q: %s = %s, want %s", tc.body, tc.param, got, tc.want)
		}
	}

	// Every integer parameter: its default as a float reads as it; with a
	// half added, it is refused.
	def := Default()
	for _, p := range def.Params() {
		if k := p.v.Kind(); !isInt(k) && !isUint(k) {
			continue
		}
		sec, key := "", p.Name
		if i := strings.LastIndex(p.Name, "."); i >= 0 {
			sec, key = "["+p.Name[:i]+"]\n", p.Name[i+1:]
		}
		d := rtl.IntOf(p.v).String()
		lits := []string{d + ".0", d + "e0"}
		if d != "0" {
			lits = append(lits, d+"0e-1")
		}
		for _, lit := range lits {
			c, _, err := load(sec + key + " = " + lit + "\n")
			if err != nil || param(t, &c, p.Name).String() != p.String() {
				t.Errorf("%s = %s: %v, %s; want %s", p.Name, lit, err, param(t, &c, p.Name), p)
			}
		}
		_, f, err := load(sec + key + " = " + d + ".5\n")
		want := fmt.Sprintf("%s: line %d: %s = %s.5: want an integer in %s", f, strings.Count(sec, "\n")+1, p.Name, d, p.Range)
		if err == nil || err.Error() != want {
			t.Errorf("%s = %s.5: %v, want %q", p.Name, d, err, want)
		}
	}

	// Flags take them as the file does.
	for _, tc := range []struct {
		args        []string
		param, want string
	}{
		{[]string{"--workload.accesses", "1e3"}, "workload.accesses", "1000"},
		{[]string{"--workload.accesses=2.5e3"}, "workload.accesses", "2500"},
		{[]string{"--workload.seed", "-1e3"}, "workload.seed", "-1000"},
		{[]string{"--mkc-cache.seed", "1e19"}, "mkc_cache.seed", "10000000000000000000"},
		{[]string{"--pcie.tags", "0x1p6"}, "pcie.tags", "64"},
		{[]string{"--workload.accesses", "1.5"}, "", `workload.accesses = "1.5": want an integer in 0..10_000_000`},
		{[]string{"--workload.accesses", "1e-2000000000"}, "", `workload.accesses = "1e-2000000000": want an integer in 0..10_000_000`},
		{[]string{"--workload.accesses", "inf"}, "", `workload.accesses = "inf": want an integer in 0..10_000_000`},
		{[]string{"--pcie.requester-id", "6.5536e4"}, "", `pcie.requester_id = "6.5536e4": want an unsigned integer in 0..0xffff`},
		{[]string{"--workload.seed", "-9223372036854775809"}, "", `workload.seed = "-9223372036854775809": want an integer`},
		{[]string{"--workload.seed", "-9.223372036854775809e18"}, "", `workload.seed = "-9.223372036854775809e18": want an integer`},
	} {
		c := Default()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.SetNormalizeFunc(NormalizeFlag)
		c.RegisterFlags(fs)
		err := fs.Parse(tc.args)
		switch {
		case tc.param == "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		case tc.param != "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.param != "" && param(t, &c, tc.param).String() != tc.want:
			t.Errorf("%q: %s = %s, want %s", tc.args, tc.param, param(t, &c, tc.param), tc.want)
		}
	}
}

// TestReadLeavesRulesToValidate: Read checks a file's keys and values but
// not the rules between parameters (a sweep's base may leave
// workload.trace_file to its axis); Load checks them too.
func TestReadLeavesRulesToValidate(t *testing.T) {
	f := filepath.Join(t.TempDir(), "trace.toml")
	os.WriteFile(f, []byte("[workload]\nkind = \"trace\"\n"), 0o644)
	if c, err := Read(f, ""); err != nil || c.Workload.Kind != "trace" {
		t.Errorf("Read: %v, kind %q", err, c.Workload.Kind)
	}
	want := f + `: workload.trace_file = "": want the path of the trace to replay (workload.kind = trace)`
	if _, err := Load(f); err == nil || err.Error() != want {
		t.Errorf("Load: %v, want %q", err, want)
	}
	os.WriteFile(f, []byte("[workload]\nkind = \"trace\"\naccesses = 1.5\n"), 0o644)
	if _, err := Read(f, ""); err == nil || err.Error() != f+": line 3: workload.accesses = 1.5: want an integer in 0..10_000_000" {
		t.Errorf("Read of a bad value: %v", err)
	}
}

// TestRealParams: a real parameter (workload.zipf_s) takes a number in its
// range from a file (with decimals or without) and from a flag, and
// refuses anything else naming the key, the value and the range.
func TestRealParams(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		body string
		want float64
		err  string
	}{
		{"[workload]\nzipf_s = 1.2\n", 1.2, ""},
		{"[workload]\nzipf_s = 2\n", 2, ""},
		{"[workload]\nzipf_s = 0.01\n", 0.01, ""},
		{"[workload]\nzipf_s = 10\n", 10, ""},
		{"[workload]\nzipf_s = 0.001\n", 0, "line 2: workload.zipf_s = 0.001: want real in 0.01..10"},
		{"[workload]\nzipf_s = 11\n", 0, "line 2: workload.zipf_s = 11: want real in 0.01..10"},
		{"[workload]\nzipf_s = \"x\"\n", 0, `line 2: workload.zipf_s = "x": want a number in 0.01..10`},
		{"[workload]\nzipf_s = nan\n", 0, "line 2: workload.zipf_s = NaN: want real in 0.01..10"},
	} {
		f := filepath.Join(dir, "z.toml")
		os.WriteFile(f, []byte(c.body), 0o644)
		cfg, err := Load(f)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.err == "" && cfg.Workload.ZipfS != c.want:
			t.Errorf("%q: zipf_s %v, want %v", c.body, cfg.Workload.ZipfS, c.want)
		case c.err != "" && (err == nil || err.Error() != f+": "+c.err):
			t.Errorf("%q: %v, want %q", c.body, err, f+": "+c.err)
		}
	}
	for _, c := range []struct {
		arg, err string
		want     float64
	}{
		{"1.5", "", 1.5},
		{"1e-1", "", 0.1},
		{"x", `workload.zipf_s = "x": want a number in 0.01..10`, 0},
		{"Inf", `workload.zipf_s = "Inf": want a number in 0.01..10`, 0},
		{"20", "workload.zipf_s = 20: want real in 0.01..10", 0},
	} {
		cfg := Default()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.SetNormalizeFunc(NormalizeFlag)
		cfg.RegisterFlags(fs)
		err := fs.Parse([]string{"--workload.zipf-s", c.arg})
		if err == nil {
			err = cfg.Validate()
		}
		switch {
		case c.err == "" && (err != nil || cfg.Workload.ZipfS != c.want):
			t.Errorf("--workload.zipf-s %s: %v, zipf_s %v", c.arg, err, cfg.Workload.ZipfS)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("--workload.zipf-s %s: %v, want %q", c.arg, err, c.err)
		}
	}
}

// TestHCACapATS (issue 36): the device's ATS capability is hca_cap.ats,
// false by default, set by [hca_cap] ats = true in the file and by
// --hca-cap.ats (bare, =true, =false, or spelt --hca_cap.ats), the flag
// winning over the file; the commented defaults file lists it.
func TestHCACapATS(t *testing.T) {
	if Default().Model.HCACap.ATS {
		t.Fatal("hca_cap.ats is on by default")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "ats.toml")
	os.WriteFile(f, []byte("[hca_cap]\nats = true\n"), 0o644)
	c, err := Load(f)
	if err != nil || !c.Model.HCACap.ATS {
		t.Fatalf("[hca_cap] ats = true: %v, ats %v", err, c.Model.HCACap.ATS)
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--hca-cap.ats"}, true},
		{[]string{"--hca-cap.ats=true"}, true},
		{[]string{"--hca_cap.ats=true"}, true},
		{[]string{"--hca-cap.ats=false"}, false},
		{nil, false},
	} {
		c := Default()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetNormalizeFunc(NormalizeFlag)
		c.RegisterFlags(fs)
		if err := fs.Parse(tc.args); err != nil || c.Model.HCACap.ATS != tc.want {
			t.Errorf("%q: %v, ats %v, want %v", tc.args, err, c.Model.HCACap.ATS, tc.want)
		}
		// Over a file that turns it on, the flag given wins.
		file, _ := Load(f)
		if err := file.Overlay(fs); err != nil || file.Model.HCACap.ATS != (tc.want || tc.args == nil) {
			t.Errorf("%q over the file: %v, ats %v", tc.args, err, file.Model.HCACap.ATS)
		}
	}
	var b bytes.Buffer
	def := Default()
	def.WriteDefaults(&b)
	if !strings.Contains(b.String(), "\n[hca_cap]\n# the device does PCIe Address Translation Services") || !strings.Contains(b.String(), "\nats = false\n") {
		t.Errorf("the defaults file does not list [hca_cap] ats:\n%s", b.String())
	}
}
