package rtl

// This file feeds the data path (rtl/dma): once a request is translated,
// its DMA segments go to the data path in request order, one a cycle,
// oldest request first; the request retires when the data path says its
// bytes have moved (a page-fault re-run too, before the command path
// gathers it). A request that failed or has no DMA segment (a length of
// 0, MEMIC or SW ICM space) moves nothing. A request of more than scenario.MaxSegments
// segments keeps only its first ones (rob.go: the line's window), so only
// their bytes move: the data path of such a request (a 4 GiB access
// through 64-byte KLM pieces) is not modelled whole.

import (
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
)

// moved takes the data path's answer: request Tag's bytes have moved.
func (t *Top) moved() {
	if !t.rob.data || !t.doneDMA.Valid() {
		return
	}
	t.rob.at(t.doneDMA.Peek().Tag).moved = true
	t.doneDMA.Pop()
}

// canMove reports whether a request is ready for the data path.
func (t *Top) canMove() bool {
	e, _ := t.rob.nextMove()
	return e != nil && e.done() && t.toDMA.Ready()
}

// move sends the next DMA segment of the oldest translated request whose
// data has not gone; requests that move nothing are passed over.
func (t *Top) move() {
	for {
		e, tag := t.rob.nextMove()
		if e == nil || !e.done() {
			return
		}
		if e.mvSeg == 0 {
			e.sortSegs()
		}
		i := e.nextDMA(e.mvSeg)
		if e.failed || i < 0 {
			e.moved, e.mvSeg = true, 0
			t.rob.moveN++
			continue
		}
		if !t.toDMA.Ready() {
			return
		}
		sa := &e.segs[i]
		last := e.nextDMA(i+1) < 0
		plat := sa.Plat()
		// The small fence orders an RDMA READ response's reads only.
		plat.SmallFence = plat.SmallFence && e.acc.Type == prm.RemoteRead
		t.toDMA.Push(bus.Move{Tag: tag, Kind: moveKind(e.acc.Type), Addr: sa.Addr, Len: sa.Len, Last: last,
			Plat: plat, QPN: e.acc.QPN, Origin: sim.Origin{Seq: e.seq, Off: sa.Off, Key: uint32(sa.Key), Level: sa.Level}})
		e.mvSeg = i + 1
		if last {
			e.mvSeg = 0
			t.rob.moveN++
		}
		return
	}
}

// nextDMA is the index of the first segment from i on that moves over
// PCIe (DMA space, not empty), or -1.
func (e *robEntry) nextDMA(i int) int {
	for ; i < len(e.segs); i++ {
		if s := &e.segs[i]; s.Space == prm.SpaceDMA && s.Len > 0 {
			return i
		}
	}
	return -1
}

// moveKind is what the data path does for an access type: the device
// reads host memory for a local read (a send's gather, an RDMA WRITE's
// source) and a remote read, writes it for a local write (a receive's
// scatter, an RDMA READ's response) and a remote write, and both for an
// atomic.
func moveKind(t prm.AccessType) bus.MoveKind {
	switch t {
	case prm.LocalWrite, prm.RemoteWrite:
		return bus.MoveWrite
	case prm.RemoteAtomic:
		return bus.MoveAtomic
	}
	return bus.MoveRead
}
