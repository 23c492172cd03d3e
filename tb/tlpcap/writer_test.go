package tlpcap

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"mkeysim/rtl/pcie"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fileHeaderHex is the global header the writer emits, field by field.
const fileHeaderHex = "4d3cb2a1" + // magic 0xa1b23c4d, little-endian: nanosecond timestamps
	"0200 0400" + // version 2.4
	"00000000 00000000" + // thiszone, sigfigs
	"14100000" + // snaplen 4116 = 4 + 16 + 4096
	"93000000" // link type 147, USER0

// TestWriteExact checks a written file byte by byte against a hand-made
// one: the global header, then each record's header (seconds,
// nanoseconds, captured and original length), pseudo-header and TLP.
func TestWriteExact(t *testing.T) {
	records := []struct {
		name  string
		cycle uint64
		dir   Direction
		tlp   pcie.TLP
		hex   string
	}{
		{"MRd 3DW at cycle 3 (12 ns)", 3, Upstream,
			pcie.TLP{Type: pcie.MRd, RequesterID: 0x0100, Tag: 0x2a, LengthDW: 16, Addr: 0x1234_5678, FirstBE: 0xf, LastBE: 0xf},
			"00000000 0c000000 10000000 10000000" + "01 00 0000" + "00000010 01002aff 12345678"},
		{"CplD after 1 s + 4 ns", 250_000_001, Downstream,
			pcie.TLP{Type: pcie.CplD, CompleterID: 0x0008, Status: pcie.SC, ByteCount: 200, RequesterID: 0x0100, Tag: 0x105, LowerAddr: 0x03,
				LengthDW: 2, Data: []byte{0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18}},
			"01000000 04000000 18000000 18000000" + "01 01 0000" + "4a080002 000800c8 01000503 1112131415161718"},
		{"MRd 4DW, TC 7, 10-bit tag", 250_000_002, Upstream,
			pcie.TLP{Type: pcie.MRd, TC: 7, RequesterID: 0xabcd, Tag: 0x2a5, LengthDW: 1, Addr: 0x12_3456_7890, FirstBE: 0x6},
			"01000000 08000000 14000000 14000000" + "01 00 0000" + "20f00001 abcda506 00000012 34567890"},
		{"Cpl UR, same cycle", 250_000_002, Downstream,
			pcie.TLP{Type: pcie.Cpl, Status: pcie.UR, ByteCount: 4096, RequesterID: 0x0100, Tag: 7, LowerAddr: 0x7f},
			"01000000 08000000 10000000 10000000" + "01 01 0000" + "0a000000 00002000 0100077f"},
	}
	var got bytes.Buffer
	w, err := NewWriter(&got, 4000)
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, fileHeaderHex)
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("file header\n got % x\nwant % x", got.Bytes(), want)
	}
	for _, r := range records {
		if err := w.Write(r.cycle, r.dir, &r.tlp); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		rec := unhex(t, r.hex)
		if g := got.Bytes()[len(want):]; !bytes.Equal(g, rec) {
			t.Errorf("%s\n got % x\nwant % x", r.name, g, rec)
		}
		want = append(want, rec...)
	}
}

// failAfter is a writer that fails once it has taken n bytes.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		n := f.n
		f.n = 0
		return n, errDiskFull
	}
	f.n -= len(b)
	return len(b), nil
}

func TestWriteErrors(t *testing.T) {
	good := pcie.NewRead(0x0100, 1, 0x1000, 64)
	for _, c := range []struct {
		name  string
		cycle uint64
		dir   Direction
		tlp   pcie.TLP
		field string // of the *pcie.FieldError, if one
		err   string
	}{
		{"direction", 0, 2, good, "", "record 3: direction 2 is neither"},
		{"tag", 0, Upstream, pcie.TLP{Type: pcie.MRd, Tag: 1024, LengthDW: 1, FirstBE: 0xf}, "Tag", "record 3: pcie: TLP Tag: 1024"},
		{"type", 0, Upstream, pcie.TLP{Type: 7}, "Type", "record 3: pcie: TLP Type: unknown type 7"},
		{"data", 0, Upstream, pcie.TLP{Type: pcie.MWr, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf, Data: make([]byte, 4)}, "Data", "record 3: pcie: TLP Data: 4 bytes, Length says 8"},
		{"unaligned", 0, Upstream, pcie.TLP{Type: pcie.MRd, LengthDW: 1, Addr: 0x1002, FirstBE: 1}, "Addr", "record 3: pcie: TLP Addr"},
		{"past 2^32 s", (1 << 32) * 1e9 / 4, Upstream, good, "", "record 3: cycle 1073741824000000000 at 4000 ps is past pcap's last timestamp"},
		{"overflow", math.MaxUint64, Upstream, good, "", "is past pcap's last timestamp"},
		{"prefixed 1024 DW", 0, Upstream, pcie.TLP{Type: pcie.MWr, Prefix: pcie.NewPASIDPrefix(1, false, false), Addr: pcie.Addr4GB, LengthDW: 1024, FirstBE: 0xf, LastBE: 0xf,
			Data: make([]byte, 4096)}, "", "record 3: 4120 bytes, longer than the largest record (4116)"},
	} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, 4000)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := w.Write(5, Upstream, &good); err != nil {
				t.Fatal(err)
			}
		}
		n := buf.Len()
		err = w.Write(c.cycle, c.dir, &c.tlp)
		var re *RecordError
		if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &re) || re.Record != 3 {
			t.Errorf("%s: %v, want a *RecordError for record 3 containing %q", c.name, err, c.err)
		}
		var fe *pcie.FieldError
		if c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field) {
			t.Errorf("%s: %v, want a *pcie.FieldError about %s", c.name, err, c.field)
		}
		if buf.Len() != n {
			t.Errorf("%s: the failed write wrote %d bytes", c.name, buf.Len()-n)
		}
		// The writer goes on: the next record is record 3.
		if err := w.Write(6, Upstream, &good); err != nil {
			t.Errorf("%s: next write: %v", c.name, err)
		}
	}
}

