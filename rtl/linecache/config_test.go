package linecache

import (
	"strings"
	"testing"
)

// TestValidate: good configs pass; a bad one's error names the field
// under the prefix, and its value.
func TestValidate(t *testing.T) {
	fa := func(entries, epl int, repl string) Config {
		return Config{Entries: entries, EntriesPerLine: epl, Replacement: repl}
	}
	cases := []struct {
		name string
		cfg  Config
		eb   int
		want string // "" for a good config, else the start of the error
	}{
		// Good.
		{"1x1 of 64B", Geometry(1, 1, 8), 8, ""},
		{"64x4 of 64B", Geometry(64, 4, 8), 8, ""},
		{"1024x64 of 64B", Geometry(1024, 64, 8), 8, ""},
		{"2^20 lines", Geometry(1<<18, 4, 1), 8, ""},
		{"one entry", fa(1, 1, LRU), 8, ""},
		{"2^23 entries, 2^20 lines", fa(1<<23, 8, NRU), 16, ""},
		{"128-byte KLM lines", Geometry(4, 2, 8), 16, ""},
		{"8-byte MTT lines", Geometry(4, 2, 1), 8, ""},
		{"fully associative 3 lines", fa(3, 1, LRU), 8, ""},
		{"fully associative 100 lines", fa(400, 4, Random), 16, ""},
		{"fully associative plru 32", fa(64, 2, PLRU), 8, ""},
		{"3 ways, 4 sets", Config{Entries: 12, EntriesPerLine: 1, Ways: 3, Replacement: NRU}, 8, ""},
		{"plru 4 ways", Config{Entries: 64, EntriesPerLine: 2, Ways: 4, Replacement: PLRU}, 16, ""},
		{"ways = lines", Config{Entries: 40, EntriesPerLine: 8, Ways: 5, Replacement: LRU}, 8, ""},
		{"random any seed", Config{Entries: 16, EntriesPerLine: 2, Ways: 2, Replacement: Random, Seed: ^uint64(0)}, 8, ""},
		{"2^20 lines fully associative", fa(1<<20, 1, LRU), 8, ""},
		{"2^20 ways", Config{Entries: 1 << 23, EntriesPerLine: 8, Ways: 1 << 20, Replacement: PLRU}, 16, ""},
		{"2^24 entries", fa(1<<24, 8, LRU), 8, "x.entries = 16777216:"},

		// entries_per_line.
		{"epl 0", fa(8, 0, LRU), 8, "x.entries_per_line = 0:"},
		{"epl 3", fa(9, 3, LRU), 8, "x.entries_per_line = 3:"},
		{"epl 16", fa(32, 16, LRU), 8, "x.entries_per_line = 16:"},
		{"epl -1", fa(8, -1, LRU), 8, "x.entries_per_line = -1:"},
		{"256-byte line", fa(32, 8, LRU), 32, "x.entries_per_line = 8: a line of 256 bytes"},

		// entries.
		{"entries 0", fa(0, 1, LRU), 8, "x.entries = 0:"},
		{"entries -8", fa(-8, 8, LRU), 8, "x.entries = -8:"},
		{"entries 2^24+8", fa(1<<24+8, 8, LRU), 8, "x.entries = 16777224:"},
		{"not whole lines", fa(12, 8, LRU), 8, "x.entries = 12:"},
		{"2^21 lines", fa(1<<21, 1, LRU), 8, "x.entries = 2097152:"},

		// ways.
		{"ways -1", Config{Entries: 8, EntriesPerLine: 1, Ways: -1, Replacement: LRU}, 8, "x.ways = -1:"},
		{"ways above 2^20", Config{Entries: 8, EntriesPerLine: 1, Ways: 1<<20 + 1, Replacement: LRU}, 8, "x.ways = 1048577:"},
		{"ways not dividing the lines", Config{Entries: 8, EntriesPerLine: 1, Ways: 3, Replacement: LRU}, 8, "x.ways = 3:"},
		{"more ways than lines", Config{Entries: 32, EntriesPerLine: 8, Ways: 8, Replacement: LRU}, 8, "x.ways = 8:"},
		{"6 sets", Config{Entries: 12, EntriesPerLine: 1, Ways: 2, Replacement: LRU}, 8, "x.ways = 2: 12 lines make 6 sets"},
		{"3 sets", Config{Entries: 24, EntriesPerLine: 2, Ways: 4, Replacement: LRU}, 16, "x.ways = 4: 12 lines make 3 sets"},

		// replacement.
		{"replacement empty", Config{Entries: 8, EntriesPerLine: 8, Ways: 1}, 8, "x.replacement = \"\":"},
		{"replacement LRU", Config{Entries: 8, EntriesPerLine: 8, Ways: 1, Replacement: "LRU"}, 8, "x.replacement = \"LRU\":"},
		{"replacement fifo", Config{Entries: 8, EntriesPerLine: 8, Ways: 1, Replacement: "fifo"}, 8, "x.replacement = \"fifo\":"},
		{"plru 3 ways", Config{Entries: 12, EntriesPerLine: 1, Ways: 3, Replacement: PLRU}, 8, "x.replacement = plru:"},
		{"plru fully associative 24", fa(24, 1, PLRU), 8, "x.replacement = plru: needs a power-of-two number of ways, and a set has 24 lines"},
	}
	for _, tc := range cases {
		err := tc.cfg.Validate("x.", tc.eb)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %+v (%d-byte entries): %v", tc.name, tc.cfg, tc.eb, err)
		case tc.want != "" && err == nil:
			t.Errorf("%s: %+v (%d-byte entries) passed, want %q", tc.name, tc.cfg, tc.eb, tc.want)
		case tc.want != "" && !strings.HasPrefix(err.Error(), tc.want):
			t.Errorf("%s: %+v (%d-byte entries): %q, want %q...", tc.name, tc.cfg, tc.eb, err, tc.want)
		}
	}
}

