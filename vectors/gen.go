package vectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"mkeysim/internal/outfile"
	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/version"
)

// Units lists the units vectors can be made for, in the order "all" makes
// them.
func Units() []string { return []string{"protcheck", "mttwalk", "klmwalk", "mptcache", "top", "atc"} }

// MaxCount bounds --count. A unit's vectors are made in memory and
// written at the end, all or nothing: 2^17 of every unit at once (--unit
// all) take 4 s and 525 MB (measured 2026-12-07; 2^20 took 4.4 GB, and
// top's alone 1.1 GB, over the 1 GiB every input is held to), and the
// files are tens of MB.
const MaxCount = 1 << 17

// ErrStopped is the error of a generation stopped by Options.Stop;
// nothing is written.
var ErrStopped = errors.New("vectors: stopped")

// Options are the parameters of one generation.
type Options struct {
	Unit  string
	Count int
	Seed  uint64
	// Sets, Ways, Replacement and ReplSeed are the mptcache geometry.
	Sets, Ways  int
	Replacement string
	ReplSeed    uint64
	// Examples is the directory of example scenarios (NAME.json) whose
	// accesses become directed vectors; empty for none.
	Examples string
	// All marks a unit made by --unit all: its manifest's command is that
	// command, the one that was run.
	All bool
	// Stop, if not nil, stops the generation when it closes: the
	// generators look at it every 1,024 vectors and return ErrStopped.
	Stop <-chan struct{}
}

// stopped reports whether Stop has closed.
func (o *Options) stopped() bool {
	select {
	case <-o.Stop:
		return true
	default:
		return false
	}
}

// DefaultOptions are the flags' defaults.
func DefaultOptions() Options {
	c := rtl.DefaultConfig().MKCCache
	return Options{Count: 4096, Seed: 1, Sets: 16, Ways: 4, Replacement: c.Replacement, ReplSeed: c.Seed, Examples: "examples"}
}

// FlagError is bad input: it names the flag and the value.
type FlagError struct {
	Flag, Value, Why string
}

func (e *FlagError) Error() string { return fmt.Sprintf("--%s %s: %s", e.Flag, e.Value, e.Why) }

// Validate checks the options, naming the first bad flag and its value.
func (o *Options) Validate() error {
	known := false
	for _, u := range Units() {
		known = known || u == o.Unit
	}
	switch {
	case !known:
		return &FlagError{"unit", fmt.Sprintf("%q", o.Unit), "unknown unit: want one of " + strings.Join(Units(), ", ") + " (or all)"}
	case o.Count < 1 || o.Count > MaxCount:
		return &FlagError{"count", fmt.Sprint(o.Count), fmt.Sprintf("want 1..%d", MaxCount)}
	}
	if o.Unit == "mptcache" {
		switch {
		case o.Sets < 1 || o.Sets > 1<<16 || o.Sets&(o.Sets-1) != 0:
			return &FlagError{"mkc-cache.sets", fmt.Sprint(o.Sets), "want a power of two in 1..65536"}
		case o.Ways < 1 || o.Ways > 64:
			return &FlagError{"mkc-cache.ways", fmt.Sprint(o.Ways), "want 1..64"}
		case o.Replacement != rtl.ReplLRU && o.Replacement != rtl.ReplRandom:
			return &FlagError{"mkc-cache.replacement", fmt.Sprintf("%q", o.Replacement), "want lru or random"}
		}
	}
	if o.Examples != "" && usesExamples(o.Unit) {
		if st, err := os.Stat(o.Examples); err != nil || !st.IsDir() {
			return &FlagError{"examples", o.Examples, "not a directory (give --examples '' for no directed vectors from scenarios)"}
		}
	}
	return nil
}

// Command is the command line that makes these vectors (without --out, so
// that the same vectors carry the same manifest wherever they are written).
// With All it is the --unit all command that made every unit.
func (o *Options) Command() string {
	unit := o.Unit
	if o.All {
		unit = "all"
	}
	s := fmt.Sprintf("mkeysim vectors --unit %s --count %d --seed %d", unit, o.Count, o.Seed)
	if unit == "mptcache" || unit == "all" {
		s += fmt.Sprintf(" --mkc-cache.sets %d --mkc-cache.ways %d --mkc-cache.replacement %s --mkc-cache.seed %d", o.Sets, o.Ways, o.Replacement, o.ReplSeed)
	}
	if o.Examples != "examples" && (usesExamples(unit) || unit == "all") {
		s += fmt.Sprintf(" --examples '%s'", o.Examples)
	}
	return s
}

// usesExamples reports whether a unit's directed vectors come from the
// example scenarios (mptcache and atc have directed sequences of their
// own).
func usesExamples(unit string) bool { return unit != "mptcache" && unit != "atc" }

// File is one output file.
type File struct {
	Name string
	Data []byte
}

