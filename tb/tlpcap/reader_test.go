package tlpcap

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"mkeysim/rtl/pcie"
)

// entry is a TLP to write and the cycle and direction to write it with.
type entry struct {
	cycle uint64
	dir   Direction
	tlp   pcie.TLP
}

// randEntries gives tlps increasing cycles (several TLPs may share one)
// and random directions.
func randEntries(rng *rand.Rand, tlps []pcie.TLP) []entry {
	out := make([]entry, len(tlps))
	cycle := rng.Uint64N(1 << 20)
	for i, t := range tlps {
		cycle += rng.Uint64N(5)
		out[i] = entry{cycle, Direction(rng.IntN(2)), t}
	}
	return out
}

// writeFile writes es at clockPS picoseconds a cycle.
func writeFile(t testing.TB, clockPS uint64, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, clockPS)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range es {
		if err := w.Write(e.cycle, e.dir, &e.tlp); err != nil {
			t.Fatalf("entry %d, %+v: %v", i, e, err)
		}
	}
	return buf.Bytes()
}

// readAll reads every record of file.
func readAll(file []byte, clockPS uint64) ([]Record, error) {
	r, err := NewReader(bytes.NewReader(file), clockPS)
	if err != nil {
		return nil, err
	}
	var out []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// nsOf is floor(cycle × clockPS / 1000), computed apart from the writer.
func nsOf(cycle, clockPS uint64) *big.Int {
	ns := new(big.Int).Mul(new(big.Int).SetUint64(cycle), new(big.Int).SetUint64(clockPS))
	return ns.Quo(ns, big.NewInt(1000))
}

// checkRecord compares a record read back with the entry written.
func checkRecord(t testing.TB, i int, got Record, e entry, clockPS uint64) {
	t.Helper()
	want := Record{Cycle: e.cycle, Time: time.Duration(nsOf(e.cycle, clockPS).Int64()), Dir: e.dir, TLP: e.tlp}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("record %d at %d ps:\n got %+v\nwant %+v", i+1, clockPS, got, want)
	}
}

// TestRoundTrip writes every byte-enable pattern rtl/pcie accepts and
// random TLPs of every type at several clock periods, and reads them back.
func TestRoundTrip(t *testing.T) {
	rng := newRand(t)
	tlps := bePatterns()
	for range 2000 {
		tlps = append(tlps, randTLP(rng))
	}
	for _, clockPS := range []uint64{1000, 3333, 4000, 1_000_000} {
		es := randEntries(rng, tlps)
		got, err := readAll(writeFile(t, clockPS, es), clockPS)
		if err != nil {
			t.Fatalf("%d ps: %v", clockPS, err)
		}
		if len(got) != len(es) {
			t.Fatalf("%d ps: %d records, want %d", clockPS, len(got), len(es))
		}
		for i := range es {
			checkRecord(t, i, got[i], es[i], clockPS)
		}
	}
}

// TestReadEOF: io.EOF at the end, and again after it.
func TestReadEOF(t *testing.T) {
	tlp := pcie.NewRead(0x0100, 1, 0x1000, 8)
	r, err := NewReader(bytes.NewReader(writeFile(t, 4000, []entry{{7, Upstream, tlp}})), 4000)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := r.Next(); err != nil || rec.Cycle != 7 {
		t.Fatalf("%+v %v", rec, err)
	}
	for range 2 {
		if rec, err := r.Next(); err != io.EOF {
			t.Fatalf("%+v %v, want io.EOF", rec, err)
		}
	}
}

// Hand-made files, apart from the writer (and so from pcapgo).

// fileHeader is a pcap global header in order with magic, version,
// snaplen and link type.
func fileHeader(order binary.AppendByteOrder, magic uint32, major, minor uint16, snaplen, linkType uint32) []byte {
	b := order.AppendUint32(nil, magic)
	b = order.AppendUint16(b, major)
	b = order.AppendUint16(b, minor)
	b = order.AppendUint32(b, 0)
	b = order.AppendUint32(b, 0)
	b = order.AppendUint32(b, snaplen)
	return order.AppendUint32(b, linkType)
}

