package scenario_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"mkeysim/scenario"
)

// TestResultRoundTrip reads every shared expected file, writes each line
// back and reads it again: writer and reader agree on the format.
func TestResultRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../shared/conformance/*.expected.jsonl")
	if len(files) == 0 {
		t.Skip("no shared conformance files beside the repository")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := scenario.ReadResults(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range want {
			line := want[i].AppendJSON(nil)
			got, err := scenario.ParseResult(line)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, line, err)
			}
			if d := scenario.Diff(&got, &want[i]); d != "" {
				t.Fatalf("%s: round trip: %s", f, d)
			}
		}
	}
}
