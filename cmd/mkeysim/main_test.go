package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mkeysim/config"
	"mkeysim/internal/tooltest"
	"mkeysim/scenario"
	"mkeysim/vcd"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// readJSON decodes the JSON file at path (a run's statistics, a counts
// file) into v, failing the test with the file's name if it cannot.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestBadScenarios: every bad scenario of examples/errors ends with exit
// status 2, nothing on standard output, and an error naming the file and
// the JSON path, through both models.
func TestBadScenarios(t *testing.T) {
	files, _ := filepath.Glob("../../examples/errors/*.json")
	if len(files) < 12 {
		t.Fatalf("want at least 12 bad scenarios, found %d", len(files))
	}
	for _, f := range files {
		want, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".err")
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimSpace(strings.SplitN(string(want), "\n", 2)[0])
		for _, cmd := range []string{"ref", "run"} {
			code, out, errs := runCLI(cmd, "-quiet", f)
			if cmd == "ref" {
				code, out, errs = runCLI(cmd, f)
			}
			if code != exitUsage || out != "" {
				t.Errorf("%s %s: exit %d, stdout %q; want exit 2 and nothing", cmd, f, code, out)
			}
			if !strings.Contains(errs, f) || !strings.Contains(errs, path) {
				t.Errorf("%s %s: error %q does not name the file and %q", cmd, f, errs, path)
			}
		}
	}
}

