package vcd

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteGTKW(t *testing.T) {
	var buf bytes.Buffer
	err := WriteGTKW(&buf, SaveFile{
		DumpFile: "run.vcd",
		Comments: []string{"seed 42", "mkeysim run\nscenario.json"},
		Groups: []Group{
			{Name: "top", Signals: []Signal{{Path: "top.clk", Width: 1, Format: Bin}}},
			{Name: "mptcache", Signals: []Signal{
				{Path: "top.mptcache.key", Width: 32, Format: Hex},
				{Path: "top.mptcache.state", Width: 3, Format: Hex, Filter: "state.txt"},
				{Path: "top.mptcache.hits", Width: 16, Format: Dec},
				{Path: "top.mptcache.mode[1:0]", Width: 2, Format: Hex, Filter: "mode.txt"},
				{Path: "top.mptcache.state2", Width: 3, Format: Hex, Filter: "state.txt"},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `[*] seed 42
[*] mkeysim run scenario.json
[dumpfile] "run.vcd"
[timestart] 0
[size] 1200 500
[pos] -1 -1
@800200
-top
@28
top.clk
@1000200
-top
@800200
-mptcache
@22
top.mptcache.key[31:0]
@2022
^1 state.txt
top.mptcache.state[2:0]
@24
top.mptcache.hits[15:0]
@2022
^2 mode.txt
top.mptcache.mode[1:0]
@2022
^1 state.txt
top.mptcache.state2[2:0]
@1000200
-mptcache
`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteGTKWRejects(t *testing.T) {
	sig := Signal{Path: "top.v", Width: 1, Format: Bin}
	for _, tc := range []struct {
		name string
		s    SaveFile
		want string
	}{
		{"no dump file", SaveFile{}, "dump file"},
		{"quote in dump file", SaveFile{DumpFile: `a"b`}, "dump file"},
		{"empty path", SaveFile{DumpFile: "r.vcd", Groups: []Group{{Signals: []Signal{{Width: 1}}}}}, "signal path"},
		{"space in path", SaveFile{DumpFile: "r.vcd", Groups: []Group{{Signals: []Signal{{Path: "a b", Width: 1}}}}}, "signal path"},
		{"zero width", SaveFile{DumpFile: "r.vcd", Groups: []Group{{Signals: []Signal{{Path: "a", Width: 0}}}}}, "width"},
		{"bad format", SaveFile{DumpFile: "r.vcd", Groups: []Group{{Signals: []Signal{{Path: "a", Width: 1, Format: 9}}}}}, "unknown format"},
		{"group name on two lines", SaveFile{DumpFile: "r.vcd", Groups: []Group{{Name: "a\nb", Signals: []Signal{sig}}}}, "group name"},
		{"filter with newline", SaveFile{DumpFile: "r.vcd", Groups: []Group{{Signals: []Signal{{Path: "a", Width: 1, Filter: "f\n"}}}}}, "filter path"},
	} {
		var buf bytes.Buffer
		err := WriteGTKW(&buf, tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: wrote %q", tc.name, buf.String())
		}
	}
}

func TestSignalName(t *testing.T) {
	for _, tc := range []struct {
		path  string
		width int
		want  string
	}{
		{"top.clk", 1, "top.clk"},
		{"top.key", 32, "top.key[31:0]"},
		{"top.key[31:0]", 32, "top.key[31:0]"},
		{"top.mkc", 512, "top.mkc[511:0]"},
	} {
		if got := SignalName(tc.path, tc.width); got != tc.want {
			t.Errorf("SignalName(%q, %d) = %q, want %q", tc.path, tc.width, got, tc.want)
		}
	}
}

func TestFilterValue(t *testing.T) {
	for _, tc := range []struct {
		x     uint64
		width int
		f     Format
		want  string
	}{
		{0xb, 32, Hex, "0000000B"},
		{3, 2, Hex, "3"},
		{0x1f, 5, Hex, "1F"},
		{0xdead_beef_0000_0001, 64, Hex, "DEADBEEF00000001"},
		{1, 3, Bin, "001"},
		{5, 3, Bin, "101"},
		{200, 8, Dec, "200"},
		{0, 8, Dec, "0"},
	} {
		if got := FilterValue(tc.x, tc.width, tc.f); got != tc.want {
			t.Errorf("FilterValue(%#x, %d, %s) = %q, want %q", tc.x, tc.width, tc.f, got, tc.want)
		}
	}
}

func TestWriteFilter(t *testing.T) {
	var buf bytes.Buffer
	names := map[uint64]string{2: "FETCH", 0: "IDLE", 1: "LOOKUP  ", 7: "two\nlines"}
	if err := WriteFilter(&buf, names, 3, Hex); err != nil {
		t.Fatal(err)
	}
	want := `# GTKWave translate filter: 3-bit values, hex
0 IDLE
1 LOOKUP
2 FETCH
7 two lines
`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, tc := range []struct {
		name  string
		names map[uint64]string
		width int
		f     Format
		want  string
	}{
		{"value too wide", map[uint64]string{8: "X"}, 3, Hex, "does not fit"},
		{"empty name", map[uint64]string{1: "  "}, 3, Hex, "empty name"},
		{"width 0", nil, 0, Hex, "width"},
		{"width 65", nil, 65, Hex, "width"},
		{"bad format", nil, 4, Format(7), "unknown format"},
	} {
		var b bytes.Buffer
		err := WriteFilter(&b, tc.names, tc.width, tc.f)
		if err == nil || !strings.Contains(err.Error(), tc.want) || b.Len() != 0 {
			t.Errorf("%s: err = %v (wrote %q), want %q", tc.name, err, b.String(), tc.want)
		}
	}
}

// TestSaveFileTravels: a save file that names itself and its dump and
// filters relative to its directory, and opens showing about Shown time
// units: GTKWave draws 2^-zoom/200 units a pixel over the window less
// about 420 pixels of names.
func TestSaveFileTravels(t *testing.T) {
	var buf bytes.Buffer
	err := WriteGTKW(&buf, SaveFile{SaveFile: "run.gtkw", DumpFile: "run.vcd", TimeStart: 40, Shown: 1600, Width: 1280, Height: 760,
		Groups: []Group{{Name: "u", Signals: []Signal{{Path: "top.u.state", Width: 3, Format: Hex, Filter: "run.filters/state.txt"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[dumpfile] \"run.vcd\"\n[savefile] \"run.gtkw\"\n[timestart] 40\n", "*-8.539520 40\n", "^1 run.filters/state.txt\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("save file lacks %q:\n%s", want, buf.String())
		}
	}
	if z := zoomFor(1, 1280); z != 0 {
		t.Errorf("zoom for one unit %v: GTKWave's closest is 0", z)
	}
	if err := WriteGTKW(&buf, SaveFile{SaveFile: `a"b`, DumpFile: "r.vcd"}); err == nil {
		t.Error("a quote in the save file name was written")
	}
}
