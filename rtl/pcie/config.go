package pcie

import (
	"errors"
	"fmt"
)

// Defaults. The clock is the model's core clock, 4 ns (250 MHz) by default.
const (
	DefaultTags           = 32  // reads in flight
	DefaultMaxReadRequest = 512 // bytes, Device Control: Max_Read_Request_Size
	DefaultMaxPayload     = 256 // bytes, Device Control: Max_Payload_Size
	DefaultRCB            = 64  // bytes, Link Control: Read Completion Boundary
	DefaultLinkLatency    = 75  // cycles each way: 300 ns at 4 ns, 150 round trip
	DefaultBytesPerCycle  = 32  // 8 GB/s = 64 Gb/s at 250 MHz (Gen3 x8, Gen4 x4)
	DefaultICMLatency     = 20  // cycles from MRd at the root complex to first CplD
)

// Config is every parameter of the PCIe side of the model, as read from the
// [pcie] table of the configuration file; each field's range tag is what it
// may be. The component configurations are derived from it so that both
// ends agree on RCB and Max_Payload_Size. The run's configuration holds
// every value written out (DefaultConfig) and refuses a zero out of range;
// only the unit's own tests lean on WithDefaults, which reads a zero field
// as its default.
type Config struct {
	// Tags is the number of read tags of the device, so the bound on MRd
	// TLPs in flight: 1..256 (5- or 8-bit tags) or 257..768 (10-bit tags,
	// which use the values with tag bits 9:8 not 00b).
	Tags int `toml:"tags" json:"tags" range:"1..768" help:"PCIe read tags: reads in flight (above 256: 10-bit tags)"`
	// MaxReadRequest is the device's Max_Read_Request_Size in bytes: a
	// power of two, 128..4096.
	MaxReadRequest int `toml:"max_read_request" json:"max_read_request" range:"power of two in 128..4096" help:"Max_Read_Request_Size in bytes"`
	// MaxPayload is the Max_Payload_Size in bytes, bounding every TLP's
	// payload, completions included: a power of two, 128..4096.
	MaxPayload int `toml:"max_payload" json:"max_payload" range:"power of two in 128..4096" help:"Max_Payload_Size in bytes"`
	// RCB is the root port's Read Completion Boundary in bytes: 64 or 128.
	RCB int `toml:"rcb" json:"rcb" range:"64 or 128" help:"read completion boundary in bytes"`
	// SplitOnAllRCB makes the root complex end a completion at every RCB
	// boundary (64-byte completions, as many hosts return) instead of
	// sending the largest completions Max_Payload_Size allows.
	SplitOnAllRCB bool `toml:"split_on_all_rcb" json:"split_on_all_rcb" range:"false or true" help:"the host ends a completion at every RCB boundary"`
	// RequesterID is the device's bus/device/function; CompleterID is the
	// root port's.
	RequesterID uint16 `toml:"requester_id" json:"requester_id" range:"0..0xffff" help:"the device bus/device/function"`
	CompleterID uint16 `toml:"completer_id" json:"completer_id" range:"0..0xffff" help:"the root port bus/device/function"`
	// LinkLatencyCycles is each direction's flight time, after
	// serialization, in core cycles (>= 1).
	LinkLatencyCycles int `toml:"link_latency_cycles" json:"link_latency_cycles" range:"1..2^16" help:"flight time of each link direction in cycles"`
	// LinkBytesPerCycle is each direction's bandwidth in bytes per core
	// cycle (>= 1).
	LinkBytesPerCycle int `toml:"link_bytes_per_cycle" json:"link_bytes_per_cycle" range:"1..4096" help:"bandwidth of each link direction in bytes per cycle"`
	// ICMLatencyCycles is the root complex's time from taking an MRd of
	// the ICM (the walks' and the MKC cache's reads, TC 0) to sending its
	// first completion (>= 1).
	ICMLatencyCycles int `toml:"icm_latency_cycles" json:"icm_latency_cycles" range:"1..2^16" help:"cycles from an ICM read (MKC, MTT, KLM; TC 0) at the root complex to its first completion"`
	// DataLatencyCycles is the same for the data path's reads (TCData), so
	// that a walk's cost and a data read's can differ, as an IOMMU walk
	// differs from a DRAM read.
	DataLatencyCycles int `toml:"data_latency_cycles" json:"data_latency_cycles" range:"1..2^16" help:"cycles from a data read (the data path's, data.enabled; TC 1) at the root complex to its first completion"`
}

// DefaultConfig is the configuration with every default written out.
func DefaultConfig() Config {
	return Config{
		Tags:              DefaultTags,
		MaxReadRequest:    DefaultMaxReadRequest,
		MaxPayload:        DefaultMaxPayload,
		RCB:               DefaultRCB,
		LinkLatencyCycles: DefaultLinkLatency,
		LinkBytesPerCycle: DefaultBytesPerCycle,
		ICMLatencyCycles:  DefaultICMLatency,
		DataLatencyCycles: DefaultICMLatency,
	}
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	def(&c.Tags, DefaultTags)
	def(&c.MaxReadRequest, DefaultMaxReadRequest)
	def(&c.MaxPayload, DefaultMaxPayload)
	def(&c.RCB, DefaultRCB)
	def(&c.LinkLatencyCycles, DefaultLinkLatency)
	def(&c.LinkBytesPerCycle, DefaultBytesPerCycle)
	def(&c.ICMLatencyCycles, DefaultICMLatency)
	def(&c.DataLatencyCycles, DefaultICMLatency)
	return c
}

// Validate reports every parameter out of range (after defaults).
func (c Config) Validate() error {
	return errors.Join(c.Requester().Validate(), c.Link().Validate(), c.RootComplex().Validate())
}

// Requester is the device-side read engine's configuration.
func (c Config) Requester() RequesterConfig {
	c = c.WithDefaults()
	return RequesterConfig{Tags: c.Tags, MaxReadRequest: c.MaxReadRequest, RCB: c.RCB,
		MaxPayload: c.MaxPayload, RequesterID: c.RequesterID}
}

// Link is the configuration of each link direction.
func (c Config) Link() LinkConfig {
	c = c.WithDefaults()
	return LinkConfig{LatencyCycles: c.LinkLatencyCycles, BytesPerCycle: c.LinkBytesPerCycle}
}

// RootComplex is the host side's configuration.
func (c Config) RootComplex() RootComplexConfig {
	c = c.WithDefaults()
	return RootComplexConfig{ICMLatency: c.ICMLatencyCycles, DataLatency: c.DataLatencyCycles, RCB: c.RCB,
		MaxPayload: c.MaxPayload, SplitOnAllRCB: c.SplitOnAllRCB, CompleterID: c.CompleterID}
}

func def(p *int, d int) {
	if *p == 0 {
		*p = d
	}
}

func pow2In(v, lo, hi int) bool { return v >= lo && v <= hi && v&(v-1) == 0 }

func checkSizes(mrrs, mps, rcb int) error {
	var errs []error
	if mrrs != 0 && !pow2In(mrrs, 128, 4096) {
		errs = append(errs, fmt.Errorf("pcie.max_read_request = %d: want power of two in 128..4096", mrrs))
	}
	if !pow2In(mps, 128, 4096) {
		errs = append(errs, fmt.Errorf("pcie.max_payload = %d: want power of two in 128..4096", mps))
	}
	if rcb != 64 && rcb != 128 {
		errs = append(errs, fmt.Errorf("pcie.rcb = %d: want 64 or 128", rcb))
	}
	return errors.Join(errs...)
}
