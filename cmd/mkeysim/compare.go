package main

import (
	"fmt"
	"io"
	"os"

	"mkeysim/scenario"
)

const compareUsage = `usage: mkeysim compare GOT.jsonl EXPECTED.jsonl

Compares two files of result lines field by field, as conformance runs do
(seq, op, status; segments; level and offset; fault key and address;
created index and key; queried image and list; resumed entries; not the
free-text reason nor the cycle). Prints the first differences and a last
line "N of M results match"; exit status 1 if any differ.

Example:
  mkeysim run -quiet examples/klm-nested.json > got.jsonl
  mkeysim compare got.jsonl examples/klm-nested.expected.jsonl
`

func cmdCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("compare", compareUsage, stderr)
	if err := fs.Parse(args); err != nil {
		return flagStatus(err)
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return exitUsage
	}
	read := func(path string) ([]scenario.Result, bool) {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(stderr, "mkeysim compare:", err)
			return nil, false
		}
		defer f.Close()
		rs, err := scenario.ReadResults(f)
		if err != nil {
			fmt.Fprintf(stderr, "mkeysim compare: %s: %v\n", path, err)
			return nil, false
		}
		return rs, true
	}
	got, ok1 := read(fs.Arg(0))
	want, ok2 := read(fs.Arg(1))
	if !ok1 || !ok2 {
		return exitUsage
	}
	bad := 0
	for i := range want {
		d := "missing"
		if i < len(got) {
			d = scenario.Diff(&got[i], &want[i])
		}
		if d != "" {
			if bad < 5 {
				fmt.Fprintf(stdout, "mismatch at line %d: %s\n", i+1, d)
			}
			bad++
		}
	}
	if len(got) != len(want) {
		fmt.Fprintf(stdout, "line count: got %d expected %d\n", len(got), len(want))
		if len(got) > len(want) {
			bad += len(got) - len(want)
		}
	}
	fmt.Fprintf(stdout, "%d of %d results match\n", len(want)-min(bad, len(want)), len(want))
	if bad > 0 {
		return 1
	}
	return 0
}