// record is a pcap record in order: its header, then body.
func record(order binary.AppendByteOrder, sec, nsec, caplen, origlen uint32, body []byte) []byte {
	b := order.AppendUint32(nil, sec)
	b = order.AppendUint32(b, nsec)
	b = order.AppendUint32(b, caplen)
	b = order.AppendUint32(b, origlen)
	return append(b, body...)
}

// body is a pseudo-header followed by tlp.
func body(version, dir, rsv0, rsv1 byte, tlp []byte) []byte {
	return append([]byte{version, dir, rsv0, rsv1}, tlp...)
}

// rec is a record holding b whole, little-endian, at nsec.
func rec(nsec uint32, b []byte) []byte {
	return record(binary.LittleEndian, 0, nsec, uint32(len(b)), uint32(len(b)), b)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func marshal(t testing.TB, tlp pcie.TLP) []byte {
	t.Helper()
	b, err := tlp.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadVariants reads files that other tools may write: big-endian,
// gzip-compressed, another snaplen.
func TestReadVariants(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	mrd := pcie.NewRead(0x0100, 0x2a, 0x1_0000_1000, 64)
	cpl := pcie.TLP{Type: pcie.CplD, CompleterID: 8, Status: pcie.SC, ByteCount: 4, RequesterID: 0x0100, Tag: 0x2a,
		LengthDW: 1, Data: []byte{1, 2, 3, 4}}
	want := []entry{{250_000_000, Upstream, mrd}, {250_000_003, Downstream, cpl}}
	hand := func(order binary.AppendByteOrder, snaplen uint32) []byte {
		b1, b2 := body(1, 0, 0, 0, marshal(t, mrd)), body(1, 1, 0, 0, marshal(t, cpl))
		return cat(fileHeader(order, magicNanos, 2, 4, snaplen, LinkType),
			record(order, 1, 0, uint32(len(b1)), uint32(len(b1)), b1),
			record(order, 1, 12, uint32(len(b2)), uint32(len(b2)), b2))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(writeFile(t, 4000, want))
	zw.Close()
	for _, c := range []struct {
		name string
		file []byte
	}{
		{"writer", writeFile(t, 4000, want)},
		{"little-endian", hand(le, MaxRecordBytes)},
		{"big-endian", hand(be, MaxRecordBytes)},
		{"snaplen 65535", hand(le, 65535)},
		{"snaplen 16", hand(be, 16)}, // Wireshark ignores it too
		{"gzip", gz.Bytes()},
	} {
		got, err := readAll(c.file, 4000)
		if err != nil || len(got) != len(want) {
			t.Errorf("%s: %d records, %v", c.name, len(got), err)
			continue
		}
		for i := range want {
			checkRecord(t, i, got[i], want[i], 4000)
		}
	}
}

// TestReadErrors reads broken files: the error names the record (or the
// file header) and what is wrong, and comes again on the next call.
func TestReadErrors(t *testing.T) {
	le := binary.LittleEndian
	hdr := fileHeader(le, magicNanos, 2, 4, MaxRecordBytes, LinkType)
	mrd := marshal(t, pcie.NewRead(0x0100, 0x2a, 0x1000, 64))
	mwr := marshal(t, pcie.NewWrite(0x0100, 0x1000, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	good := rec(4, body(1, 0, 0, 0, mrd))
	long := make([]byte, MaxRecordBytes+1)
	copy(long, body(1, 0, 0, 0, mrd))
	for _, c := range []struct {
		name   string
		file   []byte
		record uint64 // the record named, 0 for the file header
		err    string
		is     error // what the error wraps, if it matters
	}{
		{"empty", nil, 0, "tlpcap: file header: 0 of 24 bytes", io.ErrUnexpectedEOF},
		{"short header", hdr[:20], 0, "file header: 20 of 24 bytes", io.ErrUnexpectedEOF},
		{"text", []byte("this is not a capture file"), 0, "magic 0x73696874: not a pcap file", nil},
		{"pcapng", cat(le.AppendUint32(nil, 0x0a0d0d0a), hdr[4:]), 0, "magic 0x0a0d0d0a", nil},
		{"microseconds", fileHeader(le, magicMicros, 2, 4, 4116, LinkType), 0, "microsecond timestamps", nil},
		{"microseconds, big-endian", fileHeader(binary.BigEndian, magicMicros, 2, 4, 4116, LinkType), 0, "microsecond", nil},
		{"Ethernet", fileHeader(le, magicNanos, 2, 4, 4116, 1), 0, "link type 1, want 147 (USER0)", nil},
		{"USER1", fileHeader(le, magicNanos, 2, 4, 4116, 148), 0, "link type 148, want 147", nil},
		{"link type 403", fileHeader(le, magicNanos, 2, 4, 4116, 147+256), 0, "link type 403, want 147", nil},
		{"FCS bits", fileHeader(le, magicNanos, 2, 4, 4116, 0x1000_0093), 0, "link type 268435603", nil},
		{"pcap 3.0", fileHeader(le, magicNanos, 3, 0, 4116, LinkType), 0, "file header: Unknown major version 3", nil},

		{"record header cut", cat(hdr, good, good[:10]), 2, "record 2: truncated", io.ErrUnexpectedEOF},
		{"record without data", cat(hdr, good, good[:16]), 2, "record 2: truncated", io.ErrUnexpectedEOF},
		{"record data cut", cat(hdr, good, good[:20]), 2, "record 2: truncated", io.ErrUnexpectedEOF},
		{"too long", cat(hdr, good, rec(8, long)), 2, "record 2: 4117 bytes, longer than the largest record (4116)", nil},
		{"huge", cat(hdr, record(le, 0, 0, 1<<31, 1<<31, nil)), 1, "record 1: 2147483648 bytes, longer", nil},
		{"snapped", cat(hdr, record(le, 0, 0, 16, 100, body(1, 0, 0, 0, mrd))), 1, "record 1: cut by the capture: 16 of 100 bytes", nil},
		{"caplen over length", cat(hdr, record(le, 0, 0, 16, 15, body(1, 0, 0, 0, mrd))), 1, "record 1: capture length exceeds original packet length", nil},
		{"empty record", cat(hdr, rec(0, nil)), 1, "record 1: 0 bytes, shorter than the 4-byte pseudo-header", nil},
		{"no pseudo-header", cat(hdr, rec(0, []byte{1, 0, 0})), 1, "record 1: 3 bytes, shorter than the 4-byte pseudo-header", nil},
		{"version 0", cat(hdr, good, rec(8, body(0, 0, 0, 0, mrd))), 2, "record 2: pseudo-header version 0, want 1", nil},
		{"version 2", cat(hdr, rec(8, body(2, 0, 0, 0, mrd))), 1, "record 1: pseudo-header version 2, want 1", nil},
		{"direction", cat(hdr, rec(8, body(1, 2, 0, 0, mrd))), 1, "record 1: direction 2 is neither upstream (0) nor downstream (1)", nil},
		{"reserved", cat(hdr, rec(8, body(1, 1, 0, 0x80, mrd))), 1, "record 1: reserved pseudo-header bytes 0x00 0x80, want 0", nil},
		{"between cycles", cat(hdr, good, rec(13, body(1, 0, 0, 0, mrd))), 2, "record 2: time 13 ns is not that of a cycle of 4000 ps", nil},
		{"IO read", cat(hdr, rec(0, body(1, 0, 0, 0, unhex(t, "02000001 0100000f 00001000")))), 1, "record 1: TLP: pcie: TLP Fmt/Type: 000/00010 not supported", nil},
		{"CRS", cat(hdr, rec(0, body(1, 1, 0, 0, unhex(t, "0a000000 00004004 01000000")))), 1, "record 1: TLP: pcie: TLP Status", nil},
		{"trailing byte", cat(hdr, rec(0, body(1, 0, 0, 0, append(mrd, 0)))), 1, "record 1: TLP: pcie: TLP Length: 1 payload bytes follow", nil},
		{"short TLP header", cat(hdr, rec(0, body(1, 0, 0, 0, mrd[:8]))), 1, "record 1: TLP: pcie: TLP truncated", pcie.ErrShort},
		{"short data", cat(hdr, rec(0, body(1, 0, 0, 0, mwr[:len(mwr)-1]))), 1, "record 1: TLP: pcie: TLP truncated", pcie.ErrShort},
	} {
		r, err := NewReader(bytes.NewReader(c.file), 4000)
		if c.record == 0 {
			if err == nil || !strings.Contains(err.Error(), c.err) || c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("%s: %v, want an error containing %q (wrapping %v)", c.name, err, c.err, c.is)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for i := uint64(1); i < c.record; i++ {
			if _, err := r.Next(); err != nil {
				t.Fatalf("%s: record %d: %v", c.name, i, err)
			}
		}
		_, err = r.Next()
		var re *RecordError
		if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &re) || re.Record != c.record ||
			c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: %v, want a *RecordError for record %d containing %q (wrapping %v)", c.name, err, c.record, c.err, c.is)
		}
		if _, again := r.Next(); again != err {
			t.Errorf("%s: next call: %v, want %v again", c.name, again, err)
		}
	}
	// A TLP that does not parse is a *pcie.FieldError inside.
	_, err := readAll(cat(hdr, rec(0, body(1, 0, 0, 0, unhex(t, "20000001 0100000f 00000000 00001000")))), 4000)
	var fe *pcie.FieldError
	if !errors.As(err, &fe) || fe.Field != "Addr" {
		t.Errorf("4DW header below 4 GB: %v, want a *pcie.FieldError about Addr", err)
	}
}

// seedFiles are the fuzz targets' seeds: good files and broken ones.
func seedFiles(t testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var tlps []pcie.TLP
	for range 8 {
		tlps = append(tlps, randTLP(rng))
	}
	good := writeFile(t, 4000, randEntries(rng, tlps))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(good)
	zw.Close()
	mrd := marshal(t, pcie.NewRead(0x0100, 0x2a, 0x1000, 64))
	hdrBE := fileHeader(binary.BigEndian, magicNanos, 2, 4, 4116, LinkType)
	b := body(1, 0, 0, 0, mrd)
	return [][]byte{
		good, good[:len(good)-3], good[:24], gz.Bytes(),
		cat(hdrBE, record(binary.BigEndian, 0, 4, uint32(len(b)), uint32(len(b)), b)),
		cat(good[:24], rec(0, body(1, 1, 0, 0, unhex(t, "0a000000 00004004 01000000")))),
	}
}

// FuzzReader feeds the reader arbitrary bytes: it must not panic or
// allocate without bound; an error names the record it is about and
// comes again; every record it returns writes and reads back the same.
func FuzzReader(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), 4000)
		if err != nil {
			return
		}
		for n := uint64(1); ; n++ {
			rec, err := r.Next()
			if err != nil {
				var re *RecordError
				if err != io.EOF && (!errors.As(err, &re) || re.Record != n) {
					t.Fatalf("record %d: %v is not a *RecordError for it", n, err)
				}
				if _, again := r.Next(); again != err {
					t.Fatalf("record %d: the error does not come again", n)
				}
				return
			}
			e := entry{rec.Cycle, rec.Dir, rec.TLP}
			back, err := readAll(writeFile(t, 4000, []entry{e}), 4000)
			if err != nil || len(back) != 1 || !reflect.DeepEqual(back[0], rec) {
				t.Fatalf("record %d: %+v wrote and read back as %+v, %v", n, rec, back, err)
			}
		}
	})
}

