package klmwalk

import (
	"fmt"

	"mkeysim/rtl/linecache"
)

// Config is the unit's parameters.
type Config struct {
	Cache          linecache.Config `toml:"cache" json:"cache" help:"KLM entry cache"`                                                                            // KLM entry cache geometry
	Contexts       int              `toml:"contexts" json:"contexts" help:"pieces the KLM walker works on at once"`                                               // pieces walked at once
	NestedContexts int              `toml:"nested_contexts" json:"nested_contexts" help:"contexts reserved for nested (loop-back) pieces"`                        // contexts only nested pieces may take
	LoopCredits    int              `toml:"loop_credits" json:"loop_credits" help:"children in the loop-back path at once (depth of the loop and nested queues)"` // children in the loop at once
	MaxIndirection int              `toml:"max_indirection" json:"max_indirection" help:"deepest KLM level whose key may be looked up (translation.md 4: 4)"`     // deepest level looked up
}

// DefaultConfig: 8 KB of cached entries, 16 contexts, 8 credits, depth 4.
func DefaultConfig() Config {
	return Config{Cache: linecache.Config{Sets: 32, Ways: 4}, Contexts: 16, NestedContexts: 8, LoopCredits: 8, MaxIndirection: 4}
}

// Validate names the first bad parameter.
func (c Config) Validate() error {
	if err := c.Cache.Validate("klm.cache."); err != nil {
		return err
	}
	switch {
	case c.Contexts < 2 || c.Contexts > 1024:
		return fmt.Errorf("klm.contexts = %d: want 2..1024", c.Contexts)
	case c.NestedContexts < 1 || c.NestedContexts >= c.Contexts:
		return fmt.Errorf("klm.nested_contexts = %d: want 1..contexts-1 (%d)", c.NestedContexts, c.Contexts-1)
	case c.LoopCredits < 1 || c.LoopCredits > 1024:
		return fmt.Errorf("klm.loop_credits = %d: want 1..1024", c.LoopCredits)
	case c.MaxIndirection < 0 || c.MaxIndirection > 255:
		return fmt.Errorf("klm.max_indirection = %d: want 0..255", c.MaxIndirection)
	}
	return nil
}
