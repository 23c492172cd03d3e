package klmwalk

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/rtl/linecache"
)

// Config is the unit's parameters.
type Config struct {
	Cache          linecache.Config `toml:"cache" json:"cache" help:"KLM entry cache"`
	Contexts       int              `toml:"contexts" json:"contexts" range:"2..4096" why:"level 0 needs a context of its own beside the nested ones, and there is at least one nested" help:"pieces the KLM walker works on at once, all levels together (more than nested_contexts)"`
	NestedContexts int              `toml:"nested_contexts" json:"nested_contexts" range:"0..4095" help:"contexts for nested (loop-back) pieces, shared out over levels 1..max_indirection (at least one each)"`
	MaxIndirection int              `toml:"max_indirection" json:"max_indirection" range:"0..64" help:"deepest KLM level whose key may be looked up (translation.md 4: 4)"`
	Cursors        int              `toml:"cursors" json:"cursors" range:"0..1024" help:"variable KLM lists whose last position the walker remembers, so that the next piece of the same list searches from there (0: every piece searches from entry 0)"`
	// MergeMisses makes a context that misses on a line another context
	// is reading wait for that read instead of sending its own.
	MergeMisses bool `toml:"merge_misses" json:"merge_misses" range:"false or true" help:"a context that misses on a line another context is already reading waits for that read instead of reading the line again (false: every miss reads)"`
}

// EntryBytes is the size of a KLM entry, the unit the cache is sized in.
const EntryBytes = prm.KLMEntrySize

// DefaultConfig: 8 KB of cached entries (512 in 32 sets of 4 lines of 4,
// LRU), 16 contexts of which 8 nested (2 per level), depth 4, 16 list
// cursors, misses merged.
func DefaultConfig() Config {
	return Config{Cache: linecache.Config{Entries: 512, EntriesPerLine: 4, Ways: 4, Replacement: linecache.LRU, Seed: 1},
		Contexts: 16, NestedContexts: 8, MaxIndirection: 4, Cursors: 16, MergeMisses: true}
}

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if err := c.Cache.Validate("klm.cache.", EntryBytes); err != nil {
		return err
	}
	switch {
	case c.MaxIndirection < 0 || c.MaxIndirection > 64:
		return fmt.Errorf("klm.max_indirection = %d: want 0..64", c.MaxIndirection)
	case c.Contexts < 2 || c.Contexts > 4096:
		return fmt.Errorf("klm.contexts = %d: want 2..4096", c.Contexts)
	case c.NestedContexts < 0 || c.NestedContexts > 4095:
		return fmt.Errorf("klm.nested_contexts = %d: want 0..4095", c.NestedContexts)
	case c.NestedContexts < c.MaxIndirection:
		return fmt.Errorf("klm.nested_contexts = %d: want at least klm.max_indirection = %d: each level 1..max_indirection needs a context of its own, or recursion can wait on itself and never progress", c.NestedContexts, c.MaxIndirection)
	case c.NestedContexts >= c.Contexts:
		return fmt.Errorf("klm.nested_contexts = %d: want fewer than klm.contexts = %d: level 0 needs at least one context of its own", c.NestedContexts, c.Contexts)
	case c.Cursors < 0 || c.Cursors > 1024:
		return fmt.Errorf("klm.cursors = %d: want 0..1024", c.Cursors)
	}
	return nil
}

// LoopSlots is the most children that can be in the loop-back path at
// once (one per nested context): the depth the loop, nested and credit
// channels need so that they never block.
func (c Config) LoopSlots() int { return max(c.NestedContexts, 1) }

// levelOf returns the level served by each context: Contexts-NestedContexts
// for level 0, then the nested ones shared out over levels 1..Max.
func (c Config) levelOf() []uint8 {
	lv := make([]uint8, c.Contexts)
	n0 := c.Contexts - c.NestedContexts
	for i := n0; i < c.Contexts; i++ {
		if c.MaxIndirection > 0 {
			lv[i] = uint8(1 + (i-n0)%c.MaxIndirection)
		}
	}
	return lv
}
