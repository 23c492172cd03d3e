// Package rtl is the top of the clocked model of the HCA memory-key
// translation path. It wires the units (rtl/mptcache, rtl/protcheck,
// rtl/mttwalk, rtl/klmwalk and the PCIe read engine of rtl/pcie) with
// channels, keeps the reorder buffer, and runs the command path.
//
//	        ┌────────────────────────── Top ───────────────────────────┐
//	Ops ──> │ ingress ─Piece─> mptcache ─> protcheck ─> mttwalk ──┐    │
//	        │   ^                 ^  ^          │  └──> klmwalk ─┤    │ ──> Results
//	        │   │ firmware        │  └── Loop ──┼────────────┘    │    │
//	        │   │ (commands) ─Inval─> caches    └─ Outcomes ─> ROB ┘   │
//	        └──────────────── PCIe requester <-> Tx/Rx TLPs ───────────┘
//
// Every piece of a request carries its ROB tag and its byte offset; every
// byte of the request comes back in exactly one Outcome, so the ROB knows
// a request is whole when it has counted its length. The result is the
// failure with the lowest offset if there is one (depth-first order), else
// the segments by offset: exactly what the golden model computes walking
// depth-first. When a failure below every other of its request arrives,
// the ROB tells both walkers (bus.Cut on mttwalk.cut and klmwalk.cut): no
// byte at or past it can change the result, so they stop the request's
// pieces there and account for the rest at once, as the golden model
// stops at its first failure. Pieces and cuts carry the generation of
// their tag (bus.Piece.Gen), so a cut that arrives late never stops a
// later request that reuses the tag: a cut is a saving, never needed for
// a result.
//
// Commands run in firmware: a command waits until every earlier access has
// retired and holds back later operations until it completes, as scenario.md
// requires. Firmware reads and writes the ICM through a backdoor after
// CmdLatency cycles (it owns that memory), then invalidates the copies in
// the caches through their control ports and reports completion only after
// every cache acknowledged: from then on no access can pass with the old
// context. The ICM copy of a context marks a created index with the
// reserved bit 00h.31 (prm.ICMCreatedBit); images leaving the model never
// carry it.
package rtl
