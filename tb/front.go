package tb

import (
	"errors"
	"fmt"
	"strings"

	"mkeysim/prm"
	"mkeysim/scenario"
	"mkeysim/tb/host"
	"mkeysim/tb/stimulus"
	"mkeysim/tb/wire"
)

// Front is how a scenario's operations reach the model.
type Front string

// The fronts.
const (
	// FrontDirect hands every operation to the model's input as it is.
	FrontDirect Front = "direct"
	// FrontWire sends the operations a wire carries (wire.Carries) as
	// RoCEv2 packets, which the responder parses into what the model
	// runs; the others go to the model directly.
	FrontWire Front = "wire"
	// FrontHost posts the send-queue work a WQE carries (host.Carries:
	// local accesses, UMR, local invalidation) in host memory and rings
	// its doorbell over PCIe; the model's send-queue front fetches and
	// parses it. The rest goes to the model directly.
	FrontHost Front = "host"
)

// Fronts lists the fronts, for help text and errors.
func Fronts() []Front { return []Front{FrontDirect, FrontWire, FrontHost} }

// ParseFront reads a front's name.
func ParseFront(s string) (Front, error) {
	for _, f := range Fronts() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, 3)
	for _, f := range Fronts() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("front %q: want one of %s", s, strings.Join(names, ", "))
}

// Frame is one Ethernet frame on the wire and the cycle it was there: a
// request in the cycle the model's input took its operation, an answer
// in the cycle its result completed.
type Frame struct {
	Cycle uint64
	Data  []byte
}

// WireOptions are what a run through the wire front adds to RunOptions.
type WireOptions struct {
	// Frames, if not nil, is called with every frame of the run, the
	// requests and the responder's answers, as the run makes them (not
	// sorted by cycle: an answer may come a cycle before a request made
	// in the cycle its result completed).
	Frames func(Frame)
}

// WireStats count what travelled on the wire.
type WireStats struct {
	Messages int // operations that travelled as packets
	Requests int // request packets
	Answers  int // answer packets (ACKs, NAKs, read responses)
	Skipped  int // packets that started no message (replay)
	// RecvCQEs counts the receive CQEs (of SENDs with invalidate) the
	// host read back and checked, ErrorCQEs the error ones among them.
	RecvCQEs, ErrorCQEs int
}

// StreamWire runs ops as Stream does, the operations a wire carries sent
// as request packets that the responder parses back into the operations
// the model runs; each result is answered with the responder's packets.
// The results are those of Stream on ops.
func (b *Bench) StreamWire(ops []scenario.Op, opt RunOptions, wo WireOptions) (WireStats, error) {
	return b.StreamWireFeed(stimulus.FeedOf(ops, opt.SeqBase), opt, wo)
}

// StreamWireFeed is StreamWire over the operations of f, sent as packets
// a chunk of f at a time, as the model's input takes them (StreamFeed):
// a run of any length holds the messages of a few chunks. An operation
// the requester cannot send, or whose packets the responder cannot parse,
// is an error naming it; the run ends before the chunk of f that holds
// it (Feed.Map), so a slice's operations do not run at all.
func (b *Bench) StreamWireFeed(f *stimulus.Feed, opt RunOptions, wo WireOptions) (WireStats, error) {
	req, resp := wire.NewRequester(), wire.NewResponder()
	var st WireStats
	w := newWireRun(b, wo.Frames != nil)
	run := f.Map(func(seq int, op *scenario.Op) (scenario.Op, error) {
		if !wire.Carries(op) {
			return *op, nil
		}
		frames, err := req.Send(op)
		if err != nil {
			return scenario.Op{}, fmt.Errorf("operation %d: %v", seq, err)
		}
		var msg *wire.Message
		for _, fr := range frames {
			s, err := wire.Decode(fr)
			if err == nil && !s.ICRCOK {
				err = fmt.Errorf("ICRC 0x%08x is wrong", s.ICRC)
			}
			if err != nil {
				return scenario.Op{}, fmt.Errorf("operation %d: the responder cannot parse its own requester's packet: %v", seq, err)
			}
			m, err := resp.Receive(s)
			if err != nil {
				return scenario.Op{}, fmt.Errorf("operation %d: %v", seq, err)
			}
			if m != nil {
				msg = m
			}
		}
		if msg == nil {
			return scenario.Op{}, fmt.Errorf("operation %d: the responder took none of its %d packets for a message", seq, len(frames))
		}
		w.add(seq, msg, frames)
		st.Messages++
		st.Requests += len(frames)
		return msg.Op, nil
	})
	err := b.streamMessages(run, w, resp, opt, wo, &st)
	if err == nil {
		err = run.Err()
	}
	st.Skipped = resp.Skipped
	return st, err
}

