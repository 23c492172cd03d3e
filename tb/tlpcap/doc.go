// Package tlpcap writes the PCIe TLPs of a run to a pcap capture file and
// reads them back, so that the traffic between the device (the NIC) and the
// root complex can be looked at in Wireshark or tshark
// (scripts/tlp.lua is the dissector) or checked by a program.
//
// # Usage
//
//	bw := bufio.NewWriter(f)
//	w, err := tlpcap.NewWriter(bw, cfg.ClockPS)
//	err = w.Write(cycle, tlpcap.Upstream, &mrd) // for every TLP
//	err = bw.Flush()
//
//	r, err := tlpcap.NewReader(f, cfg.ClockPS)
//	for {
//		rec, err := r.Next() // io.EOF after the last record
//		...
//	}
//
// Then, with the dissector:
//
//	tshark -X lua_script:scripts/tlp.lua -r run.tlp.pcap
//
// # File format
//
// The file is a classic pcap file (not pcapng), as described in
// draft-ietf-opsawg-pcap, with nanosecond timestamps. The writer emits it
// little-endian; the reader accepts either byte order.
//
// Global header, 24 bytes:
//
//	offset size value
//	 0      4   magic 0xa1b23c4d (nanosecond timestamps); on disk
//	            4d 3c b2 a1 when little-endian
//	 4      2   major version 2
//	 6      2   minor version 4
//	 8      4   reserved (thiszone) 0
//	12      4   reserved (sigfigs) 0
//	16      4   snaplen 4116 (MaxRecordBytes: no record is longer)
//	20      4   link type 147 (LINKTYPE_USER0, DLT_USER0)
//
// Then one record per TLP, in the order they were written. Each record is
// a 16-byte record header and the record's bytes:
//
//	offset size value
//	 0      4   timestamp, seconds
//	 4      4   timestamp, nanoseconds (0..999999999)
//	 8      4   captured length: the record's bytes below
//	12      4   original length: the same (records are never truncated)
//
// The timestamp is simulated time, not wall-clock time: a TLP sent in clock
// cycle c is stamped floor(c × clock period in ps / 1000) ns after the
// epoch (cycle 0 is 1970-01-01 00:00:00 UTC). The file does not record the
// clock period: the writer and the reader are both given it (mkeysim's
// clock_ps). Because the period is at least 1 ns, every cycle has its own
// timestamp and a reader recovers the cycle exactly; when the period is a
// whole number of nanoseconds the timestamp is the exact time of the cycle.
//
// A record's bytes are a 4-byte pseudo-header followed by the TLP:
//
//	byte 0     version: 1
//	byte 1     direction: 0 upstream (sent by the device to the root
//	           complex, such as the device's MRd and MWr), 1 downstream
//	           (sent by the root complex to the device, such as the
//	           completions of the device's reads)
//	bytes 2-3  reserved: 0
//	bytes 4-   the TLP: its PASID prefix if it has one, its 3- or 4-DW
//	           header and its data payload, exactly
//	           as the PCIe base specification puts them on the wire, with
//	           no framing (no STP token or sequence number, no LCRC, no
//	           ECRC)
//
// The TLP header is sent most significant byte first; the fields this model
// uses are (bit numbers within each big-endian DW):
//
//	PASID prefix (optional, one DW before DW0)
//	     31:29 Fmt     100 (a TLP prefix)
//	     28:24 Type    1_0001 (End-End: PASID)
//	     23 Execute Requested, 22 Privileged Mode Requested, 19:0 PASID
//	DW0  31:29 Fmt     000 3DW no data, 001 4DW no data,
//	                   010 3DW with data, 011 4DW with data
//	     28:24 Type    00000 memory request, 01010 completion,
//	                   10010 message routed by ID
//	     23    T9      tag bit 9
//	     22:20 TC      traffic class
//	     19    T8      tag bit 8
//	     11:10 AT      memory requests: 00 untranslated, 01 Translation
//	                   Request, 10 translated
//	      9:0  Length  data length in DW, 0 meaning 1024
//	requests: MRd (Fmt 000/001), MWr (Fmt 010/011)
//	DW1  31:16 Requester ID, 15:8 Tag[7:0], 7:4 Last DW BE, 3:0 First DW BE
//	DW2  3DW: Address[31:2] in bits 31:2; 4DW: Address[63:32]
//	DW3  4DW only: Address[31:2] in bits 31:2
//	     (a Translation Request: Untranslated Address[31:12] in 31:12,
//	     No Write in bit 0)
//	completions: CplD (Fmt 010), Cpl (Fmt 000, Length 0)
//	DW1  31:16 Completer ID, 15:13 Status (000 SC, 001 UR, 100 CA),
//	     11:0 Byte Count, 0 meaning 4096
//	DW2  31:16 Requester ID, 15:8 Tag[7:0], 6:0 Lower Address
//	     (a Translation Completion's data are 8-byte Translation
//	     Completion Data Entries, prm.ATSCompletionEntry)
//	messages: Msg (Fmt 001, Length 0), MsgD (Fmt 011), the ATS Invalidate
//	Completion (Message Code 02h) and Request (01h)
//	DW1  31:16 Requester ID, 15:8 Tag[7:0] (the ITag in 4:0), 7:0 Message Code
//	DW2  31:16 Device ID (the destination), 2:0 CC (the Completion's)
//	DW3  the Completion's ITag Vector
//	     (the Request's 2-DW payload is prm.ATSInvalidateBody)
//
// A memory request uses the 4DW header exactly when its address is at or
// above 4 GB; a message always does. MWr, CplD and MsgD carry Length × 4
// data bytes after the header; MRd, Cpl and Msg carry none. The other
// header bits (attributes, TD, EP, processing hints, BCM) are written as
// zero, and so is AT but in memory requests. A record is therefore 16 to
// MaxRecordBytes (4 + 16 + 4096) bytes long; the one TLP that would be
// longer, with a prefix, a 4DW header and 1024 DW of data, is refused by
// the writer. The bench's traffic has no prefix, messages or AT; rtl/pcie's
// ats.go builds the ATS forms.
//
// # Strictness
//
// The writer packs any TLP that the wire format can hold, including
// requests that break the protocol rules of (*pcie.TLP).Validate, so that a
// capture shows a bad request as it was sent. The reader rejects anything
// else, with an error naming the record (numbered from 1, as Wireshark
// numbers frames) and what is wrong: another link type, microsecond
// timestamps, a record that is cut short or longer than MaxRecordBytes, a
// pseudo-header with another version, an unknown direction or nonzero
// reserved bytes, a timestamp that is not that of a cycle, and a TLP that
// pcie.Parse rejects (including one whose payload does not match its
// Length).
package tlpcap
