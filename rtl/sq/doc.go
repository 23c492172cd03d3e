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
// WQE index plus the basic blocks (64 bytes) of that WQE. The unit reads
// the WQEs from its consumer counter up to it, one at a time: the first
// basic block (one read of 64 bytes), the rest of the WQE if its DS says
// it is longer, and, for a UMR whose list is not inline, the list through
// the UMR pointer; it parses them with prm (a NOP is skipped) and sends
// each on Out in send-queue order. A WQE that cannot be read or parsed is
// sent with Bad set, and every WQE names the send queue it came from
// (WQE.SQ). Doorbells are always taken (a device must take posted writes);
// the QPs are served in the order of their oldest waiting doorbell, all
// the doorbells of a QP together (and those that come while it is served),
// so each QP's WQEs leave in the order they were posted and a busy QP's
// are read in batches.
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
// Registers: the state, the doorbells waiting and the one being served
// (QPN, producer counter), the consumer counter of every QP, the WQEs
// read and the one parsed, the completions waiting and every QP's
// completion queue producer counter; all are written in place during Eval, after they are
// read: the unit has no Commit.
package sq
