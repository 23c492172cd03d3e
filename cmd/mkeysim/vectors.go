package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"mkeysim/vectors"
)

const vectorsUsage = `usage: mkeysim vectors --unit UNIT --count N --seed S --out DIR [flags]

Writes golden vectors for a Verilog team: for each unit, DIR/UNIT.hex
($readmemh, one vector a line: inputs then expected outputs), its manifest
DIR/UNIT.manifest.json (every field's name, width, lsb, direction and
meaning, the DUT's ports and handshake, seed, command, model version),
DIR/UNIT_pkg.sv (field positions and status codes), DIR/UNIT_tb.sv (the
replay harness) and DIR/UNIT_echo.sv (a DUT that echoes the expected values,
to check the flow). Expected values come from the golden model (ref). The
same flags give byte-identical files. Units: protcheck, mttwalk, klmwalk,
mptcache, top, or all.

Example (from the repository root; vectors/README.md explains the files):
  mkeysim vectors --unit protcheck --count 4096 --seed 7 --out vec
  iverilog -g2012 -o vec/pc.vvp vec/protcheck_pkg.sv vec/protcheck_tb.sv vectors/hdl/mkeysim_protcheck.v
  vvp -n vec/pc.vvp +VEC=vec/protcheck.hex      # ... 4096 passed, 0 failed
  verilator --binary -j 2 -Mdir vec/obj --top-module protcheck_tb vec/protcheck_pkg.sv vec/protcheck_tb.sv vectors/hdl/mkeysim_protcheck.v
  vec/obj/Vprotcheck_tb +VEC=vec/protcheck.hex  # ... 4096 passed, 0 failed
  mkeysim vectors --unit mptcache --sets 64 --ways 4 --replacement random --count 10000 --out vec
  mkeysim vectors --unit all --out vec --examples ''   # outside the repository: no example scenarios

Flags:
`

func cmdVectors(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("vectors", vectorsUsage, stderr)
	d := vectors.DefaultOptions()
	unit := fs.String("unit", "", "unit: protcheck, mttwalk, klmwalk, mptcache, top, or all")
	count := fs.Int("count", d.Count, "vectors per unit (directed ones first, then constrained random)")
	seed := fs.Uint64("seed", d.Seed, "random seed")
	out := fs.String("out", "", "output directory (created if missing; files are written whole or not at all)")
	sets := fs.Int("sets", d.Sets, "mptcache: sets, a power of two in 1..65536")
	ways := fs.Int("ways", d.Ways, "mptcache: ways, 1..64")
	repl := fs.String("replacement", d.Replacement, "mptcache: replacement, lru or random")
	replSeed := fs.Uint64("repl-seed", d.ReplSeed, "mptcache: seed of the random replacement (rtl/mptcache Config.Seed)")
	examples := fs.String("examples", d.Examples, "directory of example scenarios whose accesses become directed vectors ('' for none)")
	if err := fs.Parse(args); err != nil {
		return flagStatus(err)
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "mkeysim vectors:", err)
		return exitUsage
	}
	if fs.NArg() != 0 {
		return fail(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *unit == "" {
		return fail(errors.New("--unit is required (protcheck, mttwalk, klmwalk, mptcache, top, or all)"))
	}
	if *out == "" {
		return fail(errors.New("--out is required"))
	}
	units := []string{*unit}
	if *unit == "all" {
		units = vectors.Units()
	}
	var opts []vectors.Options
	for _, u := range units {
		o := vectors.Options{Unit: u, Count: *count, Seed: *seed, Sets: *sets, Ways: *ways, Replacement: *repl, ReplSeed: *replSeed, Examples: *examples}
		if *unit == "all" && u != "mptcache" {
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
	outs, err := vectors.WriteAll(opts, *out)
	if err != nil {
		var fe *vectors.FlagError
		if errors.As(err, &fe) {
			return fail(err)
		}
		fmt.Fprintln(stderr, "mkeysim vectors:", err)
		return 1
	}
	for _, o := range outs {
		m := o.Manifest
		fmt.Fprintf(stdout, "%s: %d vectors (%d directed) of %d bits in %s/%s, manifest %s/%s.manifest.json\n",
			m.Unit, m.Count, m.Directed, m.LineWidth, *out, m.File, *out, m.Unit)
	}
	fmt.Fprintf(stderr, "mkeysim vectors: %d unit(s) in %.2fs\n", len(outs), time.Since(start).Seconds())
	return 0
}
