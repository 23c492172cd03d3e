// Package host is the host of the testbench's host front (docs/host.md):
// the driver that writes send-queue WQEs into host memory in the mlx5
// layout and the CPU that rings their doorbells with an MWr TLP to the
// device, which the model's send-queue front (rtl/sq) answers by reading
// and parsing them; and the driver's side of the completions: it reads
// the completion queues back and checks each CQE against the result.
package host

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/rtl/pcie"
	"mkeysim/scenario"
)

// listRegion is where the host puts the UMR lists it does not inline
// (2 KiB aligned): above the send queues (rtl.SQSlotAddr).
const listRegion = 2 << 48

// Host posts WQEs: per QP its producer counter, and the next list
// buffer; it remembers each WQE to check its CQE.
type Host struct {
	mem      *pcie.Memory
	pi       map[uint32]uint16
	nextList uint64
	posted   map[int]postedWQE // by operation number
	// cqs is, per QP, the work requests whose CQEs are not checked yet,
	// in the order their results came: the order of their CQEs.
	cqs    map[uint32]*cqState
	recvs  map[uint32]uint16 // receive CQEs checked (their wqe_counter), by QP
	cqInit map[uint32]bool   // QPs whose completion queue is filled
	// WQEs, NOPs and Doorbells count the WQEs posted, the NOPs that pad
	// a send queue's end, and the doorbells rung; CQEs and ErrorCQEs the
	// CQEs polled and checked and the error ones among them.
	WQEs, NOPs, Doorbells int
	CQEs, ErrorCQEs       int
	// UMRFence is the device's umr_fence (hca_cap.umr_fence): a WQE
	// without its own fence mode gets the Linux driver's (Fence);
	// afterReg is, by QP, whether its last WQE was a UMR or local
	// invalidate.
	UMRFence prm.UMRFenceCap
	afterReg map[uint32]bool
}

// Pass notes that op, in posting order, went to the model (Post calls
// it; the testbench calls it for an operation the host does not carry):
// a WQE the host posts next follows a registration or not, as the
// driver's next_fence says.
func (h *Host) Pass(op *scenario.Op) {
	if op.IsWQE() {
		h.afterReg[op.QP()] = op.IsRegistration()
	}
}

// Fence is the fence mode the host posts op's WQE with: the scenario's,
// else the Linux driver's for the device (prm.KernelUMRFence on a UMR or
// local invalidate, KernelNextFence on the WQE after one: see
// prm/fence.go for where the kernel does it).
func (h *Host) Fence(op *scenario.Op) prm.FenceMode {
	return op.FenceMode(h.UMRFence, h.afterReg[op.QP()])
}

// postedWQE is a WQE the host posted, or (recv) a SEND with invalidate
// that came from the wire, whose receive CQE names key.
type postedWQE struct {
	qpn    uint32
	index  uint16
	opcode prm.Opcode
	recv   bool
	key    prm.Key
}

// cqState is a QP's work requests that ended and whose CQEs are not
// checked yet: a run of any length keeps only those in flight.
type cqState struct {
	ends  []ended
	first int // the CQE number of ends[0]: the CQEs before it are checked
}

// ended is a posted WQE whose result came, with its status.
type ended struct {
	postedWQE
	seq    int
	status prm.Status
}

// New returns a host over host memory mem, every queue empty.
func New(mem *pcie.Memory) *Host {
	return &Host{mem: mem, pi: map[uint32]uint16{}, nextList: listRegion, posted: map[int]postedWQE{}, cqs: map[uint32]*cqState{},
		recvs: map[uint32]uint16{}, cqInit: map[uint32]bool{}, afterReg: map[uint32]bool{}}
}

