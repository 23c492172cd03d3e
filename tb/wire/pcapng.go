package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/gopacket/pcapgo"
)

// Wireshark and dumpcap save pcapng by default. pcapgo's NgReader reads
// it, but takes its lengths on trust: it allocates a packet's captured
// length (up to 4 GB) before reading it, and a block length shorter than
// its header wraps around. ngBlocks stands between the file and the
// NgReader and hands it whole blocks that it has checked first.

// pcapng block types (the pcapng specification, section 4) that carry a
// length ngBlocks checks.
const (
	ngSectionHeader  = 0x0A0D0D0A
	ngPacket         = 0x00000002 // obsolete, still read
	ngSimplePacket   = 0x00000003
	ngEnhancedPacket = 0x00000006
	ngByteOrderMagic = 0x1A2B3C4D
	// maxNgBlock bounds a block: the longest record read (SnapLen) and
	// its header, padding and options.
	maxNgBlock = SnapLen + 64<<10
)

// ngBlocks is an io.Reader of a pcapng stream that reads it one block at
// a time and checks each block before passing it on: its total length
// (at least 12 bytes, a multiple of 4, at most maxNgBlock, repeated at
// its end) and, in a packet block, a frame that fits in the block.
type ngBlocks struct {
	r     io.Reader
	order binary.ByteOrder // the section's, from its header
	buf   []byte           // the block being passed on
	off   int              // how much of it is passed on
	n     int              // the block's number, from 1
}

func (b *ngBlocks) Read(p []byte) (int, error) {
	if b.off == len(b.buf) {
		if err := b.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, b.buf[b.off:])
	b.off += n
	return n, nil
}

// next reads and checks the next block; io.EOF at the end of the stream
// between blocks.
func (b *ngBlocks) next() error {
	b.n++
	var head [12]byte
	if _, err := io.ReadFull(b.r, head[:8]); err != nil {
		if err == io.EOF {
			return io.EOF
		}
		return fmt.Errorf("pcapng block %d: header cut off by the end of the file (truncated capture)", b.n)
	}
	typ := binary.LittleEndian.Uint32(head[:4]) // the section header's type reads the same either way
	if typ == ngSectionHeader {
		if _, err := io.ReadFull(b.r, head[8:12]); err != nil {
			return fmt.Errorf("pcapng block %d: section header cut off by the end of the file", b.n)
		}
		switch {
		case binary.LittleEndian.Uint32(head[8:12]) == ngByteOrderMagic:
			b.order = binary.LittleEndian
		case binary.BigEndian.Uint32(head[8:12]) == ngByteOrderMagic:
			b.order = binary.BigEndian
		default:
			return fmt.Errorf("pcapng block %d: section header's byte-order magic is 0x%08x", b.n, binary.BigEndian.Uint32(head[8:12]))
		}
	} else if b.order == nil {
		return fmt.Errorf("pcapng block %d: type 0x%08x before any section header", b.n, typ)
	}
	total := b.order.Uint32(head[4:8])
	if total < 12 || total%4 != 0 || total > maxNgBlock {
		return fmt.Errorf("pcapng block %d (type 0x%08x): total length %d, want a multiple of 4 in 12..%d", b.n, typ, total, maxNgBlock)
	}
	have := 8
	if typ == ngSectionHeader {
		have = 12
		if total < 28 {
			return fmt.Errorf("pcapng block %d: section header of %d bytes, want at least 28", b.n, total)
		}
	}
	if cap(b.buf) < int(total) {
		b.buf = make([]byte, total)
	}
	b.buf, b.off = b.buf[:total], 0
	copy(b.buf, head[:have])
	if _, err := io.ReadFull(b.r, b.buf[have:]); err != nil {
		return fmt.Errorf("pcapng block %d (type 0x%08x): %d bytes cut off by the end of the file (truncated capture)", b.n, typ, total)
	}
	if end := b.order.Uint32(b.buf[total-4:]); end != total {
		return fmt.Errorf("pcapng block %d (type 0x%08x): total length %d at its start, %d at its end", b.n, typ, total, end)
	}
	// The frame must lie within the block (pcapgo allocates its length).
	var frame uint32
	room := uint32(0)
	switch typ {
	case ngEnhancedPacket, ngPacket:
		if total < 32 {
			return fmt.Errorf("pcapng block %d: packet block of %d bytes, want at least 32", b.n, total)
		}
		frame, room = b.order.Uint32(b.buf[20:24]), total-32
	case ngSimplePacket:
		if total < 16 {
			return fmt.Errorf("pcapng block %d: simple packet block of %d bytes, want at least 16", b.n, total)
		}
		frame, room = b.order.Uint32(b.buf[8:12]), total-16
	default:
		return nil
	}
	if frame > room {
		return fmt.Errorf("pcapng block %d: a frame of %d bytes in a block with room for %d", b.n, frame, room)
	}
	return nil
}

// ngSource reads packets from a pcapng stream through ngBlocks and
// pcapgo's NgReader, turning a panic of the NgReader on a malformed block
// into an error.
type ngSource struct {
	ng *pcapgo.NgReader
}

// newNgSource reads the section header and the first interface of r.
func newNgSource(r io.Reader) (s *ngSource, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("pcapng: malformed file: %v", p)
		}
	}()
	ng, err := pcapgo.NewNgReader(&ngBlocks{r: r}, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		return nil, ngError(err)
	}
	return &ngSource{ng: ng}, nil
}

// record returns the next packet of an Ethernet interface (those of the
// first interface's link type: pcapgo skips the others). A frame captured
// short (a snap length) is an error.
func (s *ngSource) record() (data []byte, at time.Time, err error) {
	defer func() {
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("pcapng: malformed block: %v", p)
		}
	}()
	data, ci, err := s.ng.ReadPacketData()
	switch {
	case err != nil:
		return nil, time.Time{}, ngError(err)
	case ci.CaptureLength > SnapLen:
		return nil, time.Time{}, fmt.Errorf("record of %d bytes is over %d, the longest read", ci.CaptureLength, SnapLen)
	case ci.CaptureLength < ci.Length:
		return nil, time.Time{}, fmt.Errorf("captured %d of the frame's %d bytes (a snap length)", ci.CaptureLength, ci.Length)
	}
	return data, ci.Timestamp, nil
}

// ngError keeps io.EOF and names the format in any other error; an
// end of file inside a block, which ngBlocks would have reported, cannot
// come from pcapgo.
func ngError(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("pcapng: cut off by the end of the file (truncated capture)")
	}
	if strings.HasPrefix(err.Error(), "pcapng") {
		return err
	}
	return fmt.Errorf("pcapng: %v", err)
}
