// Command mkeysim runs the models of the HCA memory-key translation path.
//
//	mkeysim run [SCENARIO.json]    clocked model (default workload without a file)
//	mkeysim replay CAP.pcap --scenario S.json   a RoCEv2 capture through the responder
//	mkeysim ref SCENARIO.json      golden model: one result line per operation
//	mkeysim sweep --vary P=V1,V2   the clocked model over a grid of parameters
//	mkeysim merge OUT SLICE...     join the slices of a sweep run with --shard
//	mkeysim plot DIR --x P --y C   redraw a sweep's figure, with measured data
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
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"mkeysim/config"
	"mkeysim/version"
)

// Exit statuses, the same for every command.
const (
	exitOK          = 0
	exitFail        = 1   // results differ, or a run or a write failed
	exitUsage       = 2   // bad input: arguments, a scenario, a config
	exitInterrupted = 130 // SIGINT (128 + 2); SIGTERM exits 143 (interruptedStatus)
	// exitPipe (141, files.go) ends a command whose standard output was
	// closed by its reader.
)

func main() {
	ctx := stopOnSignal(os.Stderr)
	os.Exit(execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
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
differ or a run or a write failed, 2 bad input (an output path that
cannot be used too), 130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM
(a second signal quits at once), 141 when the reader of standard output
went away. Every file is written whole or not at all: under a temporary
name, every write, sync and close checked, then renamed into place.`,
		Example: `  mkeysim run                                  # the default workload, checked
  mkeysim ref examples/klm-nested.json         # the golden model on a scenario
  mkeysim run examples/klm-nested.json --vcd out/klm.vcd
  mkeysim run --help`,
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
	root.AddCommand(newRunCmd(), newReplayCmd(), newRefCmd(), newSweepCmd(), newMergeCmd(), newPlotCmd(), newVectorsCmd(), newConfigCmd(),
		newMKCCmd(), newCompareCmd(), newVersionCmd())
	// cobra's own help and completion commands, made now so that their
	// help can show examples too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  mkeysim help run"
			c.Run, c.RunE = nil, helpTopic
		case "completion":
			c.Example = completionExample
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(_ *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usagef("unknown shell %q: want bash, zsh, fish or powershell", args[0])
				}
				return usagef("want a shell: bash, zsh, fish or powershell")
			}
			for _, sh := range c.Commands() {
				sh.Example = shellExample[sh.Name()]
				sh.RunE = completionScript(sh.Name())
			}
		}
	}
	addCompletions(root)
	return root
}

// helpTopic is 'mkeysim help COMMAND': cobra's, except that an unknown
// topic is bad input (exit 2), not a usage message and success.
func helpTopic(c *cobra.Command, args []string) error {
	target, rest, err := c.Root().Find(args)
	if err != nil || target == nil || len(rest) > 0 {
		return usagef("unknown help topic %q; the commands are listed by 'mkeysim --help'", strings.Join(args, " "))
	}
	target.InitDefaultHelpFlag()
	target.InitDefaultVersionFlag()
	return target.Help()
}

// completionScript writes the completion script of a shell, with each
// choice's description, where the command's output goes (cobra's own
// writes where the output went when the command was made).
func completionScript(shell string) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, _ []string) error {
		root, out := c.Root(), c.OutOrStdout()
		switch shell {
		case "bash":
			return root.GenBashCompletionV2(out, true)
		case "zsh":
			return root.GenZshCompletion(out)
		case "fish":
			return root.GenFishCompletion(out, true)
		default:
			return root.GenPowerShellCompletionWithDesc(out)
		}
	}
}

// completionExample shows how each shell loads the completion script.
const completionExample = `  source <(mkeysim completion bash)             # bash, this session
  mkeysim completion zsh > _mkeysim             # zsh: a file in a directory of $fpath
  mkeysim completion fish > mkeysim.fish        # fish: in ~/.config/fish/completions/`

// shellExample is the example of each 'mkeysim completion SHELL'.
var shellExample = map[string]string{
	"bash":       "  source <(mkeysim completion bash)",
	"zsh":        "  mkeysim completion zsh > _mkeysim             # a file in a directory of $fpath",
	"fish":       "  mkeysim completion fish > mkeysim.fish        # in ~/.config/fish/completions/",
	"powershell": "  mkeysim completion powershell > mkeysim.ps1   # . ./mkeysim.ps1 in your profile",
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
			if _, err := fmt.Fprintln(c.OutOrStdout(), version.Read()); err != nil {
				fmt.Fprintln(c.ErrOrStderr(), "mkeysim version:", err)
				return status(exitFail)
			}
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
// name, and the only short ones are -h, -v and plot's -x and -y. Negative numbers, "-" and
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
