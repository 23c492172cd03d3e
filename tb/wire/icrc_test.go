package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

// cnpConnectX4 is a RoCEv2 CNP (opcode 0x81) captured on a Mellanox
// ConnectX-4 Lx, as scapy's test/contrib/roce.uts quotes it: a hardware
// ICRC, 82 fd 00 2a in the last four bytes.
const cnpConnectX4 = `
e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2
003c 718c 4000 4011 9161 0a00 1101 0a00
1201 0000 12b7 0028 0000 8100 ffff 4000
0118 0000 0000 0000 0000 0000 0000 0000
0000 0000 0000 82fd 002a`

// ucSendScapy is the UC SEND_ONLY packet of scapy's roce.uts (MigReq, pad
// count 2, TOS 1, UDP checksum 0xaca2), whose ICRC scapy asserts is
// 0x78f353f3 read big-endian: bytes 78 f3 53 f3.
const ucSendScapy = `
248a 07a8 fa22 248a 07a8 fa22 0800
4501 0040 0478 4000 4011 b4d5 c0a8 0007 c0a8 0007
c000 12b7 002c aca2
24 60 ffff 00 0000d3 00 cf1710
4630 818b e289 35d9 0e9a 9550 5401 be88 5e50 0000
78f3 53f3`

// writeHello is a frame Build makes (see TestBuildGolden), written out by
// hand; tshark found its IPv4 checksum right and scapy computed its ICRC.
const writeHello = `
020000000002 020000000001 0800
45 00 0044 0000 4000 40 11 26a7 0a000001 0a000002
c000 12b7 0030 0000
0a 30 ffff 00 123456 00 000000
1122334455667788 12345678 00000005
68656c6c6f 000000
7e7e1c49`

func TestICRCVectors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		frame string
		want  uint32
	}{
		{"ConnectX-4 Lx CNP", cnpConnectX4, 0x2A00FD82},
		{"scapy UC SEND_ONLY", ucSendScapy, 0xF353F378},
		{"RC RDMA_WRITE_ONLY", writeHello, 0x491C7E7E},
	} {
		frame := unhex(t, tt.frame)
		got, err := ICRC(frame)
		if err != nil || got != tt.want {
			t.Errorf("%s: ICRC = %#08x, %v; want %#08x", tt.name, got, err, tt.want)
		}
		if err := CheckICRC(frame); err != nil {
			t.Errorf("%s: CheckICRC: %v", tt.name, err)
		}
	}
}

// TestICRCSeed checks the masked LRH against rxe_icrc.c: CRC-32 from all
// ones over eight 0xFF bytes leaves the register at 0xdebb20e3, the seed
// rxe starts from.
func TestICRCSeed(t *testing.T) {
	ones := []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	if got := ^crc32.Update(0, crc32.IEEETable, ones); got != 0xdebb20e3 {
		t.Errorf("register after the masked LRH = %#08x, want 0xdebb20e3", got)
	}
}

// TestICRCCoverage flips every byte of a frame in turn: the ICRC must
// change for every byte it covers and stay for the Ethernet header and the
// masked fields (TOS, TTL, IPv4 checksum, UDP checksum, BTH byte 4).
func TestICRCCoverage(t *testing.T) {
	frame := unhex(t, writeHello)
	base, err := ICRC(frame)
	if err != nil {
		t.Fatal(err)
	}
	masked := map[int]string{
		14 + 1: "TOS", 14 + 8: "TTL", 14 + 10: "IPv4 checksum", 14 + 11: "IPv4 checksum",
		34 + 6: "UDP checksum", 34 + 7: "UDP checksum", 42 + 4: "BTH byte 4",
	}
	icrcAt := len(frame) - ICRCLen
	for i := range frame {
		f := append([]byte(nil), frame...)
		f[i] ^= 0x5A
		got, err := ICRC(f)
		if err != nil {
			continue // a length, type, port or version that no longer walks
		}
		_, isMasked := masked[i]
		covered := i >= 14 && i < icrcAt && !isMasked
		if covered == (got == base) {
			t.Errorf("byte %d (%s): ICRC %#08x after flipping, %#08x before; covered %v", i, masked[i], got, base, covered)
		}
	}
	// The fields that must still walk: every masked one did.
	for i, name := range masked {
		f := append([]byte(nil), frame...)
		f[i] = 0
		if got, err := ICRC(f); err != nil || got != base {
			t.Errorf("%s (byte %d) zeroed: ICRC %#08x, %v; want %#08x", name, i, got, err, base)
		}
	}
}

