package sq

import (
	"encoding/binary"
	"fmt"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// The send queues' place in host memory and the doorbell register: what
// the driver and the device agree on when a QP is created (its QP
// context), fixed here for every QP.
const (
	// DoorbellAddr is the device's doorbell register (BAR 0, the first
	// UAR page's BlueFlame offset).
	DoorbellAddr = 0xf000_0800
	// SQRing is the basic blocks of every send queue (64 KiB).
	SQRing = 1024
	// sqRegion is where the send queues start: above every ICM address a
	// scenario can give (mtt_handle has 48 bits).
	sqRegion = 1 << 48
	// CQRing is the CQEs of every QP's completion queue (64 KiB).
	CQRing = 1024
	// cqRegion is where the completion queues start, above the send
	// queues and the host's UMR lists.
	cqRegion = 3 << 48
	// MaxBatch is the basic blocks one read of the send queue fetches at
	// most: the WQEs posted and announced, up to 512 bytes (the default
	// max_read_request).
	MaxBatch = 8
)

// SQBase is the host address of QP qpn's send queue.
func SQBase(qpn uint32) uint64 { return sqRegion + uint64(qpn)*SQRing*prm.SendWQEBB }

// SlotAddr is the host address of basic block index (a WQE index) of
// QP qpn's send queue.
func SlotAddr(qpn uint32, index uint16) uint64 {
	return SQBase(qpn) + uint64(index%SQRing)*prm.SendWQEBB
}

// CQEAddr is the host address of CQE index of QP qpn's completion queue.
func CQEAddr(qpn uint32, index uint32) uint64 {
	return cqRegion + uint64(qpn)*CQRing*prm.CQESize + uint64(index%CQRing)*prm.CQESize
}

// Ports are the unit's channels, made by the top.
type Ports struct {
	Doorbell *sim.Chan[pcie.TLP]
	Out      *sim.Chan[bus.WQE]
	// Done carries the ends of the work requests sent on Out, from the
	// top, in any order: the unit writes their CQEs.
	Done    *sim.Chan[bus.Completion]
	MemReq  *sim.Chan[pcie.ReadReq]
	MemResp *sim.Chan[pcie.ReadResp]
}

// Stats counts the front's work. Each field's tags are the counter's one
// definition (sim.Counter), under the group sq.
type Stats struct {
	Doorbells    uint64        `counter:"doorbells" unit:"MWr TLPs" help:"doorbells taken: MWr TLPs to the doorbell register"`
	BadDoorbells uint64        `counter:"bad_doorbells" unit:"MWr TLPs" help:"MWr TLPs to another address or of another length than the doorbell's 8 bytes, dropped"`
	WQEs         uint64        `counter:"wqes" unit:"WQEs" help:"WQEs read and sent to the top, the bad ones included (NOPs not)"`
	NOPs         uint64        `counter:"nops" unit:"WQEs" help:"NOP WQEs read and skipped (the host's padding at the end of a send queue)"`
	Fenced       uint64        `counter:"fenced" unit:"WQEs" help:"WQEs with a fence mode other than none: the model orders every WQE after a UMR or invalidate behind it (a device whose umr_fence is strong), so each is run in order as any other"`
	BadWQEs      uint64        `counter:"bad_wqes" unit:"WQEs" help:"WQEs that could not be read or parsed: sent with the reason, their operation fails"`
	ReadBytes    uint64        `counter:"read_bytes" unit:"bytes" help:"bytes of send queue and UMR lists read from host memory"`
	BusyCycles   sim.Occupancy `counter:"busy_cycles" unit:"cycles" kind:"occupancy" mean:"busy" help:"cycles the fetch engine served a doorbell (busy = busy_cycles / cycles)"`
	CQEs         uint64        `counter:"cqes" unit:"CQEs" help:"CQEs written to the host (MWr of 64 bytes to the QP's completion queue), one a work request, the error ones included"`
	ErrCQEs      uint64        `counter:"error_cqes" unit:"CQEs" help:"error CQEs written (REQ_ERR with the syndrome of the failure), of cqes"`
}

// State is the fetch engine's state.
type State uint8

// The states.
const (
	Idle     State = iota // no doorbell being served
	ReadHead              // to read the first basic block of the next WQE
	WaitHead              // waiting for it
	ReadRest              // to read the rest of a WQE longer than 64 bytes
	WaitRest              // waiting for it
	ReadList              // to read a UMR's list through its pointer
	WaitList              // waiting for it
	Emit                  // the parsed WQE waits for Out
	numStates
)

var stateNames = [numStates]string{"idle", "read_head", "wait_head", "read_rest", "wait_rest", "read_list", "wait_list", "emit"}

func (s State) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// StateEnum names the states in waveforms.
var StateEnum = func() *sim.Enum {
	e := &sim.Enum{Name: "sq_state", Width: 3, Names: map[uint64]string{}}
	for s := range numStates {
		e.Names[uint64(s)] = s.String()
	}
	return e
}()

// Unit is the send-queue front. The engine evaluates it only in the
// cycles something happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under sq
	name           string
	p              Ports
	state          State
	qpn            uint32            // the QP being served
	pi             uint16            // the producer counter its doorbell announced
	ci             map[uint32]uint16 // every QP's consumer counter
	ready          []doorbell        // the doorbells taken, not yet served, in order
	cqPI           map[uint32]uint32 // every QP's completion queue producer counter
	rqCI           map[uint32]uint16 // every QP's receive counter (wqe_counter of receive CQEs)
	cqQ            []bus.Completion  // CQEs waiting for the request port
	buf            []byte            // the WQE read so far
	wqe            bus.WQE           // the parsed WQE
	stats          Stats
}

