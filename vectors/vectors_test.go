package vectors

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mkeysim/prm"
)

const examplesDir = "../examples"

func opts(unit string, count int, seed uint64) Options {
	o := DefaultOptions()
	o.Unit, o.Count, o.Seed, o.Examples = unit, count, seed, examplesDir
	return o
}

func generate(t testing.TB, o Options) *Output {
	t.Helper()
	out, err := Generate(o)
	if err != nil {
		t.Fatalf("%s: %v", o.Unit, err)
	}
	return out
}

func file(t testing.TB, out *Output, name string) []byte {
	t.Helper()
	for _, f := range out.Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("no file %s", name)
	return nil
}

// readManifest parses the manifest as a Verilog team would: from the JSON.
func readManifest(t testing.TB, out *Output) *Manifest {
	t.Helper()
	var m Manifest
	if err := json.Unmarshal(file(t, out, out.Manifest.Unit+".manifest.json"), &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// hexLines returns the word lines of a hex file (not the // header).
func hexLines(data []byte) []string {
	var ls []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if s := sc.Text(); !strings.HasPrefix(s, "//") {
			ls = append(ls, s)
		}
	}
	return ls
}

func TestSameSeedSameBytes(t *testing.T) {
	for _, u := range Units() {
		t.Run(u, func(t *testing.T) {
			a, b := generate(t, opts(u, 1500, 42)), generate(t, opts(u, 1500, 42))
			if len(a.Files) != len(b.Files) {
				t.Fatalf("%d files, then %d", len(a.Files), len(b.Files))
			}
			for i := range a.Files {
				if a.Files[i].Name != b.Files[i].Name || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
					t.Errorf("%s differs between two runs with the same seed", a.Files[i].Name)
				}
			}
			c := generate(t, opts(u, 1500, 43))
			if bytes.Equal(file(t, a, u+".hex"), file(t, c, u+".hex")) {
				t.Errorf("seeds 42 and 43 give the same vectors")
			}
		})
	}
}

// TestSameSeedSameFiles writes twice through the command's path (Write)
// into two directories and compares the files on disk.
func TestSameSeedSameFiles(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	var os1 []Options
	for _, u := range Units() {
		os1 = append(os1, opts(u, 500, 9))
	}
	if _, err := WriteAll(os1, d1); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteAll(os1, d2); err != nil {
		t.Fatal(err)
	}
	e1, _ := os.ReadDir(d1)
	e2, _ := os.ReadDir(d2)
	if len(e1) != len(e2) || len(e1) < 5*5 {
		t.Fatalf("%d and %d files", len(e1), len(e2))
	}
	for _, e := range e1 {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
		x, _ := os.ReadFile(filepath.Join(d1, e.Name()))
		y, err := os.ReadFile(filepath.Join(d2, e.Name()))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs (%v)", e.Name(), err)
		}
	}
}

func TestStatusCoverage(t *testing.T) {
	want := map[string][]prm.Status{
		// Every status ref.Check returns.
		"protcheck": {prm.OK, prm.BadKeyIndex, prm.KeyMismatch, prm.MKeyFree, prm.PDMismatch, prm.QPNMismatch, prm.OutOfRange, prm.AccessDenied, prm.BadAccessMode, prm.MisalignedAtomic},
		"mttwalk":   {prm.OK, prm.TranslationRange},
		"klmwalk":   {prm.OK, prm.TranslationRange},
		"top":       accessStatuses(),
	}
	corners := map[string][]string{
		"mttwalk":  {"page_split", "t_nonzero", "2gb_pages", "last_byte_2_64", "va_below_start"},
		"klmwalk":  {"fbs", "klm", "klm_entry3", "fbs_entry3", "klm_entry_split", "fbs_entry_split", "klm_lower_addr_wraps", "klm_skips_zero_entry", "klm_2gb_entry"},
		"mptcache": {"LOOKUP_HIT", "LOOKUP_MISS", "FILL", "FILL_WAY_N", "FILL_EVICT", "INVAL_HIT", "INVAL_MISS", "INVAL_ALL"},
		"top":      {"multi_segment", "more_than_max_segs", "failure_below_level_0"},
		"atc":      {"LOOKUP_OK_READ", "LOOKUP_UR", "INVAL_HELD", "RELEASE_COMPLETES"},
	}
	for _, u := range Units() {
		// Random vectors alone must cover it; the examples add directed ones.
		for _, ex := range []string{"", examplesDir} {
			o := opts(u, 4096, 1)
			o.Examples = ex
			out := generate(t, o)
			count := map[prm.Status]int{}
			switch vs := out.Vectors.(type) {
			case []ProtcheckVector:
				for _, v := range vs {
					count[v.Status]++
				}
			case []MTTWalkVector:
				for _, v := range vs {
					count[v.Status]++
				}
			case []KLMWalkVector:
				for _, v := range vs {
					count[v.Status]++
				}
			case []TopVector:
				for _, v := range vs {
					count[v.Status]++
				}
			}
			for _, st := range want[u] {
				if count[st] == 0 {
					t.Errorf("%s (examples %q): no vector ends with %v", u, ex, st)
				}
				if out.Manifest.Coverage[st.String()] != count[st] {
					t.Errorf("%s: manifest coverage says %d x %v, vectors have %d", u, out.Manifest.Coverage[st.String()], st, count[st])
				}
			}
			for _, c := range corners[u] {
				if out.Manifest.Coverage[c] == 0 {
					t.Errorf("%s (examples %q): corner %s not covered", u, ex, c)
				}
			}
		}
	}
}

