package mttwalk

import (
	"fmt"

	"mkeysim/rtl/linecache"
)

// Config is the walker's parameters.
type Config struct {
	Cache   linecache.Config `toml:"cache" json:"cache" help:"MTT entry cache"`
	Walkers int              `toml:"walkers" json:"walkers" range:"1..1024" help:"pieces the MTT walker works on at once (a miss in one does not stop the others)"`
}

// DefaultConfig is a 16 KB MTT cache: 64 sets of 4 lines of 8 entries.
func DefaultConfig() Config {
	return Config{Cache: linecache.Config{Sets: 64, Ways: 4}, Walkers: 8}
}

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if c.Walkers < 1 || c.Walkers > 1024 {
		return fmt.Errorf("mtt.walkers = %d: want 1..1024", c.Walkers)
	}
	return c.Cache.Validate("mtt.cache.")
}
