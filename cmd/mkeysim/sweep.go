package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mkeysim/config"
	"mkeysim/sweep"
)

const sweepLong = `Runs the clocked model at every point of a grid of parameters and writes,
in DIR, one row per point as sweep.csv and sweep.json, a Markdown table
sweep.md (also printed on standard output) and PNG plots against the first
--vary parameter: hit_rates.png (MKC, MTT and KLM caches), throughput.png
(translations per cycle) and latency.png (p50 and p99 in cycles). With two
or more --vary, each plot has one line per value of the others. The
figures are those of 'mkeysim run --stats', under the same names
(docs/counters.md), in cycles and in time at clock_ps (throughput_maps,
throughput_gbps, latency_ns.*); sweep.csv and sweep.json also give
latency_p50_ns, latency_p99_ns, mkc_hit_rate, mtt_hit_rate and pcie_reads,
copies of latency_ns.p50, latency_ns.p99, mkc_cache.hit_rate,
mtt_cache.hit_rate and pcie.reads (docs/sweep.md).

A sweep may be written down as a file, SWEEP.toml: a configuration file
(every parameter as 'mkeysim config --defaults' writes them) with a
[sweep] table: vary = ["PARAM=V1,V2,...", ...] (the --vary items, in
order), and optionally seeds = N, out = "DIR" and scenario = "FILE.json"
(paths relative to the file). Flags given win over the file: --vary
replaces its axes, a parameter flag its value (examples/sweeps).

PARAM is a parameter of 'mkeysim config --defaults' (mkc_cache.ways,
pcie.link_latency_cycles, workload.hot_keys; - for _ works too). Values are
a comma-separated list; an item may be a range of integers: A..B (step 1),
A..B+S (step S) or A..B*F (16..256*2 is 16,32,64,128,256). Any other item,
and any value of a string parameter, is taken as written (a path such as
../t.csv). The grid is the product of every list, the first --vary varying
slowest.

Every point runs the workload (workload.*, regenerated from its seed, so all
points see the same operations unless a workload parameter is varied) or
the --scenario file, with every other parameter from --config and the
parameter flags, as 'mkeysim run' takes them. Points run in parallel
(--workers); every run is independent, so the figures do not depend on it
(wall time aside). Results are checked against the golden model unless
--check=false; a difference is reported and the exit status is 1.

--seeds N (default 1) runs every point N times, with workload.seed s, s+1,
..., s+N-1: each figure of a row is then the mean over the seeds, followed
in sweep.csv and sweep.json by NAME_sd, its sample standard deviation
(mean ± sd in sweep.md, error bars of ± one sd on the plots); mismatches
add up. It is refused with --scenario, which has no seed.

--shard I/N runs only slice I of N of the grid (the points whose index in
grid order is I-1, I-1+N, I-1+2N, ...), for running a large sweep as N
processes or jobs: the slice writes sweep.csv, sweep.json and sweep.md of
its rows (each with its point's index in the grid), no plots, and 'mkeysim
merge OUT_DIR SLICE_DIR...' joins the slices into the files of an
unsharded run.

--emit-slurm DIR writes the sweep as a Slurm job array instead of running
it: DIR/sweep.sbatch (submit it with sbatch; task I runs slice I of
--slurm-tasks, default one a point up to 64, into DIR/slice-I, with the
same arguments) and DIR/merge.sh, which joins the slices into --out once
the tasks have ended. scripts/slurm-single-node.sh brings up a Slurm
cluster of one machine to try it.

--resume keeps the rows an earlier run of the same sweep left in --out
(stopped by SIGINT, or killed after writing them) and runs only the
points missing; an output of another sweep (other values, base
configuration, seeds, slice or checking) is refused.

Bad input (an unknown parameter, a bad value, an empty list, an invalid
point, more than --max-points points, a bad --seeds or --shard, an
unwritable --out) ends with exit status 2 and nothing written. SIGINT or
SIGTERM stops the sweep: the points that finished are written as tables
(no plots), and the exit status is 130 (SIGINT) or 143 (SIGTERM).`

