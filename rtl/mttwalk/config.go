package mttwalk

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/rtl/linecache"
)

// Config is the walker's parameters.
type Config struct {
	Cache   linecache.Config `toml:"cache" json:"cache" help:"MTT entry cache"`
	Walkers int              `toml:"walkers" json:"walkers" range:"1..1024" help:"pieces the MTT walker works on at once (a miss in one does not stop the others)"`
	// MergeMisses makes a context that misses on a line another context
	// is reading wait for that read instead of sending its own.
	MergeMisses bool `toml:"merge_misses" json:"merge_misses" range:"false or true" help:"a walker that misses on a line another walker is already reading waits for that read instead of reading the line again (false: every miss reads)"`
}

// EntryBytes is the size of an MTT entry, the unit the cache is sized in.
const EntryBytes = prm.MTTEntrySize

// DefaultConfig is a 16 KB MTT cache: 2048 entries in 64 sets of 4
// lines of 8 entries, LRU; 8 walkers that merge their misses.
func DefaultConfig() Config {
	return Config{Cache: linecache.Config{Entries: 2048, EntriesPerLine: 8, Ways: 4, Replacement: linecache.LRU, Seed: 1},
		Walkers: 8, MergeMisses: true}
}

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if c.Walkers < 1 || c.Walkers > 1024 {
		return fmt.Errorf("mtt.walkers = %d: want 1..1024", c.Walkers)
	}
	return c.Cache.Validate("mtt.cache.", EntryBytes)
}
