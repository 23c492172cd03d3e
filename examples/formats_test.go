package examples_test

// Tests that keep docs/formats.md true to the code.
//
// Convention: every fenced block of docs/formats.md whose info string is
// json (or jsonl) is directly preceded (blank lines aside) by an HTML
// comment saying what it holds:
//
//	<!-- check: scenario NAME -->     a whole scenario document
//	<!-- check: results NAME -->      result lines of scenario NAME, as
//	                                  mkeysim ref prints them (any subset)
//	<!-- check: run-results NAME -->  result lines of scenario NAME with
//	                                  cycle, as mkeysim run prints them
//	<!-- check: mkc -->               an MKC object (mkeysim mkc pack)
//	<!-- check: stats -->             an excerpt of run --stats JSON
//	<!-- check: manifest -->          an excerpt of a vector manifest
//	<!-- check: coverage -->          an excerpt of a coverage report
//
// An unlabelled json block, a label with no block under it, an unknown
// kind or a results block naming no scenario is an error: no example on
// the page escapes the checks. The page's "Keeping this page true"
// section says the same for its readers.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"mkeysim/config"
	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/tb/stats"
	"mkeysim/vectors"
)

// formatsDoc is the page under test, relative to this package.
const formatsDoc = "../docs/formats.md"

// docBlock is one labelled fenced block of the page.
type docBlock struct {
	line int    // line number of the opening fence, from 1
	kind string // scenario, results, run-results, mkc, stats, manifest, coverage
	name string // the scenario a block is or refers to
	body []byte
}

func (b docBlock) String() string {
	s := fmt.Sprintf("%s:%d (%s", formatsDoc, b.line, b.kind)
	if b.name != "" {
		s += " " + b.name
	}
	return s + ")"
}

var (
	checkLabel = regexp.MustCompile(`^<!--\s*check:\s*([a-z-]+)(?:\s+([A-Za-z0-9_.-]+))?\s*-->$`)
	fenceLine  = regexp.MustCompile("^(```+|~~~+)\\s*([A-Za-z0-9_-]*)")
)

// blockKinds says, for each kind, whether it takes a NAME.
var blockKinds = map[string]bool{
	"scenario": true, "results": true, "run-results": true,
	"mkc": false, "stats": false, "manifest": false, "coverage": false,
}

// readFormatsDoc returns the page's text and its labelled blocks; it fails
// the test on an unlabelled json block or a malformed label.
func readFormatsDoc(t *testing.T) (string, []docBlock) {
	t.Helper()
	data, err := os.ReadFile(formatsDoc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var blocks []docBlock
	var pending *docBlock // a label not yet followed by its block
	pendingLine := 0
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if m := checkLabel.FindStringSubmatch(l); m != nil {
			if pending != nil {
				t.Errorf("%s:%d: label %q is not followed by a json block", formatsDoc, pendingLine, lines[pendingLine-1])
			}
			needName, ok := blockKinds[m[1]]
			switch {
			case !ok:
				t.Errorf("%s:%d: unknown check kind %q", formatsDoc, i+1, m[1])
			case needName && m[2] == "":
				t.Errorf("%s:%d: check kind %q needs a scenario name", formatsDoc, i+1, m[1])
			case !needName && m[2] != "":
				t.Errorf("%s:%d: check kind %q takes no name", formatsDoc, i+1, m[1])
			}
			pending, pendingLine = &docBlock{kind: m[1], name: m[2]}, i+1
			continue
		}
		if strings.HasPrefix(l, "<!--") && strings.Contains(l, "check:") {
			t.Errorf("%s:%d: malformed check label %q", formatsDoc, i+1, l)
			continue
		}
		f := fenceLine.FindStringSubmatch(l)
		if f == nil {
			if l != "" && pending != nil {
				t.Errorf("%s:%d: label is not directly followed by a json block", formatsDoc, pendingLine)
				pending = nil
			}
			continue
		}
		// A fenced block: find its end.
		start := i
		var body strings.Builder
		for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), f[1]); i++ {
			body.WriteString(lines[i])
			body.WriteByte('\n')
		}
		if i == len(lines) {
			t.Errorf("%s:%d: fenced block never closed", formatsDoc, start+1)
		}
		isJSON := f[2] == "json" || f[2] == "jsonl"
		switch {
		case pending != nil && !isJSON:
			t.Errorf("%s:%d: label is followed by a %q block, not json", formatsDoc, pendingLine, f[2])
		case pending == nil && isJSON:
			t.Errorf("%s:%d: json block without a <!-- check: KIND [NAME] --> label", formatsDoc, start+1)
		case pending != nil:
			pending.line, pending.body = start+1, []byte(body.String())
			blocks = append(blocks, *pending)
		}
		pending = nil
	}
	if pending != nil {
		t.Errorf("%s:%d: label at the end of the page", formatsDoc, pendingLine)
	}
	return string(data), blocks
}

