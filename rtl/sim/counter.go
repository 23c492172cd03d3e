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
// A unit declares its counters once, as the fields of one Stats struct
// whose tags are the only place their meaning is written, and embeds the
// CounterSet that Declare makes of it:
//
//	Hits  uint64     `counter:"hits" unit:"lookups" help:"lookups that found a valid line of their index"`
//	NoCtx sim.Stalls `counter:"context_stall_cycles" unit:"cycles" kind:"wait" help:"..."`
//	Cache *linecache.Stats `group:"mtt_cache"`
//
// counter is the figure's name (its full name is the group, a dot, and
// this), unit is what one count is, help is the event that increments it
// and the state it reads. kind:"max" marks a high-water mark rather than a
// count. A count of cycles spent waiting (kind:"wait") or a sum over
// cycles of how many of something were in use (kind:"occupancy", whose
// mean over the run, the figure named by the mean tag, the statistics
// derive) is a Stalls field that the unit notes in every Eval: it is
// counted where it is kept, never copied in by hand. A field tagged
// group:"name" (a struct, or a pointer to one, such as the stats of a
// cache the unit holds) declares counters of its own under that group;
// they follow the unit's own. Statistics files, summaries, sweep tables,
// the waveform and docs/counters.md all print counters by these names, so
// each has one definition.
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
	Mean string
	// Cover is the coverage point the counter declares, if any: reached
	// in a run in which it counted (less its Minus figure).
	Cover CoverPoint
	Value uint64
}

// CoverPoint is a coverage point a counter declares with its tags
// (cover:"hit" coverdesc:"a lookup found its line" and optionally
// coverwhy:"..." for a point the coverage suite need not reach, and
// coverminus:"merged_misses" for a figure of the group to subtract), so
// that a unit's points come with its counters. Name and Minus are full
// names: mkc_cache.hit.
type CoverPoint struct {
	Name, Desc, Why, Minus string
}

// Counted is a component that declares counters.
type Counted interface {
	// Counters lists the unit's counters with their current values.
	Counters() []Counter
}

// CounterWorder is a Counted component whose counters a waveform can read
// where the component keeps them: it compares them there, in every cycle
// the component runs, and copies them only when they changed.
type CounterWorder interface {
	// CounterWords returns the counters of Counters that a waveform
	// shows (all but the waits, Counter.Wait), in its order, as runs of
	// words in the unit's own statistics (WordsOf): the same slices for
	// the unit's life.
	CounterWords() [][]uint64
}

// CounterSet is a unit's counters: the tagged fields of its stats struct
// (see Counter), under the unit's group. Embedded in the unit, it makes
// the unit Counted and a CounterWorder with no code of the unit's own:
//
//	type Unit struct {
//		sim.Base
//		sim.CounterSet
//		stats Stats
//		...
//	}
//
//	u.CounterSet = sim.Declare("mttwalk", &u.stats)
type CounterSet struct {
	group string
	stats any // a pointer to the struct
}

// Declare makes the counter set of stats, a pointer to a struct of
// tagged fields, under group. It panics, naming the field, on a field
// that is not declared as Counter says: a mistake of the unit's code,
// found when the unit is made.
func Declare(group string, stats any) CounterSet {
	t := reflect.TypeOf(stats)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("sim: Declare(%q) wants a pointer to a stats struct, not %v", group, t))
	}
	layoutOf(t.Elem())
	return CounterSet{group: group, stats: stats}
}

// Group is the group the set's own counters are named under.
func (s CounterSet) Group() string { return s.group }

// Counters lists the counters with their current values (Counted).
func (s CounterSet) Counters() []Counter {
	if s.stats == nil {
		return nil
	}
	return CountersOf(s.group, s.stats)
}

// CounterWords returns the words of the counters a waveform shows
// (CounterWorder).
func (s CounterSet) CounterWords() [][]uint64 {
	if s.stats == nil {
		return nil
	}
	return WordsOf(s.stats)
}

// CountersOf lists the counters declared by the tags of stats, a struct
// or a pointer to one, under group, then those of its groups. Fields
// tagged counter:"-" are skipped; any other exported field must be a
// declared counter or group: CountersOf panics naming a field that is
// not, so that a counter cannot go undeclared.
func CountersOf(group string, stats any) []Counter {
	return appendCounters(nil, group, reflect.Indirect(reflect.ValueOf(stats)))
}

func appendCounters(out []Counter, group string, v reflect.Value) []Counter {
	l := layoutOf(v.Type())
	for _, f := range l.fields {
		c := f.c
		c.Name = group + "." + f.c.Name
		if f.c.Mean != "" {
			c.Mean = group + "." + f.c.Mean
		}
		if f.c.Cover.Name != "" {
			c.Cover.Name = group + "." + f.c.Cover.Name
		}
		if f.c.Cover.Minus != "" {
			c.Cover.Minus = group + "." + f.c.Cover.Minus
		}
		switch fv := v.Field(f.index); {
		case f.stalls:
			c.Value = fv.Field(0).Uint() // Stalls.n, its count
		case fv.CanUint():
			c.Value = fv.Uint()
		default:
			c.Value = uint64(max(fv.Int(), 0))
		}
		out = append(out, c)
	}
	for _, g := range l.groups {
		gv := v.Field(g.index)
		if g.ptr {
			if gv.IsNil() {
				continue
			}
			gv = gv.Elem()
		}
		out = appendCounters(out, g.group, gv)
	}
	return out
}

