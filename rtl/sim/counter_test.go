package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// mixed has a counter of every integer kind a Stats struct may use, a
// skipped nested field and an unexported one.
type mixed struct {
	A      uint64 `counter:"a" unit:"events" help:"a 64-bit count"`
	B      uint32 `counter:"b" unit:"events" help:"a 32-bit count"`
	pad    uint8
	C      uint16             `counter:"c" unit:"events" help:"a 16-bit count"`
	D      uint8              `counter:"d" unit:"events" help:"an 8-bit count"`
	E      int                `counter:"e" unit:"slots" help:"an int" kind:"max"`
	F      int32              `counter:"f" unit:"slots" help:"a negative int reads 0"`
	Nested struct{ X uint64 } `counter:"-"`
	G      uint               `counter:"g" unit:"events" help:"a uint"`
	H      int64              `counter:"h" unit:"events" help:"an int64"`
	I      int8               `counter:"i" unit:"events" help:"an int8"`
	J      int16              `counter:"j" unit:"events" help:"an int16"`
}

// TestCountersOf reads a counter of every integer kind, a negative one as
// 0, and skips the fields that are not counters.
func TestCountersOf(t *testing.T) {
	s := mixed{A: 1 << 40, B: 7, pad: 9, C: 300, D: 200, E: 5, F: -3, G: 11, H: 1 << 50, I: -1, J: 1000}
	s.Nested.X = 99
	cs := CountersOf("grp", &s)
	want := []struct {
		name string
		v    uint64
		max  bool
	}{{"grp.a", 1 << 40, false}, {"grp.b", 7, false}, {"grp.c", 300, false}, {"grp.d", 200, false},
		{"grp.e", 5, true}, {"grp.f", 0, false}, {"grp.g", 11, false}, {"grp.h", 1 << 50, false},
		{"grp.i", 0, false}, {"grp.j", 1000, false}}
	if len(cs) != len(want) {
		t.Fatalf("CountersOf gave %d counters, want %d: %+v", len(cs), len(want), cs)
	}
	for i, w := range want {
		if cs[i].Name != w.name || cs[i].Value != w.v || cs[i].Max != w.max {
			t.Errorf("counter %d: %s = %d (max %v), want %s = %d (max %v)", i, cs[i].Name, cs[i].Value, cs[i].Max, w.name, w.v, w.max)
		}
	}
	// By value or by pointer, CountersOf reads the same.
	if byVal := CountersOf("grp", s); byVal[0].Value != cs[0].Value || len(byVal) != len(cs) {
		t.Errorf("CountersOf by value differs: %+v", byVal)
	}
}

func TestCountersOfRefusesUndeclared(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stats any
		want  string
	}{
		{"untagged", &struct{ N uint64 }{}, "field N lacks its counter"},
		{"not a count", &struct {
			S string `counter:"s" unit:"x" help:"y"`
		}{}, "field S is a string"},
		{"no help", &struct {
			N uint64 `counter:"n" unit:"x"`
		}{}, "field N lacks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("panic %v, want one naming %q", r, tc.want)
				}
			}()
			CountersOf("g", tc.stats)
		})
	}
}

// words64 is a Stats struct of 64-bit counters in three runs: a map and
// an unexported field break them, as in protcheck's and klmwalk's.
type words64 struct {
	A     uint64            `counter:"a" unit:"events" help:"first of a run of two"`
	B     uint64            `counter:"b" unit:"events" help:"second of a run of two"`
	ByKey map[string]uint64 `counter:"-"`
	C     int               `counter:"c" unit:"slots" kind:"max" help:"an int, alone"`
	skip  uint64
	D     int64  `counter:"d" unit:"events" help:"an int64 before a uint64"`
	E     uint64 `counter:"e" unit:"events" help:"the last"`
}

// TestWordsOf: the words are the fields themselves, in the order and with
// the values of CountersOf, in runs of adjacent fields; a counter narrower
// than 64 bits panics with its name.
func TestWordsOf(t *testing.T) {
	s := words64{A: 1, B: 2, C: 3, skip: 99, D: 4, E: 5}
	ws := WordsOf(&s)
	var lens []int
	var flat []uint64
	for _, w := range ws {
		lens = append(lens, len(w))
		flat = append(flat, w...)
	}
	if want := []int{2, 1, 2}; !slices.Equal(lens, want) {
		t.Errorf("runs of %v words, want %v", lens, want)
	}
	var want []uint64
	for _, c := range CountersOf("g", &s) {
		want = append(want, c.Value)
	}
	if !slices.Equal(flat, want) {
		t.Errorf("words %v, CountersOf's values %v", flat, want)
	}
	s.B, s.C, s.E = 20, 30, 50
	if ws[0][1] != 20 || ws[1][0] != 30 || ws[2][1] != 50 {
		t.Errorf("the words do not follow the fields: %v", ws)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "counter b ") {
			t.Errorf("a 32-bit counter: panic %v, want one naming counter b", r)
		}
	}()
	WordsOf(&mixed{})
}

// cacheStats is a group's struct: a cache's counters that its unit
// declares under a group of their own.
type cacheStats struct {
	Hits   uint64 `counter:"hits" unit:"lookups" help:"lookups that hit"`
	Misses uint64 `counter:"misses" unit:"lookups" help:"lookups that missed"`
}