// New makes the send-queue front.
func New(name string, p Ports) *Unit {
	u := &Unit{name: name, p: p, ci: map[uint32]uint16{}, cqPI: map[uint32]uint32{}, rqCI: map[uint32]uint16{}}
	u.CounterSet = sim.Declare("sq", &u.stats)
	return u
}

// doorbell is a doorbell taken: the QP and the producer counter it
// announces.
type doorbell struct {
	qpn uint32
	pi  uint16
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// Connections lists the channels the unit pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	return []sim.Port{u.p.Doorbell, u.p.MemResp, u.p.Done}, []sim.Port{u.p.Out, u.p.MemReq}
}

// Describe lists what the unit shows in its waveform scope: the fetch
// engine's state, the QP it serves, its producer and consumer counters
// and the opcode of the WQE read (sim.Described).
func (u *Unit) Describe() sim.Description {
	return sim.Description{Scope: u.name, Title: "send-queue front", Signals: []sim.Signal{
		{Name: "state", Enum: StateEnum}, {Name: "qpn", Width: 24, Format: sim.Hex},
		{Name: "pi", Width: 16}, {Name: "ci", Width: 16}, {Name: "opcode", Width: 8, Format: sim.Hex}},
		Sample: func(vs []uint64) {
			vs[0], vs[1], vs[2], vs[3], vs[4] = uint64(u.state), uint64(u.qpn), uint64(u.pi), uint64(u.ci[u.qpn]), uint64(u.wqe.Ctrl.Opcode)
		}}
}

// Stats returns the counters.
func (u *Unit) Stats() Stats { return u.stats }

// Eval runs one cycle of the fetch engine.
func (u *Unit) Eval(now uint64) bool {
	moves := u.Handshakes()
	u.doorbell()
	if u.p.Done.Valid() {
		u.cqQ = append(u.cqQ, *u.p.Done.Peek())
		u.p.Done.Pop()
	}
	if u.p.MemResp.Valid() && u.p.MemResp.Peek().ID == cqeID {
		u.p.MemResp.Pop() // a CQE written: nothing to wait for
	}
	switch u.state {
	case Idle:
		u.serve()
	case ReadHead:
		if u.p.MemReq.Ready() {
			// Every basic block announced, up to MaxBatch and the
			// queue's end, in one read.
			ci := u.ci[u.qpn]
			n := min(int(u.pi-ci), MaxBatch, SQRing-int(ci%SQRing))
			u.p.MemReq.Push(pcie.ReadReq{ID: readID, Addr: SlotAddr(u.qpn, ci), Len: n * prm.SendWQEBB})
			u.state = WaitHead
		}
	case WaitHead, WaitRest, WaitList:
		if u.p.MemResp.Valid() && u.p.MemResp.Peek().ID != cqeID {
			u.respond(u.p.MemResp.Peek())
			u.p.MemResp.Pop()
		}
	case ReadRest:
		if u.p.MemReq.Ready() {
			addr := SlotAddr(u.qpn, u.ci[u.qpn]) + uint64(len(u.buf))
			u.p.MemReq.Push(pcie.ReadReq{Addr: addr, Len: u.wqeBytes() - len(u.buf)})
			u.state = WaitRest
		}
	case ReadList:
		if u.p.MemReq.Ready() {
			n := int(u.wqe.UMR.UMR.TranslationOctwordActualSize) * prm.OctowordSize
			u.p.MemReq.Push(pcie.ReadReq{Addr: u.wqe.UMR.Pointer.Addr, Len: n})
			u.state = WaitList
		}
	case Emit:
		if u.p.Out.Ready() {
			u.p.Out.Push(u.wqe)
			u.stats.WQEs++
			if u.wqe.Ctrl.Fence != prm.FenceNone {
				u.stats.Fenced++
			}
			if u.wqe.Bad != "" {
				u.stats.BadWQEs++
			}
			u.next()
		}
	}
	u.writeCQE()
	if u.state != Idle {
		u.stats.BusyCycles.NoteN(now, 1)
	}
	// The states that act without an input move on by themselves.
	return u.state == ReadHead || u.state == ReadRest || u.state == ReadList || u.state == Emit ||
		u.state == Idle && len(u.ready) > 0 || len(u.cqQ) > 0 || u.Handshakes() != moves
}