// Output is one unit's generated files, with the typed vectors that made
// them (for tests and for callers who want the stimulus).
type Output struct {
	Manifest *Manifest
	Layout   *Layout
	Lines    []Line
	Files    []File
	// Vectors is the unit's stimulus and oracle values, one per line:
	// []ProtcheckVector, []MTTWalkVector, []KLMWalkVector,
	// []MPTCacheVector, []TopVector or []ATCVector.
	Vectors any
}

// unitResult is what a unit's generator returns.
type unitResult struct {
	desc     string
	layout   *Layout
	lines    []Line
	vectors  any
	directed int
	sources  []string
	params   []Param
	dut      DUT
	tables   []tableData
	formats  []Format
	enums    []Enum
	coverage map[string]int
	// points names every coverage point the unit counts, in the order the
	// manifest lists them.
	points []CoveragePoint
}

type tableData struct {
	Table
	layout *Layout
	lines  []Line
}

// ModelVersion identifies the oracle: the build's commit (version.Read),
// else its module version.
func ModelVersion() string {
	return "mkeysim " + version.Read().Short() + " (" + FormatVersion + ")"
}

// Generate makes one unit's vectors in memory.
func Generate(o Options) (*Output, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var (
		res *unitResult
		err error
	)
	switch o.Unit {
	case "protcheck":
		res, err = genProtcheck(&o)
	case "mttwalk":
		res, err = genMTTWalk(&o)
	case "klmwalk":
		res, err = genKLMWalk(&o)
	case "mptcache":
		res, err = genMPTCache(&o)
	case "top":
		res, err = genTop(&o)
	case "atc":
		res, err = genATC(&o)
	}
	if err != nil {
		return nil, err
	}
	if len(res.lines) != o.Count {
		return nil, fmt.Errorf("vectors: %s made %d vectors, want %d", o.Unit, len(res.lines), o.Count)
	}
	// Every named point is reported, zero or not; a count under a name
	// the unit does not declare is a generator bug.
	named := map[string]bool{}
	for _, p := range res.points {
		named[p.Name] = true
		if _, ok := res.coverage[p.Name]; !ok {
			res.coverage[p.Name] = 0
		}
	}
	for name := range res.coverage {
		if !named[name] {
			return nil, fmt.Errorf("vectors: %s counts coverage point %q, which its point list does not name", o.Unit, name)
		}
	}
	m := &Manifest{
		Format:          FormatVersion,
		Unit:            o.Unit,
		Description:     res.desc,
		ModelVersion:    ModelVersion(),
		Seed:            Hex64(o.Seed),
		Command:         o.Command(),
		Count:           o.Count,
		Directed:        res.directed,
		DirectedSources: append([]string{}, res.sources...),
		File:            o.Unit + ".hex",
		LineWidth:       res.layout.Width,
		HexDigits:       res.layout.HexDigits(),
		Marker:          fmt.Sprintf("%02x", Marker),
		Parameters:      append([]Param{}, res.params...),
		DUT:             res.dut,
		Fields:          res.layout.Fields,
		Enums:           res.enums,
		Formats:         res.formats,
		Coverage:        res.coverage,
		CoveragePoints:  res.points,
	}
	out := &Output{Manifest: m, Layout: res.layout, Lines: res.lines, Vectors: res.vectors}
	out.Files = append(out.Files, File{m.File, hexFile(m, res.layout, res.lines, "vectors")})
	for _, t := range res.tables {
		t.Count = len(t.lines)
		t.LineWidth = t.layout.Width
		t.HexDigits = t.layout.HexDigits()
		t.Fields = t.layout.Fields
		m.Tables = append(m.Tables, t.Table)
		out.Files = append(out.Files, File{t.File, hexFile(m, t.layout, t.lines, "table "+t.Name)})
	}
	names := []string{m.File}
	for _, t := range m.Tables {
		names = append(names, t.File)
	}
	names = append(names, o.Unit+".manifest.json", o.Unit+"_pkg.sv", o.Unit+"_tb.sv", o.Unit+"_echo.sv")
	m.Files = names
	if err := m.Validate(); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	out.Files = append(out.Files,
		File{o.Unit + ".manifest.json", append(js, '\n')},
		File{o.Unit + "_pkg.sv", []byte(PackageSV(m))},
		File{o.Unit + "_tb.sv", []byte(TestbenchSV(m))},
		File{o.Unit + "_echo.sv", []byte(EchoSV(m))},
	)
	return out, nil
}

