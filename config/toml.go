package config

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"mkeysim/rtl"
)

// Reading a TOML file into the parameters: a struct shaped like Config
// whose leaves set them, and errors that name the line, the key as the
// file spells it and the value as the file writes it.

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
