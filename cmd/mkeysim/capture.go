package main

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"mkeysim/internal/outfile"
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
	f    *outfile.File
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
	f, err := createOutput("--tlp-out", path)
	if err != nil {
		return nil, err
	}
	c := &tlpCapture{path: path, f: f}
	if c.w, err = tlpcap.NewWriter(f, clockPS); err != nil {
		f.Abort()
		return nil, fmt.Errorf("--tlp-out %s: %v", path, err)
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
	if c.err != nil {
		c.f.Abort()
		return "", writeFailed("--tlp-out", c.path, c.err)
	}
	if err := commitOutput("--tlp-out", c.f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d TLPs in %s", c.n, c.path), nil
}

// failed reports whether a write failed (close says why).
func (c *tlpCapture) failed() bool { return c != nil && (c.err != nil || c.f.Failed()) }

// abort removes the file unless close put it in place; a nil capture
// does nothing.
func (c *tlpCapture) abort() {
	if c != nil {
		c.f.Abort()
	}
}

// packetCapture writes a run's RoCEv2 frames (--pcap-out) as a pcap, in
// the order of their cycles. The wire front reports a frame at most a
// cycle or so before frames of earlier cycles (an answer at its result's
// cycle, a request at the cycle the model takes it), so the capture holds
// the frames of the last pcapWindow cycles, sorts them, and writes those
// older than that: a run of any length keeps a few thousand frames.
type packetCapture struct {
	path    string
	f       *outfile.File
	pw      *wire.PcapWriter
	clockPS uint64
	pending []tb.Frame // not yet written, oldest cycles first after a sort
	last    uint64     // the latest cycle of a frame given
	written uint64     // the cycle of the last frame written
	err     error      // the first error: the capture stops there
}

// pcapWindow is how many cycles a frame is held before it is written:
// far more than the wire front's frames ever come out of order.
const pcapWindow = 1 << 12

// startPacketCapture creates path; nil, nil when path is "".
func startPacketCapture(path string, clockPS uint64) (*packetCapture, error) {
	if path == "" {
		return nil, nil
	}
	f, err := createOutput("--pcap-out", path)
	if err != nil {
		return nil, err
	}
	c := &packetCapture{path: path, f: f, clockPS: clockPS}
	if c.pw, err = wire.NewPcapWriter(f, path); err != nil {
		f.Abort()
		return nil, fmt.Errorf("--pcap-out %s: %v", path, err)
	}
	return c, nil
}

// options is what the wire front needs to hand the capture its frames.
func (c *packetCapture) options() tb.WireOptions {
	if c == nil {
		return tb.WireOptions{}
	}
	return tb.WireOptions{Frames: c.add}
}

// add takes the next frame the run reports.
func (c *packetCapture) add(f tb.Frame) {
	if c.err != nil {
		return
	}
	if f.Cycle < c.written {
		c.err = fmt.Errorf("a frame of cycle %d came after those of cycle %d were written (more than %d cycles out of order)", f.Cycle, c.written, pcapWindow)
		return
	}
	c.pending = append(c.pending, f)
	c.last = max(c.last, f.Cycle)
	if len(c.pending) >= 4096 && c.last > pcapWindow {
		c.write(c.last - pcapWindow)
	}
}

// write writes, in cycle order, the frames held of cycles before end (all
// of them for ^uint64(0)). A stable sort keeps the order in which the
// frames of one cycle came.
func (c *packetCapture) write(end uint64) {
	slices.SortStableFunc(c.pending, func(a, b tb.Frame) int { return cmp.Compare(a.Cycle, b.Cycle) })
	n := 0
	for ; n < len(c.pending) && c.pending[n].Cycle < end; n++ {
		f := c.pending[n]
		if err := c.pw.Write(wire.Frame{Time: time.Unix(0, int64(f.Cycle*c.clockPS/1000)).UTC(), Data: f.Data}); err != nil {
			c.err = err
			return
		}
		c.written = f.Cycle
	}
	c.pending = append(c.pending[:0], c.pending[n:]...)
}

// close writes the frames held and says what the file holds; on an error
// the file is removed. A nil capture does nothing.
func (c *packetCapture) close() (string, error) {
	if c == nil {
		return "", nil
	}
	if c.err == nil {
		c.write(^uint64(0))
	}
	if c.err != nil {
		c.f.Abort()
		return "", writeFailed("--pcap-out", c.path, c.err)
	}
	if err := commitOutput("--pcap-out", c.f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d packets in %s", c.pw.Written(), c.path), nil
}

// failed reports whether a write failed (close says why).
func (c *packetCapture) failed() bool { return c != nil && (c.err != nil || c.f.Failed()) }

// abort removes the file unless close put it in place; a nil capture
// does nothing.
func (c *packetCapture) abort() {
	if c != nil {
		c.f.Abort()
	}
}
