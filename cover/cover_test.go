package cover_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// TestCatalog: under every depth limit, each point has one name and one
// ID, a description and its models; a point is required unless it says
// why not; statuses sit at the levels where translation.md 4 lets them
// arise, modes at 0..depth; only the clocked model collects the points
// derived from counters.
func TestCatalog(t *testing.T) {
	for _, depth := range []int{0, 1, 4, 64} {
		names, ids := map[string]bool{}, map[cover.ID]bool{}
		statuses, modes := 0, 0
		for _, p := range cover.Points(depth) {
			switch {
			case names[p.Name] || ids[p.ID]:
				t.Errorf("depth %d: %s (ID %d) named or numbered twice", depth, p.Name, p.ID)
			case p.ID == 0 || p.ID >= cover.NumIDs:
				t.Errorf("depth %d: %s has ID %d, outside 1..%d", depth, p.Name, p.ID, cover.NumIDs-1)
			case p.Desc == "" || p.Models == 0:
				t.Errorf("depth %d: %s has no description or no model", depth, p.Name)
			case p.Required != (p.Why == ""):
				t.Errorf("depth %d: %s: required %v, but why %q", depth, p.Name, p.Required, p.Why)
			case p.Counter != "" && p.Models != cover.Clocked:
				t.Errorf("depth %d: %s is derived from a counter but collected by %v", depth, p.Name, p.Models.Names())
			}
			names[p.Name], ids[p.ID] = true, true
			if cover.NameOf(p.ID) != p.Name {
				t.Errorf("NameOf(%d) = %q, want %q", p.ID, cover.NameOf(p.ID), p.Name)
			}
			if q, ok := cover.Lookup(depth, p.Name); !ok || q.ID != p.ID {
				t.Errorf("Lookup(%d, %q) = %v, %v", depth, p.Name, q.ID, ok)
			}
			switch {
			case strings.HasPrefix(p.Name, "status."):
				statuses++
			case strings.HasPrefix(p.Name, "mode."):
				modes++
			}
		}
		for id := cover.ID(1); id < cover.OKID(0); id++ {
			if !ids[id] {
				t.Errorf("depth %d: the fixed point %d (%s) is in no catalog", depth, id, cover.NameOf(id))
			}
		}
		// 12 statuses at levels 0..depth, INDIRECTION_DEPTH at depth+1,
		// MISALIGNED_ATOMIC at 0; 6 modes at 0..depth.
		if want := 12*(depth+1) + 2; statuses != want {
			t.Errorf("depth %d: %d status points, want %d", depth, statuses, want)
		}
		if want := 6 * (depth + 1); modes != want {
			t.Errorf("depth %d: %d mode points, want %d", depth, modes, want)
		}
		for _, name := range []string{fmtName("status.INDIRECTION_DEPTH.L", depth+1), "status.MISALIGNED_ATOMIC.L0", fmtName("mode.KLM.L", depth)} {
			if _, ok := cover.Lookup(depth, name); !ok {
				t.Errorf("depth %d: no %s", depth, name)
			}
		}
		for _, name := range []string{fmtName("status.INDIRECTION_DEPTH.L", depth), "status.MISALIGNED_ATOMIC.L1", fmtName("status.OUT_OF_RANGE.L", depth+1),
			fmtName("mode.PA.L", depth+1), "status.BAD_PARAM.L0", "status.OK.L0", "cmd.umr.REMOTE_INVALIDATE_DENIED"} {
			if _, ok := cover.Lookup(depth, name); ok {
				t.Errorf("depth %d: %s is a point, but cannot arise", depth, name)
			}
		}
	}
}

func fmtName(prefix string, level int) string { return fmt.Sprintf("%s%d", prefix, level) }

