package pcie

import "fmt"

// Config is every parameter of the PCIe side of the model, the device's
// read engine and the host side alike, as read from the [pcie] table of
// the configuration file: one struct, so that both ends of the link agree
// on the Read Completion Boundary and Max_Payload_Size. Each field's range
// tag is what it may be; DefaultConfig gives every default and Validate
// refuses what is out of range. The Requester, each Link direction and
// the RootComplex take the whole Config and read their own fields.
type Config struct {
	// Tags is the number of read tags of the device, so the bound on MRd
	// TLPs in flight: 1..256 (5- or 8-bit tags) or 257..768 (10-bit tags,
	// which use the values with tag bits 9:8 not 00b: the Requester's tags
	// are 0..Tags-1, or 256..256+Tags-1 above 256).
	Tags int `toml:"tags" json:"tags" range:"1..768" help:"PCIe read tags: reads in flight (above 256: 10-bit tags)"`
	// MaxReadRequest is the device's Max_Read_Request_Size in bytes: a
	// power of two, 128..4096.
	MaxReadRequest int `toml:"max_read_request" json:"max_read_request" range:"power of two in 128..4096" help:"Max_Read_Request_Size in bytes"`
	// MaxPayload is the Max_Payload_Size in bytes, bounding every TLP's
	// payload, completions included: a power of two, 128..4096. The root
	// complex splits its completions by it and the Requester refuses a
	// completion that passes it.
	MaxPayload int `toml:"max_payload" json:"max_payload" range:"power of two in 128..4096" help:"Max_Payload_Size in bytes"`
	// RCB is the root port's Read Completion Boundary in bytes: 64 or 128.
	// The root complex ends partial completions on it and the Requester
	// checks them against it.
	RCB int `toml:"rcb" json:"rcb" range:"64 or 128" help:"read completion boundary in bytes"`
	// SplitOnAllRCB makes the root complex end a completion at every RCB
	// boundary (64-byte completions, as many hosts return) instead of
	// sending the largest completions Max_Payload_Size allows.
	SplitOnAllRCB bool `toml:"split_on_all_rcb" json:"split_on_all_rcb" range:"false or true" help:"the host ends a completion at every RCB boundary"`
	// RequesterID is the device's bus/device/function, put in every MRd
	// and expected in every completion; CompleterID is the root port's,
	// put in every completion.
	RequesterID uint16 `toml:"requester_id" json:"requester_id" range:"0..0xffff" help:"the device bus/device/function"`
	CompleterID uint16 `toml:"completer_id" json:"completer_id" range:"0..0xffff" help:"the root port bus/device/function"`
	// LinkLatencyCycles is each direction's flight time, after
	// serialization, in core cycles (1..MaxLatency). It stands for the
	// PHY, the data link layer and any switch in between.
	LinkLatencyCycles int `toml:"link_latency_cycles" json:"link_latency_cycles" range:"1..2^16" help:"flight time of each link direction in cycles"`
	// LinkBytesPerCycle is each direction's bandwidth in bytes per core
	// cycle (1..4096): a TLP occupies a direction for SerializationCycles.
	LinkBytesPerCycle int `toml:"link_bytes_per_cycle" json:"link_bytes_per_cycle" range:"1..4096" help:"bandwidth of each link direction in bytes per cycle"`
	// ICMLatencyCycles is the root complex's time from taking an MRd of
	// the ICM (the walks' and the MKC cache's reads, TC 0) to sending its
	// first completion (1..MaxLatency): the root complex and the memory
	// controller.
	ICMLatencyCycles int `toml:"icm_latency_cycles" json:"icm_latency_cycles" range:"1..2^16" help:"cycles from an ICM read (MKC, MTT, KLM; TC 0) at the root complex to its first completion"`
	// DataLatencyCycles is the same for the data path's reads (TCData), so
	// that a walk's cost and a data read's can differ, as an IOMMU walk
	// differs from a DRAM read.
	DataLatencyCycles int `toml:"data_latency_cycles" json:"data_latency_cycles" range:"1..2^16" help:"cycles from a data read (the data path's, data.enabled; TC 1) at the root complex to its first completion"`
}

// MaxLatency bounds the link and host latencies: the channels that model
// them hold one slot per cycle of flight.
const MaxLatency = 1 << 16

// DefaultConfig is the configuration with every default written out, the
// one place that gives them. The clock is the model's core clock, 4 ns
// (250 MHz) by default.
func DefaultConfig() Config {
	return Config{
		Tags:              32,  // reads in flight
		MaxReadRequest:    512, // bytes, Device Control: Max_Read_Request_Size
		MaxPayload:        256, // bytes, Device Control: Max_Payload_Size
		RCB:               64,  // bytes, Link Control: Read Completion Boundary
		LinkLatencyCycles: 75,  // each way: 300 ns at 4 ns, 150 cycles of wire time a round trip
		LinkBytesPerCycle: 32,  // 8 GB/s = 64 Gb/s at 250 MHz (Gen3 x8, Gen4 x4, after line coding)
		ICMLatencyCycles:  20,  // 80 ns from MRd at the root complex to first CplD
		DataLatencyCycles: 20,  // the same for the data path's reads
	}
}

