package main

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/gopacket/pcapgo"

	"mkeysim/internal/tooltest"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/tb/tlpcap"
	"mkeysim/tb/wire"
)

// captureExamples are the scenarios the capture tests run: the examples
// with operations a wire carries, and a conformance scenario.
func captureExamples(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../examples/*.json")
	shared, _ := filepath.Glob("../../../shared/conformance/random-10[12].json")
	var out []string
	for _, f := range append(files, shared...) {
		sc, err := scenario.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sc.Ops {
			if wire.Carries(&sc.Ops[i]) {
				out = append(out, f)
				break
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d scenarios carry operations on the wire", len(out))
	}
	return out
}

// sameResults fails t unless the result lines got and want are the same,
// cycles aside.
func sameResults(t *testing.T, name, got, want string) {
	t.Helper()
	g, err := scenario.ReadResults(strings.NewReader(got))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	w, _ := scenario.ReadResults(strings.NewReader(want))
	if len(g) != len(w) {
		t.Fatalf("%s: %d results, want %d", name, len(g), len(w))
	}
	for i := range w {
		if d := scenario.Diff(&g[i], &w[i]); d != "" {
			t.Fatalf("%s: %s", name, d)
		}
	}
}

// replaysAs fails t unless replaying capture with scenario f prints
// lines, and writes again the packets of the capture the run wrote,
// runCap.
func replaysAs(t *testing.T, f, capture, runCap, lines string) {
	t.Helper()
	again := filepath.Join(filepath.Dir(capture), "again.pcap")
	code, replayed, errs := runCLI("replay", "--quiet", "--no-summary", capture, "--scenario", f, "--pcap-out", again)
	if code != 0 || replayed != lines {
		t.Fatalf("%s: %s replayed: exit %d, %s\n%s\nwant\n%s", f, filepath.Base(capture), code, errs, replayed, lines)
	}
	a, _ := os.ReadFile(runCap)
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Errorf("%s: the packets %s's replay wrote differ from the run's", f, filepath.Base(capture))
	}
}

// TestPcapOutReplay: a run through the wire front prints the results of
// a direct run (cycles aside: a receive CQE takes the link), and its
// capture, replayed with the same scenario, the lines of the wire run,
// cycles included; the capture the replay writes holds the same packets.
func TestPcapOutReplay(t *testing.T) {
	dir := t.TempDir()
	for _, f := range captureExamples(t) {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		capFile := filepath.Join(dir, base+".pcap")
		code, direct, errs := runCLI("run", "--quiet", "--no-summary", f)
		if code != 0 {
			t.Fatalf("%s: direct: %s", f, errs)
		}
		code, viaWire, errs := runCLI("run", "--quiet", "--no-summary", "--front", "wire", "--pcap-out", capFile, f)
		if code != 0 {
			t.Fatalf("%s: through the wire: exit %d, %s", f, code, errs)
		}
		sameResults(t, f, viaWire, direct)
		replaysAs(t, f, capFile, capFile, viaWire)
	}
}

// TestReplayPcapng: a run's capture saved as pcapng by editcap (the
// format Wireshark saves by default) replays to the lines of the run, and
// the replay writes the run's packets again.
func TestReplayPcapng(t *testing.T) {
	tooltest.Need(t, "tshark", "editcap")
	dir := t.TempDir()
	for _, f := range captureExamples(t)[:3] {
		capFile := filepath.Join(dir, "run.pcap")
		code, viaWire, errs := runCLI("run", "--quiet", "--no-summary", "--front", "wire", "--pcap-out", capFile, f)
		if code != 0 {
			t.Fatalf("%s: %s", f, errs)
		}
		ng := filepath.Join(dir, "run.pcapng")
		if out, err := exec.Command("editcap", "-F", "pcapng", capFile, ng).CombinedOutput(); err != nil {
			t.Fatalf("editcap: %v: %s", err, out)
		}
		if head, _ := os.ReadFile(ng); len(head) < 4 || string(head[:4]) != "\x0a\x0d\x0d\x0a" {
			t.Fatalf("editcap did not write pcapng")
		}
		replaysAs(t, f, ng, capFile, viaWire)
	}
}

// TestReplayAlone: a scenario without operations runs the capture's
// messages alone, with the results of the wire operations of the run
// that wrote it (on a scenario of remote accesses only).
func TestReplayAlone(t *testing.T) {
	dir := t.TempDir()
	sc := `{"qps": [{"qpn": 1, "pd": 5}], "mkeys": [{"index": 16, "variant": "0x2a",
	  "mkc": {"access_mode": "MTT", "pd": 5, "start_addr": "0x7f0000001800", "len": 12288, "log_entity_size": 12,
	  "lr": 1, "lw": 1, "rr": 1, "rw": 1, "a": 1, "en_rinval": 1},
	  "mtt": [{"ptag": "0x100000"}, {"ptag": "0x235000"}, {"ptag": "0x9000"}, {"ptag": "0xa000"}]}]`
	full := filepath.Join(dir, "full.json")
	setup := filepath.Join(dir, "setup.json")
	os.WriteFile(setup, []byte(sc+"}"), 0o644)
	os.WriteFile(full, []byte(sc+`, "ops": [
	  {"op": "access", "qpn": 1, "key": "0x102a", "addr": "0x7f0000001f00", "len": 9000, "type": "REMOTE_WRITE"},
	  {"op": "access", "qpn": 1, "key": "0x102a", "addr": "0x7f0000002000", "len": 64, "type": "REMOTE_READ"},
	  {"op": "access", "qpn": 1, "key": "0x102a", "addr": "0x7f0000002008", "len": 8, "type": "REMOTE_ATOMIC"},
	  {"op": "access", "qpn": 1, "key": "0x102b", "addr": "0x7f0000002000", "len": 64, "type": "REMOTE_READ"},
	  {"op": "send_with_invalidate", "qpn": 1, "key": "0x102a"},
	  {"op": "access", "qpn": 1, "key": "0x102a", "addr": "0x7f0000002000", "len": 64, "type": "REMOTE_READ"}]}`), 0o644)
	capFile := filepath.Join(dir, "run.pcap")
	code, want, errs := runCLI("run", "--quiet", "--front", "wire", "--pcap-out", capFile, full)
	if code != 0 {
		t.Fatal(errs)
	}
	// 3 packets for the 9000-byte WRITE, one for each other request; an
	// answer for each message (the READ of 64 bytes is one response);
	// the WRITE's MIDDLE and LAST start no message.
	if !strings.Contains(errs, "wire: messages 6, request_packets 8, answer_packets 6, skipped_packets 2, recv_cqes 1, error_cqes 0") {
		t.Errorf("summary: %s", errs)
	}
	code, got, errs := runCLI("replay", "--quiet", capFile, "--scenario", setup)
	if code != 0 || got != want {
		t.Fatalf("replay: exit %d, %s\n%s\nwant\n%s", code, errs, got, want)
	}
	// The responder's parser skips the WRITE's MIDDLE and LAST and the
	// six answers the capture holds.
	if !strings.Contains(errs, "wire: messages 6, request_packets 8, answer_packets 6, skipped_packets 8, recv_cqes 1, error_cqes 0") {
		t.Errorf("replay summary: %s", errs)
	}
}

// TestCaptureErrors: bad fronts, captures and flag combinations are
// refused with exit 2 before anything is written, naming the flag, the
// file or the packet.
func TestCaptureErrors(t *testing.T) {
	dir := t.TempDir()
	ex := "../../examples/klm-nested.json"
	notPcap := filepath.Join(dir, "not.pcap")
	os.WriteFile(notPcap, []byte("hello, this is not a capture\n"), 0o644)
	good := filepath.Join(dir, "good.pcap")
	if code, _, errs := runCLI("run", "--quiet", "--front", "wire", "--pcap-out", good, ex); code != 0 {
		t.Fatal(errs)
	}
	data, _ := os.ReadFile(good)
	badCRC := filepath.Join(dir, "badcrc.pcap")
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-1] ^= 0xff // the last frame's ICRC
	os.WriteFile(badCRC, flipped, 0o644)
	cut := filepath.Join(dir, "cut.pcap")
	os.WriteFile(cut, data[:len(data)-3], 0o644)
	out := filepath.Join(dir, "out.pcap")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--front", "radio", ex}, `front "radio"`},
		{[]string{"run", "--pcap-out", out, ex}, "--front wire"},
		{[]string{"replay", good}, "--scenario is required"},
		{[]string{"replay", "--scenario", ex}, "one capture file"},
		{[]string{"replay", notPcap, "--scenario", ex}, "not.pcap"},
		{[]string{"replay", cut, "--scenario", ex}, "cut.pcap: packet"},
		{[]string{"replay", badCRC, "--scenario", ex}, "ICRC"},
		{[]string{"replay", good, "--scenario", "../../examples/atomic-alignment.json"}, "request messages"},
		{[]string{"run", "--tlp-out", filepath.Join(dir, "no", "such", "dir", "x.pcap"), "--clock-ps", "500", ex}, "--tlp-out"},
	} {
		code, stdout, errs := runCLI(append(c.args, "--quiet")...)
		if code != exitUsage || stdout != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", c.args, code, stdout, errs, c.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run left %s", out)
	}
}

// tsharkFields runs tshark on file with extra arguments and returns one
// row of the fields a line.
func tsharkFields(t *testing.T, file string, extra []string, fields ...string) [][]string {
	t.Helper()
	args := append([]string{"-r", file}, extra...)
	args = append(args, "-T", "fields", "-E", "separator=,", "-E", "quote=d", "-E", "occurrence=f")
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	cmd := exec.Command("tshark", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark %v: %v: %s", args, err, stderr.String())
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil {
		t.Fatalf("tshark output: %v", err)
	}
	return rows
}

// num reads a number tshark printed (decimal or 0x hex); "" is 0.
func num(t *testing.T, s string) uint64 {
	t.Helper()
	if s == "" {
		return 0
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatalf("tshark field %q: %v", s, err)
	}
	return v
}

// TestPcapOutTshark: tshark decodes every packet of a run's capture as
// RoCE, and the requests carry, in order, the QPN, rkey, VA and DMA
// length of the scenario's operations that a wire carries, with the
// opcode and PSN our own decoder reads.
func TestPcapOutTshark(t *testing.T) {
	tooltest.Need(t, tooltest.Tshark...)
	dir := t.TempDir()
	for _, f := range captureExamples(t) {
		capFile := filepath.Join(dir, filepath.Base(f)+".pcap")
		if code, _, errs := runCLI("run", "--quiet", "--front", "wire", "--pcap-out", capFile, f); code != 0 {
			t.Fatal(errs)
		}
		ours, err := wire.ReadPcap(capFile)
		if err != nil {
			t.Fatal(err)
		}
		var off []string
		for _, p := range []string{"rpcordma", "iser", "nvme-rdma", "smb_direct", "smc", "lnet", "infiniband_sdp", "fcoib"} {
			off = append(off, "--disable-protocol", p) // heuristics that take a payload for theirs
		}
		rows := tsharkFields(t, capFile, off, "frame.number", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
			"infiniband.reth.r_key", "infiniband.reth.va", "infiniband.reth.dmalen", "infiniband.ieth")
		if len(rows) != len(ours) || len(ours) == 0 {
			t.Fatalf("%s: tshark shows %d packets, the capture holds %d", f, len(rows), len(ours))
		}
		sc, _ := scenario.ReadFile(f)
		var want []scenario.Op
		for i := range sc.Ops {
			if wire.Carries(&sc.Ops[i]) {
				want = append(want, sc.Ops[i])
			}
		}
		next := 0
		for k, r := range rows {
			p := &ours[k]
			if num(t, r[1]) != uint64(p.Opcode) || num(t, r[2]) != uint64(p.DestQP) || num(t, r[3]) != uint64(p.PSN) {
				t.Fatalf("%s: packet %d: tshark %v, ours %+v", f, k+1, r, p.Packet)
			}
			var qpn, key, va, n uint64
			switch p.Opcode {
			case wire.OpRDMAWriteFirst, wire.OpRDMAWriteOnly, wire.OpRDMAReadRequest:
				qpn, key, va, n = num(t, r[2]), num(t, r[4]), num(t, r[5]), num(t, r[6])
			case wire.OpFetchAdd, wire.OpCompareSwap:
				// tshark shows the AtomicETH's VA and R_Key as the RETH's.
				qpn, key, va, n = num(t, r[2]), num(t, r[4]), num(t, r[5]), 8
			case wire.OpSendOnlyInvalidate:
				qpn = num(t, r[2])
				key = num(t, "0x"+strings.ReplaceAll(r[7], ":", "")) // a byte field: hex digits
			default:
				continue
			}
			if next >= len(want) {
				t.Fatalf("%s: packet %d starts a message beyond the %d operations", f, k+1, len(want))
			}
			op := &want[next]
			next++
			var wq, wk, wv, wn uint64
			if op.Kind == scenario.OpAccess {
				a := &op.Access
				wq, wk, wv, wn = uint64(a.QPN), uint64(a.Key), a.Addr, uint64(a.Len)
			} else {
				wq, wk = uint64(op.QPN), uint64(op.Key)
			}
			if qpn != wq || key != wk || va != wv || n != wn {
				t.Fatalf("%s: packet %d: tshark reads QPN 0x%x key 0x%x VA 0x%x length %d; the operation has 0x%x 0x%x 0x%x %d", f, k+1, qpn, key, va, n, wq, wk, wv, wn)
			}
		}
		if next != len(want) {
			t.Fatalf("%s: %d messages in the capture, %d operations a wire carries", f, next, len(want))
		}
	}
}

// TestPcapOutScapy: scapy's RoCE layer computes, for every packet of a
// run's capture, the ICRC the packet carries.
func TestPcapOutScapy(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import scapy.contrib.roce").Run(); err != nil {
		if tooltest.Required() {
			t.Fatalf("%s cannot import scapy.contrib.roce (scripts/install-tools.sh installs python3-scapy): %v", py, err)
		}
		t.Skipf("%s cannot import scapy.contrib.roce: skipped (scripts/install-tools.sh installs python3-scapy)", py)
	}
	dir := t.TempDir()
	var files []string
	for _, f := range captureExamples(t) {
		capFile := filepath.Join(dir, filepath.Base(f)+".pcap")
		if code, _, errs := runCLI("run", "--quiet", "--front", "wire", "--pcap-out", capFile, f); code != 0 {
			t.Fatal(errs)
		}
		files = append(files, capFile)
	}
	packets := 0
	for _, capFile := range files {
		out, err := exec.Command(py, "../../tb/wire/testdata/scapy_icrc.py", capFile).CombinedOutput()
		if err != nil {
			t.Fatalf("scapy_icrc.py %s: %v\n%s", capFile, err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(line, ",")
			if len(f) != 3 || f[1] != f[2] {
				t.Fatalf("%s: scapy (number, computed ICRC, carried ICRC): %q", capFile, line)
			}
			packets++
		}
	}
	if packets < 100 {
		t.Fatalf("scapy checked only %d packets", packets)
	}
}

// TestTLPOutTshark: every TLP at the device's port is in a run's
// --tlp-out capture, as many as the statistics count, and the Lua
// dissector shows, for each, the fields of the TLP read back from it.
func TestTLPOutTshark(t *testing.T) {
	dir := t.TempDir()
	capFile := filepath.Join(dir, "run.tlp.pcap")
	stats := filepath.Join(dir, "stats.json")
	args := []string{"run", "--quiet", "--tlp-out", capFile, "--stats", stats, "--workload.accesses", "2000", "--data.enabled"}
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatal(errs)
	}
	f, err := os.Open(capFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := tlpcap.NewReader(f, 4000)
	if err != nil {
		t.Fatal(err)
	}
	var recs []tlpcap.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	type link struct {
		TLPs uint64 `json:"tlps"`
	}
	var st struct {
		PCIe struct{ Up, Down link } `json:"pcie"`
	}
	readJSON(t, stats, &st)
	counted := st.PCIe.Up.TLPs + st.PCIe.Down.TLPs
	if uint64(len(recs)) != counted || len(recs) < 1000 {
		t.Fatalf("the capture holds %d TLPs, the statistics count %d (up %d, down %d)", len(recs), counted, st.PCIe.Up.TLPs, st.PCIe.Down.TLPs)
	}
	tooltest.Need(t, tooltest.Tshark...)
	rows := tsharkFields(t, capFile, []string{"-X", "lua_script:../../scripts/tlp.lua"},
		"pcietlp.dir", "pcietlp.type", "pcietlp.requester", "pcietlp.tag", "pcietlp.addr", "pcietlp.length",
		"pcietlp.first_be", "pcietlp.last_be", "pcietlp.byte_count", "pcietlp.tc")
	if len(rows) != len(recs) {
		t.Fatalf("tshark shows %d records, the capture holds %d", len(rows), len(recs))
	}
	for i, row := range rows {
		tl := &recs[i].TLP
		want := []string{fmt.Sprint(uint8(recs[i].Dir)), tl.Type.String()}
		if row[0] != want[0] && !strings.EqualFold(row[0], recs[i].Dir.String()) || row[1] != want[1] {
			t.Fatalf("record %d: tshark %v, TLP %+v", i+1, row, tl)
		}
		got := []uint64{num(t, row[2]), num(t, row[3]), num(t, row[5]), num(t, row[9])}
		wantN := []uint64{uint64(tl.RequesterID), uint64(tl.Tag), uint64(tl.LengthDW), uint64(tl.TC)}
		if tl.Type == pcie.Cpl {
			wantN[2] = 0
		}
		for k := range got {
			if got[k] != wantN[k] {
				t.Fatalf("record %d: tshark %v, TLP %+v", i+1, row, tl)
			}
		}
		if tl.Type.IsRequest() && (num(t, row[4]) != tl.Addr || num(t, row[6]) != uint64(tl.FirstBE) || num(t, row[7]) != uint64(tl.LastBE)) {
			t.Fatalf("record %d: tshark %v, TLP %+v", i+1, row, tl)
		}
		if tl.Type.IsCompletion() && num(t, row[8]) != uint64(tl.ByteCount) {
			t.Fatalf("record %d: tshark %v, TLP %+v", i+1, row, tl)
		}
	}
}

// TestFrontHost: a scenario through the host front prints the results of
// a direct run, cycles aside, and the counts worked out by hand:
// umr-mode-change has two UMRs, each a WQE of 3 basic blocks (control,
// UMR control and MKC: 8 octowords, then an inline MTT list of 64 bytes),
// posted in the cycle before the other's doorbell, so the front serves
// both doorbells in one read of 6 basic blocks (384 bytes); both succeed:
// 2 CQEs of 64 bytes written, none an error, both fenced (strong
// ordering, as every UMR the host posts).
func TestFrontHost(t *testing.T) {
	f := "../../examples/umr-mode-change.json"
	code, direct, errs := runCLI("run", "--quiet", "--no-summary", f)
	if code != 0 {
		t.Fatal(errs)
	}
	stats := filepath.Join(t.TempDir(), "stats.json")
	code, viaHost, errs := runCLI("run", "--quiet", "--front", "host", "--stats", stats, f)
	if code != 0 || !strings.Contains(errs, "host: wqes 2, nops 0, doorbells 2, cqes 2, error_cqes 0") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sameResults(t, f, viaHost, direct)
	var doc struct {
		SQ   map[string]float64 `json:"sq"`
		PCIe struct {
			HostWrites float64 `json:"host_writes"`
			Writes     float64 `json:"writes"`
			WriteBytes float64 `json:"write_bytes"`
		} `json:"pcie"`
	}
	readJSON(t, stats, &doc)
	want := map[string]float64{"doorbells": 2, "bad_doorbells": 0, "wqes": 2, "nops": 0, "fenced": 2, "bad_wqes": 0, "read_bytes": 384, "cqes": 2, "error_cqes": 0}
	for k, v := range want {
		if doc.SQ[k] != v {
			t.Errorf("sq.%s = %v, want %v", k, doc.SQ[k], v)
		}
	}
	if doc.PCIe.HostWrites != 2 || doc.PCIe.Writes != 2 || doc.PCIe.WriteBytes != 128 {
		t.Errorf("pcie: %+v, want 2 doorbells sent and 2 CQEs of 64 bytes stored", doc.PCIe)
	}
}

// TestPacketCaptureOrder: frames that come a few cycles out of order are
// written in the order of a stable sort by cycle, the capture holding a
// window of them rather than the run; a frame older than the window is an
// error, and nothing is left written.
func TestPacketCaptureOrder(t *testing.T) {
	const seed = 21
	r := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	path := filepath.Join(dir, "run.pcap")
	c, err := startPacketCapture(path, 4000)
	if err != nil {
		t.Fatal(err)
	}
	var frames []tb.Frame
	held := 0
	for i := range 60000 {
		cycle := uint64(i) + uint64(r.IntN(3)) // up to two cycles back
		f := tb.Frame{Cycle: cycle, Data: []byte(fmt.Sprintf("frame %d", i))}
		frames = append(frames, f)
		c.add(f)
		held = max(held, len(c.pending))
	}
	if _, err := c.close(); err != nil {
		t.Fatal(err)
	}
	if held > 4096+pcapWindow+8 {
		t.Errorf("seed %d: the capture held %d of %d frames at once", seed, held, len(frames))
	}
	slices.SortStableFunc(frames, func(a, b tb.Frame) int { return cmp.Compare(a.Cycle, b.Cycle) })
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range frames {
		data, ci, err := pr.ReadPacketData()
		if err != nil || string(data) != string(want.Data) || ci.Timestamp.UnixNano() != int64(want.Cycle*4) {
			t.Fatalf("seed %d: record %d: %q at %v, %v; want %q at cycle %d", seed, i, data, ci.Timestamp, err, want.Data, want.Cycle)
		}
	}
	if _, _, err := pr.ReadPacketData(); err != io.EOF {
		t.Errorf("seed %d: more records than frames (%v)", seed, err)
	}
	// A frame far older than those written.
	bad := filepath.Join(dir, "bad.pcap")
	if c, err = startPacketCapture(bad, 4000); err != nil {
		t.Fatal(err)
	}
	for i := range 3 * 4096 {
		c.add(tb.Frame{Cycle: uint64(10 * i), Data: []byte{1}})
	}
	c.add(tb.Frame{Cycle: 5, Data: []byte{2}})
	if _, err := c.close(); err == nil || !strings.Contains(err.Error(), "came after") {
		t.Errorf("a frame out of order by %d cycles: %v", 30*4096, err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused capture was left: %v", err)
	}
}