// TestCommandNumbers: cover.Command numbers the commands as scenario.OpKind
// does, which it cannot import.
func TestCommandNumbers(t *testing.T) {
	n := 0
	for k := scenario.OpKind(0); ; k++ {
		name := k.String()
		if name == "op?" {
			break
		}
		if k == scenario.OpAccess {
			continue
		}
		n++
		if got := cover.Command(k).String(); got != name {
			t.Errorf("op kind %d is %s, cover.Command(%d) is %s", k, name, k, got)
		}
	}
	if n != 10 {
		t.Errorf("%d commands, want 10", n)
	}
}

// hits lists the names of the points c counted, with their counts.
func hits(c *cover.Collector) map[string]uint64 {
	out := map[string]uint64{}
	for id := cover.ID(0); id < cover.NumIDs; id++ {
		if n := c.Count(id); n > 0 {
			out[cover.NameOf(id)] = n
		}
	}
	return out
}

const top = ^uint64(0) // 2^64 - 1

// TestClassifiers: each classifier hits exactly the points of the event,
// on cases worked out by hand.
func TestClassifiers(t *testing.T) {
	pa := func(start, length uint64) *prm.MKC {
		return &prm.MKC{AccessMode: prm.ModePA, StartAddr: start, Len: length}
	}
	l64 := func(mode prm.AccessMode, start uint64) *prm.MKC {
		return &prm.MKC{AccessMode: mode, StartAddr: start, Length64: true, LogEntitySize: 12}
	}
	for _, c := range []struct {
		name string
		hit  func(c *cover.Collector)
		want []string
	}{
		{"passed, the whole range", func(c *cover.Collector) { c.Passed(2, pa(0x1000, 0x100), 0x1000, 0x100) },
			[]string{"mode.PA.L2", "range.start", "range.end"}},
		{"passed, inside", func(c *cover.Collector) { c.Passed(0, pa(0x1000, 0x100), 0x1001, 0x10) },
			[]string{"mode.PA.L0"}},
		{"passed, ending at start_addr+len = 2^64", func(c *cover.Collector) { c.Passed(1, pa(top-0xff, 0x100), top-0xf, 0x10) },
			[]string{"mode.PA.L1", "range.end", "wrap.end_at_2^64"}},
		{"passed, length64 below start_addr, MTT", func(c *cover.Collector) { c.Passed(0, l64(prm.ModeMTT, 0x2000), 0x1000, 0x10) },
			[]string{"mode.MTT.L0", "range.length64", "wrap.offset"}},
		{"passed, length64 below start_addr, PA: no offset is taken", func(c *cover.Collector) { c.Passed(0, l64(prm.ModePA, 0x2000), 0x1000, 0x10) },
			[]string{"mode.PA.L0", "range.length64"}},
		{"passed, length64 at start_addr, KLM ending at 2^64", func(c *cover.Collector) { c.Passed(3, l64(prm.ModeKLM, top-7), top-7, 8) },
			[]string{"mode.KLM.L3", "range.length64", "wrap.end_at_2^64"}},
		{"out of range past 2^64", func(c *cover.Collector) { c.OutOfRange(pa(0, top), top, 2) }, []string{"range.fail_past_2^64"}},
		{"out of range below start", func(c *cover.Collector) { c.OutOfRange(pa(0x1000, 0x100), 0xfff, 1) }, []string{"range.fail_below_start"}},
		{"out of range past the end", func(c *cover.Collector) { c.OutOfRange(pa(0x1000, 0x100), 0x10ff, 2) }, []string{"range.fail_past_end"}},
		{"result of length 0", func(c *cover.Collector) { c.Result(prm.RemoteWrite, 0, prm.OK, 0) }, []string{"length.zero"}},
		{"result OK", func(c *cover.Collector) { c.Result(prm.RemoteAtomic, 8, prm.OK, 0) }, []string{"ok.REMOTE_ATOMIC"}},
		{"result of 2^32-1 bytes", func(c *cover.Collector) { c.Result(prm.LocalRead, 1<<32-1, prm.OK, 0) }, []string{"ok.LOCAL_READ", "length.max"}},
		{"result failed at level 3", func(c *cover.Collector) { c.Result(prm.LocalRead, 1<<32-1, prm.OutOfRange, 3) }, []string{"status.OUT_OF_RANGE.L3"}},
		{"result INDIRECTION_DEPTH", func(c *cover.Collector) { c.Result(prm.LocalRead, 9, prm.IndirectionDepth, 5) }, []string{"status.INDIRECTION_DEPTH.L5"}},
		{"first page at its start, whole", func(c *cover.Collector) { c.FirstPart(cover.WalkMTT, true, false) }, []string{"mtt.start_at_page"}},
		{"first KLM entry inside, crossing", func(c *cover.Collector) { c.FirstPart(cover.WalkKLM, false, true) },
			[]string{"klm.start_inside_entry", "klm.entry_cross"}},
		{"first FBS entry at its start, crossing", func(c *cover.Collector) { c.FirstPart(cover.WalkFBS, true, true) },
			[]string{"fbs.start_at_entry", "fbs.entry_cross"}},
		{"command", func(c *cover.Collector) { c.Command(cover.CmdUMR, prm.UMRCapacity) }, []string{"cmd.umr.UMR_CAPACITY"}},
		{"fixed point", func(c *cover.Collector) { c.Hit(cover.ResumeError) }, []string{"odp.resume_error"}},
		{"resumed, translated", func(c *cover.Collector) { c.Resumed(prm.OK) }, []string{"odp.resume_ok.pass"}},
		{"resumed, faulted again", func(c *cover.Collector) { c.Resumed(prm.PageFault) }, []string{"odp.resume_ok.refault"}},
		{"resumed, freed meanwhile", func(c *cover.Collector) { c.Resumed(prm.MKeyFree) }, []string{"odp.resume_ok.fail"}},
	} {
		col := cover.New()
		c.hit(col)
		got := hits(col)
		want := map[string]uint64{}
		for _, n := range c.want {
			want[n] = 1
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: hit %v, want %v", c.name, got, want)
		}
	}
}

