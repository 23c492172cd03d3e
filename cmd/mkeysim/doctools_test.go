package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"mkeysim/internal/bounded"
	"mkeysim/internal/tooltest"
	"mkeysim/scenario"
)

// docTools are the outside tools whose command lines the documents show
// and TestDocToolsCommands runs.
var docTools = []string{"tshark", "gtkwave", "iverilog", "vvp", "verilator"}

// docInputs are the files the documents' commands read, each made by a
// small run of mkeysim (or a build) in the test's work directory the
// first time a command names it (by this text). They stand for what the
// documents' own mkeysim, make and go lines make.
var docInputs = []struct {
	name  string                       // the text a command names it by
	args  []string                     // mkeysim's arguments that make it
	build func(t *testing.T, w string) // or this
}{
	{name: "out/klm.pcap", args: []string{"run", "examples/klm-nested.json", "--front", "wire", "--pcap-out", "out/klm.pcap"}},
	{name: "out/inv.pcap", args: []string{"run", "examples/send-with-invalidate.json", "--front", "wire", "--pcap-out", "out/inv.pcap"}},
	{name: "out/klm.tlp.pcap", args: []string{"run", "examples/klm-nested.json", "--tlp-out", "out/klm.tlp.pcap"}},
	{name: "out/host.tlp.pcap", args: []string{"run", "examples/umr-mode-change.json", "--front", "host", "--tlp-out", "out/host.tlp.pcap"}},
	// make run's out/default.vcd, .gtkw and .filters/ (169 MB): a small
	// run's waveform, under the same names.
	{name: "out/default.", args: []string{"run", "examples/klm-nested.json", "--vcd", "out/default.vcd"}},
	// Every unit's vectors, package, harness and echo DUT.
	{name: "vec/", args: []string{"vectors", "--unit", "all", "--count", "4096", "--seed", "1", "--out", "vec"}},
	// make cosim's library and VPI module, under $R/out/cosim.
	{name: "$R/out/cosim", build: docMakeCosim},
	// cosim/README.md's testbench: its seven lines and its creating
	// example pasted into cosim/test/recipe_tb.sv.tmpl, as
	// scripts/cosim-check.sh does, the module named my_tb.
	{name: "my_tb.sv", build: docRecipeTB},
	{name: "my_dut.v", build: func(t *testing.T, w string) {
		docCopyFile(t, filepath.Join(repoRoot, "vectors/hdl/mkeysim_protcheck.v"), filepath.Join(w, "my_dut.v"))
	}},
}

// docPlaceholders are the words of template commands and the files of
// docInputs that stand for them.
var docPlaceholders = map[string]string{
	"FILE.pcap":    "out/klm.tlp.pcap", // README.md: the --tlp-out FILE.pcap of the line
	"run.tlp.pcap": "out/klm.tlp.pcap", // scripts/tlp.lua's use
	"FILE.vcd":     "out/default.vcd",  // scripts/gtkwave-check.sh
}

// docFragments are commands a text shows without their input (an option
// in a sentence), and the whole commands the test runs for them.
var docFragments = map[string][]string{
	"tshark -V": {"tshark -V -r out/klm.pcap"},
	// vectors/README.md: the example DUTs are width-clean under it.
	"verilator --lint-only -Wall": {
		"verilator --lint-only -Wall vectors/hdl/mkeysim_protcheck.v",
		"verilator --lint-only -Wall vectors/hdl/mkeysim_mttwalk.v",
		"verilator --lint-only -Wall vectors/hdl/mkeysim_klmwalk.v",
		"verilator --lint-only -Wall vectors/hdl/mkeysim_mptcache.v",
		"verilator --lint-only -Wall vectors/hdl/mkeysim_mptcache_age.v",
		"verilator --lint-only -Wall vectors/hdl/mkeysim_atc.v",
	},
}

// docCmd is one command line a document shows.
type docCmd struct {
	where string // file:line, or "mkeysim CMD --help"
	tool  string
	text  string // as shown, continuation lines joined, comment cut
	run   string // for a verilator --binary build: the line that runs what it built, when shown
}