// refRun is a scenario block run through the golden model.
type refRun struct {
	sc    *scenario.Scenario
	bySeq map[int]scenario.Result
	lines map[int]string // each result's line, as mkeysim ref writes it
}

// runScenarioBlocks parses and runs every scenario block, by name.
func runScenarioBlocks(t *testing.T, blocks []docBlock) map[string]*refRun {
	t.Helper()
	runs := map[string]*refRun{}
	for _, b := range blocks {
		if b.kind != "scenario" {
			continue
		}
		if runs[b.name] != nil {
			t.Errorf("%v: scenario %q defined twice", b, b.name)
			continue
		}
		sc, err := scenario.Parse(b.body)
		if err != nil {
			t.Errorf("%v: the scenario parser refuses it: %v", b, err)
			continue
		}
		results, err := ref.Run(sc, ref.DefaultConfig())
		if err != nil {
			t.Errorf("%v: the golden model refuses it: %v", b, err)
			continue
		}
		r := &refRun{sc: sc, bySeq: map[int]scenario.Result{}, lines: map[int]string{}}
		for _, res := range results {
			var buf bytes.Buffer
			if err := res.WriteLine(&buf); err != nil {
				t.Fatal(err)
			}
			r.bySeq[res.Seq] = res
			r.lines[res.Seq] = strings.TrimSuffix(buf.String(), "\n")
		}
		runs[b.name] = r
	}
	return runs
}

// TestFormatsScenarios checks the scenario, result and mkc blocks: each
// scenario parses and runs; each result line parses with ReadResults and
// is what the golden model prints for that scenario and seq (with cycle,
// for run-results, compared as mkeysim compare does); together the
// scenarios use every operation.
func TestFormatsScenarios(t *testing.T) {
	_, blocks := readFormatsDoc(t)
	runs := runScenarioBlocks(t, blocks)
	if len(runs) == 0 {
		t.Fatal("no scenario block on the page")
	}
	usedOps := map[scenario.OpKind]bool{}
	for _, r := range runs {
		for _, op := range r.sc.Ops {
			usedOps[op.Kind] = true
		}
	}
	for _, k := range opKinds() {
		if !usedOps[k] {
			t.Errorf("no scenario block of %s uses op %q", formatsDoc, k)
		}
	}
	nResults := 0
	for _, b := range blocks {
		switch b.kind {
		case "results", "run-results":
			nResults++
			checkResultBlock(t, b, runs[b.name])
		case "mkc":
			if _, err := scenario.ParseMKC(b.body); err != nil {
				t.Errorf("%v: %v", b, err)
			}
		}
	}
	if nResults == 0 {
		t.Error("no results block on the page")
	}
}

func checkResultBlock(t *testing.T, b docBlock, r *refRun) {
	t.Helper()
	got, err := scenario.ReadResults(bytes.NewReader(b.body))
	if err != nil {
		t.Errorf("%v: scenario.ReadResults: %v", b, err)
		return
	}
	if len(got) == 0 {
		t.Errorf("%v: no result lines", b)
		return
	}
	if r == nil {
		t.Errorf("%v: no scenario block named %q", b, b.name)
		return
	}
	var texts []string
	for _, l := range strings.Split(string(b.body), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			texts = append(texts, l)
		}
	}
	for i := range got {
		g := &got[i]
		want, ok := r.bySeq[g.Seq]
		if !ok {
			t.Errorf("%v: line %d: scenario %s has no operation seq %d", b, i+1, b.name, g.Seq)
			continue
		}
		if b.kind == "run-results" {
			if !g.HasCycle {
				t.Errorf("%v: line %d (seq %d) has no cycle", b, i+1, g.Seq)
			}
			if d := scenario.Diff(g, &want); d != "" {
				t.Errorf("%v: line %d differs from the golden model: %s", b, i+1, d)
			}
			continue
		}
		if g.HasCycle {
			t.Errorf("%v: line %d (seq %d) has a cycle: label it run-results", b, i+1, g.Seq)
		}
		if texts[i] != r.lines[g.Seq] {
			t.Errorf("%v: line %d is not what mkeysim ref prints:\n got  %s\n want %s", b, i+1, texts[i], r.lines[g.Seq])
		}
	}
}

