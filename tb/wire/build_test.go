package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// mac and ip4 make the test hosts' addresses.
func mac(n byte) net.HardwareAddr { return net.HardwareAddr{2, 0, 0, 0, 0, n} }
func ip4(n byte) netip.Addr       { return netip.AddrFrom4([4]byte{10, 0, 0, n}) }

// randomPacket makes a packet of opcode op with random values in every
// field the opcode carries (and only those), from r.
func randomPacket(r *rand.Rand, op Opcode) Packet {
	p := Packet{
		SrcMAC: mac(byte(1 + r.IntN(8))), DstMAC: mac(byte(9 + r.IntN(8))),
		SrcIP: ip4(byte(1 + r.IntN(8))), DstIP: ip4(byte(9 + r.IntN(8))),
		TOS: uint8(r.IntN(256)), TTL: uint8(1 + r.IntN(255)), SrcPort: uint16(49152 + r.IntN(16384)),
		Opcode: op, SE: r.IntN(2) == 0, M: r.IntN(2) == 0, PKey: uint16(r.Uint32()),
		FECN: r.IntN(4) == 0, BECN: r.IntN(4) == 0,
		DestQP: r.Uint32() & 0xFFFFFF, AckReq: r.IntN(2) == 0, PSN: r.Uint32() & 0xFFFFFF,
	}
	has := map[gopacket.LayerType]bool{}
	for _, t := range op.Headers() {
		has[t] = true
	}
	if op.HasPayload() {
		if n := r.IntN(80); n > 0 {
			p.Payload = make([]byte, n)
			for i := range p.Payload {
				p.Payload[i] = byte(r.Uint32())
			}
		}
	}
	if has[LayerTypeRETH] || has[LayerTypeAtomicETH] {
		p.VA, p.RKey = r.Uint64(), prm.Key(r.Uint32())
	}
	if has[LayerTypeRETH] {
		p.DMALength = uint32(len(p.Payload))
		if !op.HasPayload() || op == OpRDMAWriteFirst {
			p.DMALength = r.Uint32() >> r.IntN(32)
		}
	}
	if has[LayerTypeAtomicETH] {
		p.VA &^= 7 // atomics work on aligned words
		p.SwapAdd = r.Uint64()
		if op == OpCompareSwap {
			p.Compare = r.Uint64()
		}
	}
	if has[LayerTypeImmDt] {
		p.Imm = r.Uint32()
	}
	if has[LayerTypeIETH] {
		p.InvalidateKey = prm.Key(r.Uint32())
	}
	if has[LayerTypeAETH] {
		switch r.IntN(3) {
		case 0:
			p.Syndrome = ACK(uint8(r.IntN(32)))
		case 1:
			p.Syndrome = RNRNAK(uint8(r.IntN(32)))
		default:
			p.Syndrome = NAK(NAKCode(r.IntN(4)))
		}
		p.MSN = r.Uint32() & 0xFFFFFF
	}
	if has[LayerTypeAtomicAckETH] {
		p.OrigRemoteData = r.Uint64()
	}
	return p
}

// helloPacket is the packet writeHello (icrc_test.go) holds.
// helloFrame is helloPacket built.
func helloFrame(t testing.TB) []byte {
	t.Helper()
	p := helloPacket()
	f, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func helloPacket() Packet {
	return Packet{
		SrcMAC: mac(1), DstMAC: mac(2), SrcIP: ip4(1), DstIP: ip4(2), TTL: 64, SrcPort: 49152,
		Opcode: OpRDMAWriteOnly, PKey: 0xFFFF, DestQP: 0x123456, PSN: 0,
		VA: 0x1122334455667788, RKey: 0x12345678, DMALength: 5, Payload: []byte("hello"),
	}
}

func TestBuildGolden(t *testing.T) {
	p := helloPacket()
	got, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, writeHello); !bytes.Equal(got, want) {
		t.Errorf("Build =\n% x\nwant\n% x", got, want)
	}
}

