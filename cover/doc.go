// Package cover names the coverage points of the MKey translation path and
// counts how often a run reaches each, in the golden model (ref) and in the
// clocked model (rtl and its units), so that a report can show the two side
// by side and a test can fail when the suite stops reaching a corner.
//
// # Points
//
// A point is an event with a name, a one-line description, the models that
// collect it and whether the coverage suite must reach it (Points lists
// them for a depth limit; this package is the one place a name is written).
// The families:
//
//   - status.S.Ln: an access ended with status S at level n, for every
//     status of translation.md 4 at every level where it can arise
//     (INDIRECTION_DEPTH only at max_indirection+1, MISALIGNED_ATOMIC only
//     at level 0, the others at 0..max_indirection); ok.T: an access of
//     type T translated; length.zero and length.max (2^32-1).
//   - mode.M.Ln: a piece passed its checks at level n on a key of mode M.
//   - range.* and wrap.*: where a piece lies in its key's range (its first
//     byte, its last, length64, each cause of OUT_OF_RANGE) and the
//     arithmetic modulo 2^64 (a piece ending exactly at 2^64, an offset
//     below start_addr, an MTT page position past 2^64, a lower address
//     that wraps).
//   - mtt.*, klm.*, fbs.*: pieces starting at or inside a page or entry,
//     pieces split over two or more pages or entries, byte_count 0 entries.
//   - odp.*: what PAGE_FAULT_RESUME did to each stalled access.
//   - cmd.OP.S: a command's status (only the statuses translation.md 3.2
//     lets that command end with), create.refused.*: each reason
//     CREATE_MKEY refuses with BAD_PARAM, inval.*, umr.*: corners of the
//     commands that succeed.
//   - mkc_cache.*, mtt_cache.*, klm_cache.*: the clocked model's cache
//     outcomes: hit, miss, merged miss (MKC), eviction, invalidation (a
//     valid line dropped) and refetch. An invalidation that arrives
//     during a refill marks the refill stale, and the stale fill is
//     dropped and read again: in these caches that is one event, counted
//     once, as the refetch. They are not counted again: each is derived
//     from the counters the units declare (rtl/sim.Counter,
//     docs/counters.md) by Collector.AddCounters at the end of a run.
//
// A point is required when the coverage suite must reach it; one that is
// not says why (Point.Why): a CREATE_MKEY with no index left needs 2^24
// objects, and no scenario rewrites an MTT or KLM list while a walker
// fetches it. An event no input can reach is not a point at all: an
// access from a QP not declared (a scenario refuses it), a KLM or Fixed
// Buffer Size position past 2^64 (the parts of a piece before it would
// have to lie in a list spanning 2^64 bytes), an MKC read answered with an
// error completion (the root complex answers every read the model makes).
//
// # Collecting
//
// A Collector is a flat []uint64 indexed by ID: a fixed point's ID is a
// constant, a family's is a multiply-add (status x level, mode x level,
// command x status), so a hit is an index and an increment, never a map
// look-up. Every method is safe on a nil *Collector and returns at once:
// coverage off costs a nil check at each site (Hit and FirstPart inline to
// it, and both models test the pointer before they call Passed or Result
// on the paths every piece and every access takes).
//
// Both models use the same names for the same events. The golden model
// collects through ref.Config.Coverage. In the clocked model each unit
// that hits points says which (Unit.Covers) and is given the collector by
// the top (rtl.Top.SetCoverage), the way units declare their counters;
// the package depends on prm only, so that the units may import it beside
// rtl/sim, rtl/bus, rtl/linecache and rtl/pcie. protcheck hits
// the mode, range and length64 points when it passes or fails a piece,
// mttwalk the page points, klmwalk the entry and lower-address points, the
// top the results at retirement, the commands and ODP resumes, its
// firmware the CREATE_MKEY refusals. Where an event is a pure function of
// what a model computed (how a passed piece lies in its key's range, a
// result line, a resumed access's new status) both models call the same
// classifier here (Passed, OutOfRange, Result, Resumed), so the two cannot
// drift apart in what a name means.
//
// Counts are not expected to be equal between the models: the clocked
// model translates the pieces of a request in parallel, so a piece past
// the failure that decides a request may still be walked before the cut
// reaches it, and it counts where the golden model, which stops at the
// first failure, does not. What a report compares is which points each
// model reached.
//
// # The suite and the report
//
// tb's TestCoverage runs the examples, the shared conformance scenarios, a
// fixed-seed random suite, KLM trees and two directed scenarios through
// the models and fails naming every required point either model left at
// zero, every point one model reaches and the other not, and every point a
// unit hits without declaring it; it also keeps docs/coverage.md
// (Report.WriteMarkdown) current. The Markdown shows whether each model
// reached a point, not how often: the clocked model's counts depend on
// timing, which would make the page stale at every change of latency.
// mkeysim run --coverage FILE.json and mkeysim ref --coverage FILE.json write
// a Report as JSON.
package cover
