package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/schollz/progressbar/v3"

	"mkeysim/config"
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
  mkeysim run -out out/run.jsonl -stats out/stats.json
  mkeysim run -config my.toml -mkc_cache.ways 8 -pcie.latency 200 -workload.accesses 10000

Flags:
`

// runFlags are the flags of run that are not model parameters.
type runFlags struct {
	config, out, stats string
	check, quiet       bool
	wave               waveFlags
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", runUsage, stderr)
	var rf runFlags
	fs.StringVar(&rf.config, "config", "", "TOML config file (see 'mkeysim config --defaults')")
	fs.StringVar(&rf.out, "out", "", "write result lines to this file instead of standard output")
	fs.StringVar(&rf.stats, "stats", "", "write the run's statistics as JSON to this file")
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
	logger := hclog.New(&hclog.LoggerOptions{Name: "mkeysim", Level: level, Output: stderr, DisableTime: true})
	bench, err := tb.New(cfg.Model, logger)
	if err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		return exitUsage
	}
	if err := bench.Load(sc); err != nil {
		fmt.Fprintf(stderr, "mkeysim run: %s: %v\n", name, err)
		return exitUsage
	}
	var want []scenario.Result
	if rf.check {
		if want, err = ref.Run(sc, ref.Config{MaxIndirection: cfg.Model.KLM.MaxIndirection}); err != nil {
			fmt.Fprintf(stderr, "mkeysim run: %s: %v\n", name, err)
			return exitUsage
		}
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
	got, runErr := bench.Run(sc.Ops, progress)
	wall := time.Since(start)
	if bar != nil {
		bar.Finish()
	}
	if err := tracer.close(); err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		return 1
	}
	if runErr != nil {
		fmt.Fprintln(stderr, "mkeysim run:", runErr)
		return 1
	}
	status := 0
	if rf.check {
		bad := 0
		for i := range want {
			if d := scenario.Diff(&got[i], &want[i]); d != "" {
				if bad < 5 {
					fmt.Fprintln(stderr, "mkeysim run: clocked model differs from the golden model:", d)
				}
				bad++
			}
		}
		if bad > 0 {
			fmt.Fprintf(stderr, "mkeysim run: %d of %d results differ from the golden model\n", bad, len(want))
			status = 1
		}
	}
	if err := writeResultsTo(rf.out, stdout, got); err != nil {
		fmt.Fprintln(stderr, "mkeysim run:", err)
		return 1
	}
	st := bench.Stats(wall)
	st.Seed = cfg.Workload.Seed
	st.Config = cfg.JSON()
	if rf.stats != "" {
		data, _ := json.MarshalIndent(st, "", "  ")
		if err := writeFileAtomic(rf.stats, append(data, '\n')); err != nil {
			fmt.Fprintln(stderr, "mkeysim run:", err)
			return 1
		}
	}
	if !rf.quiet {
		fmt.Fprintf(stderr, "%s: %d operations\n", name, len(sc.Ops))
		st.WriteSummary(stderr)
	}
	return status
}

// writeResultsTo writes result lines to path (atomically), or to stdout.
func writeResultsTo(path string, stdout io.Writer, results []scenario.Result) error {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	var line []byte
	for i := range results {
		line = results[i].AppendJSON(line[:0])
		line = append(line, '\n')
		w.Write(line)
	}
	w.Flush()
	if path == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic writes data to path through a temporary file, so that
// nothing is ever written half.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
