package wire

import (
	"fmt"
	"net"
	"net/netip"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// This file is the two RoCEv2 ends of the testbench's wire front
// (docs/wire.md, tb.FrontWire), which turn scenario operations into
// packets and back: a remote requester that sends the operations a wire
// can carry as packets, and the responder in front of the model that
// parses them into the translations and invalidations the model handles
// and answers each with the acknowledgement, read response or NAK the
// InfiniBand specification gives it.

// The two ends' addresses (docs/wire.md): the remote requester's and
// the model's (the responder's), locally administered MACs and
// documentation IPv4 addresses (TEST-NET-1).
var (
	peerMAC = [6]byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
	peerIP  = netip.AddrFrom4([4]byte{192, 0, 2, 1})
	nicMAC  = [6]byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}
	nicIP   = netip.AddrFrom4([4]byte{192, 0, 2, 2})
)

// hwAddr makes a hardware address of its own from a.
func hwAddr(a [6]byte) net.HardwareAddr { return net.HardwareAddr(a[:]) }

// The wire's parameters: the path MTU, and the largest message the wire
// front carries (a larger one is sent to the model directly: its packets
// would make a capture of gigabytes).
const (
	// PathMTU is the payload bytes of one packet of a message.
	PathMTU = 4096
	// MaxMessage is the largest message length the wire front sends
	// as packets (256 packets of PathMTU).
	MaxMessage = 1 << 20
	// peerQPFlip makes the requester's QPN from the responder's: the
	// responses carry it as their destination QP.
	peerQPFlip = 0x800000
	// rnrTimer is the RNR NAK's timer field (IBA 9.7.5.2.8: 0x0e is
	// 1.28 ms), sent while an on-demand-paging fault is resolved.
	rnrTimer = 0x0e
	// credits is the AETH credit field of an ACK: 0x1f, no credit count
	// (the responder does not do end-to-end flow control).
	credits = 0x1f
)

// Carries reports whether a wire can carry op: a remote read, write or
// atomic access (an atomic of 8 bytes, the only length an AtomicETH
// names) of at most MaxMessage bytes, or a SEND with invalidate.
func Carries(op *scenario.Op) bool {
	switch op.Kind {
	case scenario.OpSendWithInvalidate:
		return true
	case scenario.OpAccess:
		a := &op.Access
		switch a.Type {
		case prm.RemoteRead, prm.RemoteWrite:
			return a.Len <= MaxMessage
		case prm.RemoteAtomic:
			return a.Len == 8
		}
	}
	return false
}

// zeroPayload is the data of every packet the requester and the
// responder send: the model moves no data, so a packet carries zeros.
// Build copies it and nothing writes it.
var zeroPayload [PathMTU]byte

// MessagePackets is the number of packets of a message of n payload
// bytes: the PSNs a WRITE or a READ's responses take.
func MessagePackets(n uint32) uint32 { return max(1, (n+PathMTU-1)/PathMTU) }

// Requester is the remote end that sends requests to the model's QPs.
type Requester struct {
	psn map[uint32]uint32 // next PSN, by the responder's QPN
}

// NewRequester returns a requester whose every QP starts at PSN 0.
func NewRequester() *Requester { return &Requester{psn: map[uint32]uint32{}} }

