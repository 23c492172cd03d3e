package vectors

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"mkeysim/internal/bounded"
)

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
	cliOut  []byte
)

// TestMain removes the binary cli built: it is 27 MB, and a run of the
// package's tests left one in the system's temporary directory each time.
func TestMain(m *testing.M) {
	code := m.Run()
	if cliPath != "" {
		os.RemoveAll(filepath.Dir(cliPath))
	}
	os.Exit(code)
}

// cli builds cmd/mkeysim once per test binary.
func cli(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mkeysim-vectors-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "mkeysim")
		cmd := exec.Command("go", "build", "-o", cliPath, "mkeysim/cmd/mkeysim")
		cliOut, cliErr = cmd.CombinedOutput()
	})
	if cliErr != nil {
		t.Fatalf("go build ./cmd/mkeysim: %v\n%s", cliErr, cliOut)
	}
	return cliPath
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := bounded.Command(cli(t), append([]string{"vectors"}, args...)...)
	cmd.Dir = ".."
	r := cmd.Run()
	if r.ExitCode < 0 || r.Truncated() {
		t.Fatal(r.String())
	}
	return r.ExitCode, string(r.Stdout), string(r.Stderr)
}

func TestCLIBadInput(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	os.WriteFile(blocker, nil, 0o644)
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"--unit", "tlb", "--count", "10", "--out", out}, `--unit "tlb"`},
		{[]string{"--unit", "protcheck", "--count", "0", "--out", out}, "--count 0"},
		{[]string{"--unit", "protcheck", "--count", "-7", "--out", out}, "--count -7"},
		{[]string{"--unit", "mptcache", "--mkc-cache.sets", "12", "--out", out}, "--mkc-cache.sets 12"},
		{[]string{"--unit", "mptcache", "--mkc_cache.ways", "0", "--out", out}, "--mkc-cache.ways 0"},
		{[]string{"--unit", "all", "-ways", "100", "--out", out}, "--mkc-cache.ways 100"},
		{[]string{"--unit", "mptcache", "--mkc-cache.replacement", "fifo", "--out", out}, `--mkc-cache.replacement "fifo"`},
		{[]string{"--unit", "protcheck", "--count", "10", "--out", filepath.Join(blocker, "sub")}, "--out " + filepath.Join(blocker, "sub")},
		{[]string{"--unit", "protcheck", "--count", "10", "--out", out, "--examples", "/no/such"}, "--examples /no/such"},
		{[]string{"--unit", "protcheck", "--count", "ten", "--out", out}, "count"},
		{[]string{"--count", "10", "--out", out}, "--unit is required"},
		{[]string{"--unit", "top"}, "--out is required"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("mkeysim vectors %s: exit %d, stderr %q, stdout %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr, stdout, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input created %s", out)
	}
}

func TestCLIHelp(t *testing.T) {
	// Help goes to standard output, so "mkeysim vectors -h | less" shows it.
	code, stdout, stderr := runCLI(t, "-h")
	if code != 0 || !strings.Contains(stdout, "Example") || !strings.Contains(stdout, "mkeysim vectors --unit") || stderr != "" {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestCLIWrites(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v")
	code, stdout, stderr := runCLI(t, "--unit", "all", "--count", "300", "--seed", "5", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := len(regexp.MustCompile(`(?m)^\w+: 300 vectors`).FindAllString(stdout, -1)); n != len(Units()) {
		t.Errorf("stdout names %d units: %q", n, stdout)
	}
	es, _ := os.ReadDir(out)
	if len(es) != 5*len(Units())+2 { // hex, manifest, pkg, tb, echo; top's two tables
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("%d files: %v", len(es), names)
	}
	// Each manifest records the command that was run (--unit all), without
	// --out: that command, run elsewhere, gives the same bytes.
	var cmds []string
	for _, u := range Units() {
		var m Manifest
		data, _ := os.ReadFile(filepath.Join(out, u+".manifest.json"))
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s.manifest.json: %v", u, err)
		}
		cmds = append(cmds, m.Command)
	}
	want := "mkeysim vectors --unit all --count 300 --seed 5 --mkc-cache.sets 16 --mkc-cache.ways 4 --mkc-cache.replacement lru --mkc-cache.seed 1"
	for i, c := range cmds {
		if c != want {
			t.Errorf("%s.manifest.json: command %q, want the command run, %q", Units()[i], c, want)
		}
	}
	out2 := filepath.Join(t.TempDir(), "w")
	args := strings.Fields(strings.TrimPrefix(cmds[0], "mkeysim vectors "))
	if code, _, stderr := runCLI(t, append(args, "--out", out2)...); code != 0 {
		t.Fatalf("%s: exit %d: %s", cmds[0], code, stderr)
	}
	for _, e := range es {
		a, _ := os.ReadFile(filepath.Join(out, e.Name()))
		b, _ := os.ReadFile(filepath.Join(out2, e.Name()))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two directories", e.Name())
		}
	}
}
