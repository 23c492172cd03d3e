package vcd

import (
	"bytes"
	"errors"
	"mkeysim/internal/tooltest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkScript is scripts/gtkwave-check.sh, relative to this package.
const checkScript = "../scripts/gtkwave-check.sh"

// runCheck runs the check script and returns its exit code and output.
func runCheck(t *testing.T, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command("bash", append([]string{checkScript}, args...)...).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("running %s: %v", checkScript, err)
	return 0, ""
}

// writeSample writes sample.vcd, sample.gtkw and a state filter into dir
// and returns the paths of the VCD and the save file.
func writeSample(t *testing.T, dir string) (vcdPath, gtkwPath string) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, Options{Date: "test", Comment: "seed 1", TimescalePS: 4000})
	top := w.Root("top")
	clk := top.Var("clk", 1)
	mc := top.Scope("mptcache")
	valid, key := mc.Var("req_valid", 1), mc.Var("req_key", 32)
	va := mc.Var("va", 64)
	state := mc.Scope("fsm").Var("state", 3)
	mkc := mc.Var("mkc", 512)
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	img := make([]byte, 64)
	for c := uint64(1); c <= 40; c++ {
		w.At(c)
		clk.Set(c & 1)
		valid.SetBool(c%3 == 0)
		key.Set(c * 0x01000193)
		va.Set(c << 40)
		state.Set(c / 6 % 5)
		img[c%64] = byte(c)
		mkc.SetBytes(img)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	vcdPath = filepath.Join(dir, "sample.vcd")
	gtkwPath = filepath.Join(dir, "sample.gtkw")
	writeFile(t, vcdPath, buf.Bytes())

	buf.Reset()
	names := map[uint64]string{0: "IDLE", 1: "LOOKUP", 2: "FETCH", 3: "CHECK", 4: "DONE"}
	if err := WriteFilter(&buf, names, 3, Hex); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "state.txt"), buf.Bytes())

	buf.Reset()
	err := WriteGTKW(&buf, SaveFile{
		SaveFile: "sample.gtkw",
		DumpFile: "sample.vcd",
		Comments: []string{"seed 1"},
		Groups: []Group{
			{Name: "clock", Signals: []Signal{{Path: clk.Path(), Width: 1, Format: Bin}}},
			{Name: "mptcache", Signals: []Signal{
				{Path: valid.Path(), Width: 1, Format: Bin},
				{Path: key.Path(), Width: 32, Format: Hex},
				{Path: va.Path(), Width: 64, Format: Hex},
				{Path: state.Path(), Width: 3, Format: Hex, Filter: "state.txt"},
				{Path: mkc.Path(), Width: 512, Format: Hex},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, gtkwPath, buf.Bytes())
	return vcdPath, gtkwPath
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGTKWaveLoads loads a sample VCD, save file and filter in GTKWave and
// vcd2fst through scripts/gtkwave-check.sh, then proves the check fails on
// breakage GTKWave reports.
//
// GTKWave 3.3.118 and vcd2fst report only some breakage. Measured:
// caught: an undeclared identifier ("Near byte N, Unknown VCD identifier"),
// time going backwards ("Time backtracking detected"), a save-file signal
// missing from the dump (the script's own Tcl check) and an unreadable
// translate filter ("Could not open filter file!"). Missed (loaded
// silently, exit 0): a value wider than its variable (truncated), a
// missing $enddefinitions, unbalanced $scope/$upscope, an unknown $keyword,
// a malformed time line ("#x4"), a repeated time. Those are left to Parse;
// TestGTKWaveMisses pins this list down.
func TestGTKWaveLoads(t *testing.T) {
	tooltest.Need(t, tooltest.GTKWave...)
	dir := t.TempDir()
	vcdPath, gtkwPath := writeSample(t, dir)
	if code, out := runCheck(t, vcdPath, gtkwPath); code != 0 {
		t.Fatalf("check of a good sample exited %d:\n%s", code, out)
	}

	good, err := os.ReadFile(vcdPath)
	if err != nil {
		t.Fatal(err)
	}
	gtkw, err := os.ReadFile(gtkwPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		vcd, gtkw  string
		wantOutput string
	}{
		{"undeclared id", strings.Replace(string(good), "\n#8\n", "\n#8\n1~\n", 1), "", "Unknown VCD identifier"},
		{"time backtracking", string(good) + "#4\n1!\n", "", "Time backtracking"},
		{"signal not in dump", string(good), string(gtkw) + "@28\ntop.nosuch\n", "top.nosuch"},
		{"filter missing", string(good), strings.ReplaceAll(string(gtkw), "state.txt", "nosuch.txt"), "Could not open filter file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(dir, "bad.vcd")
			writeFile(t, bad, []byte(tc.vcd))
			args := []string{bad}
			if tc.gtkw != "" {
				g := filepath.Join(dir, "bad.gtkw")
				writeFile(t, g, []byte(tc.gtkw))
				args = append(args, g)
			}
			code, out := runCheck(t, args...)
			if code != 1 || !strings.Contains(out, tc.wantOutput) {
				t.Errorf("check exited %d, want 1 with %q:\n%s", code, tc.wantOutput, out)
			}
		})
	}
}

// TestGTKWaveMisses records the breakage GTKWave and vcd2fst load without
// a word, which is why Parse exists: the check script passes them all and
// Parse rejects each. If a tool starts reporting one, move it to
// TestGTKWaveLoads.
func TestGTKWaveMisses(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs GTKWave once per case")
	}
	tooltest.Need(t, tooltest.GTKWave...)
	dir := t.TempDir()
	vcdPath, _ := writeSample(t, dir)
	good, err := os.ReadFile(vcdPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(good)
	for _, tc := range []struct{ name, vcd string }{
		{"value wider than var", strings.Replace(s, "\n#8\n", "\n#8\nb1111 !\n", 1)},
		{"missing $enddefinitions", strings.Replace(s, "$enddefinitions $end\n", "", 1)},
		{"unbalanced $scope", strings.Replace(s, "$upscope $end\n", "", 1)},
		{"unknown keyword", strings.Replace(s, "$version", "$versio", 1)},
		{"malformed time", strings.Replace(s, "\n#8\n", "\n#x8\n", 1)},
		{"repeated time", strings.Replace(s, "\n#8\n", "\n#4\n", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse(strings.NewReader(tc.vcd)); err == nil {
				t.Errorf("Parse accepted it")
			}
			bad := filepath.Join(dir, "bad.vcd")
			writeFile(t, bad, []byte(tc.vcd))
			if code, out := runCheck(t, bad); code != 0 {
				t.Logf("GTKWave/vcd2fst now catch this (exit %d): move the case to TestGTKWaveLoads\n%s", code, out)
			}
		})
	}
}