func TestWriteIOError(t *testing.T) {
	if _, err := NewWriter(&failAfter{n: 10}, 4000); !errors.Is(err, errDiskFull) {
		t.Errorf("file header: %v, want %v", err, errDiskFull)
	}
	good := pcie.NewRead(0x0100, 1, 0x1000, 64)
	w, err := NewWriter(&failAfter{n: 24 + 32 + 20}, 4000) // header, one record, part of the next
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(1, Upstream, &good); err != nil {
		t.Fatal(err)
	}
	err = w.Write(2, Upstream, &good)
	var re *RecordError
	if !errors.Is(err, errDiskFull) || !errors.As(err, &re) || re.Record != 2 {
		t.Fatalf("%v, want record 2: %v", err, errDiskFull)
	}
	// The file is broken: every later write fails the same way.
	if err2 := w.Write(3, Upstream, &good); err2 != err {
		t.Errorf("after a failed write: %v, want %v", err2, err)
	}
}

func TestClockPeriod(t *testing.T) {
	for _, c := range []struct {
		ps uint64
		ok bool
	}{{0, false}, {999, false}, {1000, true}, {3333, true}, {4000, true}, {1_000_000, true}, {math.MaxUint64, true}} {
		_, werr := NewWriter(new(bytes.Buffer), c.ps)
		var file bytes.Buffer
		if _, err := NewWriter(&file, 1000); err != nil {
			t.Fatal(err)
		}
		_, rerr := NewReader(&file, c.ps)
		if (werr == nil) != c.ok || (rerr == nil) != c.ok {
			t.Errorf("%d ps: writer %v, reader %v; want ok=%v", c.ps, werr, rerr, c.ok)
		}
	}
}

// TestTimestamp checks the time of a cycle, floor(cycle × period / 1000)
// ns, and that the reader maps it back to the cycle, also when the
// period is not a whole number of nanoseconds.
func TestTimestamp(t *testing.T) {
	const maxNs = (1<<32)*uint64(time.Second) - 1 // the last time pcap holds
	for _, c := range []struct {
		cycle, ps uint64
		ns        uint64
		ok        bool
	}{
		{0, 4000, 0, true},
		{1, 4000, 4, true},
		{250_000_001, 4000, 1_000_000_004, true},
		{1, 3333, 3, true},
		{3, 3333, 9, true},
		{1000, 3333, 3333, true},
		{1, 1000, 1, true},
		{maxNs, 1000, maxNs, true},
		{maxNs + 1, 1000, 0, false},
		{maxNs / 4, 4000, maxNs / 4 * 4, true},
		{maxNs/4 + 1, 4000, 0, false},
		{1, math.MaxUint64, math.MaxUint64 / 1000, true},
		{math.MaxUint64, 1000, 0, false},
	} {
		ts, err := timestamp(c.cycle, c.ps)
		if (err == nil) != c.ok {
			t.Errorf("cycle %d at %d ps: %v, want ok=%v", c.cycle, c.ps, err, c.ok)
			continue
		}
		if !c.ok {
			continue
		}
		if ns := uint64(ts.UnixNano()); ns != c.ns {
			t.Errorf("cycle %d at %d ps: %d ns, want %d", c.cycle, c.ps, ns, c.ns)
		}
		if back, ok := cycleAt(c.ns, c.ps); !ok || back != c.cycle {
			t.Errorf("%d ns at %d ps: cycle %d %v, want %d", c.ns, c.ps, back, ok, c.cycle)
		}
	}
	// Times between cycles belong to none.
	for _, c := range []struct{ ns, ps uint64 }{{1, 4000}, {4001, 4000}, {4, 3333}, {maxNs, 4000}} {
		if cyc, ok := cycleAt(c.ns, c.ps); ok {
			t.Errorf("%d ns at %d ps: cycle %d, want none", c.ns, c.ps, cyc)
		}
	}
}

func TestDirectionString(t *testing.T) {
	for d, want := range map[Direction]string{Upstream: "upstream", Downstream: "downstream", 2: "Direction(2)"} {
		if got := d.String(); got != want {
			t.Errorf("%d: %q, want %q", uint8(d), got, want)
		}
	}
}
