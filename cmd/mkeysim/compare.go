package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"mkeysim/scenario"
)

// newCompareCmd is 'mkeysim compare'.
func newCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "compare GOT.jsonl EXPECTED.jsonl",
		Short: "Compare two files of result lines field by field",
		Long: `Compares two files of result lines field by field, as conformance runs do
(seq, op, status; segments; level and offset; fault key and address;
created index and key; queried image and list; resumed entries; not the
free-text reason nor the cycle). Prints the first differences and a last
line "N of M results match"; exit status 1 if any differ.`,
		Example: `  mkeysim run examples/klm-nested.json --out got.jsonl --no-summary
  mkeysim compare got.jsonl examples/klm-nested.expected.jsonl`,
		Args: nArgs(2, 2, "two files of result lines"),
		RunE: func(c *cobra.Command, args []string) error {
			if code := compareMain(args[0], args[1], c.OutOrStdout(), c.ErrOrStderr()); code != exitOK {
				return status(code)
			}
			return nil
		},
	}
}

func compareMain(gotPath, wantPath string, stdout, stderr io.Writer) int {
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
	got, ok1 := read(gotPath)
	want, ok2 := read(wantPath)
	if !ok1 || !ok2 {
		return exitUsage
	}
	out := bufio.NewWriter(stdout)
	// matched counts the expected lines that GOT has, equal; a GOT line
	// beyond the expected ones is a difference too, but not a line of
	// EXPECTED that failed to match.
	matched, shown := 0, 0
	for i := range want {
		d := "missing"
		if i < len(got) {
			d = scenario.Diff(&got[i], &want[i])
		}
		if d == "" {
			matched++
			continue
		}
		if shown < 5 {
			fmt.Fprintf(out, "mismatch at line %d: %s\n", i+1, d)
			shown++
		}
	}
	bad := len(want) - matched
	if len(got) != len(want) {
		fmt.Fprintf(out, "line count: got %d expected %d\n", len(got), len(want))
		bad += max(len(got)-len(want), 0)
	}
	fmt.Fprintf(out, "%d of %d results match\n", matched, len(want))
	if err := out.Flush(); err != nil {
		fmt.Fprintln(stderr, "mkeysim compare:", err)
		return exitFail
	}
	if bad > 0 {
		return 1
	}
	return 0
}
