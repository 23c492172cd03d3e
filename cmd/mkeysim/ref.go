package main

import (
	"bufio"
	"fmt"
	"math/big"

	"github.com/spf13/cobra"

	"mkeysim/config"
	"mkeysim/cover"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// newRefCmd is 'mkeysim ref'.
func newRefCmd() *cobra.Command {
	var depth int
	var coverPath string
	// The device's capabilities are run's hca_cap parameters: the same
	// flags, read and refused as run reads and refuses them.
	caps := config.Default()
	c := &cobra.Command{
		Use:   "ref SCENARIO.json",
		Short: "Run a scenario through the golden model",
		Long: `Runs the scenario (the format of docs/formats.md) through the golden
untimed model and prints one JSON result line per operation, as it runs.
A query lists at most 4,096 entries of a key's list (offset and count
choose them) and an access at most 65,536 segments, with
entries_left_out or segments_left_out saying how many more there are.
SIGINT (Ctrl-C) or SIGTERM stops it within milliseconds, even inside an
access of billions of segments: the lines of the operations done are
kept, and the exit status is 130 (SIGINT) or 143 (SIGTERM).`,
		Example: `  mkeysim ref examples/mtt-page-split.json
  mkeysim ref examples/klm-nested.json --klm.max-indirection 2
  mkeysim ref examples/ats-refusals.json --hca-cap.ats
  mkeysim ref examples/umr-fence.json --hca-cap.umr-fence none
  mkeysim ref examples/klm-nested.json --coverage out/coverage.json`,
		Args: nArgs(1, 1, "exactly one scenario file"),
		RunE: func(c *cobra.Command, args []string) error {
			// The flags of run it takes are checked as run checks them
			// (host.page_policy bogus is an error, not eager).
			if err := caps.Validate(); err != nil {
				fmt.Fprintf(c.ErrOrStderr(), "mkeysim ref: %v\n", err)
				return status(exitUsage)
			}
			cfg := refConfig(caps.Model)
			cfg.MaxIndirection = depth
			return refMain(c, cfg, coverPath, args[0])
		},
	}
	// The depth limit is run's klm.max_indirection: the same flag, range
	// and meaning (one declaration).
	def := config.Default()
	p, _ := def.Param("klm.max_indirection")
	f := c.Flags()
	f.IntVar(&depth, config.FlagName(p.Name), ref.DefaultConfig().MaxIndirection, p.Help)
	f.IntVar(&depth, "max-indirection", ref.DefaultConfig().MaxIndirection, "the old name of --klm.max-indirection")
	f.MarkHidden("max-indirection")
	p, _ = caps.Param("hca_cap.ats")
	f.VarPF(p, config.FlagName(p.Name), "", p.Help).NoOptDefVal = "true"
	p, _ = caps.Param("hca_cap.umr_fence")
	f.Var(p, config.FlagName(p.Name), p.Help)
	// The host's side of the firmware's pages: the same flags as run's
	// (those of the timing only accepted, for the same command lines),
	// and where the MKC table lies (a page given by list must lie outside
	// it).
	for _, k := range []string{"host.page_policy", "host.max_pages", "host.icm_page_order", "host.icm_page_seed", "host.page_event_latency_cycles", "mkc_cache.icm_base"} {
		p, _ = caps.Param(k)
		f.Var(p, config.FlagName(p.Name), p.Help)
	}
	f.Bool("quiet", false, "accepted for the same command lines as run and sweep: ref shows no progress bar")
	f.StringVar(&coverPath, "coverage", "", "write the coverage points the golden model reached as JSON to `FILE` (docs/coverage.md)")
	return c
}

// refConfig is the golden model's configuration for the clocked model's
// m: the parameters its results depend on (run --check, ref, and the
// tests that compare the two).
func refConfig(m rtl.Config) ref.Config {
	return ref.Config{MaxIndirection: m.KLM.MaxIndirection, ATS: m.HCACap.ATS, UMRFence: m.HCACap.UMRFenceCap(),
		Pages: ref.PagesConfig{Capped: m.Host.PagePolicy == rtl.PolicyCapped, MaxPages: m.Host.MaxPages, ICMBase: m.MKCCache.ICMBase}}
}

func refMain(c *cobra.Command, cfg ref.Config, coverPath, file string) error {
	depth := cfg.MaxIndirection
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	fail := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "mkeysim ref: "+format+"\n", a...)
		return status(exitUsage)
	}
	def := config.Default()
	p, _ := def.Param("klm.max_indirection")
	if d := big.NewInt(int64(depth)); !p.Range.ContainsInt(d) {
		return fail("--klm.max-indirection = %s: want %s", p.Range.FormatInt(d), p.Range)
	}
	sc, err := scenario.ReadFile(file)
	if err != nil {
		return fail("%v", err)
	}
	// The coverage file is checked (created beside its name) before the
	// run.
	var cov *cover.Collector
	var made madeDirs
	defer made.removeEmpty()
	if err := made.parent("--coverage", coverPath); err != nil {
		return fail("%v", err)
	}
	coverFile, err := createOutput("--coverage", coverPath)
	if err != nil {
		fmt.Fprintln(stderr, "mkeysim ref:", err)
		return fileStatus(err)
	}
	if coverFile != nil {
		defer coverFile.Abort()
		cov = cover.New()
	}
	cfg.Coverage, cfg.Stop = cov, c.Context().Done()
	m := ref.New(cfg)
	if err := m.Load(sc); err != nil {
		return fail("%s: %v", file, err)
	}
	// Each line is written as its operation runs, so memory holds one
	// result, not the run's.
	// A write that fails on standard output ends the command: quietly
	// when its reader has gone (| head), with the reason otherwise; the
	// coverage file is then not written.
	w := bufio.NewWriter(stdoutWriter{stdout})
	lw := scenario.LineWriter{W: w}
	for i := range sc.Ops {
		res := m.Apply(i, &sc.Ops[i])
		// A signal during the operation may have cut its translation
		// short (ref.Config.Stop): its line is not written.
		if err := c.Context().Err(); err != nil {
			if err := w.Flush(); err != nil {
				return stdoutStatus(stderr, "ref", err)
			}
			fmt.Fprintf(stderr, "mkeysim ref: interrupted after %d of %d operations; their %d lines are written to standard output\n", i, len(sc.Ops), i)
			return interruptedStatus(c.Context())
		}
		if err := lw.Write(&res); err != nil {
			return stdoutStatus(stderr, "ref", err)
		}
	}
	if err := w.Flush(); err != nil {
		return stdoutStatus(stderr, "ref", err)
	}
	if coverFile != nil {
		cover.NewReport(depth, cov, nil).WriteJSON(coverFile)
		if err := commitOutput("--coverage", coverFile); err != nil {
			fmt.Fprintln(stderr, "mkeysim ref:", err)
			return fileStatus(err)
		}
	}
	return nil
}