// TestCoveragePoints: in 10,000 random vectors (no examples) every named
// coverage point of every unit appears at least MinPointCount times, for
// mptcache under both policies in caches of up to 64 lines; the manifest
// reports every named point and nothing else.
func TestCoveragePoints(t *testing.T) {
	type geom struct {
		sets, ways int
		repl       string
	}
	cases := []struct {
		unit string
		g    geom
	}{
		{"protcheck", geom{}}, {"mttwalk", geom{}}, {"klmwalk", geom{}}, {"top", geom{}}, {"atc", geom{}},
		{"mptcache", geom{16, 4, "lru"}}, {"mptcache", geom{16, 4, "random"}},
		{"mptcache", geom{1, 1, "lru"}}, {"mptcache", geom{1, 4, "random"}}, {"mptcache", geom{4, 3, "random"}},
		{"mptcache", geom{8, 8, "lru"}}, {"mptcache", geom{32, 2, "random"}},
	}
	for _, c := range cases {
		name := c.unit
		if c.unit == "mptcache" {
			name = fmt.Sprintf("%s_%dx%d_%s", c.unit, c.g.sets, c.g.ways, c.g.repl)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := opts(c.unit, 10000, 1)
			o.Examples = ""
			if c.unit == "mptcache" {
				o.Sets, o.Ways, o.Replacement = c.g.sets, c.g.ways, c.g.repl
			}
			m := readManifest(t, generate(t, o))
			if len(m.CoveragePoints) == 0 {
				t.Fatal("no coverage points")
			}
			named := map[string]bool{}
			for _, p := range m.CoveragePoints {
				named[p.Name] = true
				n, ok := m.Coverage[p.Name]
				switch {
				case !ok:
					t.Errorf("coverage has no count for point %s", p.Name)
				case n < MinPointCount:
					t.Errorf("point %s (%s): %d vectors of 10000, want at least %d", p.Name, p.Meaning, n, MinPointCount)
				}
				if p.Meaning == "" {
					t.Errorf("point %s has no meaning", p.Name)
				}
			}
			for k := range m.Coverage {
				if !named[k] {
					t.Errorf("coverage counts %s, which coverage_points does not name", k)
				}
			}
		})
	}
}