// declared is a unit's stats as a unit declares them: counts, a wait and
// an occupancy noted where they are kept, and a cache's group by pointer.
type declared struct {
	Pieces uint64      `counter:"pieces" unit:"pieces" help:"pieces taken"`
	Wait   Stalls      `counter:"stall_cycles" unit:"cycles" kind:"wait" help:"cycles a piece waited"`
	Max    int         `counter:"max_busy" unit:"contexts" kind:"max" help:"the most busy"`
	Busy   Occupancy   `counter:"busy_cycles" unit:"context-cycles" kind:"occupancy" mean:"mean_busy" help:"contexts busy, summed"`
	Last   uint64      `counter:"last" unit:"pieces" help:"after the occupancy"`
	Cache  *cacheStats `group:"unit_cache"`
	Inline cacheStats  `group:"inline_cache"`
}

// TestDeclare: a unit's counters, its waits and occupancies among them,
// read where the unit keeps them, then its groups' under their own
// names; the words are those the waveform shows (no wait), live.
func TestDeclare(t *testing.T) {
	var cache cacheStats
	s := declared{Pieces: 3, Max: 2, Last: 9, Cache: &cache}
	set := Declare("unit", &s)
	s.Wait.Note(10, true)
	s.Wait.Note(14, false) // 10..13 waited: 4
	s.Busy.NoteN(10, 2)
	s.Busy.NoteN(12, 1) // 2+2+1
	cache.Hits, cache.Misses = 5, 6
	s.Inline.Hits = 7
	type nv struct {
		name string
		v    uint64
		wait bool
	}
	var got []nv
	for _, c := range set.Counters() {
		got = append(got, nv{c.Name, c.Value, c.Wait})
	}
	want := []nv{{"unit.pieces", 3, false}, {"unit.stall_cycles", 4, true}, {"unit.max_busy", 2, false},
		{"unit.busy_cycles", 5, true}, {"unit.last", 9, false}, {"unit_cache.hits", 5, false},
		{"unit_cache.misses", 6, false}, {"inline_cache.hits", 7, false}, {"inline_cache.misses", 0, false}}
	if !slices.Equal(got, want) {
		t.Errorf("counters\n got %v\nwant %v", got, want)
	}
	if c, _ := Find(set.Counters(), "unit.busy_cycles"); c.Mean != "unit.mean_busy" {
		t.Errorf("busy_cycles' mean is %q", c.Mean)
	}
	var words []uint64
	for _, w := range set.CounterWords() {
		words = append(words, w...)
	}
	if want := []uint64{3, 2, 9, 5, 6, 7, 0}; !slices.Equal(words, want) {
		t.Errorf("words %v, want %v", words, want)
	}
	cache.Misses, s.Last = 60, 90
	words = words[:0]
	for _, w := range set.CounterWords() {
		words = append(words, w...)
	}
	if want := []uint64{3, 2, 90, 5, 60, 7, 0}; !slices.Equal(words, want) {
		t.Errorf("words after a change %v, want %v", words, want)
	}
	// A group by pointer that is nil declares nothing.
	s.Cache = nil
	if n := len(Declare("unit", &s).Counters()); n != 7 {
		t.Errorf("%d counters with a nil group, want 7", n)
	}
	// A zero set declares nothing.
	if cs, ws := (CounterSet{}).Counters(), (CounterSet{}).CounterWords(); cs != nil || ws != nil {
		t.Errorf("zero set: %v, %v", cs, ws)
	}
}

// TestCoverPoint: a counter's coverage point and its minus figure are
// named under the counter's group.
func TestCoverPoint(t *testing.T) {
	s := struct {
		M  uint64 `counter:"misses" unit:"lookups" help:"h" cover:"miss" coverminus:"merged_misses" coverdesc:"a miss" coverwhy:"rare"`
		MM uint64 `counter:"merged_misses" unit:"lookups" help:"h"`
	}{}
	cs := CountersOf("c", &s)
	if want := (CoverPoint{Name: "c.miss", Desc: "a miss", Why: "rare", Minus: "c.merged_misses"}); cs[0].Cover != want || cs[1].Cover != (CoverPoint{}) {
		t.Errorf("points %+v, %+v; want %+v and none", cs[0].Cover, cs[1].Cover, want)
	}
}

// TestDeclareRefuses: a wait or occupancy is a Stalls the unit notes, and
// a Stalls is one; a group is a struct; Declare wants a pointer.
func TestDeclareRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stats any
		want  string
	}{
		{"wait copied into a count", &struct {
			W uint64 `counter:"w" unit:"cycles" kind:"wait" help:"h"`
		}{}, "field W: a wait or occupancy counter is a sim.Stalls"},
		{"stalls not a wait", &struct {
			W Stalls `counter:"w" unit:"cycles" help:"h"`
		}{}, "field W: a wait or occupancy counter is a sim.Stalls"},
		{"group not a struct", &struct {
			G uint64 `group:"g"`
		}{}, "field G: a group is"},
		{"bad counter in a group", &struct {
			G struct{ N uint64 } `group:"g"`
		}{}, "field N lacks"},
		{"not a pointer", struct{}{}, "wants a pointer"},
		{"a point without its description", &struct {
			N uint64 `counter:"n" unit:"x" help:"h" cover:"hit"`
		}{}, "field N: a coverage point has a cover and a coverdesc tag"},
		{"a minus without a point", &struct {
			N uint64 `counter:"n" unit:"x" help:"h" coverminus:"m"`
		}{}, "field N: a coverage point"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("panic %v, want one naming %q", r, tc.want)
				}
			}()
			Declare("g", tc.stats)
		})
	}
}
