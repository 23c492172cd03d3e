// Package wire holds RoCEv2 packets as github.com/google/gopacket layers:
// the InfiniBand transport headers a RoCEv2 NIC puts on the wire after
// Ethernet, IPv4 and UDP (destination port 4791), so that the testbench can
// write the requests that carry memory keys (R_Keys) to a pcap file and
// read captured ones back.
//
// # Layers
//
// Each header is a gopacket layer with its own layer type (see register.go,
// where the numbers are named): the Base Transport Header (BTH), then the
// extension headers the BTH opcode names, in wire order: RETH (RDMA
// address, R_Key, length), AtomicETH (address, R_Key, swap/add and compare
// data), ImmDt (immediate data), IETH (the R_Key to invalidate), AETH
// (acknowledge syndrome and MSN) and AtomicAckETH (original remote data),
// then the payload (gopacket.Payload) and last the 4-byte ICRC trailer. The
// payload's pad bytes (BTH.PadCount of them, 0 to 3) belong to no layer.
// Importing the package registers the layer types and binds BTH to UDP
// port 4791, so gopacket.NewPacket(frame, layers.LayerTypeEthernet,
// gopacket.Default) decodes a RoCEv2 frame down to the ICRC.
//
// The BTH decoder gopacket.NewPacket reaches through UDP port 4791 uses
// the opcode: it decodes the extension headers the opcode names, splits
// off the pad and the ICRC (trimming them from the payloads of the BTH and
// the extension headers) and adds the payload and the ICRC layers. A layer
// decoded on its own (DecodeFromBytes, as a DecodingLayerParser does)
// cannot see the opcode: its payload is everything after it, pad and ICRC
// included, and an extension header's NextLayerType is
// gopacket.LayerTypePayload, so that the ImmDt of
// RDMA_WRITE_ONLY_WITH_IMMEDIATE and the AtomicAckETH of
// ATOMIC_ACKNOWLEDGE stay in that payload.
//
// Only the Reliable Connection (RC) opcodes are decoded past the BTH; a
// frame with another opcode decodes to its BTH and a decode failure. Only
// RoCEv2 over IPv4 is built, decoded and checked.
//
// # ICRC
//
// ICRC computes the invariant CRC of an Ethernet/IPv4/UDP/BTH frame as
// InfiniBand Annex A17 (RoCEv2) defines it and Linux rxe and scapy compute
// it: CRC-32 (IEEE) over eight 0xFF bytes standing for the masked LRH, the
// IPv4 header with TOS, TTL and checksum set to ones, the UDP header with
// its checksum set to ones, the BTH with byte 4 (FECN, BECN, reserved) set
// to ones, and everything after the BTH up to the ICRC. The trailer holds
// the value least significant byte first, as rxe stores it on a
// little-endian host and scapy packs it.
//
// # Building and decoding
//
// Build makes a whole frame from a Packet (addresses, opcode, QPN, PSN,
// keys, address, length, payload), with the IPv4 checksum, the lengths, the
// pad and the ICRC filled in and a UDP checksum of 0, which RoCEv2 over
// IPv4 allows; gopacket pads a frame shorter than 60 bytes with zeros, as
// on the wire. Decode and Summarize give the Packet back, with the ICRC
// and whether it is right, as a Summary.
//
// # The two ends
//
// A Requester is the remote end of the testbench's wire front: Send
// makes the frames of the request message that carries a scenario
// operation a wire can carry (Carries: a remote read, write or atomic, a
// SEND with invalidate), advancing its QP's PSN. A Responder is the
// model's end: Receive parses a decoded packet back into the operation a
// message's first packet asks for (a Message), skipping the rest of a
// WRITE and retransmissions, and Answer makes the acknowledgement, read
// responses, RNR NAK or NAK (NAKFor) of its result. Their addresses,
// PSNs and payloads are docs/wire.md's.
//
// # Capture files
//
// WritePcap and WritePcapTo write frames with their times as a pcap file
// with gopacket's pcapgo (nanosecond timestamps, link type Ethernet);
// ReadPcap and ReadPcapFrom read one back whole with pcapgo and decode
// every RoCEv2 frame, numbering frames from 1 as tshark does; a
// PcapReader (OpenPcap, NewPcapReader) reads them one at a time, for
// captures larger than memory. Both read classic pcap and pcapng (what
// Wireshark and dumpcap save by default; pcapgo's NgReader, behind a
// reader that checks every block's lengths first, pcapng.go), gzipped or
// not.
//
// Reading skips the frames that are not RoCEv2 (another EtherType, IP
// protocol or UDP destination port): a capture of a real link holds ARP
// and LLDP too. It fails, naming the file, the packet number and the
// reason, on what makes the file or a RoCEv2 frame unusable: a file header
// that is cut off, neither pcap nor pcapng, or not of link type Ethernet
// (a pcapng file's first interface; packets of other interfaces of
// another link type are skipped); a pcapng block whose lengths do not
// add up; a record cut off by the end of the file (a truncated capture);
// a record captured shorter than the frame was (a snap length) or longer
// than the snap length; and a RoCEv2 frame that does not decode (RoCEv2
// over IPv6 or in an IPv4 fragment, an opcode other than the RC ones,
// lengths that do not add up). A wrong ICRC is not an error: it is
// reported in the frame's Summary (ICRCOK), for the checker to judge.
package wire
