package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mkeysim/internal/outfile"
	"mkeysim/vectors"
)

const vectorsLong = `Writes golden vectors for a Verilog team: for each unit, DIR/UNIT.hex
($readmemh, one vector a line: inputs then expected outputs), its manifest
DIR/UNIT.manifest.json (every field's name, width, lsb, direction and
meaning, the DUT's ports and handshake, seed, command, model version; see
docs/formats.md), DIR/UNIT_pkg.sv (field positions and status codes),
DIR/UNIT_tb.sv (the replay harness) and DIR/UNIT_echo.sv (a DUT that
echoes the expected values, to check the flow). Expected values come from
the golden model (ref). The same flags give byte-identical files. Units:
protcheck, mttwalk, klmwalk, mptcache, top, atc (the ATS translation
cache: lookups, releases and Invalidate Requests, checked against an
untimed reference of its function), or all. The MKC cache's
geometry is set by the parameters of 'mkeysim run' of the same names
(--mkc-cache.sets and so on), but its default here is a small cache of 16
sets of 4 ways, whose replacements a few thousand vectors exercise.

--count is at most 131072 a unit: the vectors are made in memory and
written whole at the end (that many of every unit, --unit all, take
about 4 s and 525 MB). SIGINT
or SIGTERM stops the generation within a thousand vectors and writes
nothing; the exit status is 130 (SIGINT) or 143 (SIGTERM).`

const vectorsExample = `  mkeysim vectors --unit protcheck --count 4096 --seed 7 --out vec
  iverilog -g2012 -o vec/pc.vvp vec/protcheck_pkg.sv vec/protcheck_tb.sv vectors/hdl/mkeysim_protcheck.v
  vvp -n vec/pc.vvp +VEC=vec/protcheck.hex      # ... 4096 passed, 0 failed
  mkeysim vectors --unit mptcache --mkc-cache.sets 64 --mkc-cache.ways 4 --mkc-cache.replacement random --count 10000 --out vec
  mkeysim vectors --unit atc --count 2048 --out vec   # the ATC; replayed here with its echo DUT (yours: mkeysim_atc)
  iverilog -g2012 -DMKEYSIM_DUT=mkeysim_atc_echo -o vec/atc.vvp vec/atc_pkg.sv vec/atc_tb.sv vec/atc_echo.sv
  vvp -n vec/atc.vvp +VEC=vec/atc.hex           # ... 2048 passed, 0 failed
  mkeysim vectors --unit all --out vec --examples ''   # outside the repository: no example scenarios`

// vectorsFlags are the flags of 'mkeysim vectors'.
type vectorsFlags struct {
	unit, out, repl, examples string
	count, sets, ways         int
	seed, replSeed            uint64
}

