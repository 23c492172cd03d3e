// Package config is the one configuration of a run: the clocked model's
// parameters and the default workload, read from a TOML file and
// overridden by flags. Every parameter is a leaf of Config with a `toml`
// name and a `help` text; flags, the commented defaults file and the
// statistics' config echo are all derived from those tags, so a new
// parameter needs no other code.
package config

import (
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"mkeysim/rtl"
	"mkeysim/tb/stimulus"
)

// Config is everything a run can set. The model's parameters are at the
// top of the file and of the flag names (clock_ps, mkc_cache.ways), the
// workload's under workload. (workload.accesses): a parameter's key, dotted,
// is its name everywhere. The "model" table of files written before is
// still read (model.mkc_cache.ways is mkc_cache.ways), with the keys of
// its time (model.mtt.cache.sets: older).
type Config struct {
	Model    rtl.Config        `toml:"model,flat" json:"model"`
	Workload stimulus.Workload `toml:"workload" json:"workload"`
}

// legacyPrefix is the table the model's parameters were once under.
const legacyPrefix = "model."

// Default is the configuration in force when nothing is set.
func Default() Config {
	return Config{Model: rtl.DefaultConfig(), Workload: stimulus.DefaultWorkload()}
}

// Validate names the first bad parameter, its value and what it may be:
// the model's (rtl.Config.Validate: declared ranges, host memory layout,
// the units' rules), then the workload's ranges and rules
// (stimulus.Workload.Check, which reads a trace workload's file and keeps it in
// c.Workload, so that the run replays it without reading it again).
func (c *Config) Validate() error {
	if err := c.Model.Validate(); err != nil {
		return err
	}
	if err := rtl.CheckRanges(&c.Workload, "workload."); err != nil {
		return err
	}
	// A generated workload carries the mappings of the IOMMU it runs
	// with (issue 36).
	c.Workload.IOMMU = c.Model.IOMMU.Enabled
	w := c.Workload
	if sum := w.UMRPerMille + w.InvalPerMille + w.QueryPerMille; sum > 1000 {
		return fmt.Errorf("workload.umr_per_mille + inval_per_mille + query_per_mille = %d + %d + %d = %d: want at most 1000", w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, sum)
	}
	// The IOMMU knobs need an IOMMU, and ATS keys hca_cap.ats.
	if err := w.CheckPlatform(w.IOMMU, c.Model.HCACap.ATS); err != nil {
		return err
	}
	return c.Workload.Check() // on c's own: a trace workload keeps its file read
}

// Load reads a TOML file over the defaults and validates it. Every error
// names the file; one about a value names its line, its key as the file
// spells it (pcie.tags), the value and the range: a value of the wrong
// type, a negative number for an unsigned parameter or one too wide for
// it is refused, never wrapped; an integer written as a float (1e3,
// 1000.0) is that integer. Unknown keys (spelled in any other case too)
// are errors naming the line and the key. A file of the older layout,
// the model's parameters under [model], is read with the keys of its
// time (older).
func Load(path string) (Config, error) {
	c, err := Read(path, "")
	if err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %v", path, err)
	}
	return c, nil
}

// Read is Load without Validate: every key, and every value's type and
// range, is checked as Load checks them, but not the rules between
// parameters nor a trace workload's file. A sweep reads its base so, for
// its points are what run: each is validated once its axes' values are
// set (the base may leave out the workload.trace_file an axis gives).
// own names a top-level table the caller reads itself ("" for none: a
// sweep file's [sweep]): its keys are not parameters, and are not
// checked here.
func Read(path, own string) (Config, error) {
	c := Default()
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := c.decode(string(data), own); err != nil {
		return c, fmt.Errorf("%s: %v", path, err)
	}
	return c, nil
}

// decode sets the parameters that text gives, keys under the top-level
// table own aside.
func (c *Config) decode(text, own string) error {
	// First the syntax and the keys, against the parameters by exact name
	// (the older layout's own keys among them).
	var o older
	params := map[string]Param{}
	tables := map[string]bool{}
	for _, p := range append(c.params(true), o.params()...) {
		parts := strings.Split(p.Name, ".")
		params[strings.Join(parts, "\x00")] = p
		for i := 1; i < len(parts); i++ {
			tables[strings.Join(parts[:i], "\x00")] = true
		}
	}
	var raw map[string]any
	md, err := toml.Decode(text, &raw)
	if err != nil {
		return tomlError(err, nil, params, text)
	}
	for _, k := range md.Keys() {
		id := strings.Join(k, "\x00")
		if _, ok := params[id]; ok || own != "" && k[0] == own {
			continue
		}
		if !tables[id] {
			if why, ok := Removed(k.String()); ok {
				return fmt.Errorf("%sunknown parameter %q: %s", lineOf(text, k), k.String(), why)
			}
			return fmt.Errorf("%sunknown parameter %q (see 'mkeysim config --defaults')", lineOf(text, k), k.String())
		}
		if v := lookup(raw, k); v != nil {
			if _, ok := v.(map[string]any); !ok {
				return fmt.Errorf("%s%s = %s: want a table of parameters ([%s])", lineOf(text, k), k.String(), tomlValue(v, rtl.Range{}), k.String())
			}
		}
	}
	// Then the values, each through its parameter's setTOML, so that a
	// bad one is reported with its line: today's parameters (but for the
	// older layout's keys that they count otherwise), then the older
	// layout's keys, which set today's parameters last (older.apply).
	today := loader{skip: map[string]bool{}}
	for _, p := range o.params() {
		today.skip[p.Name] = true
	}
	var then loader
	for _, d := range []struct {
		l *loader
		v reflect.Value
	}{{&today, reflect.ValueOf(c).Elem()}, {&then, reflect.ValueOf(&o).Elem()}} {
		m := d.l.mirror(d.v, "")
		if _, err := toml.Decode(text, m.Addr().Interface()); err != nil {
			return tomlError(err, d.l.err, params, text)
		}
	}
	return o.apply(c, md, text)
}