// TestClassifiersHitWhatTheyDeclare: on random inputs each classifier hits
// only the points its declaration (what units list in Covers) names.
func TestClassifiersHitWhatTheyDeclare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	edge := func() uint64 {
		switch r.IntN(4) {
		case 0:
			return r.Uint64N(64)
		case 1:
			return top - r.Uint64N(64)
		case 2:
			return 1<<32 - r.Uint64N(3)
		}
		return r.Uint64()
	}
	check := func(name string, declared []cover.ID, hit func(c *cover.Collector)) {
		for range 2000 {
			c := cover.New()
			hit(c)
			for id := cover.ID(0); id < cover.NumIDs; id++ {
				if c.Count(id) > 0 && !slices.Contains(declared, id) {
					t.Fatalf("%s hit %s, which %sIDs does not declare", name, cover.NameOf(id), name)
				}
			}
		}
	}
	mkc := func() *prm.MKC {
		return &prm.MKC{AccessMode: prm.AccessMode(r.IntN(6)), StartAddr: edge(), Len: edge(), Length64: r.IntN(3) == 0}
	}
	// A piece passes at levels 0..64 (the deepest limit); an access
	// ends with a failure of translation.md 4 at a level where it can
	// arise under some limit.
	check("Passed", cover.PassedIDs(), func(c *cover.Collector) { c.Passed(r.IntN(cover.MaxLevels-1), mkc(), edge(), edge()) })
	check("OutOfRange", cover.OutOfRangeIDs(), func(c *cover.Collector) { c.OutOfRange(mkc(), edge(), edge()) })
	check("Result", cover.ResultIDs(), func(c *cover.Collector) {
		st, level := prm.Status(r.IntN(int(prm.PageFault)+1)), r.IntN(cover.MaxLevels-1)
		switch st {
		case prm.IndirectionDepth:
			level++
		case prm.MisalignedAtomic:
			level = 0
		}
		c.Result(prm.AccessType(r.IntN(5)), uint32(edge()), st, level)
	})
	for _, w := range []cover.Walk{cover.WalkMTT, cover.WalkKLM, cover.WalkFBS} {
		check("FirstPart", cover.FirstPartIDs(w), func(c *cover.Collector) { c.FirstPart(w, r.IntN(2) == 0, r.IntN(2) == 0) })
	}
}

