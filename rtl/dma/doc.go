// Package dma is the data path: once an access is translated, it moves
// the access's bytes over the PCIe link, as the NIC's DMA engine does.
//
//	In (bus.Move, from the reorder buffer) ──> [ dma ] ──> Done (bus.Moved)
//	                                             │  ^
//	                                  MemReq ────┘  └──── MemResp   (the requester's data client)
//
// A segment the device reads (LOCAL_READ, REMOTE_READ) becomes reads of at
// most 4 KiB, not crossing a 4 KiB boundary, that the requester sends as
// MRd TLPs (split again at max_read_request) on traffic class
// pcie.TCData; a segment it writes (LOCAL_WRITE, REMOTE_WRITE) becomes
// writes of the same sizes, sent as MWr TLPs (split at max_payload). An
// atomic reads its 8 bytes, then writes its result over the same bytes (in
// two parts when a KLM places it across a 4 KiB page). Config.Outstanding
// bounds the requests in flight: a read until its completions are all in,
// a write until its last MWr has left. One request is issued a cycle, in
// the order of In; when every byte of a request has moved (Move.Last
// seen, nothing in flight) the unit sends Moved, and the reorder buffer
// retires it.
//
// With an ATC (Ports.Lookup: the device uses ATS), a chunk of an ATS
// key's segment (Move.Plat.Mode 1) first takes its slot and asks the ATC
// for its translation (the lookup's Tag is the slot); when the result is
// in, the request goes out, before the next chunk: translated (AT 10b, to
// the translated address) if the ATC gave a translation, which it then
// holds until the request completes (a read's completions in, a write's
// last MWr out: ATSRelease); untranslated (AT 00b) if not, so that the
// host's IOMMU refuses it as it would any key's. An atomic's write asks
// again after its read has given its entry back.
//
// The small fence (small_fence_on_rdma_read_response, Move.Plat.SmallFence):
// a QP has at most one read under it in flight. A segment under the fence
// whose QP has one in flight, and every later segment of a QP with
// segments set aside, is set aside (Config.FenceQueue of them at most) in
// order; each cycle the oldest set aside whose QP's fence is clear (the
// first of its QP) goes before the head of In, so other QPs' segments go
// on past a QP that waits. With no room the segment waits at the head of
// In and holds what is behind it.
//
// Registers: the request slots (free mask, tag, atomic), per reorder tag
// the requests in flight and whether its last segment was taken, the
// offset reached in the segment at the head of In, the segments set aside
// (each with its offset), the reads under the fence per QP, the atomics' writes
// waiting to go and the Moved answers waiting for Done; all are written
// in place during Eval, after they are read: the unit has no Commit.
package dma
