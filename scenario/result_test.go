package scenario_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// TestResultRoundTrip reads every shared expected file, writes each line
// back and reads it again: writer and reader agree on the format.
func TestResultRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../shared/conformance/*.expected.jsonl")
	hazards, _ := filepath.Glob("../../shared/hazards/*.expected.jsonl")
	files = append(files, hazards...)
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

// TestLeftOutFields: entries_left_out and segments_left_out are written
// after the part of the line they count, read back, and compared by Diff,
// with the digest of the segments left out when both sides have one.
func TestLeftOutFields(t *testing.T) {
	seg := prm.Segment{Addr: 0x1000, Len: 64}
	var sum scenario.SegmentSum
	sum.Add(64, seg)
	acc := scenario.Result{Seq: 3, Op: scenario.OpAccess, Segments: []prm.Segment{seg}, SegmentsLeftOut: 1, LeftOutSum: sum}
	q := scenario.Result{Seq: 4, Op: scenario.OpQueryMKey, List: scenario.NewMTTList([]prm.MTTEntry{{PTag: 0x5000, RdEn: true}}), EntriesLeftOut: 8589930488}
	for _, c := range []struct {
		r    *scenario.Result
		line string
	}{
		{&acc, `{"seq":3,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x1000","len":64}],"segments_left_out":1}`},
		{&q, `{"seq":4,"op":"query_mkey","status":"OK","mkc_hex":"` + q.MKC.Hex() + `","entries_left_out":8589930488,"mtt":[{"ptag":"0x5000","rd_en":1,"wr_en":0}]}`},
	} {
		if got := string(c.r.AppendJSON(nil)); got != c.line {
			t.Errorf("line\n got %s\nwant %s", got, c.line)
		}
		back, err := scenario.ParseResult([]byte(c.line))
		if err != nil {
			t.Fatal(err)
		}
		if d := scenario.Diff(&back, c.r); d != "" {
			t.Errorf("read back: %s", d)
		}
	}
	other := acc
	other.SegmentsLeftOut = 2
	if d := scenario.Diff(&other, &acc); !strings.Contains(d, "segments_left_out 2, want 1") {
		t.Errorf("a different count: %q", d)
	}
	other = acc
	other.LeftOutSum++
	if d := scenario.Diff(&other, &acc); !strings.Contains(d, "left out of the line differ") {
		t.Errorf("a different digest: %q", d)
	}
	other.LeftOutSum = 0 // read from a line: no digest to compare
	if d := scenario.Diff(&other, &acc); d != "" {
		t.Errorf("no digest on one side: %q", d)
	}
	oq := q
	oq.EntriesLeftOut--
	if d := scenario.Diff(&oq, &q); !strings.Contains(d, "entries_left_out 8589930487, want 8589930488") {
		t.Errorf("a different entries_left_out: %q", d)
	}
}
