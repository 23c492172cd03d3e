// Command cglayers splits the instructions an access costs by the layer
// of the program that executes them: the units, the top, the PCIe model,
// the channels, the engine, the workload's generation, the result lines,
// the waveform and the rest. instr-bench.sh calls it with the cachegrind
// files of a run of N accesses and of one of 2N, for each workload; every
// figure is the difference of the two divided by N, so start-up and the
// creation of the keys drop out, as in instr-bench.sh's totals, which the
// last row repeats.
//
// Why: it says how much of an access is the kernel (engine and channels,
// which a faster kernel can save) and how much the modelled units' own
// work (which it cannot), the bound on what any kernel change can reach.
//
//	go run ./scripts/cglayers -n 20000 hit-bound=cg.hit.1,cg.hit.2 miss-bound=cg.miss.1,cg.miss.2
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// layer is one row of the table: the functions whose names start with
// one of its prefixes (the first layer that claims a function has it).
type layer struct {
	name     string
	prefixes []string
}

// layers classifies a function by its name as cachegrind reports it (the
// function the instruction is compiled into, inlined code included).
// Order matters: the waveform's samplers live in the units' and tb's
// packages, the engine's tracing helpers in rtl/sim.
var layers = []layer{
	{"waveform (sampling and VCD writing)", []string{
		"mkeysim/vcd.", "mkeysim/tb/wave.",
		"mkeysim/rtl/sim.(*Engine).Touched", "mkeysim/rtl/sim.(*Engine).ChanState", "mkeysim/rtl/sim.(*Engine).RanNow",
		"mkeysim/rtl/sim.(*link).State", "sampler:"}},
	{"channels (push, pop, commit)", []string{"mkeysim/rtl/sim.(*Chan[", "mkeysim/rtl/sim.(*link)."}},
	{"engine (schedule, wakes, evaluation and commit loops)", []string{
		"mkeysim/rtl/sim.(*Engine)", "mkeysim/rtl/sim.(*wheel)", "mkeysim/rtl/sim.(*bitset)",
		"mkeysim/rtl/sim.(*wakeHeap)", "mkeysim/rtl/sim.(*Base)"}},
	{"units (mptcache, protcheck, mttwalk, klmwalk, walk, linecache, dma, sq; their rtl/sim masks and counters)", []string{
		"mkeysim/rtl/mptcache.", "mkeysim/rtl/protcheck.", "mkeysim/rtl/mttwalk.", "mkeysim/rtl/klmwalk.",
		"mkeysim/rtl/walk.", "mkeysim/rtl/linecache.", "mkeysim/rtl/rangecache.", "mkeysim/rtl/atc.", "mkeysim/rtl/dma.", "mkeysim/rtl/sq.",
		"mkeysim/rtl/sim.", "mkeysim/prm.", "mkeysim/cover."}},
	{"top (ingress, reorder buffer, retirement, commands)", []string{"mkeysim/rtl."}},
	{"PCIe model (links, root complex, requester, host memory)", []string{"mkeysim/rtl/pcie.", "mkeysim/rtl/iommu.", "mkeysim/pagetable."}},
	{"workload generation", []string{"mkeysim/tb/stimulus.(*gen)", "mkeysim/tb/stimulus.(*Generator)", "mkeysim/tb/stimulus.(*zipf", "math/rand."}},
	{"result lines and file writes (encoding, bufio, system calls)", []string{"mkeysim/scenario.", "internal/strconv.", "strconv.", "bufio.", "os.", "internal/poll.", "syscall."}},
	{"golden model", []string{"mkeysim/ref."}},
	{"testbench (feed, source, sink, scoreboard)", []string{"mkeysim/tb.", "mkeysim/tb/"}},
	{"Go runtime (allocation, collection, scheduling, copies)", []string{"runtime.", "internal/runtime/"}},
}

// other is the row of the functions no layer claims.
const other = "other"

// samplers are the methods, wherever they live, that only a tracer
// calls every cycle: a unit's waveform sampler (a closure of its Describe
// method), a channel's and a payload's field values.
var samplers = []string{").Describe.func", ").HeadValues", ").FieldValues"}

// classify returns the layer of function fn.
func classify(fn string) string {
	for _, s := range samplers {
		if strings.Contains(fn, s) {
			fn = "sampler:" + fn
			break
		}
	}
	for _, l := range layers {
		for _, p := range l.prefixes {
			if strings.HasPrefix(fn, p) {
				return l.name
			}
		}
	}
	return other
}

