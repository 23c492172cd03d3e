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
	"fmt"
	"math"
	"math/big"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"

	"mkeysim/rtl"
	"mkeysim/rtl/linecache"
	"mkeysim/tb"
)

// Config is everything a run can set. The model's parameters are at the
// top of the file and of the flag names (clock_ps, mkc_cache.ways), the
// workload's under workload. (workload.accesses): a parameter's key, dotted,
// is its name everywhere. The "model" table of files written before is
// still read (model.mkc_cache.ways is mkc_cache.ways), with the keys of
// its time (model.mtt.cache.sets: older).
type Config struct {
	Model    rtl.Config  `toml:"model,flat" json:"model"`
	Workload tb.Workload `toml:"workload" json:"workload"`
}

// legacyPrefix is the table the model's parameters were once under.
const legacyPrefix = "model."

// Default is the configuration in force when nothing is set.
func Default() Config {
	return Config{Model: rtl.DefaultConfig(), Workload: tb.DefaultWorkload()}
}

// Validate names the first bad parameter, its value and what it may be:
// the model's (rtl.Config.Validate: declared ranges, host memory layout,
// the units' rules), then the workload's ranges and rules
// (tb.Workload.Check, which reads a trace workload's file and keeps it in
// c.Workload, so that the run replays it without reading it again).
func (c *Config) Validate() error {
	if err := c.Model.Validate(); err != nil {
		return err
	}
	if err := rtl.CheckRanges(&c.Workload, "workload."); err != nil {
		return err
	}
	w := c.Workload
	if sum := w.UMRPerMille + w.InvalPerMille + w.QueryPerMille; sum > 1000 {
		return fmt.Errorf("workload.umr_per_mille + inval_per_mille + query_per_mille = %d + %d + %d = %d: want at most 1000", w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, sum)
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

// tomlError words a decoding error of text: its line, then the
// parameter's own error (valueErr) or the parser's message with the key
// it was at.
func tomlError(err, valueErr error, params map[string]Param, text string) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	var fe *floatErr
	switch {
	case errors.As(valueErr, &fe):
		// The value as the file writes it (1.50, 15e-1), which the float
		// read does not keep.
		if at := pe.Position; at.Start >= 0 && at.Len > 0 && at.Start+at.Len <= len(text) {
			if lit := strings.TrimSpace(text[at.Start : at.Start+at.Len]); lit != "" && !strings.ContainsAny(lit, "\n=") {
				fe.value = lit
			}
		}
		return fmt.Errorf("line %d: %v", pe.Position.Line, fe)
	case valueErr != nil:
		return fmt.Errorf("line %d: %v", pe.Position.Line, valueErr)
	case pe.LastKey == "":
		return fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
	}
	if p, ok := params[strings.ReplaceAll(pe.LastKey, ".", "\x00")]; ok && strings.HasSuffix(pe.Message, "is out of range for int64") {
		lit := strings.TrimSuffix(pe.Message, " is out of range for int64")
		return fmt.Errorf("line %d: %s = %s: want %s (a TOML integer is at most 2^63-1)", pe.Position.Line, pe.LastKey, lit, p.Range)
	}
	return fmt.Errorf("line %d: %s: %s", pe.Position.Line, pe.LastKey, pe.Message)
}

// lineOf is "line N: " for the line of key k in text, "" when it cannot
// be told (a key inside an array of tables).
func lineOf(text string, k toml.Key) string {
	// Decode text into a struct that holds k alone, as a locator: the
	// decoder's error then gives the line of k's value.
	t := reflect.TypeOf(locator{})
	for i := len(k) - 1; i >= 0; i-- {
		t = reflect.StructOf([]reflect.StructField{{Name: "K", Type: t, Tag: reflect.StructTag(fmt.Sprintf("toml:%q", k[i]))}})
	}
	_, err := toml.Decode(text, reflect.New(t).Interface())
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Message == errLocated.Error() && pe.Position.Line > 0 {
		return fmt.Sprintf("line %d: ", pe.Position.Line)
	}
	return ""
}

// locator finds a key's line (lineOf): decoding it always fails.
type locator struct{}

// errLocated is locator's error.
var errLocated = errors.New("located")

// UnmarshalTOML refuses every value, so that the decoder says where it is.
func (locator) UnmarshalTOML(any) error { return errLocated }

// lookup finds the value at key k in a decoded TOML table.
func lookup(m map[string]any, k toml.Key) any {
	var v any = m
	for _, part := range k {
		t, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = t[part]
	}
	return v
}

// loader builds, for one decoding, a struct shaped like Config whose
// leaves set the parameters (leaf.UnmarshalTOML), and keeps the first
// value error. The parameters named in skip get no leaf (the older
// layout's keys that another struct reads).
type loader struct {
	err  error
	skip map[string]bool
}

// leaf is a parameter as the TOML decoder sees it.
type leaf struct {
	p Param
	l *loader
}

// UnmarshalTOML sets the parameter from its TOML value.
func (f *leaf) UnmarshalTOML(v any) error {
	if err := f.p.setTOML(v); err != nil {
		f.l.err = err
		return err
	}
	return nil
}

// mirror returns a new value shaped like v (same toml keys) with a leaf
// for every parameter of v, the parameters named from prefix.
func (l *loader) mirror(v reflect.Value, prefix string) reflect.Value {
	t := v.Type()
	var fields []reflect.StructField
	var values []reflect.Value
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := tomlKey(f)
		if key == "" {
			continue
		}
		var x reflect.Value
		if f.Type.Kind() == reflect.Struct && isFlat(f) {
			// Its parameters at this level, and under its key too (the
			// legacy spelling): both set the same parameters.
			flat := l.mirror(v.Field(i), prefix)
			for j := 0; j < flat.NumField(); j++ {
				fields = append(fields, flat.Type().Field(j))
				values = append(values, flat.Field(j))
			}
			x = l.mirror(v.Field(i), prefix+key+".")
		} else if f.Type.Kind() == reflect.Struct {
			x = l.mirror(v.Field(i), prefix+key+".")
		} else if l.skip[prefix+key] {
			continue
		} else {
			x = reflect.ValueOf(leaf{p: newParam(f, prefix+key, v.Field(i)), l: l})
		}
		fields = append(fields, reflect.StructField{Name: f.Name, Type: x.Type(), Tag: reflect.StructTag(fmt.Sprintf("toml:%q", key))})
		values = append(values, x)
	}
	m := reflect.New(reflect.StructOf(fields)).Elem()
	for i, x := range values {
		m.Field(i).Set(x)
	}
	return m
}

