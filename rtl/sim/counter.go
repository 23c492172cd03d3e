package sim

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"
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
// count; kind:"occupancy" a sum over cycles of how many of something were
// in use (an Occupancy), whose mean over the run, the figure named by the
// mean tag, the statistics derive. Statistics files, summaries, sweep
// tables and docs/counters.md all print counters by these names, so each
// has one definition. The unit lists them with CountersOf (Counted) and
// gives the waveform their live words with WordsOf (CounterWorder), so a
// field added with its tags shows everywhere.
type Counter struct {
	Name string // group.figure, e.g. mkc_cache.hits
	Unit string // what one count is: lookups, reads, cycles, bytes
	Help string // what increments it
	Max  bool   // a high-water mark (kind:"max"), not a sum
	// Wait marks a count of cycles spent waiting (kind:"wait", a
	// Stalls): it grows in the cycles the engine skips too, so it is
	// brought up to date only when its unit next runs. A waveform does
	// not show it: the channel's valid and ready show the wait itself.
	Wait bool
	// Mean, for an occupancy (kind:"occupancy", also Wait: it grows in
	// skipped cycles), names the figure value / cycles: the mean number in
	// use over the run (mean:"mean_walkers_in_use").
	Mean  string
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
	l := layoutOf(v.Type())
	out := make([]Counter, len(l.fields))
	for i, f := range l.fields {
		out[i] = f.c
		out[i].Name = group + "." + f.c.Name
		if f.c.Mean != "" {
			out[i].Mean = group + "." + f.c.Mean
		}
		switch fv := v.Field(f.index); {
		case fv.CanUint():
			out[i].Value = fv.Uint()
		default:
			out[i].Value = uint64(max(fv.Int(), 0))
		}
	}
	return out
}

// CounterValuer is a Counted component that writes its counters' current
// values cheaply, for a waveform, which shows them in every cycle the
// component runs (building Counters would cost too much there): a
// component whose counters are computed when read (pcie.Link's totals
// over TLP types). One that keeps them as fields is a CounterWorder.
type CounterValuer interface {
	// CounterValues appends the values of Counters, in its order, to vs.
	CounterValues(vs []uint64) []uint64
}

// CounterWorder is a Counted component whose counters a waveform can read
// where the component keeps them: it compares them there, in every cycle
// the component runs, and copies them only when they changed. The words
// of counters of kind wait may be stale, since a waveform does not show
// them (a unit brings those up to date in Stats); the others hold what
// Counters reports.
type CounterWorder interface {
	// CounterWords returns the counters of Counters, in its order, as runs
	// of words in the unit's own statistics (WordsOf): the same slices for
	// the unit's life.
	CounterWords() [][]uint64
}

// WordsOf returns the counters stats (a pointer to a struct) declares, in
// the order of CountersOf, as runs of adjacent fields of the struct
// itself: their live values, for CounterWords. Every counter must be a
// 64-bit integer field (an int reads as its bits: a count or a high-water
// mark is never negative); WordsOf panics naming the field when one is
// not.
func WordsOf(stats any) [][]uint64 {
	t := reflect.TypeOf(stats)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("sim: counter words want a pointer to a struct, not %v", t))
	}
	p := reflect.ValueOf(stats).UnsafePointer()
	var out [][]uint64
	end := ^uintptr(0) // the offset after the last run's last word
	for _, f := range layoutOf(t.Elem()).fields {
		if ft := t.Elem().Field(f.index).Type; ft.Size() != 8 {
			panic(fmt.Sprintf("sim: counter %s of %v is a %v, not a 64-bit integer", f.c.Name, t.Elem(), ft))
		}
		if k := len(out) - 1; k >= 0 && f.offset == end {
			out[k] = unsafe.Slice(&out[k][0], len(out[k])+1)
		} else {
			out = append(out, unsafe.Slice((*uint64)(unsafe.Add(p, f.offset)), 1))
		}
		end = f.offset + 8
	}
	return out
}

// counterLayout is what the tags of one stats type declare: each counter
// (without group and value) and where its field lies.
type counterLayout struct {
	fields []counterField
}

type counterField struct {
	c      Counter
	index  int          // the field's number in the struct
	offset uintptr      // its byte offset
	kind   reflect.Kind // its integer kind
}

// layouts caches the layout of each stats type (as encoding/binary and
// encoding/json cache theirs): tags are read once per type, not per call.
var layouts sync.Map // reflect.Type -> *counterLayout

// layoutOf reads the counter tags of struct type t, or returns them cached.
func layoutOf(t reflect.Type) *counterLayout {
	if l, ok := layouts.Load(t); ok {
		return l.(*counterLayout)
	}
	l := &counterLayout{}
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
		if (f.Tag.Get("kind") == "occupancy") != (f.Tag.Get("mean") != "") {
			panic(fmt.Sprintf("sim: %s field %s: an occupancy (kind:\"occupancy\") and only one has a mean tag", t, f.Name))
		}
		switch k := f.Type.Kind(); k {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		default:
			panic(fmt.Sprintf("sim: %s field %s is a %s, not a count", t, f.Name, k))
		}
		l.fields = append(l.fields, counterField{
			c: Counter{Name: name, Unit: unit, Help: help, Max: f.Tag.Get("kind") == "max",
				Wait: f.Tag.Get("kind") == "wait" || f.Tag.Get("kind") == "occupancy", Mean: f.Tag.Get("mean")},
			index: i, offset: f.Offset, kind: f.Type.Kind(),
		})
	}
	actual, _ := layouts.LoadOrStore(t, l)
	return actual.(*counterLayout)
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