// counts reads a cachegrind output file (one event, Ir) and returns the
// instructions of each layer and their total (the file's summary).
func counts(r io.Reader) (map[string]int64, int64, error) {
	by := map[string]int64{}
	var sum, summary int64
	cur := other
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		switch {
		case strings.HasPrefix(s, "fn="):
			cur = classify(s[3:])
		case strings.HasPrefix(s, "summary:"):
			v, err := strconv.ParseInt(strings.TrimSpace(s[len("summary:"):]), 10, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("line %d: summary %q: %v", line, s, err)
			}
			summary = v
		case s != "" && s[0] >= '0' && s[0] <= '9':
			f := strings.Fields(s)
			if len(f) != 2 {
				return nil, 0, fmt.Errorf("line %d: want a line number and one count (Ir alone), got %q", line, s)
			}
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("line %d: count %q: %v", line, f[1], err)
			}
			by[cur] += v
			sum += v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	if summary == 0 {
		return nil, 0, fmt.Errorf("no summary line: not a cachegrind output file")
	}
	if sum != summary {
		return nil, 0, fmt.Errorf("the counts add up to %d, the summary says %d", sum, summary)
	}
	return by, summary, nil
}

// column is one workload: its name and its marginal instructions per
// access by layer, with their total.
type column struct {
	name  string
	by    map[string]float64
	total float64
}

// marginal reads the files of a run of n accesses and of one of 2n and
// returns their difference per access.
func marginal(name, fileN, file2N string, n int) (column, error) {
	read := func(path string) (map[string]int64, int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, err
		}
		defer f.Close()
		by, total, err := counts(f)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %v", path, err)
		}
		return by, total, nil
	}
	a, ta, err := read(fileN)
	if err != nil {
		return column{}, err
	}
	b, tb, err := read(file2N)
	if err != nil {
		return column{}, err
	}
	c := column{name: name, by: map[string]float64{}, total: float64(tb-ta) / float64(n)}
	for k, v := range b {
		c.by[k] = float64(v-a[k]) / float64(n)
	}
	for k, v := range a {
		if _, ok := b[k]; !ok {
			c.by[k] = -float64(v) / float64(n)
		}
	}
	return c, nil
}

// table writes the markdown table: a row per layer that costs anything,
// a column per workload, then the totals.
func table(w io.Writer, cols []column) {
	fmt.Fprint(w, "| layer |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", c.name)
	}
	fmt.Fprint(w, "\n|---|")
	for range cols {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	names := make([]string, 0, len(layers)+1)
	for _, l := range layers {
		names = append(names, l.name)
	}
	for _, name := range append(names, other) {
		shown := false
		for _, c := range cols {
			shown = shown || c.by[name] >= 0.5 || c.by[name] <= -0.5
		}
		if !shown {
			continue
		}
		fmt.Fprintf(w, "| %s |", name)
		for _, c := range cols {
			fmt.Fprintf(w, " %s (%.0f %%) |", group(c.by[name]), 100*c.by[name]/c.total)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "| total |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", group(c.total))
	}
	fmt.Fprintln(w)
}

// group formats x rounded, with thousands separated by commas.
func group(x float64) string {
	s := strconv.FormatInt(int64(x+0.5*sign(x)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

func main() {
	n := flag.Int("n", 0, "accesses of the shorter run (the longer one has twice as many)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: cglayers -n N NAME=FILE_N,FILE_2N ...")
		fmt.Fprintln(os.Stderr, "Splits the instructions an access costs by the program's layers, from cachegrind")
		fmt.Fprintln(os.Stderr, "files of runs of N and 2N accesses (scripts/instr-bench.sh makes them).")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *n <= 0 || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var cols []column
	for _, arg := range flag.Args() {
		name, files, ok := strings.Cut(arg, "=")
		a, b, ok2 := strings.Cut(files, ",")
		if !ok || !ok2 || name == "" || a == "" || b == "" {
			fmt.Fprintf(os.Stderr, "cglayers: %q: want NAME=FILE_N,FILE_2N\n", arg)
			os.Exit(2)
		}
		c, err := marginal(name, a, b, *n)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cglayers: %s: %v\n", name, err)
			os.Exit(1)
		}
		cols = append(cols, c)
	}
	table(os.Stdout, cols)
}