// TestDocToolsCommands runs every tshark, gtkwave, iverilog, vvp and
// verilator command line that the documents show (fenced and indented
// code blocks and inline code of every Markdown file, the leading comment
// of every script, the help of every mkeysim command), as a reader would
// paste it, on files this tool made, so that a field name tshark does not
// know (docs/wire.md's infiniband.reth.dma_length, which tshark 4.0
// refuses: the field is infiniband.reth.dmalen), a file a command does
// not find or a build that fails breaks a test instead of a reader; a
// command added to a document is run without a change here. tshark must
// exit 0, print something, no complaint and no "Malformed", and every
// field of its -e, -Y and -R must be in its glossary (tshark -G fields,
// with the command's Lua scripts); gtkwave runs under xvfb-run with a Tcl
// script that counts the signals on display (some, with a save file) and
// quits; iverilog and verilator must build, and the simulations (vvp, a
// Verilated binary run after its build) end with "0 failed". A command
// the test cannot run (a placeholder or a variable it does not know, a
// tshark without -r) fails it: map it in docPlaceholders, docInputs or
// docFragments, which must all be used. A missing tool skips its
// commands, or fails them with MKEYSIM_REQUIRE_TOOLS=1; -short skips the
// Verilator builds. About 30 s, two thirds of it Verilator.
func TestDocToolsCommands(t *testing.T) {
	tooltest.Need(t, "bash")
	cmds := docCommands(t)
	found := map[string]int{}
	for _, c := range cmds {
		found[strings.SplitN(c.where, ":", 2)[0]]++
	}
	// The extraction itself: each of these shows tool commands.
	for _, f := range []string{"README.md", "docs/wire.md", "docs/host.md", "docs/waveform.md", "vectors/README.md", "cosim/README.md", "scripts/tlp.lua", "mkeysim vectors --help"} {
		if found[f] == 0 {
			t.Errorf("no tool command found in %s: the extraction is broken", f)
		}
	}
	w := docWorkDir(t)
	used := map[string]bool{}
	made := map[string]bool{}
	skipped, ran := false, 0
	for _, c := range cmds {
		name := strings.ReplaceAll(c.where, "/", "_") + "_" + c.tool
		t.Run(name, func(t *testing.T) {
			ran++
			defer func() { skipped = skipped || t.Skipped() }()
			t.Logf("%s: %s", c.where, c.text)
			concrete := []string{c.text}
			if f, ok := docFragments[c.text]; ok {
				used[c.text] = true
				concrete = f
			}
			for _, text := range concrete {
				for ph, file := range docPlaceholders {
					re := regexp.MustCompile(`(^|[\s=:])` + regexp.QuoteMeta(ph) + `(\s|$)`)
					if re.MatchString(text) {
						used[ph] = true
						text = re.ReplaceAllString(text, "${1}"+file+"${2}")
					}
				}
				runDocCommand(t, w, c, text, made)
			}
		})
	}
	if ran < len(cmds) || skipped || t.Failed() {
		return // -run chose some, or a tool is missing: the mappings are not all used
	}
	// Every mapping is used: the mappings stay those the documents need.
	for k := range docFragments {
		if !used[k] {
			t.Errorf("docFragments[%q]: no document shows it any more; remove it", k)
		}
	}
	for k := range docPlaceholders {
		if !used[k] {
			t.Errorf("docPlaceholders[%q]: no document uses it any more; remove it", k)
		}
	}
	for _, in := range docInputs {
		if !made[in.name] {
			t.Errorf("docInputs %q: no command names it any more; remove it", in.name)
		}
	}
}