// doorbell takes a doorbell, if one is there: the queue being served
// goes on to its producer counter, another waits its turn. A doorbell is
// never refused (a device must always take posted writes: a completion
// behind it on the link could not pass it otherwise). QPs are served in
// the order of their first waiting doorbell; each QP's WQEs leave in the
// order the host posted them.
func (u *Unit) doorbell() {
	if !u.p.Doorbell.Valid() {
		return
	}
	t := u.p.Doorbell.Peek()
	u.p.Doorbell.Pop()
	if t.Addr != DoorbellAddr || len(t.Data) != 8 {
		u.stats.BadDoorbells++
		return
	}
	u.stats.Doorbells++
	d0, d1 := binary.BigEndian.Uint32(t.Data), binary.BigEndian.Uint32(t.Data[4:])
	d := doorbell{qpn: d1 >> 8, pi: uint16(d0>>8) + uint16(prm.WQEBBs(uint8(d1&0x3f)))}
	if u.state != Idle && d.qpn == u.qpn {
		u.pi = d.pi // the queue being served goes on further
		return
	}
	u.ready = append(u.ready, d)
}

// serve starts serving the QP of the oldest waiting doorbell.
func (u *Unit) serve() {
	for len(u.ready) > 0 {
		d := u.ready[0]
		// Every doorbell of the same QP waiting is served with it: the
		// WQEs they announce follow in its send queue (the last one's
		// producer counter is the furthest).
		rest := u.ready[:0]
		for _, x := range u.ready[1:] {
			if x.qpn == d.qpn {
				d.pi = x.pi
			} else {
				rest = append(rest, x)
			}
		}
		u.ready = rest
		if d.pi != u.ci[d.qpn] {
			u.qpn, u.pi, u.state = d.qpn, d.pi, ReadHead
			return
		}
	}
}

// respond takes a read's answer: the first basic block, the rest of the
// WQE, or a UMR's list.
func (u *Unit) respond(r *pcie.ReadResp) {
	u.stats.ReadBytes += uint64(len(r.Data))
	if r.Status != pcie.SC {
		if u.state != WaitList {
			// What is known of the WQE: its control segment if the
			// first basic block came (buf is empty before it).
			u.wqe = bus.WQE{SQ: u.qpn, Ctrl: ctrlOf(u.buf)}
		}
		u.wqe.Bad = fmt.Sprintf("reading %d bytes at %#x: completion status %v", len(r.Data), r.Addr, r.Status)
		u.state = Emit
		return
	}
	switch u.state {
	case WaitHead:
		u.buf = append(u.buf[:0], r.Data...)
		u.parse()
	case WaitRest:
		u.buf = append(u.buf, r.Data...)
		u.parse()
	case WaitList:
		u.wqe.UMR.List = append([]byte(nil), r.Data...)
		u.state = Emit
	}
}

// wqeBytes is the size of the WQE whose first basic block is in buf: its
// DS in basic blocks (at least one).
func (u *Unit) wqeBytes() int {
	return max(prm.WQEBBs(u.buf[7]&0x3f), 1) * prm.SendWQEBB
}

// ctrlOf parses the control segment at the start of b, whatever its
// reserved bits hold (the WQE's parser reports them).
func ctrlOf(b []byte) prm.CtrlSeg {
	if len(b) < prm.CtrlSegSize {
		return prm.CtrlSeg{}
	}
	c, _ := prm.ParseCtrlSeg(b[:prm.CtrlSegSize])
	return c
}

