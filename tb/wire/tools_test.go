package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mkeysim/internal/tooltest"
)

// toolSeed drives the capture the outside tools read; failures print it.
const toolSeed = 4791

// toolCapture writes a capture of 400 frames, forty of each kind in turn:
// RDMA WRITE (plain and with immediate), READ request, COMPARE_SWAP,
// FETCH_ADD, SEND with invalidate, acknowledges with ACK, NAK and RNR NAK
// syndromes, and atomic acknowledges, with random QPNs, PSNs, keys,
// addresses, lengths and payloads from toolSeed.
func toolCapture(t *testing.T) (string, []Packet, [][]byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(toolSeed, 0))
	kinds := []struct {
		op   Opcode
		edit func(p *Packet, i int)
	}{
		{OpRDMAWriteOnly, nil},
		{OpRDMAWriteOnlyImm, nil},
		{OpRDMAReadRequest, nil},
		{OpCompareSwap, nil},
		{OpFetchAdd, nil},
		{OpSendOnlyInvalidate, nil},
		{OpAcknowledge, func(p *Packet, i int) { p.Syndrome = ACK(uint8(i)) }},
		{OpAcknowledge, func(p *Packet, i int) { p.Syndrome = NAK(NAKCode(i % 4)) }},
		{OpAcknowledge, func(p *Packet, i int) { p.Syndrome = RNRNAK(uint8(i)) }},
		{OpAtomicAcknowledge, nil},
	}
	var pkts []Packet
	var datas [][]byte
	var frames []Frame
	start := time.Date(2024, 6, 11, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 40; i++ {
		for _, k := range kinds {
			p := randomPacket(r, k.op)
			if k.edit != nil {
				k.edit(&p, i)
			}
			f, err := Build(&p)
			if err != nil {
				t.Fatalf("seed %d: Build(%+v): %v", toolSeed, p, err)
			}
			pkts = append(pkts, p)
			datas = append(datas, f)
			frames = append(frames, Frame{Time: start.Add(time.Duration(len(frames)) * time.Microsecond), Data: f})
		}
	}
	path := filepath.Join(t.TempDir(), "tools.pcap")
	if err := WritePcap(path, frames); err != nil {
		t.Fatal(err)
	}
	return path, pkts, datas
}

// tsharkColumn is one field tshark prints: its name, how to compare it
// (a number in decimal or 0x hex, bytes in hex, or text), and the value
// the packet should show ("" when the field must be absent).
type tsharkColumn struct {
	field string
	kind  byte // 'n' number, 'b' bytes, 't' text
	want  func(i int, p *Packet, f []byte) string
}

