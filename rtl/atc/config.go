package atc

import (
	"fmt"

	"mkeysim/rtl/linecache"
	"mkeysim/rtl/rangecache"
)

// Config is the ATC's parameters, as architects give them.
type Config struct {
	// Cache is the entries' geometry: atc.entries, atc.ways,
	// atc.replacement, atc.seed (flat in the configuration).
	Cache   rangecache.Config `toml:"cache,flat" json:"cache"`
	MSHRs   int               `toml:"mshrs" json:"mshrs" range:"1..64" help:"Translation Requests in flight at once, one per 4 KiB page missed; to keep the IOMMU's walkers busy past the ATC's reach it needs iommu.walkers x (a Translation Request's round trip / a walk): 8 at the defaults (docs/fidelity.md 8)"`
	Targets int               `toml:"targets" json:"targets" range:"1..64" help:"lookups that may wait on one Translation Request"`
}

// DefaultConfig is a 64-entry fully associative LRU ATC with 4
// Translation Requests in flight of 4 lookups each.
func DefaultConfig() Config {
	return Config{Cache: rangecache.Config{Entries: 64, Replacement: linecache.LRU}, MSHRs: 4, Targets: 4}
}

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if err := c.Cache.Validate("atc"); err != nil {
		return err
	}
	switch {
	case c.MSHRs < 1 || c.MSHRs > 64:
		return fmt.Errorf("atc.mshrs = %d: want 1..64", c.MSHRs)
	case c.Targets < 1 || c.Targets > 64:
		return fmt.Errorf("atc.targets = %d: want 1..64", c.Targets)
	}
	return nil
}
