package wire

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// Packet is one RoCEv2 packet over Ethernet and IPv4, field by field: what
// Build takes and Decode gives back. Every field is written as given (no
// defaults: set TTL, usually 64, and PKey, 0xFFFF for the default
// partition). A field the opcode does not carry must be zero.
type Packet struct {
	SrcMAC, DstMAC net.HardwareAddr // 6 bytes each
	SrcIP, DstIP   netip.Addr       // IPv4 addresses
	TOS            uint8            // IPv4 DSCP and ECN
	TTL            uint8            // IPv4 time to live
	SrcPort        uint16           // UDP source port (flow entropy); the destination is UDPPort

	Opcode Opcode
	SE     bool   // BTH solicited event
	M      bool   // BTH MigReq
	PKey   uint16 // BTH partition key
	FECN   bool   // BTH forward congestion notification
	BECN   bool   // BTH backward congestion notification
	DestQP uint32 // BTH destination queue pair (24 bits)
	AckReq bool   // BTH acknowledge request
	PSN    uint32 // BTH packet sequence number (24 bits)

	VA             uint64   // RETH or AtomicETH virtual address
	RKey           prm.Key  // RETH or AtomicETH remote key
	DMALength      uint32   // RETH length of the whole operation
	SwapAdd        uint64   // AtomicETH swap (COMPARE_SWAP) or add (FETCH_ADD) data
	Compare        uint64   // AtomicETH compare data
	Imm            uint32   // ImmDt immediate data
	InvalidateKey  prm.Key  // IETH remote key to invalidate
	Syndrome       Syndrome // AETH syndrome
	MSN            uint32   // AETH message sequence number (24 bits)
	OrigRemoteData uint64   // AtomicAckETH original remote data

	Payload []byte // the data, without pad; only for opcodes with a payload
}

// maxIPv4 is the largest IPv4 total length.
const maxIPv4 = 65535

// Build makes the whole frame: Ethernet, IPv4 (don't fragment, header
// checksum filled in), UDP to port 4791 (length filled in, checksum 0 as
// RoCEv2 over IPv4 allows), BTH (PadCount filled in), the extension headers
// the opcode names, the payload with its zero pad, and the ICRC; a frame
// under the Ethernet minimum of 60 bytes comes padded with zeros (by
// gopacket's Ethernet layer, as on the wire). A field that does not fit,
// or that the opcode does not carry, is an error naming it and its value.
func Build(p *Packet) ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	pad := (4 - len(p.Payload)%4) % 4
	// The layers live in one allocation, not one each.
	l := &layerStack{
		eth: layers.Ethernet{SrcMAC: p.SrcMAC, DstMAC: p.DstMAC, EthernetType: layers.EthernetTypeIPv4},
		ip: layers.IPv4{
			Version: 4, IHL: 5, TOS: p.TOS, TTL: p.TTL, Flags: layers.IPv4DontFragment,
			Protocol: layers.IPProtocolUDP, SrcIP: p.SrcIP.AsSlice(), DstIP: p.DstIP.AsSlice(),
		},
		udp: layers.UDP{SrcPort: layers.UDPPort(p.SrcPort), DstPort: UDPPort},
		bth: BTH{
			Opcode: p.Opcode, SE: p.SE, M: p.M, PadCount: uint8(pad), PKey: p.PKey,
			FECN: p.FECN, BECN: p.BECN, DestQP: p.DestQP, AckReq: p.AckReq, PSN: p.PSN,
		},
	}
	ls := append(l.ls[:0], &l.eth, &l.ip, &l.udp, &l.bth)
	size := ipv4MinLen + udpLen + BTHLen + len(p.Payload) + pad + ICRCLen
	for _, t := range p.Opcode.Headers() {
		size += headerLen(t)
		ls = append(ls, p.header(t))
	}
	if size > maxIPv4 {
		return nil, fmt.Errorf("wire: Payload of %d bytes makes an IPv4 packet of %d bytes, over %d", len(p.Payload), size, maxIPv4)
	}
	// The payload and its pad are copied into the frame as they are.
	if len(p.Payload) > 0 {
		ls = append(ls, gopacket.Payload(p.Payload))
	}
	if pad > 0 {
		ls = append(ls, gopacket.Payload(zeroPad[:pad]))
	}
	ls = append(ls, &l.icrc)
	buf := gopacket.NewSerializeBufferExpectedSize(ethLen+size, 0)
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ls...); err != nil {
		return nil, err
	}
	frame := buf.Bytes()
	ip := frame[ethLen : ethLen+ipv4MinLen]
	binary.BigEndian.PutUint16(ip[10:12], ipv4Checksum(ip))
	s, err := locate(frame)
	if err != nil {
		return nil, fmt.Errorf("wire: built frame does not walk back: %w", err)
	}
	binary.LittleEndian.PutUint32(frame[s.icrc:], icrcOf(frame, s))
	return frame, nil
}

