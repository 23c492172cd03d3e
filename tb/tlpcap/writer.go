package tlpcap

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"mkeysim/rtl/pcie"
)

// Format constants (see the package documentation).
const (
	// LinkType is the pcap link type of the file: LINKTYPE_USER0, the
	// first of the link types reserved for private use, since no
	// registered one carries PCIe TLPs.
	LinkType = 147

	// Version is the version byte of the pseudo-header this package
	// writes and the only one it reads.
	Version = 1

	// PseudoHeaderBytes is the size of the pseudo-header that precedes
	// the TLP in every record.
	PseudoHeaderBytes = 4

	// MaxRecordBytes is the size of the largest record: pseudo-header,
	// 4DW header and 1024 DW of data. It is the file's snaplen. A TLP
	// with a PASID prefix is 4 bytes longer than its header and data, so
	// one with a 4DW header and 1024 DW of data does not fit: Write
	// refuses it (the snaplen stays that of the files written before
	// prefixes existed).
	MaxRecordBytes = PseudoHeaderBytes + pcie.Header4DW + pcie.MaxLengthDW*pcie.DWBytes

	// MinClockPS is the shortest clock period a file can hold, 1 ns: with
	// nanosecond timestamps, a shorter one would give two cycles the same
	// time.
	MinClockPS = 1000
)

// Direction is which way a TLP travels on the link.
type Direction uint8

const (
	// Upstream is from the device (the NIC) to the root complex, as the
	// device's memory reads and writes travel.
	Upstream Direction = 0
	// Downstream is from the root complex to the device, as the
	// completions of the device's reads travel.
	Downstream Direction = 1
)

func (d Direction) String() string {
	switch d {
	case Upstream:
		return "upstream"
	case Downstream:
		return "downstream"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// Valid reports whether d is Upstream or Downstream.
func (d Direction) Valid() bool { return d <= Downstream }

// Writer writes TLPs as the records of a pcap file. Each Write makes two
// writes to the underlying writer: give it a bufio.Writer (and flush it)
// when writing to a file.
type Writer struct {
	pw      *pcapgo.Writer
	clockPS uint64
	n       uint64 // records written
	buf     []byte
	err     error // the first write error: the file is broken from there on
}

// NewWriter writes the file header to w and returns a Writer whose records
// are stamped with the time of their cycle at clockPS picoseconds a cycle
// (mkeysim's clock_ps; at least MinClockPS).
func NewWriter(w io.Writer, clockPS uint64) (*Writer, error) {
	if err := checkClock(clockPS); err != nil {
		return nil, err
	}
	pw := pcapgo.NewWriterNanos(w)
	if err := pw.WriteFileHeader(MaxRecordBytes, layers.LinkType(LinkType)); err != nil {
		return nil, fmt.Errorf("tlpcap: file header: %w", err)
	}
	return &Writer{pw: pw, clockPS: clockPS, buf: make([]byte, 0, MaxRecordBytes)}, nil
}

func checkClock(clockPS uint64) error {
	if clockPS < MinClockPS {
		return fmt.Errorf("tlpcap: clock period %d ps is under %d ps: nanosecond timestamps cannot tell its cycles apart", clockPS, MinClockPS)
	}
	return nil
}

// Write appends the record of t, sent in direction dir during clock cycle
// cycle. It fails, naming the record and the field, when dir is not a
// direction, t does not fit the TLP wire format (see (*pcie.TLP).Append;
// protocol rules are not checked) or the record (see MaxRecordBytes), or
// the cycle's time is past the last time pcap can hold (2^32 s). After a failed write to the underlying
// writer, every Write returns that error.
func (w *Writer) Write(cycle uint64, dir Direction, t *pcie.TLP) error {
	if w.err != nil {
		return w.err
	}
	rec := w.n + 1
	if !dir.Valid() {
		return &RecordError{Record: rec, Err: fmt.Errorf("direction %d is neither upstream (0) nor downstream (1)", uint8(dir))}
	}
	ts, err := timestamp(cycle, w.clockPS)
	if err != nil {
		return &RecordError{Record: rec, Err: err}
	}
	b := append(w.buf[:0], Version, byte(dir), 0, 0)
	if b, err = t.Append(b); err != nil {
		return &RecordError{Record: rec, Err: err}
	}
	if len(b) > MaxRecordBytes {
		return &RecordError{Record: rec, Err: fmt.Errorf("%d bytes, longer than the largest record (%d): a prefix and a 4DW header leave room for %d DW of data",
			len(b), MaxRecordBytes, pcie.MaxLengthDW-pcie.PrefixBytes/pcie.DWBytes)}
	}
	w.buf = b[:0]
	ci := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(b), Length: len(b)}
	if err := w.pw.WritePacket(ci, b); err != nil {
		w.err = &RecordError{Record: rec, Err: err}
		return w.err
	}
	w.n++
	return nil
}

// timestamp is the time of cycle at clockPS picoseconds a cycle as a
// pcap timestamp: floor(cycle × clockPS / 1000) ns after the epoch.
func timestamp(cycle, clockPS uint64) (time.Time, error) {
	hi, lo := bits.Mul64(cycle, clockPS)
	if hi < 1000 { // else the quotient does not fit 64 bits
		ns, _ := bits.Div64(hi, lo, 1000)
		if sec := ns / 1e9; sec <= math.MaxUint32 {
			return time.Unix(int64(sec), int64(ns%1e9)).UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("cycle %d at %d ps is past pcap's last timestamp (2^32 s)", cycle, clockPS)
}

// cycleAt is the cycle whose timestamp is ns, and whether there is one:
// the inverse of timestamp for clockPS >= 1000 (each cycle then has its
// own nanosecond).
func cycleAt(ns, clockPS uint64) (uint64, bool) {
	hi, lo := bits.Mul64(ns, 1000)
	if hi >= clockPS {
		return 0, false
	}
	c, rem := bits.Div64(hi, lo, clockPS)
	if rem != 0 {
		c++ // ceil(ns × 1000 / clockPS)
	}
	hi, lo = bits.Mul64(c, clockPS)
	if hi >= 1000 {
		return 0, false
	}
	back, _ := bits.Div64(hi, lo, 1000)
	return c, back == ns
}

// RecordError is an error about one record of a file: Record numbers the
// records from 1, as Wireshark numbers frames.
type RecordError struct {
	Record uint64
	Err    error
}

func (e *RecordError) Error() string { return fmt.Sprintf("tlpcap: record %d: %v", e.Record, e.Err) }

// Unwrap returns the reason, so that errors.Is finds io.ErrUnexpectedEOF
// in a truncated file and errors.As a *pcie.FieldError.
func (e *RecordError) Unwrap() error { return e.Err }
