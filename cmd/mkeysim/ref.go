package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/big"

	"mkeysim/config"
	"mkeysim/cover"
	"mkeysim/ref"
	"mkeysim/scenario"
)

func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

const refUsage = `usage: mkeysim ref [flags] SCENARIO.json

Runs the scenario through the golden untimed model and prints one JSON
result line per operation (the format of scenario.md).

Examples:
  mkeysim ref examples/mtt-page-split.json
  mkeysim ref -coverage out/coverage.json examples/klm-nested.json

Flags:
`

func cmdRef(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("ref", refUsage, stderr)
	// The depth limit has run's klm.max_indirection range: one declaration.
	def := config.Default()
	p, _ := def.Param("klm.max_indirection")
	depth := fs.Int("max-indirection", ref.DefaultConfig().MaxIndirection, "deepest KLM level whose key may be looked up ["+p.Range.String()+"]")
	coverPath := fs.String("coverage", "", "write the coverage points the golden model reached as JSON to this file (docs/coverage.md)")
	if err := fs.Parse(args); err != nil {
		return flagStatus(err)
	}
	if d := big.NewInt(int64(*depth)); !p.Range.ContainsInt(d) {
		fmt.Fprintf(stderr, "mkeysim ref: -max-indirection = %s: want %s (the range of klm.max_indirection)\n", p.Range.FormatInt(d), p.Range)
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "mkeysim ref: want exactly one scenario file")
		fs.Usage()
		return exitUsage
	}
	file := fs.Arg(0)
	sc, err := scenario.ReadFile(file)
	if err != nil {
		fmt.Fprintln(stderr, "mkeysim ref:", err)
		return exitUsage
	}
	// The coverage file is checked (created beside its name) before the
	// run.
	var coverFile *atomicFile
	var cov *cover.Collector
	if *coverPath != "" {
		f, err := createAtomic(*coverPath)
		if err != nil {
			fmt.Fprintf(stderr, "mkeysim ref: -coverage %q: %v\n", *coverPath, err)
			return exitUsage
		}
		defer f.abort()
		coverFile, cov = f, cover.New()
	}
	m := ref.New(ref.Config{MaxIndirection: *depth, Coverage: cov})
	if err := m.Load(sc); err != nil {
		fmt.Fprintf(stderr, "mkeysim ref: %s: %v\n", file, err)
		return exitUsage
	}
	// Each line is written as its operation runs, so memory holds one
	// result, not the run's.
	w := bufio.NewWriter(stdout)
	lw := scenario.LineWriter{W: w}
	for i := range sc.Ops {
		res := m.Apply(i, &sc.Ops[i])
		if err := lw.Write(&res); err != nil {
			fmt.Fprintln(stderr, "mkeysim ref:", err)
			return 1
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "mkeysim ref:", err)
		return 1
	}
	if coverFile != nil {
		err := cover.NewReport(*depth, cov, nil).WriteJSON(coverFile)
		if err == nil {
			err = coverFile.commit()
		}
		if err != nil {
			fmt.Fprintf(stderr, "mkeysim ref: -coverage %q: %v\n", *coverPath, err)
			return 1
		}
	}
	return 0
}

// flagStatus maps a flag parsing error to the exit status: -h is success.
func flagStatus(err error) int {
	if err == flag.ErrHelp {
		return 0
	}
	return exitUsage
}
