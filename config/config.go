// Package config is the one configuration of a run: the clocked model's
// parameters and the default workload, read from a TOML file and
// overridden by flags. Every parameter is a leaf of Config with a `toml`
// name and a `help` text; flags, the commented defaults file and the
// statistics' config echo are all derived from those tags, so a new
// parameter needs no other code.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"mkeysim/rtl"
	"mkeysim/tb"
)

// Config is everything a run can set.
type Config struct {
	Model    rtl.Config  `toml:"model" json:"model"`
	Workload tb.Workload `toml:"workload" json:"workload"`
}

// Default is the configuration in force when nothing is set.
func Default() Config {
	return Config{Model: rtl.DefaultConfig(), Workload: tb.DefaultWorkload()}
}

// Validate names the first bad parameter.
func (c *Config) Validate() error {
	if err := c.Model.Validate(); err != nil {
		return err
	}
	w := c.Workload
	switch {
	case w.Keys < 8 || w.Keys > 1<<24-2:
		return fmt.Errorf("workload.keys = %d: want 8..16777214", w.Keys)
	case w.Accesses < 0:
		return fmt.Errorf("workload.accesses = %d: want >= 0", w.Accesses)
	case w.UMRPerMille < 0 || w.InvalPerMille < 0 || w.QueryPerMille < 0 || w.UMRPerMille+w.InvalPerMille+w.QueryPerMille > 1000:
		return fmt.Errorf("workload: umr_per_mille + inval_per_mille + query_per_mille = %d: want 0..1000", w.UMRPerMille+w.InvalPerMille+w.QueryPerMille)
	case w.HotKeys < 0 || w.HotPerMille < 0 || w.HotPerMille > 1000:
		return fmt.Errorf("workload: hot_keys = %d, hot_per_mille = %d: want hot_keys >= 0 and hot_per_mille 0..1000", w.HotKeys, w.HotPerMille)
	case w.ResumePerMille < 0 || w.ResumePerMille > 1000:
		return fmt.Errorf("workload.resume_per_mille = %d: want 0..1000", w.ResumePerMille)
	case w.BadPerMille < 0 || w.BadPerMille > 1000:
		return fmt.Errorf("workload.bad_per_mille = %d: want 0..1000", w.BadPerMille)
	}
	return nil
}

// Load reads a TOML file over the defaults. Unknown keys are errors naming
// the file and the key.
func Load(path string) (Config, error) {
	c := Default()
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return c, fmt.Errorf("%s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return c, fmt.Errorf("%s: %v", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return c, fmt.Errorf("%s: unknown parameter %q (see 'mkeysim config --defaults')", path, und[0].String())
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %v", path, err)
	}
	return c, nil
}

// Param is one leaf parameter: its dotted name, help text and place.
type Param struct {
	Name string
	Help string
	v    reflect.Value
}

// Params lists every parameter of c, in declaration order.
func (c *Config) Params() []Param {
	var out []Param
	walk(reflect.ValueOf(c).Elem(), "", &out)
	return out
}

func walk(v reflect.Value, prefix string, out *[]Param) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("toml"), ",")[0]
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		full := prefix + name
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct {
			walk(fv, full+".", out)
			continue
		}
		*out = append(*out, Param{Name: full, Help: f.Tag.Get("help"), v: fv})
	}
}

// String is the parameter's value as a flag shows it.
func (p Param) String() string {
	if !p.v.IsValid() {
		return ""
	}
	return fmt.Sprint(p.v.Interface())
}

// Set parses s into the parameter, naming it on error.
func (p Param) Set(s string) error {
	switch p.v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 0, p.v.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s = %q: want an integer", p.Name, s)
		}
		p.v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 0, p.v.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s = %q: want an unsigned integer", p.Name, s)
		}
		p.v.SetUint(n)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%s = %q: want true or false", p.Name, s)
		}
		p.v.SetBool(b)
	case reflect.String:
		p.v.SetString(s)
	default:
		return fmt.Errorf("%s: cannot be set from a flag", p.Name)
	}
	return nil
}

// IsBoolFlag lets boolean parameters be given as a bare flag.
func (p Param) IsBoolFlag() bool { return p.v.IsValid() && p.v.Kind() == reflect.Bool }

// RegisterFlags adds one flag per parameter (-mkc_cache.ways 8 style,
// without the model. prefix) to fs, writing into c.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	for _, p := range c.Params() {
		fs.Var(p, strings.TrimPrefix(p.Name, "model."), p.Help)
	}
}

// WriteDefaults writes c as a TOML file with a comment per parameter.
func (c *Config) WriteDefaults(w *bytes.Buffer) {
	w.WriteString("# mkeysim configuration: every parameter with its default.\n")
	w.WriteString("# Use with 'mkeysim run --config FILE'; any parameter can also be set by a flag\n")
	w.WriteString("# named like its key without the 'model.' prefix, e.g. --mkc_cache.ways 8.\n")
	section := ""
	for _, p := range c.Params() {
		i := strings.LastIndex(p.Name, ".")
		sec, key := p.Name[:i], p.Name[i+1:]
		if sec != section {
			fmt.Fprintf(w, "\n[%s]\n", sec)
			section = sec
		}
		if p.Help != "" {
			fmt.Fprintf(w, "# %s\n", p.Help)
		}
		switch p.v.Kind() {
		case reflect.String:
			fmt.Fprintf(w, "%s = %q\n", key, p.v.String())
		default:
			fmt.Fprintf(w, "%s = %v\n", key, p.v.Interface())
		}
	}
}

// Map returns every parameter by dotted name, for the statistics file.
func (c *Config) Map() map[string]any {
	m := map[string]any{}
	for _, p := range c.Params() {
		m[p.Name] = p.v.Interface()
	}
	return m
}

// JSON is the parameters as a JSON object with sorted keys.
func (c *Config) JSON() json.RawMessage {
	m := c.Map()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(m[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// FileArg returns the value of -config or --config among command-line
// args (separate or with '='), or "" when there is none: commands read
// the file first, so that the flags parsed after it override it.
func FileArg(args []string) string {
	for i, a := range args {
		switch {
		case a == "-config" || a == "--config":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "-config="):
			return strings.TrimPrefix(a, "-config=")
		case strings.HasPrefix(a, "--config="):
			return strings.TrimPrefix(a, "--config=")
		case a == "--":
			return ""
		}
	}
	return ""
}