// newVectorsCmd is 'mkeysim vectors'.
func newVectorsCmd() *cobra.Command {
	var vf vectorsFlags
	d := vectors.DefaultOptions()
	c := &cobra.Command{
		Use:     "vectors --unit UNIT --out DIR [--count N] [--seed S]",
		Short:   "Write golden vectors, manifests and Verilog replay harnesses",
		Long:    vectorsLong,
		Example: vectorsExample,
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if code := vectorsMain(c.Context(), &vf, c.OutOrStdout(), c.ErrOrStderr()); code != exitOK {
				return status(code)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&vf.unit, "unit", "", "`UNIT`: protcheck, mttwalk, klmwalk, mptcache, top, atc, or all")
	f.IntVar(&vf.count, "count", d.Count, "vectors per unit (directed ones first, then constrained random)")
	f.Uint64Var(&vf.seed, "seed", d.Seed, "random seed")
	f.Bool("quiet", false, "accepted for the same command lines as run and sweep: vectors shows no progress bar")
	f.StringVar(&vf.out, "out", "", "output `DIR` (created if missing; files are written whole or not at all)")
	// The MKC cache's geometry: run's parameters, by their names.
	f.IntVar(&vf.sets, "mkc-cache.sets", d.Sets, "mptcache: sets, a power of two in 1..65536")
	f.IntVar(&vf.ways, "mkc-cache.ways", d.Ways, "mptcache: ways, 1..64")
	f.StringVar(&vf.repl, "mkc-cache.replacement", d.Replacement, "mptcache: replacement, lru or random")
	f.Uint64Var(&vf.replSeed, "mkc-cache.seed", d.ReplSeed, "mptcache: seed of the random replacement")
	f.StringVar(&vf.examples, "examples", d.Examples, "`DIR` of example scenarios whose accesses become directed vectors ('' for none)")
	// The old names, hidden.
	for old, cur := range map[string]string{"sets": "mkc-cache.sets", "ways": "mkc-cache.ways", "replacement": "mkc-cache.replacement", "repl-seed": "mkc-cache.seed"} {
		f.AddFlag(&pflag.Flag{Name: old, Usage: "the old name of --" + cur, Value: f.Lookup(cur).Value, DefValue: f.Lookup(cur).DefValue, Hidden: true})
	}
	return c
}

func vectorsMain(ctx context.Context, vf *vectorsFlags, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "mkeysim vectors:", err)
		return exitUsage
	}
	if vf.unit == "" {
		return fail(errors.New("--unit is required (protcheck, mttwalk, klmwalk, mptcache, top, atc, or all)"))
	}
	if vf.out == "" {
		return fail(errors.New("--out is required"))
	}
	units := []string{vf.unit}
	if vf.unit == "all" {
		units = vectors.Units()
	}
	var opts []vectors.Options
	for _, u := range units {
		o := vectors.Options{Unit: u, Count: vf.count, Seed: vf.seed, Sets: vf.sets, Ways: vf.ways, Replacement: vf.repl, ReplSeed: vf.replSeed, Examples: vf.examples, All: vf.unit == "all", Stop: ctx.Done()}
		if vf.unit == "all" && u != "mptcache" {
			// Geometry flags are checked once, even when no unit uses them.
			g := o
			g.Unit = "mptcache"
			if err := g.Validate(); err != nil {
				return fail(err)
			}
		}
		if err := o.Validate(); err != nil {
			return fail(err)
		}
		opts = append(opts, o)
	}
	start := time.Now()
	outs, err := vectors.WriteAll(opts, vf.out)
	if errors.Is(err, vectors.ErrStopped) {
		fmt.Fprintf(stderr, "mkeysim vectors: interrupted: nothing written to %s (a unit's files are written whole or not at all)\n", vf.out)
		return int(interruptedStatus(ctx))
	}
	if err != nil {
		var fe *vectors.FlagError
		var oe *outfile.Error
		switch {
		case errors.As(err, &fe):
			return fail(err)
		case errors.As(err, &oe):
			err = flagFile{"--out", err}
			fmt.Fprintf(stderr, "mkeysim vectors: %v; nothing written to %s (the files are written whole or not at all)\n", err, vf.out)
			return int(fileStatus(err))
		}
		fmt.Fprintln(stderr, "mkeysim vectors:", err)
		return 1
	}
	var list bytes.Buffer
	for _, o := range outs {
		m := o.Manifest
		fmt.Fprintf(&list, "%s: %d vectors (%d directed) of %d bits in %s/%s, manifest %s/%s.manifest.json\n",
			m.Unit, m.Count, m.Directed, m.LineWidth, vf.out, m.File, vf.out, m.Unit)
	}
	if _, err := (stdoutWriter{stdout}).Write(list.Bytes()); err != nil {
		if pipeClosed(err) {
			return exitPipe
		}
		fmt.Fprintf(stderr, "mkeysim vectors: the files are written, but not their list: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stderr, "mkeysim vectors: %d unit(s) in %.2fs\n", len(outs), time.Since(start).Seconds())
	return 0
}
