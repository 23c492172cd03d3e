// Package mptcache is the MKC cache: it finds the MKey Context of each
// piece's key index, on chip if it can, else by a 64-byte read of ICM over
// PCIe, and passes the piece on with its context to the protection checker.
// It also carries out invalidations by index, so that from a point in its
// output stream on no piece sees an old context.
//
// # Pipeline
//
// Eval processes the stages from the back to the front, so that a stage
// frees its output before the stage ahead of it claims it; each output
// channel takes at most one push a cycle and the stages listed first have
// priority on it.
//
//	MemResp ─> [1 fill] ───────────────> tag/data array (install, evict)
//	                │ stale: refetch          │
//	Ctrl ───> [2 inval] ── token ────────────────────────────> Out
//	                                          │
//	           MSHR file ─> [3 replay] ─ level-0 target ───────> Out
//	              ^   │                └─ loop target ───────> OutLoop
//	              │   └───> [4 reissue] ─────────────────────> MemReq
//	Loop ─┬─> [5 lookup] ─ hit ─ level-0 piece ──────────────> Out
//	In ───┘       │            └ loop piece ─────────────────> OutLoop
//	              ├─ miss, MSHR of the index: merge (secondary miss)
//	              └─ miss, no MSHR: allocate, read ──────────> MemReq
//
// The stages, in the order Eval runs them:
//
//  1. Fill: a read completion (MemResp, matched by ID = MSHR number)
//     installs the line in its set (an invalid way first, else the
//     replacement policy's victim, counted as an eviction) and starts the
//     MSHR's replay. If an invalidation of the index arrived while the read
//     was in flight the MSHR is stale: the data may predate the
//     invalidation, so it is dropped and the MSHR reads again (the
//     "invalidation during refill" hazard of rocket-chip's PTW). A read
//     answered with an error completion (UR, CA) installs nothing: its
//     targets leave with the zero MKC and Created false, as for an index
//     never created, and the next lookup of the index reads again.
//  2. Invalidation: when Out can take a token this cycle, the Inval at the
//     head of Ctrl drops the line of Index (All: every line), marks a read
//     in flight for the index stale, sends an MSHR of the index that is
//     replaying back to fetch (its remaining targets must not leave with
//     the old context after the token), and pushes Lookup{Token: true,
//     TokenID: ID} on Out. Everything looked up before is ahead of the
//     token; every lookup after, and every target that had not left yet,
//     sees the context read after it. The token orders Out only: OutLoop
//     carries no token (the checker orders the two channels itself).
//  3. Replay: on each virtual channel whose output is ready, the next
//     target of the replaying MSHR filled first leaves with the MKC that
//     MSHR holds (so an eviction during the replay changes nothing). The
//     channels are served independently: a full Out never holds up a loop
//     target. An MSHR is freed in the cycle its last target leaves.
//  4. Reissue: one MSHR that must read again (stale fill, or invalidated
//     during its replay) sends its read.
//  5. Lookup: at most one piece a cycle, the head of Loop first; if it
//     cannot complete this cycle, the head of In may. A hit leaves at once
//     on its piece's channel (Out for level 0, OutLoop for Level > 0) with
//     Lookup{Piece, MKC, Created}; hits go on while MSHRs wait
//     (hit-under-miss). A miss whose index has an MSHR joins its targets
//     (MSHR hit); otherwise it allocates an MSHR and sends
//     ReadReq{ID: MSHR, Addr: ICMBase + 64*index, Len: 64} in the same
//     cycle. A piece stalls at its input when its output is not ready, its
//     MSHR's targets are full, no MSHR is free to it, or MemReq is busy.
//
// # Deadlock freedom
//
// KLM recursion re-enters through Loop while the level-0 piece that caused
// it may hold resources; so loop traffic never waits behind level-0
// traffic: LoopMSHRs MSHRs and LoopTargets targets of each MSHR are
// reserved for loop pieces, Loop has priority at the lookup, a stalled Loop
// head lets In through, and loop targets replay on their own channel.
//
// An MSHR a loop piece takes from the reserve (all the others being in
// use) serves loop pieces only: a level-0 piece of the same index waits at
// In rather than merge into it. A level-0 target can be held for good by a
// full Out (whose consumers may be waiting for the loop), and the MSHR
// with it; so the reserve's MSHRs hold only targets that leave on OutLoop,
// which always drains (the checker sends loop pieces to the reorder
// buffer, the MTT walker, or the KLM walker's nested queue, sized for
// every loop credit). Each of them is therefore freed a read and a replay
// after it was taken, whatever level-0 traffic does, which is why one
// reserved MSHR (and one reserved target) are enough for any depth.
//
// # MSHR states
//
//	FREE ──miss──> WAIT ──fill──> REPLAY ──last target left──> FREE
//	                ^  │ stale fill   │ inval of the index
//	                │  v              v
//	                └─ ISSUE <────────┘
//
// An Inval of the index in WAIT only marks the MSHR stale; in ISSUE it
// changes nothing (the read has not been sent).
//
// # ICM images
//
// The 64 bytes read are an MKC as stored in ICM: prm.DecodeMKC parses it
// ignoring reserved bits, and reserved bit 00h.31 is the firmware's created
// flag (prm.ICMCreated), which becomes Lookup.Created.
//
// # Ports (made by the caller, see Ports)
//
//	In      *sim.Chan[bus.Piece]      new level-0 pieces
//	Loop    *sim.Chan[bus.Piece]      loop-back pieces (Level > 0)
//	Out     *sim.Chan[bus.Lookup]     level-0 virtual channel and tokens
//	OutLoop *sim.Chan[bus.Lookup]     loop virtual channel
//	MemReq  *sim.Chan[pcie.ReadReq]   MKC reads
//	MemResp *sim.Chan[pcie.ReadResp]  their completions, any order
//	Ctrl    *sim.Chan[bus.Inval]      invalidations by Index, or All
//
// # Parameters (Config, toml key, default)
//
//	Sets         sets          128     power of two; set = index mod Sets
//	Ways         ways          4
//	Replacement  replacement   "lru"   or "random"
//	Seed         seed          1       PRNG seed for "random"
//	MSHRs        mshrs         14      level-0 misses (distinct indexes) in flight
//	LoopMSHRs    loop_mshrs    2       more, reserved for loop pieces
//	Targets      targets       8       pieces per MSHR
//	LoopTargets  loop_targets  1       of them reserved for loop pieces
//	ICMBase      icm_base      0       address of MKC 0, 64-byte aligned
//
// # Clock discipline
//
// Eval reads the unit's own state and the committed heads and readiness of
// its channels, updates the unit's private arrays in place (no other
// component can see them) and stages channel pushes and pops, which the
// channels latch at the edge; so the results do not depend on the order in
// which the engine evaluates components. Eval returns true while any MSHR
// is busy or an input shows a payload, and returns false at once, without
// walking any array, when idle. The random replacement PRNG advances only
// when it draws a victim, so idle skipping changes nothing.
//
// # Observation
//
// Stats counts hits, misses, MSHR hits, reads, refetches, read errors,
// fills, evictions, invalidations (and the lines they dropped) and stall
// cycles; Strobes shows this cycle's
// hit, miss, fill and invalidation; State summarises the cycle as IDLE,
// LOOKUP, MISS, REPLAY or INVAL (StateNames) and MSHRsInUse the registered
// MSHR count, for waveforms sampled between Eval and Commit.//
// Registers: the tag array, the MSHR file and the counters are read only
// by the unit, before it writes them in a cycle, and are written in place
// during Eval (no Commit needed for them); inUseQ, the MSHR count the
// waveform shows, is latched by Commit, so it shows an allocation from the
// next cycle on, as a registered count would.
package mptcache