// TestBuildRoundTrip builds random packets of every opcode and decodes them
// back, field for field.
func TestBuildRoundTrip(t *testing.T) {
	const seed = 20240611
	r := rand.New(rand.NewPCG(seed, 1))
	for _, op := range Opcodes() {
		for i := 0; i < 50; i++ {
			p := randomPacket(r, op)
			frame, err := Build(&p)
			if err != nil {
				t.Fatalf("seed %d: Build(%+v): %v", seed, p, err)
			}
			s, err := Decode(frame)
			if err != nil {
				t.Fatalf("seed %d: Decode(Build(%+v)): %v", seed, p, err)
			}
			if !reflect.DeepEqual(s.Packet, p) || !s.ICRCOK || int(s.PadCount) != (4-len(p.Payload)%4)%4 {
				t.Fatalf("seed %d: Decode(Build(p)) =\n%+v\nwant\n%+v (ICRC ok, pad count)", seed, *s, p)
			}
			checkFrame(t, frame, p)
		}
	}
}

// checkFrame checks the outer headers Build fills in: lengths, the IPv4
// checksum, DF, the UDP checksum of 0, the pad and the ICRC trailer.
func checkFrame(t *testing.T, f []byte, p Packet) {
	t.Helper()
	hdrs := 0
	for _, h := range p.Opcode.Headers() {
		hdrs += headerLen(h)
	}
	pad := (4 - len(p.Payload)%4) % 4
	udpLength := 8 + BTHLen + hdrs + len(p.Payload) + pad + ICRCLen
	var sum uint32
	for i := 14; i < 34; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(f[i:]))
	}
	for sum > 0xFFFF {
		sum = sum>>16 + sum&0xFFFF
	}
	switch {
	case len(f) != max(60, 14+20+udpLength):
		t.Errorf("frame of %d bytes, want %d (at least 60)", len(f), 14+20+udpLength)
	case sum != 0xFFFF:
		t.Errorf("IPv4 header sums to %#x, want 0xffff", sum)
	case binary.BigEndian.Uint16(f[16:]) != uint16(20+udpLength):
		t.Errorf("IPv4 total length %d, want %d", binary.BigEndian.Uint16(f[16:]), 20+udpLength)
	case f[20] != 0x40 || f[21] != 0:
		t.Errorf("IPv4 flags and offset % x, want 40 00 (DF)", f[20:22])
	case binary.BigEndian.Uint16(f[38:]) != uint16(udpLength):
		t.Errorf("UDP length %d, want %d", binary.BigEndian.Uint16(f[38:]), udpLength)
	case binary.BigEndian.Uint16(f[36:]) != 4791 || f[40] != 0 || f[41] != 0:
		t.Errorf("UDP port %d checksum % x, want 4791 and 0", binary.BigEndian.Uint16(f[36:]), f[40:42])
	case !bytes.Equal(f[34+udpLength-4-pad:34+udpLength-4], make([]byte, pad)):
		t.Errorf("pad % x, want %d zeros", f[34+udpLength-4-pad:34+udpLength-4], pad)
	}
	if err := CheckICRC(f); err != nil {
		t.Error(err)
	}
}

