// Command mkeysim runs the models of the HCA memory-key translation path.
//
//	mkeysim run [SCENARIO.json]    clocked model (default workload without a file)
//	mkeysim ref SCENARIO.json      golden model: one result line per operation
//	mkeysim sweep --vary P=V1,V2   the clocked model over a grid of parameters
//	mkeysim vectors --unit U       golden vectors for a Verilog DUT
//	mkeysim config --defaults      every parameter with its default
//	mkeysim mkc pack|unpack        MKey Context fields <-> 128 hex digits
//	mkeysim compare GOT EXPECTED   two files of result lines, field by field
//	mkeysim version                the build: module version and commit
//	mkeysim completion bash|zsh|fish
//
// Run "mkeysim COMMAND --help" for a command's flags and examples.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"mkeysim/config"
	"mkeysim/version"
)

// Exit statuses, the same for every command.
const (
	exitOK          = 0
	exitFail        = 1   // results differ, or a run or a write failed
	exitUsage       = 2   // bad input: arguments, a scenario, a config
	exitInterrupted = 130 // SIGINT or SIGTERM (128 + 2)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command line args without signals and without standard
// input (for tests).
func run(args []string, stdout, stderr io.Writer) int {
	return execute(context.Background(), args, strings.NewReader(""), stdout, stderr)
}

// status ends a command with an exit status; the command has said why on
// standard error.
type status int

func (s status) Error() string { return "exit status " + strconv.Itoa(int(s)) }

// usageError is bad input found by a command itself, not yet said.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// usagef makes a usageError.
func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// execute runs one command line and returns its exit status: it prints
// bad input (unknown flags, missing arguments) with a pointer to --help
// on standard error, and help, versions and completions on standard
// output.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(longFlags(args))
	c, err := root.ExecuteContextC(ctx)
	var st status
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return int(st)
	}
	// Bad input that cobra or the command found: name the command.
	name := "mkeysim"
	if c != nil {
		name = c.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for the flags and examples.\n", name, err, name)
	return exitUsage
}

// newRoot makes the command tree.
func newRoot() *cobra.Command {
	v := version.Read()
	root := &cobra.Command{
		Use:   "mkeysim",
		Short: "A cycle-level model of how an RDMA NIC translates memory keys",
		Long: `mkeysim models how an RDMA NIC (an InfiniBand HCA, ConnectX-style) turns a
memory key and an address into DMA addresses: a golden untimed model (ref)
and a clocked, RTL-style one (run) that is checked against it, with
waveforms for GTKWave, golden vectors for Verilog testbenches and sweeps
for architects.

Flags are GNU-style (--out FILE, --out=FILE), before or after the
arguments; every model parameter of 'mkeysim config --defaults' is a flag
named by its key, dotted, with - for _ (mkc_cache.ways is
--mkc-cache.ways; either spelling works). Exit status: 0 success, 1 results
differ or a run failed, 2 bad input, 130 interrupted.`,
		Version:       v.String(),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(c *cobra.Command, _ []string) error {
			return c.Help()
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetGlobalNormalizationFunc(config.NormalizeFlag)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.CompletionOptions.HiddenDefaultCmd = false
	root.AddCommand(newRunCmd(), newRefCmd(), newSweepCmd(), newVectorsCmd(), newConfigCmd(),
		newMKCCmd(), newCompareCmd(), newVersionCmd())
	return root
}

// newVersionCmd is 'mkeysim version'.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the build: module version, commit, and Go version",
		Long: `Prints the module version, the commit the binary was built from (with
-dirty for uncommitted changes) and its time, and the Go version, as the Go
toolchain recorded them: 'go build' in a checkout and 'go install' both
report them. 'mkeysim --version' prints the same line.`,
		Example: "  mkeysim version",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintln(c.OutOrStdout(), version.Read())
			return nil
		},
	}
}

// noArgs refuses positional arguments, naming the first.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// nArgs wants between lo and hi positional arguments, what says what.
func nArgs(lo, hi int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usagef("want %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}

// longFlags rewrites single-dash long flags (-out FILE, -mkc_cache.ways 8:
// the form before GNU-style flags) as double-dash ones, which is how the
// old spelling stays a hidden alias: every flag of mkeysim has a long
// name, and the only short ones are -h and -v. Negative numbers, "-" and
// everything after "--" are left alone.
func longFlags(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if _, err := strconv.ParseFloat(name, 64); err == nil {
			continue
		}
		if _, err := strconv.ParseInt(name, 0, 64); err == nil {
			continue
		}
		out[i] = "-" + a
	}
	return out
}
