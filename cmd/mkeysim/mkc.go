package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// newMKCCmd is 'mkeysim mkc' with pack and unpack.
func newMKCCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "mkc pack|unpack",
		Short: "Pack MKC fields to hex, or unpack hex to fields",
		Long: `pack reads MKC fields by their scenario names (translation.md 2.2; mkey[7:0]
is "variant", the two access-mode halves are one "access_mode") and prints
the 64-byte context as 128 hex digits in wire order. Unset fields are 0.
unpack prints every field of a context as JSON.`,
		Example: `  echo '{"access_mode":"MTT","pd":5,"variant":"0x2a","qpn":"0xffffff","lr":1}' | mkeysim mkc pack
  mkeysim mkc unpack 00000500ffffff2a0000000000000005000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("want pack or unpack")
			}
			return usagef("unknown subcommand %q (want pack or unpack)", args[0])
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	c.AddCommand(&cobra.Command{
		Use:     "pack [FILE.json]",
		Short:   "Print the 128 hex digits of MKC fields given as JSON (standard input without FILE)",
		Example: `  echo '{"access_mode":"MTT","pd":5,"variant":"0x2a","qpn":"0xffffff","lr":1}' | mkeysim mkc pack`,
		Args:    nArgs(0, 1, "at most one file"),
		RunE: func(c *cobra.Command, args []string) error {
			return asStatus(mkcPack(args, c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr()))
		},
	}, &cobra.Command{
		Use:     "unpack HEX",
		Short:   "Print every field of a context given as 128 hex digits, as JSON",
		Example: `  mkeysim mkc unpack 00000500ffffff2a0000000000000005000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000`,
		Args:    nArgs(1, 1, "one argument of 128 hex digits"),
		RunE: func(c *cobra.Command, args []string) error {
			return asStatus(mkcUnpack(args, c.OutOrStdout(), c.ErrOrStderr()))
		},
	})
	return c
}

// asStatus turns an exit status into the error a command returns.
func asStatus(code int) error {
	if code == exitOK {
		return nil
	}
	return status(code)
}

func mkcPack(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	name := "<stdin>"
	var data []byte
	var err error
	if len(args) == 1 {
		name = args[0]
		data, err = os.ReadFile(name)
	} else {
		data, err = io.ReadAll(stdin)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mkeysim mkc pack:", err)
		return exitUsage
	}
	mkc, err := scenario.ParseMKC(data)
	if err != nil {
		fmt.Fprintf(stderr, "mkeysim mkc pack: %s: %v\n", name, err)
		return exitUsage
	}
	if err := writeStdout(stdout, stderr, "mkc pack", []byte(mkc.Hex()+"\n")); err != nil {
		return int(err.(status))
	}
	return 0
}

func mkcUnpack(args []string, stdout, stderr io.Writer) int {
	mkc, err := prm.ParseMKCHex(strings.TrimSpace(args[0]))
	if err != nil {
		fmt.Fprintln(stderr, "mkeysim mkc unpack:", err)
		return exitUsage
	}
	var b bytes.Buffer
	b.WriteString("{")
	for i, f := range prm.MKCFields() {
		if i > 0 {
			b.WriteString(",")
		}
		v := f.Get(&mkc)
		key, _ := json.Marshal(f.Name)
		b.Write(key)
		b.WriteString(":")
		switch {
		case f.Name == "access_mode":
			fmt.Fprintf(&b, "%q", prm.AccessMode(v).String())
		case f.Width > 24:
			fmt.Fprintf(&b, "\"%#x\"", v)
		default:
			fmt.Fprintf(&b, "%d", v)
		}
	}
	b.WriteString("}\n")
	if err := writeStdout(stdout, stderr, "mkc unpack", b.Bytes()); err != nil {
		return int(err.(status))
	}
	return 0
}
