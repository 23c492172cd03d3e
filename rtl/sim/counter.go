package sim

import (
	"fmt"
	"reflect"
	"strings"
)

// Counter is one statistic a unit declares, read at the end of a run (or
// whenever a report is made, never on the clocked path).
//
// A unit keeps its counters as the uint64 (or int) fields of a Stats
// struct that it increments directly, and declares each one in the
// field's tags, the only place its meaning is written:
//
//	Hits uint64 `counter:"hits" unit:"lookups" help:"lookups that found a valid line of their index"`
//
// counter is the figure's name (its full name is the group, a dot, and
// this), unit is what one count is, help is the event that increments it
// and the state it reads. kind:"max" marks a high-water mark rather than a
// count. Statistics files, summaries, sweep tables and docs/counters.md
// all print counters by these names, so each has one definition.
type Counter struct {
	Name  string // group.figure, e.g. mkc_cache.hits
	Unit  string // what one count is: lookups, reads, cycles, bytes
	Help  string // what increments it
	Max   bool   // a high-water mark (kind:"max"), not a sum
	Value uint64
}

// Counted is a component that declares counters.
type Counted interface {
	// Counters lists the unit's counters with their current values.
	Counters() []Counter
}

// CountersOf lists the counters declared by the tags of stats, a struct
// or a pointer to one, under group. Fields tagged counter:"-" are skipped
// (a nested unit's stats the unit lists under their own group); any other
// field must be a tagged unsigned or signed integer: CountersOf panics
// naming a field that is not, so that a counter cannot go undeclared.
func CountersOf(group string, stats any) []Counter {
	v := reflect.Indirect(reflect.ValueOf(stats))
	t := v.Type()
	out := make([]Counter, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("counter")
		if name == "-" || !f.IsExported() {
			continue
		}
		unit, help := f.Tag.Get("unit"), f.Tag.Get("help")
		if name == "" || unit == "" || help == "" {
			panic(fmt.Sprintf("sim: %s field %s lacks its counter, unit or help tag", t, f.Name))
		}
		c := Counter{Name: group + "." + name, Unit: unit, Help: help, Max: f.Tag.Get("kind") == "max"}
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			c.Value = fv.Uint()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			c.Value = uint64(max(fv.Int(), 0))
		default:
			panic(fmt.Sprintf("sim: %s field %s is a %s, not a count", t, f.Name, fv.Kind()))
		}
		out = append(out, c)
	}
	return out
}

// Counters lists the counters of every component that declares some, in
// the order the components were added.
func (e *Engine) Counters() []Counter {
	var out []Counter
	for _, c := range e.comps {
		if d, ok := c.(Counted); ok {
			out = append(out, d.Counters()...)
		}
	}
	return out
}

// Find returns the counter of cs with the full name name.
func Find(cs []Counter, name string) (Counter, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}

// Group is the part of a counter's name before its last dot.
func (c Counter) Group() string { return c.Name[:max(strings.LastIndexByte(c.Name, '.'), 0)] }

// Figure is the part of a counter's name after its last dot.
func (c Counter) Figure() string { return c.Name[strings.LastIndexByte(c.Name, '.')+1:] }
