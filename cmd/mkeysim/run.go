package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/schollz/progressbar/v3"

	"mkeysim/config"
	"mkeysim/cover"
	"mkeysim/ref"
	"mkeysim/scenario"
	"mkeysim/tb"
)

const runUsage = `usage: mkeysim run [flags] [SCENARIO.json]

Runs the clocked model on a scenario, or with no scenario on the default
constrained-random workload (the [workload] section of the config), and
prints one result line per operation with the cycle it completed at. Every
result is checked against the golden model (turn off with -check=false);
a mismatch is reported and the exit status is 1. A summary goes to standard
error; -stats writes it as JSON.

Every parameter of 'mkeysim config --defaults' is a flag too, named like its
key without the 'model.' prefix.

Examples:
  mkeysim run examples/klm-nested.json
  mkeysim run -out out/run.jsonl -stats out/stats.json -coverage out/coverage.json
  mkeysim run -config my.toml -mkc_cache.ways 8 -pcie.latency 200 -workload.accesses 10000

Flags:
`

// runFlags are the flags of run that are not model parameters.
type runFlags struct {
	config, out, stats, coverage string
	check, quiet                 bool
	wave                         waveFlags
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", runUsage, stderr)
	var rf runFlags
	fs.StringVar(&rf.config, "config", "", "TOML config file (see 'mkeysim config --defaults')")
	fs.StringVar(&rf.out, "out", "", "write result lines to this file instead of standard output")
	fs.StringVar(&rf.stats, "stats", "", "write the run's statistics as JSON to this file")
	fs.StringVar(&rf.coverage, "coverage", "", "write the coverage points the run reached, in the clocked model and (with -check) the golden model, as JSON to this file (docs/coverage.md)")
	fs.BoolVar(&rf.check, "check", true, "check every result against the golden model")
	fs.BoolVar(&rf.quiet, "quiet", false, "no progress bar and no summary")
	logLevel := fs.String("log-level", "warn", "log level on standard error: trace, debug, info, warn, error or off")
	rf.wave.register(fs)
	// Model parameters: parse the config file first, then let flags
	// override it, so scan the arguments for -config before registering.
	cfg := config.Default()
	if path := config.FileArg(args); path != "" {
		c, err := config.Load(path)
		if err != nil {
			fmt.Fprintln(stderr, "mkeysim run:", err)
			return exitUsage
		}
		cfg = c
	}
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagStatus(err)
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "mkeysim run: want at most one scenario file")
		return exitUsage
	}
	var sc *scenario.Scenario
	name := "default workload"
	if fs.NArg() == 1 {
		name = fs.Arg(0)
		var err error
		if sc, err = scenario.ReadFile(name); err != nil {
			fmt.Fprintln(stderr, "mkeysim run:", err)
			return exitUsage
		}
	} else {
		sc = tb.Generate(cfg.Workload)
	}
	if err := rf.wave.validate(); err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		return exitUsage
	}

	level := hclog.LevelFromString(*logLevel)
	if level == hclog.NoLevel {
		fmt.Fprintf(stderr, "mkeysim run: -log-level %q: want trace, debug, info, warn, error or off\n", *logLevel)
		return exitUsage
	}
	// Every file the run will write is checked (created beside its final
	// name) before anything runs.
	var out io.Writer = stdout
	var outFile, statsFile, coverFile *atomicFile
	if rf.out != "" {
		f, err := createAtomic(rf.out)
		if err != nil {
			fmt.Fprintf(stderr, "mkeysim run: -out %q: %v\n", rf.out, err)
			return exitUsage
		}
		defer f.abort()
		outFile, out = f, f
	}
	if rf.stats != "" {
		f, err := createAtomic(rf.stats)
		if err != nil {
			fmt.Fprintf(stderr, "mkeysim run: -stats %q: %v\n", rf.stats, err)
			return exitUsage
		}
		defer f.abort()
		statsFile = f
	}
	// Coverage: the clocked model's units and, through the scoreboard,
	// the golden model collect into their own collectors.
	var goldenCov, clockedCov *cover.Collector
	if rf.coverage != "" {
		f, err := createAtomic(rf.coverage)
		if err != nil {
			fmt.Fprintf(stderr, "mkeysim run: -coverage %q: %v\n", rf.coverage, err)
			return exitUsage
		}
		defer f.abort()
		coverFile, clockedCov = f, cover.New()
		if rf.check {
			goldenCov = cover.New()
		}
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "mkeysim", Level: level, Output: stderr, DisableTime: true})
	bench, err := tb.New(cfg.Model, logger)
	if err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		return exitUsage
	}
	bench.Top.SetCoverage(clockedCov)
	if err := bench.Load(sc); err != nil {
		fmt.Fprintf(stderr, "mkeysim run: %s: %v\n", name, err)
		return exitUsage
	}
	var board *tb.Scoreboard
	if rf.check {
		if board, err = tb.NewScoreboard(sc, ref.Config{MaxIndirection: cfg.Model.KLM.MaxIndirection, Coverage: goldenCov}); err != nil {
			fmt.Fprintf(stderr, "mkeysim run: %s: %v\n", name, err)
			return exitUsage
		}
		board.Overlap = cfg.Model.OverlapInvalidate
	}
	tracer, err := rf.wave.start(bench, cfg, name)
	if err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		return 1
	}

	start := time.Now()
	var bar *progressbar.ProgressBar
	progress := func(done int) {
		if rf.quiet {
			return
		}
		if bar == nil && time.Since(start) > time.Second {
			bar = progressbar.NewOptions(len(sc.Ops), progressbar.OptionSetWriter(stderr),
				progressbar.OptionSetDescription("simulating"), progressbar.OptionShowCount(),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		if bar != nil {
			bar.Set(done)
		}
	}
	// Results are written as they leave the model, so a run that stops
	// early keeps every result retired before the stop.
	w := bufio.NewWriterSize(out, 1<<16)
	lw := scenario.LineWriter{W: w}
	retired := 0
	onResult := func(r *scenario.Result) error {
		retired++
		if board != nil {
			if d := board.Check(r); d != "" && board.Mismatches <= 5 {
				fmt.Fprintln(stderr, "mkeysim run: clocked model differs from the golden model:", d)
			}
		}
		return lw.Write(r)
	}
	runErr := bench.Stream(sc.Ops, tb.RunOptions{OnResult: onResult, Progress: progress})
	wall := time.Since(start)
	if bar != nil {
		bar.Finish()
	}
	status := 0
	if err := w.Flush(); err != nil && runErr == nil {
		runErr = err
	}
	if outFile != nil {
		if err := outFile.commit(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := tracer.close(); err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		status = 1
	}
	if runErr != nil {
		fmt.Fprintln(stderr, "mkeysim run:", runErr)
		fmt.Fprintf(stderr, "mkeysim run: stopped at cycle %d; the %d results retired before the stop are written\n", bench.Eng.Now(), retired)
		status = 1
	}
	if board != nil {
		if board.Mismatches > 0 {
			fmt.Fprintf(stderr, "mkeysim run: %d of %d results differ from the golden model\n", board.Mismatches, board.Checked())
			status = 1
		}
	}
	st := bench.Stats(wall)
	st.Seed = cfg.Workload.Seed
	st.Config = cfg.JSON()
	if statsFile != nil {
		data, _ := json.MarshalIndent(st, "", "  ")
		statsFile.Write(append(data, '\n'))
		if err := statsFile.commit(); err != nil {
			fmt.Fprintf(stderr, "mkeysim run: -stats %q: %v\n", rf.stats, err)
			status = 1
		}
	}
	var coverage *cover.Report
	if coverFile != nil {
		if err := bench.Top.CoverCounters(clockedCov); err != nil {
			fmt.Fprintln(stderr, "mkeysim run:", err)
			status = 1
		}
		coverage = cover.NewReport(cfg.Model.KLM.MaxIndirection, goldenCov, clockedCov)
		err := coverage.WriteJSON(coverFile)
		if err == nil {
			err = coverFile.commit()
		}
		if err != nil {
			fmt.Fprintf(stderr, "mkeysim run: -coverage %q: %v\n", rf.coverage, err)
			status = 1
		}
	}
	if !rf.quiet {
		fmt.Fprintf(stderr, "%s: %d operations\n", name, len(sc.Ops))
		st.WriteSummary(stderr)
		if coverage != nil {
			writeCoverageSummary(stderr, coverage)
		}
	}
	return status
}

// writeCoverageSummary prints, for each model of a coverage report, how
// many of its points the run reached.
func writeCoverageSummary(w io.Writer, r *cover.Report) {
	for _, m := range r.Models {
		t := r.Summary[m]
		fmt.Fprintf(w, "coverage, %s model: %d of %d points reached (%d of the %d the test suite must reach)\n", m, t.Reached, t.Points, t.RequiredReached, t.Required)
	}
}

// atomicFile is an output file written under a temporary name beside its
// own and renamed over it by commit, so that nothing is ever left written
// half: creating it checks that the path can be written before a run. A
// path that is not a regular file (/dev/null, /dev/stdout, a FIFO) is
// written directly: renaming a file over it would replace the device.
type atomicFile struct {
	*os.File
	path   string
	direct bool
	done   bool
}

func createAtomic(path string) (*atomicFile, error) {
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory", path)
		}
		if !fi.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, unwrapPath(err)
			}
			return &atomicFile{File: f, path: path, direct: true}, nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("cannot write in %s: %v", filepath.Dir(path), unwrapPath(err))
	}
	return &atomicFile{File: f, path: path}, nil
}

// commit closes the file and puts it in place.
func (f *atomicFile) commit() error {
	f.done = true
	if f.direct {
		return f.File.Close()
	}
	if err := f.File.Close(); err != nil {
		os.Remove(f.File.Name())
		return err
	}
	return os.Rename(f.File.Name(), f.path)
}

// abort removes the file unless it was committed.
func (f *atomicFile) abort() {
	if f.done {
		return
	}
	f.File.Close()
	if !f.direct {
		os.Remove(f.File.Name())
	}
}
