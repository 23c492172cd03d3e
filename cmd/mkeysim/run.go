package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mkeysim/config"
	"mkeysim/cover"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/tb/score"
	"mkeysim/tb/stimulus"
	"mkeysim/tb/wire"
)

// runLong is 'mkeysim run --help' before the flags.
const runLong = `Runs the clocked model on a scenario (the format of docs/formats.md), or
with no scenario on the constrained-random workload of the configuration
(the workload.* parameters), and prints one result line per operation with
the cycle it completed at, as it completes. Every result is checked against
the golden model (--check=false turns that off); a difference is reported
and the exit status is 1. A summary goes to standard error (every figure is
defined in docs/counters.md); --stats writes it as JSON, --coverage the
coverage points reached, --vcd a waveform for GTKWave.

--front says how the operations reach the model: directly (the default),
as RoCEv2 packets from the wire for the remote reads, writes, atomics and
SENDs with invalidate (wire; docs/wire.md), or as mlx5 WQEs the host
posts in send queues and the device fetches over PCIe, with CQEs written
back, for the local accesses, UMRs and local invalidations (host;
docs/host.md). --pcap-out writes the wire's packets for tshark and
'mkeysim replay', --tlp-out every TLP at the device's PCIe port.

Every parameter of 'mkeysim config --defaults' is a flag, named by its key
with - for _ (--mkc-cache.ways 8); --config FILE sets them from a file and
the flags given win over it. --clock-ps sets the clock period, and so the
waveform's time scale: --clock-ps 1000 makes the time in ns the cycle
number.

A generated workload is made as the model takes it, through every front,
so a run's memory does not grow with --workload.accesses ('mkeysim
replay' reads its capture the same way). A progress bar of the accesses
done, with rate and time left, shows on a terminal (--progress shows it
anywhere, --quiet never); --no-summary drops the summary. SIGINT
(Ctrl-C) or SIGTERM stops the run at a cycle boundary: the results retired
so far, the statistics and the waveform up to that cycle are kept, and the
exit status is 130 (SIGINT) or 143 (SIGTERM); a second signal quits at
once. A query lists at most 4,096 entries and an access at most 65,536
segments (docs/formats.md), so no result line is longer than a few MB.`

const runExample = `  mkeysim run examples/klm-nested.json
  mkeysim run --out out/run.jsonl --stats out/stats.json --coverage out/coverage.json
  mkeysim run examples/klm-nested.json --vcd out/klm.vcd --clock-ps 1000
  mkeysim run examples/klm-nested.json --tlp-out out/klm.tlp.pcap
  mkeysim run examples/memory-window-type2.json --front wire --pcap-out out/mw.pcap
  mkeysim run examples/umr-mode-change.json --front host --vcd out/host.vcd
  mkeysim run examples/ats-refusals.json --hca-cap.ats
  mkeysim run --mkc-cache.ways 8 --pcie.link-latency-cycles 200 --workload.accesses 10000 --no-summary`

// runFlags are the flags of run that are not model parameters.
type runFlags struct {
	config, out, stats, coverage string
	check, quiet, noSummary      bool
	progress                     bool
	logLevel                     string
	wave                         waveFlags
	tlpOut, pcapOut              string
	front                        string
	// capture and setup are replay's: the capture whose requests run, on
	// the QPs and MKeys of the setup scenario.
	capture, setup string
}

// newRunCmd is 'mkeysim run'.
func newRunCmd() *cobra.Command {
	var rf runFlags
	cfg := config.Default()
	c := &cobra.Command{
		Use:     "run [SCENARIO.json]",
		Short:   "Run the clocked model on a scenario or the default workload",
		Long:    runLong,
		Example: runExample,
		Args:    nArgs(0, 1, "at most one scenario file"),
		RunE: func(c *cobra.Command, args []string) error {
			return runMain(c, &rf, cfg, args)
		},
	}
	rf.register(c.Flags(), &cfg)
	c.Flags().StringVar(&rf.front, "front", "direct", "how the operations reach the model: `direct` (handed to its input), wire (the remote reads, writes, atomics and SENDs with invalidate as RoCEv2 packets the responder parses; docs/wire.md) or host (local accesses, UMRs and local invalidations as WQEs the host posts and the device fetches over PCIe; docs/host.md); the rest directly")
	return c
}