const sweepExample = `  mkeysim sweep --vary mkc_cache.ways=1,2,4,8,16 --workload.accesses 20000 --out out/ways
  mkeysim sweep --vary mkc_cache.sets=16..512*2 --vary mkc_cache.ways=2,8 --out out/mkc
  mkeysim sweep --vary pcie.link_latency_cycles=25,75,150,300 --vary mtt.walkers=2,8 --out out/pcie
  mkeysim sweep --scenario examples/klm-nested.json --vary klm.cache.entries=16,64,512 --out out/klm
  mkeysim sweep --mkc-cache.mshrs 32 --vary mkc_cache.replacement=lru,random --workload.accesses 20000 --out out/repl
  mkeysim sweep --vary mkc_cache.ways=1,2,4,8,16 --workload.accesses 20000 --out out/ways --resume
  mkeysim sweep examples/sweeps/replacement-loop.toml --workload.accesses 10000 --out out/loop
  mkeysim sweep --vary mkc_cache.sets=16..512*2 --vary mkc_cache.ways=1,2,4,8 --out out/grid --emit-slurm out/grid-job`

// sweepFlags are sweep's flags that are not model parameters.
type sweepFlags struct {
	varies                 []string
	config, scenario, out  string
	workers, maxPoints     int
	seeds                  string
	check, quiet, progress bool
	noSummary, resume      bool
	shard                  string
	file                   string // SWEEP.toml, "" for none
	emitSlurm              string
	slurmTasks             int
}

// newSweepCmd is 'mkeysim sweep'.
func newSweepCmd() *cobra.Command {
	var sf sweepFlags
	cfg := config.Default()
	c := &cobra.Command{
		Use:     "sweep [SWEEP.toml] --vary PARAM=V1,V2,... [--vary PARAM2=...] --out DIR",
		Short:   "Run the model over a grid of parameters; tables and plots",
		Long:    sweepLong,
		Example: sweepExample,
		Args:    nArgs(0, 1, "at most one sweep file SWEEP.toml"),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				sf.file = args[0]
			}
			return sweepMain(c, &sf, cfg)
		},
	}
	f := c.Flags()
	f.StringArrayVar(&sf.varies, "vary", nil, "the values of one parameter, as `PARAM=V1,V2,...` (repeat --vary for a grid)")
	f.StringVar(&sf.config, "config", "", "TOML configuration `FILE` (see 'mkeysim config --defaults'); flags given win over it")
	f.StringVar(&sf.scenario, "scenario", "", "run this scenario `FILE.json` at every point instead of the workload")
	f.StringVar(&sf.out, "out", "", "`DIR` for sweep.csv, sweep.json, sweep.md and the plots (created if missing)")
	f.IntVar(&sf.workers, "workers", runtime.GOMAXPROCS(0), "points run at once")
	f.IntVar(&sf.maxPoints, "max-points", sweep.DefaultMaxPoints, fmt.Sprintf("refuse sweeps of more points than this (at most %d)", sweep.MaxPoints))
	f.BoolVar(&sf.check, "check", true, "check every result against the golden model")
	f.BoolVar(&sf.quiet, "quiet", false, "no progress bar, even on a terminal")
	f.BoolVar(&sf.noSummary, "no-summary", false, "no summary lines on standard error")
	f.BoolVar(&sf.progress, "progress", false, "show the progress bar even when standard error is not a terminal")
	f.StringVar(&sf.seeds, "seeds", "1", "run every point with `N` seeds (workload.seed, +1, ...): each figure the mean, with NAME_sd its standard deviation")
	f.BoolVar(&sf.resume, "resume", false, "keep the points an earlier run of the same sweep left in --out (interrupted, or run in part) and run only the others")
	f.StringVar(&sf.emitSlurm, "emit-slurm", "", "write the sweep as a Slurm job array in `DIR` (sweep.sbatch, merge.sh) instead of running it")
	f.IntVar(&sf.slurmTasks, "slurm-tasks", 0, "tasks of the --emit-slurm array, each running one slice of the grid (0: one a point, at most 64)")
	f.StringVar(&sf.shard, "shard", "", "run only slice `I/N` of the grid (points I-1, I-1+N, ...): tables, no plots; 'mkeysim merge' joins the slices")
	cfg.RegisterFlags(f)
	return c
}