func tsharkColumns() []tsharkColumn {
	has := func(p *Packet, t ...any) bool {
		for _, h := range p.Opcode.Headers() {
			for _, w := range t {
				if w == h {
					return true
				}
			}
		}
		return false
	}
	d := func(v uint64) string { return strconv.FormatUint(v, 10) }
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	if4 := func(ok bool, v uint64) string {
		if !ok {
			return ""
		}
		return d(v)
	}
	word := func(ok bool, v uint32) string {
		if !ok {
			return ""
		}
		return fmt.Sprintf("%08x", v)
	}
	reth, atomic := any(LayerTypeRETH), any(LayerTypeAtomicETH)
	return []tsharkColumn{
		{"frame.number", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(i + 1)) }},
		{"eth.src", 't', func(i int, p *Packet, f []byte) string { return p.SrcMAC.String() }},
		{"eth.dst", 't', func(i int, p *Packet, f []byte) string { return p.DstMAC.String() }},
		{"ip.src", 't', func(i int, p *Packet, f []byte) string { return p.SrcIP.String() }},
		{"ip.dst", 't', func(i int, p *Packet, f []byte) string { return p.DstIP.String() }},
		{"ip.dsfield", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(p.TOS)) }},
		{"ip.ttl", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(p.TTL)) }},
		{"ip.flags.df", 'n', func(i int, p *Packet, f []byte) string { return "1" }},
		{"ip.checksum.status", 'n', func(i int, p *Packet, f []byte) string { return "1" }}, // good
		{"udp.srcport", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(p.SrcPort)) }},
		{"udp.dstport", 'n', func(i int, p *Packet, f []byte) string { return "4791" }},
		{"udp.length", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(binary.BigEndian.Uint16(f[38:]))) }},
		{"udp.checksum", 'n', func(i int, p *Packet, f []byte) string { return "0" }},
		{"infiniband.bth.opcode", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(p.Opcode)) }},
		{"infiniband.bth.se", 'n', func(i int, p *Packet, f []byte) string { return b(p.SE) }},
		{"infiniband.bth.m", 'n', func(i int, p *Packet, f []byte) string { return b(p.M) }},
		{"infiniband.bth.padcnt", 'n', func(i int, p *Packet, f []byte) string { return d(uint64((4 - len(p.Payload)%4) % 4)) }},
		{"infiniband.bth.tver", 'n', func(i int, p *Packet, f []byte) string { return "0" }},
		{"infiniband.bth.p_key", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(p.PKey)) }},
		// tshark 4.0 shows BTH byte 4 (FECN, BECN, resv6) as the first
		// infiniband.reserved.
		{"infiniband.reserved", 'b', func(i int, p *Packet, f []byte) string { return fmt.Sprintf("%02x", bit(p.FECN, 7)|bit(p.BECN, 6)) }},
		{"infiniband.bth.destqp", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(p.DestQP)) }},
		{"infiniband.bth.a", 'n', func(i int, p *Packet, f []byte) string { return b(p.AckReq) }},
		{"infiniband.bth.psn", 'n', func(i int, p *Packet, f []byte) string { return d(uint64(p.PSN)) }},
		// tshark shows the AtomicETH's address and key as RETH fields.
		{"infiniband.reth.va", 'n', func(i int, p *Packet, f []byte) string { return if4(has(p, reth, atomic), p.VA) }},
		{"infiniband.reth.r_key", 'n', func(i int, p *Packet, f []byte) string { return if4(has(p, reth, atomic), uint64(p.RKey)) }},
		{"infiniband.reth.dmalen", 'n', func(i int, p *Packet, f []byte) string { return if4(has(p, reth), uint64(p.DMALength)) }},
		{"infiniband.atomiceth.swapdt", 'n', func(i int, p *Packet, f []byte) string { return if4(has(p, atomic), p.SwapAdd) }},
		{"infiniband.atomiceth.cmpdt", 'n', func(i int, p *Packet, f []byte) string { return if4(has(p, atomic), p.Compare) }},
		{"infiniband.immdt", 'b', func(i int, p *Packet, f []byte) string { return word(has(p, LayerTypeImmDt), p.Imm) }},
		{"infiniband.ieth", 'b', func(i int, p *Packet, f []byte) string { return word(has(p, LayerTypeIETH), uint32(p.InvalidateKey)) }},
		{"infiniband.aeth.syndrome", 'n', func(i int, p *Packet, f []byte) string { return if4(has(p, LayerTypeAETH), uint64(p.Syndrome)) }},
		{"infiniband.aeth.syndrome.opcode", 'n', func(i int, p *Packet, f []byte) string {
			return if4(has(p, LayerTypeAETH), uint64(p.Syndrome.Type()))
		}},
		{"infiniband.aeth.msn", 'n', func(i int, p *Packet, f []byte) string { return if4(has(p, LayerTypeAETH), uint64(p.MSN)) }},
		{"infiniband.atomicacketh.origremdt", 'n', func(i int, p *Packet, f []byte) string {
			return if4(has(p, LayerTypeAtomicAckETH), p.OrigRemoteData)
		}},
		// tshark reads the trailer big-endian; the ICRC is stored
		// least significant byte first.
		{"infiniband.invariant.crc", 'n', func(i int, p *Packet, f []byte) string {
			v, err := ICRC(f)
			if err != nil {
				return err.Error()
			}
			return d(uint64(bits.ReverseBytes32(v)))
		}},
		// The payload with its pad, as Wireshark's data dissector sees it.
		{"data.data", 'b', func(i int, p *Packet, f []byte) string {
			if len(p.Payload) == 0 {
				return ""
			}
			pad := (4 - len(p.Payload)%4) % 4
			return hex.EncodeToString(append(append([]byte(nil), p.Payload...), make([]byte, pad)...))
		}},
		{"_ws.malformed", 't', func(i int, p *Packet, f []byte) string { return "" }},
	}
}