// isFlat reports whether a table field's parameters sit at its parent's
// level (toml option "flat").
func isFlat(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return opts == "flat"
}

// tomlKey is the field's TOML key, "" for a field that is not a parameter.
func tomlKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// Param is one leaf parameter: its dotted name, help text (ending with its
// range), declared range and place.
type Param struct {
	Name  string
	Help  string
	Range rtl.Range
	// Why says why the range is what it is, when the field's why tag does
	// (rtl.CheckRanges prints it after the range).
	Why string
	// RangeErr is set when the field declares no valid range (a bug that
	// the tests catch; Validate reports it too).
	RangeErr error
	v        reflect.Value
}

// Params lists every parameter of c, in declaration order.
func (c *Config) Params() []Param { return c.params(false) }

// params lists the parameters, and with legacy each model parameter once
// more under its legacy name (model.clock_ps).
func (c *Config) params(legacy bool) []Param {
	var out []Param
	walk(reflect.ValueOf(c).Elem(), "", legacy, &out)
	return out
}

// Param finds a parameter by its name (pcie.tags, workload.accesses) or
// its legacy name (model.pcie.tags); "-" in a name is read as "_", as on
// the command line (pcie.link-latency-cycles).
func (c *Config) Param(name string) (Param, bool) {
	name = strings.TrimPrefix(strings.ReplaceAll(name, "-", "_"), legacyPrefix)
	for _, p := range c.Params() {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

func walk(v reflect.Value, prefix string, legacy bool, out *[]Param) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := tomlKey(f)
		if name == "" {
			continue
		}
		full := prefix + name
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct && isFlat(f) {
			walk(fv, prefix, false, out)
			if legacy {
				walk(fv, full+".", false, out)
			}
			continue
		}
		if fv.Kind() == reflect.Struct {
			walk(fv, full+".", legacy, out)
			continue
		}
		*out = append(*out, newParam(f, full, fv))
	}
}

