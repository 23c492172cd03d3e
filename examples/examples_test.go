package examples_test

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// scenarios lists the example scenarios of dir (NAME.json with NAME.expected.jsonl
// or NAME.err beside it), sorted.
func scenarios(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// refLines runs scenario file path through the golden model with cfg and
// returns its results and their lines as the comparator reads them.
func refLines(t *testing.T, path string, cfg ref.Config) ([]scenario.Result, []line) {
	t.Helper()
	sc, err := scenario.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	results, err := ref.Run(sc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for i := range results {
		out = results[i].AppendJSON(out)
		out = append(out, '\n')
	}
	got, err := parseLines(out)
	if err != nil {
		t.Fatalf("model output: %v", err)
	}
	return results, got
}

// TestExamples runs every examples/*.json through the golden model and
// compares its lines with NAME.expected.jsonl, derived by hand (README.md).
func TestExamples(t *testing.T) {
	files := scenarios(t, ".")
	if len(files) < 30 {
		t.Fatalf("%d example scenarios, want at least 30", len(files))
	}
	for _, path := range files {
		name := strings.TrimSuffix(path, ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := readLines(name + ".expected.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			_, got := refLines(t, path, ref.DefaultConfig())
			for _, d := range compareLines(got, want) {
				t.Error(d)
			}
		})
	}
}

// TestStatusCoverage checks that the expected files together produce every
// status name of prm.Statuses(), counting resumed entries, and no other name
// (the firmware pages' examples, examples/pages, with their variants).
func TestStatusCoverage(t *testing.T) {
	seen := map[string]bool{}
	expected := []string{}
	for _, path := range scenarios(t, ".") {
		expected = append(expected, strings.TrimSuffix(path, ".json")+".expected.jsonl")
	}
	pages, _ := filepath.Glob(filepath.Join("pages", "*.expected.jsonl"))
	for _, path := range append(expected, pages...) {
		lines, err := readLines(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			all := []line{l}
			for _, r := range list(l["resumed"]) {
				all = append(all, obj(r))
			}
			for _, x := range all {
				s, _ := x["status"].(string)
				if _, ok := prm.ParseStatus(s); !ok {
					t.Errorf("%s seq %v: unknown status %q", path, x["seq"], s)
				}
				seen[s] = true
			}
		}
	}
	for _, s := range prm.Statuses() {
		if !seen[s.String()] {
			t.Errorf("no example produces status %s", s)
		}
	}
}

// mentions reports whether msg names path as a whole JSON path (or a path
// below it): path must not be preceded by a path character nor followed by
// one other than '.' or '['.
func mentions(msg, path string) bool {
	isPathChar := func(c byte) bool {
		return c == '_' || c == '.' || c == '[' || c == ']' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(msg[i:], path)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(path)
		if (start == 0 || !isPathChar(msg[start-1])) && (end == len(msg) || !isPathChar(msg[end]) || msg[end] == '.' || msg[end] == '[') {
			return true
		}
		i = start + 1
	}
}

// TestErrors checks that each errors/NAME.json is a scenario error naming
// the JSON path on the first line of NAME.err (an empty line: the whole
// document, where only the file is named).
func TestErrors(t *testing.T) {
	files := scenarios(t, "errors")
	if len(files) < 12 {
		t.Fatalf("%d error scenarios, want at least 12", len(files))
	}
	for _, path := range files {
		name := strings.TrimSuffix(path, ".json")
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(name + ".err")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])
			sc, err := scenario.ReadFile(path)
			fromRead := err != nil
			if err == nil {
				_, err = ref.Run(sc, ref.DefaultConfig())
			}
			if err == nil {
				t.Fatalf("no error, want one naming %q", want)
			}
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Errorf("error %v is not a *scenario.Error", err)
			}
			msg := err.Error()
			if fromRead && !strings.Contains(msg, path) {
				t.Errorf("error %q does not name the file %s", msg, path)
			}
			if want != "" && !mentions(msg, want) {
				t.Errorf("error %q does not name the path %s", msg, want)
			}
		})
	}
}

// TestMentions pins the path matcher of TestErrors.
func TestMentions(t *testing.T) {
	for _, c := range []struct {
		msg, path string
		want      bool
	}{
		{"f.json: ops[0].len: missing", "ops[0].len", true},
		{"f.json: ops[10].len: missing", "ops[1]", false},
		{"f.json: mkeys[0].klm: both", "mkeys[0]", true},
		{"f.json: mkeys[0].klm: both", "keys[0]", false},
		{"f.json: ops[0].lenx: bad", "ops[0].len", false},
	} {
		if got := mentions(c.msg, c.path); got != c.want {
			t.Errorf("mentions(%q, %q) = %v, want %v", c.msg, c.path, got, c.want)
		}
	}
}
