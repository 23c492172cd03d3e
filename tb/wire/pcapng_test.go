package wire

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// ngBlock assembles a pcapng block of type typ in byte order bo: the
// body padded to 4 bytes between the two copies of the total length.
func ngBlock(bo binary.AppendByteOrder, typ uint32, body []byte) []byte {
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	total := uint32(12 + len(body))
	b := bo.AppendUint32(nil, typ)
	b = bo.AppendUint32(b, total)
	b = append(b, body...)
	return bo.AppendUint32(b, total)
}

// ngSHB is a section header (version 1.0, section length unknown).
func ngSHB(bo binary.AppendByteOrder) []byte {
	body := bo.AppendUint32(nil, ngByteOrderMagic)
	body = bo.AppendUint16(body, 1)
	body = bo.AppendUint16(body, 0)
	body = bo.AppendUint64(body, ^uint64(0))
	return ngBlock(bo, ngSectionHeader, body)
}

// ngIDB is an interface description of link type link and snap length
// snap, with the options given as (code, value) pairs.
func ngIDB(bo binary.AppendByteOrder, link uint16, snap uint32, opts ...any) []byte {
	body := bo.AppendUint16(nil, link)
	body = bo.AppendUint16(body, 0)
	body = bo.AppendUint32(body, snap)
	for i := 0; i+1 < len(opts); i += 2 {
		v := opts[i+1].([]byte)
		body = bo.AppendUint16(body, uint16(opts[i].(int)))
		body = bo.AppendUint16(body, uint16(len(v)))
		body = append(body, v...)
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
	}
	if len(opts) > 0 {
		body = append(body, 0, 0, 0, 0) // end of options
	}
	return ngBlock(bo, 1, body)
}

