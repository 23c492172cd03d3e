// Command mkeysim runs the models of the HCA memory-key translation path.
//
//	mkeysim run [SCENARIO.json]    clocked model (default workload without a file)
//	mkeysim ref SCENARIO.json      golden model: one result line per operation
//	mkeysim config --defaults      every parameter with its default
//	mkeysim mkc pack|unpack        MKey Context fields <-> 128 hex digits
//
// Run "mkeysim COMMAND -h" for a command's flags and an example.
package main

import (
	"fmt"
	"io"
	"os"
)

// exitUsage is the status of bad input: bad arguments, a bad scenario, a
// bad config.
const exitUsage = 2

// command is one subcommand: its name, a one-line summary and its body.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run the clocked model on a scenario or the default workload", cmdRun},
		{"ref", "run a scenario through the golden model", cmdRef},
		{"config", "print the configuration file with every default", cmdConfig},
		{"compare", "compare two files of result lines field by field", cmdCompare},
		{"mkc", "pack MKC fields to hex, or unpack hex to fields", cmdMKC},
		{"vectors", "write golden vectors, manifests and Verilog replay harnesses", cmdVectors},
		{"sweep", "run the model over a grid of parameters; tables and plots", cmdSweep},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "mkeysim: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mkeysim COMMAND [flags] [args]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'mkeysim COMMAND -h' for a command's flags and an example.")
}