// TestNewPacketLayers decodes a frame of every opcode with gopacket alone
// and checks the layers it finds, in order.
func TestNewPacketLayers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, op := range Opcodes() {
		for _, n := range []int{0, 1, 4, 61} {
			p := randomPacket(r, op)
			if op.HasPayload() {
				p.Payload = bytes.Repeat([]byte{0xA5}, n)
				if n == 0 {
					p.Payload = nil
				}
				if op.Headers() != nil && op.Headers()[0] == LayerTypeRETH {
					p.DMALength = uint32(n)
				}
			} else if n > 0 {
				continue
			}
			frame, err := Build(&p)
			if err != nil {
				t.Fatalf("Build(%+v): %v", p, err)
			}
			want := []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, LayerTypeBTH}
			want = append(want, op.Headers()...)
			if len(p.Payload) > 0 {
				want = append(want, gopacket.LayerTypePayload)
			}
			want = append(want, LayerTypeICRC)
			for _, opt := range []gopacket.DecodeOptions{gopacket.Default, gopacket.Lazy, gopacket.NoCopy} {
				pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, opt)
				var got []gopacket.LayerType
				for _, l := range pkt.Layers() {
					got = append(got, l.LayerType())
				}
				if !reflect.DeepEqual(got, want) || pkt.ErrorLayer() != nil {
					t.Fatalf("%v payload %d, options %+v: layers %v (error %v), want %v", op, n, opt, got, pkt.ErrorLayer(), want)
				}
				bth := pkt.Layer(LayerTypeBTH).(*BTH)
				if bth.Opcode != op || bth.DestQP != p.DestQP || bth.PSN != p.PSN || int(bth.PadCount) != (4-n%4)%4 {
					t.Errorf("%v: BTH %+v", op, bth)
				}
				if app := pkt.ApplicationLayer(); len(p.Payload) > 0 && (app == nil || !bytes.Equal(app.Payload(), p.Payload)) {
					t.Errorf("%v: application layer %v, want payload % x", op, app, p.Payload)
				}
				icrc := pkt.Layer(LayerTypeICRC).(*ICRCTrailer)
				if want, _ := ICRC(frame); icrc.Value != want {
					t.Errorf("%v: ICRC layer %#08x, computed %#08x", op, icrc.Value, want)
				}
				// The BTH's payload stops before the pad and the ICRC.
				udpEnd := 34 + int(binary.BigEndian.Uint16(frame[38:]))
				if got, want := len(bth.LayerPayload()), udpEnd-42-BTHLen-ICRCLen-int(bth.PadCount); got != want {
					t.Errorf("%v: BTH payload of %d bytes, want %d", op, got, want)
				}
			}
		}
	}
}

// TestDecodingLayerParser decodes with the layers on their own, as a
// DecodingLayerParser does: the headers are right, and the payload keeps
// the pad and the ICRC, as the package documents.
func TestDecodingLayerParser(t *testing.T) {
	p := helloPacket()
	frame, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	var (
		eth     layers.Ethernet
		ip      layers.IPv4
		udp     layers.UDP
		bth     BTH
		reth    RETH
		payload gopacket.Payload
	)
	parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &ip, &udp, &bth, &reth, &payload)
	var got []gopacket.LayerType
	if err := parser.DecodeLayers(frame, &got); err != nil {
		t.Fatal(err)
	}
	want := []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, LayerTypeBTH, LayerTypeRETH, gopacket.LayerTypePayload}
	if !reflect.DeepEqual(got, want) || reth.RKey != p.RKey || reth.VA != p.VA || bth.DestQP != p.DestQP {
		t.Errorf("layers %v, RETH %+v, BTH %+v", got, reth, bth)
	}
	if !bytes.Equal(payload, frame[len(frame)-12:]) {
		t.Errorf("payload % x, want hello, pad and ICRC % x", []byte(payload), frame[len(frame)-12:])
	}
}

