package vcd

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// digits renders little-endian words as exactly width binary digits, the
// form File.ValueAt returns.
func digits(words []uint64, width int) string {
	var sb strings.Builder
	for bit := width - 1; bit >= 0; bit-- {
		w := words[bit/64]
		sb.WriteByte(byte('0' + (w>>uint(bit%64))&1))
	}
	return sb.String()
}

// mustParse parses the writer's output or fails the test.
func mustParse(t *testing.T, b []byte) *File {
	t.Helper()
	f, err := Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, b)
	}
	return f
}

func TestWriterGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{Date: "today", Version: "v1", Comment: "seed 7", TimescalePS: 4000})
	top := w.Root("top")
	clk := top.Var("clk", 1)
	key := top.Scope("mptcache").Var("key", 32)
	key.Set(5) // initial value
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	w.At(1)
	clk.Set(1)
	key.Set(0xb)
	w.At(2)
	key.Set(0xb) // unchanged: no line, no time line
	w.At(3)
	clk.Set(0)
	key.Set(7)
	key.Set(0xb) // back to the written value: only clk changes
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := `$date
	today
$end
$version
	v1
$end
$comment
	seed 7
$end
$timescale 1ns $end
$scope module top $end
$var wire 1 ! clk $end
$scope module mptcache $end
$var wire 32 " key [31:0] $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
b101 "
$end
#4
1!
b1011 "
#12
0!
`
	if got := buf.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

func TestChooseTimescale(t *testing.T) {
	for _, tc := range []struct {
		period uint64
		unit   string
		mult   uint64
	}{
		{0, "1ns", 1},
		{1000, "1ns", 1},
		{4000, "1ns", 4},
		{10000, "10ns", 1},
		{2500, "100ps", 25},
		{3333, "1ps", 3333},
		{500000, "100ns", 5},
		{1000000, "1us", 1},
		{1, "1ps", 1},
	} {
		unit, mult := chooseTimescale(tc.period, false)
		if unit != tc.unit || mult != tc.mult {
			t.Errorf("chooseTimescale(%d) = %s x%d, want %s x%d", tc.period, unit, mult, tc.unit, tc.mult)
		}
	}
}

