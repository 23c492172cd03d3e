package sq

import "fmt"

// Config is the send-queue front's parameters, the [sq] table of the
// configuration file.
type Config struct {
	// FetchOutstanding bounds the reads of send queues and UMR lists the
	// fetch engine has in flight at once, over every QP.
	FetchOutstanding int `toml:"fetch_outstanding" json:"fetch_outstanding" range:"1..256" help:"reads of the send queues (and UMR lists) the WQE fetch engine keeps in flight at once, over all QPs (1: one read at a time)"`
	// WQECacheBBs is the basic blocks of each active QP's WQE cache.
	WQECacheBBs int `toml:"wqe_cache_bbs" json:"wqe_cache_bbs" range:"power of two in 16..1024" help:"basic blocks (64 bytes) of WQEs each QP whose fetch runs may hold read ahead of the one being parsed: its reads in flight and its WQEs not yet parsed; at least 16, the largest WQE (a QP's cache returns to a pool when its fetch ends)"`
}

// DefaultConfig keeps 8 reads in flight: enough to cover a PCIe round
// trip (about 190 cycles with the default link) at the rate the default
// workload posts WQEs (one each 17 cycles, 1 to 3 basic blocks each),
// and a quarter of the device's 32 read tags, which the MKC cache and
// the walks share.
// WQECacheBBs: 32 basic blocks (2 KiB), the largest WQE twice over.
func DefaultConfig() Config { return Config{FetchOutstanding: 8, WQECacheBBs: 32} }

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if c.FetchOutstanding < 1 || c.FetchOutstanding > 256 {
		return fmt.Errorf("sq.fetch_outstanding = %d: want 1..256", c.FetchOutstanding)
	}
	if c.WQECacheBBs < 16 || c.WQECacheBBs > 1024 || c.WQECacheBBs&(c.WQECacheBBs-1) != 0 {
		return fmt.Errorf("sq.wqe_cache_bbs = %d: want a power of two in 16..1024 (a WQE may have 16 basic blocks)", c.WQECacheBBs)
	}
	return nil
}