// layerStack holds the layers Build serializes, in one allocation.
type layerStack struct {
	eth  layers.Ethernet
	ip   layers.IPv4
	udp  layers.UDP
	bth  BTH
	icrc ICRCTrailer
	ls   [9]gopacket.SerializableLayer // the 4 above, at most 2 extension headers, the payload, its pad and the ICRC
}

// zeroPad is the pad Build puts after a payload (at most 3 bytes); it is
// only read.
var zeroPad [3]byte

// header is the extension header of layer type t, from p's fields.
func (p *Packet) header(t gopacket.LayerType) gopacket.SerializableLayer {
	switch t {
	case LayerTypeRETH:
		return &RETH{VA: p.VA, RKey: p.RKey, DMALength: p.DMALength}
	case LayerTypeAtomicETH:
		return &AtomicETH{VA: p.VA, RKey: p.RKey, SwapAdd: p.SwapAdd, Compare: p.Compare}
	case LayerTypeImmDt:
		return &ImmDt{Data: p.Imm}
	case LayerTypeIETH:
		return &IETH{RKey: p.InvalidateKey}
	case LayerTypeAETH:
		return &AETH{Syndrome: p.Syndrome, MSN: p.MSN}
	case LayerTypeAtomicAckETH:
		return &AtomicAckETH{OrigRemoteData: p.OrigRemoteData}
	}
	return nil
}

// check rejects addresses of the wrong kind, values wider than their
// fields, an opcode not Known, and fields or a payload the opcode does not
// carry.
func (p *Packet) check() error {
	for _, m := range []struct {
		name string
		mac  net.HardwareAddr
	}{{"SrcMAC", p.SrcMAC}, {"DstMAC", p.DstMAC}} {
		if len(m.mac) != 6 {
			return fmt.Errorf("wire: Packet %s %q has %d bytes, want 6", m.name, m.mac, len(m.mac))
		}
	}
	for _, a := range []struct {
		name string
		ip   netip.Addr
	}{{"SrcIP", p.SrcIP}, {"DstIP", p.DstIP}} {
		if !a.ip.Is4() {
			return fmt.Errorf("wire: Packet %s %v is not an IPv4 address", a.name, a.ip)
		}
	}
	in, ok := p.Opcode.info()
	if !ok {
		return fmt.Errorf("wire: Packet Opcode 0x%02x is not an RC opcode this package builds", uint8(p.Opcode))
	}
	for _, f := range []struct {
		name string
		v    uint64
		bits int
	}{{"DestQP", uint64(p.DestQP), 24}, {"PSN", uint64(p.PSN), 24}, {"MSN", uint64(p.MSN), 24}} {
		if err := checkBits("Packet", f.name, f.v, f.bits); err != nil {
			return err
		}
	}
	var has [8]bool
	for _, t := range in.hdr[:in.n] {
		has[t-LayerTypeBTH] = true
	}
	hasHdr := func(t gopacket.LayerType) bool { return has[t-LayerTypeBTH] }
	reth, atomic := hasHdr(LayerTypeRETH), hasHdr(LayerTypeAtomicETH)
	for _, f := range []struct {
		name    string
		v       uint64
		carried bool
	}{
		{"VA", p.VA, reth || atomic},
		{"RKey", uint64(p.RKey), reth || atomic},
		{"DMALength", uint64(p.DMALength), reth},
		{"SwapAdd", p.SwapAdd, atomic},
		{"Compare", p.Compare, atomic},
		{"Imm", uint64(p.Imm), hasHdr(LayerTypeImmDt)},
		{"InvalidateKey", uint64(p.InvalidateKey), hasHdr(LayerTypeIETH)},
		{"Syndrome", uint64(p.Syndrome), hasHdr(LayerTypeAETH)},
		{"MSN", uint64(p.MSN), hasHdr(LayerTypeAETH)},
		{"OrigRemoteData", p.OrigRemoteData, hasHdr(LayerTypeAtomicAckETH)},
	} {
		if f.v != 0 && !f.carried {
			return fmt.Errorf("wire: Packet %s %#x is set but %v does not carry it", f.name, f.v, p.Opcode)
		}
	}
	if len(p.Payload) > 0 && !in.payload {
		return fmt.Errorf("wire: Packet Payload of %d bytes is set but %v carries none", len(p.Payload), p.Opcode)
	}
	return nil
}

// ipv4Checksum is the one's complement of the one's complement sum of the
// header's 16-bit words, with the checksum field taken as zero.
func ipv4Checksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		if i != 10 {
			sum += uint32(binary.BigEndian.Uint16(h[i:]))
		}
	}
	for sum > 0xFFFF {
		sum = sum>>16 + sum&0xFFFF
	}
	return ^uint16(sum)
}
