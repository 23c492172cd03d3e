package wire

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"mkeysim/internal/outfile"
)

// Frame is one Ethernet frame and the time it was on the wire.
type Frame struct {
	Time time.Time
	Data []byte
}

// Captured is one RoCEv2 frame read back from a capture file, decoded.
type Captured struct {
	Number int // the frame's number in the file, from 1, as tshark counts
	Frame
	Summary
}

// PcapError reports what is wrong with a capture file: which file, which
// packet (from 1; 0 for the file header) and why.
type PcapError struct {
	File   string
	Packet int
	Err    error
}

// Error reads "wire: FILE: packet N: REASON" ("wire: FILE: REASON" for
// the file header).
func (e *PcapError) Error() string {
	if e.Packet == 0 {
		return fmt.Sprintf("wire: %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("wire: %s: packet %d: %v", e.File, e.Packet, e.Err)
}

// Unwrap is the reason.
func (e *PcapError) Unwrap() error { return e.Err }

// SnapLen is the snap length WritePcap declares, tcpdump's default, and
// the longest record ReadPcap accepts: no frame is cut, a longer one is an
// error.
const SnapLen = 262144

// The pcapng magic number (to name that format in an error) and the length
// of the classic file header.
const (
	pcapngMagic    = 0x0A0D0D0A
	pcapFileHdrLen = 24
)

// WritePcap writes frames to a new pcap file at path (replacing any,
// whole or not at all: internal/outfile), as WritePcapTo does.
func WritePcap(path string, frames []Frame) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := WritePcapTo(f, path, frames); err != nil {
		return err
	}
	return f.Commit()
}

// WritePcapTo writes frames to w as a pcap file, as a PcapWriter does.
func WritePcapTo(w io.Writer, name string, frames []Frame) error {
	pw, err := NewPcapWriter(w, name)
	if err != nil {
		return err
	}
	for _, fr := range frames {
		if err := pw.Write(fr); err != nil {
			return err
		}
	}
	return nil
}

// PcapWriter writes frames to a pcap file one at a time with
// pcapgo.NewWriterNanos: little-endian, nanosecond timestamps (a model's
// cycles of a few ns stay apart; Wireshark and tshark read them; a zero
// Time is written as 1970-01-01, where pcapgo would write the time of
// writing), link type Ethernet, snap length SnapLen.
type PcapWriter struct {
	pw   *pcapgo.Writer
	name string
	n    int // frames given to Write
}

// NewPcapWriter writes the file header to w; a failed write is a
// *PcapError naming name.
func NewPcapWriter(w io.Writer, name string) (*PcapWriter, error) {
	pw := pcapgo.NewWriterNanos(w)
	if err := pw.WriteFileHeader(SnapLen, layers.LinkTypeEthernet); err != nil {
		return nil, &PcapError{File: name, Err: fmt.Errorf("writing the file header: %w", err)}
	}
	return &PcapWriter{pw: pw, name: name}, nil
}

// Write writes the next frame. A frame longer than SnapLen, a time before
// 1970 or past 2106, or a failed write is a *PcapError naming the file
// and the frame (from 1).
func (p *PcapWriter) Write(fr Frame) error {
	p.n++
	at := fr.Time
	if at.IsZero() {
		at = time.Unix(0, 0)
	}
	if sec := at.Unix(); sec < 0 || sec > math.MaxUint32 {
		return &PcapError{File: p.name, Packet: p.n, Err: fmt.Errorf("time %v is outside the pcap range 1970 to 2106", fr.Time)}
	}
	if len(fr.Data) > SnapLen {
		return &PcapError{File: p.name, Packet: p.n, Err: fmt.Errorf("frame of %d bytes is over the snap length %d", len(fr.Data), SnapLen)}
	}
	ci := gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(fr.Data), Length: len(fr.Data)}
	if err := p.pw.WritePacket(ci, fr.Data); err != nil {
		return &PcapError{File: p.name, Packet: p.n, Err: fmt.Errorf("writing: %w", err)}
	}
	return nil
}

// Written is how many frames Write was given.
func (p *PcapWriter) Written() int { return p.n }