func newParam(f reflect.StructField, name string, v reflect.Value) Param {
	p := Param{Name: name, Help: f.Tag.Get("help"), v: v}
	p.Range, p.RangeErr = rtl.RangeOf(f)
	p.Why = f.Tag.Get("why")
	if p.RangeErr == nil {
		p.Help += " [" + p.Range.String() + "]"
	}
	return p
}

// String is the parameter's value as a flag shows it.
func (p Param) String() string {
	if !p.v.IsValid() {
		return ""
	}
	return fmt.Sprint(p.v.Interface())
}

func isInt(k reflect.Kind) bool  { return k >= reflect.Int && k <= reflect.Int64 }
func isUint(k reflect.Kind) bool { return k >= reflect.Uint && k <= reflect.Uint64 }

// Set parses s into the parameter, naming it on error: a value that is not
// of the parameter's type or too wide for it is refused (whether it is in
// the parameter's range is Validate's to say). An integer parameter takes
// an integer written as a float too (1e3, 1000.0), not 1.5.
func (p Param) Set(s string) error {
	k := p.v.Kind()
	switch {
	case isInt(k):
		n, err := strconv.ParseInt(s, 0, p.v.Type().Bits())
		if d := integral(s); err != nil && d != "" {
			n, err = strconv.ParseInt(d, 10, p.v.Type().Bits())
		}
		if err != nil {
			return fmt.Errorf("%s = %s: want an integer in %s", p.Name, rtl.Quote(s), p.Range)
		}
		p.v.SetInt(n)
	case isUint(k):
		n, err := strconv.ParseUint(s, 0, p.v.Type().Bits())
		if d := integral(s); err != nil && d != "" {
			n, err = strconv.ParseUint(d, 10, p.v.Type().Bits())
		}
		if err != nil {
			return fmt.Errorf("%s = %s: want an unsigned integer in %s", p.Name, rtl.Quote(s), p.Range)
		}
		p.v.SetUint(n)
	case k == reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%s = %s: want true or false", p.Name, rtl.Quote(s))
		}
		p.v.SetBool(b)
	case k == reflect.String:
		p.v.SetString(s)
	case k == reflect.Float64 || k == reflect.Float32:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s = %s: want a number in %s", p.Name, rtl.Quote(s), strings.TrimPrefix(p.Range.String(), "real in "))
		}
		p.v.SetFloat(f)
	default:
		return fmt.Errorf("%s: cannot be set from a flag", p.Name)
	}
	return nil
}

// setTOML sets the parameter from a decoded TOML value, which must be of
// its type and in its range.
func (p Param) setTOML(x any) error {
	if p.RangeErr != nil {
		return fmt.Errorf("%s: %v", p.Name, p.RangeErr)
	}
	k := p.v.Kind()
	switch {
	case isInt(k) || isUint(k):
		var b *big.Int
		switch v := x.(type) {
		case int64:
			b = big.NewInt(v)
		case float64:
			// An integer written as a float (1e3, 1000.0) is that
			// integer; any other float is refused, as the file writes it.
			if v != math.Trunc(v) || math.IsInf(v, 0) { // NaN too
				return &floatErr{p.Name, tomlValue(x, p.Range), "want an integer in " + p.Range.String()}
			}
			b, _ = big.NewFloat(v).Int(nil)
			if !p.Range.ContainsInt(b) {
				return &floatErr{p.Name, tomlValue(x, p.Range), "want " + p.Range.String()}
			}
		default:
			return fmt.Errorf("%s = %s: want an integer in %s", p.Name, tomlValue(x, p.Range), p.Range)
		}
		if !p.Range.ContainsInt(b) {
			return fmt.Errorf("%s = %s: want %s", p.Name, p.Range.FormatInt(b), p.Range)
		}
		if isInt(k) {
			p.v.SetInt(b.Int64())
		} else {
			p.v.SetUint(b.Uint64())
		}
	case k == reflect.Bool:
		b, ok := x.(bool)
		if !ok {
			return fmt.Errorf("%s = %s: want true or false", p.Name, tomlValue(x, p.Range))
		}
		p.v.SetBool(b)
	case k == reflect.String:
		s, ok := x.(string)
		if !ok || !p.Range.Contains(reflect.ValueOf(s)) {
			return fmt.Errorf("%s = %s: want %s", p.Name, tomlValue(x, p.Range), p.Range)
		}
		p.v.SetString(s)
	case k == reflect.Float64 || k == reflect.Float32:
		var f float64
		switch v := x.(type) {
		case float64:
			f = v
		case int64:
			f = float64(v)
		default:
			return fmt.Errorf("%s = %s: want a number in %s", p.Name, tomlValue(x, p.Range), strings.TrimPrefix(p.Range.String(), "real in "))
		}
		if !p.Range.Contains(reflect.ValueOf(f)) {
			return fmt.Errorf("%s = %s: want %s", p.Name, tomlValue(x, p.Range), p.Range)
		}
		p.v.SetFloat(f)
	default:
		return fmt.Errorf("%s: cannot be set from a file", p.Name)
	}
	return nil
}

