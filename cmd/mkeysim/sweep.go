package main

import (
	"io"

	"mkeysim/sweep"
)

// cmdSweep is 'mkeysim sweep': the model over a grid of parameters, with
// tables and plots (package sweep has the flags, the usage and the
// examples). Bad input exits with status 2 and writes nothing.
func cmdSweep(args []string, stdout, stderr io.Writer) int {
	return sweep.Main(args, stdout, stderr)
}
