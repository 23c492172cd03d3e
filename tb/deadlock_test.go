package tb

import (
	"cmp"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"mkeysim/rtl"
	"mkeysim/tb/stimulus"
)

// leastConfig is every parameter at the least value the model accepts,
// for the depth limit depth: one entry of every cache, one MSHR for
// level-0 misses and one reserved for the loop, one target each, one
// walker, one KLM context for level 0 and one for each level 1..depth,
// one tag, FIFOs of one, the shortest latencies and the smallest PCIe
// sizes.
func leastConfig(depth int) rtl.Config {
	c := rtl.DefaultConfig()
	c.ROBEntries, c.FIFODepth, c.StageLat, c.CmdLatency = 1, 1, 1, 0
	c.MKCCache.Sets, c.MKCCache.Ways = 1, 1
	c.MKCCache.MSHRs, c.MKCCache.LoopMSHRs, c.MKCCache.Targets, c.MKCCache.LoopTargets = 1, 1, 2, 1
	c.MTT.Walkers = 1
	c.MTT.Cache.Entries, c.MTT.Cache.EntriesPerLine, c.MTT.Cache.Ways = 1, 1, 1
	c.KLM.MaxIndirection = depth
	c.KLM.NestedContexts = max(depth, 1)
	c.KLM.Contexts = c.KLM.NestedContexts + 1
	c.KLM.Cache.Entries, c.KLM.Cache.EntriesPerLine, c.KLM.Cache.Ways = 1, 1, 1
	c.PCIe.Tags, c.PCIe.MaxReadRequest, c.PCIe.MaxPayload, c.PCIe.RCB = 1, 128, 128, 64
	c.PCIe.LinkLatencyCycles, c.PCIe.LinkBytesPerCycle, c.PCIe.ICMLatencyCycles = 1, 1, 1
	return c
}

// TestNoDeadlockAtLeastResources: random KLM trees as deep as the depth
// limit allows, with accesses fanning out over many entries and the same
// keys looked up at level 0 and through the loop, run to the end (the
// golden model's results, never a watchdog) with every parameter at its
// least accepted value, and with random configurations in which each
// parameter is at its least or a random value. Two configurations the
// model accepted and deadlocked in used to be: mkc_cache.mshrs 2 with
// loop_mshrs 1, and max_indirection 10 with a one-line MKC cache and
// FIFOs of one (a level-0 piece merged into the loop's reserved MSHR and
// held it while level-0 traffic waited on the loop).
func TestNoDeadlockAtLeastResources(t *testing.T) {
	depths := []int{0, 1, 2, 3, 4, 6, 10}
	seeds := int64(6)
	if testing.Short() {
		seeds = 2
	}
	for _, depth := range depths {
		for seed := int64(1); seed <= seeds; seed++ {
			sc := stimulus.KLMTrees(seed, depth, 120)
			runBoth(t, fmt.Sprintf("least resources, depth %d, seed %d", depth, seed), sc, leastConfig(depth), nil)
			r := rand.New(rand.NewSource(seed))
			cfg := randomLeast(r, depth)
			runBoth(t, fmt.Sprintf("depth %d, seed %d, config %+v", depth, seed, cfg), sc, cfg, nil)
			// Every channel stalled at random in a fifth of the cycles.
			runBoth(t, fmt.Sprintf("least resources, back-pressure, depth %d, seed %d", depth, seed), sc, leastConfig(depth),
				func(b *Bench) { b.Eng.Backpressure(uint64(seed), 200) })
		}
	}
}

