package iommu

import (
	"fmt"

	"mkeysim/rtl/linecache"
	"mkeysim/rtl/rangecache"
)

// Config is the host IOMMU's parameters, as architects give them.
type Config struct {
	// Enabled puts the IOMMU between the link and host memory; off (the
	// default), the HCA's DMA addresses are physical.
	Enabled bool `toml:"enabled" json:"enabled" range:"false or true" help:"translate the HCA's untranslated memory TLPs from IOVA to physical address through the I/O page tables; false: DMA addresses are physical"`
	// TranslateICM makes the ICM reads (MKCs, MTT and KLM lists) go
	// through the IOMMU too, as the driver maps ICM pages with dma_map.
	TranslateICM bool `toml:"translate_icm" json:"translate_icm" range:"false or true" help:"translate the ICM reads (MKCs, MTT and KLM lists) as well as the data path's"`
	// Walkers bounds the walks in flight.
	Walkers int `toml:"walkers" json:"walkers" range:"1..64" help:"page walks in flight at once (one per 4 KiB page missed; misses of a page being walked wait for it)"`
	// WalkLatencyCycles is one level's read of a walk.
	WalkLatencyCycles int `toml:"walk_latency_cycles" json:"walk_latency_cycles" range:"1..100000" help:"cycles a walk spends on each level whose entry the page-walk cache does not hold (a read of host memory)"`
	// IOTLB is the translation cache (its own table in a config file:
	// after the scalars above, as TOML wants).
	IOTLB IOTLB `toml:"iotlb" json:"iotlb"`
	// PWC is the page-walk cache of the upper levels' entries.
	PWC PWC `toml:"pwc" json:"pwc"`
}

// IOTLB is the IOTLB's geometry (iommu.iotlb.*): entries (each a leaf of
// the I/O page table, 4 KiB, 2 MiB or 1 GiB, tagged by requester ID or
// PASID), ways, replacement, seed.
type IOTLB = rangecache.Config

// PWC is the page-walk cache's size.
type PWC struct {
	Entries int `toml:"entries" json:"entries" range:"0..65536" help:"upper-level entries (pointers to the next table) the walker keeps; a walk reads only the levels below the deepest one it holds (0: none)"`
}

// DefaultConfig is off; when enabled, a 64-entry fully associative LRU
// IOTLB, 32 page-walk cache entries, 4 walkers of 15 cycles a level (60
// ns at the default clock).
func DefaultConfig() Config {
	return Config{TranslateICM: true, IOTLB: IOTLB{Entries: 64, Replacement: linecache.LRU}, PWC: PWC{Entries: 32},
		Walkers: 4, WalkLatencyCycles: 15}
}

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if err := c.IOTLB.Validate("iommu.iotlb"); err != nil {
		return err
	}
	switch {
	case c.PWC.Entries < 0 || c.PWC.Entries > 1<<16:
		return fmt.Errorf("iommu.pwc.entries = %d: want 0..65536", c.PWC.Entries)
	case c.Walkers < 1 || c.Walkers > 64:
		return fmt.Errorf("iommu.walkers = %d: want 1..64", c.Walkers)
	case c.WalkLatencyCycles < 1 || c.WalkLatencyCycles > 100000:
		return fmt.Errorf("iommu.walk_latency_cycles = %d: want 1..100000", c.WalkLatencyCycles)
	}
	return nil
}
