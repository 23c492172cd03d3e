package main

import (
	"bytes"
	"fmt"
	"io"

	"mkeysim/config"
)

const configUsage = `usage: mkeysim config --defaults

Prints the whole configuration file with every parameter, its default and
a comment saying what it does. Save it, edit it, and pass it to
'mkeysim run -config FILE'.

Example:
  mkeysim config --defaults > my.toml
`

func cmdConfig(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("config", configUsage, stderr)
	defaults := fs.Bool("defaults", false, "print every parameter with its default")
	if err := fs.Parse(args); err != nil {
		return flagStatus(err)
	}
	if !*defaults || fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	c := config.Default()
	var b bytes.Buffer
	c.WriteDefaults(&b)
	if _, err := stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintln(stderr, "mkeysim config:", err)
		return 1
	}
	return 0
}
