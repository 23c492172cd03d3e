package wire

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Summary is a decoded RoCEv2 packet: its fields as Build takes them, the
// pad count, the ICRC in the trailer and whether it is right.
type Summary struct {
	Packet
	PadCount uint8  // BTH pad count: bytes between the payload and the ICRC
	ICRC     uint32 // the value in the trailer
	ICRCOK   bool   // whether ICRC is the CRC computed over the frame
}

// Decode decodes an Ethernet frame with gopacket and summarises it (see
// Summarize). The Summary shares no memory with frame.
func Decode(frame []byte) (*Summary, error) {
	return Summarize(gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default))
}

// Summarize gathers the layers of a RoCEv2 packet that gopacket decoded
// from an Ethernet frame into a Summary, with the payload copied, and
// checks its ICRC. A packet that is not RoCEv2 (another EtherType, IP
// protocol or UDP port) is a *NotRoCEv2Error; one that is but does not
// decode is another error, naming the reason. A wrong ICRC is not an
// error: ICRCOK is false.
func Summarize(pkt gopacket.Packet) (*Summary, error) {
	data := pkt.Data()
	s, err := locate(data)
	if err != nil {
		return nil, err
	}
	if e := pkt.ErrorLayer(); e != nil {
		return nil, fmt.Errorf("wire: RoCEv2 frame does not decode: %w", e.Error())
	}
	eth, _ := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	ip, _ := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	udp, _ := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP)
	bth, _ := pkt.Layer(LayerTypeBTH).(*BTH)
	icrc, _ := pkt.Layer(LayerTypeICRC).(*ICRCTrailer)
	if eth == nil || ip == nil || udp == nil || bth == nil || icrc == nil {
		return nil, fmt.Errorf("wire: RoCEv2 frame decodes without %s", missing(eth != nil, ip != nil, udp != nil, bth != nil, icrc != nil))
	}
	src, _ := netip.AddrFromSlice(ip.SrcIP)
	dst, _ := netip.AddrFromSlice(ip.DstIP)
	sum := &Summary{
		Packet: Packet{
			SrcMAC: cloneMAC(eth.SrcMAC), DstMAC: cloneMAC(eth.DstMAC),
			SrcIP: src.Unmap(), DstIP: dst.Unmap(), TOS: ip.TOS, TTL: ip.TTL,
			SrcPort: uint16(udp.SrcPort),
			Opcode:  bth.Opcode, SE: bth.SE, M: bth.M, PKey: bth.PKey, FECN: bth.FECN, BECN: bth.BECN,
			DestQP: bth.DestQP, AckReq: bth.AckReq, PSN: bth.PSN,
		},
		PadCount: bth.PadCount,
		ICRC:     icrc.Value,
		ICRCOK:   icrc.Value == icrcOf(data, s),
	}
	for _, l := range pkt.Layers() {
		switch h := l.(type) {
		case *RETH:
			sum.VA, sum.RKey, sum.DMALength = h.VA, h.RKey, h.DMALength
		case *AtomicETH:
			sum.VA, sum.RKey, sum.SwapAdd, sum.Compare = h.VA, h.RKey, h.SwapAdd, h.Compare
		case *ImmDt:
			sum.Imm = h.Data
		case *IETH:
			sum.InvalidateKey = h.RKey
		case *AETH:
			sum.Syndrome, sum.MSN = h.Syndrome, h.MSN
		case *AtomicAckETH:
			sum.OrigRemoteData = h.OrigRemoteData
		case *gopacket.Payload:
			sum.Payload = bytes.Clone(*h)
		}
	}
	return sum, nil
}

// missing names the layers among Ethernet, IPv4, UDP, BTH and ICRC that a
// decode lacks.
func missing(have ...bool) string {
	names := []string{"Ethernet", "IPv4", "UDP", "BTH", "ICRC"}
	var out []byte
	for i, h := range have {
		if !h {
			if len(out) > 0 {
				out = append(out, ", "...)
			}
			out = append(out, names[i]...)
		}
	}
	return string(out)
}

// cloneMAC copies a hardware address out of the packet's buffer.
func cloneMAC(m net.HardwareAddr) net.HardwareAddr {
	return net.HardwareAddr(bytes.Clone([]byte(m)))
}