// normalize puts a value tshark printed into the form tsharkColumns gives.
func normalize(kind byte, s string) string {
	switch {
	case s == "":
		return ""
	case kind == 'n':
		if v, err := strconv.ParseUint(s, 0, 64); err == nil {
			return strconv.FormatUint(v, 10)
		}
	case kind == 'b':
		return strings.ToLower(strings.ReplaceAll(s, ":", ""))
	}
	return s
}

// TestTshark has Wireshark's dissector read the capture and compares every
// field of every frame with what was built.
func TestTshark(t *testing.T) {
	tooltest.Need(t, tooltest.Tshark...)
	path, pkts, frames := toolCapture(t)
	cols := tsharkColumns()
	args := []string{"-r", path, "-n", "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=,", "-E", "occurrence=f"}
	// Keep random payloads away from the heuristic dissectors of the
	// protocols over InfiniBand (tshark 4.0 takes one name per flag).
	for _, p := range []string{"rpcordma", "iser", "nvme-rdma", "smb_direct", "smc", "lnet", "infiniband_sdp", "fcoib"} {
		args = append(args, "--disable-protocol", p)
	}
	for _, c := range cols {
		args = append(args, "-e", c.field)
	}
	cmd := exec.Command("tshark", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // run as root, tshark warns there; only the exit status counts
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(pkts) {
		t.Fatalf("tshark printed %d lines for %d frames:\n%s", len(lines), len(pkts), out)
	}
	bad := 0
	for i, line := range lines {
		got := strings.Split(line, ",")
		if len(got) != len(cols) {
			t.Fatalf("frame %d: tshark printed %d fields, want %d: %q", i+1, len(got), len(cols), line)
		}
		for j, c := range cols {
			g, w := normalize(c.kind, got[j]), c.want(i, &pkts[i], frames[i])
			if g != w {
				t.Errorf("seed %d, frame %d (%v): %s = %q (tshark %q), want %q\npacket %+v",
					toolSeed, i+1, pkts[i].Opcode, c.field, g, got[j], w, pkts[i])
				if bad++; bad > 20 {
					t.Fatal("too many differences")
				}
			}
		}
	}
}

// needScapy skips t (or fails it, when tooltest.Required) unless Debian's
// /usr/bin/python3 can import scapy's RoCE layer.
func needScapy(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import scapy.contrib.roce").Run(); err != nil {
		if tooltest.Required() {
			t.Fatalf("/usr/bin/python3 cannot import scapy.contrib.roce (%v) and MKEYSIM_REQUIRE_TOOLS=1 (apt-get install python3-scapy)", err)
		}
		t.Skipf("/usr/bin/python3 cannot import scapy.contrib.roce (%v): skipped (apt-get install python3-scapy)", err)
	}
}

// TestScapyICRC has scapy compute the ICRC of every frame of the capture
// and compares it with ours and with the trailer.
func TestScapyICRC(t *testing.T) {
	needScapy(t)
	path, pkts, frames := toolCapture(t)
	cmd := exec.Command("/usr/bin/python3", filepath.Join("testdata", "scapy_icrc.py"), path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scapy_icrc.py: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(frames) {
		t.Fatalf("scapy_icrc.py printed %d lines for %d frames:\n%s", len(lines), len(frames), out)
	}
	for i, line := range lines {
		ours, err := ICRC(frames[i])
		if err != nil {
			t.Fatal(err)
		}
		var le [4]byte
		binary.LittleEndian.PutUint32(le[:], ours)
		s, err := Decode(frames[i])
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%d,%x,%x", i+1, le, le)
		if line != want || !s.ICRCOK {
			t.Errorf("seed %d, frame %d (%v): scapy says %q (number, computed, stored), want %q\npacket %+v",
				toolSeed, i+1, pkts[i].Opcode, line, want, pkts[i])
		}
	}
}
