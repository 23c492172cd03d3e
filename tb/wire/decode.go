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

// Decode decodes an Ethernet frame and summarises it, as Summarize does
// the packet gopacket.NewPacket makes of it (TestDecodeAsGopacket): the
// same layers' DecodeFromBytes in the same order, into values on the
// stack, so that only the Summary, its addresses and its payload are
// allocated (NewPacket took sixteen allocations a frame, most of a
// replay's time). The Summary shares no memory with frame.
func Decode(frame []byte) (sum *Summary, err error) {
	s, err := locate(frame)
	if err != nil {
		return nil, err
	}
	defer func() {
		// gopacket recovers a decoder's panic into the packet's error
		// layer; so does this.
		if p := recover(); p != nil {
			sum, err = nil, fmt.Errorf("wire: RoCEv2 frame does not decode: panic: %v", p)
		}
	}()
	var d frameLayers
	if err := d.decode(frame); err != nil {
		return nil, fmt.Errorf("wire: RoCEv2 frame does not decode: %w", err)
	}
	return d.roce.summary(frame, s, &d.eth, &d.ip, &d.udp), nil
}

// frameLayers holds the layers of an Ethernet/IPv4/UDP/RoCEv2 frame by
// value.
type frameLayers struct {
	eth   layers.Ethernet
	dot1q layers.Dot1Q
	ip    layers.IPv4
	udp   layers.UDP
	roce  roceLayers
}

// decode decodes a frame that locate accepted, layer by layer as
// gopacket's decoders do, and stops at the first error.
func (d *frameLayers) decode(frame []byte) error {
	df := gopacket.NilDecodeFeedback
	if err := d.eth.DecodeFromBytes(frame, df); err != nil {
		return err
	}
	next := d.eth.Payload
	if d.eth.EthernetType == layers.EthernetTypeDot1Q {
		if err := d.dot1q.DecodeFromBytes(next, df); err != nil {
			return err
		}
		next = d.dot1q.Payload
	}
	if err := d.ip.DecodeFromBytes(next, df); err != nil {
		return err
	}
	if err := d.udp.DecodeFromBytes(d.ip.Payload, df); err != nil {
		return err
	}
	return d.roce.decode(d.udp.Payload, df)
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
	r := roceLayers{bth: *bth, icrc: *icrc}
	for _, l := range pkt.Layers() {
		switch h := l.(type) {
		case *RETH:
			r.reth = *h
		case *AtomicETH:
			r.atomic = *h
		case *ImmDt:
			r.imm = *h
		case *IETH:
			r.ieth = *h
		case *AETH:
			r.aeth = *h
		case *AtomicAckETH:
			r.ack = *h
		case *gopacket.Payload:
			r.payload = *h
			continue
		default:
			continue
		}
		if r.n < len(r.hdr) {
			r.hdr[r.n] = l.LayerType()
			r.n++
		}
	}
	return r.summary(data, s, eth, ip, udp), nil
}

// summary is the Summary of the packet whose RoCEv2 layers r holds, in
// frame, located at s, under eth, ip and udp.
func (r *roceLayers) summary(frame []byte, s span, eth *layers.Ethernet, ip *layers.IPv4, udp *layers.UDP) *Summary {
	src, _ := netip.AddrFromSlice(ip.SrcIP)
	dst, _ := netip.AddrFromSlice(ip.DstIP)
	b := &r.bth
	sum := &Summary{
		Packet: Packet{
			SrcMAC: cloneMAC(eth.SrcMAC), DstMAC: cloneMAC(eth.DstMAC),
			SrcIP: src.Unmap(), DstIP: dst.Unmap(), TOS: ip.TOS, TTL: ip.TTL,
			SrcPort: uint16(udp.SrcPort),
			Opcode:  b.Opcode, SE: b.SE, M: b.M, PKey: b.PKey, FECN: b.FECN, BECN: b.BECN,
			DestQP: b.DestQP, AckReq: b.AckReq, PSN: b.PSN,
		},
		PadCount: b.PadCount,
		ICRC:     r.icrc.Value,
		ICRCOK:   r.icrc.Value == icrcOf(frame, s),
	}
	for _, t := range r.hdr[:r.n] {
		switch t {
		case LayerTypeRETH:
			sum.VA, sum.RKey, sum.DMALength = r.reth.VA, r.reth.RKey, r.reth.DMALength
		case LayerTypeAtomicETH:
			sum.VA, sum.RKey, sum.SwapAdd, sum.Compare = r.atomic.VA, r.atomic.RKey, r.atomic.SwapAdd, r.atomic.Compare
		case LayerTypeImmDt:
			sum.Imm = r.imm.Data
		case LayerTypeIETH:
			sum.InvalidateKey = r.ieth.RKey
		case LayerTypeAETH:
			sum.Syndrome, sum.MSN = r.aeth.Syndrome, r.aeth.MSN
		case LayerTypeAtomicAckETH:
			sum.OrigRemoteData = r.ack.OrigRemoteData
		}
	}
	if r.payload != nil {
		sum.Payload = bytes.Clone(r.payload)
	}
	return sum
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
