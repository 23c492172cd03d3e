package wire

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"mkeysim/prm"
)

// fuzzHeader decodes arbitrary bytes as a header of n bytes: shorter input
// is a truncation error, longer decodes, splits into contents and payload,
// and serialises back to the same n bytes.
func fuzzHeader(f *testing.F, n int, fresh func() wireLayer) {
	typ := fresh().LayerType()
	for _, tt := range headerTests {
		if tt.l.LayerType() == typ {
			f.Add(unhex(f, tt.bytes))
		}
	}
	f.Add([]byte{})
	f.Add(make([]byte, n-1))
	f.Add(bytes.Repeat([]byte{0xFF}, n+5))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := fresh()
		var fb feedback
		err := l.DecodeFromBytes(data, &fb)
		if len(data) < n {
			if err == nil || !fb.truncated {
				t.Fatalf("DecodeFromBytes(% x) = %v, truncated %v; want an error", data, err, fb.truncated)
			}
			return
		}
		if err != nil {
			t.Fatalf("DecodeFromBytes(% x): %v", data, err)
		}
		if !bytes.Equal(l.LayerContents(), data[:n]) || !bytes.Equal(l.LayerPayload(), data[n:]) {
			t.Fatalf("contents % x payload % x of % x", l.LayerContents(), l.LayerPayload(), data)
		}
		out, err := serialize(l)
		if err != nil || !bytes.Equal(out, data[:n]) {
			t.Fatalf("SerializeTo(DecodeFromBytes(% x)) = % x, %v", data[:n], out, err)
		}
		again := fresh()
		if err := again.DecodeFromBytes(out, &fb); err != nil || !reflect.DeepEqual(fields(again), fields(l)) {
			t.Fatalf("decoded again: %+v, %v; want %+v", fields(again), err, fields(l))
		}
	})
}

func FuzzBTH(f *testing.F)  { fuzzHeader(f, BTHLen, func() wireLayer { return &BTH{} }) }
func FuzzRETH(f *testing.F) { fuzzHeader(f, RETHLen, func() wireLayer { return &RETH{} }) }
func FuzzAtomicETH(f *testing.F) {
	fuzzHeader(f, AtomicETHLen, func() wireLayer { return &AtomicETH{} })
}
func FuzzImmDt(f *testing.F) { fuzzHeader(f, ImmDtLen, func() wireLayer { return &ImmDt{} }) }
func FuzzIETH(f *testing.F)  { fuzzHeader(f, IETHLen, func() wireLayer { return &IETH{} }) }
func FuzzAETH(f *testing.F)  { fuzzHeader(f, AETHLen, func() wireLayer { return &AETH{} }) }
func FuzzAtomicAckETH(f *testing.F) {
	fuzzHeader(f, AtomicAckETHLen, func() wireLayer { return &AtomicAckETH{} })
}
func FuzzICRCTrailer(f *testing.F) {
	fuzzHeader(f, ICRCLen, func() wireLayer { return &ICRCTrailer{} })
}

// FuzzBTHFields serialises a BTH from arbitrary field values: a value too
// wide for its field is an error, anything else decodes back the same.
func FuzzBTHFields(f *testing.F) {
	f.Add(uint8(0x0A), uint8(0xC0), uint8(2), uint8(0), uint16(0xFFFF), uint8(0), uint32(0x123456), uint8(0), uint32(7))
	f.Add(uint8(0xFF), uint8(0xFF), uint8(4), uint8(16), uint16(0), uint8(64), uint32(1<<24), uint8(128), uint32(1<<24))
	f.Fuzz(func(t *testing.T, op, flags, pad, tver uint8, pkey uint16, resv6 uint8, qp uint32, resv7 uint8, psn uint32) {
		b := &BTH{Opcode: Opcode(op), SE: flags&1 != 0, M: flags&2 != 0, PadCount: pad, TVer: tver, PKey: pkey,
			FECN: flags&4 != 0, BECN: flags&8 != 0, Resv6: resv6, DestQP: qp, AckReq: flags&16 != 0, Resv7: resv7, PSN: psn}
		out, err := serialize(b)
		fits := pad < 4 && tver < 16 && resv6 < 64 && qp < 1<<24 && resv7 < 128 && psn < 1<<24
		if (err == nil) != fits {
			t.Fatalf("SerializeTo(%+v) = %v, fits %v", b, err, fits)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "wire: BTH ") {
				t.Fatalf("error %q does not name the header", err)
			}
			return
		}
		var got BTH
		if err := got.DecodeFromBytes(out, gopacket.NilDecodeFeedback); err != nil || !reflect.DeepEqual(fields(&got), b) {
			t.Fatalf("decoded %+v, %v; want %+v", fields(&got), err, b)
		}
	})
}

