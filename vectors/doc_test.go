package vectors

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mkeysim/prm"
)

var update = flag.Bool("update", false, "rewrite the generated blocks of README.md and ../docs/vectors-mptcache.md")

// The documents whose generated blocks TestDocsGenerated keeps equal to
// the code.
var generatedDocs = []string{"README.md", "../docs/vectors-mptcache.md"}

// blockRE matches a generated block: its name, then its body.
var blockRE = regexp.MustCompile(`(?s)<!-- begin generated ([a-z0-9-]+): [^>]*-->\n(.*?)<!-- end generated ([a-z0-9-]+) -->`)

// unitManifests makes a small manifest of every unit, in Units order, in
// the default cache geometry.
func unitManifests(t *testing.T) []*Manifest {
	var ms []*Manifest
	for _, u := range Units() {
		o := opts(u, 10, 1)
		o.Examples = ""
		ms = append(ms, generate(t, o).Manifest)
	}
	return ms
}

// docBlocks renders every generated block by name: port tables, enum
// tables (the status table from prm's numbering), the handshakes' timing,
// the parameters, the coverage points, and the cache page's parameters.
func docBlocks(t *testing.T) map[string]string {
	ms := unitManifests(t)
	blocks := map[string]string{}
	for _, m := range ms {
		var b strings.Builder
		fmt.Fprintf(&b, "### Ports: %s (`%s`, %s)\n\n| port | dir | width | meaning |\n|---|---|---|---|\n", m.Unit, m.DUT.Module, m.DUT.Handshake)
		for _, p := range m.DUT.Ports {
			fmt.Fprintf(&b, "| `%s` | %s | %d | %s |\n", p.Name, p.Direction, p.Width, p.Meaning)
		}
		blocks["ports-"+m.Unit] = b.String()
	}

	// Statuses: every value of the 8-bit status enum, and the units whose
	// vectors expect it.
	var b strings.Builder
	b.WriteString("| value | `status` | expected by |\n|---|---|---|\n")
	for _, s := range prm.Statuses() {
		var units []string
		for _, m := range ms {
			if slices.ContainsFunc(m.CoveragePoints, func(p CoveragePoint) bool { return p.Name == s.String() }) {
				units = append(units, m.Unit)
			}
		}
		by := strings.Join(units, ", ")
		switch {
		case by != "":
		case s == prm.IOMMUFault:
			by = "none (the golden model's IOMMU, issue 36: no unit yet)"
		default:
			by = "none (a command's status, not an access's)"
		}
		fmt.Fprintf(&b, "| %d (8'h%02x) | `%s` | %s |\n", s, uint8(s), s, by)
	}
	blocks["status"] = b.String()

	// The other enums, from the mptcache manifest, which carries them all
	// but atc's own.
	b.Reset()
	enums := slices.Clone(ms[3].Enums)
	for _, m := range ms {
		for _, e := range m.Enums {
			if !slices.ContainsFunc(enums, func(x Enum) bool { return x.Name == e.Name }) {
				enums = append(enums, e)
			}
		}
	}
	for _, e := range enums {
		if e.Name == "status" {
			continue
		}
		fmt.Fprintf(&b, "- `%s` (%d bits):", e.Name, e.Width)
		for i, v := range e.Values {
			sep := ","
			if i == len(e.Values)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, " %d `%s`%s", v.Value, v.Name, sep)
		}
		b.WriteString("\n")
	}
	blocks["enums"] = b.String()

	b.Reset()
	for _, h := range []string{"combinational", "clocked", "valid_ready", "ats"} {
		var units []string
		for _, m := range ms {
			if m.DUT.Handshake == h {
				units = append(units, m.Unit)
			}
		}
		fmt.Fprintf(&b, "- **%s** (%s): %s\n", h, strings.Join(units, ", "), Timing(h))
	}
	blocks["timing"] = b.String()

	b.Reset()
	b.WriteString("| unit | parameter | passed to the DUT | meaning |\n|---|---|---|---|\n")
	for _, m := range ms {
		for _, p := range m.Parameters {
			dut := "no"
			if p.DUT {
				dut = "yes, 64-bit"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", m.Unit, p.Name, dut, p.Meaning)
		}
	}
	blocks["parameters"] = b.String()

	b.Reset()
	b.WriteString("| unit | point | meaning |\n|---|---|---|\n")
	for _, m := range ms {
		for _, p := range m.CoveragePoints {
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", m.Unit, p.Name, p.Meaning)
		}
	}
	blocks["coverage"] = b.String()

	b.Reset()
	b.WriteString("| parameter | passed to the DUT | meaning |\n|---|---|---|\n")
	for _, p := range ms[3].Parameters {
		dut := "no"
		if p.DUT {
			dut = "yes, 64-bit"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Name, dut, p.Meaning)
	}
	blocks["cache-parameters"] = b.String()
	b.Reset()
	fmt.Fprintf(&b, "%s\n", Timing("clocked"))
	blocks["cache-timing"] = b.String()
	blocks["cache-ports"] = blocks["ports-mptcache"]
	return blocks
}