// Validate reports the first parameter out of range, naming it as the
// run's configuration does (pcie.KEY) with its value and what it may be:
// the bounds are the ones the fields' range tags declare (rtl.Config
// checks those first, and a test holds the two together). A zero is out
// of range, never read as a default. NewRequester, NewLink and
// NewRootComplex refuse a Config it refuses.
func (c Config) Validate() error {
	switch {
	case c.Tags < 1 || c.Tags > 768:
		return fmt.Errorf("pcie.tags = %d: want 1..768", c.Tags)
	case !pow2In(c.MaxReadRequest, 128, 4096):
		return fmt.Errorf("pcie.max_read_request = %d: want power of two in 128..4096", c.MaxReadRequest)
	case !pow2In(c.MaxPayload, 128, 4096):
		return fmt.Errorf("pcie.max_payload = %d: want power of two in 128..4096", c.MaxPayload)
	case c.RCB != 64 && c.RCB != 128:
		return fmt.Errorf("pcie.rcb = %d: want 64 or 128", c.RCB)
	case c.LinkLatencyCycles < 1 || c.LinkLatencyCycles > MaxLatency:
		return fmt.Errorf("pcie.link_latency_cycles = %d: want 1..2^16", c.LinkLatencyCycles)
	case c.LinkBytesPerCycle < 1 || c.LinkBytesPerCycle > 4096:
		return fmt.Errorf("pcie.link_bytes_per_cycle = %d: want 1..4096", c.LinkBytesPerCycle)
	case c.ICMLatencyCycles < 1 || c.ICMLatencyCycles > MaxLatency:
		return fmt.Errorf("pcie.icm_latency_cycles = %d: want 1..2^16", c.ICMLatencyCycles)
	case c.DataLatencyCycles < 1 || c.DataLatencyCycles > MaxLatency:
		return fmt.Errorf("pcie.data_latency_cycles = %d: want 1..2^16", c.DataLatencyCycles)
	}
	return nil
}

func pow2In(v, lo, hi int) bool { return v >= lo && v <= hi && v&(v-1) == 0 }

// SerializationCycles is the number of cycles a TLP of wireBytes occupies
// a link direction: ceil(wireBytes / LinkBytesPerCycle), at least 1.
func (c Config) SerializationCycles(wireBytes int) int {
	return max(1, (wireBytes+c.LinkBytesPerCycle-1)/c.LinkBytesPerCycle)
}

// tagBase is the Requester's first tag value: 10-bit tags must not use
// Tag[9:8] = 00b.
func (c Config) tagBase() uint16 {
	if c.Tags > 256 {
		return 256
	}
	return 0
}

// HostConfig is the host memory's acceptance of posted writes (issue 37
// part 4), the [host] table of the configuration file: how long the
// memory takes to accept a write of the data path (traffic class
// TCData), and the root complex's buffer of posted writes waiting for
// it. With WriteLatencyCycles 0 (the default) the memory accepts a write
// the cycle the root complex takes it, as it always did, and the buffer
// and the ordering rules below cost nothing.
//
// With a latency, the root complex keeps each data MWr it takes in its
// posted-write buffer until the memory accepts it, WriteLatencyCycles
// plus a spread drawn for each write (uniform in
// 0..WriteLatencySpreadCycles, from WriteLatencySeed: deterministic)
// after it was taken, and applies the PCIe ordering rules (base
// specification 2.4.1, the Ordering Rules Summary): a posted write without
// Relaxed Ordering may not pass an earlier posted write (rule A2a), so
// it leaves only once every earlier write has; one with RO may (A2b). A
// data read may not pass an earlier posted write, with RO or not (B2a;
// only ID-Based Ordering, B2b, lets a read pass, and the model sends no
// IDO), so it waits at the head of the data pipe until the buffer is
// empty. A full buffer holds the next write at the head of the data
// pipe, which backs up into the link.
type HostConfig struct {
	WriteLatencyCycles       int    `toml:"write_latency_cycles" json:"write_latency_cycles" range:"0..2^16" help:"cycles host memory takes to accept a posted write of the data path (TC 1) after the root complex takes it (0: at once, no posted-write buffer)"`
	WriteLatencySpreadCycles int    `toml:"write_latency_spread_cycles" json:"write_latency_spread_cycles" range:"0..2^16" help:"each data write's latency is write_latency_cycles plus a number drawn uniformly in 0..this (seeded by write_latency_seed); needs write_latency_cycles >= 1"`
	WriteLatencySeed         uint64 `toml:"write_latency_seed" json:"write_latency_seed" range:"0..2^64-1" help:"seed of the draws of write_latency_spread_cycles"`
	WriteBufferEntries       int    `toml:"write_buffer_entries" json:"write_buffer_entries" range:"1..4096" help:"posted writes the root complex holds while host memory accepts them (with write_latency_cycles >= 1): when full, the next write waits in the data pipe and the link backs up"`
}

// DefaultHostConfig is a memory that accepts writes at once, and a
// buffer of 32 posted writes for when it does not.
func DefaultHostConfig() HostConfig { return HostConfig{WriteBufferEntries: 32} }

// Enabled reports whether writes take time to be accepted (the buffer
// and the ordering rules are in force).
func (c HostConfig) Enabled() bool { return c.WriteLatencyCycles > 0 }

// Validate names the first bad parameter with its value.
func (c HostConfig) Validate() error {
	switch {
	case c.WriteLatencyCycles < 0 || c.WriteLatencyCycles > MaxLatency:
		return fmt.Errorf("host.write_latency_cycles = %d: want 0..2^16", c.WriteLatencyCycles)
	case c.WriteLatencySpreadCycles < 0 || c.WriteLatencySpreadCycles > MaxLatency:
		return fmt.Errorf("host.write_latency_spread_cycles = %d: want 0..2^16", c.WriteLatencySpreadCycles)
	case c.WriteLatencySpreadCycles > 0 && c.WriteLatencyCycles == 0:
		return fmt.Errorf("host.write_latency_spread_cycles = %d needs host.write_latency_cycles >= 1 (it is 0: writes are accepted at once)", c.WriteLatencySpreadCycles)
	case c.WriteBufferEntries < 1 || c.WriteBufferEntries > 4096:
		return fmt.Errorf("host.write_buffer_entries = %d: want 1..4096", c.WriteBufferEntries)
	}
	return nil
}
