package dma

import "fmt"

// Config is the data path's parameters.
type Config struct {
	// Enabled makes every translated access move its bytes before it
	// retires; false (the default) keeps the model translation-only.
	Enabled bool `toml:"enabled" json:"enabled" range:"false or true" help:"after translation, move each access's bytes over the PCIe link (reads of host memory as MRd, writes as MWr, atomics both) before it retires; false: translation only"`
	// Outstanding bounds the data requests in flight.
	Outstanding int `toml:"outstanding" json:"outstanding" range:"1..4096" help:"data requests in flight at once: reads of up to 4 KiB until their completions are in, writes until their last MWr has left"`
	// FenceQueue bounds the segments set aside behind the small fence.
	FenceQueue int `toml:"fence_queue" json:"fence_queue" range:"0..256" help:"segments the data path sets aside, in per-QP order, while a read of their QP under small_fence_on_rdma_read_response is in flight, so that other QPs' segments behind them go on (data.fence_parked); 0: a waiting segment holds everything behind it at the head of the input"`
}

// DefaultConfig is off, with 16 requests in flight when enabled and 8
// segments set aside behind the small fence.
func DefaultConfig() Config { return Config{Outstanding: 16, FenceQueue: 8} }

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if c.Outstanding < 1 || c.Outstanding > 4096 {
		return fmt.Errorf("data.outstanding = %d: want 1..4096", c.Outstanding)
	}
	if c.FenceQueue < 0 || c.FenceQueue > 256 {
		return fmt.Errorf("data.fence_queue = %d: want 0..256", c.FenceQueue)
	}
	return nil
}

// ChunkBytes is the largest request the unit makes: a 4 KiB page, which
// no TLP may cross.
const ChunkBytes = 4096
