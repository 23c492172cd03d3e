package rtl

import (
	"fmt"

	"mkeysim/rtl/klmwalk"
	"mkeysim/rtl/mptcache"
	"mkeysim/rtl/mttwalk"
	"mkeysim/rtl/pcie"
)

// Config is every parameter of the clocked model.
type Config struct {
	ClockPS    uint64 `toml:"clock_ps" json:"clock_ps" help:"clock period in picoseconds (4000 = 250 MHz); sets the VCD timescale"` // clock period in picoseconds
	ROBEntries int    `toml:"rob_entries" json:"rob_entries" help:"reorder buffer entries: requests in flight at once"`             // requests in flight
	FIFODepth  int    `toml:"fifo_depth" json:"fifo_depth" help:"depth of the channels between units"`                              // depth of the channels between units
	StageLat   int    `toml:"stage_latency" json:"stage_latency" help:"latency in cycles of the channels between pipeline stages"`
	// OverlapInvalidate lets invalidations run while earlier accesses are
	// still in flight, as hardware does; scenario order (the default)
	// drains them first so results match the golden model line for line.
	OverlapInvalidate bool `toml:"overlap_invalidate" json:"overlap_invalidate" help:"run LOCAL_INVALIDATE and SEND_WITH_INVALIDATE without draining earlier accesses (results may then leave out of order)"`
	CmdLatency        int  `toml:"cmd_latency" json:"cmd_latency" help:"firmware cycles to execute one command before cache invalidation"` // firmware cycles per command

	MKCCache mptcache.Config `toml:"mkc_cache" json:"mkc_cache"`
	MTT      mttwalk.Config  `toml:"mtt" json:"mtt"`
	KLM      klmwalk.Config  `toml:"klm" json:"klm"`
	PCIe     pcie.Config     `toml:"pcie" json:"pcie"`
}

// DefaultConfig is a 250 MHz core with the units' defaults.
func DefaultConfig() Config {
	return Config{
		ClockPS:    4000,
		ROBEntries: 64,
		FIFODepth:  4,
		StageLat:   1,
		CmdLatency: 20,
		MKCCache:   mptcache.DefaultConfig(),
		MTT:        mttwalk.DefaultConfig(),
		KLM:        klmwalk.DefaultConfig(),
		PCIe:       pcie.DefaultConfig(),
	}
}

// Validate names the first bad parameter and its value.
func (c *Config) Validate() error {
	switch {
	case c.ClockPS == 0:
		return fmt.Errorf("clock_ps = 0: want a period of at least 1 ps")
	case c.ROBEntries < 1 || c.ROBEntries > 1<<16:
		return fmt.Errorf("rob_entries = %d: want 1..65536", c.ROBEntries)
	case c.FIFODepth < 1 || c.FIFODepth > 4096:
		return fmt.Errorf("fifo_depth = %d: want 1..4096", c.FIFODepth)
	case c.StageLat < 1 || c.StageLat > 4096:
		return fmt.Errorf("stage_latency = %d: want 1..4096", c.StageLat)
	case c.CmdLatency < 0 || c.CmdLatency > 1<<24:
		return fmt.Errorf("cmd_latency = %d: want 0..16777216", c.CmdLatency)
	}
	if err := c.MKCCache.Validate(); err != nil {
		return err
	}
	if err := c.MTT.Validate(); err != nil {
		return err
	}
	if err := c.KLM.Validate(); err != nil {
		return err
	}
	return c.PCIe.Validate()
}
