package wire

import (
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// UDPPort is the UDP destination port IANA assigned to RoCEv2.
const UDPPort layers.UDPPort = 4791

// The layer types, one block in gopacket's fast range (1000 to 1999):
// 1791 onwards, after the RoCEv2 port 4791. They are constants so that the
// numbers are named here once; init registers them.
const (
	LayerTypeBTH          gopacket.LayerType = 1791
	LayerTypeRETH         gopacket.LayerType = 1792
	LayerTypeAtomicETH    gopacket.LayerType = 1793
	LayerTypeImmDt        gopacket.LayerType = 1794
	LayerTypeIETH         gopacket.LayerType = 1795
	LayerTypeAETH         gopacket.LayerType = 1796
	LayerTypeAtomicAckETH gopacket.LayerType = 1797
	LayerTypeICRC         gopacket.LayerType = 1798
)

// init registers the layer types and binds BTH to UDP port 4791. This is
// the package's only global state, there because gopacket's registries of
// layer types and UDP ports are global: it runs once, when the package is
// first imported, and gopacket panics if a number is already taken.
func init() {
	for _, r := range []struct {
		t    gopacket.LayerType
		name string
		dec  gopacket.DecodeFunc
	}{
		{LayerTypeBTH, "BTH", decodeBTH},
		{LayerTypeRETH, "RETH", decodeOne(func() decodingLayer { return &RETH{} })},
		{LayerTypeAtomicETH, "AtomicETH", decodeOne(func() decodingLayer { return &AtomicETH{} })},
		{LayerTypeImmDt, "ImmDt", decodeOne(func() decodingLayer { return &ImmDt{} })},
		{LayerTypeIETH, "IETH", decodeOne(func() decodingLayer { return &IETH{} })},
		{LayerTypeAETH, "AETH", decodeOne(func() decodingLayer { return &AETH{} })},
		{LayerTypeAtomicAckETH, "AtomicAckETH", decodeOne(func() decodingLayer { return &AtomicAckETH{} })},
		{LayerTypeICRC, "ICRC", decodeOne(func() decodingLayer { return &ICRCTrailer{} })},
	} {
		gopacket.RegisterLayerType(int(r.t), gopacket.LayerTypeMetadata{Name: r.name, Decoder: r.dec})
	}
	layers.RegisterUDPPortLayerType(UDPPort, LayerTypeBTH)
}

// decodingLayer is what every layer of the package is.
type decodingLayer interface {
	gopacket.DecodingLayer
	gopacket.Layer
}

// newHeader makes an empty extension header of layer type t (nil for a
// type that is not one).
func newHeader(t gopacket.LayerType) decodingLayer {
	switch t {
	case LayerTypeRETH:
		return &RETH{}
	case LayerTypeAtomicETH:
		return &AtomicETH{}
	case LayerTypeImmDt:
		return &ImmDt{}
	case LayerTypeIETH:
		return &IETH{}
	case LayerTypeAETH:
		return &AETH{}
	case LayerTypeAtomicAckETH:
		return &AtomicAckETH{}
	}
	return nil
}

// headerLen is the length in bytes of an extension header's layer type.
func headerLen(t gopacket.LayerType) int {
	switch t {
	case LayerTypeRETH:
		return RETHLen
	case LayerTypeAtomicETH:
		return AtomicETHLen
	case LayerTypeImmDt:
		return ImmDtLen
	case LayerTypeIETH:
		return IETHLen
	case LayerTypeAETH:
		return AETHLen
	case LayerTypeAtomicAckETH:
		return AtomicAckETHLen
	}
	return 0
}

// decodeOne is the decoder of a layer met on its own (gopacket.NewPacket
// started at it): the layer, then what its NextLayerType names, if
// anything is left.
func decodeOne(newLayer func() decodingLayer) gopacket.DecodeFunc {
	return func(data []byte, p gopacket.PacketBuilder) error {
		l := newLayer()
		if err := l.DecodeFromBytes(data, p); err != nil {
			return err
		}
		p.AddLayer(l)
		next := l.NextLayerType()
		if len(l.LayerPayload()) == 0 || next == gopacket.LayerTypeZero {
			return nil
		}
		return p.NextDecoder(next)
	}
}

// decodeBTH is the decoder UDP port 4791 leads to. It decodes the BTH, the
// extension headers its opcode names, the payload (as gopacket.Payload,
// without the pad) and the ICRC, and trims the pad and the ICRC from the
// payloads of the BTH and the extension headers.
func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	bth := &BTH{}
	if err := bth.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(bth)
	in, ok := bth.Opcode.info()
	if !ok {
		return fmt.Errorf("wire: BTH opcode 0x%02x is not an RC opcode this package decodes", uint8(bth.Opcode))
	}
	least := ICRCLen + int(bth.PadCount)
	for _, t := range in.hdr[:in.n] {
		least += headerLen(t)
	}
	rest := bth.Payload
	if len(rest) < least {
		p.SetTruncated()
		return fmt.Errorf("wire: %v needs %d bytes after the BTH (headers, %d pad, ICRC), has %d",
			bth.Opcode, least, bth.PadCount, len(rest))
	}
	end := len(rest) - ICRCLen - int(bth.PadCount)
	trailer := rest[end+int(bth.PadCount):]
	rest = rest[:end]
	bth.Payload = rest
	for _, t := range in.hdr[:in.n] {
		h := newHeader(t)
		if err := h.DecodeFromBytes(rest, p); err != nil {
			return err
		}
		p.AddLayer(h)
		rest = h.LayerPayload()
	}
	if len(rest) > 0 {
		pl := gopacket.Payload(rest)
		p.AddLayer(&pl)
		p.SetApplicationLayer(&pl)
	}
	icrc := &ICRCTrailer{}
	if err := icrc.DecodeFromBytes(trailer, p); err != nil {
		return err
	}
	p.AddLayer(icrc)
	return nil
}
