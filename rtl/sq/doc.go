// Package sq is the send-queue front: it takes the host's doorbells, reads
// the WQEs they announce from the send queue in host memory, and parses
// them into the work requests the top turns into translations and
// commands, as the NIC's WQE fetch engine does.
//
//	Doorbell (MWr TLPs, from the requester) ──> [ sq ] ──> Out (bus.WQE, to the top)
//	Done (bus.Completion, from the top)     ──>   │  ^
//	                                  MemReq ────┘  └──── MemResp   (a requester client)
//
// A doorbell is the host's 8-byte MWr to the device's doorbell register
// (DoorbellAddr): the first 8 bytes of the control segment of the last WQE
// it posted (opmod, WQE index and opcode; QPN and DS), as the mlx5 driver
// writes them. The producer counter of that QP's send queue is then the
// WQE index plus the basic blocks (64 bytes) of that WQE. Doorbells are
// always taken (a device must take posted writes).
//
// # The pipelined fetch
//
// Each QP has a fetch context: its producer counter (the furthest
// doorbell's), its fetch pointer (the next basic block to read) and its
// consumer counter (the next WQE to parse), and, while its fetch runs, a
// WQE cache of sq.wqe_cache_bbs basic blocks that holds what was read
// ahead of the consumer counter. A doorbell of a QP whose fetch is not
// running puts the QP at the end of the active list with a cache from the
// unit's pool; one of a QP whose fetch runs only moves its producer
// counter on (sq.coalesced_doorbells): the fetch goes on further, no
// second one starts. A QP leaves the list, and its cache goes back to the
// pool, when every WQE announced has been sent and none of its reads is
// in flight: a run over a million QPs holds caches for the active ones
// only.
//
// Every cycle the engine, in this order:
//
//   - sends on Out one WQE held since the cycle before, of the next QP in
//     round-robin order that holds one ready;
//   - takes a doorbell, and a read's answer (matched to its read by the
//     ReadReq ID, in any order: the root complex answers reads as they
//     come) into the QP's cache, or a UMR's list into the WQE its QP
//     holds;
//   - parses one WQE, of the next QP in round-robin order whose WQE at its
//     consumer counter is whole in its cache and that holds none: a NOP is
//     skipped, a UMR whose list is not inline is held until its list is
//     read, anything else is held for Out; the consumer counter moves past
//     it and its basic blocks leave the cache;
//   - issues one read if fewer than sq.fetch_outstanding are in flight: a
//     held UMR's list first, else, for the next QP in round-robin order
//     with basic blocks announced and not read, those from its fetch
//     pointer, up to MaxBatch (512 bytes, the default max_read_request),
//     the send queue's end and the room in its cache;
//   - writes a CQE if the request port is still free.
//
// A read answered and its WQE parsed in the same cycle, the WQE leaves the
// next (a UMR's list answered, the UMR leaves the next). Each QP's WQEs
// leave in the order they were posted (a QP holds one parsed WQE at a
// time, and parses in its send queue's order); across QPs they leave in
// the order their parses end, round robin among the QPs ready in the same
// cycle: the order their reads' completions allow, not the order of the
// doorbells. The top keeps them by QP and takes each when the scenario
// reaches it. The fence rules (issue 37 part 2) apply "at issue", where
// the top takes a WQE into the pipeline (rtl/fence.go): the reads and
// parses behind a fenced WQE go on.
//
// A WQE whose DS says it is longer than the doorbell announced is read
// whole all the same; a WQE that cannot be read or parsed is sent with
// Bad set (a failed read marks the first basic block it asked for; the
// rest is read again), and every WQE names the send queue it came from
// (WQE.SQ).
//
// # Completions
//
// For every Completion the top sends (an operation from the send queue
// ended), the unit writes a CQE into the QP's completion queue (CQRing
// CQEs at CQEAddr, the owner bit the parity of the pass): REQ on success,
// REQ_ERR with Syndrome's syndrome and the status in vendor_err_synd
// otherwise, as a 64-byte write through the requester (traffic class 0,
// stored by the host), one a cycle when the fetch engine does not use the
// request port.
//
// The send queue of QP q is SQRing basic blocks at SQBase(q) in host
// memory; a WQE never wraps around its end (the host pads with a NOP).
//
// Registers: every QP's fetch context (counters, cache, the WQE it
// holds), the active list and its three round-robin pointers, the reads in
// flight (one slot each, by ReadReq ID), the completions waiting and every
// QP's completion queue producer counter; all are written in place during
// Eval, after they are read: the unit has no Commit.
//
// # Parameters (toml key under [sq], default)
//
//	FetchOutstanding  fetch_outstanding  8  reads of send queues and UMR lists in flight at once, over all QPs (1..256)
//	WQECacheBBs       wqe_cache_bbs      32  basic blocks of each active QP's WQE cache (a power of two in 16..1024)
package sq
