package wire

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// arpFrame is a broadcast ARP request, a frame ReadPcap skips.
const arpFrame = `ffffffffffff 020000000001 0806 0001 0800 06 04 0001
020000000001 0a000001 000000000000 0a000002`

func TestPcapRoundTrip(t *testing.T) {
	const seed = 99
	r := rand.New(rand.NewPCG(seed, 2))
	start := time.Date(2024, 6, 11, 12, 0, 0, 0, time.UTC)
	var frames []Frame
	var want []Captured
	for i := 0; i < 60; i++ {
		ops := Opcodes()
		p := randomPacket(r, ops[r.IntN(len(ops))])
		f, err := Build(&p)
		if err != nil {
			t.Fatalf("seed %d: Build(%+v): %v", seed, p, err)
		}
		at := start.Add(time.Duration(i) * 1234567 * time.Nanosecond)
		frames = append(frames, Frame{Time: at, Data: f})
		s, err := Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, Captured{Number: len(frames), Frame: Frame{Time: at, Data: f}, Summary: *s})
		if i%10 == 3 { // other traffic, skipped on reading
			frames = append(frames, Frame{Time: at, Data: unhex(t, arpFrame)})
		}
		if i%10 == 7 { // UDP to another port
			other := append([]byte(nil), f...)
			binary.BigEndian.PutUint16(other[36:], 4792)
			frames = append(frames, Frame{Time: at, Data: other})
		}
	}
	path := filepath.Join(t.TempDir(), "rt.pcap")
	if err := WritePcap(path, frames); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPcap(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("seed %d: record %d:\n%+v\nwant\n%+v", seed, i, got[i], want[i])
			}
		}
		t.Fatalf("seed %d: read %d records, want %d", seed, len(got), len(want))
	}
	// One at a time, the same records; then io.EOF, and again.
	pr, err := OpenPcap(path)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	for i := range want {
		c, err := pr.Next()
		if err != nil || !reflect.DeepEqual(*c, want[i]) {
			t.Fatalf("seed %d: Next %d = %+v, %v", seed, i, c, err)
		}
	}
	for range 2 {
		if c, err := pr.Next(); err != io.EOF {
			t.Fatalf("seed %d: Next after the last = %+v, %v; want io.EOF", seed, c, err)
		}
	}
	// Cut inside the last record: the records before it, then an error
	// naming its number, every time.
	data, _ := os.ReadFile(path)
	cut, err := NewPcapReader(bytes.NewReader(data[:len(data)-5]), "cut.pcap")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err = cut.Next(); err != nil {
			break
		}
		n++
	}
	var pe *PcapError
	if !errors.As(err, &pe) || pe.Packet != len(frames) || n != len(want)-1 {
		t.Fatalf("seed %d: a cut capture gave %d records, then %v; want %d, then packet %d", seed, n, err, len(want)-1, len(frames))
	}
	if _, again := cut.Next(); again != err {
		t.Errorf("seed %d: Next after an error = %v, want %v again", seed, again, err)
	}
}

// pcapFile assembles a capture: a file header in byte order bo with magic,
// link type and snap length, then records given as (incl, orig, data).
func pcapFile(bo binary.ByteOrder, magic uint32, link uint32, snap uint32, recs ...[]byte) []byte {
	h := make([]byte, 24)
	bo.PutUint32(h[0:], magic)
	bo.PutUint16(h[4:], 2)
	bo.PutUint16(h[6:], 4)
	bo.PutUint32(h[16:], snap)
	bo.PutUint32(h[20:], link)
	for _, r := range recs {
		h = append(h, r...)
	}
	return h
}

// record is one pcap record: times, lengths and data.
func record(bo binary.ByteOrder, sec, frac, incl, orig uint32, data []byte) []byte {
	r := make([]byte, 16)
	bo.PutUint32(r[0:], sec)
	bo.PutUint32(r[4:], frac)
	bo.PutUint32(r[8:], incl)
	bo.PutUint32(r[12:], orig)
	return append(r, data...)
}

