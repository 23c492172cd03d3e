package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"mkeysim/prm"
	"mkeysim/scenario"
)

const mkcUsage = `usage: mkeysim mkc pack [FILE.json]   (fields as JSON; stdin without FILE)
       mkeysim mkc unpack HEX         (128 hex digits)

pack reads MKC fields by their scenario names (translation.md 2.2; mkey[7:0]
is "variant", the two access-mode halves are one "access_mode") and prints
the 64-byte context as 128 hex digits in wire order. Unset fields are 0.
unpack prints every field of a context as JSON.

Examples:
  echo '{"access_mode":"MTT","pd":5,"variant":"0x2a","qpn":"0xffffff","lr":1}' | mkeysim mkc pack
  mkeysim mkc unpack 00000500ffffff2a0000000000000005000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
`

func cmdMKC(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stderr, mkcUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return 0
	}
	switch args[0] {
	case "pack":
		return mkcPack(args[1:], stdout, stderr)
	case "unpack":
		return mkcUnpack(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "mkeysim mkc: unknown subcommand %q (want pack or unpack)\n", args[0])
	return exitUsage
}

func mkcPack(args []string, stdout, stderr io.Writer) int {
	name := "<stdin>"
	var data []byte
	var err error
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprint(stderr, mkcUsage)
		return 0
	case len(args) == 1:
		name = args[0]
		data, err = os.ReadFile(name)
	case len(args) == 0:
		data, err = io.ReadAll(os.Stdin)
	default:
		fmt.Fprintln(stderr, "mkeysim mkc pack: want at most one file")
		return exitUsage
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
	fmt.Fprintln(stdout, mkc.Hex())
	return 0
}

func mkcUnpack(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stderr, mkcUsage)
		return 0
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "mkeysim mkc unpack: want one argument of 128 hex digits")
		return exitUsage
	}
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
	stdout.Write(b.Bytes())
	return 0
}
