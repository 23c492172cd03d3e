// Package mttwalk is the MTT walker: it cuts a checked MTT piece at page
// boundaries and turns each page into a DMA segment (translation.md 5).
//
//	In ──> IDLE ──> PAGE ──hit──> emit segment ──> next page / IDLE
//	                 │  └─miss──> FETCH ──MemResp──> PAGE
//	                 └─ past capacity / page bit clear ──> emit failure ──> IDLE
//
// For page t of the piece: u = (start mod P) + (V - start) + t, computed
// exactly; i = u / P; the entry is at mtt_handle + 8 i, read through a
// cache of 64-byte lines (8 entries) filled by PCIe reads. A page that lacks
// the rd_en/wr_en bit the access needs ends the piece with PAGE_ACCESS and
// the fault key and address; the top turns it into PAGE_FAULT for an ODP
// key. A failure covers the rest of the piece, so every byte of a request
// is accounted for exactly once.
//
// Ctrl invalidates the lines of a list range (a UMR rewrote it); a fill in
// flight for such a line is dropped and fetched again. Cut (bus.Cut) says
// a request failed at some offset: a context whose next page lies at or
// past it ends its piece there with a Cut outcome.
//
// What the walker shares with the KLM walker lives once in rtl/walk
// (walk.Contexts): each context's state (IDLE, PAGE, FETCH) and fetch
// slot, the count in use, the round-robin pointer, the line cache, the
// read port's one read a cycle, merged misses, invalidations and cuts.
// This package holds the MTT walk itself: the page arithmetic, the
// entry's rights, the segments and failures, and the intake.
//
// Registers: the contexts (state, piece, bytes done, fetch slot), the
// count in use, the round-robin pointer, the line cache and the cuts are
// read only by the walker, before it writes them in a cycle, and are
// written in place during Eval: it has no Commit, and the waveform shows
// their next state (the value from cycle c on).
package mttwalk
