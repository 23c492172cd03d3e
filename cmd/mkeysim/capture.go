package main

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"time"

	"mkeysim/rtl/pcie"
	"mkeysim/tb"
	"mkeysim/tb/tlpcap"
	"mkeysim/tb/wire"
)

// tlpCapture writes a run's PCIe traffic (--tlp-out) as a pcap of link
// type USER0 (tb/tlpcap; scripts/tlp.lua decodes it in tshark and
// Wireshark). The file is written beside its name and put in place only
// when the run ends, as every output of a run.
type tlpCapture struct {
	path string
	f    *atomicFile
	bw   *bufio.Writer
	w    *tlpcap.Writer
	n    uint64
	err  error // the first write error: the capture stops there
}

// startTLPCapture creates path and taps bench's PCIe port; nil, nil when
// path is "".
func startTLPCapture(path string, bench *tb.Bench, clockPS uint64) (*tlpCapture, error) {
	if path == "" {
		return nil, nil
	}
	f, err := createAtomic(path)
	if err != nil {
		return nil, fmt.Errorf("--tlp-out %q: %v", path, err)
	}
	c := &tlpCapture{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<16)}
	if c.w, err = tlpcap.NewWriter(c.bw, clockPS); err != nil {
		f.abort()
		return nil, fmt.Errorf("--tlp-out %q: %v", path, err)
	}
	bench.TapTLPs(func(cycle uint64, up bool, t *pcie.TLP) {
		if c.err != nil {
			return
		}
		dir := tlpcap.Downstream
		if up {
			dir = tlpcap.Upstream
		}
		if c.err = c.w.Write(cycle, dir, t); c.err == nil {
			c.n++
		}
	})
	return c, nil
}

// close finishes the file and says what it holds; on an error the file
// is removed. A nil capture does nothing.
func (c *tlpCapture) close() (string, error) {
	if c == nil {
		return "", nil
	}
	err := c.err
	if err == nil {
		err = c.bw.Flush()
	}
	if err == nil {
		err = c.f.commit()
	}
	if err != nil {
		c.f.abort()
		return "", fmt.Errorf("--tlp-out %q: %v", c.path, err)
	}
	return fmt.Sprintf("%d TLPs in %s", c.n, c.path), nil
}

// packetCapture keeps a run's RoCEv2 frames (--pcap-out) and writes them,
// in the order of their cycles, as a pcap when the run ends.
type packetCapture struct {
	path    string
	f       *atomicFile
	clockPS uint64
	frames  []tb.Frame
}

// startPacketCapture creates path; nil, nil when path is "".
func startPacketCapture(path string, clockPS uint64) (*packetCapture, error) {
	if path == "" {
		return nil, nil
	}
	f, err := createAtomic(path)
	if err != nil {
		return nil, fmt.Errorf("--pcap-out %q: %v", path, err)
	}
	return &packetCapture{path: path, f: f, clockPS: clockPS}, nil
}

// options is what the wire front needs to hand the capture its frames.
func (c *packetCapture) options() tb.WireOptions {
	if c == nil {
		return tb.WireOptions{}
	}
	return tb.WireOptions{Frames: func(f tb.Frame) { c.frames = append(c.frames, f) }}
}

// close writes the file and says what it holds; on an error the file is
// removed. A nil capture does nothing.
func (c *packetCapture) close() (string, error) {
	if c == nil {
		return "", nil
	}
	slices.SortStableFunc(c.frames, func(a, b tb.Frame) int { return cmp.Compare(a.Cycle, b.Cycle) })
	frames := make([]wire.Frame, len(c.frames))
	for i, f := range c.frames {
		frames[i] = wire.Frame{Time: time.Unix(0, int64(f.Cycle*c.clockPS/1000)).UTC(), Data: f.Data}
	}
	bw := bufio.NewWriterSize(c.f, 1<<16)
	err := wire.WritePcapTo(bw, c.path, frames)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = c.f.commit()
	}
	if err != nil {
		c.f.abort()
		return "", fmt.Errorf("--pcap-out %q: %v", c.path, err)
	}
	return fmt.Sprintf("%d packets in %s", len(frames), c.path), nil
}