// ngEPB is an enhanced packet block on interface iface at microsecond
// time us, declaring capLen and origLen bytes, carrying data.
func ngEPB(bo binary.AppendByteOrder, iface, us, capLen, origLen uint32, data []byte) []byte {
	body := bo.AppendUint32(nil, iface)
	body = bo.AppendUint32(body, 0)
	body = bo.AppendUint32(body, us)
	body = bo.AppendUint32(body, capLen)
	body = bo.AppendUint32(body, origLen)
	return ngBlock(bo, ngEnhancedPacket, append(body, data...))
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestReadPcapng: the frames of a capture written as pcapng (by pcapgo's
// NgWriter, as Wireshark saves it), gzipped or not, read back as the
// same capture written as classic pcap does, one at a time too; packets
// of a second interface of another link type are skipped.
func TestReadPcapng(t *testing.T) {
	const seed = 7
	r := rand.New(rand.NewPCG(seed, 3))
	start := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	var frames []Frame
	for i := 0; i < 40; i++ {
		ops := Opcodes()
		p := randomPacket(r, ops[r.IntN(len(ops))])
		f, err := Build(&p)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		frames = append(frames, Frame{Time: start.Add(time.Duration(i) * 1500 * time.Nanosecond), Data: f})
		if i%7 == 2 {
			frames = append(frames, Frame{Time: start, Data: unhex(t, arpFrame)})
		}
	}
	dir := t.TempDir()
	classic := filepath.Join(dir, "c.pcap")
	if err := WritePcap(classic, frames); err != nil {
		t.Fatal(err)
	}
	want, err := ReadPcap(classic)
	if err != nil {
		t.Fatal(err)
	}
	var ng bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&ng, pcapgo.NgInterface{Name: "eth0", LinkType: layers.LinkTypeEthernet,
		SnapLength: SnapLen, TimestampResolution: 9}, pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: f.Time, CaptureLength: len(f.Data), Length: len(f.Data)}
		if err := w.WritePacket(ci, f.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(ng.Bytes())
	zw.Close()
	for name, data := range map[string][]byte{"pcapng": ng.Bytes(), "gzipped pcapng": zipped.Bytes()} {
		got, err := ReadPcapFrom(bytes.NewReader(data), "x.pcapng")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: %s: %d records, %v; want the classic file's %d", seed, name, len(got), err, len(want))
		}
	}
	// A second interface of another link type: its packet is skipped.
	le := binary.LittleEndian
	f0 := frames[0].Data
	mixed := cat(ngSHB(le), ngIDB(le, 1, 0), ngIDB(le, 147, 0), ngEPB(le, 1, 5, 3, 3, []byte{1, 2, 3}),
		ngEPB(le, 0, 7, uint32(len(f0)), uint32(len(f0)), f0))
	got, err := ReadPcapFrom(bytes.NewReader(mixed), "mixed.pcapng")
	if err != nil || len(got) != 1 || !bytes.Equal(got[0].Data, f0) || !got[0].Time.Equal(time.Unix(0, 7000)) {
		t.Fatalf("mixed link types: %+v, %v", got, err)
	}
	// Big-endian, as a capture made on such a host is.
	be := binary.BigEndian
	got, err = ReadPcapFrom(bytes.NewReader(cat(ngSHB(be), ngIDB(be, 1, 0), ngEPB(be, 0, 9, uint32(len(f0)), uint32(len(f0)), f0))), "be.pcapng")
	if err != nil || len(got) != 1 || !bytes.Equal(got[0].Data, f0) {
		t.Fatalf("big-endian: %+v, %v", got, err)
	}
}

// TestReadPcapngErrors: a malformed pcapng file is a PcapError naming the
// file, the packet and the block, never a panic or a huge allocation.
func TestReadPcapngErrors(t *testing.T) {
	le := binary.LittleEndian
	f := helloFrame(t)
	n := uint32(len(f))
	shb, idb := ngSHB(le), ngIDB(le, 1, 0)
	good := ngEPB(le, 0, 1, n, n, f)
	var bo binary.ByteOrder = le
	badEnd := append([]byte(nil), good...)
	bo.PutUint32(badEnd[len(badEnd)-4:], 8)
	notFour := append([]byte(nil), good...)
	bo.PutUint32(notFour[4:], uint32(len(good)-2))
	huge := append([]byte(nil), good...)
	bo.PutUint32(huge[4:], 1<<31)
	badBOM := append([]byte(nil), shb...)
	bo.PutUint32(badBOM[8:], 0x11223344)
	for _, tt := range []struct {
		name   string
		data   []byte
		packet int
		want   string
	}{
		{"bad byte-order magic", badBOM, 0, "byte-order magic is 0x44332211"},
		{"section header cut", shb[:10], 0, "section header cut off"},
		{"no interface", shb, 0, "pcapng"},
		{"802.11 interface", cat(shb, ngIDB(le, 105, 0), good), 0, "first interface of link type 105"},
		{"version 2", func() []byte { b := cat(ngSHB(le), idb); b[12] = 2; return b }(), 0, "pcapng"},
		{"frame past its block", cat(shb, idb, good, ngEPB(le, 0, 2, 1<<30, 1<<30, f)), 2, "a frame of 1073741824 bytes in a block with room for 84"},
		{"block cut", cat(shb, idb, good, good[:50]), 2, "cut off by the end of the file"},
		{"block header cut", cat(shb, idb, good, good[:5]), 2, "header cut off by the end of the file"},
		{"lengths differ", cat(shb, idb, good, badEnd), 2, "total length 116 at its start, 8 at its end"},
		{"length not a multiple of 4", cat(shb, idb, notFour), 1, "total length 114, want a multiple of 4"},
		{"huge block", cat(shb, idb, huge), 1, "total length 2147483648"},
		{"captured short", cat(shb, idb, ngEPB(le, 0, 1, 40, n, f[:40])), 1, "captured 40 of the frame's 82 bytes"},
		{"unknown interface", cat(shb, idb, ngEPB(le, 3, 1, n, n, f)), 1, "Interface id 3 not present"},
		// A time resolution of 2^-64 s: pcapgo divides by zero (a
		// panic in the library, reported).
		{"time resolution", cat(shb, ngIDB(le, 1, 0, 9, []byte{0x80 | 64}), good), 0, "malformed file: runtime error: integer divide by zero"},
	} {
		got, err := ReadPcapFrom(bytes.NewReader(tt.data), "bad.pcapng")
		wantPcapError(t, tt.name, got, err, "bad.pcapng", tt.packet, tt.want)
	}
	path := filepath.Join(t.TempDir(), "ok.pcapng")
	os.WriteFile(path, cat(shb, idb, good), 0o644)
	if got, err := ReadPcap(path); err != nil || len(got) != 1 || !got[0].ICRCOK {
		t.Errorf("a good file: %+v, %v", got, err)
	}
}