func TestReadPcapFormats(t *testing.T) {
	p := helloPacket()
	f, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	n := uint32(len(f))
	for _, tt := range []struct {
		name  string
		bo    binary.ByteOrder
		magic uint32
		frac  uint32
		want  time.Time
	}{
		{"little-endian microseconds", binary.LittleEndian, 0xA1B2C3D4, 123456, time.Unix(1700000000, 123456000)},
		{"big-endian microseconds", binary.BigEndian, 0xA1B2C3D4, 999999, time.Unix(1700000000, 999999000)},
		{"little-endian nanoseconds", binary.LittleEndian, 0xA1B23C4D, 123456789, time.Unix(1700000000, 123456789)},
		{"big-endian nanoseconds", binary.BigEndian, 0xA1B23C4D, 1, time.Unix(1700000000, 1)},
	} {
		path := filepath.Join(t.TempDir(), "f.pcap")
		data := pcapFile(tt.bo, tt.magic, 1, 65535, record(tt.bo, 1700000000, tt.frac, n, n, f))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPcap(path)
		if err != nil || len(got) != 1 || !got[0].Time.Equal(tt.want) || got[0].Number != 1 || got[0].RKey != p.RKey || !got[0].ICRCOK {
			t.Errorf("%s: ReadPcap = %+v, %v", tt.name, got, err)
		}
	}
}

func TestReadPcapErrors(t *testing.T) {
	le := binary.LittleEndian
	f := helloFrame(t)
	n := uint32(len(f))
	good := record(le, 1, 0, n, n, f)
	bad := append([]byte(nil), f...)
	bad[42] = 0x15 // an opcode this package does not decode
	badRec := record(le, 1, 0, n, n, reICRC(t, bad))
	head := pcapFile(le, 0xA1B2C3D4, 1, 65535)
	for _, tt := range []struct {
		name   string
		data   []byte
		packet int
		want   string
	}{
		{"empty", nil, 0, "file header cut off after 0 of 24 bytes"},
		{"header cut", head[:10], 0, "file header cut off after 10 of 24 bytes"},
		{"not pcap", append([]byte("GIF89a"), make([]byte, 18)...), 0, "file header: Unknown magic 38464947"},
		{"pcapng", pcapFile(binary.BigEndian, 0x0A0D0D0A, 1, 0), 0, "pcapng block 1: section header's byte-order magic"},
		{"version 3", func() []byte { h := pcapFile(le, 0xA1B2C3D4, 1, 65535); h[4] = 3; return h }(), 0, "file header: Unknown major version 3"},
		{"802.11", pcapFile(le, 0xA1B2C3D4, 105, 65535, good), 0, "link type 105 (802.11), want 1 (Ethernet)"},
		{"raw IP", pcapFile(le, 0xA1B2C3D4, 101, 65535, good), 0, "link type 101"},
		{"record header cut", append(pcapFile(le, 0xA1B2C3D4, 1, 65535, good), good[:9]...), 2, "record header cut off by the end of the file (truncated capture)"},
		{"record data cut", pcapFile(le, 0xA1B2C3D4, 1, 65535, good, good[:40]), 2, "record of 82 bytes cut off by the end of the file (truncated capture)"},
		{"record data missing", pcapFile(le, 0xA1B2C3D4, 1, 65535, good, good[:16]), 2, "record of 82 bytes cut off by the end of the file"},
		{"record longer than frame", pcapFile(le, 0xA1B2C3D4, 1, 65535, record(le, 1, 0, n, n-1, f)), 1, "record of 82 bytes is longer than its frame of 81"},
		{"snap length", pcapFile(le, 0xA1B2C3D4, 1, 64, record(le, 1, 0, 64, n, f[:64])), 1, "captured 64 of the frame's 82 bytes (snap length 64)"},
		{"over snap length", pcapFile(le, 0xA1B2C3D4, 1, 64, good), 1, "record of 82 bytes is over the snap length 64"},
		{"huge record", pcapFile(le, 0xA1B2C3D4, 1, 0xFFFFFFFF, record(le, 1, 0, 1<<30, 1<<30, nil)), 1, "record of 1073741824 bytes is over the snap length 262144"},
		{"undecodable RoCEv2", pcapFile(le, 0xA1B2C3D4, 1, 65535, good, good, badRec), 3, "BTH opcode 0x15"},
	} {
		path := filepath.Join(t.TempDir(), "bad.pcap")
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPcap(path)
		wantPcapError(t, tt.name, got, err, path, tt.packet, tt.want)
	}
	if _, err := ReadPcap(filepath.Join(t.TempDir(), "missing.pcap")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadPcap(missing) = %v, want ErrNotExist", err)
	}
}