// integral is s, a float with an integer value (1e3, 1000.0), in decimal
// digits; "" when s is not one, or is an integer as written (too wide,
// say: a float would round it).
func integral(s string) string {
	if _, ok := new(big.Int).SetString(s, 0); ok {
		return ""
	}
	f, _, err := big.ParseFloat(s, 0, 512, big.ToNearestEven)
	if err != nil || !f.IsInt() {
		return ""
	}
	// A mantissa that is not 0 with an exponent past big.Float's reads
	// as 0 (1e-2000000000): not an integer.
	m := strings.ToLower(strings.TrimLeft(s, "+-"))
	if strings.HasPrefix(m, "0x") {
		m, _, _ = strings.Cut(m[2:], "p")
	} else {
		m, _, _ = strings.Cut(m, "e")
	}
	if f.Sign() == 0 && strings.ContainsAny(m, "123456789abcdef") {
		return ""
	}
	b, _ := f.Int(nil)
	return b.String()
}

// floatErr refuses a float for an integer parameter: tomlError shows
// the value as the file writes it.
type floatErr struct{ name, value, want string }

// Error reads "NAME = VALUE: WANT".
func (e *floatErr) Error() string { return e.name + " = " + e.value + ": " + e.want }

// tomlValue shows a decoded TOML value in an error: strings quoted (at
// most 64 characters), tables and arrays abbreviated.
func tomlValue(x any, r rtl.Range) string {
	switch v := x.(type) {
	case string:
		return rtl.Quote(v)
	case int64:
		return r.FormatInt(big.NewInt(v))
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case map[string]any:
		return "{…}"
	case []any, []map[string]any:
		return "[…]"
	}
	s := fmt.Sprint(x)
	if utf8.RuneCountInString(s) > rtl.QuoteMax {
		s = string([]rune(s)[:rtl.QuoteMax]) + "…"
	}
	return s
}

// IsBoolFlag lets boolean parameters be given as a bare flag.
func (p Param) IsBoolFlag() bool { return p.v.IsValid() && p.v.Kind() == reflect.Bool }

// FlagName is a parameter's flag: its name with "-" for "_"
// (mkc_cache.ways is --mkc-cache.ways). NormalizeFlag reads either.
func FlagName(param string) string { return strings.ReplaceAll(param, "_", "-") }

// NormalizeFlag makes a flag set read "_" in a flag name as "-", so that
// --mkc_cache.ways, the parameter's own name, works as --mkc-cache.ways.
func NormalizeFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(FlagName(name))
}

// RegisterFlags adds one flag per parameter to fs (--mkc-cache.ways 8,
// FlagName), writing into c. A flag's errors name the parameter.
func (c *Config) RegisterFlags(fs *pflag.FlagSet) {
	for _, p := range c.Params() {
		f := fs.VarPF(p, FlagName(p.Name), "", p.Help)
		if p.IsBoolFlag() {
			f.NoOptDefVal = "true"
		}
	}
}

// Type is the parameter's type as flag help shows it (pflag.Value).
func (p Param) Type() string {
	switch k := p.v.Kind(); {
	case isInt(k):
		return "int"
	case isUint(k):
		return "uint"
	case k == reflect.Bool:
		return "bool"
	case k == reflect.Float64 || k == reflect.Float32:
		return "float"
	}
	return "string"
}

