package sweep

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"mkeysim/config"
)

// Exit statuses of Main.
const (
	ExitOK    = 0
	ExitFail  = 1 // a run failed or differed from the golden model
	ExitUsage = 2 // bad input: nothing was written
)

// DefaultMaxPoints bounds a sweep unless -max-points says otherwise.
const DefaultMaxPoints = 1000

// Usage is the text of 'mkeysim sweep -h', before the flags.
const Usage = `usage: mkeysim sweep -vary PARAM=V1,V2,... [-vary PARAM2=...] [flags] -out DIR

Runs the clocked model at every point of a grid of parameters and writes,
in DIR, one row per point as sweep.csv and sweep.json, a Markdown table
sweep.md (also printed on standard output) and PNG plots against the first
-vary parameter: hit_rates.png (MKC, MTT and KLM caches), throughput.png
(translations per cycle) and latency.png (p50 and p99 in cycles). With two
or more -vary, each plot has one line per value of the others.

PARAM is a dotted name of 'mkeysim config --defaults', with or without the
'model.' prefix (mkc_cache.ways, pcie.link_latency_cycles,
workload.hot_keys). Values are a comma-separated list; an item may be a
range: A..B (step 1), A..B+S (step S) or A..B*F (16..256*2 is 16,32,64,128,
256). The grid is the product of every list, the first -vary varying
slowest.

Every point runs the config's [workload] (regenerated from its seed, so all
points see the same operations unless a workload.* parameter is varied) or
the -scenario file, with every other parameter from -config and the
-PARAM flags, as 'mkeysim run' takes them. The default workload is 100 000
accesses, about 0.3-1 s a point; -workload.accesses 20000 makes a quick
sweep. Points run in parallel (-workers); every run is independent, so the
results do not depend on it (wall_seconds aside). Results are checked
against the golden model unless -check=false; a difference is reported and
the exit status is 1.

Bad input (an unknown parameter, a bad value, an empty list, an invalid
point, more than -max-points points, an unwritable -out) ends with exit
status 2 and nothing written.

Examples:
  mkeysim sweep -vary mkc_cache.ways=1,2,4,8,16 -workload.accesses 20000 -out out/ways
  mkeysim sweep -vary mkc_cache.sets=16..512*2 -vary mkc_cache.ways=2,8 -out out/mkc
  mkeysim sweep -vary pcie.link_latency_cycles=25,75,150,300 -vary mtt.walkers=2,8 -out out/pcie
  mkeysim sweep -scenario examples/klm-nested.json -vary klm.cache.sets=1,4,32 -out out/klm
  mkeysim sweep -config my.toml -mkc_cache.mshrs 32 -vary mkc_cache.replacement=lru,random -out out/repl

Flags:
`

// varyFlag collects -vary specs.
type varyFlag []string

func (v *varyFlag) String() string { return strings.Join(*v, " ") }
func (v *varyFlag) Set(s string) error {
	*v = append(*v, s)
	return nil
}

