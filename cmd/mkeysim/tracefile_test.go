package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
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
// (Relative paths, and no base trace file: TestTraceSweepPaths.)
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

// TestTraceSweepPaths (issue 46, item 3): a sweep varies the trace file
// by paths as written, .. and all, and needs no trace file in its base
// when its axis gives one: through flags, --config and a sweep file.
// Each point is checked, the axis's value set: a point whose file is
// missing is refused naming it, and a base with no trace file that no
// axis gives is refused naming the file that leaves it out.
func TestTraceSweepPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for from, to := range map[string]string{"small.csv": "a.csv", "small.jsonl": "b.jsonl"} {
		data, err := os.ReadFile(filepath.Join("../../examples/traces", from))
		if err != nil {
			t.Fatal(err)
		}
		write(to, string(data))
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	const trace = "[workload]\nkind = \"trace\"\naccesses = 0\n"
	write("sub/trace.toml", trace)
	write("sub/sweep.toml", trace+"[sweep]\nvary = [\"workload.trace_file=../a.csv,../b.jsonl\"]\n")
	write("sub/nofile.toml", trace+"[sweep]\nvary = [\"mkc_cache.ways=1,2\"]\n")
	t.Chdir(filepath.Join(dir, "sub"))
	const vary = "workload.trace_file=../a.csv,../b.jsonl"
	const none = `workload.trace_file = "": want the path of the trace to replay (workload.kind = trace)`
	for _, tc := range []struct {
		name string
		args []string
		rows []string // the first axis's values, row by row; nil for a refusal
		err  string   // standard error of a refusal
	}{
		{"flags", []string{"--workload.kind", "trace", "--workload.accesses", "0", "--vary", vary}, []string{"../a.csv", "../b.jsonl"}, ""},
		{"the issue's", []string{"--workload.kind", "trace", "--workload.accesses", "0", "--vary", "workload.trace_file=../a.csv"}, []string{"../a.csv"}, ""},
		{"--config", []string{"--config", "trace.toml", "--vary", vary}, []string{"../a.csv", "../b.jsonl"}, ""},
		{"sweep file", []string{"sweep.toml"}, []string{"../a.csv", "../b.jsonl"}, ""},
		{"a flag gives the file", []string{"--config", "trace.toml", "--workload.trace-file", "../b.jsonl", "--vary", "mkc_cache.ways=1,2"}, []string{"1", "2"}, ""},
		{"two axes", []string{"nofile.toml", "--vary", "mkc_cache.ways=1,2", "--vary", "workload.trace_file=../b.jsonl"}, []string{"1", "2"}, ""},
		{"a point's file missing", []string{"--workload.kind", "trace", "--vary", "workload.trace_file=../a.csv,../none.csv"}, nil,
			"mkeysim sweep: --vary: point workload.trace_file=../none.csv: workload.trace_file: open ../none.csv: no such file or directory\n"},
		{"no file: flags", []string{"--workload.kind", "trace", "--vary", "mkc_cache.ways=1,2"}, nil, "mkeysim sweep: " + none + "\n"},
		{"no file: --config", []string{"--config", "trace.toml", "--vary", "mkc_cache.ways=1,2"}, nil, "mkeysim sweep: --config: trace.toml: " + none + "\n"},
		{"no file: sweep file", []string{"nofile.toml"}, nil, "mkeysim sweep: nofile.toml: " + none + "\n"},
		{"kind varied, no file", []string{"--workload.accesses", "0", "--vary", "workload.kind=uniform,trace"}, nil,
			"mkeysim sweep: --vary: point workload.kind=trace: " + none + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := runSweep(append(tc.args, "--quiet", "--no-summary", "--out", out)...)
			if tc.rows == nil {
				if code != exitUsage || stdout != "" || stderr != tc.err {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", code, stdout, stderr, tc.err)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs := readCSVFile(t, filepath.Join(out, "sweep.csv"))
			if len(recs) != len(tc.rows)+1 {
				t.Fatalf("%d rows, want %d: %v", len(recs)-1, len(tc.rows), recs)
			}
			ops := slices.Index(recs[0], "operations")
			for i, want := range tc.rows {
				if r := recs[i+1]; ops < 0 || r[1] != want || r[ops] != "12" {
					t.Errorf("row %d: %s = %s, %v operations; want %s, the trace's 12", i+1, recs[0][1], r[1], r[max(ops, 0)], want)
				}
			}
		})
	}
}

// TestRunConfigTraceFileFlag: a configuration file of kind "trace" whose
// trace file is given as a flag runs (the rules between parameters are
// checked once the flags are over the file, not on the file alone).
func TestRunConfigTraceFileFlag(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "trace.toml")
	os.WriteFile(cfg, []byte("[workload]\nkind = \"trace\"\naccesses = 50\n"), 0o644)
	var so, se bytes.Buffer
	code := run([]string{"run", "--config", cfg, "--workload.trace-file", filepath.Join(repoRoot, "examples/traces/small.csv"), "--quiet", "--no-summary"}, &so, &se)
	if code != 0 || bytes.Count(so.Bytes(), []byte("\n")) != 50 {
		t.Fatalf("exit %d, %d lines: %s", code, bytes.Count(so.Bytes(), []byte("\n")), se.String())
	}
	// Without the flag the file alone is refused, naming the parameter.
	so.Reset()
	se.Reset()
	if code := run([]string{"run", "--config", cfg, "--quiet"}, &so, &se); code != 2 || !strings.Contains(se.String(), `workload.trace_file = ""`) {
		t.Fatalf("without a trace file: exit %d, %s", code, se.String())
	}
}
