package mttwalk

import "mkeysim/rtl/linecache"

// Config is the walker's parameters.
type Config struct {
	Cache linecache.Config `toml:"cache" json:"cache" help:"MTT entry cache"` // MTT entry cache geometry
}

// DefaultConfig is a 16 KB MTT cache: 64 sets of 4 lines of 8 entries.
func DefaultConfig() Config {
	return Config{Cache: linecache.Config{Sets: 64, Ways: 4}}
}

// Validate names the first bad parameter.
func (c Config) Validate() error { return c.Cache.Validate("mttwalk.cache.") }
