// Command overlay draws the lines of several finished sweeps in one
// figure, as 'mkeysim plot' draws one sweep's: for a curve that one grid
// cannot hold beside the others, such as docs/fidelity.md section 8's
// no-ATS line beside the ATS lines over atc.entries (a sweep over both
// workload.translation_mode and atc.entries would draw the no-ATS curve
// once per ATC size, since the ATC takes no part in it).
//
//	go run ./scripts/overlay --x workload.footprint_bytes --y throughput_maps \
//	  --out docs/fidelity-atc-cliff.png out/atc-window=ATS:atc.entries 'out/atc-window-none=no ATS'
//
// Each RESULTS argument is a sweep's output directory (or its
// sweep.json), then optionally =LABEL, the name its lines take in the
// legend (before their own values), and :GROUP, the parameter whose
// values name its lines (mkeysim plot --group); every sweep must have
// varied --x over the same values. The note under the figure is the first
// sweep's workload. Exit status 2 on bad input, naming it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"mkeysim/sweep"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("overlay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	x := fs.String("x", "", "the parameter on x, varied by every sweep over the same values")
	y := fs.String("y", "", "the figure on y: a column of sweep.csv")
	out := fs.String("out", "", "the PNG to write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *x == "" || *y == "" || *out == "" || fs.NArg() < 2 {
		fmt.Fprintln(stderr, "usage: overlay --x P --y C --out FILE.png RESULTS[=LABEL][:GROUP] RESULTS[=LABEL][:GROUP]...")
		return 2
	}
	var all *sweep.Lines
	note := ""
	for _, a := range fs.Args() {
		path, group, _ := strings.Cut(a, ":")
		path, label, _ := strings.Cut(path, "=")
		res, err := sweep.Read(path)
		if err != nil {
			fmt.Fprintf(stderr, "overlay: %v\n", err)
			return 2
		}
		l, err := res.Lines(*x, *y, group)
		if err != nil {
			fmt.Fprintf(stderr, "overlay: %s: %v\n", path, err)
			return 2
		}
		for i := range l.Series {
			if label != "" && l.Series[i].Label != "" {
				l.Series[i].Label = label + ", " + l.Series[i].Label
			} else if label != "" {
				l.Series[i].Label = label
			}
		}
		if all == nil {
			all, note = l, res.Workload
			continue
		}
		if !slices.Equal(l.X.Values, all.X.Values) {
			fmt.Fprintf(stderr, "overlay: %s varies %s over %v; the first sweep over %v\n", path, *x, l.X.Values, all.X.Values)
			return 2
		}
		all.Series = append(all.Series, l.Series...)
	}
	png, err := all.Draw(note, nil)
	if err != nil {
		fmt.Fprintf(stderr, "overlay: %v\n", err)
		return 2
	}
	if err := os.WriteFile(*out, png, 0o644); err != nil {
		fmt.Fprintf(stderr, "overlay: %v\n", err)
		return 2
	}
	return 0
}
