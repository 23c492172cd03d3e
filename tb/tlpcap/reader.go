package tlpcap

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/gopacket/pcapgo"

	"mkeysim/rtl/pcie"
)

// Record is one TLP read back from a file.
type Record struct {
	Cycle uint64        // clock cycle the TLP was sent in
	Time  time.Duration // its timestamp: simulated time since cycle 0
	Dir   Direction
	TLP   pcie.TLP // as pcie.Parse returns it; Data is the record's own copy
}

// Reader reads the records of a file written by Writer (or by another tool
// following the format in the package documentation).
type Reader struct {
	pr      *pcapgo.Reader
	clockPS uint64
	n       uint64 // records read
	err     error  // sticky: after an error the position in the file is lost
}

// pcap magic numbers as read little-endian, and the global header's size.
const (
	magicNanos     = 0xa1b23c4d
	magicNanosSwap = 0x4d3cb2a1
	magicMicros    = 0xa1b2c3d4
	magicMicroSwap = 0xd4c3b2a1
	fileHeaderSize = 24
)

// NewReader reads the file header from r and returns a Reader that turns
// timestamps back into cycles at clockPS picoseconds a cycle (the period
// the file was written with). It fails on a file that is not a pcap file
// with nanosecond timestamps and link type LinkType. A gzip-compressed file
// is decompressed, as Wireshark does.
func NewReader(r io.Reader, clockPS uint64) (*Reader, error) {
	if err := checkClock(clockPS); err != nil {
		return nil, err
	}
	br := bufio.NewReader(r)
	if m, err := br.Peek(2); err == nil && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("tlpcap: gzip: %w", err)
		}
		br = bufio.NewReader(zr)
	}
	hdr, err := br.Peek(fileHeaderSize)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("tlpcap: file header: %d of %d bytes: %w", len(hdr), fileHeaderSize, err)
	}
	var order binary.ByteOrder
	switch m := binary.LittleEndian.Uint32(hdr); m {
	case magicNanos:
		order = binary.LittleEndian
	case magicNanosSwap:
		order = binary.BigEndian
	case magicMicros, magicMicroSwap:
		return nil, errors.New("tlpcap: file header: microsecond timestamps (magic 0xa1b2c3d4): a TLP capture has nanosecond ones (0xa1b23c4d), so that every cycle has its own time")
	default:
		return nil, fmt.Errorf("tlpcap: file header: magic %#08x: not a pcap file with nanosecond timestamps (0xa1b23c4d)", m)
	}
	// pcapgo keeps only the low byte of the link type: check all 32 bits.
	if lt := order.Uint32(hdr[20:]); lt != LinkType {
		return nil, fmt.Errorf("tlpcap: file header: link type %d, want %d (USER0)", lt, LinkType)
	}
	pr, err := pcapgo.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("tlpcap: file header: %w", err)
	}
	// The file's snaplen does not matter (as in Wireshark): no record may
	// exceed MaxRecordBytes, and this bounds what pcapgo allocates.
	pr.SetSnaplen(MaxRecordBytes)
	return &Reader{pr: pr, clockPS: clockPS}, nil
}

// Next returns the next record. At the end of the file it returns io.EOF;
// any other error is a *RecordError naming the record and what is wrong
// with it (one cut short wraps io.ErrUnexpectedEOF, a TLP that does not
// parse the pcie error). After an error, Next returns the same error.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	rec, err := r.next()
	if err != nil {
		if err != io.EOF {
			err = &RecordError{Record: r.n + 1, Err: err}
		}
		r.err = err
		return Record{}, err
	}
	r.n++
	return rec, nil
}

func (r *Reader) next() (Record, error) {
	data, ci, err := r.pr.ZeroCopyReadPacketData()
	switch {
	case ci.CaptureLength > MaxRecordBytes:
		return Record{}, fmt.Errorf("%d bytes, longer than the largest record (%d)", ci.CaptureLength, MaxRecordBytes)
	case err == io.EOF && ci.CaptureLength == 0:
		return Record{}, io.EOF // no record header: the end of the file
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return Record{}, fmt.Errorf("truncated: %w", io.ErrUnexpectedEOF)
	case err != nil:
		return Record{}, err
	case ci.CaptureLength < ci.Length:
		return Record{}, fmt.Errorf("cut by the capture: %d of %d bytes", ci.CaptureLength, ci.Length)
	case len(data) < PseudoHeaderBytes:
		return Record{}, fmt.Errorf("%d bytes, shorter than the %d-byte pseudo-header", len(data), PseudoHeaderBytes)
	case data[0] != Version:
		return Record{}, fmt.Errorf("pseudo-header version %d, want %d", data[0], Version)
	case !Direction(data[1]).Valid():
		return Record{}, fmt.Errorf("direction %d is neither upstream (0) nor downstream (1)", data[1])
	case data[2] != 0 || data[3] != 0:
		return Record{}, fmt.Errorf("reserved pseudo-header bytes 0x%02x 0x%02x, want 0", data[2], data[3])
	}
	ns := uint64(ci.Timestamp.UnixNano()) // seconds are 32-bit unsigned: no overflow, never negative
	cycle, ok := cycleAt(ns, r.clockPS)
	if !ok {
		return Record{}, fmt.Errorf("time %d ns is not that of a cycle of %d ps", ns, r.clockPS)
	}
	t, err := pcie.Parse(data[PseudoHeaderBytes:])
	if err != nil {
		return Record{}, fmt.Errorf("TLP: %w", err)
	}
	return Record{Cycle: cycle, Time: time.Duration(ns), Dir: Direction(data[1]), TLP: t}, nil
}
