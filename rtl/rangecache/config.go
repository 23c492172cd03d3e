package rangecache

import (
	"fmt"
	"math/bits"

	"mkeysim/rtl/linecache"
)

// Config is a range cache's geometry, as architects give it (the IOMMU's
// iommu.iotlb; the ATC's atc.entries, atc.ways, atc.replacement).
type Config struct {
	Entries     int    `toml:"entries" json:"entries" range:"1..65536" help:"translations held, each a range of a power of two of at least 4 KiB"`
	Ways        int    `toml:"ways" json:"ways" range:"0..65536" help:"entries per set; 0: fully associative; sets = entries / ways must be a power of two"`
	Replacement string `toml:"replacement" json:"replacement" range:"lru, plru, nru or random" help:"replacement policy of a full set"`
	Seed        uint64 `toml:"seed" json:"seed" range:"0..2^64-1" help:"seed of the random replacement policy"`
}

// Validate names the first bad parameter, under prefix ("iommu.iotlb",
// "atc").
func (c Config) Validate(prefix string) error {
	ways := c.Ways
	if ways == 0 {
		ways = c.Entries
	}
	switch {
	case c.Entries < 1 || c.Entries > 1<<16:
		return fmt.Errorf("%s.entries = %d: want 1..65536", prefix, c.Entries)
	case c.Ways < 0 || c.Ways > c.Entries:
		return fmt.Errorf("%s.ways = %d: want 0..%s.entries (%d)", prefix, c.Ways, prefix, c.Entries)
	case c.Entries%ways != 0:
		return fmt.Errorf("%s.ways = %d: %s.entries (%d) is not a whole number of sets of it", prefix, c.Ways, prefix, c.Entries)
	case bits.OnesCount(uint(c.Entries/ways)) != 1:
		return fmt.Errorf("%s.ways = %d: sets = %s.entries / %s.ways = %d, not a power of two", prefix, c.Ways, prefix, prefix, c.Entries/ways)
	case c.Replacement != linecache.LRU && c.Replacement != linecache.PLRU && c.Replacement != linecache.NRU && c.Replacement != linecache.Random:
		return fmt.Errorf("%s.replacement = %q: want lru, plru, nru or random", prefix, c.Replacement)
	case c.Replacement == linecache.PLRU && bits.OnesCount(uint(ways)) != 1:
		return fmt.Errorf("%s.replacement = plru: needs a power-of-two number of ways, not %d", prefix, ways)
	}
	return nil
}

// NewOf returns an empty array of cfg's geometry (cfg valid).
func NewOf[V any](cfg Config) *Array[V] {
	return New[V](cfg.Entries, cfg.Ways, cfg.Replacement, cfg.Seed)
}