// TestManifestFields checks, from the JSON, that every field lies inside
// the line, no two overlap, together they cover it, and the width is a
// whole number of hex digits; the same for tables; and that the DUT's
// ports are the input and expected fields (plus the handshake's ports).
func TestManifestFields(t *testing.T) {
	for _, u := range Units() {
		out := generate(t, opts(u, 64, 1))
		m := readManifest(t, out)
		check := func(what string, fields []Field, width, digits int) {
			if width != 4*digits {
				t.Errorf("%s: width %d is not %d hex digits", what, width, digits)
			}
			owner := make([]string, width)
			for _, f := range fields {
				if f.LSB < 0 || f.Width < 1 || f.LSB+f.Width > width {
					t.Errorf("%s: field %s [%d +: %d] outside %d bits", what, f.Name, f.LSB, f.Width, width)
					continue
				}
				for b := f.LSB; b < f.LSB+f.Width; b++ {
					if owner[b] != "" {
						t.Errorf("%s: bit %d in %s and %s", what, b, owner[b], f.Name)
					}
					owner[b] = f.Name
				}
				if f.Dir != DirFrame && f.Dir != DirInput && f.Dir != DirExpected {
					t.Errorf("%s: field %s direction %q", what, f.Name, f.Dir)
				}
				if f.Meaning == "" {
					t.Errorf("%s: field %s has no meaning", what, f.Name)
				}
			}
			for b, o := range owner {
				if o == "" {
					t.Errorf("%s: bit %d belongs to no field", what, b)
				}
			}
			if top := fields[0]; top.Name != "marker" || top.LSB+top.Width != width {
				t.Errorf("%s: the marker is not the top byte", what)
			}
		}
		check(u, m.Fields, m.LineWidth, m.HexDigits)
		// The package, the harness and the echo DUT come from the manifest
		// alone.
		for name, gen := range map[string]func(*Manifest) string{"_pkg.sv": PackageSV, "_tb.sv": TestbenchSV, "_echo.sv": EchoSV} {
			if gen(m) != string(file(t, out, u+name)) {
				t.Errorf("%s%s differs when made from the JSON manifest", u, name)
			}
		}
		for _, tb := range m.Tables {
			check(u+" table "+tb.Name, tb.Fields, tb.LineWidth, tb.HexDigits)
		}
		ports := map[string]Port{}
		for _, p := range m.DUT.Ports {
			ports[p.Name] = p
		}
		for _, f := range m.Fields {
			p, ok := ports[f.Name]
			switch {
			case f.Dir == DirFrame && ok:
				t.Errorf("%s: frame field %s is a port", u, f.Name)
			case f.Dir == DirInput && (!ok || p.Direction != "input" || p.Width != f.Width):
				t.Errorf("%s: input field %s has no input port of width %d", u, f.Name, f.Width)
			case f.Dir == DirExpected && (!ok || p.Direction != "output" || p.Width != f.Width):
				t.Errorf("%s: expected field %s has no output port of width %d", u, f.Name, f.Width)
			}
		}
		if m.Count != 64 || m.Seed != 1 || m.Command == "" || m.ModelVersion == "" || m.DUT.Handshake == "" || len(m.Enums) == 0 {
			t.Errorf("%s: manifest lacks count, seed, command, version, handshake or enums: %+v", u, m)
		}
	}
}

func TestLineWidths(t *testing.T) {
	for _, u := range Units() {
		out := generate(t, opts(u, 2000, 3))
		m := readManifest(t, out)
		ls := hexLines(file(t, out, m.File))
		if len(ls) != m.Count {
			t.Errorf("%s: %d lines, manifest count %d", u, len(ls), m.Count)
		}
		for i, s := range ls {
			if len(s) != m.HexDigits || strings.Trim(s, "0123456789abcdef") != "" {
				t.Fatalf("%s line %d: %d characters %q, want %d lower-case hex digits", u, i, len(s), s[:min(len(s), 20)], m.HexDigits)
			}
		}
		for _, tb := range m.Tables {
			ls := hexLines(file(t, out, tb.File))
			if len(ls) != tb.Count {
				t.Errorf("%s table %s: %d lines, manifest count %d", u, tb.Name, len(ls), tb.Count)
			}
			for i, s := range ls {
				if len(s) != tb.HexDigits {
					t.Fatalf("%s table %s line %d: %d digits, want %d", u, tb.Name, i, len(s), tb.HexDigits)
				}
			}
		}
	}
}

// layoutFromManifest rebuilds the line layout from the manifest's JSON
// fields alone.
func layoutFromManifest(fields []Field, width int) *Layout {
	l := &Layout{Fields: fields, Width: width, byName: map[string]int{}}
	for i, f := range fields {
		l.byName[f.Name] = i
	}
	return l
}