// wantPcapError fails t unless reading file gave no records and a
// PcapError naming the file and the packet, containing want.
func wantPcapError(t *testing.T, name string, got []Captured, err error, file string, packet int, want string) {
	t.Helper()
	var pe *PcapError
	if !errors.As(err, &pe) || pe.File != file || pe.Packet != packet || !strings.Contains(err.Error(), want) ||
		!strings.HasPrefix(err.Error(), "wire: "+file+": ") || got != nil {
		t.Errorf("%s: %d records, %v; want a PcapError for packet %d containing %q", name, len(got), err, packet, want)
	}
}

func TestWritePcapErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		frames []Frame
		want   string
	}{
		{"before 1970", []Frame{{Time: time.Unix(0, 0)}, {Time: time.Unix(-1, 0)}}, "packet 2: time 1969-12-31"},
		{"after 2106", []Frame{{Time: time.Unix(1<<32, 0)}}, "packet 1: time 2106-02-07"},
		{"too long", []Frame{{Time: time.Unix(1, 0), Data: make([]byte, SnapLen+1)}}, "packet 1: frame of 262145 bytes is over the snap length 262144"},
	} {
		path := filepath.Join(dir, tt.name+".pcap")
		err := WritePcap(path, tt.frames)
		var pe *PcapError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || pe.File != path {
			t.Errorf("%s: WritePcap = %v, want a PcapError containing %q", tt.name, err, tt.want)
		}
	}
	if err := WritePcap(filepath.Join(dir, "no", "such", "dir.pcap"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WritePcap(missing dir) = %v, want ErrNotExist", err)
	}
	// An empty capture is a header alone, and reads back empty.
	path := filepath.Join(dir, "empty.pcap")
	if err := WritePcap(path, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadPcap(path); err != nil || len(got) != 0 {
		t.Errorf("empty capture: %v, %v", got, err)
	}
	if data, _ := os.ReadFile(path); len(data) != 24 {
		t.Errorf("empty capture is %d bytes, want 24", len(data))
	}
}

// failWriter takes n bytes, then fails every write.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWritePcapTo(t *testing.T) {
	p := helloPacket()
	f, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	frames := []Frame{{Data: f}, {Time: time.Unix(5, 999999999), Data: f}}
	var buf bytes.Buffer
	if err := WritePcapTo(&buf, "mem.pcap", frames); err != nil {
		t.Fatal(err)
	}
	if n := 24 + 2*(16+len(f)); buf.Len() != n {
		t.Errorf("wrote %d bytes, want %d", buf.Len(), n)
	}
	got, err := ReadPcapFrom(&buf, "mem.pcap")
	if err != nil || len(got) != 2 {
		t.Fatalf("ReadPcapFrom = %v, %v", got, err)
	}
	// A zero time is the epoch; times keep their nanoseconds.
	if !got[0].Time.Equal(time.Unix(0, 0)) || !got[1].Time.Equal(time.Unix(5, 999999999)) {
		t.Errorf("times %v and %v, want the epoch and 5.999999999 s", got[0].Time, got[1].Time)
	}
	// A failing writer: the file header, then the second record.
	for _, tt := range []struct {
		n      int
		packet int
	}{{10, 0}, {24 + 16 + len(f) + 3, 2}} {
		err := WritePcapTo(&failWriter{n: tt.n}, "full.pcap", frames)
		var pe *PcapError
		if !errors.As(err, &pe) || pe.Packet != tt.packet || !strings.Contains(err.Error(), "disk full") || pe.File != "full.pcap" {
			t.Errorf("WritePcapTo(writer failing after %d bytes) = %v, want packet %d", tt.n, err, tt.packet)
		}
	}
}

// TestReadPcapGzip reads a gzipped capture, which pcapgo opens itself.
func TestReadPcapGzip(t *testing.T) {
	p := helloPacket()
	f, err := Build(&p)
	if err != nil {
		t.Fatal(err)
	}
	var plain, zipped bytes.Buffer
	if err := WritePcapTo(&plain, "x", []Frame{{Time: time.Unix(1, 0), Data: f}}); err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain.Bytes())
	zw.Close()
	got, err := ReadPcapFrom(&zipped, "x.pcap.gz")
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0].Packet, p) {
		t.Errorf("ReadPcapFrom(gzip) = %+v, %v", got, err)
	}
}