// FuzzBuild builds a frame from arbitrary field values: Build either fails
// with a wire error or makes a frame that decodes back to the packet with
// a right ICRC.
func FuzzBuild(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, op := range Opcodes() {
		p := randomPacket(r, op)
		f.Add(uint8(p.Opcode), uint8(0x15), p.PKey, p.DestQP, p.PSN, p.VA, uint32(p.RKey), p.DMALength, p.SwapAdd, p.Compare,
			p.Imm, uint32(p.InvalidateKey), uint8(p.Syndrome), p.MSN, p.OrigRemoteData, p.TOS, p.TTL, p.SrcPort, p.Payload)
	}
	f.Fuzz(func(t *testing.T, op, flags uint8, pkey uint16, qp, psn uint32, va uint64, rkey, length uint32, swap, cmp uint64,
		imm, inv uint32, syn uint8, msn uint32, orig uint64, tos, ttl uint8, sport uint16, payload []byte) {
		if len(payload) == 0 {
			payload = nil
		}
		p := Packet{
			SrcMAC: mac(flags), DstMAC: mac(^flags), SrcIP: netip.AddrFrom4([4]byte{10, 1, 2, flags}), DstIP: ip4(3),
			TOS: tos, TTL: ttl, SrcPort: sport, Opcode: Opcode(op),
			SE: flags&1 != 0, M: flags&2 != 0, FECN: flags&4 != 0, BECN: flags&8 != 0, AckReq: flags&16 != 0,
			PKey: pkey, DestQP: qp, PSN: psn, VA: va, RKey: prm.Key(rkey), DMALength: length, SwapAdd: swap, Compare: cmp,
			Imm: imm, InvalidateKey: prm.Key(inv), Syndrome: Syndrome(syn), MSN: msn, OrigRemoteData: orig, Payload: payload,
		}
		frame, err := Build(&p)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "wire: ") || frame != nil {
				t.Fatalf("Build(%+v) = %d bytes, %v", p, len(frame), err)
			}
			return
		}
		s, err := Decode(frame)
		if err != nil || !reflect.DeepEqual(s.Packet, p) || !s.ICRCOK {
			t.Fatalf("Decode(Build(%+v)) = %+v, %v", p, s, err)
		}
	})
}

// FuzzDecode decodes arbitrary frames: never a panic, Decode gives what
// gopacket.NewPacket and Summarize give, and Decode, ICRC and CheckICRC
// agree.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, op := range Opcodes() {
		p := randomPacket(r, op)
		frame, err := Build(&p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(frame)
	}
	for _, v := range []string{cnpConnectX4, ucSendScapy, writeHello, arpFrame} {
		f.Add(unhex(f, v))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		s, err := Decode(frame)
		sameAsGopacket(t, frame, s, err)
		v, ierr := ICRC(frame)
		cerr := CheckICRC(frame)
		if ierr != nil {
			if err == nil || cerr == nil || cerr.Error() != ierr.Error() {
				t.Fatalf("ICRC error %v, but Decode %v and CheckICRC %v", ierr, err, cerr)
			}
		} else if err == nil {
			if s.ICRCOK != (cerr == nil) || (s.ICRCOK && s.ICRC != v) {
				t.Fatalf("Decode ICRC %#08x ok %v, ICRC %#08x, CheckICRC %v", s.ICRC, s.ICRCOK, v, cerr)
			}
			if len(s.Payload) == 0 && s.Payload != nil {
				t.Fatalf("empty payload not nil")
			}
		}
		// Lazy decoding walks the same decoders layer by layer.
		pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Lazy)
		for range pkt.Layers() {
		}
	})
}