// TestNilCollector: coverage off is a nil collector, on which every
// method does nothing, allocates nothing and reads as zero.
func TestNilCollector(t *testing.T) {
	var c *cover.Collector
	m := &prm.MKC{AccessMode: prm.ModeMTT, Len: 10}
	allocs := testing.AllocsPerRun(100, func() {
		c.Hit(cover.LengthZero)
		c.Result(prm.LocalRead, 5, prm.OK, 0)
		c.Passed(0, m, 0, 10)
		c.OutOfRange(m, 0, 11)
		c.FirstPart(cover.WalkKLM, true, true)
		c.Command(cover.CmdUMR, prm.OK)
		c.Resumed(prm.OK)
		c.Add(cover.New())
	})
	if allocs != 0 || c.Count(cover.LengthZero) != 0 {
		t.Errorf("nil collector: %v allocations, count %d", allocs, c.Count(cover.LengthZero))
	}
	if err := c.AddCounters(cacheCounters(1, 0)); err != nil {
		t.Errorf("nil collector AddCounters: %v", err)
	}
}

// cacheCounters are the readings of a cache's counters under the group
// test_cache, declaring points as a unit's Stats tags do
// (rtl/sim.CoverPoint): hits, misses less merged misses, merged misses,
// and a point not required; fills declares none.
func cacheCounters(misses, merged uint64) []cover.Reading {
	return []cover.Reading{
		{Counter: "test_cache.hits", Value: 3, Point: "test_cache.hit", Desc: "a lookup found its line"},
		{Counter: "test_cache.misses", Value: misses, Point: "test_cache.miss", Desc: "a lookup missed and read its line", Minus: "test_cache.merged_misses"},
		{Counter: "test_cache.merged_misses", Value: merged, Point: "test_cache.merged_miss", Desc: "a lookup joined a read"},
		{Counter: "test_cache.refetches", Point: "test_cache.refetch", Desc: "a read sent again", Why: "no scenario reaches it"},
		{Counter: "test_cache.fills", Value: 5},
	}
}

// TestAddCounters: the points a unit's counters declare are reached as
// often as they counted (test_cache.miss is misses less merged misses),
// in the order declared, with their descriptions; they add up over runs
// and over collectors, and a minus figure the counters lack is an error
// naming it.
func TestAddCounters(t *testing.T) {
	c := cover.New()
	for range 2 {
		if err := c.AddCounters(cacheCounters(9, 4)); err != nil {
			t.Fatal(err)
		}
	}
	o := cover.New()
	if err := o.AddCounters(cacheCounters(1, 0)); err != nil {
		t.Fatal(err)
	}
	c.Add(o)
	ps, ns := c.Derived()
	var got []string
	for i, p := range ps {
		got = append(got, fmt.Sprintf("%s=%d", p.Name, ns[i]))
		if p.Models != cover.Clocked || p.Desc == "" || p.Required != (p.Why == "") || p.Counter == "" {
			t.Errorf("point %+v", p)
		}
	}
	if want := []string{"test_cache.hit=9", "test_cache.miss=11", "test_cache.merged_miss=8", "test_cache.refetch=0"}; !slices.Equal(got, want) {
		t.Errorf("derived %v, want %v", got, want)
	}
	if ps[1].Minus != "test_cache.merged_misses" || ps[3].Required {
		t.Errorf("miss %+v, refetch %+v", ps[1], ps[3])
	}
	cs := slices.DeleteFunc(cacheCounters(1, 0), func(x cover.Reading) bool { return x.Counter == "test_cache.merged_misses" })
	if err := c.AddCounters(cs); err == nil || !strings.Contains(err.Error(), "test_cache.merged_misses") {
		t.Errorf("a missing minus figure: %v", err)
	}
}

