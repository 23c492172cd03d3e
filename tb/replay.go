package tb

import (
	"fmt"

	"mkeysim/scenario"
	"mkeysim/tb/wire"
)

// Replay is a capture's requests parsed by the responder, placed among a
// scenario's operations, ready to run (Bench.StreamReplay).
type Replay struct {
	// Ops are the operations to run: the scenario's, with the ones a wire
	// carries replaced by the capture's messages in order, or, for a
	// scenario without operations, the capture's messages alone.
	Ops  []scenario.Op
	msgs []*Message
	sent [][][]byte // the captured packets of each message
	// Messages and Skipped count the capture's packets that started a
	// message and those that started none (Responder.Skipped).
	Messages, Skipped int
}

// NewReplay parses the packets of a capture (in file order) with a fresh
// responder and places their messages among ops (see Replay.Ops). A
// packet with a wrong ICRC, a malformed request, or a capture whose
// messages do not fill the places of the operations a wire carries in
// ops exactly, is an error naming the packet or both counts.
func NewReplay(ops []scenario.Op, pkts []wire.Captured) (*Replay, error) {
	resp := NewResponder()
	var msgs []*Message
	var sent [][][]byte
	lastOn := map[uint32]int{} // the message each QP's packets continue
	for k := range pkts {
		p := &pkts[k]
		if !p.ICRCOK {
			return nil, fmt.Errorf("packet %d: ICRC 0x%08x is wrong (a NIC drops such a packet)", p.Number, p.ICRC)
		}
		m, err := resp.Receive(&p.Summary)
		if err != nil {
			return nil, fmt.Errorf("packet %d: %v", p.Number, err)
		}
		if m == nil {
			if i, ok := lastOn[p.DestQP]; ok && isWriteMore(p.Opcode) {
				sent[i] = append(sent[i], p.Data)
			}
			continue
		}
		lastOn[p.DestQP] = len(msgs)
		msgs = append(msgs, m)
		sent = append(sent, [][]byte{p.Data})
	}
	r := &Replay{Messages: len(msgs), Skipped: resp.Skipped}
	if len(ops) == 0 {
		r.Ops = make([]scenario.Op, len(msgs))
		for i, m := range msgs {
			r.Ops[i] = m.Op
		}
		r.msgs, r.sent = msgs, sent
		return r, nil
	}
	r.Ops = make([]scenario.Op, len(ops))
	r.msgs = make([]*Message, len(ops))
	r.sent = make([][][]byte, len(ops))
	next := 0
	places := 0
	for i := range ops {
		if !WireCarries(&ops[i]) {
			r.Ops[i] = ops[i]
			continue
		}
		places++
		if next < len(msgs) {
			r.Ops[i], r.msgs[i], r.sent[i] = msgs[next].Op, msgs[next], sent[next]
			next++
		}
	}
	if places != len(msgs) {
		return nil, fmt.Errorf("the capture holds %d request messages, the scenario has %d operations a wire carries to take them", len(msgs), places)
	}
	return r, nil
}

// isWriteMore reports whether op continues an RDMA WRITE.
func isWriteMore(op wire.Opcode) bool {
	switch op {
	case wire.OpRDMAWriteMiddle, wire.OpRDMAWriteLast, wire.OpRDMAWriteLastImm:
		return true
	}
	return false
}

// StreamReplay runs r as StreamWire runs a scenario: wo.Frames gets the
// captured request packets in the cycle the model takes their operation,
// and the responder's answers.
func (b *Bench) StreamReplay(r *Replay, opt RunOptions, wo WireOptions) (WireStats, error) {
	st := WireStats{Skipped: r.Skipped}
	w := newWireRun(b, wo.Frames != nil)
	for i, m := range r.msgs {
		if m != nil {
			st.Messages++
			st.Requests += len(r.sent[i])
			w.add(opt.SeqBase+i, m, r.sent[i])
		}
	}
	err := b.streamMessages(FeedOf(r.Ops, opt.SeqBase), w, NewResponder(), opt, wo, &st)
	return st, err
}
