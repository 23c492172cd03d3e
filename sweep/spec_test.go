package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadSpec: a sweep file's parameters are read as a configuration
// file's, its [sweep] table gives the axes in order, the seeds and the
// paths (relative to the file); bad files are refused naming the file
// and what is wrong.
func TestReadSpec(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "s.toml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write(`[mtt]
walkers = 3
[sweep]
vary = ["mkc_cache.ways=1,2", "pcie.tags=4,8"]
seeds = 2
out = "res"
scenario = "/abs/s.json"
`)
	s, err := ReadSpec(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"mkc_cache.ways=1,2", "pcie.tags=4,8"}
	if !reflect.DeepEqual(s.Vary, want) || s.Seeds != 2 || s.Out != filepath.Join(dir, "res") || s.Scenario != "/abs/s.json" || s.Config.Model.MTT.Walkers != 3 {
		t.Errorf("read %+v", s)
	}
	for _, tc := range []struct{ body, want string }{
		{"[mtt]\nwalkers = 3\n", "no [sweep] table"},
		{"[sweep]\nvary = []\n", "[sweep] vary is empty"},
		{"[sweep]\nvary = [\" \"]\n", "[sweep] vary item 1 is empty"},
		{"[sweep]\nvary = [\"pcie.tags=1,2\"]\nseed = 3\n", `unknown key "sweep.seed" in [sweep]: want vary, seeds, out or scenario`},
		{"[sweep]\nvary = [\"pcie.tags=1,2\"]\nseeds = 0\n", "[sweep] seeds = 0: want at least 1"},
		{"[sweep]\nvary = \"pcie.tags=1,2\"\n", "[sweep]"},
		{"[pcie]\ntags = 0\n[sweep]\nvary = [\"pcie.tags=1,2\"]\n", "line 2: pcie.tags = 0: want 1..768"},
		{"[pcie]\ntagz = 1\n[sweep]\nvary = [\"pcie.tags=1,2\"]\n", `unknown parameter "pcie.tagz"`},
	} {
		_, err := ReadSpec(write(tc.body))
		if err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error naming %s and saying %q", tc.body, err, p, tc.want)
		}
	}
	if _, err := ReadSpec(filepath.Join(dir, "none.toml")); err == nil || !strings.Contains(err.Error(), "none.toml: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestExampleSpecs: every sweep file of examples/sweeps reads, and every
// point of its grid is a configuration the model accepts.
func TestExampleSpecs(t *testing.T) {
	files, _ := filepath.Glob("../examples/sweeps/*.toml")
	if len(files) < 2 {
		t.Fatalf("%d sweep files in examples/sweeps", len(files))
	}
	for _, f := range files {
		spec, err := ReadSpec(f)
		if err != nil {
			t.Fatal(err)
		}
		s := &Sweep{Base: spec.Config, Seeds: spec.Seeds}
		for _, v := range spec.Vary {
			a, err := ParseVary(v)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			s.Axes = append(s.Axes, a)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
