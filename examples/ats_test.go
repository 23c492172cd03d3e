package examples_test

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// TestATSRefusalsWithCap: ats-refusals.json, whose expected results are
// the default device's (no hca_cap.ats), on a device with ATS (mkeysim
// ref --hca-cap.ats): the ATS keys on PA and MTT are created and
// translate, and every other line is the same (README.md).
func TestATSRefusalsWithCap(t *testing.T) {
	sc, err := scenario.ReadFile("ats-refusals.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := readLines("ats-refusals.expected.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cfg := ref.DefaultConfig()
	cfg.ATS = true
	results, err := ref.Run(sc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	changed := map[int]string{
		0: `{"seq":0,"op":"create_mkey","status":"OK","index":4,"key":"0x404"}`,
		1: `{"seq":1,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x1000","len":16}]}`,
		2: `{"seq":2,"op":"create_mkey","status":"OK","index":5,"key":"0x505"}`,
		3: `{"seq":3,"op":"access","status":"OK","segments":[{"space":"dma","addr":"0x9010","len":16}]}`,
	}
	for i, w := range changed {
		l, err := parseLines([]byte(w + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = l[0]
	}
	var out []byte
	for i := range results {
		if results[i].Status == prm.BadParam && results[i].Reason == "" {
			t.Errorf("seq %d: BAD_PARAM without a reason", i)
		}
		out = results[i].AppendJSON(out)
		out = append(out, '\n')
	}
	got, err := parseLines(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range compareLines(got, want) {
		t.Error(d)
	}
}