// parse parses the WQE at the start of buf: one longer than buf holds
// reads its rest first, a NOP is skipped, a UMR whose list is not inline
// goes on to read it, anything else waits for Out.
func (u *Unit) parse() {
	if u.wqeBytes() > len(u.buf) {
		u.state = ReadRest
		return
	}
	ctrl := ctrlOf(u.buf)
	b := u.buf[:min(len(u.buf), max(int(ctrl.DS), 1)*prm.OctowordSize)]
	u.wqe = bus.WQE{SQ: u.qpn, Ctrl: ctrl}
	u.state = Emit
	var err error
	switch ctrl.Opcode {
	case prm.OpNOP:
		u.stats.NOPs++
		u.next()
		return
	case prm.OpUMR:
		u.wqe.UMR, err = prm.ParseUMRWQE(b)
		if err == nil && !u.wqe.UMR.UMR.Inline {
			switch err = prm.CheckUMRPointer(u.wqe.UMR.Pointer); {
			case err != nil:
			case u.wqe.UMR.UMR.TranslationOctwordActualSize > 0:
				u.state = ReadList
			}
		}
	default:
		u.wqe.Send, err = prm.ParseSendWQE(b)
	}
	if err != nil {
		u.wqe.Bad = err.Error()
		u.state = Emit
	}
}

// next moves the consumer counter past the WQE just served and parses
// the next one if the last read brought it, else reads it, or ends the
// doorbell.
func (u *Unit) next() {
	bbs := max(prm.WQEBBs(u.wqe.Ctrl.DS), 1)
	ci := u.ci[u.qpn] + uint16(bbs)
	u.ci[u.qpn] = ci
	u.buf = u.buf[min(len(u.buf), bbs*prm.SendWQEBB):]
	switch {
	case ci == u.pi:
		u.buf = u.buf[:0]
		u.state = Idle
	case len(u.buf) >= prm.SendWQEBB:
		u.parse()
	default:
		u.buf = u.buf[:0]
		u.state = ReadHead
	}
}

// The ReadReq IDs of the unit: its reads of WQEs and lists, and its CQE
// writes (whose answers it drops).
const (
	readID = 0
	cqeID  = 1
)

// writeCQE sends the oldest CQE waiting, when the request port is free
// this cycle (the fetch engine's reads go first).
func (u *Unit) writeCQE() {
	if len(u.cqQ) == 0 || !u.p.MemReq.Ready() {
		return
	}
	c := u.cqQ[0]
	u.cqQ = u.cqQ[1:]
	pi := u.cqPI[c.QPN]
	u.cqPI[c.QPN] = pi + 1
	owner := (pi/CQRing)&1 == 1
	b := make([]byte, prm.CQESize)
	switch {
	case c.Recv:
		idx := u.rqCI[c.QPN]
		u.rqCI[c.QPN] = idx + 1
		if c.Status == prm.OK {
			cqe := prm.CQE{ImmInvalPKey: uint32(c.Key), QPN: c.QPN, WQECounter: idx, Opcode: prm.CQERespSendInv, Owner: owner}
			cqe.Put(b)
		} else {
			e := prm.ErrCQE{Syndrome: prm.SyndromeRemoteInvalReqErr, VendorErrSynd: uint8(c.Status), QPN: c.QPN,
				WQECounter: idx, Opcode: prm.CQERespErr, Owner: owner}
			e.Put(b)
			u.stats.ErrCQEs++
		}
	case c.Status == prm.OK:
		cqe := prm.CQE{ByteCnt: c.Bytes, SWQEOpcode: c.Opcode, QPN: c.QPN, WQECounter: c.WQEIndex, Opcode: prm.CQEReq, Owner: owner}
		cqe.Put(b)
	default:
		e := prm.ErrCQE{Syndrome: Syndrome(c.Opcode, c.Status), VendorErrSynd: uint8(c.Status), SWQEOpcode: c.Opcode, QPN: c.QPN,
			WQECounter: c.WQEIndex, Opcode: prm.CQEReqErr, Owner: owner}
		e.Put(b)
		u.stats.ErrCQEs++
	}
	u.p.MemReq.Push(pcie.ReadReq{ID: cqeID, Addr: CQEAddr(c.QPN, pi), Len: prm.CQESize, Write: true, Data: b})
	u.stats.CQEs++
}

// A receive completion (a SEND with invalidate from the wire) is
// RESP_SEND_INV with the key it invalidated in imm_inval_pkey and the
// QP's receive counter in wqe_counter, or, when the invalidation failed,
// RESP_ERR with syndrome REMOTE_INVAL_REQ_ERR.

// Syndrome is the error CQE's syndrome for a work request of opcode op
// that ended with status st (docs/host.md): a failed key check of a
// SEND's or RDMA READ's data segment is a local protection error; a
// UMR or local invalidate that is refused, a local QP operation error.
// The error CQE's vendor_err_synd carries the model's status.
func Syndrome(op prm.Opcode, st prm.Status) prm.CQESyndrome {
	if op == prm.OpUMR {
		return prm.SyndromeLocalQPOpErr
	}
	return prm.SyndromeLocalProtErr
}
