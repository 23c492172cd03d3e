package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"mkeysim/sweep"
)

const plotLong = `Redraws one figure of a finished sweep against one of its varied
parameters, from its sweep.json, without running anything: RESULTS is the
sweep's output directory (of 'mkeysim sweep' or 'mkeysim merge') or its
sweep.json. The PNG goes to --out.

--x P is a parameter the sweep varied (mkc_cache.ways,
workload.footprint_bytes); --y C is any column of sweep.csv: a figure
(mtt_cache.hit_rate, throughput_maps, latency_ns.p99, ...) or an alias
(mtt_hit_rate, latency_p99_ns, ...), plotted in its unit (hit rates as
fractions, as in the CSV). With --group Q, one line per value of the
parameter Q (and of any other parameter varied); without it, one line per
combination of the other parameters' values (at most 12 lines). The x
axis is log2 when P's values are powers of two spanning a factor of 8 or
more, sizes read 4 KiB, 2 MiB, 1 GiB, and y starts at zero; both name
their units.

--reference FILE.csv draws a measured curve over the model's lines, as
points labelled with the file's name: a header line naming two columns,
then at least 2 lines of x,y, x in P's unit (bytes for *_bytes) and y in
C's unit (the unit of the sweep.csv column). Lines starting with # are
comments.

--normalize divides each line by its value at its first x, to compare
shapes (a throughput as a fraction of its small-window value) with a
reference normalised the same way.

Bad input (a RESULTS that is not a sweep's output, an unknown P, C or Q,
a reference file that is missing, has no header, a field that is not a
number or fewer than 2 lines) is refused with exit status 2, naming the
file and line or the value and the choices, and nothing is written; the
PNG is written to a temporary file renamed into place.`

const plotExample = `  mkeysim sweep --vary mkc_cache.ways=1,2,4,8 --workload.accesses 2000 --quiet --no-summary --out out/ways > /dev/null
  mkeysim plot out/ways --x mkc_cache.ways --y mkc_hit_rate --out out/ways/mkc.png
  printf 'ways,hit_rate\n1,0.5\n2,0.7\n4,0.85\n8,0.9\n' > out/hw.csv
  mkeysim plot out/ways --x mkc_cache.ways --y mkc_cache.hit_rate --reference out/hw.csv --out out/ways/vs-hw.png`

// plotFlags are the flags of 'mkeysim plot'.
type plotFlags struct {
	x, y, group, reference, out string
	normalize                   bool
	noSummary                   bool
}

// newPlotCmd is 'mkeysim plot'.
func newPlotCmd() *cobra.Command {
	var pf plotFlags
	c := &cobra.Command{
		Use:     "plot RESULTS --x P --y C [--group Q] [--reference FILE.csv] --out FILE.png",
		Short:   "Redraw a figure of a sweep's results, optionally against measured data",
		Long:    plotLong,
		Example: plotExample,
		Args:    nArgs(1, 1, "RESULTS (a sweep's output directory or its sweep.json)"),
		RunE: func(c *cobra.Command, args []string) error {
			return plotMain(c, args[0], &pf)
		},
	}
	f := c.Flags()
	// -x and -y as well: cobra's completion finds a one-letter flag by its
	// shorthand only.
	f.StringVarP(&pf.x, "x", "x", "", "the varied parameter `P` on the x axis")
	f.StringVarP(&pf.y, "y", "y", "", "the figure `C` on the y axis: a column of sweep.csv")
	f.StringVar(&pf.group, "group", "", "one line per value of the varied parameter `Q`")
	f.StringVar(&pf.reference, "reference", "", "a measured curve, `FILE.csv` of x,y with a header, drawn over the lines")
	f.BoolVar(&pf.normalize, "normalize", false, "divide each line by its value at its first x (a reference is drawn as given: normalise it the same way)")
	f.StringVar(&pf.out, "out", "", "the PNG `FILE` to write")
	f.BoolVar(&pf.noSummary, "no-summary", false, "no summary line on standard error")
	return c
}

func plotMain(c *cobra.Command, results string, pf *plotFlags) error {
	const me = "mkeysim plot:"
	stderr := c.ErrOrStderr()
	fail := func(format string, a ...any) error {
		fmt.Fprintln(stderr, me, fmt.Sprintf(format, a...))
		return status(exitUsage)
	}
	for _, f := range []struct{ name, v string }{{"--x", pf.x}, {"--y", pf.y}, {"--out", pf.out}} {
		if f.v == "" {
			return fail("want %s", f.name)
		}
	}
	if st, err := os.Stat(pf.out); err == nil && st.IsDir() {
		return fail("--out %q: a directory; want a file name (FILE.png)", pf.out)
	}
	if st, err := os.Stat(filepath.Dir(pf.out)); err != nil || !st.IsDir() {
		return fail("--out %q: no directory %s", pf.out, filepath.Dir(pf.out))
	}
	res, err := sweep.ReadAny(results)
	if err != nil {
		return fail("%v", err)
	}
	lines, err := res.Lines(pf.x, pf.y, pf.group)
	if err != nil {
		return fail("%s: %v", results, err)
	}
	if pf.normalize {
		if err := lines.Normalize(); err != nil {
			return fail("%s: %v", results, err)
		}
	}
	var ref *sweep.Reference
	if pf.reference != "" {
		if ref, err = sweep.ReadReference(pf.reference); err != nil {
			return fail("--reference %v", err)
		}
	}
	png, err := lines.Draw(res.Workload, ref)
	var ie *sweep.InputError
	if errors.As(err, &ie) {
		return fail("%v", err)
	} else if err != nil {
		fmt.Fprintln(stderr, me, err)
		return status(exitFail)
	}
	dir, name := filepath.Split(pf.out)
	if dir == "" {
		dir = "."
	}
	if err := sweep.WriteFiles(dir, []sweep.File{{Name: name, Data: png}}, nil); err != nil {
		fmt.Fprintln(stderr, me, err)
		return fileStatus(err)
	}
	if !pf.noSummary {
		fmt.Fprintf(stderr, "%s %s against %s, %d line(s)", me, pf.y, lines.X.Name, len(lines.Series))
		if ref != nil {
			fmt.Fprintf(stderr, " and %s (%d points)", ref.Name, len(ref.X))
		}
		fmt.Fprintf(stderr, "; wrote %s\n", pf.out)
	}
	return nil
}