// randomLeast is a configuration in which each parameter is, at random,
// at its least accepted value or at a random one above it.
func randomLeast(r *rand.Rand, depth int) rtl.Config {
	c := leastConfig(depth)
	pick := func(p *int, hi int) {
		if r.Intn(2) == 0 {
			*p += r.Intn(hi)
		}
	}
	pow2 := func(p *int, maxLog int) {
		if r.Intn(2) == 0 {
			*p <<= r.Intn(maxLog + 1)
		}
	}
	pick(&c.ROBEntries, 64)
	pick(&c.FIFODepth, 4)
	pick(&c.StageLat, 3)
	pick(&c.CmdLatency, 50)
	pow2(&c.MKCCache.Sets, 4)
	pick(&c.MKCCache.Ways, 4)
	pick(&c.MKCCache.LoopMSHRs, 3)
	pick(&c.MKCCache.MSHRs, 8)
	pick(&c.MKCCache.LoopTargets, 2)
	c.MKCCache.Targets = c.MKCCache.LoopTargets + 1
	pick(&c.MKCCache.Targets, 6)
	pick(&c.MTT.Walkers, 8)
	pow2(&c.MTT.Cache.EntriesPerLine, 3)
	pick(&c.MTT.Cache.Ways, 3)
	sets := 1
	pow2(&sets, 3)
	c.MTT.Cache.Entries = sets * c.MTT.Cache.Ways * c.MTT.Cache.EntriesPerLine
	pick(&c.KLM.NestedContexts, 8)
	c.KLM.Contexts = c.KLM.NestedContexts + 1
	pick(&c.KLM.Contexts, 8)
	pow2(&c.KLM.Cache.EntriesPerLine, 3)
	pick(&c.KLM.Cache.Ways, 3)
	sets = 1
	pow2(&sets, 3)
	c.KLM.Cache.Entries = sets * c.KLM.Cache.Ways * c.KLM.Cache.EntriesPerLine
	pick(&c.PCIe.Tags, 32)
	pow2(&c.PCIe.MaxReadRequest, 5)
	pow2(&c.PCIe.MaxPayload, 2)
	pick(&c.PCIe.LinkLatencyCycles, 100)
	pick(&c.PCIe.LinkBytesPerCycle, 32)
	pick(&c.PCIe.ICMLatencyCycles, 50)
	// The list caches' policies, fully associative at times, and
	// merging off at times (drawn last: the draws above keep the
	// configurations of before). Pseudo-LRU wants a power-of-two set.
	shape := func(lines int, ways *int, repl *string, merge *bool) {
		if r.Intn(4) == 0 {
			*ways = 0
		}
		*repl = [...]string{"lru", "plru", "nru", "random"}[r.Intn(4)]
		if w := cmp.Or(*ways, lines); *repl == "plru" && w&(w-1) != 0 {
			*repl = "lru"
		}
		*merge = r.Intn(3) != 0
	}
	shape(c.MTT.Cache.Lines(), &c.MTT.Cache.Ways, &c.MTT.Cache.Replacement, &c.MTT.MergeMisses)
	shape(c.KLM.Cache.Lines(), &c.KLM.Cache.Ways, &c.KLM.Cache.Replacement, &c.KLM.MergeMisses)
	return c
}

// TestLeastConfigIsTheLeast: leastConfig is accepted at every depth, and
// taking one from any of its resources is refused, the refusal of a
// resource that recursion needs stating why.
func TestLeastConfigIsTheLeast(t *testing.T) {
	for _, depth := range []int{0, 1, 4, 10, 64} {
		c := leastConfig(depth)
		if err := c.Validate(); err != nil {
			t.Fatalf("depth %d: the least configuration is refused: %v", depth, err)
		}
		for _, tc := range []struct {
			name string
			set  func(*rtl.Config)
			why  string
		}{
			{"rob_entries", func(c *rtl.Config) { c.ROBEntries-- }, ""},
			{"fifo_depth", func(c *rtl.Config) { c.FIFODepth-- }, ""},
			{"mkc_cache.sets", func(c *rtl.Config) { c.MKCCache.Sets-- }, ""},
			{"mkc_cache.ways", func(c *rtl.Config) { c.MKCCache.Ways-- }, ""},
			{"mkc_cache.loop_mshrs", func(c *rtl.Config) { c.MKCCache.LoopMSHRs-- }, "deadlock"},
			{"mkc_cache.mshrs", func(c *rtl.Config) { c.MKCCache.MSHRs-- }, ""},
			{"mkc_cache.loop_targets", func(c *rtl.Config) { c.MKCCache.LoopTargets-- }, "loop_mshrs"},
			{"mkc_cache.targets", func(c *rtl.Config) { c.MKCCache.Targets-- }, "level-0"},
			{"mtt.walkers", func(c *rtl.Config) { c.MTT.Walkers-- }, ""},
			{"klm.nested_contexts", func(c *rtl.Config) { c.KLM.NestedContexts = depth - 1 }, "progress"},
			{"klm.contexts", func(c *rtl.Config) { c.KLM.Contexts = c.KLM.NestedContexts }, "level 0"},
			{"pcie.tags", func(c *rtl.Config) { c.PCIe.Tags-- }, ""},
			{"mtt.cache.entries", func(c *rtl.Config) { c.MTT.Cache.Entries-- }, ""},
			{"klm.cache.entries", func(c *rtl.Config) { c.KLM.Cache.Entries-- }, ""},
		} {
			if tc.name == "klm.nested_contexts" && depth == 0 {
				continue
			}
			c := leastConfig(depth)
			tc.set(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("depth %d, %s one less: %v; want a refusal naming it (and saying %q)", depth, tc.name, err, tc.why)
			}
		}
	}
}