// Carries reports whether the host front sends op as a WQE: a local
// read (a SEND's gather) or write (an RDMA READ's scatter) of less than
// 2 GiB (a data segment's byte count has 31 bits), a local invalidate, or
// a UMR a WQE can say. A UMR's list carries no type (the device reads it
// under the key's access mode), so a UMR with a list travels only when it
// sets the access mode and its list is of that mode's type; and a UMR that
// frees its key with nothing else is, as a WQE, a local invalidate.
// Everything else (commands, remote accesses) goes to the model directly.
func Carries(op *scenario.Op) bool {
	switch op.Kind {
	case scenario.OpAccess:
		a := &op.Access
		return (a.Type == prm.LocalRead || a.Type == prm.LocalWrite) && a.Len&prm.InlineSegFlag == 0
	case scenario.OpLocalInvalidate:
		return true
	case scenario.OpUMR:
		u := op.UMR
		if len(u.MTT)+len(u.KLM) > 0 {
			if u.Mask&prm.MaskAccessMode == 0 {
				return false
			}
			switch u.Image.AccessMode {
			case prm.ModeMTT:
				if len(u.KLM) > 0 {
					return false
				}
			case prm.ModeKLM, prm.ModeFixedBufferSize:
				if len(u.MTT) > 0 {
					return false
				}
			default:
				return false
			}
		}
		w := umrWQE(u, 0, 0)
		return !w.IsLocalInvalidate() && u.Offset <= prm.MaxTranslationOffset
	}
	return false
}

// umrWQE lays out u as a UMR WQE at index, its list inline when it is 64
// bytes or less, else named by a pointer to listAddr.
func umrWQE(u *scenario.UMR, index uint16, listAddr uint64) prm.UMRWQE {
	w := prm.UMRWQE{Ctrl: prm.CtrlSeg{Opcode: prm.OpUMR, WQEIndex: index, QPN: u.QPN, Imm: uint32(u.Key), CE: prm.CompAlways,
		Fence: prm.FenceStrongOrdering},
		UMR: prm.UMRCtrl{Inline: true, CheckFree: u.CheckFree, MKeyMask: u.Mask}, MKC: u.Image}
	if u.Offset != 0 {
		w.UMR.TranslationOffsetEn, w.UMR.TranslationOffset = true, u.Offset
	}
	list := umrList(u)
	w.UMR.TranslationOctwordActualSize = uint16(len(list) / prm.OctowordSize)
	switch {
	case len(list) == 0:
	case len(list) <= prm.UMRListAlign:
		w.List = list
	default:
		w.UMR.Inline = false
		w.Pointer = prm.DataSeg{ByteCount: uint32(len(list)), Addr: listAddr}
	}
	return w
}

// umrList is u's list as the WQE carries it: padded to 64 bytes.
func umrList(u *scenario.UMR) []byte {
	switch {
	case len(u.MTT) > 0:
		return prm.MTTList(u.MTT)
	case len(u.KLM) > 0:
		return prm.KLMList(u.KLM)
	}
	return nil
}

// Post writes operation seq's WQE (op, which Carries) into its QP's send
// queue, with
// NOPs first if it would run past the queue's end, and returns the
// doorbell: the MWr of the first 8 bytes of its control segment to the
// device's doorbell register.
func (h *Host) Post(seq int, op *scenario.Op) (pcie.TLP, error) {
	qpn := op.QP()
	var b []byte
	var listAt uint64 // a UMR's list that is not inline
	if op.Kind == scenario.OpUMR {
		if list := umrList(op.UMR); len(list) > prm.UMRListAlign {
			listAt = h.nextList
			h.nextList += (uint64(len(list)) + prm.UMRPointerAlign - 1) &^ (prm.UMRPointerAlign - 1)
			h.mem.Write(listAt, list)
		}
	}
	fence := h.Fence(op)
	build := func(index uint16) error {
		ctrl := prm.CtrlSeg{WQEIndex: index, QPN: qpn, CE: prm.CompAlways, Fence: fence}
		switch op.Kind {
		case scenario.OpAccess:
			a := &op.Access
			ctrl.Opcode = prm.OpSend
			if a.Type == prm.LocalWrite {
				ctrl.Opcode = prm.OpRDMARead
			}
			w := prm.SendWQE{Ctrl: ctrl, Data: []prm.DataSeg{{ByteCount: a.Len, LKey: a.Key, Addr: a.Addr}}}
			if _, err := w.DS(); err != nil {
				return err
			}
			b = w.Append(b[:0])
		case scenario.OpLocalInvalidate:
			ctrl.Imm = uint32(op.Key)
			b = prm.LocalInvWQE{Ctrl: ctrl}.Append(b[:0])
		case scenario.OpUMR:
			w := umrWQE(op.UMR, index, listAt)
			w.Ctrl.Fence = fence
			if _, err := w.DS(); err != nil {
				return err
			}
			b = w.Append(b[:0])
		default:
			return fmt.Errorf("a %v does not travel as a WQE", op.Kind)
		}
		return nil
	}
	h.initCQ(qpn)
	pi := h.pi[qpn]
	if err := build(pi); err != nil {
		return pcie.TLP{}, err
	}
	bbs := uint16((len(b) + prm.SendWQEBB - 1) / prm.SendWQEBB)
	// A WQE does not wrap around the queue's end: NOPs fill it.
	for pi%rtl.SQRing+bbs > rtl.SQRing {
		nop := prm.CtrlSeg{Opcode: prm.OpNOP, WQEIndex: pi, QPN: qpn, DS: 1}
		var blk [prm.SendWQEBB]byte
		nop.Put(blk[:])
		h.mem.Write(rtl.SQSlotAddr(qpn, pi), blk[:])
		pi++
		h.NOPs++
	}
	if err := build(pi); err != nil { // at its final index
		return pcie.TLP{}, err
	}
	h.mem.Write(rtl.SQSlotAddr(qpn, pi), b)
	h.posted[seq] = postedWQE{qpn: qpn, index: pi, opcode: prm.Opcode(b[3])}
	h.pi[qpn] = pi + bbs
	h.WQEs++
	h.Pass(op)
	h.Doorbells++
	return pcie.NewWrite(0, rtl.DoorbellAddr, b[:8]), nil
}