func TestIDCode(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "!"}, {1, `"`}, {93, "~"}, {94, "!!"}, {95, `"!`}, {94 + 94*94, "!!!"},
	} {
		if got := idCode(tc.n); got != tc.want {
			t.Errorf("idCode(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	seen := map[string]bool{}
	for n := 0; n < 20000; n++ {
		id := idCode(n)
		if seen[id] || !validID(id) {
			t.Fatalf("idCode(%d) = %q repeated or invalid", n, id)
		}
		seen[id] = true
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"mptcache", "mptcache"},
		{"mpt cache", "mpt_cache"},
		{"top.mptcache", "top_mptcache"},
		{"mem[3]", "mem_3_"},
		{"", "_"},
		{"a$b\tc", "a_b_c"},
		{"état", "__tat"},
	} {
		if got := sanitize(tc.in); got != tc.want {
			t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	w := NewWriter(io.Discard, Options{})
	top := w.Root("top")
	a1, a2 := top.Var("a", 1), top.Var("a", 1)
	s1 := top.Scope("a") // name taken by a variable
	s2 := top.Scope("a")
	d := top.Scope("x.y").Var("v w", 8)
	for _, tc := range []struct{ got, want string }{
		{a1.Path(), "top.a"},
		{a2.Path(), "top.a_2"},
		{s1.Path(), "top.a_3"},
		{d.Path(), "top.x_y.v_w"},
		{d.Name(), "top.x_y.v_w[7:0]"},
		{a1.Name(), "top.a"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if s1 != s2 {
		t.Error("Scope with the same name returned two scopes")
	}
	if w.Root("top") != top {
		t.Error("Root with the same name returned two scopes")
	}
}

// TestRoundTrip writes nested scopes and 1-, 3-, 32-, 64- and 512-bit
// variables with random changes, parses the file back and checks every
// variable at every cycle, the number of changes written, and that each
// time line carries a change.
func TestRoundTrip(t *testing.T) {
	const period, cycles = 4000, 400
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{TimescalePS: period})
	top := w.Root("top")
	mc := top.Scope("mptcache")
	mshr := mc.Scope("mshr")
	vars := []*Var{
		top.Var("clk", 1),
		top.Var("state", 3),
		mc.Var("key", 32),
		mc.Var("va", 64),
		mshr.Var("mkc", 512),
		mshr.Var("odd", 100),
	}
	paths := []string{"top.clk", "top.state", "top.mptcache.key", "top.mptcache.va", "top.mptcache.mshr.mkc", "top.mptcache.mshr.odd"}
	rng := rand.New(rand.NewPCG(1, 2))
	cur := make([][]uint64, len(vars))
	for i, v := range vars {
		cur[i] = make([]uint64, (v.Width()+63)/64)
	}
	// set gives var i a random value through one of the setters and
	// mirrors it in cur.
	set := func(i int) {
		v, words := vars[i], cur[i]
		for k := range words {
			words[k] = rng.Uint64()
			if rng.IntN(3) == 0 {
				words[k] = uint64(rng.IntN(4)) // small values, leading zeros
			}
		}
		if r := v.Width() % 64; r != 0 {
			words[len(words)-1] &= 1<<uint(r) - 1
		}
		switch {
		case len(words) == 1 && rng.IntN(2) == 0:
			junk := ^uint64(0) << uint(v.Width()) // bits above the width are dropped
			if v.Width() == 64 {
				junk = 0
			}
			v.Set(words[0] | junk)
		case rng.IntN(2) == 0:
			b := make([]byte, 8*len(words))
			for k, x := range words {
				for j := 0; j < 8; j++ {
					b[len(b)-1-8*k-j] = byte(x >> uint(8*j))
				}
			}
			v.SetBytes(b)
		default:
			v.SetBits(words)
		}
	}
	set(3) // an initial value before Begin
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	want := make([][]string, cycles) // want[cycle][var]
	changes := make([]int, len(vars))
	for c := uint64(0); c < cycles; c++ {
		w.At(c)
		for i := range vars {
			if rng.IntN(4) == 0 {
				set(i)
				if rng.IntN(3) == 0 {
					set(i) // two sets in one cycle: the last one counts
				}
			}
		}
		want[c] = make([]string, len(vars))
		for i, v := range vars {
			want[c][i] = digits(cur[i], v.Width())
			if c == 0 || want[c][i] != want[c-1][i] {
				changes[i]++
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := mustParse(t, buf.Bytes())
	if f.Timescale != "1ns" {
		t.Errorf("Timescale = %q", f.Timescale)
	}
	if len(f.Vars) != len(vars) {
		t.Fatalf("%d vars parsed, want %d", len(f.Vars), len(vars))
	}
	for i, v := range vars {
		if got := f.Vars[i]; got.Path != paths[i] || got.Width != v.Width() || got.ID != v.ID() {
			t.Errorf("var %d = %+v, want %s/%d/%s", i, got, paths[i], v.Width(), v.ID())
		}
	}
	for c := uint64(0); c < cycles; c++ {
		for i := range vars {
			got, ok := f.ValueAt(paths[i], c*4)
			if !ok || got != want[c][i] {
				t.Fatalf("cycle %d %s = %q %v, want %q", c, paths[i], got, ok, want[c][i])
			}
		}
	}
	// Cycle 0 holds both the $dumpvars value and cycle 0's changes; the
	// reader merges them, so count it once.
	for i := range vars {
		if n := len(f.Changes(paths[i])); n != changes[i] {
			t.Errorf("%s: %d changes written, want %d", paths[i], n, changes[i])
		}
	}
	times := map[uint64]bool{}
	for _, p := range paths {
		for _, ch := range f.Changes(p) {
			times[ch.Time] = true
		}
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "#") {
			tm, _ := strconv.ParseUint(line[1:], 10, 64)
			if !times[tm] {
				t.Errorf("time line %s without a change", line)
			}
		}
	}
}

// TestWindow checks Options.From/To: nothing written outside the window,
// right values inside it even for variables that last changed before it.
func TestWindow(t *testing.T) {
	all := make([]uint64, 41)
	for i := range all {
		all[i] = uint64(i)
	}
	for _, tc := range []struct {
		name     string
		from, to uint64
		visit    []uint64 // cycles passed to At, in order
	}{
		{"inside", 10, 20, all},
		{"no end", 10, 0, all},
		{"no start", 0, 20, all},
		{"jump over start", 10, 20, []uint64{0, 3, 5, 15, 25, 30}},
		{"jump over window", 10, 20, []uint64{0, 3, 25, 30}},
		{"start on visit", 3, 20, []uint64{0, 3, 25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, Options{TimescalePS: 1000, From: tc.from, To: tc.to})
			top := w.Root("top")
			cnt, slow := top.Var("cnt", 8), top.Var("slow", 4)
			if err := w.Begin(); err != nil {
				t.Fatal(err)
			}
			type snap struct{ cycle, cnt, slow uint64 }
			var hist []snap
			var s uint64
			for _, c := range tc.visit {
				w.At(c)
				cnt.Set(c)
				switch c {
				case 3:
					s = 7
				case 25:
					s = 9
				}
				slow.Set(s)
				hist = append(hist, snap{c, c, s})
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			stateAt := func(t uint64) snap {
				st := snap{}
				for _, h := range hist {
					if h.cycle <= t {
						st = h
					}
				}
				return st
			}
			f := mustParse(t, buf.Bytes())
			end := tc.visit[len(tc.visit)-1]
			last := end
			if tc.to != 0 && tc.to < end {
				last = tc.to
			}
			for c := uint64(0); c <= end+2; c++ {
				var st snap
				switch {
				case c < tc.from:
					st = snap{cnt: 0, slow: 0} // only the #0 dump
					if tc.from == 0 {
						st = stateAt(c)
					}
				case c > last:
					st = stateAt(last)
				default:
					st = stateAt(c)
				}
				if got, _ := f.ValueAt("top.cnt", c); got != digits([]uint64{st.cnt}, 8) {
					t.Errorf("cnt at %d = %s, want %d", c, got, st.cnt)
				}
				if got, _ := f.ValueAt("top.slow", c); got != digits([]uint64{st.slow}, 4) {
					t.Errorf("slow at %d = %s, want %d", c, got, st.slow)
				}
			}
			for _, p := range []string{"top.cnt", "top.slow"} {
				for _, ch := range f.Changes(p) {
					if ch.Time != 0 && (ch.Time < tc.from || tc.to != 0 && ch.Time > tc.to) {
						t.Errorf("%s written at %d, outside [%d, %d]", p, ch.Time, tc.from, tc.to)
					}
				}
			}
		})
	}
}

// TestScopeFilter checks that Options.Scope declares only the variables
// of matching scopes and of their descendants.
func TestScopeFilter(t *testing.T) {
	all := []string{"top.clk", "top.mptcache.key", "top.mptcache.mshr.busy", "top.mttwalk.state", "top.klmwalk.depth"}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"", all},
		{"top", all},
		{"top.mptcache", []string{"top.mptcache.key", "top.mptcache.mshr.busy"}},
		{"top.mptcache.mshr", []string{"top.mptcache.mshr.busy"}},
		{"top.*walk", []string{"top.mttwalk.state", "top.klmwalk.depth"}},
		{"top.mpt*", []string{"top.mptcache.key", "top.mptcache.mshr.busy"}},
		{"top.mptcache.mshr, top.klmwalk", []string{"top.mptcache.mshr.busy", "top.klmwalk.depth"}},
		{"*.mshr", nil},
		{"top.*.mshr", []string{"top.mptcache.mshr.busy"}},
		{"nothing", nil},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, Options{Scope: tc.pattern})
			top := w.Root("top")
			mc := top.Scope("mptcache")
			vars := map[string]*Var{
				"top.clk":                top.Var("clk", 1),
				"top.mptcache.key":       mc.Var("key", 32),
				"top.mptcache.mshr.busy": mc.Scope("mshr").Var("busy", 1),
				"top.mttwalk.state":      top.Scope("mttwalk").Var("state", 4),
				"top.klmwalk.depth":      top.Scope("klmwalk").Var("depth", 3),
			}
			if err := w.Begin(); err != nil {
				t.Fatal(err)
			}
			for _, v := range vars {
				v.Set(1) // nil for filtered-out variables: a no-op
			}
			w.At(1)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f := mustParse(t, buf.Bytes())
			wanted := map[string]bool{}
			for _, p := range tc.want {
				wanted[p] = true
				if _, ok := f.Var(p); !ok {
					t.Errorf("%s not declared", p)
				}
			}
			for p, v := range vars {
				if (v != nil) != wanted[p] {
					t.Errorf("%s: Var returned %v, want declared=%v", p, v, wanted[p])
				}
			}
			if len(f.Vars) != len(tc.want) {
				t.Errorf("%d vars declared, want %d", len(f.Vars), len(tc.want))
			}
			if !wanted["top.mttwalk.state"] && strings.Contains(buf.String(), "mttwalk") {
				t.Error("empty scope mttwalk declared")
			}
		})
	}
}

func TestBadScopePattern(t *testing.T) {
	w := NewWriter(io.Discard, Options{Scope: "top.[mpt"})
	if err := w.Begin(); err == nil || !strings.Contains(err.Error(), "bad scope pattern") {
		t.Errorf("Begin = %v, want a bad scope pattern error", err)
	}
}

// TestNil checks that a nil Writer, Scope and Var do nothing, without
// panicking or allocating.
func TestNil(t *testing.T) {
	var w *Writer
	s := w.Root("top")
	v := s.Scope("x").Var("v", 8)
	if s != nil || v != nil {
		t.Fatal("nil writer returned a scope or var")
	}
	if err := w.Begin(); err != nil {
		t.Error(err)
	}
	if err := w.At(5); err != nil {
		t.Error(err)
	}
	v.Set(1)
	v.SetBool(true)
	v.SetBits([]uint64{1, 2})
	v.SetBytes([]byte{1})
	if v.Path() != "" || v.Name() != "" || v.Width() != 0 || v.ID() != "" || s.Path() != "" || w.Now() != 0 || w.Err() != nil {
		t.Error("nil accessors returned something")
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
	words := []uint64{3}
	if n := testing.AllocsPerRun(100, func() {
		v.Set(1)
		v.SetBits(words)
		w.At(7)
	}); n != 0 {
		t.Errorf("nil calls allocate %v times", n)
	}
}

// TestHotPathAllocs checks that value changes and time steps do not
// allocate once the writer is running.
func TestHotPathAllocs(t *testing.T) {
	w := NewWriter(io.Discard, Options{TimescalePS: 4000})
	top := w.Root("top")
	a, b, c := top.Var("a", 1), top.Var("b", 64), top.Var("c", 512)
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, 8)
	img := make([]byte, 64)
	cycle := uint64(0)
	step := func() {
		cycle++
		w.At(cycle)
		a.Set(cycle & 1)
		b.Set(cycle * 0x9e3779b97f4a7c15)
		words[cycle%8] = cycle
		c.SetBits(words)
		img[cycle%64]++
		c.SetBytes(img)
	}
	for i := 0; i < 100; i++ {
		step() // let the dirty list and scratch buffer grow
	}
	if n := testing.AllocsPerRun(1000, step); n != 0 {
		t.Errorf("a cycle allocates %v times", n)
	}
}

// TestWriterErrors checks that misuse is reported, never panics, and
// leaves a file the strict reader accepts.
func TestWriterErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(w *Writer, v *Var)
		want string
	}{
		{"time backwards", func(w *Writer, v *Var) {
			w.At(5)
			v.Set(1)
			if err := w.At(3); err == nil {
				panic("At(3) after At(5) returned nil")
			}
			v.Set(2)
			w.At(6)
		}, "time went backwards"},
		{"var after Begin", func(w *Writer, v *Var) {
			if w.Root("top").Var("late", 1) != nil || w.Root("late") != nil {
				panic("declaration after Begin returned a value")
			}
		}, "after Begin"},
		{"Begin twice", func(w *Writer, v *Var) { w.Begin() }, "Begin called twice"},
		{"time overflow", func(w *Writer, v *Var) { w.At(1 << 62) }, "overflows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, Options{TimescalePS: 4000})
			v := w.Root("top").Var("v", 8)
			if err := w.Begin(); err != nil {
				t.Fatal(err)
			}
			tc.run(w, v)
			err := w.Close()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Close = %v, want an error containing %q", err, tc.want)
			}
			mustParse(t, buf.Bytes())
		})
	}
	for _, width := range []int{0, -1, MaxWidth + 1} {
		w := NewWriter(io.Discard, Options{})
		if v := w.Root("top").Var("v", width); v != nil {
			t.Errorf("Var width %d returned a var", width)
		}
		if err := w.Close(); err == nil || !strings.Contains(err.Error(), "width") {
			t.Errorf("width %d: Close = %v", width, err)
		}
	}
}