// TestGeometry: Geometry(sets, ways, epl) is an LRU config of those sets
// and ways, whatever the entry size; Lines, SetWays and Sets read a
// config back, fully associative ones included.
func TestGeometry(t *testing.T) {
	cases := []struct {
		cfg               Config
		lines, ways, sets int
	}{
		{Geometry(64, 4, 8), 256, 4, 64},
		{Geometry(1, 1, 1), 1, 1, 1},
		{Geometry(8, 3, 2), 24, 3, 8},
		{Geometry(2, 33, 4), 66, 33, 2},
		{fullyAssoc(100, 4, LRU), 100, 100, 1},
		{fullyAssoc(5, 1, NRU), 5, 5, 1},
	}
	for _, tc := range cases {
		if l, w, s := tc.cfg.Lines(), tc.cfg.SetWays(), tc.cfg.Sets(); l != tc.lines || w != tc.ways || s != tc.sets {
			t.Errorf("%+v: lines %d ways %d sets %d, want %d %d %d", tc.cfg, l, w, s, tc.lines, tc.ways, tc.sets)
		}
		for _, eb := range []int{8, 16} {
			if err := tc.cfg.Validate("", eb); err != nil {
				t.Errorf("%+v: %v", tc.cfg, err)
				continue
			}
			c := New(tc.cfg, eb)
			if c.sets != tc.sets || c.ways != tc.ways || len(c.tags) != tc.lines || c.LineBytes() != tc.cfg.EntriesPerLine*eb {
				t.Errorf("%+v, %d-byte entries: New made %d x %d of %d bytes", tc.cfg, eb, c.sets, c.ways, c.LineBytes())
			}
		}
	}
	if g := Geometry(4, 2, 8); g.Replacement != LRU || g.Entries != 64 || g.Ways != 2 || g.EntriesPerLine != 8 {
		t.Errorf("Geometry(4, 2, 8) = %+v", g)
	}
}
