package vcd

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
)

// Format is how GTKWave shows a trace's value.
type Format int

// The formats a save file can ask for.
const (
	Hex Format = iota // hexadecimal, zero-padded to the width (flags @22)
	Dec               // unsigned decimal (flags @24)
	Bin               // binary, zero-padded to the width (flags @28)
)

// GTKWave trace flag bits (analyzer.h), written in hex after '@'.
const (
	flagHex         = 0x2
	flagDec         = 0x4
	flagBin         = 0x8
	flagRJustify    = 0x20
	flagBlank       = 0x200
	flagFTranslated = 0x2000 // a translate filter file applies
	flagGroupBegin  = 0x800000
	flagGroupEnd    = 0x1000000
)

// flags returns the GTKWave trace flags of the format, or false if f is
// not a Format.
func (f Format) flags() (uint32, bool) {
	switch f {
	case Hex:
		return flagRJustify | flagHex, true
	case Dec:
		return flagRJustify | flagDec, true
	case Bin:
		return flagRJustify | flagBin, true
	}
	return 0, false
}

// String returns "hex", "dec" or "bin".
func (f Format) String() string {
	switch f {
	case Hex:
		return "hex"
	case Dec:
		return "dec"
	case Bin:
		return "bin"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Signal is one trace of a save file.
type Signal struct {
	// Path is the dotted path of the variable ("top.mptcache.key"). A
	// range suffix is added for Width > 1 unless Path already ends in
	// "]", giving the full name GTKWave expects ("top.mptcache.key[31:0]").
	Path string
	// Width is the variable's width in bits.
	Width int
	// Format is how the value is shown.
	Format Format
	// Filter is the path of a translate filter file (see WriteFilter),
	// written with the same Format, or "" for none. GTKWave 3.3 resolves
	// a relative path against its working directory, not the save file's
	// (it prints "Could not open filter file!" and shows raw values
	// otherwise); scripts/gtkwave-check.sh and scripts/wave-shot.sh run
	// GTKWave from the save file's directory, so a path relative to the
	// save file works there. Use an absolute path for other uses.
	Filter string
}

// Group is a named, expanded group of traces.
type Group struct {
	Name    string
	Signals []Signal
}

// SaveFile is the content of a GTKWave save file (.gtkw).
//
// Paths travel with the files: GTKWave resolves the dump and every filter
// path against the directory of the save file it is reading, by taking
// each path relative to the [savefile] the file names and applying that
// to where the file now is (savefile.c, find_dumpfile). So a save file
// whose SaveFile, DumpFile and filter paths are relative to its own
// directory opens the same from any working directory, copied or moved
// with its dump and filters. Without SaveFile, GTKWave 3.3 resolves them
// against its working directory instead.
type SaveFile struct {
	// SaveFile is the save file's own name as [savefile] (its base name
	// for paths relative to it); empty omits the line.
	SaveFile string
	// DumpFile is the VCD file the save file opens ([dumpfile]).
	DumpFile string
	// Comments are written as "[*]" comment lines at the top (seed,
	// command line, ...).
	Comments []string
	// TimeStart is the first time shown, in VCD time units.
	TimeStart uint64
	// Shown is about how much time the window shows when it opens, in
	// VCD time units (a zoom line); zero leaves the zoom to GTKWave.
	Shown uint64
	// Width and Height are the window size; zero means 1200x500.
	Width, Height int
	// Groups are written in order, each opened expanded.
	Groups []Group
}

// SignalName returns the name GTKWave gives a variable declared as
// "$var wire W id name [W-1:0] $end" under the dotted scope path: the path
// itself for one bit, path+"[W-1:0]" otherwise.
func SignalName(path string, width int) string {
	if width <= 1 || strings.HasSuffix(path, "]") {
		return path
	}
	return fmt.Sprintf("%s[%d:0]", path, width-1)
}

// WriteGTKW writes s as a GTKWave save file. It checks every field first
// and writes nothing if one is unusable (empty or multi-line names, an
// unknown Format, a width below 1).
func WriteGTKW(w io.Writer, s SaveFile) error {
	if err := s.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, c := range s.Comments {
		fmt.Fprintf(bw, "[*] %s\n", oneLine(c))
	}
	fmt.Fprintf(bw, "[dumpfile] \"%s\"\n", s.DumpFile)
	if s.SaveFile != "" {
		fmt.Fprintf(bw, "[savefile] \"%s\"\n", s.SaveFile)
	}
	fmt.Fprintf(bw, "[timestart] %d\n", s.TimeStart)
	width, height := s.Width, s.Height
	if width <= 0 || height <= 0 {
		width, height = 1200, 500
	}
	fmt.Fprintf(bw, "[size] %d %d\n", width, height)
	fmt.Fprintf(bw, "[pos] -1 -1\n")
	if s.Shown > 0 {
		fmt.Fprintf(bw, "*%.6f %d\n", zoomFor(s.Shown, width), s.TimeStart)
	}
	filters := map[string]int{} // filter file -> its number in ^N lines
	for _, g := range s.Groups {
		name := g.Name
		if name == "" {
			name = "group"
		}
		fmt.Fprintf(bw, "@%x\n-%s\n", flagBlank|flagGroupBegin, name)
		for _, sig := range g.Signals {
			flags, _ := sig.Format.flags()
			if sig.Filter != "" {
				flags |= flagFTranslated
			}
			fmt.Fprintf(bw, "@%x\n", flags)
			if sig.Filter != "" {
				n, ok := filters[sig.Filter]
				if !ok {
					n = len(filters) + 1
					filters[sig.Filter] = n
				}
				fmt.Fprintf(bw, "^%d %s\n", n, sig.Filter)
			}
			fmt.Fprintf(bw, "%s\n", SignalName(sig.Path, sig.Width))
		}
		fmt.Fprintf(bw, "@%x\n-%s\n", flagBlank|flagGroupEnd, name)
	}
	return bw.Flush()
}

// zoomFor is GTKWave's zoom for showing about shown time units across a
// window width pixels wide. GTKWave draws 2^-zoom / 200 time units a
// pixel (wavewindow.c, calczoom: 200 pixels a frame of 2^-zoom units, a
// frame at least one unit), and the waves get the window less the signal
// name columns, about 420 pixels.
func zoomFor(shown uint64, width int) float64 {
	px := float64(max(width-420, 100))
	return min(-math.Log2(float64(shown)*200/px), 0)
}

// check validates a save file before anything is written.
func (s SaveFile) check() error {
	if s.DumpFile == "" || strings.ContainsAny(s.DumpFile, "\"\n\r") {
		return fmt.Errorf("vcd: save file: bad dump file name %q", s.DumpFile)
	}
	if strings.ContainsAny(s.SaveFile, "\"\n\r") {
		return fmt.Errorf("vcd: save file: bad save file name %q", s.SaveFile)
	}
	for _, g := range s.Groups {
		if strings.ContainsAny(g.Name, "\n\r") {
			return fmt.Errorf("vcd: save file: group name %q spans lines", g.Name)
		}
		for _, sig := range g.Signals {
			if sig.Path == "" || strings.ContainsAny(sig.Path, " \t\n\r") {
				return fmt.Errorf("vcd: save file: group %q: bad signal path %q", g.Name, sig.Path)
			}
			if sig.Width < 1 {
				return fmt.Errorf("vcd: save file: signal %s: width %d", sig.Path, sig.Width)
			}
			if _, ok := sig.Format.flags(); !ok {
				return fmt.Errorf("vcd: save file: signal %s: unknown format %d", sig.Path, int(sig.Format))
			}
			if strings.ContainsAny(sig.Filter, "\n\r") || strings.TrimSpace(sig.Filter) != sig.Filter {
				return fmt.Errorf("vcd: save file: signal %s: bad filter path %q", sig.Path, sig.Filter)
			}
		}
	}
	return nil
}

// oneLine folds s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
