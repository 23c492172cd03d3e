// Package klmwalk is the KLM recursion unit: for a checked KLM or Fixed
// Buffer Size piece it fetches list entries, finds the ones the piece
// covers (translation.md 6) and sends each part, with the lower key and
// address, back to the MKC cache one level down, through the loop-back
// channel.
//
//	In (level-0) ──┐   ┌──────────── contexts ────────────┐
//	Nested (loop) ─┴─> │ SEARCH ──hit──> child ──> Loop   │ ──> Loop (level+1)
//	                   │   └─miss──> FETCH ──MemResp──┘   │ ──> Done (failures)
//	                   └──────────────────────────────────┘
//
// Variable KLM: the entry j with T[j] <= d < T[j] + byte_count[j], found by
// a scan (entries of byte_count 0 are skipped); Fixed Buffer Size: j = d /
// 2^log_entity_size. Each cycle one context acts: it steps over every
// entry of the 64-byte line it holds that ends before its byte (up to
// four: one adder chain over the line's byte counts), or sends one child,
// or starts one line fetch. The scan starts at entry 0, or at the nearest
// position below its byte where a recent piece of the same list left off
// (klm.cursors of them, see cursors): a responder translates a transfer
// packet by packet, each piece a little further into the same list, and
// searching each from entry 0 would cost a transfer over n entries n^2/2
// entry reads, as no DMA engine walking a scatter-gather list does.
// Cut (bus.Cut) says a request failed at some offset: a context whose next
// byte lies at or past it ends its piece there with a Cut outcome, so a
// decided request sends no more children down the loop.
//
// Deadlock freedom: recursion uses its own virtual channel through the MKC
// cache and the checker, and every context serves one level: contexts of
// level 0 take pieces from In, and the nested contexts are shared out over
// levels 1..MaxIndirection, at least one each. A context of level L sends
// a child only after reserving a free context of level L+1 for it (its
// credit); the child, if it is KLM again, comes back on Nested and takes
// that context; otherwise the checker returns the reservation (Credit). A
// child of the last level fails INDIRECTION_DEPTH here and needs none. So
// the deepest contexts always finish, which frees the reservations of the
// level above, and so on up: every level progresses whatever fills the
// input queue. A KLM cycle ends at the depth limit, never hangs.
//
// What the unit shares with the MTT walker lives once in rtl/walk
// (walk.Contexts): each context's state (FREE, SEARCH, FETCH) and fetch
// slot, the count in use, the round-robin pointer, the line cache, the
// read port's one read a cycle, merged misses, invalidations and cuts.
// This package holds the KLM walk itself: the entry search, the levels
// and their credits, the children, and the cursors.
//
// Registers: the contexts, the free and reserved counts per level, the
// round-robin pointer, the cursors, the line cache and the cuts are read
// only by the unit, before it writes them in a cycle, and are written in
// place during Eval: it has no Commit, and the waveform shows their next
// state (the value from cycle c on).
package klmwalk