// Send returns the frames of the request message that carries op (which
// Carries), and advances the QP's PSN by the packets the message
// takes (a read request: by its response packets).
func (r *Requester) Send(op *scenario.Op) ([][]byte, error) {
	if !Carries(op) {
		return nil, fmt.Errorf("wire: a %s cannot travel as RoCEv2 packets", op.Kind)
	}
	qpn := op.QP()
	p := Packet{SrcMAC: hwAddr(peerMAC), DstMAC: hwAddr(nicMAC), SrcIP: peerIP, DstIP: nicIP, TTL: 64,
		SrcPort: 0xc000 | uint16(qpn&0x3fff), PKey: 0xffff, DestQP: qpn, PSN: r.psn[qpn]}
	var out [][]byte
	emit := func(p *Packet) error {
		f, err := Build(p)
		out = append(out, f)
		return err
	}
	n := uint32(1)
	switch {
	case op.Kind == scenario.OpSendWithInvalidate:
		p.Opcode, p.AckReq, p.InvalidateKey = OpSendOnlyInvalidate, true, op.Key
		if err := emit(&p); err != nil {
			return nil, err
		}
	case op.Access.Type == prm.RemoteRead:
		a := &op.Access
		p.Opcode, p.AckReq, p.VA, p.RKey, p.DMALength = OpRDMAReadRequest, true, a.Addr, a.Key, a.Len
		if err := emit(&p); err != nil {
			return nil, err
		}
		n = MessagePackets(a.Len)
	case op.Access.Type == prm.RemoteAtomic:
		a := &op.Access
		p.Opcode, p.AckReq, p.VA, p.RKey, p.SwapAdd = OpFetchAdd, true, a.Addr, a.Key, 1
		if err := emit(&p); err != nil {
			return nil, err
		}
	default: // RDMA WRITE: FIRST (with the RETH), MIDDLE..., LAST, or ONLY
		a := &op.Access
		n = MessagePackets(a.Len)
		left := a.Len
		for i := uint32(0); i < n; i++ {
			q := p
			q.PSN = (p.PSN + i) & 0xffffff
			q.Payload = zeroPayload[:min(left, PathMTU)]
			left -= uint32(len(q.Payload))
			switch {
			case n == 1:
				q.Opcode = OpRDMAWriteOnly
			case i == 0:
				q.Opcode = OpRDMAWriteFirst
			case i == n-1:
				q.Opcode = OpRDMAWriteLast
			default:
				q.Opcode = OpRDMAWriteMiddle
			}
			if i == 0 {
				q.VA, q.RKey, q.DMALength = a.Addr, a.Key, a.Len
			}
			q.AckReq = i == n-1
			if err := emit(&q); err != nil {
				return nil, err
			}
		}
	}
	r.psn[qpn] = (p.PSN + n) & 0xffffff
	return out, nil
}

// Message is a request message the responder parsed from its first
// packet: the operation it asks of the model and what the answer needs.
type Message struct {
	Op      scenario.Op
	Opcode  Opcode // the first packet's
	PSN     uint32 // the first packet's
	Packets uint32 // the PSNs the message takes (a read: its responses)
}

// Responder is the model's side of the wire: it parses request packets
// into operations and answers their results.
type Responder struct {
	expect map[uint32]uint32 // next PSN expected, by QPN
	msn    map[uint32]uint32 // message sequence number, by QPN
	// Skipped counts the packets that start no message: the rest of a
	// multi-packet WRITE, retransmissions, the responder's own answers
	// (in a capture of both directions) and requests the model does not
	// translate (a SEND without invalidate).
	Skipped int
}

// NewResponder returns a responder that takes the first PSN each QP
// sends as its start.
func NewResponder() *Responder {
	return &Responder{expect: map[uint32]uint32{}, msn: map[uint32]uint32{}}
}

// Receive parses one packet. It returns the message a request's first
// packet starts (an RDMA WRITE FIRST or ONLY, READ request, atomic, or
// SEND with invalidate), or nil for a packet that starts none (counted in
// Skipped). A request whose first packet is malformed for its opcode (an
// RDMA WRITE longer than its DMA length says, a DMA length beyond 32
// bits) is an error.
func (r *Responder) Receive(s *Summary) (*Message, error) {
	qpn := s.DestQP
	m := &Message{Opcode: s.Opcode, PSN: s.PSN, Packets: 1}
	acc := func(t prm.AccessType, n uint32) {
		m.Op = scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: qpn, Key: s.RKey, Addr: s.VA, Len: n, Type: t}}
	}
	switch s.Opcode {
	case OpRDMAWriteFirst, OpRDMAWriteOnly, OpRDMAWriteOnlyImm:
		acc(prm.RemoteWrite, s.DMALength)
		m.Packets = MessagePackets(s.DMALength)
		if s.Opcode != OpRDMAWriteFirst && uint32(len(s.Payload)) != s.DMALength {
			return nil, fmt.Errorf("%v to QP 0x%x, PSN %d: %d payload bytes, the RETH's DMA length is %d", s.Opcode, qpn, s.PSN, len(s.Payload), s.DMALength)
		}
	case OpRDMAReadRequest:
		acc(prm.RemoteRead, s.DMALength)
		m.Packets = MessagePackets(s.DMALength)
	case OpFetchAdd, OpCompareSwap:
		acc(prm.RemoteAtomic, 8)
	case OpSendOnlyInvalidate, OpSendLastInvalidate:
		m.Op = scenario.Op{Kind: scenario.OpSendWithInvalidate, QPN: qpn, Key: s.InvalidateKey}
	default:
		r.Skipped++
		return nil, nil
	}
	if want, ok := r.expect[qpn]; ok && s.PSN != want && (want-s.PSN)&0xffffff < 1<<23 {
		// An earlier PSN: a retransmission of a message already taken.
		r.Skipped++
		return nil, nil
	}
	r.expect[qpn] = (s.PSN + m.Packets) & 0xffffff
	return m, nil
}