func sweepMain(c *cobra.Command, sf *sweepFlags, cfg config.Config) error {
	const me = "mkeysim sweep:"
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	fail := func(format string, a ...any) error {
		fmt.Fprintln(stderr, me, fmt.Sprintf(format, a...))
		return status(exitUsage)
	}
	vary := "--vary" // where the axes come from, for errors
	var base sweepBase
	if sf.file != "" {
		// The file is the configuration and the sweep; flags win over it.
		if sf.config != "" {
			return fail("--config %s and the sweep file %s: the sweep file is the configuration; put the parameters in it", sf.config, sf.file)
		}
		spec, err := sweep.ReadSpec(sf.file)
		if err != nil {
			return fail("%v", err)
		}
		base.keep(sf.file, spec.Config)
		fl := c.Flags()
		if err := spec.Config.Overlay(fl); err != nil {
			return fail("%v", err)
		}
		cfg = spec.Config
		if !fl.Changed("vary") {
			sf.varies, vary = spec.Vary, sf.file+": [sweep] vary"
		}
		if !fl.Changed("seeds") && spec.Seeds > 0 {
			sf.seeds = strconv.Itoa(spec.Seeds)
		}
		if !fl.Changed("out") && spec.Out != "" {
			sf.out = spec.Out
		}
		if !fl.Changed("scenario") && spec.Scenario != "" {
			sf.scenario = spec.Scenario
		}
	}
	cfg, err := base.read(c.Flags(), sf.config, cfg)
	if err != nil {
		return fail("%v", err)
	}
	if len(sf.varies) == 0 {
		return fail("want at least one --vary PARAM=V1,V2,... (like --vary mkc_cache.ways=1,2,4,8)")
	}
	s := &sweep.Sweep{Base: cfg, Check: sf.check}
	seen := map[string]bool{}
	for _, v := range sf.varies {
		a, err := sweep.ParseVary(v)
		if err != nil {
			return fail("%s %q: %v", vary, v, err)
		}
		if seen[a.Name] {
			return fail("%s %q: %s is already varied by an earlier one", vary, v, a.Label())
		}
		seen[a.Name] = true
		if sf.scenario != "" && strings.HasPrefix(a.Name, "workload.") {
			return fail("%s %q: %s has no effect with --scenario %s", vary, v, a.Label(), sf.scenario)
		}
		s.Axes = append(s.Axes, a)
	}
	// The grid's size is checked before any point is made: each point
	// checked below is made in memory.
	if sf.maxPoints < 1 || sf.maxPoints > sweep.MaxPoints {
		return fail("--max-points %d: want 1..%d (a sweep's points are made in memory before it runs)", sf.maxPoints, sweep.MaxPoints)
	}
	if n := sweep.Count(s.Axes); n > sf.maxPoints {
		var sizes []string
		for _, a := range s.Axes {
			sizes = append(sizes, fmt.Sprintf("%s: %d", a.Label(), len(a.Values)))
		}
		return fail("%s: %s points (%s) is more than --max-points %d", vary, sweep.CountText(s.Axes), strings.Join(sizes, " × "), sf.maxPoints)
	}
	if err := base.check(s); err != nil {
		return fail("%v", err)
	}
	if n, err := strconv.Atoi(strings.TrimSpace(sf.seeds)); err != nil || n < 1 {
		return fail("--seeds %q: want a whole number of seeds, at least 1", sf.seeds)
	} else if n > 1 && sf.scenario != "" {
		return fail("--seeds %d: a scenario has no seed to vary (--scenario %s); run it with --seeds 1", n, sf.scenario)
	} else {
		s.Seeds = n
	}
	if sf.workers < 1 {
		return fail("--workers %d: want at least 1", sf.workers)
	}
	if c.Flags().Changed("shard") {
		sh, err := sweep.ParseShard(sf.shard)
		if err != nil {
			return fail("--shard %q: %v", sf.shard, err)
		}
		if n := sweep.Count(s.Axes); sh.Count > n {
			return fail("--shard %q: %d slices of a grid of %d points: want at most %d", sf.shard, sh.Count, n, n)
		}
		s.Shard = sh
	}
	if sf.out == "" {
		return fail("want --out DIR for the tables and plots")
	}
	if sf.scenario != "" {
		data, err := os.ReadFile(sf.scenario)
		if err != nil {
			return fail("--scenario %s: %v", sf.scenario, errors.Unwrap(err))
		}
		s.Scenario, s.ScenarioName = data, sf.scenario
	}
	s.Stop = c.Context().Done()
	if err := s.Validate(); err != nil {
		if errors.Is(err, sweep.ErrStopped) {
			fmt.Fprintln(stderr, me, "interrupted while checking the grid: nothing written")
			return interruptedStatus(c.Context())
		}
		if sf.scenario != "" && !strings.HasPrefix(err.Error(), "point ") {
			return fail("--scenario %v", err)
		}
		return fail("%s: %v", vary, err)
	}
	if sf.emitSlurm != "" {
		return emitSlurm(c, sf, s)
	}
	var done map[int]sweep.Row
	if sf.resume {
		if _, err := os.Stat(filepath.Join(sf.out, "sweep.json")); err == nil {
			prev, err := sweep.Read(sf.out)
			if err == nil {
				done, err = s.Resume(prev, sf.out)
			}
			if err != nil {
				return fail("--resume: %v", err)
			}
		}
	}
	created, err := sweep.PrepareDir(sf.out)
	if err != nil {
		return fail("--out %q: %v", sf.out, err)
	}
	cleanup := func() {
		if created {
			os.Remove(sf.out) // only if still empty
		}
	}

	total := len(s.Points())
	if !sf.noSummary {
		of := ""
		if s.Shard.Count > 0 {
			of = fmt.Sprintf(" (slice %s of %d points)", s.Shard, sweep.Count(s.Axes))
		}
		if s.Seeds > 1 {
			of += fmt.Sprintf(", each run with %d seeds in turn", s.Seeds)
		}
		if len(done) > 0 {
			of += fmt.Sprintf(", %d of them already in %s (--resume)", len(done), sf.out)
		}
		fmt.Fprintf(stderr, "%s %d points%s, %d at a time; %s\n", me, total, of, min(sf.workers, total), s.Describe())
	}
	start := time.Now()
	bar := newProgress(stderr, total, "points", sf.quiet, sf.progress)
	bar.set(len(done))
	res, err := s.Run(sweep.Options{Workers: sf.workers, Progress: func(done, _ int) { bar.set(done) }, Stop: c.Context().Done(), Done: done})
	bar.finish()
	stopped := errors.Is(err, sweep.ErrStopped)
	if stopped && len(res.Rows) > 0 {
		// The points that finished are results: their tables are written
		// (no plots: the grid has holes).
		files := []sweep.File{{Name: "sweep.csv", Data: res.CSV()}, {Name: "sweep.json", Data: res.JSON()}, {Name: "sweep.md", Data: res.Markdown()}}
		if err := sweep.WriteFiles(sf.out, files, sweep.PlotFiles); err != nil {
			cleanup()
			fmt.Fprintf(stderr, "%s %v; nothing written to %s\n", me, err, sf.out)
			return fileStatus(err)
		}
		fmt.Fprintf(stderr, "%s interrupted: kept the %d finished points of %d in %s (sweep.csv, sweep.json, sweep.md; no plots)\n", me, len(res.Rows), total, sf.out)
		return interruptedStatus(c.Context())
	}
	if err != nil {
		cleanup()
		var ie *sweep.InputError
		switch {
		case stopped:
			fmt.Fprintln(stderr, me, "interrupted before any point finished: nothing written")
			return interruptedStatus(c.Context())
		case errors.As(err, &ie):
			return fail("%v", err)
		}
		fmt.Fprintln(stderr, me, err)
		return status(exitFail)
	}
	files := []sweep.File{{Name: "sweep.csv", Data: res.CSV()}, {Name: "sweep.json", Data: res.JSON()}, {Name: "sweep.md", Data: res.Markdown()}}
	var note string
	if s.Shard.Count == 0 {
		var plots []sweep.File
		plots, note, err = res.Plots()
		if err != nil {
			cleanup()
			fmt.Fprintln(stderr, me, "plots:", err)
			return status(exitFail)
		}
		files = append(files, plots...)
	} else {
		// A slice's points are scattered over the grid: plots of them
		// would draw lines through holes. merge draws the whole grid's.
		note = fmt.Sprintf("slice %s: no plots; 'mkeysim merge OUT_DIR SLICE_DIR...' joins the slices and draws them", s.Shard)
	}
	if err := sweep.WriteFiles(sf.out, files, sweep.PlotFiles); err != nil {
		cleanup()
		fmt.Fprintf(stderr, "%s %v; nothing written to %s\n", me, err, sf.out)
		return fileStatus(err)
	}
	if err := writeStdout(stdout, stderr, "sweep", res.Markdown()); err != nil {
		return err
	}
	if !sf.noSummary {
		var names []string
		for _, f := range files {
			names = append(names, f.Name)
		}
		fmt.Fprintf(stderr, "%s %d points in %.1f s; wrote %s in %s\n", me, total, time.Since(start).Seconds(), strings.Join(names, ", "), sf.out)
		if note != "" {
			fmt.Fprintln(stderr, me, note)
		}
	}
	if n, pts := res.Mismatches(); n > 0 {
		fmt.Fprintf(stderr, "%s %d results differ from the golden model, at points %v (see the mismatches column)\n", me, n, pts)
		for _, p := range pts {
			for _, d := range res.Rows[p].Differences {
				fmt.Fprintf(stderr, "%s point %d: %s\n", me, p, d)
			}
		}
		return status(exitFail)
	}
	return nil
}

