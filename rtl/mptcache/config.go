package mptcache

import (
	"fmt"
	"strconv"

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
	Sets int `toml:"sets" json:"sets" range:"power of two in 1..2^20" help:"MKC cache sets; entries = sets x ways (at most 2^20), 64 bytes each"`
	// Ways is the associativity.
	Ways int `toml:"ways" json:"ways" range:"1..1024" help:"MKC cache ways per set"`
	// Replacement picks the victim way when a fill finds its set full:
	// ReplLRU or ReplRandom. An invalid way is always used first.
	Replacement string `toml:"replacement" json:"replacement" range:"lru or random" help:"replacement policy"`
	// Seed seeds the PRNG of ReplRandom, so that runs are reproducible.
	Seed uint64 `toml:"seed" json:"seed" range:"0..2^64-1" help:"seed of the random replacement policy"`
	// MSHRs is the number of miss status holding registers that level-0
	// misses (pieces from In) may hold: distinct MKey indexes missing at
	// once. The unit has MSHRs+LoopMSHRs in all, which is also the number
	// of MKC reads in flight (an MSHR's ID is its read's ID).
	MSHRs int `toml:"mshrs" json:"mshrs" range:"1..1023" help:"miss status holding registers for level-0 misses: distinct MKC misses in flight from requests (the unit has mshrs + loop_mshrs, at most 1024)"`
	// LoopMSHRs more MSHRs are reserved for misses of loop-back pieces:
	// pieces from In may allocate only while fewer than MSHRs are in
	// use.
	LoopMSHRs int `toml:"loop_mshrs" json:"loop_mshrs" range:"1..1023" why:"KLM recursion needs at least one MSHR that level-0 traffic cannot hold, or it can deadlock; one is enough at any depth" help:"MSHRs reserved for KLM loop-back lookups; at least 1: recursion needs an MSHR that level-0 traffic cannot hold, or it can deadlock, and 1 is enough at any depth"`
	// Targets is the number of pieces one MSHR holds (the primary miss and
	// the secondary misses merged into it).
	Targets int `toml:"targets" json:"targets" range:"2..256" why:"level-0 pieces need at least one target beside the loop's reserve (at least 1)" help:"requests waiting on one MSHR (more than loop_targets)"`
	// LoopTargets of each MSHR's Targets are reserved for loop-back pieces:
	// pieces from In may merge only while the MSHR holds fewer than
	// Targets-LoopTargets level-0 pieces. Like LoopMSHRs, this keeps a
	// loop piece from ever waiting behind level-0 traffic.
	LoopTargets int `toml:"loop_targets" json:"loop_targets" range:"1..255" why:"KLM recursion needs at least one target of each MSHR that level-0 pieces cannot take, as for loop_mshrs" help:"targets per MSHR reserved for loop-back lookups; at least 1, for the same reason as loop_mshrs"`
	// ICMBase is the host address of MKC 0: MKC i is the 64 bytes at
	// ICMBase + 64*i. It must be 64-byte aligned.
	ICMBase uint64 `toml:"icm_base" json:"icm_base" range:"multiple of 64 in 0..0xffffffffffffffc0" help:"host address of MKC 0 in the ICM (MKC i at icm_base + 64 i); the 1 GiB table must end by 2^64 and not overlap another region of host memory (the translation lists, 0x100000000 to 2^48)"`
}

// DefaultConfig returns the default parameters: 128 sets of 4 ways (512
// MKCs, 32 KB of context), LRU, 14 MSHRs for level-0 misses and 2 more
// reserved for the loop, 8 targets per MSHR of which 1 is reserved for
// the loop, ICM at 0.
func DefaultConfig() Config {
	return Config{
		Sets:        128,
		Ways:        4,
		Replacement: ReplLRU,
		Seed:        1,
		MSHRs:       14,
		LoopMSHRs:   2,
		Targets:     8,
		LoopTargets: 1,
		ICMBase:     0,
	}
}

// Validate reports the first parameter out of range, naming it as the
// run's configuration does (mkc_cache.KEY) with its value and what it may
// be. The bounds are the ones the fields' range tags declare (rtl.Config
// checks those first, and a test holds the two together); the rules that
// tie parameters together are only here.
func (c *Config) Validate() error {
	switch {
	case c.Sets < 1 || c.Sets > 1<<20 || c.Sets&(c.Sets-1) != 0:
		return fmt.Errorf("mkc_cache.sets = %d: want power of two in 1..2^20", c.Sets)
	case c.Ways < 1 || c.Ways > 1024:
		return fmt.Errorf("mkc_cache.ways = %d: want 1..1024", c.Ways)
	case c.Sets*c.Ways > 1<<20:
		return fmt.Errorf("mkc_cache.sets x ways = %d x %d: want at most 2^20 entries", c.Sets, c.Ways)
	case c.Replacement != ReplLRU && c.Replacement != ReplRandom:
		return fmt.Errorf("mkc_cache.replacement = %s: want %s or %s", quote(c.Replacement), ReplLRU, ReplRandom)
	case c.MSHRs < 1 || c.MSHRs > 1023:
		return fmt.Errorf("mkc_cache.mshrs = %d: want 1..1023", c.MSHRs)
	case c.LoopMSHRs < 1 || c.LoopMSHRs > 1023:
		return fmt.Errorf("mkc_cache.loop_mshrs = %d: want 1..1023: KLM recursion needs at least one MSHR that level-0 traffic cannot hold, or it can deadlock", c.LoopMSHRs)
	case c.MSHRs+c.LoopMSHRs > 1024:
		return fmt.Errorf("mkc_cache.mshrs = %d: with mkc_cache.loop_mshrs = %d, %d MSHRs, want at most 1024", c.MSHRs, c.LoopMSHRs, c.MSHRs+c.LoopMSHRs)
	case c.Targets < 2 || c.Targets > 256:
		return fmt.Errorf("mkc_cache.targets = %d: want 2..256", c.Targets)
	case c.LoopTargets < 1 || c.LoopTargets > 255:
		return fmt.Errorf("mkc_cache.loop_targets = %d: want 1..255", c.LoopTargets)
	case c.Targets <= c.LoopTargets:
		return fmt.Errorf("mkc_cache.targets = %d: want more than mkc_cache.loop_targets = %d: level-0 pieces need at least one target the loop's reserve leaves them", c.Targets, c.LoopTargets)
	case c.ICMBase%prm.MKCSize != 0:
		return fmt.Errorf("mkc_cache.icm_base = %#x: want multiple of 64 in 0..0xffffffffffffffc0", c.ICMBase)
	case c.ICMBase > ^uint64(0)-prm.MKCSize*(prm.MaxIndex+1)+1:
		return fmt.Errorf("mkc_cache.icm_base = %#x: the MKC table (%d x %d bytes) would pass the end of the address space", c.ICMBase, prm.MaxIndex+1, prm.MKCSize)
	}
	return nil
}

// quote quotes s for an error: at most its first 64 characters, then an
// ellipsis.
func quote(s string) string {
	if r := []rune(s); len(r) > 64 {
		return strconv.Quote(string(r[:64])) + "…"
	}
	return strconv.Quote(s)
}

// addr is the ICM address of the MKC of index.
func (c *Config) addr(index uint32) uint64 {
	return c.ICMBase + prm.MKCSize*uint64(index)
}
