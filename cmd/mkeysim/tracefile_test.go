package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mkeysim/scenario"
)

// TestTraceWorkloadRun: the command of docs/workloads.md, from the
// repository's root, replays the example trace wrapped around to
// workload.accesses, every result checked against the golden model, and
// says so in the summary; accesses 0 replays it once.
func TestTraceWorkloadRun(t *testing.T) {
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, stdout, stderr := runCLI("run", "--workload.kind", "trace", "--workload.trace-file", "examples/traces/small.csv", "--quiet", "--out", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if want := "trace examples/traces/small.csv (12 accesses, wrapped around to make 100000): 100000 operations\n"; !strings.HasPrefix(stderr, want) {
		t.Errorf("summary starts %q, want %q", stderr[:min(len(stderr), 120)], want)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.ReadResults(bytes.NewReader(data))
	if err != nil || len(res) != 100000 {
		t.Fatalf("%d results, %v", len(res), err)
	}
	want := []string{"OK", "OK", "OK", "OK", "OK", "OK", "OK", "OK", "OK", "MISALIGNED_ATOMIC", "PD_MISMATCH", "KEY_MISMATCH"}
	for i := range res {
		if got := res[i].Status.String(); got != want[i%12] {
			t.Fatalf("result %d: %s, want %s", i, got, want[i%12])
		}
	}
	code, stdout, stderr = runCLI("run", "--workload.kind", "trace", "--workload.trace-file", "examples/traces/small.jsonl", "--workload.accesses", "0", "--quiet")
	if code != 0 || strings.Count(stdout, "\n") != 12 || !strings.HasPrefix(stderr, "trace examples/traces/small.jsonl (12 accesses): 12 operations\n") {
		t.Errorf("accesses 0: exit %d, %d lines, stderr %q", code, strings.Count(stdout, "\n"), stderr)
	}
}

// TestTraceWorkloadBadFile: a bad trace file ends run and sweep with exit
// status 2, nothing on standard output, and an error naming the file, the
// line, the field and the reason; so does a missing one, or none.
func TestTraceWorkloadBadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	head := "qpn,key,addr,len,type\n1,r1,0x10000000000,64,LOCAL_READ\n"
	for _, tc := range []struct {
		file string // "" for no --workload.trace-file
		want string
	}{
		{write("addr.csv", head+"1,r1,0x1000000000g,64,LOCAL_READ\n"), `: line 3: addr = "0x1000000000g": want decimal digits or 0x and hex digits`},
		{write("type.csv", head+"\n1,r1,0x10000000040,64,READ_LOCAL\n"), `: line 4: type = "READ_LOCAL": want LOCAL_READ`},
		{write("region.csv", head+"1,r2,0x10000000040,64,LOCAL_READ\n"), ": line 3: addr = 0x10000000040: 0x10000000040 + len 64 is not inside region 2"},
		{write("key.jsonl", `{"qpn":1,"key":"r99","offset":0,"len":64,"type":"LOCAL_READ"}`+"\n"), ": line 1: key = r99: index 99 is not a region's: want an index in 1..64 (workload.mrs = 64)"},
		{write("len.jsonl", `{"qpn":1,"key":"r9","offset":0,"len":0,"type":"LOCAL_READ"}`+"\n"), ": line 1: len = 0: want 1..2^30 bytes"},
		{write("column.csv", "qpn,key,address,len,type\n"), `: line 1: header "qpn,key,address,len,type": column "address": want the columns qpn, key, addr or offset, len and type`},
		{write("empty.csv", "# nothing\n"), ": no accesses"},
		{filepath.Join(dir, "missing.csv"), ": open " + filepath.Join(dir, "missing.csv") + ": no such file"},
		{"", `workload.trace_file = "": want the path of the trace to replay (workload.kind = trace)`},
	} {
		args := []string{"--workload.kind", "trace"}
		if tc.file != "" {
			args = append(args, "--workload.trace-file", tc.file)
		}
		want := "workload.trace_file: " + tc.file + tc.want
		if tc.file == "" || strings.Contains(tc.want, "open ") {
			want = tc.want
		}
		for _, cmd := range [][]string{
			append([]string{"run", "--quiet"}, args...),
			append([]string{"sweep", "--quiet", "--vary", "mkc_cache.ways=1,2", "--out", filepath.Join(dir, "sweep")}, args...),
		} {
			code, stdout, stderr := runCLI(cmd...)
			if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, "mkeysim "+cmd[0]+": ") || !strings.Contains(stderr, want) {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", cmd[0], tc.file, code, stdout, stderr, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep")); err == nil {
		t.Errorf("a refused sweep made its output directory")
	}
}

// TestTraceWorkloadSweep: workload.trace_file is a sweep axis like any
// parameter: one row per trace, here the same accesses in either format.
// (The paths are absolute: --vary reads an item with ".." as a range.)
func TestTraceWorkloadSweep(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sw")
	a, err := filepath.Abs("../../examples/traces/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	b := strings.TrimSuffix(a, ".csv") + ".jsonl"
	code, _, stderr := runSweep("--quiet", "--workload.kind", "trace", "--workload.accesses", "0", "--workload.trace-file", a,
		"--vary", "workload.trace_file="+a+","+b, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(out, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
	if recs[0][1] != "workload.trace_file" || recs[1][1] != a || recs[2][1] != b || recs[1][2] != "12" {
		t.Errorf("CSV rows %v", recs)
	}
	for i := 3; i < len(recs[0]); i++ {
		if h := recs[0][i]; h != "wall_seconds" && h != "cycles_per_second" && recs[1][i] != recs[2][i] {
			t.Errorf("%s: %s for the CSV trace, %s for the same in JSON lines", h, recs[1][i], recs[2][i])
		}
	}
}