// Result notes the result of operation r.Seq (and of the accesses a
// resume ran again): a posted WQE's ends, unless it faulted.
func (h *Host) Result(r *scenario.Result) {
	end := func(r *scenario.Result) {
		p, ok := h.posted[r.Seq]
		if !ok || r.Status == prm.PageFault {
			return
		}
		delete(h.posted, r.Seq)
		q := h.cqs[p.qpn]
		if q == nil {
			q = &cqState{}
			h.cqs[p.qpn] = q
		}
		q.ends = append(q.ends, ended{postedWQE: p, seq: r.Seq, status: r.Status})
	}
	end(r)
	for i := range r.Resumed {
		end(&r.Resumed[i])
	}
}

// Poll reads the CQEs that have landed in every QP's completion queue
// since the last poll, as a driver polls: a CQE is there when its opcode
// is not INVALID and its owner bit is the parity of its pass (the host
// fills each queue with INVALID CQEs of owner 1 before its first work).
// Each must be, in order, the CQE of the next work request that ended on
// that QP: the QPN, the WQE index and opcode, REQ for success or REQ_ERR
// with the syndrome of the status (and the status in vendor_err_synd);
// for a SEND with invalidate from the wire, RESP_SEND_INV naming its key
// or RESP_ERR. An error names the QP and the CQE.
func (h *Host) Poll() error {
	for qpn, q := range h.cqs {
		if err := h.poll(qpn, q); err != nil {
			return err
		}
	}
	return nil
}

// poll checks the CQEs of QP qpn that have landed, in order, and drops
// the work requests they check, even when one is wrong.
func (h *Host) poll(qpn uint32, q *cqState) error {
	i := 0
	defer func() {
		q.ends = q.ends[:copy(q.ends, q.ends[i:])]
		q.first += i
	}()
	for ; i < len(q.ends); i++ {
		k := q.first + i
		var b [prm.CQESize]byte
		h.mem.Read(rtl.CQEAddr(qpn, uint32(k)), b[:])
		if !landed(b[:], k) {
			return nil
		}
		if err := h.check(qpn, k, b[:], q.ends[i]); err != nil {
			return err
		}
		h.CQEs++
	}
	return nil
}

// landed reports whether CQE slot k holds the CQE of pass k/CQRing.
func landed(b []byte, k int) bool {
	opOwn := b[prm.CQESize-1]
	return opOwn>>4 != uint8(prm.CQEInvalid) && opOwn&1 == byte(k/rtl.CQRing&1)
}

