package wire

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// ICRCLen is the length of the ICRC trailer in bytes.
const ICRCLen = 4

// ICRCTrailer is the trailer that ends every RoCEv2 packet, after the payload and
// its pad: the invariant CRC over the fields no router changes.
type ICRCTrailer struct {
	layers.BaseLayer
	Value uint32 // the CRC, stored least significant byte first
}

// DecodeFromBytes reads the 4 trailer bytes; anything after them is the
// payload (Ethernet padding, if data runs to the end of the frame).
func (c *ICRCTrailer) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return decodeFixed(&c.BaseLayer, "ICRC", ICRCLen, data, df, func(h []byte) {
		c.Value = binary.LittleEndian.Uint32(h)
	})
}

// SerializeTo prepends Value as the 4 trailer bytes. It cannot compute the
// CRC, which covers the headers serialised after it: Build does, once the
// whole frame is there.
func (c *ICRCTrailer) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	return serializeFixed(b, ICRCLen, func(d []byte) {
		binary.LittleEndian.PutUint32(d, c.Value)
	})
}

// NotRoCEv2Error reports a frame that is not RoCEv2 at all (another
// EtherType, IP protocol or UDP port), as opposed to a broken RoCEv2 frame.
type NotRoCEv2Error struct {
	Reason string // what the frame is instead, e.g. "EtherType 0x0806"
}

// Error says what the frame is instead of RoCEv2.
func (e *NotRoCEv2Error) Error() string { return "wire: not RoCEv2: " + e.Reason }

// ICRCError reports a trailer that does not hold the ICRC of its frame.
type ICRCError struct {
	Got  uint32 // the value in the trailer
	Want uint32 // the value computed over the frame
}

// Error gives both values in hex.
func (e *ICRCError) Error() string {
	return fmt.Sprintf("wire: ICRC 0x%08x in the trailer, computed 0x%08x", e.Got, e.Want)
}

// span locates the parts of an Ethernet/IPv4/UDP/BTH frame that the ICRC
// covers, as offsets into the frame.
type span struct {
	ip, udp, bth, icrc int // starts of the IPv4 header, UDP header, BTH and ICRC
}

// EtherTypes and IP protocol the frame walk knows.
const (
	etherTypeIPv4 = 0x0800
	etherTypeIPv6 = 0x86DD
	etherTypeVLAN = 0x8100
	ipProtoUDP    = 17
	ethLen        = 14
	ipv4MinLen    = 20
	udpLen        = 8
)

// locate walks an Ethernet frame (with at most one 802.1Q tag) down to the
// BTH and the ICRC, using the IPv4 total length and the UDP length, so that
// Ethernet padding is left out. A frame that is not UDP to port 4791 is a
// *NotRoCEv2Error; RoCEv2 over IPv6, in a fragment or with inconsistent
// lengths is a plain error.
func locate(frame []byte) (span, error) {
	var s span
	if len(frame) < ethLen {
		return s, fmt.Errorf("wire: frame of %d bytes is shorter than an Ethernet header (14)", len(frame))
	}
	et := binary.BigEndian.Uint16(frame[12:14])
	s.ip = ethLen
	if et == etherTypeVLAN {
		if len(frame) < ethLen+4 {
			return s, fmt.Errorf("wire: frame of %d bytes is shorter than a VLAN-tagged Ethernet header (18)", len(frame))
		}
		et = binary.BigEndian.Uint16(frame[16:18])
		s.ip += 4
	}
	switch et {
	case etherTypeIPv4:
	case etherTypeIPv6:
		return s, fmt.Errorf("wire: RoCEv2 over IPv6 (EtherType 0x86dd) is not supported")
	default:
		return s, &NotRoCEv2Error{Reason: fmt.Sprintf("EtherType 0x%04x", et)}
	}
	ip := frame[s.ip:]
	if len(ip) < ipv4MinLen {
		return s, fmt.Errorf("wire: IPv4 header cut off: %d of 20 bytes", len(ip))
	}
	if v := ip[0] >> 4; v != 4 {
		return s, fmt.Errorf("wire: IPv4 version field is %d, want 4", v)
	}
	ihl := int(ip[0]&0x0F) * 4
	total := int(binary.BigEndian.Uint16(ip[2:4]))
	switch {
	case ihl < ipv4MinLen:
		return s, fmt.Errorf("wire: IPv4 header length %d bytes is below 20", ihl)
	case total < ihl || total > len(ip):
		return s, fmt.Errorf("wire: IPv4 total length %d does not fit header length %d and %d bytes of frame", total, ihl, len(ip))
	}
	if ip[9] != ipProtoUDP {
		return s, &NotRoCEv2Error{Reason: fmt.Sprintf("IP protocol %d", ip[9])}
	}
	if frag := binary.BigEndian.Uint16(ip[6:8]); frag&0x3FFF != 0 {
		return s, fmt.Errorf("wire: IPv4 fragment (flags and offset 0x%04x) is not supported", frag)
	}
	s.udp = s.ip + ihl
	udp := frame[s.udp : s.ip+total]
	if len(udp) < udpLen {
		return s, fmt.Errorf("wire: UDP header cut off: %d of 8 bytes", len(udp))
	}
	if port := binary.BigEndian.Uint16(udp[2:4]); port != uint16(UDPPort) {
		return s, &NotRoCEv2Error{Reason: fmt.Sprintf("UDP destination port %d", port)}
	}
	ul := int(binary.BigEndian.Uint16(udp[4:6]))
	if ul < udpLen+BTHLen+ICRCLen || ul > len(udp) {
		return s, fmt.Errorf("wire: UDP length %d outside %d (UDP, BTH, ICRC) to %d (IPv4 payload)", ul, udpLen+BTHLen+ICRCLen, len(udp))
	}
	s.bth = s.udp + udpLen
	s.icrc = s.udp + ul - ICRCLen
	return s, nil
}