// TestCloseWithoutBegin checks that Close alone still gives a whole file.
func TestCloseWithoutBegin(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{})
	w.Root("top").Var("v", 4).Set(3)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, ok := mustParse(t, buf.Bytes()).ValueAt("top.v", 0); !ok || got != "0011" {
		t.Errorf("top.v = %q %v", got, ok)
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestWriteError(t *testing.T) {
	w := NewWriter(errWriter{}, Options{})
	w.Root("top").Var("v", 1)
	w.Begin()
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Close = %v, want the write error", err)
	}
}

// BenchmarkWriter measures value changes written per second: 64 variables
// of 1, 32, 64 and 512 bits all changing every cycle.
func BenchmarkWriter(b *testing.B) {
	w := NewWriter(io.Discard, Options{TimescalePS: 4000})
	top := w.Root("top")
	var narrow, wide []*Var
	widths := []int{1, 32, 64, 512}
	for i := 0; i < 64; i++ {
		v := top.Scope(fmt.Sprintf("u%d", i%8)).Var(fmt.Sprintf("v%d", i), widths[i%4])
		if v.Width() > 64 {
			wide = append(wide, v)
		} else {
			narrow = append(narrow, v)
		}
	}
	if err := w.Begin(); err != nil {
		b.Fatal(err)
	}
	words := make([]uint64, 8)
	b.ReportAllocs()
	cycle := uint64(0)
	for b.Loop() {
		cycle++
		w.At(cycle)
		x := cycle * 0x9e3779b97f4a7c15
		for _, v := range narrow {
			x ^= x << 13
			x ^= x >> 7
			v.Set(x)
		}
		for _, v := range wide {
			words[cycle%8] = x + cycle
			v.SetBits(words)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cycle)*64/b.Elapsed().Seconds(), "changes/s")
}