// realStats runs examples/klm-nested.json through the clocked model and
// returns its --stats JSON, as mkeysim run writes it.
func realStats(t *testing.T) []byte {
	t.Helper()
	cfg := config.Default()
	sc, err := scenario.ReadFile("klm-nested.json")
	if err != nil {
		t.Fatal(err)
	}
	bench, err := tb.New(cfg.Model)
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.Load(sc); err != nil {
		t.Fatal(err)
	}
	if err := bench.Stream(sc.Ops, tb.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	st := bench.Stats(time.Second)
	st.Seed = cfg.Workload.Seed
	st.Config = cfg.JSON()
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// jsonKind is a decoded JSON value's kind; a number and null are one kind,
// as a hit rate is either.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil, float64:
		return "number or null"
	}
	return fmt.Sprintf("%T", v)
}

// checkSubset reports each key path of doc that real lacks or holds with
// another kind of value.
func checkSubset(t *testing.T, b docBlock, path string, doc, real any) {
	t.Helper()
	if dk, rk := jsonKind(doc), jsonKind(real); dk != rk {
		t.Errorf("%v: %s is %s on the page, %s in a real run", b, path, dk, rk)
		return
	}
	d, ok := doc.(map[string]any)
	if !ok {
		return
	}
	r := real.(map[string]any)
	for k, v := range d {
		p := k
		if path != "" {
			p = path + "." + k
		}
		rv, ok := r[k]
		if !ok {
			t.Errorf("%v: %s is not in the statistics of a real run", b, p)
			continue
		}
		checkSubset(t, b, p, v, rv)
	}
}

// decodeStrict decodes one JSON document into v, refusing unknown fields
// and anything after it.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the document")
	}
	return nil
}

// TestFormatsJSONBlocks checks the stats, manifest and coverage excerpts
// against the types and a real run.
func TestFormatsJSONBlocks(t *testing.T) {
	_, blocks := readFormatsDoc(t)
	var stats any
	seen := map[string]bool{}
	for _, b := range blocks {
		seen[b.kind] = true
		switch b.kind {
		case "stats":
			if stats == nil {
				if err := json.Unmarshal(realStats(t), &stats); err != nil {
					t.Fatal(err)
				}
			}
			var doc any
			if err := json.Unmarshal(b.body, &doc); err != nil {
				t.Errorf("%v: %v", b, err)
				continue
			}
			checkSubset(t, b, "", doc, stats)
		case "manifest":
			var m vectors.Manifest
			if err := decodeStrict(b.body, &m); err != nil {
				t.Errorf("%v: not a vectors.Manifest: %v", b, err)
			} else if m.Format != vectors.FormatVersion {
				t.Errorf("%v: format %q, want %q", b, m.Format, vectors.FormatVersion)
			}
		case "coverage":
			var r cover.Report
			if err := decodeStrict(b.body, &r); err != nil {
				t.Errorf("%v: not a cover.Report: %v", b, err)
			}
		}
	}
	for _, k := range []string{"stats", "manifest", "coverage"} {
		if !seen[k] {
			t.Errorf("no %s block on the page", k)
		}
	}
}

// opKinds lists every operation the scenario parser accepts.
func opKinds() []scenario.OpKind {
	var ks []scenario.OpKind
	for k := scenario.OpKind(0); ; k++ {
		name := k.String()
		if got, ok := scenario.ParseOpKind(name); !ok || got != k {
			return ks
		}
		ks = append(ks, k)
	}
}

// jsonTags collects the json names of t's fields, at every depth.
func jsonTags(t reflect.Type, into map[string]bool) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		jsonTags(t.Elem(), into)
		return
	case reflect.Struct:
	default:
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = true
		jsonTags(f.Type, into)
	}
}