// WordsOf returns the counters stats (a pointer to a struct) declares
// that a waveform shows (all but the waits), in the order of CountersOf,
// as runs of adjacent fields of the struct itself and of its groups:
// their live values, for CounterWords. Every such counter must be a
// 64-bit integer field (an int reads as its bits: a count or a high-water
// mark is never negative); WordsOf panics naming the field when one is
// not.
func WordsOf(stats any) [][]uint64 {
	t := reflect.TypeOf(stats)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("sim: counter words want a pointer to a struct, not %v", t))
	}
	return appendWords(nil, t.Elem(), reflect.ValueOf(stats).UnsafePointer())
}

func appendWords(out [][]uint64, t reflect.Type, p unsafe.Pointer) [][]uint64 {
	l := layoutOf(t)
	end := ^uintptr(0) // the offset after the last run's last word, in this struct
	for _, f := range l.fields {
		if f.c.Wait {
			continue
		}
		if ft := t.Field(f.index).Type; ft.Size() != 8 {
			panic(fmt.Sprintf("sim: counter %s of %v is a %v, not a 64-bit integer", f.c.Name, t, ft))
		}
		if k := len(out) - 1; k >= 0 && f.offset == end {
			out[k] = unsafe.Slice(&out[k][0], len(out[k])+1)
		} else {
			out = append(out, unsafe.Slice((*uint64)(unsafe.Add(p, f.offset)), 1))
		}
		end = f.offset + 8
	}
	for _, g := range l.groups {
		gp := unsafe.Add(p, t.Field(g.index).Offset)
		gt := t.Field(g.index).Type
		if g.ptr {
			if gp = *(*unsafe.Pointer)(gp); gp == nil {
				continue
			}
			gt = gt.Elem()
		}
		out = appendWords(out, gt, gp)
	}
	return out
}

// counterLayout is what the tags of one stats type declare: each counter
// (without group and value) and where its field lies, and its groups.
type counterLayout struct {
	fields []counterField
	groups []groupField
}

type counterField struct {
	c      Counter
	index  int          // the field's number in the struct
	offset uintptr      // its byte offset
	kind   reflect.Kind // its integer kind
	stalls bool         // a Stalls: its count is its first word
}

// groupField is a field that declares counters of its own under group.
type groupField struct {
	index int
	group string
	ptr   bool // a pointer to the struct, not the struct
}

// layouts caches the layout of each stats type (as encoding/binary and
// encoding/json cache theirs): tags are read once per type, not per call.
var layouts sync.Map // reflect.Type -> *counterLayout

var stallsType = reflect.TypeFor[Stalls]()

// layoutOf reads the counter tags of struct type t, or returns them cached.
func layoutOf(t reflect.Type) *counterLayout {
	if l, ok := layouts.Load(t); ok {
		return l.(*counterLayout)
	}
	l := &counterLayout{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("counter")
		if g := f.Tag.Get("group"); g != "" {
			gt, ptr := f.Type, f.Type.Kind() == reflect.Pointer
			if ptr {
				gt = gt.Elem()
			}
			if name != "" || gt.Kind() != reflect.Struct || !f.IsExported() {
				panic(fmt.Sprintf("sim: %s field %s: a group is an exported struct or pointer to one, with no counter tag", t, f.Name))
			}
			layoutOf(gt)
			l.groups = append(l.groups, groupField{index: i, group: g, ptr: ptr})
			continue
		}
		if name == "-" || !f.IsExported() {
			continue
		}
		unit, help, kind := f.Tag.Get("unit"), f.Tag.Get("help"), f.Tag.Get("kind")
		if name == "" || unit == "" || help == "" {
			panic(fmt.Sprintf("sim: %s field %s lacks its counter, unit or help tag", t, f.Name))
		}
		if (kind == "occupancy") != (f.Tag.Get("mean") != "") {
			panic(fmt.Sprintf("sim: %s field %s: an occupancy (kind:\"occupancy\") and only one has a mean tag", t, f.Name))
		}
		cp := CoverPoint{Name: f.Tag.Get("cover"), Desc: f.Tag.Get("coverdesc"), Why: f.Tag.Get("coverwhy"), Minus: f.Tag.Get("coverminus")}
		if (cp.Name == "") != (cp.Desc == "") || cp.Name == "" && (cp.Why != "" || cp.Minus != "") {
			panic(fmt.Sprintf("sim: %s field %s: a coverage point has a cover and a coverdesc tag (and coverwhy or coverminus only with them)", t, f.Name))
		}
		wait := kind == "wait" || kind == "occupancy"
		if stalls := f.Type == stallsType; stalls != wait {
			panic(fmt.Sprintf("sim: %s field %s: a wait or occupancy counter is a sim.Stalls the unit notes, and a Stalls is one (kind %q, type %v)", t, f.Name, kind, f.Type))
		}
		switch k := f.Type.Kind(); k {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		case reflect.Struct:
			if !wait {
				panic(fmt.Sprintf("sim: %s field %s is a %s, not a count", t, f.Name, k))
			}
		default:
			panic(fmt.Sprintf("sim: %s field %s is a %s, not a count", t, f.Name, k))
		}
		l.fields = append(l.fields, counterField{
			c:     Counter{Name: name, Unit: unit, Help: help, Max: kind == "max", Wait: wait, Mean: f.Tag.Get("mean"), Cover: cp},
			index: i, offset: f.Offset, kind: f.Type.Kind(), stalls: wait,
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