// ICRC computes the invariant CRC of an Ethernet/IPv4/UDP/BTH frame, as
// InfiniBand Annex A17 defines it for RoCEv2 over IPv4 and Linux rxe
// (rxe_icrc.c) and scapy compute it: CRC-32 with the IEEE polynomial over
// 8 bytes of 0xFF (the masked LRH), the IPv4 header with TOS, TTL and
// checksum set to ones, the UDP header with its checksum set to ones, the
// BTH with byte 4 (FECN, BECN, reserved) set to ones, and the rest up to
// the ICRC. The trailer holds the value least significant byte first.
func ICRC(frame []byte) (uint32, error) {
	s, err := locate(frame)
	if err != nil {
		return 0, err
	}
	return icrcOf(frame, s), nil
}

// icrcOf computes the ICRC over a located frame: the CRC of 8 bytes of
// ones, then the IPv4 header, UDP header and BTH with their variant
// fields taken as ones, then the rest up to the trailer. The frame is
// read in place, a piece at a time (a masked copy would escape to the
// heap through crc32's function values: one allocation a packet).
func icrcOf(frame []byte, s span) uint32 {
	up := func(crc uint32, b []byte) uint32 { return crc32.Update(crc, crc32.IEEETable, b) }
	crc := up(onesCRC, frame[s.ip:s.ip+1])
	crc = up(crc, ones[:1])               // TOS: DSCP and ECN
	crc = up(crc, frame[s.ip+2:s.ip+8])   // total length, identification, flags, fragment offset
	crc = up(crc, ones[:1])               // TTL
	crc = up(crc, frame[s.ip+9:s.ip+10])  // protocol
	crc = up(crc, ones[:2])               // header checksum
	crc = up(crc, frame[s.ip+12:s.udp+6]) // addresses, options, UDP ports and length
	crc = up(crc, ones[:2])               // UDP checksum
	crc = up(crc, frame[s.bth:s.bth+4])   // BTH bytes 0-3
	crc = up(crc, ones[:1])               // BTH byte 4: FECN, BECN, resv6
	return up(crc, frame[s.bth+5:s.icrc])
}

// ones are the bytes of ones the ICRC starts with and masks fields with;
// only read.
var ones = [8]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}

// onesCRC is the CRC of the 8 bytes of ones every ICRC starts with
// (TestICRCOnes), a constant: computing it at init would make every
// command set up crc32's tables, wire or not.
const onesCRC = 0x2144df1c

// CheckICRC computes the ICRC of a frame and compares it with the trailer:
// nil when they agree, an *ICRCError when they do not, another error when
// the frame is not an Ethernet/IPv4/UDP/BTH frame.
func CheckICRC(frame []byte) error {
	s, err := locate(frame)
	if err != nil {
		return err
	}
	want := icrcOf(frame, s)
	if got := binary.LittleEndian.Uint32(frame[s.icrc:]); got != want {
		return &ICRCError{Got: got, Want: want}
	}
	return nil
}