// TestDecodeRoundTrip reads every line back through the manifest and
// rebuilds the stimulus and expected values that produced it.
func TestDecodeRoundTrip(t *testing.T) {
	for _, u := range Units() {
		out := generate(t, opts(u, 3000, 5))
		m := readManifest(t, out)
		l := layoutFromManifest(m.Fields, m.LineWidth)
		ls := hexLines(file(t, out, m.File))
		got := reflect.MakeSlice(reflect.TypeOf(out.Vectors), len(ls), len(ls))
		for i, s := range ls {
			ln, err := ParseHexLine(s, m.LineWidth)
			if err != nil {
				t.Fatalf("%s line %d: %v", u, i, err)
			}
			if l.Get(ln, "marker") != Marker || l.Get(ln, "seq") != uint64(i) {
				t.Fatalf("%s line %d: marker %#x seq %d", u, i, l.Get(ln, "marker"), l.Get(ln, "seq"))
			}
			if f, ok := l.Field("pad"); ok && ln.getBits(f.LSB, f.Width) != 0 {
				t.Fatalf("%s line %d: padding not zero", u, i)
			}
			var v any
			switch u {
			case "protcheck":
				v = decodeProtcheck(l, ln)
			case "mttwalk":
				v = decodeMTTWalk(l, ln)
			case "klmwalk":
				v = decodeKLMWalk(l, ln)
			case "mptcache":
				v = decodeMPTCache(l, ln)
			case "top":
				v = decodeTop(l, ln)
			case "atc":
				var err error
				if v, err = decodeATC(l, ln); err != nil {
					t.Fatalf("atc line %d: %v", i, err)
				}
			}
			got.Index(i).Set(reflect.ValueOf(v))
		}
		want := reflect.ValueOf(out.Vectors)
		for i := 0; i < want.Len(); i++ {
			if !reflect.DeepEqual(got.Index(i).Interface(), want.Index(i).Interface()) {
				t.Fatalf("%s vector %d decodes to\n%+v\nwant\n%+v", u, i, got.Index(i).Interface(), want.Index(i).Interface())
			}
		}
	}
}

// TestProtcheckOracle: the expected status is ref.Check's, vector by
// vector, and the directed vectors are the examples' accesses.
func TestOracleAgain(t *testing.T) {
	out := generate(t, opts("protcheck", 2000, 11))
	for i, v := range out.Vectors.([]ProtcheckVector) {
		w := v
		w.oracle()
		if w.Status != v.Status {
			t.Fatalf("vector %d: status %v, ref.Check says %v", i, v.Status, w.Status)
		}
	}
	mt := generate(t, opts("mttwalk", 500, 11))
	for i, v := range mt.Vectors.([]MTTWalkVector) {
		w := v
		if err := w.oracle(); err != nil || w != v {
			t.Fatalf("mttwalk vector %d: %+v then %+v (%v)", i, v, w, err)
		}
	}
	if out.Manifest.Directed == 0 || len(out.Manifest.DirectedSources) < 30 {
		t.Errorf("%d directed vectors from %d examples", out.Manifest.Directed, len(out.Manifest.DirectedSources))
	}
}

// TestKLMOracleKeys: the KLM oracle swaps each entry's key for a probe key;
// the answer must not depend on which keys the entries carried.
func TestKLMOracleKeys(t *testing.T) {
	out := generate(t, opts("klmwalk", 300, 12))
	for i, v := range out.Vectors.([]KLMWalkVector) {
		w := v
		for j := range w.Entries {
			w.Entries[j].MKey = prm.Key(0x1234500 + j)
		}
		if err := w.oracle(); err != nil {
			t.Fatal(err)
		}
		w.Entries, w.LowerKey = v.Entries, v.LowerKey
		if w != v {
			t.Fatalf("klmwalk vector %d: %+v with other keys gives %+v", i, v, w)
		}
	}
}