// register adds the flags that run and replay share, and cfg's model
// parameters, to f.
func (rf *runFlags) register(f *pflag.FlagSet, cfg *config.Config) {
	f.StringVar(&rf.config, "config", "", "TOML configuration `FILE` (see 'mkeysim config --defaults'); flags given win over it")
	f.StringVar(&rf.out, "out", "", "write the result lines to `FILE` instead of standard output (-: standard output)")
	f.StringVar(&rf.stats, "stats", "", "write the run's statistics as JSON to `FILE` (docs/counters.md)")
	f.StringVar(&rf.coverage, "coverage", "", "write the coverage points the run reached, in the clocked model and (with --check) the golden model, as JSON to `FILE` (docs/coverage.md)")
	f.BoolVar(&rf.check, "check", true, "check every result against the golden model")
	f.BoolVar(&rf.quiet, "quiet", false, "no progress bar, even on a terminal")
	f.BoolVar(&rf.progress, "progress", false, "show the progress bar even when standard error is not a terminal")
	f.BoolVar(&rf.noSummary, "no-summary", false, "no summary on standard error")
	f.StringVar(&rf.logLevel, "log-level", "warn", "log `LEVEL` on standard error: trace, debug, info, warn, error or off")
	f.StringVar(&rf.pcapOut, "pcap-out", "", "with --front wire: write the run's RoCEv2 packets, requests and answers, to `FILE` (pcap, Ethernet; tshark and Wireshark decode it; mkeysim replay runs it again)")
	f.StringVar(&rf.tlpOut, "tlp-out", "", "write the run's PCIe traffic, every TLP at the device's port, to `FILE` as a pcap (link type USER0; tshark -X lua_script:scripts/tlp.lua -r FILE decodes it)")
	rf.wave.register(f)
	cfg.RegisterFlags(f)
}