// TestBadArguments: bad flags, configs and values are refused with exit 2,
// naming what is wrong.
func TestBadArguments(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[model]\nrob_entries = 0\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.toml")
	os.WriteFile(unknown, []byte("[model.mkc_cache]\nwayz = 4\n"), 0o644)
	broken := filepath.Join(dir, "broken.toml")
	os.WriteFile(broken, []byte("[model\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"nosuch"}, "unknown command"},
		{[]string{"ref"}, "exactly one scenario"},
		{[]string{"ref", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"run", "-config", bad}, "rob_entries = 0"},
		{[]string{"run", "-config", unknown}, "wayz"},
		{[]string{"run", "-config", broken}, "broken.toml: line"},
		{[]string{"run", "-mkc_cache.sets", "48"}, "sets = 48"},
		{[]string{"run", "-mkc_cache.ways", "x"}, "mkc_cache.ways"},
		{[]string{"run", "-log-level", "loud"}, "log-level"},
		{[]string{"mkc", "unpack", "1234"}, "128 hex digits"},
		{[]string{"mkc", "frob"}, "unknown subcommand"},
		{[]string{"config"}, "--defaults"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestHelp: -h and --help on every command print its help, with an
// example, on standard output (so that 'mkeysim sweep --help | less'
// shows it), and exit 0.
func TestHelp(t *testing.T) {
	for _, c := range [][]string{{"-h"}, {"run", "-h"}, {"ref", "--help"}, {"mkc", "-h"}, {"config", "--help"}, {"help", "sweep"}} {
		code, out, errs := runCLI(c...)
		if code != 0 || errs != "" || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c, code, out, errs)
		}
		if len(c) > 1 && !strings.Contains(out, "Examples:") {
			t.Errorf("%v: help shows no example", c)
		}
	}
}

// TestMKCPackUnpack: pack then unpack gives the fields back; the spec
// example's image packs from its fields.
func TestMKCPackUnpack(t *testing.T) {
	const example = "00009d00ffffff2a000000000000000500007f000000180000000000000030000000000000000000000000000000000100000000000000040000000c00000000"
	code, out, errs := runCLI("mkc", "unpack", example)
	if code != 0 {
		t.Fatalf("unpack: %d %s", code, errs)
	}
	f := filepath.Join(t.TempDir(), "f.json")
	os.WriteFile(f, []byte(out), 0o644)
	code, out, errs = runCLI("mkc", "pack", f)
	if code != 0 || strings.TrimSpace(out) != example {
		t.Fatalf("pack(unpack(x)) = %q (%d %s), want %s", out, code, errs, example)
	}
}

// TestConfigDefaults: the printed defaults file loads back to the defaults.
func TestConfigDefaults(t *testing.T) {
	code, out, errs := runCLI("config", "--defaults")
	if code != 0 {
		t.Fatal(errs)
	}
	f := filepath.Join(t.TempDir(), "d.toml")
	os.WriteFile(f, []byte(out), 0o644)
	c, err := config.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	def := config.Default()
	if string(c.JSON()) != string(def.JSON()) {
		t.Fatalf("defaults file loads to\n%s\nwant\n%s", c.JSON(), def.JSON())
	}
	for _, p := range def.Params() {
		if p.Help == "" {
			t.Errorf("parameter %s has no help text", p.Name)
		}
	}
}

// TestRunScenario: run prints one line per operation with a cycle, equal
// to ref's lines.
func TestRunScenario(t *testing.T) {
	f := "../../examples/klm-nested.json"
	code, out, errs := runCLI("run", "-quiet", f)
	if code != 0 {
		t.Fatal(errs)
	}
	got, err := scenario.ReadResults(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI("ref", f)
	want, _ := scenario.ReadResults(strings.NewReader(out))
	if code != 0 || len(got) != len(want) || len(got) == 0 {
		t.Fatalf("run gave %d lines, ref %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].HasCycle {
			t.Fatalf("line %d has no cycle", i)
		}
		if d := scenario.Diff(&got[i], &want[i]); d != "" {
			t.Fatal(d)
		}
	}
}

// TestWaveFlags: bad -vcd values are refused before the run, naming the
// flag and value, and leave no file behind; a good one writes the VCD,
// its save file and filters.
func TestWaveFlags(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(t.TempDir(), "blocker") // a file where a directory goes
	os.WriteFile(blocker, nil, 0o644)
	vcdPath := filepath.Join(dir, "w.vcd")
	f := "../../examples/pa-passthrough.json"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-vcd-from", "5", f}, "--vcd-from 5: needs --vcd"},
		{[]string{"run", "-vcd", filepath.Join(blocker, "w.vcd"), f}, "cannot write"},
		{[]string{"run", "-vcd", vcdPath, "-vcd-from", "10", "-vcd-to", "5", f}, "--vcd-from 10 is after --vcd-to 5"},
		{[]string{"run", "-vcd", vcdPath, "-vcd-scope", "top.nosuch", f}, "top.nosuch"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", c.args, code, out, errs, c.want)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "w.*")); len(left) > 0 {
			t.Fatalf("%v left %v behind", c.args, left)
		}
	}
	if code, _, errs := runCLI("run", "-quiet", "-vcd", vcdPath, f); code != 0 {
		t.Fatalf("a good -vcd run failed: %s", errs)
	}
	for _, p := range []string{vcdPath, filepath.Join(dir, "w.gtkw")} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
}

// TestFST: --fst without vcd2fst is refused before the run, saying where
// it comes from; with it, the run leaves NAME.fst (no NAME.vcd) and a save
// file that opens it, and the FST holds the waveform the VCD would: the
// same changes of top.cycle and of the results' sequence numbers, read
// back through fst2vcd by the strict reader.
func TestFST(t *testing.T) {
	const sc = "../../examples/klm-nested.json"
	t.Run("without vcd2fst", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv("PATH", dir)
		code, out, errs := runCLI("run", sc, "--vcd", filepath.Join(dir, "k.vcd"), "--fst")
		if code != exitUsage || out != "" || !strings.Contains(errs, "--fst: vcd2fst is not on PATH") || !strings.Contains(errs, "gtkwave") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Errorf("left %v", left)
		}
	})
	t.Run("with vcd2fst", func(t *testing.T) {
		tooltest.Need(t, "vcd2fst", "fst2vcd")
		dir := t.TempDir()
		if code, _, errs := runCLI("run", sc, "--no-summary", "--vcd", filepath.Join(dir, "plain.vcd")); code != 0 {
			t.Fatal(errs)
		}
		if code, _, errs := runCLI("run", sc, "--no-summary", "--vcd", filepath.Join(dir, "k.vcd"), "--fst"); code != 0 {
			t.Fatal(errs)
		}
		if _, err := os.Stat(filepath.Join(dir, "k.vcd")); !os.IsNotExist(err) {
			t.Errorf("k.vcd is left beside k.fst (%v)", err)
		}
		save, _ := os.ReadFile(filepath.Join(dir, "k.gtkw"))
		if !strings.Contains(string(save), `[dumpfile] "k.fst"`) {
			t.Errorf("the save file does not name k.fst:\n%.300s", save)
		}
		back, err := exec.Command("fst2vcd", filepath.Join(dir, "k.fst")).Output()
		if err != nil {
			t.Fatalf("fst2vcd: %v", err)
		}
		got, err := vcd.Parse(bytes.NewReader(back))
		if err != nil {
			t.Fatalf("fst2vcd's VCD: %v", err)
		}
		f, _ := os.Open(filepath.Join(dir, "plain.vcd"))
		want, err := vcd.Parse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, sig := range []string{"top.cycle", "top.core.out_seq", "top.core.out_valid"} {
			a, b := values(got.Changes(sig)), values(want.Changes(sig))
			if len(b) == 0 || !slices.Equal(a, b) {
				t.Errorf("%s: %d changes in the FST, %d in the VCD", sig, len(a), len(b))
			}
		}
	})
}

