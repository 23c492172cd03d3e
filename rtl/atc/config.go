package atc

import (
	"fmt"
	"math/bits"

	"mkeysim/rtl/linecache"
)

// Config is the ATC's parameters, as architects give them.
type Config struct {
	Entries     int    `toml:"entries" json:"entries" range:"1..2^16" help:"translations the ATC holds, each a range of a power of two of at least 4 KiB as the host's Translation Completion gives it"`
	Ways        int    `toml:"ways" json:"ways" range:"0..2^16" help:"entries per set; 0: fully associative; sets = entries / ways must be a power of two"`
	Replacement string `toml:"replacement" json:"replacement" range:"lru, plru, nru or random" help:"replacement policy of a full set (an entry a result still holds is never the victim)"`
	Seed        uint64 `toml:"seed" json:"seed" range:"0..2^64-1" help:"seed of the random replacement policy"`
	MSHRs       int    `toml:"mshrs" json:"mshrs" range:"1..64" help:"Translation Requests in flight at once, one per 4 KiB page missed"`
	Targets     int    `toml:"targets" json:"targets" range:"1..64" help:"lookups that may wait on one Translation Request"`
}

// DefaultConfig is a 64-entry fully associative LRU ATC with 4
// Translation Requests in flight of 4 lookups each.
func DefaultConfig() Config {
	return Config{Entries: 64, Ways: 0, Replacement: linecache.LRU, MSHRs: 4, Targets: 4}
}

// Validate names the first bad parameter.
func (c Config) Validate() error {
	switch {
	case c.Entries < 1 || c.Entries > 1<<16:
		return fmt.Errorf("atc.entries = %d: want 1..65536", c.Entries)
	case c.Ways < 0 || c.Ways > c.Entries:
		return fmt.Errorf("atc.ways = %d: want 0..atc.entries (%d)", c.Ways, c.Entries)
	case c.Ways > 0 && c.Entries%c.Ways != 0:
		return fmt.Errorf("atc.ways = %d: atc.entries (%d) is not a whole number of sets of it", c.Ways, c.Entries)
	case c.Ways > 0 && bits.OnesCount(uint(c.Entries/c.Ways)) != 1:
		return fmt.Errorf("atc.ways = %d: sets = atc.entries / atc.ways = %d, not a power of two", c.Ways, c.Entries/c.Ways)
	case c.Replacement != linecache.LRU && c.Replacement != linecache.PLRU && c.Replacement != linecache.NRU && c.Replacement != linecache.Random:
		return fmt.Errorf("atc.replacement = %q: want lru, plru, nru or random", c.Replacement)
	case c.Replacement == linecache.PLRU && bits.OnesCount(uint(c.ways())) != 1:
		return fmt.Errorf("atc.replacement = plru: needs a power-of-two number of ways, not %d", c.ways())
	case c.MSHRs < 1 || c.MSHRs > 64:
		return fmt.Errorf("atc.mshrs = %d: want 1..64", c.MSHRs)
	case c.Targets < 1 || c.Targets > 64:
		return fmt.Errorf("atc.targets = %d: want 1..64", c.Targets)
	}
	return nil
}

// ways is the entries of a set (all of them when fully associative).
func (c Config) ways() int {
	if c.Ways == 0 {
		return c.Entries
	}
	return c.Ways
}