// runMain is 'mkeysim run' once its flags are parsed: cfg holds the flags'
// model parameters.
func runMain(c *cobra.Command, rf *runFlags, cfg config.Config, args []string) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	fail := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "mkeysim "+c.Name()+": "+format+"\n", a...)
		return status(exitUsage)
	}
	cfg, err := effectiveConfig(c.Flags(), rf.config, cfg)
	if err != nil {
		return fail("%v", err)
	}
	var sc *scenario.Scenario
	name := "default workload"
	if k := cfg.Workload.Kind; k != stimulus.KindMixed && k != "" {
		name = k + " workload"
		if s := cfg.Workload.TraceSummary(); s != "" {
			name = s // the file, its length, and whether it wraps around
		}
	}
	front, err := tb.ParseFront(rf.front)
	if err != nil {
		return fail("--front: %v", err)
	}
	if rf.pcapOut != "" && front != tb.FrontWire && rf.capture == "" {
		return fail("--pcap-out %q: only --front wire has packets to write (add --front wire)", rf.pcapOut)
	}
	var replay *tb.Replay
	var feed *stimulus.Feed // the operations, made as the run goes for a generated workload
	accesses := 0           // how many of them are accesses
	switch {
	case rf.capture != "":
		name = rf.capture
		if sc, err = scenario.ReadFile(rf.setup); err != nil {
			return fail("%v", err)
		}
		// Read once to check it, and again as the model takes its
		// requests: a capture of any size runs in the memory of a few
		// thousand messages.
		open := func() (tb.Packets, error) { return wire.OpenPcap(rf.capture) }
		if replay, err = tb.NewReplay(sc.Ops, open); err != nil {
			var pcapErr *wire.PcapError
			var pathErr *fs.PathError
			if errors.As(err, &pcapErr) || errors.As(err, &pathErr) { // they name the file
				return fail("%v", err)
			}
			return fail("%s: %v", rf.capture, err)
		}
		feed, accesses = replay.Feed(), replay.Accesses
	case len(args) == 1:
		name = args[0]
		if sc, err = scenario.ReadFile(name); err != nil {
			return fail("%v", err)
		}
	default:
		// Made as the model takes them: a run of any length holds a few
		// thousand operations.
		g := stimulus.NewGenerator(cfg.Workload)
		sc, feed, accesses = g.Setup(), g.Feed(), g.Accesses()
	}
	if feed == nil {
		feed, accesses = stimulus.FeedOf(sc.Ops, 0), stimulus.Accesses(sc.Ops)
	}
	// Output directories are made before the paths are checked, and
	// removed again if the run leaves them empty.
	var made madeDirs
	defer made.removeEmpty()
	for _, o := range [][2]string{{"--out", rf.out}, {"--stats", rf.stats}, {"--coverage", rf.coverage}, {"--vcd", rf.wave.file}, {"--tlp-out", rf.tlpOut}, {"--pcap-out", rf.pcapOut}} {
		if err := made.parent(o[0], o[1]); err != nil {
			return fail("%v", err)
		}
	}
	if err := rf.wave.validate(); err != nil {
		return fail("%v", err)
	}
	level := hclog.LevelFromString(rf.logLevel)
	if level == hclog.NoLevel {
		return fail("--log-level %q: want trace, debug, info, warn, error or off", rf.logLevel)
	}
	// Every file the run will write is checked (created beside its final
	// name) before anything runs.
	failFile := func(err error) error {
		fmt.Fprintf(stderr, "mkeysim %s: %v\n", c.Name(), err)
		return fileStatus(err)
	}
	var out io.Writer = stdoutWriter{stdout}
	outFile, err := createOutput("--out", rf.out)
	if err != nil {
		return failFile(err)
	}
	if outFile != nil {
		defer outFile.Abort()
		out = outFile
	}
	statsFile, err := createOutput("--stats", rf.stats)
	if err != nil {
		return failFile(err)
	}
	if statsFile != nil {
		defer statsFile.Abort()
	}
	// Coverage: the clocked model's units and, through the scoreboard,
	// the golden model collect into their own collectors.
	var goldenCov, clockedCov *cover.Collector
	coverFile, err := createOutput("--coverage", rf.coverage)
	if err != nil {
		return failFile(err)
	}
	if coverFile != nil {
		defer coverFile.Abort()
		clockedCov = cover.New()
		if rf.check {
			goldenCov = cover.New()
		}
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "mkeysim", Level: level, Output: stderr, DisableTime: true})
	if m, what := tb.ConfigFor(cfg.Model, sc); what != "" {
		cfg.Model = m
		logger.Info(what)
	}
	bench, err := tb.New(cfg.Model, logger)
	if err != nil {
		return fail("%v", err)
	}
	bench.Top.SetCoverage(clockedCov)
	bench.Warmup(cfg.Workload.WarmupAccesses)
	bench.InterArrival(cfg.Workload.InterArrivalCycles)
	bench.PostAhead(cfg.Workload.PostAhead)
	if err := bench.Load(sc); err != nil {
		return fail("%s: %v", name, err)
	}
	var board *score.Board
	if rf.check {
		rc := refConfig(cfg.Model)
		rc.Coverage, rc.Stop = goldenCov, c.Context().Done()
		if board, err = score.NewBoard(sc, rc); err != nil {
			return fail("%s: %v", name, err)
		}
		board.Follow(feed)
		board.Overlap = cfg.Model.OverlapInvalidate
	}
	tlps, err := startTLPCapture(rf.tlpOut, bench, cfg.Model.ClockPS)
	if err != nil {
		return failFile(err)
	}
	defer tlps.abort()
	packets, err := startPacketCapture(rf.pcapOut, cfg.Model.ClockPS)
	if err != nil {
		return failFile(err)
	}
	defer packets.abort()
	tracer, err := rf.wave.start(bench, cfg, name)
	if err != nil {
		return failFile(err)
	}
	defer tracer.abort()

	start, making := time.Now(), feed.Making()
	bar := newProgress(stderr, accesses, "simulating", rf.quiet, rf.progress)
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
		// A waveform or a capture that can no longer be written (a
		// full disk) stops the run: simulating on would only make a
		// file that is then removed. Each file says why as it closes.
		if retired%1024 == 0 && (tracer.failed() || tlps.failed() || packets.failed()) {
			return errOutputFailed
		}
		return lw.Write(r)
	}
	opt := tb.RunOptions{OnResult: onResult, Progress: func(int) { bar.set(bench.Accesses()) }, Stop: c.Context().Done()}
	var runErr error
	var wireSt *tb.WireStats
	var hostSt *tb.HostStats
	switch {
	case replay != nil:
		st, err := bench.StreamReplay(replay, opt, packets.options())
		if errors.Is(err, tb.ErrCaptureChanged) {
			err = fmt.Errorf("%s: %w", rf.capture, err)
		}
		runErr, wireSt = err, &st
	case front == tb.FrontWire:
		st, err := bench.StreamWireFeed(feed, opt, packets.options())
		runErr, wireSt = err, &st
	case front == tb.FrontHost:
		st, err := bench.StreamHostFeed(feed, opt)
		runErr, hostSt = err, &st
	default:
		runErr = bench.StreamFeed(feed, opt)
	}
	wall := time.Since(start) - (feed.Making() - making)
	bar.finish()
	code := exitOK
	if err := w.Flush(); err != nil && runErr == nil {
		runErr = err
	}
	// A reader of standard output that went away (mkeysim run | head)
	// ends the run quietly, and nothing it was writing is kept: the
	// deferred aborts remove every file.
	if pipeClosed(runErr) {
		return status(exitPipe)
	}
	if outFile != nil && outFile.Err() != nil && errors.Is(runErr, outFile.Err()) {
		runErr = flagFile{"--out", runErr}
	}
	// kept is what the files on disk hold, said only once each is in
	// place: the message of an interrupted or failed run is then true
	// byte for byte.
	var kept []string
	keep := func(what string, err error) {
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "mkeysim %s: %v\n", c.Name(), err)
			code = max(code, exitFail)
		case what != "":
			kept = append(kept, what)
		}
	}
	interrupted := errors.Is(runErr, tb.ErrStopped)
	resultsOK := runErr == nil || interrupted
	switch {
	case outFile != nil && resultsOK:
		keep(fmt.Sprintf("%d results in %s", retired, rf.out), commitOutput("--out", outFile))
	case outFile != nil:
		outFile.Abort() // a failed run's results are not kept
	case resultsOK:
		kept = append(kept, fmt.Sprintf("%d results on standard output", retired))
	}
	keep(tracer.close())
	keep(packets.close())
	keep(tlps.close())
	switch {
	case interrupted:
		code = max(code, int(interruptedStatus(c.Context())))
	case errors.Is(runErr, errOutputFailed):
		code = max(code, exitFail) // the file said why as it closed
	case runErr != nil:
		fmt.Fprintln(stderr, "mkeysim run:", runErr)
		code = max(code, exitFail)
	}
	if board != nil && board.Mismatches > 0 {
		fmt.Fprintf(stderr, "mkeysim run: %d of %d results differ from the golden model\n", board.Mismatches, board.Checked())
		code = max(code, exitFail)
	}
	st := bench.Stats(wall)
	st.Seed = cfg.Workload.Seed
	st.Config = cfg.JSON()
	if statsFile != nil {
		data, _ := json.MarshalIndent(st, "", "  ")
		statsFile.Write(append(data, '\n'))
		keep("the statistics "+rf.stats, commitOutput("--stats", statsFile))
	}
	var coverage *cover.Report
	if coverFile != nil {
		if err := bench.Top.CoverCounters(clockedCov); err != nil {
			fmt.Fprintln(stderr, "mkeysim run:", err)
			code = max(code, exitFail)
		}
		coverage = cover.NewReport(cfg.Model.KLM.MaxIndirection, goldenCov, clockedCov)
		coverage.WriteJSON(coverFile)
		keep("the coverage "+rf.coverage, commitOutput("--coverage", coverFile))
	}
	if !rf.noSummary {
		fmt.Fprintf(stderr, "%s: %d operations", name, feed.Made())
		if n, cycles, ok := bench.Warmed(); ok {
			fmt.Fprintf(stderr, "; measured after a warm-up of %d accesses (%d cycles)", n, cycles)
		} else if n > 0 {
			fmt.Fprintf(stderr, "; the warm-up of %d accesses did not end: the whole run is measured", n)
		}
		fmt.Fprintln(stderr)
		st.WriteSummary(stderr)
		if hostSt != nil {
			fmt.Fprintf(stderr, "host: wqes %d, nops %d, doorbells %d, cqes %d, error_cqes %d\n", hostSt.WQEs, hostSt.NOPs, hostSt.Doorbells, hostSt.CQEs, hostSt.ErrorCQEs)
		}
		if wireSt != nil {
			fmt.Fprintf(stderr, "wire: messages %d, request_packets %d, answer_packets %d, skipped_packets %d, recv_cqes %d, error_cqes %d\n",
				wireSt.Messages, wireSt.Requests, wireSt.Answers, wireSt.Skipped, wireSt.RecvCQEs, wireSt.ErrorCQEs)
		}
		if coverage != nil {
			writeCoverageSummary(stderr, coverage)
		}
	}
	if interrupted || runErr != nil {
		what := "nothing"
		if len(kept) > 0 {
			what = strings.Join(kept, ", ")
		}
		how := "interrupted"
		if !interrupted {
			how = "stopped"
		}
		fmt.Fprintf(stderr, "mkeysim %s: %s at cycle %d; kept %s\n", c.Name(), how, bench.Eng.Now(), what)
	}
	if code != exitOK {
		return status(code)
	}
	return nil
}

// writeCoverageSummary prints, for each model of a coverage report, how
// many of its points the run reached.
func writeCoverageSummary(w io.Writer, r *cover.Report) {
	for _, m := range r.Models {
		t := r.Summary[m]
		fmt.Fprintf(w, "coverage, %s model: %d of %d points reached (%d of the %d the test suite must reach)\n", m, t.Reached, t.Points, t.RequiredReached, t.Required)
	}
}

// errOutputFailed stops a run whose waveform or capture could not be
// written.
var errOutputFailed = errors.New("an output file could not be written")
