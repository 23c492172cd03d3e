package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"mkeysim/sweep"
)

const mergeLong = `Joins the outputs of 'mkeysim sweep --shard I/N' (each SLICE_DIR holds the
sweep.json of one slice) into OUT_DIR as an unsharded sweep writes them:
sweep.csv, sweep.json and sweep.md (also printed on standard output) with
one row per point of the whole grid, in grid order, and the plots. The rows
are those of the slices, unchanged: every figure but wall_seconds and
cycles_per_second is what one unsharded run gives.

The slices must be of one sweep: the same --vary axes, base configuration
(--config and parameter flags), workload or scenario (its file's contents)
and --check; every point of the grid must be in exactly one slice, and no
slice may have been interrupted. Anything else (a directory that is not
a slice, slices of different sweeps, a missing or duplicated point) is
refused with exit status 2, naming the directory and the reason, and
nothing is written. The exit status is 1 if a slice's results differ from
the golden model (its mismatches column).`

const mergeExample = `  mkeysim sweep --vary mkc_cache.ways=1,2,4,8 --workload.accesses 2000 --shard 1/2 --out out/s1
  mkeysim sweep --vary mkc_cache.ways=1,2,4,8 --workload.accesses 2000 --shard 2/2 --out out/s2
  mkeysim merge out/ways out/s1 out/s2`

// newMergeCmd is 'mkeysim merge'.
func newMergeCmd() *cobra.Command {
	var noSummary bool
	c := &cobra.Command{
		Use:     "merge OUT_DIR SLICE_DIR...",
		Short:   "Join the slices of a sharded sweep into its tables and plots",
		Long:    mergeLong,
		Example: mergeExample,
		Args:    nArgs(2, int(^uint(0)>>1), "OUT_DIR and at least one SLICE_DIR"),
		RunE: func(c *cobra.Command, args []string) error {
			return mergeMain(c, args[0], args[1:], noSummary)
		},
	}
	c.Flags().BoolVar(&noSummary, "no-summary", false, "no summary lines on standard error")
	return c
}

func mergeMain(c *cobra.Command, out string, dirs []string, noSummary bool) error {
	const me = "mkeysim merge:"
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	fail := func(format string, a ...any) error {
		fmt.Fprintln(stderr, me, fmt.Sprintf(format, a...))
		return status(exitUsage)
	}
	var parts []*sweep.Result
	for _, d := range dirs {
		if same(out, d) {
			return fail("OUT_DIR %s is also a SLICE_DIR: its sweep.json would be replaced", out)
		}
		r, err := sweep.ReadSlice(d)
		if err != nil {
			return fail("%v", err)
		}
		parts = append(parts, r)
	}
	res, err := sweep.Merge(parts, dirs)
	if err != nil {
		return fail("%v", err)
	}
	created, err := sweep.PrepareDir(out)
	if err != nil {
		return fail("OUT_DIR %q: %v", out, err)
	}
	files := []sweep.File{{Name: "sweep.csv", Data: res.CSV()}, {Name: "sweep.json", Data: res.JSON()}, {Name: "sweep.md", Data: res.Markdown()}}
	plots, note, err := res.Plots()
	if err == nil {
		files = append(files, plots...)
		err = sweep.WriteFiles(out, files, sweep.PlotFiles)
	}
	if err != nil {
		if created {
			os.Remove(out)
		}
		fmt.Fprintln(stderr, me, err)
		return fileStatus(err)
	}
	if err := writeStdout(stdout, stderr, "merge", res.Markdown()); err != nil {
		return err
	}
	if !noSummary {
		var names []string
		for _, f := range files {
			names = append(names, f.Name)
		}
		fmt.Fprintf(stderr, "%s %d points from %d slices; wrote %s in %s\n", me, len(res.Rows), len(dirs), strings.Join(names, ", "), out)
		if note != "" {
			fmt.Fprintln(stderr, me, note)
		}
	}
	if n, pts := res.Mismatches(); n > 0 {
		fmt.Fprintf(stderr, "%s %d results differ from the golden model, at points %v (see the mismatches column)\n", me, n, pts)
		return status(exitFail)
	}
	return nil
}

// same reports whether paths a and b name one directory.
func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