// wireRun is what a run through the wire front keeps of its messages, by
// operation number, from the time their operation is made until it is
// answered for good: a run of any length holds those of a few chunks.
type wireRun struct {
	h          *host.Host // checks the receive CQEs of SENDs with invalidate
	msgs       map[int]wireMsg
	keepFrames bool
	// report and now report a request frame at once (late), when the
	// frames are kept.
	report func(Frame)
	now    func() uint64
}

// wireMsg is one operation's message and, until its operation is taken
// by the model's input, its request frames (to report).
type wireMsg struct {
	m      *wire.Message
	frames [][]byte
}

// newWireRun returns an empty wireRun for b; keepFrames: the request
// frames are kept to report.
func newWireRun(b *Bench, keepFrames bool) *wireRun {
	return &wireRun{h: host.New(b.Mem), msgs: map[int]wireMsg{}, keepFrames: keepFrames}
}

// add notes that operation seq came as message m in frames. A SEND with
// invalidate from the wire ends with a receive CQE, which the host checks
// after the run.
func (w *wireRun) add(seq int, m *wire.Message, frames [][]byte) {
	if m.Op.Kind == scenario.OpSendWithInvalidate {
		w.h.ExpectRecv(seq, m.Op.QPN, m.Op.Key)
	}
	if !w.keepFrames {
		frames = nil
	}
	w.msgs[seq] = wireMsg{m: m, frames: frames}
}

// late adds frame to the request frames of operation seq: it is reported
// with them if the model has not taken the operation yet, else now.
func (w *wireRun) late(seq int, frame []byte) {
	if !w.keepFrames {
		return
	}
	if wm, ok := w.msgs[seq]; ok && wm.frames != nil {
		wm.frames = append(wm.frames, frame)
		w.msgs[seq] = wm
		return
	}
	w.report(Frame{Cycle: w.now(), Data: frame})
}

// streamMessages streams run, where w holds the message each operation
// that travelled as packets came in; it answers every message's result
// through resp.
func (b *Bench) streamMessages(run *stimulus.Feed, w *wireRun, resp *wire.Responder, opt RunOptions, wo WireOptions, st *WireStats) error {
	h := w.h
	b.src.recv = true
	defer func() { b.src.recv = false }()
	var answerErr error
	answer := func(r *scenario.Result, cycle uint64) {
		wm, ok := w.msgs[r.Seq]
		if !ok || answerErr != nil {
			return
		}
		// A page fault is answered with an RNR NAK, and again with the
		// resume that runs the access again.
		if r.Status != prm.PageFault {
			delete(w.msgs, r.Seq)
		}
		frames, err := resp.Answer(wm.m, r)
		if err != nil {
			answerErr = fmt.Errorf("operation %d: answer: %v", r.Seq, err)
			return
		}
		st.Answers += len(frames)
		if wo.Frames != nil {
			for _, f := range frames {
				wo.Frames(Frame{Cycle: cycle, Data: f})
			}
		}
	}
	inner := opt
	if w.keepFrames { // wo.Frames reports them
		inner.OnIssue = func(seq int, cycle uint64) {
			if wm, ok := w.msgs[seq]; ok && wm.frames != nil {
				for _, f := range wm.frames {
					wo.Frames(Frame{Cycle: cycle, Data: f})
				}
				wm.frames = nil
				w.msgs[seq] = wm
			}
			if opt.OnIssue != nil {
				opt.OnIssue(seq, cycle)
			}
		}
	}
	inner.OnResult = func(r *scenario.Result) error {
		h.Result(r)
		if err := h.Poll(); err != nil {
			return fmt.Errorf("completion queues: %v", err)
		}
		answer(r, r.Cycle)
		// The accesses a resume ran again are answered with it (the
		// first answer was an RNR NAK).
		for k := range r.Resumed {
			answer(&r.Resumed[k], r.Cycle)
		}
		if answerErr != nil {
			return answerErr
		}
		if opt.OnResult != nil {
			return opt.OnResult(r)
		}
		return nil
	}
	if err := b.StreamFeed(run, inner); err != nil {
		return err
	}
	var err error
	st.RecvCQEs, st.ErrorCQEs, err = b.finishCQEs(h)
	return err
}