func TestBuildErrors(t *testing.T) {
	ok := func(edit func(*Packet)) Packet {
		p := helloPacket()
		edit(&p)
		return p
	}
	for _, tt := range []struct {
		p    Packet
		want string
	}{
		{ok(func(p *Packet) { p.SrcMAC = nil }), `Packet SrcMAC "" has 0 bytes, want 6`},
		{ok(func(p *Packet) { p.DstMAC = net.HardwareAddr{1, 2, 3, 4, 5, 6, 7, 8} }), "Packet DstMAC \"01:02:03:04:05:06:07:08\" has 8 bytes"},
		{ok(func(p *Packet) { p.SrcIP = netip.MustParseAddr("fe80::1") }), "Packet SrcIP fe80::1 is not an IPv4 address"},
		{ok(func(p *Packet) { p.DstIP = netip.Addr{} }), "Packet DstIP invalid IP is not an IPv4 address"},
		{ok(func(p *Packet) { p.Opcode = 0x15 }), "Packet Opcode 0x15 is not an RC opcode"},
		{ok(func(p *Packet) { p.Opcode = 0x64 }), "Packet Opcode 0x64 is not an RC opcode"},
		{ok(func(p *Packet) { p.DestQP = 0x1000000 }), "Packet DestQP 0x1000000 does not fit in 24 bits"},
		{ok(func(p *Packet) { p.PSN = 0xFFFFFFFF }), "Packet PSN 0xffffffff does not fit in 24 bits"},
		{ok(func(p *Packet) { p.Opcode, p.Payload = OpSendOnly, nil }), "Packet VA 0x1122334455667788 is set but RC_SEND_ONLY does not carry it"},
		{ok(func(p *Packet) { p.Opcode, p.VA, p.DMALength = OpSendOnly, 0, 0 }), "Packet RKey 0x12345678 is set but RC_SEND_ONLY"},
		{ok(func(p *Packet) { p.Opcode = OpFetchAdd }), "Packet DMALength 0x5 is set but RC_FETCH_ADD"},
		{ok(func(p *Packet) { p.SwapAdd = 3 }), "Packet SwapAdd 0x3 is set but RC_RDMA_WRITE_ONLY"},
		{ok(func(p *Packet) { p.Compare = 4 }), "Packet Compare 0x4 is set"},
		{ok(func(p *Packet) { p.Imm = 5 }), "Packet Imm 0x5 is set but RC_RDMA_WRITE_ONLY"},
		{ok(func(p *Packet) { p.InvalidateKey = 6 }), "Packet InvalidateKey 0x6 is set"},
		{ok(func(p *Packet) { p.Syndrome = NAK(2) }), "Packet Syndrome 0x62 is set"},
		{ok(func(p *Packet) { p.MSN = 8 }), "Packet MSN 0x8 is set"},
		{ok(func(p *Packet) { p.MSN = 1 << 24 }), "Packet MSN 0x1000000 does not fit in 24 bits"},
		{ok(func(p *Packet) { p.OrigRemoteData = 9 }), "Packet OrigRemoteData 0x9 is set"},
		{ok(func(p *Packet) { p.Opcode = OpRDMAReadRequest }), "Packet Payload of 5 bytes is set but RC_RDMA_READ_REQUEST carries none"},
		{ok(func(p *Packet) { p.Payload = make([]byte, 65473) }), "Payload of 65473 bytes makes an IPv4 packet of 65536 bytes, over 65535"},
	} {
		frame, err := Build(&tt.p)
		if err == nil || !strings.Contains(err.Error(), tt.want) || frame != nil {
			t.Errorf("Build(%+v) = %d bytes, %v; want an error containing %q", tt.p, len(frame), err, tt.want)
		}
	}
	// The largest payload that fits: 20+8+12+16+65472+4 = 65532 bytes of
	// IPv4, as one more byte brings 3 of pad.
	p := ok(func(p *Packet) { p.Payload = make([]byte, 65472) })
	if frame, err := Build(&p); err != nil || len(frame) != 14+65532 {
		t.Errorf("largest payload: %d bytes, %v", len(frame), err)
	}
}

// reICRC rewrites a frame's ICRC after an edit.
func reICRC(t *testing.T, f []byte) []byte {
	t.Helper()
	v, err := ICRC(f)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(f[len(f)-4:], v)
	return f
}

