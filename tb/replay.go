package tb

import (
	"errors"
	"fmt"
	"io"

	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
	"mkeysim/tb/wire"
)

// Packets is a capture's RoCEv2 frames in file order, read one at a time
// (wire.PcapReader): Next returns io.EOF after the last.
type Packets interface {
	Next() (*wire.Captured, error)
}

// Replay is a capture's requests parsed by the responder and placed among
// a scenario's operations, checked and ready to run (Bench.StreamReplay).
//
// NewReplay reads the capture once to check it and count its messages,
// keeping none of them; the run reads it again as the model takes its
// operations, a chunk of messages at a time, so a replay of any length
// holds the packets of a few chunks (a 68 MB capture of 100,000 messages
// kept 363 MB resident when it was read whole first).
type Replay struct {
	ops  []scenario.Op // the scenario's
	open func() (Packets, error)
	// Messages and Skipped count the capture's packets that started a
	// message and those that started none (wire.Responder.Skipped); Requests
	// counts the packets of the messages (the rest of a WRITE too).
	Messages, Skipped, Requests int
	// Ops is how many operations run, and Accesses how many of them are
	// accesses.
	Ops, Accesses int
	// Chunk is how many operations the run reads at a time (0:
	// stimulus.FeedChunk); set it before Feed.
	Chunk int

	feed *stimulus.Feed
	in   *replayReader
	w    *wireRun // the run, once StreamReplay starts it
}

// NewReplay reads the packets open returns (in file order) with a fresh
// responder and checks that their messages can be placed among ops: the
// operations to run are ops, with the ones a wire carries replaced by the
// capture's messages in order, or, for no ops, the capture's messages
// alone. A packet with a wrong ICRC or a malformed request, or a capture
// whose messages do not fill the places of the operations a wire carries
// in ops exactly, is an error naming the packet or both counts. open is
// called again by the run: it must give the same packets.
func NewReplay(ops []scenario.Op, open func() (Packets, error)) (*Replay, error) {
	r := &Replay{ops: ops, open: open}
	in, err := r.reader()
	if err != nil {
		return nil, err
	}
	defer in.close()
	accesses := 0 // among the messages
	for {
		m, err := in.message()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		r.Messages++
		if m.m.Op.Kind == scenario.OpAccess {
			accesses++
		}
	}
	r.Skipped, r.Requests = in.resp.Skipped, in.requests
	if len(ops) == 0 {
		r.Ops, r.Accesses = r.Messages, accesses
		return r, nil
	}
	places := 0
	for i := range ops {
		switch {
		case wire.Carries(&ops[i]):
			places++
		case ops[i].Kind == scenario.OpAccess:
			r.Accesses++
		}
	}
	if places != r.Messages {
		return nil, fmt.Errorf("the capture holds %d request messages, the scenario has %d operations a wire carries to take them", r.Messages, places)
	}
	r.Ops, r.Accesses = len(ops), r.Accesses+accesses
	return r, nil
}

// reader opens the capture for a pass over its messages.
func (r *Replay) reader() (*replayReader, error) {
	pk, err := r.open()
	if err != nil {
		return nil, err
	}
	return &replayReader{pk: pk, resp: wire.NewResponder(), lastOn: map[uint32]*replayMsg{}, w: r.w}, nil
}

// Feed returns the run's operations, numbered from 0, read from the
// capture a chunk at a time as the model takes them (the first chunk
// opens it again). Call it before StreamReplay, which runs this feed, to
// follow it with a Scoreboard.
//
// A chunk ends at the first message past Chunk operations whose WRITEs
// before it have all ended (or at four times Chunk): the packets of a
// message are reported (WireOptions.Frames) in the cycle the model takes
// it. A packet that continues a WRITE after its message was taken, which
// only a capture that interleaves the packets of WRITEs on several QPs
// holds, is reported in the cycle it is read.
func (r *Replay) Feed() *stimulus.Feed {
	if r.feed != nil {
		return r.feed
	}
	chunk := r.Chunk
	if chunk <= 0 {
		chunk = stimulus.FeedChunk
	}
	next := 0 // the next of the scenario's operations to place
	r.feed = stimulus.NewFeed(func(spare []scenario.Op, made int) ([]scenario.Op, error) {
		if made >= r.Ops {
			if r.in != nil {
				r.in.close()
			}
			return nil, nil
		}
		if r.in == nil {
			in, err := r.reader()
			if err != nil {
				return nil, err
			}
			r.in = in
		}
		in := r.in
		out := spare
		for made+len(out) < r.Ops && (len(out) < chunk || in.open > 0 && len(out) < 4*chunk) {
			if len(r.ops) > 0 && !wire.Carries(&r.ops[next]) {
				out = append(out, r.ops[next])
				next++
				continue
			}
			m, err := in.message()
			if err != nil {
				var pe *wire.PcapError
				switch {
				case err == io.EOF:
					err = fmt.Errorf("%w: it ends before the %d messages it held", ErrCaptureChanged, r.Messages)
				case !errors.As(err, &pe): // a PcapError names the file and the packet
					err = fmt.Errorf("%w: %v", ErrCaptureChanged, err)
				}
				return nil, err
			}
			in.place(m, made+len(out))
			out = append(out, m.m.Op)
			next++
		}
		return out, nil
	})
	return r.feed
}