// HostStats count what the host front posted and read back.
type HostStats struct {
	WQEs      int // WQEs posted (each an operation)
	NOPs      int // NOP WQEs posted to pad a send queue's end
	Doorbells int // doorbells rung (MWr TLPs to the device)
	CQEs      int // CQEs read back and checked
	ErrorCQEs int // of CQEs, error CQEs
}

// StreamHost runs ops as Stream does, the operations a WQE carries
// (host.Carries) posted by the host in their QP's send queue with a
// doorbell each, for the model's send-queue front to fetch and parse.
// The results are those of Stream on ops. After the last result the run
// goes on until the last CQE is written; the host then reads every
// completion queue and checks that each work request has its CQE, in
// the order the results came (an error names the QP and the CQE).
func (b *Bench) StreamHost(ops []scenario.Op, opt RunOptions) (HostStats, error) {
	return b.StreamHostFeed(stimulus.FeedOf(ops, opt.SeqBase), opt)
}

// StreamHostFeed is StreamHost over the operations of f, made as the host
// posts them (StreamFeed).
func (b *Bench) StreamHostFeed(f *stimulus.Feed, opt RunOptions) (HostStats, error) {
	if b.plat != nil {
		// Its send and completion queues lie at 2^48 and above, where the
		// I/O page tables are and past the IOVAs a table maps.
		return HostStats{}, errors.New("--front host with the host IOMMU (iommu.enabled) is not modelled yet (issue 36)")
	}
	h := host.New(b.Mem)
	h.UMRFence = b.Top.Config().HCACap.UMRFenceCap()
	b.src.host, b.src.err = h, nil
	inner := opt
	inner.OnResult = func(r *scenario.Result) error {
		h.Result(r)
		// The driver polls its completion queues as results come (a
		// queue wraps on a long run).
		if err := h.Poll(); err != nil {
			return fmt.Errorf("completion queues: %v", err)
		}
		if opt.OnResult != nil {
			return opt.OnResult(r)
		}
		return nil
	}
	err := b.StreamFeed(f, inner)
	b.src.host = nil
	st := HostStats{WQEs: h.WQEs, NOPs: h.NOPs, Doorbells: h.Doorbells}
	if err != nil {
		return st, err
	}
	// The CQEs of the last results are still on their way.
	st.CQEs, st.ErrorCQEs, err = b.finishCQEs(h)
	return st, err
}

// finishCQEs runs b until the host has taken as many writes (the CQEs
// are the only writes of traffic class 0) as operations ended, then
// checks every completion queue (host.Host.CheckCQEs).
func (b *Bench) finishCQEs(h *host.Host) (n, errs int, err error) {
	want := uint64(h.Ended())
	for k := 0; b.RC != nil && b.RC.Stats().Writes < want; k++ {
		if !b.Eng.Step() {
			b.Eng.SkipIdle()
		}
		if k > 1_000_000 {
			return 0, 0, fmt.Errorf("completion queues: %d of %d CQEs written a million cycles after the last result", b.RC.Stats().Writes, want)
		}
	}
	if err = h.CheckCQEs(); err != nil {
		err = fmt.Errorf("completion queues: %v", err)
	}
	return h.CQEs, h.ErrorCQEs, err
}