// Overlay sets on c every flag of fs that was given on the command line,
// from its value there: a configuration file read after the flags were
// parsed (--config) then yields to them. fs holds RegisterFlags's flags.
func (c *Config) Overlay(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		p, ok := c.Param(f.Name)
		if !ok || err != nil {
			return
		}
		err = p.Set(f.Value.String())
	})
	return err
}

// WriteDefaults writes c as a TOML file with a comment per parameter
// giving what it does and its range.
func (c *Config) WriteDefaults(w *bytes.Buffer) {
	w.WriteString("# mkeysim configuration: every parameter with its default.\n")
	w.WriteString("# Use with 'mkeysim run --config FILE'. Every parameter is also a flag: its key,\n")
	w.WriteString("# dotted, with - for _ (mkc_cache.ways is --mkc-cache.ways 8).\n")
	w.WriteString("# The range of each parameter is in [brackets] at the end of its comment.\n")
	section := ""
	for _, p := range c.Params() {
		i := strings.LastIndex(p.Name, ".")
		sec, key := "", p.Name
		if i >= 0 {
			sec, key = p.Name[:i], p.Name[i+1:]
		}
		if sec != section {
			fmt.Fprintf(w, "\n[%s]\n", sec)
			section = sec
		}
		if p.Help != "" {
			fmt.Fprintf(w, "# %s\n", p.Help)
		}
		switch k := p.v.Kind(); {
		case k == reflect.String:
			fmt.Fprintf(w, "%s = %q\n", key, p.v.String())
		case (isInt(k) || isUint(k)) && p.RangeErr == nil:
			fmt.Fprintf(w, "%s = %s\n", key, p.Range.FormatInt(rtl.IntOf(p.v)))
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

// removed are parameters that are gone, with what replaced them.
var removed = map[string]string{
	"mtt.cache.sets":           "the MTT cache is sized in entries now: mtt.cache.entries = sets x ways x 8 (mtt.cache.entries_per_line)",
	"klm.cache.sets":           "the KLM cache is sized in entries now: klm.cache.entries = sets x ways x 4 (klm.cache.entries_per_line)",
	"pcie.host_latency_cycles": "the host latency is pcie.icm_latency_cycles now (the walks' and the MKC cache's reads), beside pcie.data_latency_cycles (the data path's)",
	"klm.loop_credits":         "the KLM walker has no loop credits: a child reserves a context one level down, of klm.nested_contexts",
}

// Removed says what replaced a parameter that no longer exists (name as
// in a flag, a sweep or a file of today's layout; a model. prefix is
// dropped: a file of the older layout is read with its keys, older).
func Removed(name string) (string, bool) {
	why, ok := removed[strings.TrimPrefix(name, "model.")]
	return why, ok
}

// older holds what a file of the older layout gives in the keys whose
// meaning has changed since. That layout, written by every version
// before the model's parameters moved to the top of the file, had them
// under [model] ([model.mkc_cache], [model.mtt.cache], ...); its keys are
// today's under model., but for these, read with the ranges they had and
// set as today's parameters (apply):
//
//   - model.pcie.host_latency_cycles is pcie.icm_latency_cycles (renamed
//     when the data path got a latency of its own);
//   - model.mtt.cache.sets and model.klm.cache.sets, with ways, sized the
//     MTT and KLM caches in sets x ways lines of 8 MTT or 4 KLM entries:
//     mtt.cache.entries and klm.cache.entries are that many entries;
//   - model.mkc_cache.mshrs counted the loop's MSHRs too: mkc_cache.mshrs
//     is the level-0 ones, mshrs - loop_mshrs.
type older struct {
	Model struct {
		MKCCache struct {
			MSHRs int `toml:"mshrs" range:"2..1024"`
		} `toml:"mkc_cache"`
		MTT struct {
			Cache olderCache `toml:"cache"`
		} `toml:"mtt"`
		KLM struct {
			Cache olderCache `toml:"cache"`
		} `toml:"klm"`
		PCIe struct {
			HostLatencyCycles int `toml:"host_latency_cycles" range:"1..2^16"`
		} `toml:"pcie"`
	} `toml:"model"`
}

// olderCache is an MTT or KLM cache's key of the older layout.
type olderCache struct {
	Sets int `toml:"sets" range:"power of two in 1..2^20"`
}

// The older layout's defaults that today's parameters count otherwise.
const (
	olderMSHRs    = 16 // mkc_cache.mshrs, the loop's 2 among them
	olderMTTSets  = 64 // mtt.cache.sets, of 4 ways of 8 entries
	olderKLMSets  = 32 // klm.cache.sets, of 4 ways of 4 entries
	olderMaxLines = 1 << 20
)

// params are o's keys, by their names in a file (model.mtt.cache.sets).
func (o *older) params() []Param {
	var out []Param
	walk(reflect.ValueOf(o).Elem(), "", false, &out)
	return out
}

// apply sets c's parameters from the older layout's keys that md says
// the file text gives, after today's keys are read: errors name the key,
// its line and what it was.
func (o *older) apply(c *Config, md toml.MetaData, text string) error {
	m := &o.Model
	given := func(key string) bool { return md.IsDefined(strings.Split(key, ".")...) }
	// first is the first of keys that the file gives, "" for none.
	first := func(keys ...string) string {
		for _, k := range keys {
			if given(k) {
				return k
			}
		}
		return ""
	}
	at := func(key string) string { return lineOf(text, strings.Split(key, ".")) }
	twice := func(old, now string) error {
		return fmt.Errorf("%s%s and %s: give one (%s is the older [model] layout's key, %s today's)", at(old), old, now, old, now)
	}

	const host = "model.pcie.host_latency_cycles"
	if given(host) {
		if k := first("pcie.icm_latency_cycles", "model.pcie.icm_latency_cycles"); k != "" {
			return twice(host, k)
		}
		c.Model.PCIe.ICMLatencyCycles = m.PCIe.HostLatencyCycles
	}

	const mshrs, loop = "model.mkc_cache.mshrs", "model.mkc_cache.loop_mshrs"
	switch {
	case given(mshrs) && given("mkc_cache.mshrs"):
		return twice(mshrs, "mkc_cache.mshrs")
	case given("mkc_cache.mshrs"): // today's count, with the loop's apart
	case given(mshrs) || given(loop):
		total, l := olderMSHRs, c.Model.MKCCache.LoopMSHRs
		if given(mshrs) {
			total = m.MKCCache.MSHRs
		}
		if total <= l {
			if given(mshrs) {
				return fmt.Errorf("%s%s = %d: want more than loop_mshrs = %d (in the [model] layout, mshrs counts the loop's MSHRs too)", at(mshrs), mshrs, total, l)
			}
			return fmt.Errorf("%s%s = %d: want fewer than mshrs, %d when not given (in the [model] layout, mshrs counts the loop's MSHRs too)", at(loop), loop, l, total)
		}
		c.Model.MKCCache.MSHRs = total - l
	}

	for _, u := range []struct {
		unit      string
		sets      int
		cache     *linecache.Config
		perLine   int
		sizesWith int // the older layout's sets when the file gives none
	}{
		{"mtt", m.MTT.Cache.Sets, &c.Model.MTT.Cache, 8, olderMTTSets},
		{"klm", m.KLM.Cache.Sets, &c.Model.KLM.Cache, 4, olderKLMSets},
	} {
		sets, ways := "model."+u.unit+".cache.sets", "model."+u.unit+".cache.ways"
		today := first("model."+u.unit+".cache.entries", "model."+u.unit+".cache.entries_per_line", u.unit+".cache.entries", u.unit+".cache.entries_per_line")
		switch {
		case given(sets) && today != "":
			return twice(sets, today)
		case today != "" || !given(sets) && !given(ways):
			continue // today's sizes, or the defaults
		}
		n, w := u.sizesWith, u.cache.Ways
		if given(sets) {
			n = u.sets
		}
		if w < 1 {
			return fmt.Errorf("%s%s = %d: want 1..64 in the [model] layout, sets x ways lines (0, fully associative, is %s.cache.ways with %s.cache.entries)", at(ways), ways, w, u.unit, u.unit)
		}
		if n*w > olderMaxLines {
			key := first(sets, ways)
			return fmt.Errorf("%smodel.%s.cache.sets x ways = %d x %d lines: want at most 2^20", at(key), u.unit, n, w)
		}
		u.cache.Entries, u.cache.EntriesPerLine = n*w*u.perLine, u.perLine
	}
	return nil
}