// TestReport: a report holds each point's counts in the models that
// collect it and ran, its summary counts them, and it names every
// required point a model that ran left at zero; its JSON has the fields
// scripts read, and its Markdown the grids.
func TestReport(t *testing.T) {
	g, c := cover.New(), cover.New()
	g.Hit(cover.LengthZero)
	g.Hit(cover.LengthZero)
	if err := c.AddCounters(cacheCounters(0, 0)); err != nil { // hit reached, the rest not
		t.Fatal(err)
	}
	c.Result(prm.LocalRead, 1, prm.IndirectionDepth, 5)
	r := cover.NewReport(4, g, c)
	derived, _ := c.Derived()
	points := append(cover.Points(4), derived...)
	if len(r.Points) != len(points) || !slices.Equal(r.Models, []string{"golden", "clocked"}) {
		t.Fatalf("%d points, models %v", len(r.Points), r.Models)
	}
	var gRequired, cRequired, cPoints int
	for _, p := range points {
		if p.Required && p.Models&cover.Golden != 0 {
			gRequired++
		}
		if p.Models&cover.Clocked != 0 {
			cPoints++
			if p.Required {
				cRequired++
			}
		}
	}
	if s := r.Summary["golden"]; s.Reached != 1 || s.Required != gRequired || s.RequiredReached != 1 {
		t.Errorf("golden summary %+v", s)
	}
	if s := r.Summary["clocked"]; s.Points != cPoints || s.Reached != 2 || s.RequiredReached != 2 {
		t.Errorf("clocked summary %+v", s)
	}
	if len(r.Unreached) != gRequired-1+cRequired-2 || !slices.Contains(r.Unreached, "length.zero (clocked)") || slices.Contains(r.Unreached, "length.zero (golden)") {
		t.Errorf("%d unreached: %v", len(r.Unreached), r.Unreached[:5])
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MaxIndirection int `json:"max_indirection"`
		Points         []struct {
			Name        string            `json:"name"`
			Description string            `json:"description"`
			CollectedBy []string          `json:"collected_by"`
			Required    bool              `json:"required"`
			Counts      map[string]uint64 `json:"counts"`
		} `json:"points"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, p := range doc.Points {
		byName[p.Name] = i
	}
	lz, mh := doc.Points[byName["length.zero"]], doc.Points[byName["test_cache.hit"]]
	if doc.MaxIndirection != 4 || lz.Counts["golden"] != 2 || lz.Counts["clocked"] != 0 || len(lz.Counts) != 2 || !lz.Required || lz.Description == "" {
		t.Errorf("length.zero in JSON: %+v", lz)
	}
	if _, ok := mh.Counts["golden"]; ok || mh.Counts["clocked"] != 3 || !slices.Equal(mh.CollectedBy, []string{"clocked"}) {
		t.Errorf("test_cache.hit in JSON: %+v", mh)
	}
	// A model that did not run has no counts and nothing unreached.
	only := cover.NewReport(4, g, nil)
	if len(only.Summary) != 1 || slices.ContainsFunc(only.Unreached, func(s string) bool { return strings.HasSuffix(s, "(clocked)") }) {
		t.Errorf("golden-only report: summary %v", only.Summary)
	}
	var md bytes.Buffer
	r.WriteMarkdown(&md)
	for _, want := range []string{
		"| INDIRECTION_DEPTH | | | | | | ✗✓ |\n",
		"| MISALIGNED_ATOMIC | ✗✗ | | | | | |\n",
		"| `length.zero` | an access of length 0: OK with no segments, nothing checked | ✓ | ✗ | yes |\n",
		"| `test_cache.hit` | a lookup found its line (`test_cache.hits`) | - | ✓ | yes |\n",
		"| `test_cache.miss` | a lookup missed and read its line (`test_cache.misses - test_cache.merged_misses`) | - | ✗ | yes |\n",
		"## Units of the clocked model (derived from their counters)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}
