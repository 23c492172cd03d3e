package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"mkeysim/internal/bounded"
	"mkeysim/internal/tooltest"
)

// repoRoot is the repository, relative to this package.
const repoRoot = "../.."

// built is mkeysim built once as a program, for the tests that need a
// real process: signals, the build stamp, shell scripts.
var built struct {
	once      sync.Once
	dir, path string
	err       error
	out       []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binary builds cmd/mkeysim as 'make build' does (with the VCS stamp) and
// returns its path; its directory holds nothing else, to be put on PATH.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "mkeysim-cli-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "mkeysim")
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", built.path, ".")
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

// workDir is a fresh directory with the repository's examples/ and
// vectors/ linked in: the examples of --help name them as a user in a
// checkout would, and write their out/, vec/ and files there.
func workDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"examples", "vectors"} {
		abs, err := filepath.Abs(filepath.Join(repoRoot, d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shell runs script with bash in dir, with the built mkeysim first on
// PATH, and returns its exit status and output.
func shell(t *testing.T, dir, script string) (int, string) {
	t.Helper()
	cmd := bounded.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary(t))+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	r := cmd.Run()
	switch {
	case r.TimedOut:
		t.Fatalf("killed after %v:\n%.4000s", cmd.Deadline, out.String())
	case r.ExitCode < 0:
		t.Fatal(r.String())
	}
	if out.Len() > 16<<20 {
		t.Fatalf("%d bytes of output", out.Len())
	}
	return r.ExitCode, out.String()
}

// commands lists every command a user can run, the root first.
func commands() []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || strings.HasPrefix(c.Name(), "__") {
			return
		}
		out = append(out, c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot())
	return out
}

// examples returns the lines of the Examples: section of a help text,
// unindented.
func examples(help string) []string {
	_, after, ok := strings.Cut(help, "\nExamples:\n")
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(after, "\n") {
		if strings.TrimSpace(l) == "" {
			break
		}
		lines = append(lines, strings.TrimPrefix(l, "  "))
	}
	return lines
}

// TestHelpExamplesRun: every command's --help goes to standard output,
// exits 0 and shows examples, and the examples run as printed, one
// command's in order in one shell (as a user pasting them would), in a
// directory like a checkout's. An example whose comment reads "# ... X"
// must print X. Examples that run another tool (iverilog) need it.
func TestHelpExamplesRun(t *testing.T) {
	tooltest.Need(t, "bash")
	bin := binary(t)
	for _, c := range commands() {
		path := strings.Fields(c.CommandPath())[1:]
		t.Run(strings.Join(append([]string{"mkeysim"}, path...), "_"), func(t *testing.T) {
			t.Parallel()
			r := bounded.Command(bin, append(path, "--help")...).Run()
			so := bytes.NewBuffer(r.Stdout)
			if r.ExitCode != 0 || len(r.Stderr) > 0 {
				t.Fatalf("--help: %s", r.String())
			}
			lines := examples(so.String())
			if len(lines) == 0 {
				t.Fatalf("--help shows no example:\n%s", so.String())
			}
			var wants []string
			for _, l := range lines {
				word := strings.Fields(l)[0]
				switch word {
				case "mkeysim", "echo", "source":
				default:
					tooltest.Need(t, word)
				}
				if _, w, ok := strings.Cut(l, "# ... "); ok {
					wants = append(wants, strings.TrimSpace(w))
				}
			}
			code, out := shell(t, workDir(t), strings.Join(lines, "\n"))
			if code != 0 {
				t.Fatalf("the examples exit %d:\n%s\n---\n%s", code, strings.Join(lines, "\n"), tail(out, 2000))
			}
			for _, w := range wants {
				if !strings.Contains(out, w) {
					t.Errorf("the examples do not print %q:\n%s", w, tail(out, 2000))
				}
			}
		})
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// TestFlagsAnywhere: flags work before and after the arguments, in the
// --flag value, --flag=value and old single-dash spellings, and "--" ends
// them.
func TestFlagsAnywhere(t *testing.T) {
	const f = "../../examples/klm-nested.json"
	groups := [][][]string{
		{
			{"run", "--no-summary", "--check=false", "--klm.max-indirection", "2", f},
			{"run", f, "--no-summary", "--check=false", "--klm.max-indirection", "2"},
			{"run", "--no-summary", f, "--check=false", "--klm.max-indirection=2"},
			{"run", "-no-summary", "-check=false", "-klm.max_indirection", "2", f},
			{"run", "--no-summary", "--check=false", "--klm.max_indirection", "2", "--", f},
		},
		{
			{"ref", "--klm.max-indirection", "1", f},
			{"ref", f, "--klm.max-indirection", "1"},
			{"ref", f, "-max-indirection", "1"},
		},
	}
	for _, g := range groups {
		var first string
		for i, args := range g {
			code, out, errs := runCLI(args...)
			if code != 0 || out == "" {
				t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
			}
			if i == 0 {
				first = out
			} else if out != first {
				t.Errorf("%q prints other results than %q", args, g[0])
			}
		}
	}
}

// TestVersion: --version and 'version' print the same line, which names
// the module version and, in a checkout, the commit built.
func TestVersion(t *testing.T) {
	bin := binary(t)
	ra, rb := bounded.Command(bin, "--version").Run(), bounded.Command(bin, "version").Run()
	if ra.ExitCode != 0 || rb.ExitCode != 0 {
		t.Fatalf("--version: %s\nversion: %s", ra.String(), rb.String())
	}
	a, b := ra.Stdout, rb.Stdout
	if string(a) != string(b) || !regexp.MustCompile(`^mkeysim \S+, `).Match(a) {
		t.Fatalf("--version %q, version %q", a, b)
	}
	head, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Logf("not in a git checkout (%v): the commit is not checked", err)
		return
	}
	if want := "commit " + string(head[:12]); !strings.Contains(string(a), want) {
		t.Errorf("--version %q does not name %s", a, want)
	}
}

// TestCompletion: the completion scripts are made for every shell; bash
// loads its script and, driven as bash drives it on Tab, it completes
// commands, dotted parameter flags, --vary's parameters, --unit's
// names and plot's figures. Where bash-completion is not installed a stand-in for the one
// function of it the script uses is defined.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errs := runCLI("completion", sh)
		if code != 0 || !strings.Contains(out, "mkeysim") || errs != "" {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", sh, code, len(out), errs)
		}
	}
	tooltest.Need(t, "bash")
	const prelude = `
set +e # an interactive shell, where completion runs, does not stop on errors
if [ -r /usr/share/bash-completion/bash_completion ]; then
	. /usr/share/bash-completion/bash_completion
else
	_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
fi
source <(mkeysim completion bash)
complete -p mkeysim
compopt() { :; } # only readline's completion may call the builtin
tab() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); __start_mkeysim; echo "[$*] ${COMPREPLY[*]}"; }
tab mkeysim ru
tab mkeysim mer
tab mkeysim run --mkc-cache.wa
tab mkeysim sweep --vary mkc_cache.wa
tab mkeysim vectors --unit mp
tab mkeysim run --log-level de
tab mkeysim plot --y mtt_hit
`
	code, out := shell(t, workDir(t), prelude)
	if code != 0 {
		t.Fatalf("bash: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"complete -o default -F __start_mkeysim mkeysim",
		"[mkeysim ru] run",
		"[mkeysim mer] merge",
		"[mkeysim run --mkc-cache.wa] --mkc-cache.ways",
		"[mkeysim sweep --vary mkc_cache.wa] mkc_cache.ways=",
		"[mkeysim vectors --unit mp] mptcache",
		"[mkeysim run --log-level de] debug",
		"[mkeysim plot --y mtt_hit] mtt_hit_rate",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bash completion: no %q in\n%s", want, out)
		}
	}
}