// emitSlurm writes the validated sweep s as a Slurm job array in
// sf.emitSlurm: each task runs a slice of the grid with the same
// arguments (--shard I/N), merge.sh joins the slices into --out.
func emitSlurm(c *cobra.Command, sf *sweepFlags, s *sweep.Sweep) error {
	const me = "mkeysim sweep:"
	stderr := c.ErrOrStderr()
	fail := func(format string, a ...any) error {
		fmt.Fprintln(stderr, me, fmt.Sprintf(format, a...))
		return status(exitUsage)
	}
	fl := c.Flags()
	if fl.Changed("shard") || sf.resume {
		return fail("--emit-slurm: the job array makes its own slices; drop --shard and --resume")
	}
	points := sweep.Count(s.Axes)
	tasks := sf.slurmTasks
	switch {
	case tasks == 0:
		tasks = min(points, 64)
	case tasks < 0 || tasks > points:
		return fail("--slurm-tasks %d: want 1..%d (the grid's points)", tasks, points)
	}
	bin, err := os.Executable()
	if err != nil {
		return fail("--emit-slurm: cannot find the mkeysim binary: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail("--emit-slurm: %v", err)
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(wd, p)
	}
	// The tasks get the arguments given, but the job's own and those each
	// task sets; --vary items one by one.
	var args []string
	if sf.file != "" {
		args = append(args, sf.file)
	}
	skip := map[string]bool{"emit-slurm": true, "slurm-tasks": true, "out": true, "shard": true, "resume": true,
		"workers": true, "quiet": true, "progress": true, "no-summary": true, "vary": true}
	fl.Visit(func(f *pflag.Flag) {
		if !skip[f.Name] {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	if fl.Changed("vary") {
		for _, v := range sf.varies {
			args = append(args, "--vary", v)
		}
	}
	dir := abs(sf.emitSlurm)
	job := sweep.SlurmJob{Binary: bin, Args: args, Tasks: tasks, Dir: dir, Out: abs(sf.out), Workdir: wd}
	created, err := sweep.PrepareDir(dir)
	if err != nil {
		return fail("--emit-slurm %q: %v", sf.emitSlurm, err)
	}
	if err := sweep.WriteFiles(dir, job.Files(), sweep.SlurmFiles); err != nil {
		if created {
			os.Remove(dir)
		}
		fmt.Fprintf(stderr, "%s %v; nothing written to %s\n", me, err, sf.emitSlurm)
		return fileStatus(err)
	}
	for _, name := range sweep.SlurmFiles {
		os.Chmod(filepath.Join(dir, name), 0o755)
	}
	if !sf.noSummary {
		fmt.Fprintf(stderr, "%s wrote a job array of %d tasks for %d points in %s: submit it with 'sbatch %s', then join the slices into %s with 'bash %s'\n",
			me, tasks, points, sf.emitSlurm, filepath.Join(sf.emitSlurm, "sweep.sbatch"), sf.out, filepath.Join(sf.emitSlurm, "merge.sh"))
	}
	return nil
}

// sweepBase is where a sweep's base configuration comes from. The base
// is read (every key, every value's type and range checked) before the
// axes are known, and validated after, as its points see it (check): a
// parameter an axis gives need not be given, or valid, in the base.
type sweepBase struct {
	file *config.Config // the file's parameters alone, nil for none
	name string         // the file, as errors name it
}

// keep notes c, the parameters of the file that errors call name.
func (b *sweepBase) keep(name string, c config.Config) { b.file, b.name = &c, name }

// read is effectiveConfig without the validation: cfg or, with --config
// FILE, the file with the parameter flags over it.
func (b *sweepBase) read(flags *pflag.FlagSet, file string, cfg config.Config) (config.Config, error) {
	if file == "" {
		return cfg, nil
	}
	fromFile, err := config.Read(file, "")
	if err != nil {
		return cfg, fmt.Errorf("--config: %v", err)
	}
	b.keep("--config: "+file, fromFile)
	if err := fromFile.Overlay(flags); err != nil {
		return cfg, err
	}
	return fromFile, nil
}

// check refuses s's base when every point would share its error
// (sweep.BaseError), naming the file when the file's own parameters have
// that error too, as run names it. An error that the axes' values change
// is s.Validate's to report, for the points that have it.
func (b *sweepBase) check(s *sweep.Sweep) error {
	err := s.BaseError(&s.Base)
	if err == nil {
		return nil
	}
	if b.file != nil {
		if ferr := s.BaseError(b.file); ferr != nil && ferr.Error() == err.Error() {
			return fmt.Errorf("%s: %v", b.name, err)
		}
	}
	return err
}