// values is a signal's changes as "time=value", values as numbers (FST
// and VCD may pad binary values differently).
func values(cs []vcd.Change) []string {
	var out []string
	for _, c := range cs {
		n, ok := new(big.Int).SetString(c.Value, 2)
		v := c.Value
		if ok {
			v = n.String()
		}
		out = append(out, fmt.Sprint(c.Time, "=", v))
	}
	return out
}

// TestCompareTally: K of M counts the expected lines matched; an extra
// line in GOT fails the comparison without lowering K; a mismatch shows
// segments with hex addresses, as the files write them.
func TestCompareTally(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "want.jsonl")
	got := filepath.Join(dir, "got.jsonl")
	line := func(seq int, addr string) string {
		return fmt.Sprintf(`{"seq":%d,"op":"access","status":"OK","segments":[{"space":"dma","addr":"%s","len":16}]}`+"\n", seq, addr)
	}
	os.WriteFile(want, []byte(line(0, "0x1000")+line(1, "0x2000")+line(2, "0x3000")), 0o644)
	for _, c := range []struct {
		got  string
		code int
		says []string
	}{
		{line(0, "0x1000") + line(1, "0x2000") + line(2, "0x3000"), 0, []string{"3 of 3 results match"}},
		{line(0, "0x1000") + line(1, "0x2000") + line(2, "0x3000") + line(3, "0x4000"), 1, []string{"line count: got 4 expected 3", "3 of 3 results match"}},
		{line(0, "0x1000") + line(1, "0x2010") + line(2, "0x3000") + line(3, "0x4000"), 1, []string{"mismatch at line 2", "dma 0x2010 len 16", "want [dma 0x2000 len 16]", "2 of 3 results match"}},
		{line(0, "0x1000"), 1, []string{"mismatch at line 2: missing", "1 of 3 results match"}},
	} {
		os.WriteFile(got, []byte(c.got), 0o644)
		code, out, errs := runCLI("compare", got, want)
		if code != c.code {
			t.Errorf("exit %d, want %d: %s%s", code, c.code, out, errs)
		}
		for _, s := range c.says {
			if !strings.Contains(out, s) {
				t.Errorf("compare prints %q, want %q in it", out, s)
			}
		}
	}
}