// docWorkDir is a directory laid out as a checkout for the documents'
// commands: the repository's examples/, vectors/, scripts/ and cosim/
// linked in, and a home of its own (no personal tshark preferences or
// plugins).
func docWorkDir(t *testing.T) string {
	t.Helper()
	w := workDir(t)
	for _, d := range []string{"scripts", "cosim"} {
		abs, err := filepath.Abs(filepath.Join(repoRoot, d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(w, d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"out", "home"} {
		if err := os.Mkdir(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// docEnv is the environment of a document's command: R is the
// repository (cosim/README.md's name for it), here the work directory.
func docEnv(w string) []string {
	return append(os.Environ(), "R="+w, "HOME="+filepath.Join(w, "home"), "XDG_CONFIG_HOME="+filepath.Join(w, "home", ".config"))
}

// runDocCommand runs text, a command of c (the text itself, or the
// concrete command of a fragment or template), in w, and checks what it
// printed as its tool's check says.
func runDocCommand(t *testing.T, w string, c docCmd, text string, made map[string]bool) {
	t.Helper()
	words, err := docShellWords(text, map[string]string{"R": w})
	if err != nil {
		t.Fatalf("%s: %v: the test cannot run it", c.where, err)
	}
	switch c.tool {
	case "tshark":
		tooltest.Need(t, tooltest.Tshark...)
		if !slices.Contains(words, "-r") && !slices.Contains(words, "-G") {
			t.Fatalf("%s: %q reads no capture (-r FILE): map it in docFragments", c.where, text)
		}
	case "gtkwave":
		tooltest.Need(t, "gtkwave", "xvfb-run")
	case "iverilog", "vvp":
		tooltest.Need(t, "iverilog", "vvp")
	case "verilator":
		tooltest.Need(t, "verilator")
		if testing.Short() && !tooltest.Required() && !slices.Contains(words, "--lint-only") {
			t.Skip("-short: a Verilator build takes seconds")
		}
	}
	if strings.Contains(text, "$R/out/cosim") {
		tooltest.Need(t, "go", "gcc", "iverilog-vpi")
	}
	for _, in := range docInputs {
		if strings.Contains(text, in.name) && !made[in.name] {
			if in.build != nil {
				in.build(t, w)
			} else {
				docMkeysim(t, w, in.args...)
			}
			made[in.name] = true
		}
	}
	for i, word := range words {
		if i > 0 && (words[i-1] == "-o" || words[i-1] == "-Mdir") {
			continue // an output
		}
		word = strings.TrimPrefix(word, "lua_script:")
		if strings.HasPrefix(word, "+") {
			_, word, _ = strings.Cut(word, "=")
		}
		if strings.HasPrefix(word, "-") || !docLooksLikePath(word) {
			continue
		}
		p := word
		if !filepath.IsAbs(p) {
			p = filepath.Join(w, p)
		}
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %q names %s, which neither the repository, docInputs nor an earlier command makes: map it in docPlaceholders or docInputs", c.where, text, word)
		}
	}
	if c.tool == "tshark" {
		docTsharkFields(t, w, c.where, words)
	}
	script := text
	if c.tool == "gtkwave" {
		// GTKWave is a GUI: a display of its own, and a Tcl script that
		// counts the signals on display and quits (-x: it quits when
		// loaded).
		if !slices.Contains(words, "-x") {
			tcl := filepath.Join(w, "doctools-quit.tcl")
			if err := os.WriteFile(tcl, []byte("puts \"DOCTOOLS displayed [llength [gtkwave::getDisplayedSignals]]\"\ngtkwave::/File/Quit\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			script += " -S " + tcl
		}
		script = "xvfb-run -a " + script
	}
	out, code := docShell(t, w, script)
	checkDocOutput(t, c.tool, c.where, text, words, out, code)
	if c.run != "" && c.tool == "verilator" && !slices.Contains(words, "--lint-only") {
		out, code := docShell(t, w, c.run)
		checkDocOutput(t, "run", c.where, c.run, nil, out, code)
	}
}

// checkDocOutput fails t unless a command of tool ended as it should.
func checkDocOutput(t *testing.T, tool, where, text string, words []string, out string, code int) {
	t.Helper()
	if code != 0 {
		t.Fatalf("%s: %q exits %d:\n%s", where, text, code, tail(out, 3000))
	}
	switch tool {
	case "tshark":
		var rest []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "Running as user") && strings.TrimSpace(l) != "" {
				rest = append(rest, l)
			}
		}
		if len(rest) == 0 {
			t.Errorf("%s: %q prints nothing", where, text)
		}
		if strings.Contains(out, "Malformed") || strings.Contains(out, "tshark:") || strings.Contains(out, "Lua Error") {
			t.Errorf("%s: %q complains:\n%s", where, text, tail(out, 3000))
		}
	case "gtkwave":
		if regexp.MustCompile(`Near byte|Time backtracking|Malformed|Unknown|ERROR|Could not open|No symbols`).MatchString(out) {
			t.Errorf("%s: %q complains:\n%s", where, text, tail(out, 3000))
		}
		if slices.ContainsFunc(words, func(s string) bool { return strings.HasSuffix(s, ".gtkw") }) {
			m := regexp.MustCompile(`DOCTOOLS displayed (\d+)`).FindStringSubmatch(out)
			if m == nil || m[1] == "0" {
				t.Errorf("%s: %q shows no signal of its save file:\n%s", where, text, tail(out, 3000))
			}
		}
	case "vvp", "run":
		m := regexp.MustCompile(`(?m)^.*\b0 failed$`).FindString(out)
		if m == "" {
			t.Errorf("%s: %q does not end with 0 failed:\n%s", where, text, tail(out, 3000))
		}
		t.Logf("%s: %s", text, m)
	}
}

// docShell runs script with bash in w, bounded, and returns what it
// printed (standard output, then standard error) and its exit status.
func docShell(t *testing.T, w, script string) (string, int) {
	t.Helper()
	cmd := bounded.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = w, docEnv(w)
	cmd.Deadline, cmd.FileSize = 2*time.Minute, 256<<20
	r := cmd.Run()
	if r.TimedOut || r.ExitCode < 0 || r.Truncated() {
		t.Fatalf("%q: %s", script, r.String())
	}
	return string(r.Stdout) + string(r.Stderr), r.ExitCode
}

// docMkeysim runs mkeysim with args in w, bounded, to make an input.
func docMkeysim(t *testing.T, w string, args ...string) {
	t.Helper()
	c := bounded.Command(binary(t), args...)
	c.Dir, c.Deadline, c.FileSize = w, time.Minute, 64<<20
	if args[0] == "run" {
		c.Args = append(c.Args, "--quiet", "--no-summary")
	}
	if r := c.Run(); r.ExitCode != 0 {
		t.Fatalf("mkeysim %s: %s", strings.Join(args, " "), r.String())
	}
}

// docMakeCosim does what make cosim does, into $R/out/cosim.
func docMakeCosim(t *testing.T, w string) {
	t.Helper()
	dir := filepath.Join(w, "out", "cosim")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join(repoRoot, "cosim"))
	if err != nil {
		t.Fatal(err)
	}
	steps := [][]string{
		{"go", "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "libmkeysim.so"), "../../cosim/libmkeysim"},
		{"iverilog-vpi", "--name=mkeysim", "-I" + src, filepath.Join(src, "vpi", "mkeysim_vpi.c"), "-L" + dir, "-lmkeysim"},
	}
	for i, s := range steps {
		c := bounded.Command(s[0], s[1:]...)
		c.Deadline = 3 * time.Minute
		if i == 1 {
			c.Dir, c.Env = dir, append(os.Environ(), "LD_RUN_PATH="+dir)
		}
		if r := c.Run(); r.ExitCode != 0 {
			t.Fatalf("make cosim: %s: %s\n%s", strings.Join(s, " "), r.String(), r.Stdout)
		}
	}
	docCopyFile(t, filepath.Join(src, "mkeysim.h"), filepath.Join(dir, "mkeysim.h"))
}

// docRecipeTB writes my_tb.sv: cosim/README.md's seven numbered lines
// and its second systemverilog block (the creating example) at the //@N
// and //@create marks of cosim/test/recipe_tb.sv.tmpl, as
// scripts/cosim-check.sh pastes them, the module named my_tb.
func docRecipeTB(t *testing.T, w string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "cosim/README.md"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join(repoRoot, "cosim/test/recipe_tb.sv.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]string
	var in bool
	for _, l := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(l, "```systemverilog"):
			in = true
			blocks = append(blocks, nil)
		case strings.HasPrefix(l, "```"):
			in = false
		case in:
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], l)
		}
	}
	if len(blocks) < 2 {
		t.Fatalf("cosim/README.md has %d systemverilog blocks, want the recipe and the creating example", len(blocks))
	}
	numbered := map[string]string{}
	for _, l := range blocks[0] {
		if m := regexp.MustCompile(`// ([1-7]): `).FindStringSubmatch(l); m != nil {
			numbered[m[1]] = l
		}
	}
	var tb []string
	for _, l := range strings.Split(string(tmpl), "\n") {
		switch {
		case l == "//@create":
			tb = append(tb, blocks[1]...)
		case strings.HasPrefix(l, "//@"):
			n := strings.TrimPrefix(l, "//@")
			if numbered[n] == "" {
				t.Fatalf("cosim/README.md's recipe has no line // %s:", n)
			}
			tb = append(tb, numbered[n])
		default:
			tb = append(tb, l)
		}
	}
	src := strings.ReplaceAll(strings.Join(tb, "\n"), "recipe_tb", "my_tb")
	if err := os.WriteFile(filepath.Join(w, "my_tb.sv"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// docLooksLikePath reports whether a word of a command names a file.
func docLooksLikePath(s string) bool {
	if strings.Contains(s, "/") {
		return true
	}
	switch filepath.Ext(s) {
	case ".pcap", ".pcapng", ".vcd", ".fst", ".gtkw", ".v", ".sv", ".vvp", ".hex", ".lua", ".c", ".so", ".vpi", ".tcl":
		return true
	}
	return false
}

// docTsharkGlossary caches tshark -G fields, by the -X options loaded.
var docTsharkGlossary = map[string]map[string]bool{}

// docTsharkFields fails t unless every field a tshark command names,
// with -e or in a -Y or -R filter, is a field or protocol of tshark's
// glossary with the command's -X options (a Lua dissector's fields).
func docTsharkFields(t *testing.T, w, where string, words []string) {
	t.Helper()
	var xs []string
	var fields []string
	for i := 0; i+1 < len(words); i++ {
		switch words[i] {
		case "-X":
			xs = append(xs, "-X", words[i+1])
		case "-e":
			fields = append(fields, words[i+1])
		case "-Y", "-R":
			fields = append(fields, docFilterFields(words[i+1])...)
		}
	}
	key := strings.Join(xs, " ")
	g, ok := docTsharkGlossary[key]
	if !ok {
		c := bounded.Command("tshark", append([]string{"-G", "fields"}, xs...)...)
		c.Dir, c.Env, c.Output = w, docEnv(w), 256<<20
		r := c.Run()
		if r.ExitCode != 0 || r.Truncated() {
			t.Fatalf("tshark -G fields %s: %s", key, r.String())
		}
		g = map[string]bool{}
		for _, l := range strings.Split(string(r.Stdout), "\n") {
			if f := strings.Split(l, "\t"); len(f) >= 3 && (f[0] == "P" || f[0] == "F") {
				g[f[2]] = true
			}
		}
		docTsharkGlossary[key] = g
	}
	for _, f := range fields {
		if !g[f] {
			t.Errorf("%s: tshark has no field %q (tshark -G fields %s)", where, f, key)
		}
	}
}

// docFilterWords are the words of a display filter that are not fields.
var docFilterWords = map[string]bool{"and": true, "or": true, "not": true, "xor": true, "eq": true, "ne": true, "gt": true, "lt": true,
	"ge": true, "le": true, "contains": true, "matches": true, "in": true, "bitwise_and": true, "any_eq": true, "all_ne": true, "true": true, "false": true}

// docFilterFields returns the fields and protocols a display filter names:
// its words outside quotes that do not start with a digit.
func docFilterFields(filter string) []string {
	filter = regexp.MustCompile(`"(\\.|[^"\\])*"|'[^']*'`).ReplaceAllString(filter, " ")
	var out []string
	for _, w := range regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_.\-]*`).FindAllString(filter, -1) {
		if (w[0] < '0' || w[0] > '9') && !docFilterWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// docShellWords splits a command line as bash does for the simple commands
// the documents show: quotes, backslashes, and $NAME or ${NAME} of vars
// (any other variable is an error).
func docShellWords(s string, vars map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	expand := func(i int) (int, error) {
		name, end := "", i+1
		if end < len(s) && s[end] == '{' {
			close := strings.IndexByte(s[end:], '}')
			if close < 0 {
				return 0, fmt.Errorf("unclosed ${")
			}
			name, end = s[end+1:end+close], end+close+1
		} else {
			for end < len(s) && (s[end] == '_' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= 'a' && s[end] <= 'z' || s[end] >= '0' && s[end] <= '9') {
				end++
			}
			name = s[i+1 : end]
		}
		v, ok := vars[name]
		if !ok {
			return 0, fmt.Errorf("variable $%s", name)
		}
		cur.WriteString(v)
		return end, nil
	}
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		case ch == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed '")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i, inWord = i+end+2, true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch {
				case s[i] == '\\' && i+1 < len(s):
					i++
					cur.WriteByte(s[i])
				case s[i] == '$':
					end, err := expand(i)
					if err != nil {
						return nil, err
					}
					i = end - 1
				default:
					cur.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \"")
			}
			i, inWord = i+1, true
		case ch == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i, inWord = i+2, true
		case ch == '$':
			end, err := expand(i)
			if err != nil {
				return nil, err
			}
			i, inWord = end, true
		case strings.IndexByte("|;&<>()`", ch) >= 0:
			return nil, fmt.Errorf("shell syntax %q", ch)
		default:
			cur.WriteByte(ch)
			i, inWord = i+1, true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// docText is a text the commands are taken from, line by line.
type docText struct {
	name    string
	lines   []string
	comment bool // a script's comment or a help text: code is indented, an annotation "  (...)" may end a line
}

// docTexts returns every Markdown file of the repository (outside out/,
// bin/ and hidden folders), the leading comment of every script, and
// the Long and Example texts of every mkeysim command.
func docTexts(t *testing.T) []docText {
	t.Helper()
	var texts []docText
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "out" || rel == "bin" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".md" && !(filepath.Dir(rel) == "scripts" && (ext == ".sh" || ext == ".lua")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		if ext == ".md" {
			texts = append(texts, docText{name: filepath.ToSlash(rel), lines: lines})
			return nil
		}
		// A script's leading comment, the comment marks cut, the line
		// numbers kept.
		marker := "#"
		if ext == ".lua" {
			marker = "--"
		}
		var head []string
		for i, l := range lines {
			if i == 0 && strings.HasPrefix(l, "#!") {
				head = append(head, "")
				continue
			}
			if !strings.HasPrefix(l, marker) {
				break
			}
			l = strings.TrimPrefix(l, marker)
			head = append(head, strings.TrimPrefix(l, " "))
		}
		texts = append(texts, docText{name: filepath.ToSlash(rel), lines: head, comment: true})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		name := c.CommandPath() + " --help"
		texts = append(texts, docText{name: name, lines: strings.Split(c.Long+"\n\n"+c.Example, "\n"), comment: true})
	}
	return texts
}

// docCommands returns the tool commands of every docText.
func docCommands(t *testing.T) []docCmd {
	t.Helper()
	var cmds []docCmd
	for _, d := range docTexts(t) {
		cmds = append(cmds, docTextCommands(d)...)
	}
	return cmds
}

var (
	docCodeSpan   = regexp.MustCompile("(`+)([^`]|[^`][\\s\\S]*?[^`])(`+)")
	docAnnotation = regexp.MustCompile(`\s{2,}\([^()]*\)\s*$`)
	docCommentCut = regexp.MustCompile(`(^|\s)#`)
	docArgLike    = regexp.MustCompile(`^[-+]|[/.]`)
)

// docTextCommands returns the tool commands of one text: the lines of its
// code (fenced and indented blocks of Markdown, indented lines of a
// comment or help) that start with a tool's name (after "$ ", or in a
// "# ..." comment of a code line), joined across a trailing backslash and
// split at "&&"; and its inline code that does. A Verilated binary run
// right after its build (the next line, or after "&&") is that build's
// run.
func docTextCommands(d docText) []docCmd {
	var cmds []docCmd
	last := -1 // the verilator build just before, whose run may follow
	isTool := func(w string) bool { return slices.Contains(docTools, w) }
	// command tells whether s is a command of a tool: its first
	// word a tool, and, in prose or a comment, its second an argument
	// rather than an English word ("gtkwave      opens the waveforms").
	command := func(s string, strict bool) (string, bool) {
		f := strings.Fields(s)
		if len(f) == 0 || !isTool(f[0]) {
			return "", false
		}
		if strict && (len(f) < 2 || !docArgLike.MatchString(f[1])) {
			return "", false
		}
		return f[0], true
	}
	addCode := func(line int, s string) {
		s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "$ "))
		if d.comment {
			s = docAnnotation.ReplaceAllString(s, "")
		}
		var comment string
		if loc := docCommentCut.FindStringIndex(s); loc != nil && !docInsideQuotes(s, loc[1]-1) {
			s, comment = strings.TrimSpace(s[:loc[0]]), strings.TrimSpace(s[loc[1]:])
		}
		where := fmt.Sprintf("%s:%d", d.name, line)
		for _, seg := range docSplitAnd(s) {
			if tool, ok := command(seg, d.comment); ok {
				cmds = append(cmds, docCmd{where: where, tool: tool, text: seg})
				last = -1
				if tool == "verilator" && slices.Contains(strings.Fields(seg), "--binary") {
					last = len(cmds) - 1
				}
				continue
			}
			if f := strings.Fields(seg); last >= 0 && len(f) > 0 && strings.HasPrefix(f[0], docVerilatorMdir(cmds[last].text)+"/") {
				cmds[last].run = seg
			}
			last = -1
		}
		if tool, ok := command(comment, true); ok {
			cmds = append(cmds, docCmd{where: where, tool: tool, text: comment})
		}
	}
	addProse := func(line int, para string) {
		for _, loc := range docCodeSpan.FindAllStringSubmatchIndex(para, -1) {
			if loc[3]-loc[2] != loc[7]-loc[6] {
				continue
			}
			s := strings.Join(strings.Fields(para[loc[4]:loc[5]]), " ")
			if tool, ok := command(s, true); ok {
				n := line + strings.Count(para[:loc[0]], "\n")
				cmds = append(cmds, docCmd{where: fmt.Sprintf("%s:%d", d.name, n), tool: tool, text: s})
			}
		}
	}
	fence, indented, blankBefore := "", false, true
	var para []string
	paraLine := 0
	flush := func() {
		if len(para) > 0 {
			addProse(paraLine, strings.Join(para, "\n"))
		}
		para = nil
	}
	for i := 0; i < len(d.lines); i++ {
		l, n := d.lines[i], i+1
		// Join continuation lines of code.
		join := func() string {
			for strings.HasSuffix(strings.TrimRight(l, " "), "\\") && i+1 < len(d.lines) {
				i++
				l = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(l, " "), "\\"), " ") + " " + strings.TrimSpace(d.lines[i])
			}
			return l
		}
		trimmed := strings.TrimSpace(l)
		if !d.comment && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			flush()
			if fence == "" {
				fence, last = trimmed[:3], -1
			} else if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" {
			addCode(n, join())
			continue
		}
		if trimmed == "" {
			flush()
			indented, blankBefore, last = false, true, -1
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		if d.comment {
			_, ok := command(strings.TrimPrefix(trimmed, "$ "), true)
			if f := strings.Fields(trimmed); last >= 0 && strings.HasPrefix(f[0], docVerilatorMdir(cmds[last].text)+"/") {
				ok = true // the run of the build just before
			}
			if ind >= 2 && ok {
				flush()
				addCode(n, join())
				continue
			}
			last = -1
		} else if (strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) && (blankBefore || indented) && len(para) == 0 {
			indented = true
			addCode(n, join())
			continue
		}
		blankBefore, indented = false, false
		if len(para) == 0 {
			paraLine = n
		}
		para = append(para, l)
	}
	flush()
	return cmds
}

// docVerilatorMdir is the -Mdir of a verilator command: where its binary is
// built.
func docVerilatorMdir(s string) string {
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "-Mdir" {
			return f[i+1]
		}
	}
	return "obj_dir"
}

