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
// without the pad) and the ICRC (roceLayers.decode), and adds each layer
// decoded before an error, in that order.
func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	r := &roceLayers{}
	err := r.decode(data, p)
	if r.stage >= stageBTH {
		p.AddLayer(&r.bth)
	}
	for _, t := range r.hdr[:r.n] {
		p.AddLayer(r.header(t))
	}
	if r.stage >= stagePayload && r.payload != nil {
		pl := gopacket.Payload(r.payload)
		p.AddLayer(&pl)
		p.SetApplicationLayer(&pl)
	}
	if r.stage >= stageICRC {
		p.AddLayer(&r.icrc)
	}
	return err
}

// roceLayers holds the layers of one RoCEv2 packet after its UDP header,
// by value: decoding into one allocates nothing.
type roceLayers struct {
	bth    BTH
	reth   RETH
	atomic AtomicETH
	imm    ImmDt
	ieth   IETH
	aeth   AETH
	ack    AtomicAckETH
	icrc   ICRCTrailer
	// hdr lists the extension headers decoded, in order (n of them).
	hdr [2]gopacket.LayerType
	n   int
	// payload is what follows the headers, without the pad (nil for
	// none).
	payload []byte
	// stage is how far decode got before it stopped.
	stage uint8
}

// How far roceLayers.decode got.
const (
	stageBTH     = 1 + iota // the BTH decoded (and the headers in hdr)
	stagePayload            // every header and the payload
	stageICRC               // the ICRC too: the whole packet
)

// header returns the extension header of type t held in r.
func (r *roceLayers) header(t gopacket.LayerType) decodingLayer {
	switch t {
	case LayerTypeRETH:
		return &r.reth
	case LayerTypeAtomicETH:
		return &r.atomic
	case LayerTypeImmDt:
		return &r.imm
	case LayerTypeIETH:
		return &r.ieth
	case LayerTypeAETH:
		return &r.aeth
	case LayerTypeAtomicAckETH:
		return &r.ack
	}
	return nil
}

// decodeHeader decodes the extension header of type t from data into r
// and returns its payload, calling each type's DecodeFromBytes directly
// (through decodingLayer, r would escape to the heap).
func (r *roceLayers) decodeHeader(t gopacket.LayerType, data []byte, df gopacket.DecodeFeedback) ([]byte, error) {
	var err error
	switch t {
	case LayerTypeRETH:
		err = r.reth.DecodeFromBytes(data, df)
		return r.reth.Payload, err
	case LayerTypeAtomicETH:
		err = r.atomic.DecodeFromBytes(data, df)
		return r.atomic.Payload, err
	case LayerTypeImmDt:
		err = r.imm.DecodeFromBytes(data, df)
		return r.imm.Payload, err
	case LayerTypeIETH:
		err = r.ieth.DecodeFromBytes(data, df)
		return r.ieth.Payload, err
	case LayerTypeAETH:
		err = r.aeth.DecodeFromBytes(data, df)
		return r.aeth.Payload, err
	case LayerTypeAtomicAckETH:
		err = r.ack.DecodeFromBytes(data, df)
		return r.ack.Payload, err
	}
	return nil, fmt.Errorf("wire: layer type %v is not an extension header", t)
}

// decode decodes data, a UDP payload: the BTH, the extension headers its
// opcode names, the payload and the ICRC, trimming the pad and the ICRC
// from the payloads of the BTH and the headers. It stops at the first
// error; stage says how far it got.
func (r *roceLayers) decode(data []byte, df gopacket.DecodeFeedback) error {
	if err := r.bth.DecodeFromBytes(data, df); err != nil {
		return err
	}
	r.stage = stageBTH
	in, ok := r.bth.Opcode.info()
	if !ok {
		return fmt.Errorf("wire: BTH opcode 0x%02x is not an RC opcode this package decodes", uint8(r.bth.Opcode))
	}
	least := ICRCLen + int(r.bth.PadCount)
	for _, t := range in.hdr[:in.n] {
		least += headerLen(t)
	}
	rest := r.bth.Payload
	if len(rest) < least {
		df.SetTruncated()
		return fmt.Errorf("wire: %v needs %d bytes after the BTH (headers, %d pad, ICRC), has %d",
			r.bth.Opcode, least, r.bth.PadCount, len(rest))
	}
	end := len(rest) - ICRCLen - int(r.bth.PadCount)
	trailer := rest[end+int(r.bth.PadCount):]
	rest = rest[:end]
	r.bth.Payload = rest
	for _, t := range in.hdr[:in.n] {
		p, err := r.decodeHeader(t, rest, df)
		if err != nil {
			return err
		}
		r.hdr[r.n] = t
		r.n++
		rest = p
	}
	if len(rest) > 0 {
		r.payload = rest
	}
	r.stage = stagePayload
	if err := r.icrc.DecodeFromBytes(trailer, df); err != nil {
		return err
	}
	r.stage = stageICRC
	return nil
}
