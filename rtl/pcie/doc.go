// Package pcie is the PCIe side of the clocked model: TLPs and their rules,
// the device's read engine, the link, the host's root complex and sparse
// host memory (ICM).
//
// # Parts
//
//   - tlp.go: the TLP type and every transaction-layer rule the model uses,
//     in one place, each next to the sentence of the base specification it
//     implements: byte enables and Length of an arbitrary read, byte count
//     and lower address, header size (3DW below 4 GB, 4DW above), wire
//     size, splitting a read into requests (SplitRead: never across 4 KB,
//     never over Max_Read_Request_Size) and a request's answer into
//     completions (SplitCompletion: ends on the Read Completion Boundary,
//     at most Max_Payload_Size, with Byte Count and Lower Address), and
//     Validate. tlp_pack.go packs headers into the real DW0..DW3 layout and
//     parses them back.
//   - memory.go: Memory, sparse 64-bit host memory in 4 KB pages allocated
//     on first write.
//   - requester.go: Requester, the device-side read engine. Units are its
//     clients: each has a request and a response channel. It arbitrates
//     them round-robin, splits reads, allocates tags, sends one MRd a
//     cycle, checks and reassembles completions and answers each read
//     whole.
//   - link.go: Link, one direction of the link: serialization at
//     LinkBytesPerCycle, then a fixed latency; in order, lossless.
//   - rootcomplex.go: RootComplex, the host's root complex: answers MRds
//     from Memory after ICMLatencyCycles with completions split at the
//     RCB, applies MWrs, answers bad reads UR.
//   - host.go: Host and NewHost, the host side opposite the device (both
//     link directions and the root complex over the host memory), built
//     from the one Config: what the testbench asks for.
//   - config.go: Config, every parameter of the PCIe side with its toml
//     key and range, for the Requester, the links and the root complex
//     alike; DefaultConfig, the one place that gives the defaults; and
//     Validate, the one check the run and every constructor make.
//
// # Wiring
//
//	            device                       |              host
//	client req  --+                          |
//	client resp <-+-> Requester              |
//	                   Tx ----> Link (up) ---+---> Rx
//	                                         |       RootComplex <-> Memory
//	                   Rx <---- Link (down) <+---- Tx
//
// Every arrow is a sim.Chan. The caller makes the device's (client req
// and resp, Tx, Rx); NewHost makes the host side's; and the Link and
// RootComplex make one internal channel each, for their latency, so that
// the engine skips the cycles in which TLPs are only in flight. All
// components follow the two-phase rule of package sim: Eval reads
// registered state and channel heads, Commit latches; no result depends
// on evaluation order.
//
// # Parameters (toml key under [pcie], default)
//
// With a 4 ns (250 MHz) core clock:
//
//	tags                  32      MRds in flight (1..768; >256 uses 10-bit tags)
//	max_read_request      512     bytes per MRd (128..4096, power of two)
//	max_payload           256     bytes per TLP payload (128..4096, power of two)
//	rcb                   64      read completion boundary (64 or 128)
//	split_on_all_rcb      false   true: one completion per RCB (64-byte CplDs)
//	requester_id          0x0000  device bus/device/function
//	completer_id          0x0000  root port bus/device/function
//	link_latency_cycles   75      each way, after serialization (300 ns)
//	link_bytes_per_cycle  32      8 GB/s = 64 Gb/s each way (Gen3 x8, Gen4 x4)
//	icm_latency_cycles    20      ICM MRd (TC 0) at the root complex to first CplD (80 ns)
//	data_latency_cycles   20      the same for a data MRd (TC 1)
//
// The [host] table (HostConfig, issue 37 part 4) is host memory's time to
// accept the data path's posted writes: write_latency_cycles (0: at once,
// the default), write_latency_spread_cycles and write_latency_seed (a
// spread drawn per write), write_buffer_entries (32: the root complex's
// posted-write buffer). RootComplex.SetHost takes it; HostConfig's doc
// gives the ordering rules it applies.
//
// A TLP's wire size is its header (12 or 16 bytes) + payload + FramingBytes
// (8: STP token or STP/sequence/END, and LCRC); it occupies a link for
// S = ceil(wire size / link_bytes_per_cycle) cycles (at least 1).
//
// # Latency of one read
//
// Let every channel have latency 1 (client request, Requester Tx, the up
// link's Out into the RootComplex, RootComplex Tx, the down link's Out into
// the Requester, client response), the system be idle, and the read need
// one MRd answered by one CplD. A ReadReq pushed by its client at cycle c
// is seen by the client as a ReadResp at
//
//	c + 4 + 2*link_latency_cycles + icm_latency_cycles + S(MRd) + S(CplD)
//
// The 4 is the four channel hops outside the links (request, Tx, root
// complex Tx, response); each link costs S - 1 + latency + its Out
// channel's latency. With the defaults, a 64-byte read below 4 GB has
// S(MRd) = ceil(20/32) = 1 and S(CplD) = ceil(84/32) = 3, so 178 cycles
// (712 ns). With other channel latencies, add each channel's latency less
// one.
package pcie
