package tb

import (
	"fmt"
	"strings"

	"mkeysim/scenario"
	"mkeysim/tb/host"
	"mkeysim/tb/wire"
)

// Front is how a scenario's operations reach the model.
type Front string

// The fronts.
const (
	// FrontDirect hands every operation to the model's input as it is.
	FrontDirect Front = "direct"
	// FrontWire sends the operations a wire carries (WireCarries) as
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
	req, resp := NewRequester(), NewResponder()
	run := make([]scenario.Op, len(ops))
	msgs := make([]*Message, len(ops))
	var sent [][][]byte
	if wo.Frames != nil {
		sent = make([][][]byte, len(ops))
	}
	var st WireStats
	for i := range ops {
		if !WireCarries(&ops[i]) {
			run[i] = ops[i]
			continue
		}
		frames, err := req.Send(&ops[i])
		if err != nil {
			return st, fmt.Errorf("operation %d: %v", opt.SeqBase+i, err)
		}
		for _, f := range frames {
			s, err := wire.Decode(f)
			if err == nil && !s.ICRCOK {
				err = fmt.Errorf("ICRC 0x%08x is wrong", s.ICRC)
			}
			if err != nil {
				return st, fmt.Errorf("operation %d: the responder cannot parse its own requester's packet: %v", opt.SeqBase+i, err)
			}
			m, err := resp.Receive(s)
			if err != nil {
				return st, fmt.Errorf("operation %d: %v", opt.SeqBase+i, err)
			}
			if m != nil {
				msgs[i] = m
			}
		}
		if msgs[i] == nil {
			return st, fmt.Errorf("operation %d: the responder took none of its %d packets for a message", opt.SeqBase+i, len(frames))
		}
		run[i] = msgs[i].Op
		st.Messages++
		st.Requests += len(frames)
		if sent != nil {
			sent[i] = frames
		}
	}
	err := b.streamMessages(run, msgs, sent, resp, opt, wo, &st)
	st.Skipped = resp.Skipped
	return st, err
}

// streamMessages streams run, where msgs[i] (nil for an operation that
// did not travel as packets) is the message operation i came in, sent[i]
// its request frames (nil: none to report); it answers every message's
// result through resp.
func (b *Bench) streamMessages(run []scenario.Op, msgs []*Message, sent [][][]byte, resp *Responder, opt RunOptions, wo WireOptions, st *WireStats) error {
	base := opt.SeqBase
	// A SEND with invalidate from the wire ends with a receive CQE, which
	// the host checks after the run.
	h := host.New(b.Mem)
	b.src.recv = make([]bool, len(run))
	for i, m := range msgs {
		if m != nil && m.Op.Kind == scenario.OpSendWithInvalidate {
			b.src.recv[i] = true
			h.ExpectRecv(base+i, m.Op.QPN, m.Op.Key)
		}
	}
	defer func() { b.src.recv = nil }()
	var answerErr error
	answer := func(r *scenario.Result, cycle uint64) {
		i := r.Seq - base
		if i < 0 || i >= len(msgs) || msgs[i] == nil || answerErr != nil {
			return
		}
		frames, err := resp.Answer(msgs[i], r)
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
	if wo.Frames != nil && sent != nil {
		inner.OnIssue = func(seq int, cycle uint64) {
			for _, f := range sent[seq-base] {
				wo.Frames(Frame{Cycle: cycle, Data: f})
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
	if err := b.Stream(run, inner); err != nil {
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
	return b.StreamHostFeed(FeedOf(ops, opt.SeqBase), opt)
}

// StreamHostFeed is StreamHost over the operations of f, made as the host
// posts them (StreamFeed).
func (b *Bench) StreamHostFeed(f *Feed, opt RunOptions) (HostStats, error) {
	h := host.New(b.Mem)
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
