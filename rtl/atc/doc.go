// Package atc is the device's ATS translation cache (ATC): the HCA's copy
// of the host IOMMU's translations, asked for with PCIe Address
// Translation Services, for the MKeys whose ma_translation_mode is ATS
// (translation.md 2.2.1, issue 36).
//
//	In (bus.ATSLookup, from the data path) ──> [ atc ] ──> Out (bus.ATSResult)
//	Release (bus.ATSRelease) ─────────────────────^  │
//	TransReq (bus.TransReq) <────────────────────────┤  ──> the host's translation agent
//	TransRsp (bus.TransResp) ───────────────────────>│
//	Inval (bus.ATSInval) ───────────────────────────>│  <── the host's Invalidate Requests
//	InvalOK (bus.ATSInvalDone) <─────────────────────┘
//
// A lookup asks for the translation of an untranslated address (a chunk
// of at most 4 KiB that crosses no 4 KiB boundary). The entries hold
// ranges of a power of two of at least 4 KiB, aligned, as the host's
// Translation Completion gives them (its S bit): a 2 MiB translation
// serves every page of its range. An entry of 2^n bytes at base sits in
// set (base >> n) mod sets, and a lookup probes one set per size the ATC
// holds, so every size shares one array. A hit answers at once; a miss
// takes an MSHR, which sends one Translation Request for its 4 KiB page
// (the lookups of a page in flight wait on it, up to Targets), and the
// completion fills an entry (an invalid way first, else the policy's
// victim, never an entry a result still holds) and answers every lookup
// waiting. A completion that grants neither R nor W, or is UR or CA,
// answers them with no translation and is not kept; a write through a
// translation without W, or a read without R, gets none either.
//
// The invalidation rule is the MKey's (translation.md: an access in
// flight finishes on the old mapping; the command completes only after
// it): an OK result holds its entry until the data path gives it back
// (Release); an Invalidate Request drops the entries of its range at
// once for lookups, and its Invalidate Completion leaves only when no
// result holds any of them. A Translation Request in flight for a page of
// the range is stale: its completion, which may predate the change, is
// dropped and the page asked for again.
//
// One cycle: a release, a completion, an Invalidate Request and a lookup
// are taken (a completion waits while every way of its set is held), and
// one result, one Translation Request (the lowest MSHR not sent) and one
// Invalidate Completion leave. Results may leave in another order than
// the lookups (a hit passes a miss): they carry the lookup's Tag.
//
// Registers: the entries (range, translation, permissions, holders,
// dying), the replacement state, the MSHRs (page, sent, stale, waiting
// lookups), the results and completions waiting to leave and the
// Invalidate Requests waiting for holders; all are written in place
// during Eval, after they are read: the unit has no Commit.
//
// The top has an ATC when the device uses ATS (rtl.Config.ATSActive:
// hca_cap.ats, data.enabled and iommu.enabled): the data path looks up
// every chunk of an ATS key's segment, the requester carries the
// Translation Requests to the host as MRd TLPs with AT 01b on traffic
// class 0 and their Translation Completions back, and the Invalidate
// Requests and Completions as messages (rtl/atsport.go).
//
// # Parameters (Config, toml key under atc, default)
//
//	entries      64      translations held (Cache.Entries)
//	ways         0       entries per set; 0: fully associative
//	replacement  "lru"   or "plru", "nru", "random"
//	seed         0       PRNG seed for "random"
//	mshrs        4       Translation Requests in flight
//	targets      4       lookups waiting on one Translation Request
package atc
