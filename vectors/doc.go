// Package vectors makes golden vectors that a Verilog team replays
// unchanged: per unit (protcheck, mttwalk, klmwalk, mptcache, top, atc) a
// $readmemh file of one vector a line, a JSON manifest that places every
// field and documents the DUT's ports and handshake, a SystemVerilog
// package and a replay harness generated from the manifest, and an echo
// DUT that checks the flow before a real DUT exists. README.md is the
// Verilog engineer's guide; hdl/ holds example DUTs.
//
// # Where expected values come from
//
// The oracle is the golden model, never a second copy of its arithmetic:
//
//   - protcheck: ref.Check on the vector's MKC and piece.
//   - mttwalk: ref's MTT walk (ref.Model.Translate). The walk's internal
//     values are read off its output with a probe: an ODP MTT key whose
//     only written entry is the one the step needs, holding the tagged
//     page address i << 31, so the DMA address ref returns is
//     (i << 31) + o and its length is n; the next step faults on an
//     unwritten entry, which gives n when the piece goes on. Where to write
//     that entry is the generator's guess (mttPlacement); a wrong guess
//     makes ref fault and the generator fail, it cannot make a wrong
//     expected value.
//   - klmwalk: ref's KLM and Fixed Buffer Size walk, on a list whose keys
//     are probe keys: length64 MTT keys of 2 GB pages whose page addresses
//     carry the entry number, so the DMA address names j and the lower
//     address. The search never reads an entry's key, so the swap changes
//     nothing (TestKLMOracleKeys checks it). A piece whose lower range
//     passes 2^64 is refused by the lower level before anything shows its
//     address: such stimuli are drawn again.
//   - mptcache: rtl/mptcache keeps its tag array unexported, so cacheArray
//     is its documented behaviour (set, tag, invalid way first, LRU or
//     xorshift64 victim) written once more; hdl/mkeysim_mptcache.v, an
//     independent Verilog version, passes the vectors under both policies.
//   - top: ref.Model.Translate against random worlds built with ref's own
//     commands (CREATE_MKEY, UMR, LOCAL_INVALIDATE) and against the state
//     of each example scenario at each of its accesses; the worlds' MKC
//     tables and ICM images are written beside the vectors.
//   - atc: ref has no ATC, and rtl/atc is the clocked unit under test, so
//     atcRef (atc.go) is the ATC's function written untimed: a lookup gets
//     the host's current translation (the host invalidates what it
//     changes), an Invalidate Completion leaves, in order, once no held
//     result of a translation an invalidation dropped meets its range.
//     TestATCUnitMatchesVectors replays the vectors into rtl/atc as the
//     harness drives a DUT, in four geometries.
//
// # Determinism
//
// All randomness comes from one splitmix64 stream per unit seeded by
// --seed (rng.go), maps are never iterated unsorted, and the manifest
// records the command without --out: the same flags and the same binary
// give byte-identical files wherever they are written.
package vectors