// fuzzTLP makes an encodable TLP out of arbitrary fields, every field
// in its range, as the pcie package's own round-trip fuzzer does.
func fuzzTLP(typ uint8, rid, tag, ldw uint16, addr uint64, fbe, lbe uint8, cid uint16, st uint8, bc uint16, la uint8, data []byte, tc uint8) pcie.TLP {
	t := pcie.TLP{Type: pcie.Type(typ % uint8(pcie.NumTypes)), TC: tc & 7, RequesterID: rid, Tag: tag & pcie.MaxTag}
	length := ldw%pcie.MaxLengthDW + 1
	if cid&0x8000 != 0 { // the ATS fields from bits the seeds already vary, as in rtl/pcie's fuzzer
		t.Prefix = pcie.NewPASIDPrefix(uint32(cid)<<5|uint32(la&0x1f), la&0x40 != 0, la&0x80 != 0)
	}
	switch t.Type {
	case pcie.MRd, pcie.MWr:
		t.LengthDW, t.Addr, t.FirstBE, t.LastBE = length, addr&^3, fbe&0xf, lbe&0xf
		t.AT = pcie.AT(tc>>3) & 3
		if t.AT == pcie.ATTranslationRequest {
			t.Addr |= addr & 1 // NW
		}
	case pcie.Msg, pcie.MsgD:
		if t.Type == pcie.MsgD {
			t.LengthDW = length
		}
		t.Addr, t.MsgCode = addr, lbe
	case pcie.CplD, pcie.Cpl:
		if t.Type == pcie.CplD {
			t.LengthDW = length
		}
		t.CompleterID = cid
		t.Status = []pcie.CplStatus{pcie.SC, pcie.UR, pcie.CA}[int(st)%3]
		t.ByteCount = bc%pcie.MaxByteCount + 1
		t.LowerAddr = la & 0x7f
	}
	if t.Type.HasData() {
		t.Data = make([]byte, int(t.LengthDW)*pcie.DWBytes)
		for i := range t.Data {
			if len(data) > 0 {
				t.Data[i] = data[i%len(data)] + byte(i)
			}
		}
	}
	return t
}