// check checks CQE k of QP qpn, b, against the work request e.
func (h *Host) check(qpn uint32, k int, b []byte, e ended) error {
	op, perr := prm.PeekCQEOpcode(b)
	where := fmt.Sprintf("QP %#x CQE %d (operation %d, WQE %d, %v)", qpn, k, e.seq, e.index, e.status)
	switch {
	case perr != nil:
		return fmt.Errorf("%s: %v", where, perr)
	case e.recv && e.status == prm.OK:
		c, err := prm.ParseCQE(b)
		if err != nil || op != prm.CQERespSendInv || c.QPN != qpn || c.WQECounter != h.recvs[qpn] || c.ImmInvalPKey != uint32(e.key) {
			return fmt.Errorf("%s: %+v (%v), want a RESP_SEND_INV CQE naming key %v", where, c, err, e.key)
		}
		h.recvs[qpn]++
	case e.recv:
		c, err := prm.ParseErrCQE(b)
		if err != nil || op != prm.CQERespErr || c.QPN != qpn || c.WQECounter != h.recvs[qpn] || c.Syndrome != prm.SyndromeRemoteInvalReqErr || c.VendorErrSynd != uint8(e.status) {
			return fmt.Errorf("%s: %+v (%v), want a RESP_ERR CQE", where, c, err)
		}
		h.recvs[qpn]++
		h.ErrorCQEs++
	case e.status == prm.OK:
		c, err := prm.ParseCQE(b)
		if err != nil || op != prm.CQEReq || c.QPN != qpn || c.WQECounter != e.index || c.SWQEOpcode != e.opcode {
			return fmt.Errorf("%s: %+v (%v), want a REQ CQE", where, c, err)
		}
	default:
		c, err := prm.ParseErrCQE(b)
		if err != nil || op != prm.CQEReqErr || c.QPN != qpn || c.WQECounter != e.index || c.SWQEOpcode != e.opcode ||
			c.Syndrome != rtl.CQESyndrome(e.opcode, e.status) || c.VendorErrSynd != uint8(e.status) {
			return fmt.Errorf("%s: %+v (%v), want a REQ_ERR CQE with syndrome %v", where, c, err, rtl.CQESyndrome(e.opcode, e.status))
		}
		h.ErrorCQEs++
	}
	return nil
}

// CheckCQEs polls once more and checks that every work request that
// ended has its CQE and that no CQE follows the last.
func (h *Host) CheckCQEs() error {
	if err := h.Poll(); err != nil {
		return err
	}
	for qpn, q := range h.cqs {
		if len(q.ends) > 0 {
			e := &q.ends[0]
			return fmt.Errorf("QP %#x CQE %d (operation %d, WQE %d, %v): not written", qpn, q.first, e.seq, e.index, e.status)
		}
		var b [prm.CQESize]byte
		h.mem.Read(rtl.CQEAddr(qpn, uint32(q.first)), b[:])
		if landed(b[:], q.first) {
			return fmt.Errorf("QP %#x: a CQE after the %d of the work requests that ended", qpn, q.first)
		}
	}
	return nil
}

// initCQ fills QP qpn's completion queue with INVALID CQEs of owner 1,
// once, before its first work: what a driver does when it makes a CQ.
func (h *Host) initCQ(qpn uint32) {
	if h.cqInit[qpn] {
		return
	}
	h.cqInit[qpn] = true
	var b [prm.CQESize]byte
	b[prm.CQESize-1] = uint8(prm.CQEInvalid)<<4 | 1
	for k := 0; k < rtl.CQRing; k++ {
		h.mem.Write(rtl.CQEAddr(qpn, uint32(k)), b[:])
	}
}

// Ended is the number of work requests that ended (each has a CQE).
func (h *Host) Ended() int {
	n := 0
	for _, q := range h.cqs {
		n += q.first + len(q.ends)
	}
	return n
}

// ExpectRecv notes that operation seq is a SEND with invalidate from the
// wire on QP qpn: its end has a receive CQE naming key.
func (h *Host) ExpectRecv(seq int, qpn uint32, key prm.Key) {
	h.initCQ(qpn)
	h.posted[seq] = postedWQE{qpn: qpn, recv: true, key: key}
}