// Main is 'mkeysim sweep': it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	const me = "mkeysim sweep:"
	fail := func(format string, a ...any) int {
		fmt.Fprintln(stderr, me, fmt.Sprintf(format, a...))
		return ExitUsage
	}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, Usage)
		fs.PrintDefaults()
	}
	var (
		varies    varyFlag
		cfgPath   string
		scPath    string
		out       string
		workers   int
		maxPoints int
		check     bool
		quiet     bool
	)
	fs.Var(&varies, "vary", "the values of one parameter, as `PARAM=V1,V2,...` (repeat -vary for a grid)")
	fs.StringVar(&cfgPath, "config", "", "TOML config `FILE` (see 'mkeysim config --defaults')")
	fs.StringVar(&scPath, "scenario", "", "run this scenario `FILE.json` at every point instead of the [workload]")
	fs.StringVar(&out, "out", "", "`DIR` for sweep.csv, sweep.json, sweep.md and the plots (created if missing)")
	fs.IntVar(&workers, "workers", runtime.GOMAXPROCS(0), "points run at once")
	fs.IntVar(&maxPoints, "max-points", DefaultMaxPoints, "refuse sweeps of more points than this")
	fs.BoolVar(&check, "check", true, "check every result against the golden model")
	fs.BoolVar(&quiet, "quiet", false, "no progress and no summary on standard error")
	cfg := config.Default()
	if path := config.FileArg(args); path != "" {
		c, err := config.Load(path)
		if err != nil {
			return fail("-config: %v", err)
		}
		cfg = c
	}
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q (a scenario goes in -scenario FILE.json)", fs.Arg(0))
	}
	if err := cfg.Validate(); err != nil {
		return fail("%v", err)
	}
	if len(varies) == 0 {
		return fail("want at least one -vary PARAM=V1,V2,... (like -vary mkc_cache.ways=1,2,4,8)")
	}
	s := &Sweep{Base: cfg, Check: check}
	seen := map[string]bool{}
	for _, v := range varies {
		a, err := ParseVary(v)
		if err != nil {
			return fail("-vary %q: %v", v, err)
		}
		if seen[a.Name] {
			return fail("-vary %q: %s is already varied by an earlier -vary", v, a.Label())
		}
		seen[a.Name] = true
		if scPath != "" && strings.HasPrefix(a.Name, "workload.") {
			return fail("-vary %q: %s has no effect with -scenario %s", v, a.Label(), scPath)
		}
		s.Axes = append(s.Axes, a)
	}
	if workers < 1 {
		return fail("-workers %d: want at least 1", workers)
	}
	if maxPoints < 1 {
		return fail("-max-points %d: want at least 1", maxPoints)
	}
	if n := Count(s.Axes); n > maxPoints {
		var sizes []string
		for _, a := range s.Axes {
			sizes = append(sizes, fmt.Sprintf("%s: %d", a.Label(), len(a.Values)))
		}
		return fail("-vary: %d points (%s) is more than -max-points %d", n, strings.Join(sizes, " × "), maxPoints)
	}
	if out == "" {
		return fail("want -out DIR for the tables and plots")
	}
	if scPath != "" {
		data, err := os.ReadFile(scPath)
		if err != nil {
			return fail("-scenario %s: %v", scPath, errors.Unwrap(err))
		}
		s.Scenario, s.ScenarioName = data, scPath
	}
	if err := s.Validate(); err != nil {
		if scPath != "" && !strings.HasPrefix(err.Error(), "point ") {
			return fail("-scenario %v", err)
		}
		return fail("-vary: %v", err)
	}
	created, err := prepareDir(out)
	if err != nil {
		return fail("-out %q: %v", out, err)
	}
	cleanup := func() {
		if created {
			os.Remove(out) // only if still empty
		}
	}

	total := Count(s.Axes)
	if !quiet {
		fmt.Fprintf(stderr, "%s %d points, %d at a time; %s\n", me, total, min(workers, total), s.Describe())
	}
	start := time.Now()
	var bar *progressbar.ProgressBar
	progress := func(done, total int) {
		if quiet {
			return
		}
		if bar == nil && time.Since(start) > time.Second && done < total {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
				progressbar.OptionSetDescription("points"), progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		if bar != nil {
			bar.Set(done)
		}
	}
	res, err := s.Run(Options{Workers: workers, Progress: progress})
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		cleanup()
		fmt.Fprintln(stderr, me, err)
		var ie *InputError
		if errors.As(err, &ie) {
			return ExitUsage
		}
		return ExitFail
	}
	files := []File{{"sweep.csv", res.CSV()}, {"sweep.json", res.JSON()}, {"sweep.md", res.Markdown()}}
	plots, note, err := res.Plots()
	if err != nil {
		cleanup()
		fmt.Fprintln(stderr, me, "plots:", err)
		return ExitFail
	}
	files = append(files, plots...)
	if err := writeFiles(out, files, PlotFiles); err != nil {
		cleanup()
		fmt.Fprintln(stderr, me, err)
		return ExitFail
	}
	if _, err := stdout.Write(res.Markdown()); err != nil {
		fmt.Fprintln(stderr, me, err)
		return ExitFail
	}
	if !quiet {
		var names []string
		for _, f := range files {
			names = append(names, f.Name)
		}
		fmt.Fprintf(stderr, "%s %d points in %.1f s; wrote %s in %s\n", me, total, time.Since(start).Seconds(), strings.Join(names, ", "), out)
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
		return ExitFail
	}
	return ExitOK
}

// prepareDir makes dir if it is missing and checks that files can be
// created in it; created says whether it made dir.
func prepareDir(dir string) (created bool, err error) {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return false, fmt.Errorf("not a directory")
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, err
	case err != nil:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, unwrapPath(err)
		}
		created = true
	}
	f, err := os.CreateTemp(dir, ".sweep-probe-*")
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return false, unwrapPath(err)
	}
	f.Close()
	os.Remove(f.Name())
	return created, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// writeFiles writes every file into dir through temporary files renamed
// into place once all are written, so that no file is ever half written;
// stale files of owned that this sweep did not write (plots of an earlier
// sweep) are removed.
func writeFiles(dir string, files []File, owned []string) error {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}()
	for _, f := range files {
		tmp, err := os.CreateTemp(dir, "."+f.Name+".tmp-*")
		if err != nil {
			return unwrapPath(err)
		}
		tmps = append(tmps, tmp.Name())
		_, err = tmp.Write(f.Data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(dir, f.Name), err)
		}
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], filepath.Join(dir, f.Name)); err != nil {
			return unwrapPath(err)
		}
	}
	tmps = nil
	wrote := map[string]bool{}
	for _, f := range files {
		wrote[f.Name] = true
	}
	for _, name := range owned {
		if !wrote[name] {
			os.Remove(filepath.Join(dir, name))
		}
	}
	return nil
}
