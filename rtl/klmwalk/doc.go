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
// a scan from entry 0 (entries of byte_count 0 are skipped); Fixed Buffer
// Size: j = d / 2^log_entity_size. Each cycle one context steps one entry.
//
// Deadlock freedom: recursion uses its own virtual channel through the MKC
// cache and the checker, and a child is sent only with a loop credit. A
// credit comes back when the checker routes the child elsewhere (Credit) or
// when this unit takes it from Nested, which is as deep as the credits, so
// the checker never waits on it. Level-0 pieces may hold at most
// Contexts - NestedContexts contexts, so nested pieces always find one.
// A child whose level exceeds MaxIndirection fails INDIRECTION_DEPTH here,
// before its key is looked up: a KLM cycle ends, never hangs.
package klmwalk