// failWriter fails every write, like a full disk or a closed pipe.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestExitStatus: every command exits 0 on success, 2 on bad input
// (naming it on standard error, nothing on standard output) and 1 when
// its results differ or its output cannot be written.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	const f = "../../examples/klm-nested.json"
	const expected = "../../examples/klm-nested.expected.jsonl"
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(other, []byte(`{"seq":0,"op":"create_mkey","status":"OK","mkey":"0x1"}`+"\n"), 0o644)
	mkcJSON := filepath.Join(dir, "mkc.json")
	os.WriteFile(mkcJSON, []byte(`{"access_mode":"MTT","pd":5,"variant":"0x2a","qpn":"0xffffff","lr":1}`), 0o644)
	const hex = "00000500ffffff2a0000000000000005000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	for _, c := range []struct {
		args    []string
		code    int
		failOut bool // standard output fails
	}{
		{[]string{"--help"}, 0, false},
		{[]string{"--nosuch"}, 2, false},
		{[]string{"run", f, "--no-summary"}, 0, false},
		{[]string{"run", f, "--mkc-cache.ways", "0"}, 2, false},
		{[]string{"run", f, "--no-summary"}, 1, true},
		{[]string{"ref", f}, 0, false},
		{[]string{"ref"}, 2, false},
		{[]string{"ref", f}, 1, true},
		{[]string{"compare", expected, expected}, 0, false},
		{[]string{"compare", other, expected}, 1, false},
		{[]string{"compare", expected}, 2, false},
		{[]string{"config", "--defaults"}, 0, false},
		{[]string{"config", "--defaults", "extra"}, 2, false},
		{[]string{"config", "--defaults"}, 1, true},
		{[]string{"mkc", "unpack", hex}, 0, false},
		{[]string{"mkc", "unpack", "12"}, 2, false},
		{[]string{"mkc", "unpack", hex}, 1, true},
		{[]string{"mkc", "pack", mkcJSON}, 0, false},
		{[]string{"mkc", "pack", "/no/such.json"}, 2, false},
		{[]string{"sweep", "--vary", "mkc_cache.ways=1,2", "--scenario", f, "--quiet", "--out", filepath.Join(dir, "sw")}, 0, false},
		{[]string{"sweep", "--vary", "mkc_cache.wayz=1,2", "--out", filepath.Join(dir, "sw")}, 2, false},
		{[]string{"sweep", "--vary", "mkc_cache.ways=1,2", "--scenario", f, "--quiet", "--shard", "2/2", "--out", filepath.Join(dir, "sw2")}, 0, false},
		{[]string{"sweep", "--vary", "mkc_cache.ways=1,2", "--shard", "3/2", "--out", filepath.Join(dir, "sw2")}, 2, false},
		{[]string{"sweep", "--vary", "mkc_cache.ways=1,2", "--scenario", f, "--quiet", "--shard", "1/2", "--out", filepath.Join(dir, "sw1")}, 0, false},
		{[]string{"merge", filepath.Join(dir, "swm"), filepath.Join(dir, "sw1"), filepath.Join(dir, "sw2")}, 0, false},
		{[]string{"merge", filepath.Join(dir, "swm2"), filepath.Join(dir, "sw1"), filepath.Join(dir, "sw2")}, 1, true},
		{[]string{"merge", filepath.Join(dir, "swm"), filepath.Join(dir, "sw1")}, 2, false},
		{[]string{"merge", filepath.Join(dir, "swm")}, 2, false},
		{[]string{"plot", filepath.Join(dir, "swm"), "--x", "mkc_cache.ways", "--y", "cycles", "--out", filepath.Join(dir, "p.png")}, 0, false},
		{[]string{"plot", filepath.Join(dir, "swm"), "--x", "mkc_cache.wayz", "--y", "cycles", "--out", filepath.Join(dir, "p.png")}, 2, false},
		{[]string{"plot", filepath.Join(dir, "swm"), "--x", "mkc_cache.ways", "--y", "cycles", "--reference", other, "--out", filepath.Join(dir, "p.png")}, 2, false},
		{[]string{"vectors", "--unit", "protcheck", "--count", "10", "--examples", "", "--out", filepath.Join(dir, "v")}, 0, false},
		{[]string{"vectors", "--unit", "tlb", "--out", filepath.Join(dir, "v")}, 2, false},
		{[]string{"vectors", "--unit", "protcheck", "--count", "10", "--examples", "", "--out", filepath.Join(dir, "v2")}, 1, true},
		{[]string{"version"}, 0, false},
		{[]string{"version", "x"}, 2, false},
		{[]string{"version"}, 1, true},
		{[]string{"completion", "bash"}, 0, false},
		{[]string{"completion", "tcsh"}, 2, false},
		{[]string{"help", "run"}, 0, false},
		{[]string{"help", "nosuch"}, 2, false},
	} {
		var so, se bytes.Buffer
		var stdout interface{ Write([]byte) (int, error) } = &so
		if c.failOut {
			stdout = failWriter{}
		}
		code := execute(context.Background(), c.args, strings.NewReader(""), stdout, &se)
		if code != c.code {
			t.Errorf("%q (stdout fails: %v): exit %d, want %d; stderr %q", c.args, c.failOut, code, c.code, tail(se.String(), 300))
		}
		if c.code == 2 && (so.Len() > 0 || se.Len() == 0) {
			t.Errorf("%q: bad input printed %q on standard output and %q on standard error", c.args, so.String(), se.String())
		}
	}
}