// objectKeys collects the keys of every object in a decoded JSON value,
// at every depth (top only: the first level).
func objectKeys(v any, into map[string]bool, top bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			into[k] = true
			if !top {
				objectKeys(e, into, false)
			}
		}
	case []any:
		for _, e := range x {
			objectKeys(e, into, top)
		}
	}
}

// resultKeys collects every key of the result lines the golden model
// writes for the example scenarios and the page's scenarios, and cycle
// (written by run).
func resultKeys(t *testing.T, extra map[string]*refRun) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	add := func(r *scenario.Result) {
		var buf bytes.Buffer
		if err := r.WriteLine(&buf); err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", buf.String(), err)
		}
		objectKeys(v, keys, false)
	}
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		sc, err := scenario.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		results, err := ref.Run(sc, ref.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		for i := range results {
			add(&results[i])
		}
	}
	for _, r := range extra {
		for _, res := range r.bySeq {
			add(&res)
		}
	}
	add(&scenario.Result{Op: scenario.OpDestroyMKey, Cycle: 1, HasCycle: true})
	return keys
}

// TestFormatsNames checks that every name the formats define appears on
// the page in backticks.
func TestFormatsNames(t *testing.T) {
	page, blocks := readFormatsDoc(t)
	groups := map[string][]string{}
	add := func(group string, names ...string) { groups[group] = append(groups[group], names...) }
	for _, k := range opKinds() {
		add("operation", k.String())
	}
	for _, s := range prm.Statuses() {
		add("status", s.String())
	}
	for _, a := range prm.AccessTypes() {
		add("access type", a.String())
	}
	add("access mode", prm.ModeNames()...)
	add("mask name", prm.MaskNames()...)
	for _, f := range prm.MKCFields() {
		add("MKC field", f.Name)
	}
	add("QP type", "RC", "REG_UMR") // the parser's only two (scenario.md "QPs")
	for s := prm.Space(0); s.String() != "space?"; s++ {
		add("segment space", s.String())
	}
	add("result-line field", sortedKeys(resultKeys(t, runScenarioBlocks(t, blocks)))...)

	var statsJSON map[string]any
	if err := json.Unmarshal(realStats(t), &statsJSON); err != nil {
		t.Fatal(err)
	}
	top := map[string]bool{}
	objectKeys(statsJSON, top, true)
	add("statistics field", sortedKeys(top)...)
	lat := map[string]bool{}
	jsonTags(reflect.TypeFor[stats.Latency](), lat)
	add("latency_cycles field", sortedKeys(lat)...)

	man := map[string]bool{}
	jsonTags(reflect.TypeFor[vectors.Manifest](), man)
	add("manifest field", sortedKeys(man)...)
	cov := map[string]bool{}
	jsonTags(reflect.TypeFor[cover.Report](), cov)
	add("coverage field", sortedKeys(cov)...)

	// Every field the page's own scenarios use is documented too.
	used := map[string]bool{}
	for _, b := range blocks {
		if b.kind == "scenario" {
			var v any
			if err := json.Unmarshal(b.body, &v); err == nil {
				objectKeys(v, used, false)
			}
		}
	}
	add("scenario field", sortedKeys(used)...)

	for _, g := range sortedKeys(groupSet(groups)) {
		for _, name := range groups[g] {
			if !strings.Contains(page, "`"+name+"`") {
				t.Errorf("%s %q is not on %s in backticks", g, name, formatsDoc)
			}
		}
	}
}

func groupSet(g map[string][]string) map[string]bool {
	s := map[string]bool{}
	for k := range g {
		s[k] = true
	}
	return s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestFormatsLabels pins the label parser on a small page, so that a
// broken parser cannot pass by finding no blocks.
func TestFormatsLabels(t *testing.T) {
	sc := bufio.NewScanner(strings.NewReader("<!-- check: results tour -->\n<!-- check: mkc -->\n<!-- check:scenario x -->"))
	var got []string
	for sc.Scan() {
		m := checkLabel.FindStringSubmatch(sc.Text())
		if m == nil {
			got = append(got, "-")
			continue
		}
		got = append(got, m[1]+"/"+m[2])
	}
	want := []string{"results/tour", "mkc/", "scenario/x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
	for _, f := range []string{"```json", "``` json", "~~~jsonl"} {
		if m := fenceLine.FindStringSubmatch(f); m == nil || !strings.HasPrefix(m[2], "json") {
			t.Errorf("fence %q not seen as json", f)
		}
	}
}
