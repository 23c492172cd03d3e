package config

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"mkeysim/rtl"
)

// A parameter: a leaf of Config with its name, help and range, listed by
// walking the struct, and set from a flag's text or a TOML value.

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

// IsBoolFlag lets boolean parameters be given as a bare flag.
func (p Param) IsBoolFlag() bool { return p.v.IsValid() && p.v.Kind() == reflect.Bool }

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