// TestOutDash: --out - is standard output, as a Unix tool reads it (no
// file named "-"); "-" for a file flag that would share standard output
// with the results is bad input naming the flag.
func TestOutDash(t *testing.T) {
	const f = "../../examples/klm-nested.json"
	var so, se bytes.Buffer
	if code := execute(context.Background(), []string{"run", f, "--out", "-", "--no-summary"}, strings.NewReader(""), &so, &se); code != 0 {
		t.Fatalf("run --out -: exit %d; stderr %q", code, tail(se.String(), 300))
	}
	if !strings.Contains(so.String(), `"seq":0`) {
		t.Errorf("run --out -: no result lines on standard output: %q", tail(so.String(), 300))
	}
	if _, err := os.Stat("-"); err == nil {
		os.Remove("-")
		t.Error(`run --out - made a file named "-"`)
	}
	for _, flag := range []string{"--stats", "--coverage", "--tlp-out"} {
		so.Reset()
		se.Reset()
		code := execute(context.Background(), []string{"run", f, flag, "-"}, strings.NewReader(""), &so, &se)
		if code != 2 || !strings.Contains(se.String(), flag+" -: standard output carries the result lines") {
			t.Errorf("run %s -: exit %d, stderr %q", flag, code, tail(se.String(), 300))
		}
		if _, err := os.Stat("-"); err == nil {
			os.Remove("-")
			t.Errorf(`run %s - made a file named "-"`, flag)
		}
	}
}
