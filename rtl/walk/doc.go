// Package walk is what the MTT walker (rtl/mttwalk) and the KLM walker
// (rtl/klmwalk) share, kept once: a set of contexts that each walk one
// piece of a request through list entries in host memory, read in lines
// through one line cache (rtl/linecache) and one PCIe read port. Contexts
// holds, for every context,
//
//	FREE ──Start──> ACT ──Miss──> FETCH ──Take (completion)──> ACT ──Finish──> FREE
//
// (the walkers name ACT after what a context does there: PAGE in the MTT
// walker, SEARCH in the KLM walker) and its fetch slot (linecache.Slot:
// the line in flight, stale or not, and the last line filled); and for the
// walker the cache, the round-robin pointer over the contexts in ACT, the
// cuts (bus.Cut) and the read port, of which a walker uses one push a
// cycle.
//
// What it does, in the order a walker's Eval calls it:
//
//   - Take records a cut of the reorder buffer (Ports.Cut); carries out an
//     invalidation of list bytes (Ctrl) when Ack can take its
//     acknowledgement: the cached lines and each context's kept line of
//     the range are dropped, and a read in flight of it is marked stale
//     (rocket-chip's invalidate-during-refill hazard); and takes a read
//     completion (MemResp): one for a context no longer waiting for it is
//     dropped; a stale one is read again (same ID, same line) when the
//     read port is free, else held; any other fills the cache if it
//     succeeded and wakes the context that sent it and, with merged
//     misses, every context that joined it (a failed read installs
//     nothing: the contexts read again);
//   - Step lets one context in ACT act, the first that can in round-robin
//     order from the one after the last that acted; it calls Get, Hit and
//     Miss: a miss sends a read of the line (ID the context's number),
//     unless the read port pushed already this cycle or cannot take it, or
//     joins a read of the same line in flight (Config.MergeMisses of the
//     walkers).
//
// It also draws the walkers' waveform scope from the unit's own signals
// and each context's state and tag (Describe), and lists the ports the
// walkers share (Connections).
//
// Where it sits: between the shared rtl packages (rtl/sim, rtl/bus,
// rtl/pcie, rtl/linecache), which it imports, and the walker units, which
// import it (internal/layers: the units' list). It is a library, not a
// unit: it has no clock of its own and its state is the walker's
// registers, read and written in the walker's Eval.
package walk