func TestDecodeErrors(t *testing.T) {
	p := helloPacket()
	good, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(frame []byte, off int, b ...byte) []byte {
		f := append([]byte(nil), frame...)
		copy(f[off:], b)
		return reICRC(t, f)
	}
	// An ACK of a UDP length that cannot hold the AETH and the ICRC.
	ack := Packet{SrcMAC: mac(1), DstMAC: mac(2), SrcIP: ip4(1), DstIP: ip4(2), Opcode: OpAcknowledge, Syndrome: NAK(3)}
	ackFrame, err := Build(&ack)
	if err != nil {
		t.Fatal(err)
	}
	short := append([]byte(nil), ackFrame[:len(ackFrame)-4]...)
	binary.BigEndian.PutUint16(short[16:], binary.BigEndian.Uint16(short[16:])-4)
	binary.BigEndian.PutUint16(short[38:], binary.BigEndian.Uint16(short[38:])-4)
	binary.BigEndian.PutUint16(short[24:], 0)
	binary.BigEndian.PutUint16(short[24:], ipv4Checksum(short[14:34]))
	for _, tt := range []struct {
		name  string
		frame []byte
		want  string
	}{
		{"opcode 0x15", edit(good, 42, 0x15), "BTH opcode 0x15 is not an RC opcode"},
		{"UD SEND_ONLY", edit(good, 42, 0x64), "BTH opcode 0x64"},
		{"pad count 3 on an ACK", edit(ackFrame, 43, 0x30), "RC_ACKNOWLEDGE needs 11 bytes after the BTH (headers, 3 pad, ICRC), has 8"},
		{"ACK without room for the AETH", reICRC(t, short), "RC_ACKNOWLEDGE needs 8 bytes after the BTH (headers, 0 pad, ICRC), has 4"},
		{"cut", good[:len(good)-1], "IPv4 total length 68"},
		{"ARP", append(append([]byte(nil), good[:12]...), 0x08, 0x06), "not RoCEv2: EtherType 0x0806"},
	} {
		s, err := Decode(tt.frame)
		if err == nil || !strings.Contains(err.Error(), tt.want) || s != nil {
			t.Errorf("%s: Decode = %+v, %v; want an error containing %q", tt.name, s, err, tt.want)
		}
	}
	// Every prefix of a good frame is an error, never a panic.
	for n := range good {
		if s, err := Decode(good[:n]); err == nil {
			t.Errorf("Decode of %d of %d bytes = %+v, want an error", n, len(good), s)
		}
	}
	// A wrong ICRC decodes, with ICRCOK false.
	bad := append([]byte(nil), good...)
	bad[len(bad)-1] ^= 1
	if s, err := Decode(bad); err != nil || s.ICRCOK || s.ICRC != binary.LittleEndian.Uint32(bad[len(bad)-4:]) {
		t.Errorf("bad ICRC: Decode = %+v, %v; want ICRCOK false", s, err)
	}
	// A payload on a request that carries none decodes: decoding is liberal.
	rr := Packet{SrcMAC: mac(1), DstMAC: mac(2), SrcIP: ip4(1), DstIP: ip4(2), Opcode: OpRDMAWriteOnly, RKey: 1, Payload: []byte{1, 2, 3, 4}}
	f, err := Build(&rr)
	if err != nil {
		t.Fatal(err)
	}
	f[42] = byte(OpRDMAReadRequest)
	if s, err := Decode(reICRC(t, f)); err != nil || s.Opcode != OpRDMAReadRequest || !bytes.Equal(s.Payload, rr.Payload) || !s.ICRCOK {
		t.Errorf("read request with a payload: Decode = %+v, %v", s, err)
	}
}

// TestDecodeVLAN puts an 802.1Q tag in: the ICRC does not cover Ethernet.
func TestDecodeVLAN(t *testing.T) {
	p := helloPacket()
	f, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	tagged := append(append(append([]byte(nil), f[:12]...), 0x81, 0x00, 0x00, 0x05), f[12:]...)
	s, err := Decode(tagged)
	if err != nil || !s.ICRCOK || !reflect.DeepEqual(s.Packet, p) {
		t.Errorf("Decode(tagged) = %+v, %v", s, err)
	}
}

// ExampleBuild builds an RDMA WRITE carrying an R_Key and decodes it back.
func ExampleBuild() {
	frame, err := Build(&Packet{
		SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2},
		SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"),
		TTL: 64, SrcPort: 49152, PKey: 0xFFFF,
		Opcode: OpRDMAWriteOnly, DestQP: 0x11, PSN: 1,
		VA: 0x10000, RKey: prm.MakeKey(0x1234, 0x56), DMALength: 4, Payload: []byte{1, 2, 3, 4},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := Decode(frame)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(frame), s.Opcode, s.DestQP, s.RKey, s.VA, s.DMALength, s.ICRCOK)
	// Output: 78 RC_RDMA_WRITE_ONLY 17 0x123456 65536 4 true
}