// Answer returns the frames the responder sends for m's result: an ACK,
// the read response packets or the atomic acknowledgement when it is OK,
// an RNR NAK on a page fault (the answer follows the resume), else the
// NAK of NAKFor.
func (r *Responder) Answer(m *Message, res *scenario.Result) ([][]byte, error) {
	qpn := m.Op.QP()
	p := Packet{SrcMAC: hwAddr(nicMAC), DstMAC: hwAddr(peerMAC), SrcIP: nicIP, DstIP: peerIP, TTL: 64,
		SrcPort: 0xc000 | uint16(qpn&0x3fff), PKey: 0xffff, DestQP: qpn ^ peerQPFlip, PSN: m.PSN,
		Opcode: OpAcknowledge, MSN: r.msn[qpn]}
	one := func() ([][]byte, error) {
		f, err := Build(&p)
		return [][]byte{f}, err
	}
	switch {
	case res.Status == prm.PageFault:
		p.Syndrome = RNRNAK(rnrTimer)
		return one()
	case res.Status != prm.OK:
		p.Syndrome = NAK(NAKFor(m.Op.Kind, res.Status))
		return one()
	}
	r.msn[qpn] = (r.msn[qpn] + 1) & 0xffffff
	p.MSN, p.Syndrome = r.msn[qpn], ACK(credits)
	switch m.Opcode {
	case OpRDMAReadRequest:
		var out [][]byte
		left := m.Op.Access.Len
		for i := uint32(0); i < m.Packets; i++ {
			q := p
			q.PSN = (m.PSN + i) & 0xffffff
			q.Payload = zeroPayload[:min(left, PathMTU)]
			left -= uint32(len(q.Payload))
			switch {
			case m.Packets == 1:
				q.Opcode = OpRDMAReadResponseOnly
			case i == 0:
				q.Opcode = OpRDMAReadResponseFirst
			case i == m.Packets-1:
				q.Opcode = OpRDMAReadResponseLast
			default:
				q.Opcode = OpRDMAReadResponseMiddle
				q.Syndrome, q.MSN = 0, 0 // a middle response has no AETH
			}
			f, err := Build(&q)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		return out, nil
	case OpFetchAdd, OpCompareSwap:
		p.Opcode = OpAtomicAcknowledge
	default:
		p.PSN = (m.PSN + m.Packets - 1) & 0xffffff // the last packet's
	}
	return one()
}

// NAKFor is the NAK code the responder sends for a failed operation of
// kind k with status st (docs/wire.md): a failed SEND with invalidate is
// an Invalid Request (the InfiniBand specification's class J responder
// error), a misaligned atomic too (as soft-RoCE answers it); a key,
// protection, range, rights or translation failure is a Remote Access
// Error; anything else (a request the responder cannot serve, as one to
// an unknown QP) a Remote Operational Error.
func NAKFor(k scenario.OpKind, st prm.Status) NAKCode {
	switch {
	case k == scenario.OpSendWithInvalidate:
		return NAKInvalidRequest
	case st == prm.MisalignedAtomic:
		return NAKInvalidRequest
	case st == prm.BadParam:
		return NAKRemoteOperationalError
	}
	return NAKRemoteAccessError
}