// TestDocsGenerated keeps the generated blocks of README.md and
// docs/vectors-mptcache.md equal to what the code makes: a port, status,
// parameter or timing change that the documents do not follow fails here.
// go test ./vectors -run TestDocsGenerated -args -update rewrites them.
func TestDocsGenerated(t *testing.T) {
	blocks := docBlocks(t)
	seen := map[string]bool{}
	for _, path := range generatedDocs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		out := blockRE.ReplaceAllStringFunc(text, func(s string) string {
			sm := blockRE.FindStringSubmatch(s)
			name, body, end := sm[1], sm[2], sm[3]
			seen[name] = true
			want, ok := blocks[name]
			switch {
			case end != name:
				t.Errorf("%s: block %s ends as %s", path, name, end)
			case !ok:
				t.Errorf("%s: block %s: no such generated block", path, name)
			case body != want && !*update:
				t.Errorf("%s: block %s differs from the code (go test ./vectors -run TestDocsGenerated -args -update rewrites it):\n--- document\n%s--- code\n%s", path, name, body, want)
			case body != want:
				idx := blockRE.FindStringSubmatchIndex(s)
				return s[:idx[4]] + want + s[idx[5]:]
			}
			return s
		})
		if *update && out != text {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range blocks {
		if !seen[name] {
			t.Errorf("block %s is in no document", name)
		}
	}
}

// traceRE matches a worked trace of docs/vectors-mptcache.md: its
// geometry, then its table.
var traceRE = regexp.MustCompile(`(?s)<!-- trace: sets=(\d+) ways=(\d+) replacement=(lru|random) seed=(\d+) -->\n\n(\|.*?)\n\n`)

// ageOrder writes set s of the array as the page does: its valid lines,
// least recently used first, as index@wWAY; "empty" for none.
func ageOrder(a *cacheArray, s int) string {
	type l struct {
		used uint64
		text string
	}
	var ls []l
	for w := range a.ways {
		if i := s*a.ways + w; a.valid[i] {
			ls = append(ls, l{a.used[i], fmt.Sprintf("%d@w%d", a.tag[i], w)})
		}
	}
	slices.SortFunc(ls, func(x, y l) int { return int(x.used) - int(y.used) })
	var parts []string
	for _, x := range ls {
		parts = append(parts, x.text)
	}
	if len(parts) == 0 {
		return "empty"
	}
	return strings.Join(parts, ", ")
}

// traceRow is what the page's trace shows for one operation: "-" where
// the harness does not compare an output.
func traceRow(a *cacheArray, n int, v MPTCacheVector) []string {
	dash := func(cond bool, s string) string {
		if cond {
			return s
		}
		return "-"
	}
	hit := v.Op == OpLookup || v.Op == OpInval
	row := []string{fmt.Sprint(n), cacheOpNames[v.Op], fmt.Sprint(v.Index), fmt.Sprint(int(v.Index) % a.sets),
		dash(hit, fmt.Sprint(b2u(v.Hit))),
		dash(v.Op == OpFill || hit && v.Hit, fmt.Sprint(v.Way)),
		dash(v.Op == OpFill, fmt.Sprint(b2u(v.Evict))),
		dash(v.Op == OpFill && v.Evict, fmt.Sprint(v.EvictIndex)),
		dash(v.Op == OpInvalAll, fmt.Sprint(v.Count))}
	if v.Op == OpInvalAll {
		row[2], row[3] = "-", "-"
	}
	for s := range a.sets {
		row = append(row, ageOrder(a, s))
	}
	if a.random {
		row = append(row, fmt.Sprintf("0x%016x", a.prng))
	}
	return row
}

// TestCacheTraces replays every worked trace of docs/vectors-mptcache.md
// through the reference array (the one the mptcache vectors come from):
// each row's outputs, the age order of every set after it and the
// random generator's state must be what the array gives, so the page
// cannot drift from the vectors.
func TestCacheTraces(t *testing.T) {
	const path = "../docs/vectors-mptcache.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	traces := traceRE.FindAllStringSubmatch(string(data), -1)
	if len(traces) < 2 {
		t.Fatalf("%s: %d traces, want an LRU and a random one", path, len(traces))
	}
	ops := map[string]uint8{}
	for i, n := range cacheOpNames {
		ops[n] = uint8(i)
	}
	total := 0
	for k, tr := range traces {
		var sets, ways int
		var seed uint64
		fmt.Sscan(tr[1], &sets)
		fmt.Sscan(tr[2], &ways)
		fmt.Sscan(tr[4], &seed)
		a := newCacheArray(sets, ways, tr[3] == "random", seed)
		rows := strings.Split(tr[5], "\n")
		if len(rows) < 3 {
			t.Fatalf("%s trace %d: no rows", path, k+1)
		}
		for i, line := range rows[2:] {
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			if len(cells) < 2 {
				t.Fatalf("%s trace %d row %d: %q is not a table row", path, k+1, i+1, line)
			}
			op, ok := ops[cells[1]]
			if !ok {
				t.Fatalf("%s trace %d row %d: op %q", path, k+1, i+1, cells[1])
			}
			v := MPTCacheVector{Op: op}
			if op != OpInvalAll {
				var idx uint32
				if _, err := fmt.Sscan(cells[2], &idx); err != nil {
					t.Fatalf("%s trace %d row %d: index %q: %v", path, k+1, i+1, cells[2], err)
				}
				v.Index = idx
			}
			a.apply(&v)
			want := strings.Join(traceRow(a, i+1, v), " | ")
			if got := strings.Join(cells, " | "); got != want {
				t.Errorf("%s trace %d row %d:\n got  | %s |\n want | %s |", path, k+1, i+1, got, want)
			}
			total++
		}
	}
	if total < 10 {
		t.Errorf("%s: %d traced operations, want at least 10", path, total)
	}
}

// TestPRNGInit: the page's PRNG_INIT examples are splitmix64 of the seed,
// as the manifest gives it.
func TestPRNGInit(t *testing.T) {
	data, err := os.ReadFile("../docs/vectors-mptcache.md")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ seed uint64 }{{0}, {1}, {2}}
	for _, c := range cases {
		o := opts("mptcache", 10, 1)
		o.ReplSeed = c.seed
		m := generate(t, o).Manifest
		var init Hex64
		for _, p := range m.Parameters {
			if p.Name == "PRNG_INIT" {
				init = p.Value
			}
		}
		row := fmt.Sprintf("| %d | `0x%016x` |", c.seed, uint64(init))
		if !strings.Contains(string(data), row) {
			t.Errorf("docs/vectors-mptcache.md lacks the PRNG_INIT row %s", row)
		}
	}
}