// hexFile formats lines for $readmemh: a // header, then one word a line.
func hexFile(m *Manifest, l *Layout, lines []Line, what string) []byte {
	var b bytes.Buffer
	b.Grow(len(lines) * (l.HexDigits() + 1))
	fmt.Fprintf(&b, "// mkeysim golden vectors: unit %s, %s: %d lines of %d bits (%d hex digits)\n", m.Unit, what, len(lines), l.Width, l.HexDigits())
	fmt.Fprintf(&b, "// %s; seed %d; %s\n", m.Command, m.Seed, m.ModelVersion)
	fmt.Fprintf(&b, "// fields and ports: %s.manifest.json\n", m.Unit)
	buf := make([]byte, 0, l.HexDigits()+1)
	for _, ln := range lines {
		buf = appendHex(buf[:0], ln, l.HexDigits())
		buf = append(buf, '\n')
		b.Write(buf)
	}
	return b.Bytes()
}

// Write puts the output's files into dir, all or nothing, through
// internal/outfile: each is written and synced under a temporary name
// beside its own, and they are renamed into place only when every one is
// complete. The error is a *FlagError when dir cannot be made, else the
// *outfile.Error of the file that could not be written.
func Write(out *Output, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &FlagError{"out", dir, err.Error()}
	}
	named := make([]outfile.Named, len(out.Files))
	for i, f := range out.Files {
		named[i] = outfile.Named{Name: f.Name, Data: f.Data}
	}
	return outfile.WriteFiles(dir, named)
}

// WriteAll generates and writes several units, writing nothing unless every
// unit generated.
func WriteAll(opts []Options, dir string) ([]*Output, error) {
	var outs []*Output
	all := &Output{}
	for _, o := range opts {
		if o.stopped() {
			return nil, ErrStopped
		}
		out, err := Generate(o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
		all.Files = append(all.Files, out.Files...)
	}
	return outs, Write(all, dir)
}

// coverage counts outcomes by name, in a map that marshals sorted.
type coverage map[string]int

func (c coverage) status(s prm.Status) { c[s.String()]++ }

// CoveragePoint is a named coverage point of a unit: an expected status
// or a corner of the stimulus. The constrained-random stimulus is weighted
// so that each appears at least MinPointCount times in 10,000 vectors
// (mptcache: in its default 16 x 4 geometry, under both policies).
type CoveragePoint struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
}

// MinPointCount is the count every coverage point reaches in 10,000
// random vectors (see CoveragePoint).
const MinPointCount = 50

// statusPoints names a coverage point per status a unit expects.
func statusPoints(sts ...prm.Status) []CoveragePoint {
	var ps []CoveragePoint
	for _, s := range sts {
		ps = append(ps, CoveragePoint{Name: s.String(), Meaning: fmt.Sprintf("expected status %s (%d)", s, s)})
	}
	return ps
}

// encoder is a unit's vector: it writes its fields into a line.
type encoder[V any] interface {
	*V
	encode(l *Layout, ln Line)
}

// encodeAll ends every unit's generation: it encodes each vector as one
// line of l (its frame, then its fields) and tallies its coverage points
// with note, called in order (a unit may replay state across vectors).
func encodeAll[V any, P encoder[V]](res *unitResult, l *Layout, vs []V, note func(v *V, cov coverage)) (*unitResult, error) {
	cov := coverage{}
	res.lines = make([]Line, len(vs))
	for i := range vs {
		ln := l.newLine()
		l.frame(ln, i)
		P(&vs[i]).encode(l, ln)
		res.lines[i] = ln
		note(&vs[i], cov)
	}
	res.coverage, res.vectors = cov, vs
	return res, nil
}

var errUnobservable = errors.New("vectors: the oracle cannot show this stimulus's outputs")

// directedThenRandom makes and encodes a unit's vectors: first the
// directed ones, which take adds to vs from each access of the example
// scenarios (up to o.Count), then random ones that draw makes from the
// unit's stream of the seed (fillRandom), up to o.Count; note counts each
// vector's coverage (encodeAll).
func directedThenRandom[V any, P encoder[V]](o *Options, res *unitResult, l *Layout, stream uint64,
	take func(a *exampleAccess, vs []V) ([]V, error), draw func(*rng) (V, error), note func(v *V, cov coverage)) (*unitResult, error) {
	var vs []V
	sources, err := eachExampleAccess(o.Examples, o.Stop, func() int { return len(vs) }, func(a *exampleAccess) error {
		var err error
		vs, err = take(a, vs)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.sources, res.directed = sources, len(vs)
	vs, err = fillRandom(o, vs, newRNG(o.Seed, stream), draw)
	if err != nil {
		return nil, err
	}
	return encodeAll[V, P](res, l, vs, note)
}

// fillRandom appends vectors drawn by gen until there are count of them;
// a draw that gen finds errUnobservable is drawn again, any other error
// ends the fill.
func fillRandom[V any](o *Options, vs []V, r *rng, gen func(*rng) (V, error)) ([]V, error) {
	for k := 0; len(vs) < o.Count; k++ {
		if k%1024 == 0 && o.stopped() {
			return vs, ErrStopped
		}
		v, err := gen(r)
		if err == errUnobservable {
			continue
		}
		if err != nil {
			return vs, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}