func TestICRCFrameErrors(t *testing.T) {
	good := unhex(t, writeHello)
	patch := func(off int, b ...byte) []byte {
		f := append([]byte(nil), good...)
		copy(f[off:], b)
		return f
	}
	for _, tt := range []struct {
		name   string
		frame  []byte
		not    bool // a *NotRoCEv2Error
		substr string
	}{
		{"empty", nil, false, "shorter than an Ethernet header"},
		{"ARP", patch(12, 0x08, 0x06), true, "EtherType 0x0806"},
		{"IPv6", patch(12, 0x86, 0xDD), false, "IPv6"},
		{"VLAN cut", patch(12, 0x81, 0x00)[:16], false, "VLAN"},
		{"IPv4 cut", good[:30], false, "IPv4 header cut off: 16 of 20"},
		{"version 6", patch(14, 0x65), false, "version field is 6"},
		{"IHL 4", patch(14, 0x44), false, "header length 16"},
		{"total too long", patch(16, 0x01, 0x00), false, "total length 256"},
		{"TCP", patch(23, 6), true, "IP protocol 6"},
		{"fragment", patch(20, 0x20, 0x00), false, "fragment"},
		{"port 4792", patch(36, 0x12, 0xB8), true, "UDP destination port 4792"},
		{"UDP length short", patch(38, 0x00, 0x17), false, "UDP length 23"},
		{"UDP length long", patch(38, 0x00, 0x31), false, "UDP length 49"},
	} {
		_, err := ICRC(tt.frame)
		var not *NotRoCEv2Error
		if err == nil || errors.As(err, &not) != tt.not || !strings.Contains(err.Error(), tt.substr) {
			t.Errorf("%s: ICRC error %v; want one containing %q (NotRoCEv2Error %v)", tt.name, err, tt.substr, tt.not)
		}
		if err2 := CheckICRC(tt.frame); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%s: CheckICRC = %v, want %v", tt.name, err2, err)
		}
	}
	bad := patch(len(good)-1, 0x48)
	var ie *ICRCError
	if err := CheckICRC(bad); !errors.As(err, &ie) || ie.Want != 0x491C7E7E || ie.Got != 0x481C7E7E ||
		!strings.Contains(err.Error(), "0x481c7e7e") || !strings.Contains(err.Error(), "0x491c7e7e") {
		t.Errorf("CheckICRC(bad trailer) = %v", err)
	}
}

// TestICRCEthernetPadding looks at a frame shorter than the Ethernet
// minimum, which Build (gopacket's Ethernet layer) pads to 60 bytes: the
// ICRC ends where the UDP length says, not at the end of the frame.
func TestICRCEthernetPadding(t *testing.T) {
	frame, err := Build(&Packet{
		SrcMAC: mac(1), DstMAC: mac(2), SrcIP: ip4(1), DstIP: ip4(2), TTL: 64,
		Opcode: OpSendOnly, PKey: 0xFFFF, DestQP: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(frame) != 60 || !bytes.Equal(frame[58:], []byte{0, 0}) {
		t.Fatalf("SEND_ONLY without payload is % x, want 58 bytes and 2 of padding", frame)
	}
	want := binary.LittleEndian.Uint32(frame[54:])
	padded := append(frame, 0xEE, 0xEE)
	if got, err := ICRC(padded); err != nil || got != want {
		t.Errorf("padded: ICRC = %#08x, %v; want %#08x", got, err, want)
	}
	if s, err := Decode(padded); err != nil || !s.ICRCOK || s.ICRC != want {
		t.Errorf("padded: Decode = %+v, %v", s, err)
	}
}

// TestICRCOnes: onesCRC is the CRC of the 8 bytes of ones.
func TestICRCOnes(t *testing.T) {
	if got := crc32.Update(0, crc32.IEEETable, ones[:]); got != onesCRC {
		t.Errorf("CRC of 8 bytes of ones = %#x, onesCRC %#x", got, onesCRC)
	}
}