func TestAppendBinary(t *testing.T) {
	ones := strings.Repeat("1", 64)
	zeros := strings.Repeat("0", 64)
	for _, tc := range []struct {
		words []uint64
		want  string
	}{
		{[]uint64{0}, "0"},
		{[]uint64{1}, "1"},
		{[]uint64{0xb}, "1011"},
		{[]uint64{^uint64(0)}, ones},
		{[]uint64{5, 0, 0}, "101"},
		{[]uint64{0, 1}, "1" + zeros},
		{[]uint64{^uint64(0), 2}, "10" + ones},
		{[]uint64{0x8000000000000001, 1}, "1" + "1" + strings.Repeat("0", 62) + "1"},
	} {
		if got := string(appendBinary(nil, tc.words)); got != tc.want {
			t.Errorf("appendBinary(%#x) = %s, want %s", tc.words, got, tc.want)
		}
	}
	for c := 0; c < 256; c++ {
		var b [8]byte
		for k := range b {
			b[k] = byte('0' + c>>uint(7-k)&1)
		}
		if got := byteDigits(byte(c)); got != uint64FromBytes(b) {
			t.Fatalf("byteDigits(%d) = %#x", c, got)
		}
	}
}

// uint64FromBytes packs b big-endian.
func uint64FromBytes(b [8]byte) uint64 {
	var x uint64
	for _, c := range b {
		x = x<<8 | uint64(c)
	}
	return x
}
