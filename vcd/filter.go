package vcd

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteFilter writes a GTKWave translate filter file: one line per value,
// "<value> <name>", sorted by value. GTKWave replaces a trace's displayed
// text by the name when the text equals the value exactly (ignoring case),
// so the value is written the way GTKWave shows it in format f: Hex as
// uppercase hex zero-padded to ceil(width/4) digits, Bin as width binary
// digits, Dec as plain unsigned decimal. Give the trace the same Format in
// the save file (Signal.Format) and name this file in Signal.Filter.
//
// Names are folded onto one line; an empty name, a width outside 1..64 or
// a value that does not fit in width bits is an error and nothing is
// written. A name starting with '?' is read by GTKWave as a "?color?"
// prefix; avoid it.
func WriteFilter(w io.Writer, names map[uint64]string, width int, f Format) error {
	if width < 1 || width > 64 {
		return fmt.Errorf("vcd: filter: width %d not in 1..64", width)
	}
	if _, ok := f.flags(); !ok {
		return fmt.Errorf("vcd: filter: unknown format %d", int(f))
	}
	keys := make([]uint64, 0, len(names))
	for k, name := range names {
		if width < 64 && k>>uint(width) != 0 {
			return fmt.Errorf("vcd: filter: value %#x does not fit in %d bits", k, width)
		}
		if oneLine(name) == "" {
			return fmt.Errorf("vcd: filter: value %#x: empty name", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# GTKWave translate filter: %d-bit values, %s\n", width, f)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s %s\n", FilterValue(k, width, f), oneLine(names[k]))
	}
	return bw.Flush()
}

// FilterValue returns x as GTKWave displays a width-bit trace in format f,
// the text a translate filter must match.
func FilterValue(x uint64, width int, f Format) string {
	switch f {
	case Hex:
		s := strings.ToUpper(strconv.FormatUint(x, 16))
		if n := (width + 3) / 4; len(s) < n {
			s = strings.Repeat("0", n-len(s)) + s
		}
		return s
	case Bin:
		s := strconv.FormatUint(x, 2)
		if len(s) < width {
			s = strings.Repeat("0", width-len(s)) + s
		}
		return s
	default:
		return strconv.FormatUint(x, 10)
	}
}