// FuzzReadPcap reads arbitrary bytes as a capture, pcap or pcapng: never a panic, and
// what is read is in file order.
func FuzzReadPcap(f *testing.F) {
	p := helloPacket()
	frame, err := Build(&p)
	if err != nil {
		f.Fatal(err)
	}
	n := uint32(len(frame))
	le := binary.LittleEndian
	f.Add(pcapFile(le, 0xA1B2C3D4, 1, 65535, record(le, 1, 2, n, n, frame), record(le, 3, 4, 42, 42, unhex(f, arpFrame))))
	f.Add(pcapFile(binary.BigEndian, 0xA1B23C4D, 1, 100, record(binary.BigEndian, 1, 2, n, n, frame)))
	f.Add([]byte{})
	f.Add(cat(ngSHB(le), ngIDB(le, 1, 0, 9, []byte{9}), ngEPB(le, 0, 1, n, n, frame), ngEPB(le, 0, 2, 42, 42, unhex(f, arpFrame))))
	f.Add(cat(ngSHB(binary.BigEndian), ngIDB(binary.BigEndian, 1, 100), ngIDB(binary.BigEndian, 147, 0), ngEPB(binary.BigEndian, 1, 1, n, n, frame)))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ReadPcapFrom(bytes.NewReader(data), "fuzz.pcap")
		if err != nil {
			if got != nil || !strings.HasPrefix(err.Error(), "wire: fuzz.pcap: ") {
				t.Fatalf("readPcap = %d records, %v", len(got), err)
			}
			return
		}
		for i := 1; i < len(got); i++ {
			if got[i].Number <= got[i-1].Number {
				t.Fatalf("records out of order: %d after %d", got[i].Number, got[i-1].Number)
			}
		}
	})
}

// sameAsGopacket fails t unless Decode's s and err for frame are what
// Summarize gives for the packet gopacket.NewPacket decodes from it.
func sameAsGopacket(t *testing.T, frame []byte, s *Summary, err error) {
	t.Helper()
	g, gerr := Summarize(gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default))
	if (err == nil) != (gerr == nil) || err != nil && err.Error() != gerr.Error() || !reflect.DeepEqual(s, g) {
		t.Fatalf("frame % x:\nDecode = %+v, %v\ngopacket: %+v, %v", frame, s, err, g, gerr)
	}
}

// TestDecodeAsGopacket: on a frame of every opcode and on thousands of
// copies with a byte or a length changed, Decode gives the Summary or the
// error that gopacket.NewPacket and Summarize give.
func TestDecodeAsGopacket(t *testing.T) {
	const seed = 11
	r := rand.New(rand.NewPCG(seed, 5))
	var frames [][]byte
	for _, op := range Opcodes() {
		for range 4 {
			p := randomPacket(r, op)
			f, err := Build(&p)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			frames = append(frames, f)
		}
	}
	for _, v := range []string{cnpConnectX4, ucSendScapy, writeHello, arpFrame} {
		frames = append(frames, unhex(t, v))
	}
	n := len(frames)
	for i := 0; i < 3000; i++ {
		f := append([]byte(nil), frames[r.IntN(n)]...)
		switch r.IntN(3) {
		case 0: // a byte anywhere
			f[r.IntN(len(f))] = byte(r.Uint32())
		case 1: // a byte of the headers: Ethernet, IPv4 (options too), UDP, BTH and after
			f[r.IntN(min(len(f), 70))] = byte(r.Uint32())
		default: // cut short
			f = f[:r.IntN(len(f))]
		}
		frames = append(frames, f)
	}
	// IPv4 options, which locate does not read and gopacket checks: good
	// ones, and lengths below 3 or past the header.
	base := frames[0]
	withOptions := func(opts ...byte) []byte {
		f := append(append(append([]byte(nil), base[:34]...), opts...), base[34:]...)
		f[14] += byte(len(opts) / 4)
		binary.BigEndian.PutUint16(f[16:18], binary.BigEndian.Uint16(f[16:18])+uint16(len(opts)))
		return f
	}
	optionErrs := 0
	for _, opts := range [][]byte{{1, 1, 1, 0}, {0x44, 4, 0, 0}, {0x44, 2, 0, 0}, {0x44, 9, 0, 0}, {1, 1, 1, 0x44}} {
		f := withOptions(opts...)
		s, err := Decode(f)
		sameAsGopacket(t, f, s, err)
		if err != nil {
			optionErrs++
		}
	}
	if optionErrs != 3 {
		t.Errorf("%d of the IPv4 options fail to decode, want 3", optionErrs)
	}
	ok := 0
	for _, f := range frames {
		s, err := Decode(f)
		sameAsGopacket(t, f, s, err)
		if err == nil {
			ok++
		}
	}
	if ok < n/2 || ok == len(frames) {
		t.Errorf("seed %d: %d of %d frames decode: the errors are not exercised", seed, ok, len(frames))
	}
}
