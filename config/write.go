package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"mkeysim/rtl"
)

// What a run writes of its configuration: the commented defaults file and
// the parameters for the statistics.

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