// FuzzRoundTrip writes one arbitrary TLP at an arbitrary cycle, direction
// and clock period: the writer must refuse exactly what the format cannot
// hold, and the reader must give back what the writer took.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(0), uint16(0x100), uint16(0x2a), uint16(15), uint64(0x12345678), uint8(0xf), uint8(0xf), uint16(0), uint8(0), uint16(0), uint8(0), []byte{}, uint8(0), uint64(3), uint8(0), uint64(4000))
	f.Add(uint8(1), uint16(1), uint16(0x3ff), uint16(1023), uint64(1<<32), uint8(0xe), uint8(1), uint16(0), uint8(0), uint16(0), uint8(0), []byte{9, 8}, uint8(7), uint64(250_000_001), uint8(0), uint64(3333))
	f.Add(uint8(2), uint16(0x100), uint16(0x105), uint16(1), uint64(0), uint8(0), uint8(0), uint16(8), uint8(0), uint16(199), uint8(3), []byte{0x11}, uint8(1), uint64(1<<40), uint8(1), uint64(1000))
	f.Add(uint8(3), uint16(0x100), uint16(7), uint16(0), uint64(0), uint8(0), uint8(0), uint16(0), uint8(1), uint16(4095), uint8(0x7f), []byte{}, uint8(5), uint64(1<<62), uint8(1), uint64(4000))
	f.Add(uint8(0), uint16(0), uint16(0), uint16(0), uint64(0), uint8(0), uint8(0), uint16(0), uint8(0), uint16(0), uint8(0), []byte{}, uint8(0), uint64(0), uint8(2), uint64(999))
	f.Fuzz(func(t *testing.T, typ uint8, rid, tag, ldw uint16, addr uint64, fbe, lbe uint8, cid uint16, st uint8, bc uint16, la uint8, data []byte, tc uint8,
		cycle uint64, dir uint8, clockPS uint64) {
		tlp := fuzzTLP(typ, rid, tag, ldw, addr, fbe, lbe, cid, st, bc, la, data, tc)
		var buf bytes.Buffer
		w, err := NewWriter(&buf, clockPS)
		if (err == nil) != (clockPS >= MinClockPS) {
			t.Fatalf("clock %d ps: %v", clockPS, err)
		}
		if err != nil {
			return
		}
		err = w.Write(cycle, Direction(dir), &tlp)
		maxNs := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1e9), 32), big.NewInt(1)) // the last time pcap holds
		fits := nsOf(cycle, clockPS).Cmp(maxNs) <= 0
		recordFits := PseudoHeaderBytes+tlp.HeaderBytes()+tlp.PayloadBytes() <= MaxRecordBytes
		if (err == nil) != (fits && dir <= 1 && recordFits) {
			t.Fatalf("cycle %d at %d ps, direction %d: %v", cycle, clockPS, dir, err)
		}
		if err != nil {
			return
		}
		got, err := readAll(buf.Bytes(), clockPS)
		if err != nil || len(got) != 1 {
			t.Fatalf("%+v at cycle %d, %d ps: %d records, %v", tlp, cycle, clockPS, len(got), err)
		}
		checkRecord(t, 0, got[0], entry{cycle, Direction(dir), tlp}, clockPS)
	})
}
