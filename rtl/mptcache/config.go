package mptcache

import (
	"fmt"

	"mkeysim/prm"
)

// Replacement policies.
const (
	// ReplLRU evicts the least recently used way of the set.
	ReplLRU = "lru"
	// ReplRandom evicts a way drawn from a PRNG seeded by Config.Seed.
	ReplRandom = "random"
)

// Config holds the unit's parameters. It is copied by New and frozen
// there: changing a Config after New changes nothing.
type Config struct {
	// Sets is the number of sets, a power of two; the set of MKey index i
	// is i mod Sets.
	Sets int `toml:"sets" json:"sets" help:"MKC cache sets (a power of two); entries = sets x ways, 64 bytes each"`
	// Ways is the associativity.
	Ways int `toml:"ways" json:"ways" help:"MKC cache ways per set"`
	// Replacement picks the victim way when a fill finds its set full:
	// ReplLRU or ReplRandom. An invalid way is always used first.
	Replacement string `toml:"replacement" json:"replacement" help:"replacement policy: lru or random"`
	// Seed seeds the PRNG of ReplRandom, so that runs are reproducible.
	Seed uint64 `toml:"seed" json:"seed" help:"seed of the random replacement policy"`
	// MSHRs is the number of miss status holding registers, that is of
	// distinct MKey indexes that may miss at once; it is also the number
	// of MKC reads in flight (an MSHR's ID is its read's ID).
	MSHRs int `toml:"mshrs" json:"mshrs" help:"miss status holding registers: distinct MKC misses in flight"`
	// LoopMSHRs of the MSHRs are reserved for misses of loop-back pieces:
	// pieces from In may allocate only while fewer than MSHRs-LoopMSHRs
	// are in use.
	LoopMSHRs int `toml:"loop_mshrs" json:"loop_mshrs" help:"MSHRs reserved for KLM loop-back lookups (deadlock freedom)"`
	// Targets is the number of pieces one MSHR holds (the primary miss and
	// the secondary misses merged into it).
	Targets int `toml:"targets" json:"targets" help:"requests waiting on one MSHR"`
	// LoopTargets of each MSHR's Targets are reserved for loop-back pieces:
	// pieces from In may merge only while the MSHR holds fewer than
	// Targets-LoopTargets level-0 pieces. Like LoopMSHRs, this keeps a
	// loop piece from ever waiting behind level-0 traffic.
	LoopTargets int `toml:"loop_targets" json:"loop_targets" help:"targets per MSHR reserved for loop-back lookups"`
	// ICMBase is the host address of MKC 0: MKC i is the 64 bytes at
	// ICMBase + 64*i. It must be 64-byte aligned.
	ICMBase uint64 `toml:"icm_base" json:"icm_base" help:"host address of MKC 0 in the ICM (MKC i at icm_base + 64 i)"`
}

// DefaultConfig returns the default parameters: 64 sets of 4 ways (256
// MKCs, 16 KB of context), LRU, 8 MSHRs of which 2 are reserved for the
// loop, 8 targets per MSHR of which 1 is reserved for the loop, ICM at 0.
func DefaultConfig() Config {
	return Config{
		Sets:        128,
		Ways:        4,
		Replacement: ReplLRU,
		Seed:        1,
		MSHRs:       16,
		LoopMSHRs:   2,
		Targets:     8,
		LoopTargets: 1,
		ICMBase:     0,
	}
}

// Validate reports the first parameter out of range, naming the field (by
// its toml key) and the value.
func (c *Config) Validate() error {
	switch {
	case c.Sets < 1 || c.Sets&(c.Sets-1) != 0:
		return fmt.Errorf("mptcache: sets = %d: must be a power of two >= 1", c.Sets)
	case c.Sets > prm.MaxIndex+1:
		return fmt.Errorf("mptcache: sets = %d: more than the %d MKey indexes", c.Sets, prm.MaxIndex+1)
	case c.Ways < 1 || c.Ways > 1024:
		return fmt.Errorf("mptcache: ways = %d: must be 1..1024", c.Ways)
	case c.Sets*c.Ways > 1<<20:
		return fmt.Errorf("mptcache: sets x ways = %d x %d: at most %d entries", c.Sets, c.Ways, 1<<20)
	case c.Replacement != ReplLRU && c.Replacement != ReplRandom:
		return fmt.Errorf("mptcache: replacement = %q: must be %q or %q", c.Replacement, ReplLRU, ReplRandom)
	case c.LoopMSHRs < 1:
		return fmt.Errorf("mptcache: loop_mshrs = %d: must be >= 1", c.LoopMSHRs)
	case c.MSHRs <= c.LoopMSHRs:
		return fmt.Errorf("mptcache: mshrs = %d: must be more than loop_mshrs = %d", c.MSHRs, c.LoopMSHRs)
	case c.LoopTargets < 1:
		return fmt.Errorf("mptcache: loop_targets = %d: must be >= 1", c.LoopTargets)
	case c.Targets <= c.LoopTargets:
		return fmt.Errorf("mptcache: targets = %d: must be more than loop_targets = %d", c.Targets, c.LoopTargets)
	case c.ICMBase%prm.MKCSize != 0:
		return fmt.Errorf("mptcache: icm_base = %#x: must be %d-byte aligned", c.ICMBase, prm.MKCSize)
	case c.ICMBase > ^uint64(0)-prm.MKCSize*(prm.MaxIndex+1)+1:
		return fmt.Errorf("mptcache: icm_base = %#x: the MKC table (%d x %d bytes) would pass the end of the address space", c.ICMBase, prm.MaxIndex+1, prm.MKCSize)
	}
	return nil
}

// addr is the ICM address of the MKC of index.
func (c *Config) addr(index uint32) uint64 {
	return c.ICMBase + prm.MKCSize*uint64(index)
}
