package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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
			if code := compareMain(c.Context(), args[0], args[1], c.OutOrStdout(), c.ErrOrStderr()); code != exitOK {
				return status(code)
			}
			return nil
		},
	}
}

// lineReader reads result lines one at a time (scenario.ParseResult),
// skipping blank lines; errors name the file and the line.
type lineReader struct {
	path string
	sc   *bufio.Scanner
	line int
}

func newLineReader(path string, r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), maxResultLine)
	return &lineReader{path: path, sc: sc}
}

// maxResultLine is the longest result line compare reads: 65,536
// segments of about 60 bytes, or 4,096 KLM entries, are about 4 MB
// (scenario.md's bounds), with room to spare.
const maxResultLine = 64 << 20

// next returns the next result; ok false at the end of the file, with
// err set if the file could not be read or a line not parsed.
func (r *lineReader) next() (res scenario.Result, ok bool, err error) {
	for r.sc.Scan() {
		r.line++
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		res, err := scenario.ParseResult(b)
		if err != nil {
			return res, false, fmt.Errorf("%s: line %d: %v", r.path, r.line, err)
		}
		return res, true, nil
	}
	if err := r.sc.Err(); err != nil {
		return res, false, fmt.Errorf("%s: after line %d: %v", r.path, r.line, err)
	}
	return res, false, nil
}

// compareMain compares the files line by line as it reads them, so that
// its memory is two lines whatever the files' length, and stops at a
// signal (ctx) between lines.
func compareMain(ctx context.Context, gotPath, wantPath string, stdout, stderr io.Writer) int {
	var readers [2]*lineReader
	for k, path := range []string{gotPath, wantPath} {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(stderr, "mkeysim compare:", err)
			return exitUsage
		}
		defer f.Close()
		readers[k] = newLineReader(path, f)
	}
	out := bufio.NewWriter(stdoutWriter{stdout})
	// matched counts the expected lines that GOT has, equal; a GOT line
	// beyond the expected ones is a difference too, but not a line of
	// EXPECTED that failed to match.
	matched, shown, nGot, nWant := 0, 0, 0, 0
	for i := 0; ; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			out.Flush()
			fmt.Fprintf(stderr, "mkeysim compare: interrupted after %d lines\n", i)
			return int(interruptedStatus(ctx))
		}
		got, gok, gerr := readers[0].next()
		want, wok, werr := readers[1].next()
		if err := errors.Join(gerr, werr); err != nil {
			out.Flush()
			fmt.Fprintln(stderr, "mkeysim compare:", err)
			return exitUsage
		}
		if !gok && !wok {
			break
		}
		if gok {
			nGot++
		}
		if !wok {
			continue
		}
		nWant++
		d := "missing"
		if gok {
			d = scenario.DiffLegal(&got, &want)
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
	bad := nWant - matched
	if nGot != nWant {
		fmt.Fprintf(out, "line count: got %d expected %d\n", nGot, nWant)
		bad += max(nGot-nWant, 0)
	}
	fmt.Fprintf(out, "%d of %d results match\n", matched, nWant)
	if err := out.Flush(); err != nil {
		return int(stdoutStatus(stderr, "compare", err).(status))
	}
	if bad > 0 {
		return 1
	}
	return 0
}