func TestBadOptions(t *testing.T) {
	cases := []struct {
		change     func(*Options)
		flag, text string
	}{
		{func(o *Options) { o.Unit = "tlb" }, "unit", `"tlb"`},
		{func(o *Options) { o.Count = 0 }, "count", "0"},
		{func(o *Options) { o.Count = -5 }, "count", "-5"},
		{func(o *Options) { o.Unit, o.Sets = "mptcache", 12 }, "mkc-cache.sets", "12"},
		{func(o *Options) { o.Unit, o.Sets = "mptcache", 0 }, "mkc-cache.sets", "0"},
		{func(o *Options) { o.Unit, o.Ways = "mptcache", 0 }, "mkc-cache.ways", "0"},
		{func(o *Options) { o.Unit, o.Ways = "mptcache", 65 }, "mkc-cache.ways", "65"},
		{func(o *Options) { o.Unit, o.Replacement = "mptcache", "fifo" }, "mkc-cache.replacement", `"fifo"`},
		{func(o *Options) { o.Examples = "/no/such/dir" }, "examples", "/no/such/dir"},
	}
	for _, c := range cases {
		o := opts("protcheck", 10, 1)
		c.change(&o)
		_, err := Generate(o)
		var fe *FlagError
		if !errors.As(err, &fe) || fe.Flag != c.flag || fe.Value != c.text {
			t.Errorf("%+v: got %v, want an error naming --%s %s", o, err, c.flag, c.text)
		}
	}
}

func TestWriteUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := generate(t, opts("mptcache", 10, 1))
	err := Write(out, filepath.Join(blocker, "sub"))
	var fe *FlagError
	if !errors.As(err, &fe) || fe.Flag != "out" {
		t.Fatalf("got %v, want an error naming --out", err)
	}
	// A failure while writing leaves nothing behind: make the temporary
	// directory's files collide with a directory of the same name.
	dst := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(dst, out.Files[len(out.Files)-1].Name, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, dst); err == nil {
		t.Fatal("renaming onto a non-empty directory succeeded")
	}
	es, _ := os.ReadDir(dst)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("%s left behind", e.Name())
		}
	}
}

