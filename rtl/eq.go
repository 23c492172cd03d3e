package rtl

import (
	"encoding/binary"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// This file is the pages event queue (issue 37 part 1). Under
// host.page_policy on_event or capped the firmware reports a Pages
// Request Event as the PRM says: it writes an EQE (prm.PageRequestEQE:
// num_pages > 0 to ask pages, < 0 to give pages back) to the event queue
// in host memory (prm.PagesEQ, prm.PagesEQEntries entries, the owner bit
// the parity of its pass) and then the queue's MSI-X message, two posted
// writes through the requester, so that the message cannot pass the
// entry. The command waits in state PAGES until the host's MANAGE_PAGES
// answer comes on PagesAnswer. Under eager the host is taken to have
// answered already: no entry is written and nothing waits.

// PagesVector is the MSI-X data of the pages event queue's interrupt.
const PagesVector = 0

// eventQueue is the top's side of the pages event queue: the requester
// client its writes go through and the port of the host's answers.
type eventQueue struct {
	req    *sim.Chan[pcie.ReadReq]
	resp   *sim.Chan[pcie.ReadResp]
	answer *sim.Chan[bus.PagesAnswer]
	pi     uint32         // the producer index: entries written
	out    []pcie.ReadReq // writes not yet handed to the requester: entry, then message
	since  uint64         // the cycle the event in progress was raised
}

func newEventQueue(e *sim.Engine, depth int) *eventQueue {
	return &eventQueue{
		req:    sim.NewChan[pcie.ReadReq](e, "top.eq_req", depth, 1),
		resp:   sim.NewChan[pcie.ReadResp](e, "top.eq_resp", depth, 1),
		answer: sim.NewChan[bus.PagesAnswer](e, "top.pages_answer", 2, 1),
	}
}

// EQEAddr is the host address of entry i of the pages event queue.
func EQEAddr(i uint32) uint64 {
	return prm.PagesEQ + uint64(i%prm.PagesEQEntries)*prm.EQESize
}

// raise queues the entry of a Pages Request Event of num pages and the
// interrupt after it.
func (q *eventQueue) raise(num int64, now uint64) {
	e := prm.PageRequestEQE{NumPages: int32(num), Owner: q.pi/prm.PagesEQEntries&1 != 0}
	b := e.Bytes()
	var msg [4]byte
	binary.LittleEndian.PutUint32(msg[:], PagesVector)
	q.out = append(q.out,
		pcie.ReadReq{ID: 2 * q.pi, Addr: EQEAddr(q.pi), Len: prm.EQESize, Write: true, Data: b[:]},
		pcie.ReadReq{ID: 2*q.pi + 1, Addr: pcie.MSIBase, Len: len(msg), Write: true, Data: msg[:]})
	q.pi++
	q.since = now
}

// step hands the requester the next write and takes its acknowledgements
// (a posted write is acknowledged when its last TLP leaves). It reports
// whether a write is left for the next cycle.
func (q *eventQueue) step() bool {
	if q.resp.Valid() {
		q.resp.Pop()
	}
	if len(q.out) > 0 && q.req.Ready() {
		q.req.Push(q.out[0])
		q.out = q.out[1:]
	}
	return len(q.out) > 0 || q.resp.Valid()
}