// docInsideQuotes reports whether byte i of s is inside single or double
// quotes.
func docInsideQuotes(s string, i int) bool {
	var q byte
	for j := 0; j < i; j++ {
		switch {
		case q == 0 && (s[j] == '\'' || s[j] == '"'):
			q = s[j]
		case q != 0 && s[j] == q:
			q = 0
		}
	}
	return q != 0
}

// docSplitAnd splits a command line at "&&" outside quotes.
func docSplitAnd(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '&' && s[i+1] == '&' && !docInsideQuotes(s, i) {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 2
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// TestDocToolsNoMalformed: with the options docs/wire.md gives tshark to
// turn off RPC-over-RDMA's heuristic (which reads past the end of a SEND
// with invalidate, which has no payload, and reports it malformed), no frame of
// any RoCEv2 capture this tool writes (every example and conformance
// scenario a wire carries, through the wire front) is malformed or has an
// error of tshark's expert; and with scripts/tlp.lua no TLP of their PCIe
// captures (wire and host fronts) is.
func TestDocToolsNoMalformed(t *testing.T) {
	tooltest.Need(t, tooltest.Tshark...)
	var opts []string
	for _, c := range docCommands(t) {
		if !strings.HasPrefix(c.where, "docs/wire.md:") || c.tool != "tshark" {
			continue
		}
		f := strings.Fields(c.text)
		for i := 0; i+1 < len(f); i++ {
			if (f[i] == "--disable-heuristic" || f[i] == "--disable-protocol") && !slices.Contains(opts, f[i+1]) {
				opts = append(opts, f[i], f[i+1])
			}
		}
	}
	if len(opts) == 0 {
		t.Fatal("docs/wire.md shows no tshark command with --disable-heuristic or --disable-protocol: it no longer says how to keep RPC-over-RDMA off the SENDs")
	}
	bin, dir := binary(t), t.TempDir()
	var wires, tlps []string
	for i, f := range captureExamples(t) {
		abs, _ := filepath.Abs(f)
		w, tw, th := filepath.Join(dir, fmt.Sprintf("%d.pcap", i)), filepath.Join(dir, fmt.Sprintf("%d.wire.tlp", i)), filepath.Join(dir, fmt.Sprintf("%d.host.tlp", i))
		runs := [][]string{{"run", "--quiet", "--no-summary", "--front", "wire", "--pcap-out", w, "--tlp-out", tw, abs}}
		if sc, err := scenario.ReadFile(f); err != nil {
			t.Fatal(err)
		} else if sc.IOMMU == nil { // the host front with the host IOMMU: not yet (issue 36)
			runs = append(runs, []string{"run", "--quiet", "--no-summary", "--front", "host", "--tlp-out", th, abs})
		}
		for _, args := range runs {
			c := bounded.Command(bin, args...)
			c.Deadline, c.FileSize = time.Minute, 64<<20
			if r := c.Run(); r.ExitCode != 0 {
				t.Fatalf("mkeysim %s: %s", strings.Join(args, " "), r.String())
			}
		}
		wires, tlps = append(wires, w), append(tlps, tw)
		if len(runs) > 1 {
			tlps = append(tlps, th)
		}
	}
	roce := filepath.Join(dir, "all.pcap")
	n := docMergePcaps(t, roce, layers.LinkTypeEthernet, wires)
	bad := docTsharkBadFrames(t, dir, roce, n, opts)
	if len(bad) > 0 {
		t.Errorf("tshark %s: %d of %d frames of the examples' captures malformed or in error:\n%s", strings.Join(opts, " "), len(bad), n, strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
	without := docTsharkBadFrames(t, dir, roce, n, nil)
	t.Logf("%d frames; tshark %s: %d malformed or in error; without these options: %d", n, strings.Join(opts, " "), len(bad), len(without))

	lua, _ := filepath.Abs(filepath.Join(repoRoot, "scripts/tlp.lua"))
	pcie := filepath.Join(dir, "all.tlp.pcap")
	n = docMergePcaps(t, pcie, layers.LinkType(147), tlps)
	if bad := docTsharkBadFrames(t, dir, pcie, n, []string{"-X", "lua_script:" + lua}); len(bad) > 0 {
		t.Errorf("tshark with scripts/tlp.lua: %d of %d TLPs malformed or in error:\n%s", len(bad), n, strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
	t.Logf("%d TLPs, none malformed with scripts/tlp.lua", n)
}

// docMergePcaps writes the records of files, in order, to one pcap of link
// type lt, and returns how many.
func docMergePcaps(t *testing.T, to string, lt layers.LinkType, files []string) int {
	t.Helper()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	pw := pcapgo.NewWriterNanos(out)
	if err := pw.WriteFileHeader(65535, lt); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := pcapgo.NewReader(in)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if r.LinkType() != lt {
			t.Fatalf("%s: link type %v, want %v", f, r.LinkType(), lt)
		}
		for {
			data, ci, err := r.ReadPacketData()
			if err != nil {
				break
			}
			if err := pw.WritePacket(ci, data); err != nil {
				t.Fatal(err)
			}
			n++
		}
		in.Close()
	}
	return n
}

// docTsharkBadFrames runs tshark with opts on file, which holds n frames, and
// returns the frames that are malformed or carry an expert error.
func docTsharkBadFrames(t *testing.T, dir, file string, n int, opts []string) []string {
	t.Helper()
	args := append(slices.Clone(opts), "-r", file, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,",
		"-e", "frame.number", "-e", "_ws.malformed", "-e", "_ws.expert.severity", "-e", "_ws.expert.message")
	c := bounded.Command("tshark", args...)
	c.Env, c.Output = docEnv(dir), 64<<20
	r := c.Run()
	if r.ExitCode != 0 || r.Truncated() {
		t.Fatalf("tshark %s: %s", strings.Join(args, " "), r.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(r.Stdout), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("tshark %s shows %d frames, the capture holds %d", strings.Join(opts, " "), len(lines), n)
	}
	var bad []string
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) < 4 {
			t.Fatalf("tshark line %q", l)
		}
		worst := uint64(0)
		for _, s := range strings.Split(f[2], ",") {
			if v, err := strconv.ParseUint(s, 0, 32); err == nil {
				worst = max(worst, v)
			}
		}
		if f[1] != "" || worst >= 0x00800000 { // PI_ERROR
			bad = append(bad, l)
		}
	}
	return bad
}

// docCopyFile copies the file from to the file to.
func docCopyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDocToolsExtraction: what docTextCommands takes from a text, and what
// it leaves: prompts, continuation lines, comments, "&&", a Verilated
// binary's run, inline code, and the words of a table or a sentence that
// only name a tool.
func TestDocToolsExtraction(t *testing.T) {
	md := docText{name: "x.md", lines: strings.Split(strings.Join([]string{
		"`gtkwave` opens waveforms; `tshark -V` shows every field, and",
		"`vvp` alone is a name.",
		"",
		"```sh",
		"$ tshark -r a.pcap \\",
		"    -Y 'x.y == \"#1\"'   # a comment",
		"make wave   # gtkwave a.vcd a.gtkw",
		"verilator --binary -Mdir o x.sv && o/Vx +A=1",
		"mkeysim run --vcd a.vcd",
		"```",
		"",
		"    iverilog -o a.vvp a.sv",
		"    vvp -n a.vvp",
	}, "\n"), "\n")}
	comment := docText{name: "x.sh", comment: true, lines: []string{
		"Use:",
		"  tshark -r run.pcap -V          (every field)",
		"  gtkwave      opens the produced waveforms",
		"  verilator --binary x.sv",
		"  obj_dir/Vx",
	}}
	want := []docCmd{
		{where: "x.md:1", tool: "tshark", text: "tshark -V"},
		{where: "x.md:5", tool: "tshark", text: `tshark -r a.pcap -Y 'x.y == "#1"'`},
		{where: "x.md:7", tool: "gtkwave", text: "gtkwave a.vcd a.gtkw"},
		{where: "x.md:8", tool: "verilator", text: "verilator --binary -Mdir o x.sv", run: "o/Vx +A=1"},
		{where: "x.md:12", tool: "iverilog", text: "iverilog -o a.vvp a.sv"},
		{where: "x.md:13", tool: "vvp", text: "vvp -n a.vvp"},
		{where: "x.sh:2", tool: "tshark", text: "tshark -r run.pcap -V"},
		{where: "x.sh:4", tool: "verilator", text: "verilator --binary x.sv", run: "obj_dir/Vx"},
	}
	got := append(docTextCommands(md), docTextCommands(comment)...)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	words, err := docShellWords(`a -I$R/x "-L$R y" 'q "$R"' ${R}z\ w`, map[string]string{"R": "/r"})
	if want := []string{"a", "-I/r/x", "-L/r y", `q "$R"`, "/rz w"}; err != nil || !slices.Equal(words, want) {
		t.Errorf("docShellWords: %q, %v; want %q", words, err, want)
	}
	if _, err := docShellWords("a $HOME", map[string]string{"R": "/r"}); err == nil {
		t.Error("docShellWords takes a variable it does not know")
	}
	if f := docFilterFields(`pcietlp.type == "MRd" && pcietlp.addr >= 0x100000000 or not infiniband`); !slices.Equal(f, []string{"pcietlp.type", "pcietlp.addr", "infiniband"}) {
		t.Errorf("docFilterFields: %q", f)
	}
}