// ErrCaptureChanged is the error of a run whose capture, read again,
// does not hold what NewReplay checked in it.
var ErrCaptureChanged = errors.New("the capture changed after it was checked")

// replayMsg is a message read from the capture: its first packet and the
// rest of a WRITE.
type replayMsg struct {
	m      *wire.Message
	frames [][]byte
	seq    int  // its operation's number once placed in a chunk, else -1
	open   bool // a WRITE whose LAST is still to come
}

// replayReader reads a capture's messages in file order.
type replayReader struct {
	pk   Packets
	resp *wire.Responder
	// lastOn is the message each QP's packets continue.
	lastOn   map[uint32]*replayMsg
	requests int
	// peek is the message whose first packet was read ahead.
	peek *replayMsg
	// open counts the messages placed whose WRITE has not ended.
	open int
	// w is the run the messages placed go to (nil: they wait in early).
	w     *wireRun
	early []*replayMsg
}

// message returns the next message, with every packet of its WRITE read
// before the next message's first packet, or io.EOF.
func (in *replayReader) message() (*replayMsg, error) {
	m := in.peek
	in.peek = nil
	for {
		p, err := in.pk.Next()
		if err == io.EOF && m != nil {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
		if !p.ICRCOK {
			return nil, fmt.Errorf("packet %d: ICRC 0x%08x is wrong (a NIC drops such a packet)", p.Number, p.ICRC)
		}
		got, err := in.resp.Receive(&p.Summary)
		if err != nil {
			return nil, fmt.Errorf("packet %d: %v", p.Number, err)
		}
		if got == nil {
			if last, ok := in.lastOn[p.DestQP]; ok && isWriteMore(p.Opcode) {
				in.requests++
				in.attach(last, p)
			}
			continue
		}
		in.requests++
		if last, ok := in.lastOn[p.DestQP]; ok {
			in.end(last) // nothing continues it now
		}
		n := &replayMsg{m: got, frames: [][]byte{p.Data}, seq: -1, open: p.Opcode == wire.OpRDMAWriteFirst}
		in.lastOn[p.DestQP] = n
		if m == nil {
			m = n
			continue
		}
		in.peek = n
		return m, nil
	}
}

// attach adds a packet that continues a WRITE to its message.
func (in *replayReader) attach(m *replayMsg, p *wire.Captured) {
	if p.Opcode != wire.OpRDMAWriteMiddle {
		in.end(m)
	}
	if m.seq >= 0 && in.w != nil {
		in.w.late(m.seq, p.Data)
		return
	}
	m.frames = append(m.frames, p.Data)
}

// end notes that m's WRITE has ended.
func (in *replayReader) end(m *replayMsg) {
	if m.open && m.seq >= 0 {
		in.open--
	}
	m.open = false
}

// place makes m operation seq of the run.
func (in *replayReader) place(m *replayMsg, seq int) {
	m.seq = seq
	if m.open {
		in.open++
	}
	if in.w == nil {
		in.early = append(in.early, m)
		return
	}
	in.w.add(seq, m.m, m.frames)
}

// runIn sends the messages placed to w from now on, and those placed
// before.
func (in *replayReader) runIn(w *wireRun) {
	in.w = w
	for _, m := range in.early {
		w.add(m.seq, m.m, m.frames)
	}
	in.early = nil
}

// close closes the capture if it can be closed.
func (in *replayReader) close() {
	if c, ok := in.pk.(io.Closer); ok {
		c.Close()
	}
}

// isWriteMore reports whether op continues an RDMA WRITE.
func isWriteMore(op wire.Opcode) bool {
	switch op {
	case wire.OpRDMAWriteMiddle, wire.OpRDMAWriteLast, wire.OpRDMAWriteLastImm:
		return true
	}
	return false
}

// StreamReplay runs r's feed as StreamWire runs a scenario (opt.SeqBase
// is not used: the feed numbers from 0): wo.Frames gets the captured
// request packets in the cycle the model takes their operation, and the
// responder's answers. The counts of packets and messages are the whole
// capture's (NewReplay's).
func (b *Bench) StreamReplay(r *Replay, opt RunOptions, wo WireOptions) (WireStats, error) {
	st := WireStats{Messages: r.Messages, Requests: r.Requests, Skipped: r.Skipped}
	w := newWireRun(b, wo.Frames != nil)
	f := r.Feed()
	r.w = w
	if r.in != nil { // the feed was read before the run
		r.in.runIn(w)
	}
	w.now, w.report = b.Eng.Now, wo.Frames
	err := b.streamMessages(f, w, wire.NewResponder(), opt, wo, &st)
	if r.in != nil {
		r.in.close()
	}
	if err == nil {
		err = f.Err()
	}
	return st, err
}
