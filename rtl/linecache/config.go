package linecache

import (
	"fmt"
	"math/bits"
)

// Replacement policies (Config.Replacement).
const (
	// LRU evicts the least recently used line of the set.
	LRU = "lru"
	// PLRU is tree pseudo-LRU: one bit per inner node of a binary tree
	// over the ways points away from the half used last.
	PLRU = "plru"
	// NRU keeps one referenced bit per line, set on use; when every line
	// of the set has it, the others are cleared. The victim is the first
	// line without it.
	NRU = "nru"
	// Random evicts a line drawn from a PRNG seeded by Config.Seed.
	Random = "random"
)

// MaxLineBytes is the longest line: 8 KLM entries of 16 bytes.
const MaxLineBytes = 128

// Config is the geometry of a line cache, as architects give it: how many
// list entries it holds, how many are fetched and kept together in a
// line, and how many lines a set has. An invalid line is always filled
// first, the lowest-numbered one of its set.
type Config struct {
	Entries        int    `toml:"entries" json:"entries" range:"1..2^23" help:"list entries the cache holds; lines = entries / entries_per_line (at most 2^20)"`
	EntriesPerLine int    `toml:"entries_per_line" json:"entries_per_line" range:"1, 2, 4 or 8" help:"entries fetched and kept together in one line (an MTT entry is 8 bytes, a KLM entry 16)"`
	Ways           int    `toml:"ways" json:"ways" range:"0..2^20" help:"lines per set; 0: fully associative (one set of every line, any number of lines); sets = lines / ways must be a power of two"`
	Replacement    string `toml:"replacement" json:"replacement" range:"lru, plru, nru or random" help:"replacement policy (plru: tree pseudo-LRU, needs a power-of-two number of ways; nru: one referenced bit a line)"`
	Seed           uint64 `toml:"seed" json:"seed" range:"0..2^64-1" help:"seed of the random replacement policy"`
}

// Geometry returns a Config of sets x ways lines of entriesPerLine
// entries, LRU: the shape of a cache given in sets, as tests give it.
func Geometry(sets, ways, entriesPerLine int) Config {
	return Config{Entries: sets * ways * entriesPerLine, EntriesPerLine: entriesPerLine, Ways: ways, Replacement: LRU}
}

// Lines is the number of lines.
func (c Config) Lines() int { return c.Entries / max(c.EntriesPerLine, 1) }

// SetWays is the number of lines of a set: Ways, or every line when the
// cache is fully associative.
func (c Config) SetWays() int {
	if c.Ways == 0 {
		return c.Lines()
	}
	return c.Ways
}

// Sets is the number of sets.
func (c Config) Sets() int { return c.Lines() / max(c.SetWays(), 1) }

// Validate names the first bad field (prefix, then its key), with its
// value and what it may be: the bounds of the range tags above, and the
// rules that tie the fields together. entryBytes is the size of one entry
// (8 for MTT entries, 16 for KLM entries).
func (c Config) Validate(prefix string, entryBytes int) error {
	switch c.EntriesPerLine {
	case 1, 2, 4, 8:
	default:
		return fmt.Errorf("%sentries_per_line = %d: want 1, 2, 4 or 8", prefix, c.EntriesPerLine)
	}
	if n := c.EntriesPerLine * entryBytes; n < 1 || n > MaxLineBytes || n&(n-1) != 0 {
		return fmt.Errorf("%sentries_per_line = %d: a line of %d bytes, want a power of two up to %d", prefix, c.EntriesPerLine, n, MaxLineBytes)
	}
	if c.Entries < 1 || c.Entries > 1<<23 {
		return fmt.Errorf("%sentries = %d: want 1..2^23", prefix, c.Entries)
	}
	if c.Entries%c.EntriesPerLine != 0 {
		return fmt.Errorf("%sentries = %d: want a multiple of entries_per_line = %d (whole lines)", prefix, c.Entries, c.EntriesPerLine)
	}
	lines := c.Lines()
	if lines > 1<<20 {
		return fmt.Errorf("%sentries = %d: %d lines of %d entries, want at most 2^20 lines", prefix, c.Entries, lines, c.EntriesPerLine)
	}
	if c.Ways < 0 || c.Ways > 1<<20 {
		return fmt.Errorf("%sways = %d: want 0..2^20 (0: fully associative)", prefix, c.Ways)
	}
	w := c.SetWays()
	if lines%w != 0 {
		return fmt.Errorf("%sways = %d: want a divisor of the %d lines (entries / entries_per_line)", prefix, c.Ways, lines)
	}
	if s := lines / w; s&(s-1) != 0 {
		return fmt.Errorf("%sways = %d: %d lines make %d sets, want a power of two", prefix, c.Ways, lines, s)
	}
	switch c.Replacement {
	case LRU, NRU, Random:
	case PLRU:
		if w&(w-1) != 0 {
			return fmt.Errorf("%sreplacement = plru: needs a power-of-two number of ways, and a set has %d lines", prefix, w)
		}
	default:
		return fmt.Errorf("%sreplacement = %q: want lru, plru, nru or random", prefix, c.Replacement)
	}
	return nil
}

// log2 of a power of two.
func log2(n int) uint { return uint(bits.TrailingZeros(uint(n))) }