// ReadPcap reads the pcap file at path, as ReadPcapFrom does.
func ReadPcap(path string) ([]Captured, error) {
	r, err := OpenPcap(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.readAll()
}

// ReadPcapFrom reads every RoCEv2 frame of the pcap file r (named name in
// errors) into memory, as a PcapReader reads them one at a time.
func ReadPcapFrom(r io.Reader, name string) ([]Captured, error) {
	pr, err := NewPcapReader(r, name)
	if err != nil {
		return nil, err
	}
	return pr.readAll()
}

// readAll reads the frames left.
func (r *PcapReader) readAll() ([]Captured, error) {
	var out []Captured
	for {
		c, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
}

// PcapReader reads a pcap file's RoCEv2 frames one at a time, so that a
// capture of any size is read in the memory of one frame: a replay reads
// it as the model takes its requests.
type PcapReader struct {
	name string
	src  packetSource
	n    int // the number of the last record read
	file *os.File
	err  error // the first error met: every later Next returns it
}

// packetSource is what PcapReader reads records from: a classicSource
// or an ngSource. record returns the next whole frame and its time, or
// io.EOF after the last, or why the record is unusable, in the terms of
// its format.
type packetSource interface {
	record() ([]byte, time.Time, error)
}

// classicSource reads a classic pcap file with pcapgo's Reader.
type classicSource struct {
	pr    *pcapgo.Reader
	snap  uint32 // the snap length the file declares
	limit int    // the longest record accepted
}

// record tells a truncated file, a record over the snap length or longer
// than its frame, and a frame captured short from pcapgo's errors and
// capture info.
func (s *classicSource) record() ([]byte, time.Time, error) {
	data, ci, err := s.pr.ReadPacketData()
	headerRead := !ci.Timestamp.IsZero()
	switch {
	case err == io.EOF && !headerRead:
		return nil, time.Time{}, io.EOF
	case err != nil && !headerRead:
		return nil, time.Time{}, fmt.Errorf("record header cut off by the end of the file (truncated capture): %v", err)
	case err != nil && ci.CaptureLength > s.limit:
		return nil, time.Time{}, fmt.Errorf("record of %d bytes is over the snap length %d", ci.CaptureLength, s.limit)
	case err != nil && ci.CaptureLength > ci.Length:
		return nil, time.Time{}, fmt.Errorf("record of %d bytes is longer than its frame of %d", ci.CaptureLength, ci.Length)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, time.Time{}, fmt.Errorf("record of %d bytes cut off by the end of the file (truncated capture)", ci.CaptureLength)
	case err != nil:
		return nil, time.Time{}, err
	case ci.CaptureLength < ci.Length:
		return nil, time.Time{}, fmt.Errorf("captured %d of the frame's %d bytes (snap length %d)", ci.CaptureLength, ci.Length, s.snap)
	}
	return data, ci.Timestamp, nil
}

// OpenPcap opens the pcap file at path for a PcapReader; Close closes it.
func OpenPcap(path string) (*PcapReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewPcapReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// NewPcapReader reads the file header of the capture r: a classic pcap
// file (either byte order, microsecond or nanosecond timestamps) or a
// pcapng file (what Wireshark and dumpcap save by default), gzipped or
// not. It fails with a *PcapError naming name on a file header that is
// cut off or malformed, or whose (first) interface has a link type other
// than Ethernet. In a pcapng file, the packets of interfaces of another
// link type are skipped.
func NewPcapReader(r io.Reader, name string) (*PcapReader, error) {
	fail := func(format string, args ...any) error {
		return &PcapError{File: name, Err: fmt.Errorf(format, args...)}
	}
	br := bufio.NewReader(r)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1F && head[1] == 0x8B {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fail("gzipped file: %v", err)
		}
		br = bufio.NewReader(gz)
	}
	head, _ := br.Peek(pcapFileHdrLen)
	if len(head) >= 4 && binary.BigEndian.Uint32(head) == pcapngMagic {
		ng, err := newNgSource(br)
		if err != nil {
			return nil, fail("%v", err)
		}
		if lt := ng.ng.LinkType(); lt != layers.LinkTypeEthernet {
			return nil, fail("pcapng: first interface of link type %d (%v), want %d (Ethernet)", uint32(lt), lt, uint32(layers.LinkTypeEthernet))
		}
		return &PcapReader{name: name, src: ng}, nil
	}
	if len(head) < pcapFileHdrLen {
		return nil, fail("file header cut off after %d of %d bytes", len(head), pcapFileHdrLen)
	}
	pr, err := pcapgo.NewReader(br)
	if err != nil {
		return nil, fail("file header: %v", err)
	}
	if lt := pr.LinkType(); lt != layers.LinkTypeEthernet {
		return nil, fail("link type %d (%v), want %d (Ethernet)", uint32(lt), lt, uint32(layers.LinkTypeEthernet))
	}
	snap := pr.Snaplen()
	limit := snap // what a record may hold: the snap length, at most SnapLen
	if limit == 0 || limit > SnapLen {
		limit = SnapLen
	}
	pr.SetSnaplen(limit)
	return &PcapReader{name: name, src: &classicSource{pr: pr, snap: snap, limit: int(limit)}}, nil
}

// Next returns the next RoCEv2 frame, decoded, skipping the frames that
// are not RoCEv2 (a *NotRoCEv2Error from Decode: ARP, LLDP, other UDP
// ports), or io.EOF after the last. It fails with a *PcapError naming the
// file, the packet (from 1) and the reason on a record cut off by the end
// of the file (a truncated capture), a record captured shorter than the
// frame was (a snap length) or longer than the snap length (at most
// SnapLen), and a RoCEv2 frame that does not decode; after an error every
// call returns it. A wrong ICRC is not an error: see Summary.ICRCOK.
func (r *PcapReader) Next() (*Captured, error) {
	if r.err != nil {
		return nil, r.err
	}
	c, err := r.next()
	if err != nil {
		r.err = err
	}
	return c, err
}

func (r *PcapReader) next() (*Captured, error) {
	for {
		r.n++
		data, at, err := r.src.record()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, &PcapError{File: r.name, Packet: r.n, Err: err}
		}
		sum, err := Decode(data)
		var not *NotRoCEv2Error
		if errors.As(err, &not) {
			continue
		}
		if err != nil {
			return nil, &PcapError{File: r.name, Packet: r.n, Err: err}
		}
		return &Captured{Number: r.n, Frame: Frame{Time: at, Data: data}, Summary: *sum}, nil
	}
}

// Name is the file's name, as errors give it.
func (r *PcapReader) Name() string { return r.name }

// Close closes the file OpenPcap opened (nothing for NewPcapReader's).
func (r *PcapReader) Close() error {
	if r.file == nil {
		return nil
	}
	f := r.file
	r.file = nil
	return f.Close()
}