// TestHundredThousand: 100k vectors per unit are made and written in a
// few seconds.
func TestHundredThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	for _, u := range Units() {
		start := time.Now()
		out := generate(t, opts(u, 100000, 1))
		if err := Write(out, dir); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		t.Logf("%s: 100000 vectors in %v", u, d.Round(time.Millisecond))
		if d > 10*time.Second {
			t.Errorf("%s: 100000 vectors took %v, want a few seconds", u, d)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, u := range Units() {
		b.Run(u, func(b *testing.B) {
			for range b.N {
				if _, err := Generate(opts(u, 10000, 1)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "vectors/s")
		})
	}
}

func ExampleGenerate() {
	o := DefaultOptions()
	o.Unit, o.Count, o.Examples = "protcheck", 100, ""
	out, err := Generate(o)
	if err != nil {
		panic(err)
	}
	for _, f := range out.Files {
		fmt.Println(f.Name)
	}
	// Output:
	// protcheck.hex
	// protcheck.manifest.json
	// protcheck_pkg.sv
	// protcheck_tb.sv
	// protcheck_echo.sv
}

// TestREADMEPorts keeps README.md's port tables equal to the manifests'.
func TestREADMEPorts(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range Units() {
		o := opts(u, 10, 1)
		o.Examples = ""
		m := generate(t, o).Manifest
		if !bytes.Contains(readme, []byte(fmt.Sprintf("### Ports: %s (`%s`, %s)", u, m.DUT.Module, m.DUT.Handshake))) {
			t.Errorf("README.md has no port table for %s", u)
		}
		for _, p := range m.DUT.Ports {
			row := fmt.Sprintf("| `%s` | %s | %d | %s |", p.Name, p.Direction, p.Width, p.Meaning)
			if !bytes.Contains(readme, []byte(row)) {
				t.Errorf("README.md lacks the %s port row %s", u, row)
			}
		}
	}
}

// TestDirectedSourcesAreTheFilesUsed: directed_sources names the example
// files that gave vectors, not every file read: with a count the first
// examples fill, the later files are not named.
func TestDirectedSourcesAreTheFilesUsed(t *testing.T) {
	all := generate(t, opts("protcheck", 100000, 1)).Manifest
	few := generate(t, opts("protcheck", 16, 1)).Manifest
	if few.Directed != 16 || len(few.DirectedSources) == 0 || len(few.DirectedSources) >= len(all.DirectedSources) {
		t.Fatalf("count 16: %d directed from %v; all: %d files", few.Directed, few.DirectedSources, len(all.DirectedSources))
	}
	// The files used first are a prefix of those a bigger count uses.
	if !slices.Equal(few.DirectedSources, all.DirectedSources[:len(few.DirectedSources)]) {
		t.Errorf("count 16 names %v, not a prefix of %v", few.DirectedSources, all.DirectedSources)
	}
}

// TestManifestJSONExact reads every manifest as jq and JavaScript do
// (JSON numbers as float64): every number is an integer below 2^53, which
// float64 holds exactly, and the 64-bit values (seed, parameter values),
// hex strings, give back the generator's values, also above 2^53.
func TestManifestJSONExact(t *testing.T) {
	const big = 0xfedcba9876543210 // above 2^53: a float64 rounds it
	for _, u := range Units() {
		o := opts(u, 50, big)
		o.Examples, o.ReplSeed = "", big-1
		out := generate(t, o)
		data := file(t, out, u+".manifest.json")
		// The exact text of every number, and the float64 reading of it.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var exact, loose any
		if err := dec.Decode(&exact); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &loose); err != nil {
			t.Fatal(err)
		}
		var walk func(path string, e, l any)
		walk = func(path string, e, l any) {
			switch e := e.(type) {
			case map[string]any:
				for k, v := range e {
					walk(path+"."+k, v, l.(map[string]any)[k])
				}
			case []any:
				for i, v := range e {
					walk(fmt.Sprintf("%s[%d]", path, i), v, l.([]any)[i])
				}
			case json.Number:
				n, err := strconv.ParseInt(e.String(), 10, 64)
				if err != nil || n < 0 || n > 1<<53 || float64(n) != l.(float64) {
					t.Errorf("%s.manifest.json %s = %s: not an integer a float64 holds exactly (read as %v)", u, path, e, l)
				}
			}
		}
		walk("", exact, loose)
		root := loose.(map[string]any)
		if s, _ := root["seed"].(string); s != fmt.Sprintf("0x%x", uint64(big)) {
			t.Errorf("%s: seed reads as %v, want the hex string 0x%x", u, root["seed"], uint64(big))
		}
		for i, p := range root["parameters"].([]any) {
			s, ok := p.(map[string]any)["value"].(string)
			if want := out.Manifest.Parameters[i].Value; !ok || s != fmt.Sprintf("0x%x", uint64(want)) {
				t.Errorf("%s: parameter %d value reads as %v, want the hex string 0x%x", u, i, p.(map[string]any)["value"], uint64(want))
			}
		}
		// And Go reads the hex strings back exactly (the harness is made
		// from the parsed manifest).
		if m := readManifest(t, out); m.Seed != big || !reflect.DeepEqual(m.Parameters, out.Manifest.Parameters) {
			t.Errorf("%s: seed %#x and parameters %+v read back as %#x and %+v", u, uint64(big), out.Manifest.Parameters, uint64(m.Seed), m.Parameters)
		}
	}
}

// TestHex64JSON: the hex form both ways, numbers accepted when reading,
// anything else refused with the value named.
func TestHex64JSON(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
		err  bool
	}{
		{`"0x0"`, 0, false},
		{`"0x910a2dec89025cc1"`, 0x910a2dec89025cc1, false},
		{`"0xffffffffffffffff"`, 1<<64 - 1, false},
		{`10451216379200822465`, 10451216379200822465, false},
		{`16`, 16, false},
		{`"16"`, 0, true},
		{`"0x"`, 0, true},
		{`"0x1ffffffffffffffff"`, 0, true},
		{`-1`, 0, true},
		{`1.5`, 0, true},
		{`true`, 0, true},
	}
	for _, c := range cases {
		var h Hex64
		err := json.Unmarshal([]byte(c.in), &h)
		switch {
		case c.err && (err == nil || !strings.Contains(err.Error(), strings.Trim(c.in, `"`))):
			t.Errorf("%s: got %v, %v; want an error naming the value", c.in, uint64(h), err)
		case !c.err && (err != nil || uint64(h) != c.want):
			t.Errorf("%s: got %#x, %v; want %#x", c.in, uint64(h), err, c.want)
		}
		if !c.err {
			b, _ := json.Marshal(h)
			if want := fmt.Sprintf(`"0x%x"`, c.want); string(b) != want {
				t.Errorf("%#x marshals as %s, want %s", c.want, b, want)
			}
		}
	}
}
