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
	Fenced       uint64        `counter:"fenced" unit:"WQEs" help:"WQEs read with a fence mode other than none (the top applies the modes where it takes each WQE: sq.overtaken)"`
	BadWQEs      uint64        `counter:"bad_wqes" unit:"WQEs" help:"WQEs that could not be read or parsed: sent with the reason, their operation fails"`
	ReadBytes    uint64        `counter:"read_bytes" unit:"bytes" help:"bytes of send queue and UMR lists read from host memory"`
	BusyCycles   sim.Occupancy `counter:"busy_cycles" unit:"cycles" kind:"occupancy" mean:"busy" help:"cycles the fetch engine had a QP to serve: WQEs announced and not yet sent, or reads in flight (busy = busy_cycles / cycles)"`
	CQEs         uint64        `counter:"cqes" unit:"CQEs" help:"CQEs written to the host (MWr of 64 bytes to the QP's completion queue), one a work request, the error ones included"`
	ErrCQEs      uint64        `counter:"error_cqes" unit:"CQEs" help:"error CQEs written (REQ_ERR with the syndrome of the failure), of cqes"`
	// The pipelined fetch (issue 37 part 5).
	Coalesced   uint64        `counter:"coalesced_doorbells" unit:"MWr TLPs" help:"doorbells of a QP whose fetch was already running: each extends that fetch (its producer counter) instead of starting another, of doorbells"`
	FetchReads  uint64        `counter:"fetch_reads" unit:"reads" help:"reads of a send queue issued: up to 8 basic blocks (512 bytes) of one QP's announced WQEs each"`
	ListReads   uint64        `counter:"list_reads" unit:"reads" help:"reads of a UMR's list through its pointer"`
	MaxInFlight int           `counter:"max_fetches_in_flight" unit:"reads" kind:"max" help:"the most reads (of send queues and lists) in flight at once: at most sq.fetch_outstanding"`
	FetchCycles sim.Occupancy `counter:"fetch_cycles" unit:"read-cycles" kind:"occupancy" mean:"mean_fetches_in_flight" help:"reads in flight, summed over the cycles (mean_fetches_in_flight = fetch_cycles / cycles)"`
	SlotStalls  sim.Stalls    `counter:"slot_stall_cycles" unit:"cycles" kind:"wait" help:"cycles that ended with all sq.fetch_outstanding reads in flight and another waiting for one to end: a QP's basic blocks announced, with room in its WQE cache, or a UMR's list"`
}

// A QP's WQE cache holds the basic blocks read ahead of the one being
// parsed (sq.wqe_cache_bbs of them): its reads in flight and its WQEs
// read and not yet parsed fit in it. It belongs to the QP while its
// fetch runs (on the active list) and goes back to the unit's pool when
// the fetch ends, so that a run over many QPs holds caches for the active
// ones only; the QP's counters stay.

// entry is a basic block of a QP's WQE cache.
type entry struct {
	state entryState
	at    uint16 // its index in the send queue (a WQE counter)
	data  [prm.SendWQEBB]byte
	bad   string // why its read failed (state failed)
}

type entryState uint8

const (
	empty  entryState = iota // not read yet, or read in flight
	filled                   // read
	failed                   // its read completed with an error
)

// A QP's parsed WQE waits in its context (held) until the output takes
// it: a UMR whose list is read through its pointer waits for the list
// first.
type holdState uint8

const (
	holdNone     holdState = iota
	holdListNeed           // the UMR's list read is to be issued
	holdListWait           // the UMR's list read is in flight
	holdReady              // the WQE waits for Out
)

// qp is a send queue's fetch context: kept for every QP the front has
// seen (its counters persist), and on the active list while its fetch
// runs.
type qp struct {
	n        uint32
	pi       uint16 // producer counter: the furthest doorbell's
	ci       uint16 // consumer counter: the next WQE to parse
	fp       uint16 // fetch pointer: the next basic block to read
	inFlight int    // its reads in flight (lists included)
	active   bool
	cache    []entry // while active: sq.wqe_cache_bbs entries, a power of two
	hold     holdState
	wqe      bus.WQE // the WQE held
}

// ahead is how far a is past b, on the 16-bit counters (negative when
// behind).
func ahead(a, b uint16) int { return int(int16(a - b)) }

// slot is a read in flight: of n basic blocks of q's send queue from
// index at, or (list) of the list of the UMR q holds.
type slot struct {
	busy bool
	q    *qp
	at   uint16
	n    int
	list bool
}

// Unit is the send-queue front. The engine evaluates it only in the
// cycles something happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under sq
	name           string
	cfg            Config
	p              Ports
	qps            map[uint32]*qp    // every QP's fetch context
	active         []*qp             // the QPs whose fetch runs, in the order their first doorbell came
	rrIssue        int               // round-robin pointers into active: the next QP to read for,
	rrParse        int               // to parse,
	rrEmit         int               // and to send on Out
	slots          []slot            // the reads in flight, by ReadReq ID - firstReadID
	pool           [][]entry         // WQE caches of QPs whose fetch ended, for the next
	inFlight       int               // busy slots
	cqPI           map[uint32]uint32 // every QP's completion queue producer counter
	rqCI           map[uint32]uint16 // every QP's receive counter (wqe_counter of receive CQEs)
	cqQ            []bus.Completion  // CQEs waiting for the request port
	// For the waveform: the QP of the last read issued, and the opcode
	// of the last WQE sent.
	lastQP     *qp
	lastOpcode prm.Opcode
	stats      Stats
}

// New makes the send-queue front.
func New(name string, cfg Config, p Ports) *Unit {
	u := &Unit{name: name, cfg: cfg, p: p, qps: map[uint32]*qp{}, slots: make([]slot, max(cfg.FetchOutstanding, 1)),
		cqPI: map[uint32]uint32{}, rqCI: map[uint32]uint16{}}
	u.CounterSet = sim.Declare("sq", &u.stats)
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// Connections lists the channels the unit pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	return []sim.Port{u.p.Doorbell, u.p.MemResp, u.p.Done}, []sim.Port{u.p.Out, u.p.MemReq}
}

// Describe lists what the unit shows in its waveform scope (sim.Described):
// the QPs whose fetch runs, the reads in flight, the QP of the last read
// issued with its producer, fetch and consumer counters and the WQEs
// held in its cache, and the opcode of the last WQE sent.
func (u *Unit) Describe() sim.Description {
	return sim.Description{Scope: u.name, Title: "send-queue front", Signals: []sim.Signal{
		{Name: "active_qps", Width: 16}, {Name: "reads_in_flight", Width: 9},
		{Name: "qpn", Width: 24, Format: sim.Hex}, {Name: "pi", Width: 16}, {Name: "fp", Width: 16}, {Name: "ci", Width: 16},
		{Name: "cached", Width: 6}, {Name: "opcode", Width: 8, Format: sim.Hex}},
		Sample: func(vs []uint64) {
			vs[0], vs[1] = uint64(len(u.active)), uint64(u.inFlight)
			vs[2], vs[3], vs[4], vs[5], vs[6] = 0, 0, 0, 0, 0
			if q := u.lastQP; q != nil {
				vs[2], vs[3], vs[4], vs[5], vs[6] = uint64(q.n), uint64(q.pi), uint64(q.fp), uint64(q.ci), uint64(q.cached())
			}
			vs[7] = uint64(u.lastOpcode)
		}}
}

// cached is the basic blocks of q's cache read and not yet parsed.
func (q *qp) cached() int {
	n := 0
	for i := range q.cache {
		if q.cache[i].state != empty && ahead(q.cache[i].at, q.ci) >= 0 {
			n++
		}
	}
	return n
}

// Stats returns the counters.
func (u *Unit) Stats() Stats { return u.stats }

// Eval runs one cycle of the fetch engine: it sends a WQE held since the
// cycle before on Out; takes a doorbell, a read's answer and a work
// request's end; parses one
// WQE whose basic blocks are all in its QP's cache; issues one read
// (a UMR's list first, else a QP's announced basic blocks); and writes a
// CQE if the request port is still free.
func (u *Unit) Eval(now uint64) bool {
	moves := u.Handshakes()
	// A WQE held at the cycle's start leaves first: what an answer or a
	// parse of this cycle makes ready leaves the next.
	u.emit()
	u.doorbell()
	if u.p.Done.Valid() {
		u.cqQ = append(u.cqQ, *u.p.Done.Peek())
		u.p.Done.Pop()
	}
	if u.p.MemResp.Valid() {
		r := u.p.MemResp.Peek()
		if r.ID != cqeID { // a CQE written: nothing to wait for
			u.respond(r)
		}
		u.p.MemResp.Pop()
	}
	u.parseOne()
	u.issue()
	stalled := u.inFlight == len(u.slots) && u.issueReady()
	u.writeCQE()
	u.retireIdle()
	busy := uint64(0)
	if len(u.active) > 0 {
		busy = 1
	}
	u.stats.BusyCycles.NoteN(now, busy)
	u.stats.FetchCycles.NoteN(now, uint64(u.inFlight))
	u.stats.SlotStalls.Note(now, stalled)
	// What acts without an input: a held WQE for Out, a WQE to parse, a
	// read to issue while a slot is free, a CQE to write.
	return u.emitReady() || u.parseReady() != nil || u.inFlight < len(u.slots) && u.issueReady() ||
		len(u.cqQ) > 0 || u.Handshakes() != moves
}

// doorbell takes a doorbell, if one is there. A doorbell is never
// refused (a device must always take posted writes: a completion behind
// it on the link could not pass it otherwise). A doorbell of a QP whose
// fetch runs extends it (coalesced); another starts the QP's fetch at
// the end of the active list.
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
	qpn, pi := d1>>8, uint16(d0>>8)+uint16(prm.WQEBBs(uint8(d1&0x3f)))
	q := u.qps[qpn]
	if q == nil {
		q = &qp{n: qpn}
		u.qps[qpn] = q
	}
	if ahead(pi, q.pi) > 0 {
		q.pi = pi
	}
	if q.active {
		u.stats.Coalesced++
		return
	}
	if ahead(q.pi, q.ci) > 0 {
		q.active = true
		q.cache = u.takeCache()
		u.active = append(u.active, q)
	}
}

// takeCache hands a QP whose fetch starts an empty WQE cache, from the
// pool when one is there.
func (u *Unit) takeCache() []entry {
	if n := len(u.pool); n > 0 {
		c := u.pool[n-1]
		u.pool = u.pool[:n-1]
		return c
	}
	return make([]entry, u.cfg.WQECacheBBs)
}

// putCache takes back the cache of a QP whose fetch ended, emptied.
func (u *Unit) putCache(c []entry) {
	clear(c)
	u.pool = append(u.pool, c)
}

// block is the cache entry of basic block at.
func (q *qp) block(at uint16) *entry { return &q.cache[int(at)&(len(q.cache)-1)] }

// limit is where q's reads stop: its producer counter, or the end of
// the WQE at its consumer counter if that WQE says it is longer (a WQE
// whose DS passes what the doorbell announced is read whole, and fails
// its parse or not as its bytes say).
func (q *qp) limit() uint16 {
	lim := q.pi
	if e := q.block(q.ci); e.state == filled && e.at == q.ci {
		if end := q.ci + uint16(wqeBBs(e.data[:])); ahead(end, lim) > 0 {
			lim = end
		}
	}
	return lim
}

// wqeBBs is the basic blocks of the WQE whose control segment begins b:
// its DS in basic blocks, at least one.
func wqeBBs(b []byte) int { return max(prm.WQEBBs(b[7]&0x3f), 1) }

// toFetch is how many basic blocks q's next read fetches: those up to
// its limit, MaxBatch at most, not past the send queue's end nor the
// room in its cache.
func (q *qp) toFetch() int {
	n := ahead(q.limit(), q.fp)
	if n <= 0 {
		return 0
	}
	return min(n, MaxBatch, SQRing-int(q.fp%SQRing), len(q.cache)-ahead(q.fp, q.ci))
}

// issueReady reports whether a read waits for a free slot.
func (u *Unit) issueReady() bool {
	for _, q := range u.active {
		if q.hold == holdListNeed || q.toFetch() > 0 {
			return true
		}
	}
	return false
}

// issue sends one read, when a slot is free and the request port takes
// it: a held UMR's list first (its QP waits for it), else the announced
// basic blocks of the next QP in round-robin order that has room in its
// cache.
func (u *Unit) issue() {
	if u.inFlight == len(u.slots) || !u.p.MemReq.Ready() {
		return
	}
	id := 0
	for u.slots[id].busy {
		id++
	}
	for _, q := range u.active {
		if q.hold != holdListNeed {
			continue
		}
		n := int(q.wqe.UMR.UMR.TranslationOctwordActualSize) * prm.OctowordSize
		u.p.MemReq.Push(pcie.ReadReq{ID: firstReadID + uint32(id), Addr: q.wqe.UMR.Pointer.Addr, Len: n})
		u.slots[id] = slot{busy: true, q: q, list: true}
		q.hold = holdListWait
		u.took(q)
		u.stats.ListReads++
		return
	}
	for k := range u.active {
		i := (u.rrIssue + k) % len(u.active)
		q := u.active[i]
		n := q.toFetch()
		if n == 0 {
			continue
		}
		u.p.MemReq.Push(pcie.ReadReq{ID: firstReadID + uint32(id), Addr: SlotAddr(q.n, q.fp), Len: n * prm.SendWQEBB})
		u.slots[id] = slot{busy: true, q: q, at: q.fp, n: n}
		q.fp += uint16(n)
		u.took(q)
		u.stats.FetchReads++
		u.rrIssue = i + 1
		return
	}
}

// took counts a read issued for q.
func (u *Unit) took(q *qp) {
	q.inFlight++
	u.inFlight++
	u.lastQP = q
	u.stats.MaxInFlight = max(u.stats.MaxInFlight, u.inFlight)
}

// respond takes a read's answer: basic blocks into its QP's cache, or a
// UMR's list into the WQE its QP holds. A failed read of basic blocks
// marks the first failed and reads the others again (a WQE that began
// there is sent with Bad set, as one that cannot parse).
func (u *Unit) respond(r *pcie.ReadResp) {
	id := int(r.ID - firstReadID)
	if r.ID < firstReadID || id >= len(u.slots) || !u.slots[id].busy {
		return // not a read of this unit's: nothing asked for it
	}
	s := u.slots[id]
	u.slots[id] = slot{}
	u.inFlight--
	q := s.q
	q.inFlight--
	u.stats.ReadBytes += uint64(len(r.Data))
	if s.list {
		if r.Status != pcie.SC {
			q.wqe.Bad = fmt.Sprintf("reading %d bytes at %#x: completion status %v", len(r.Data), r.Addr, r.Status)
		} else {
			q.wqe.UMR.List = append([]byte(nil), r.Data...)
		}
		q.hold = holdReady
		return
	}
	for k := 0; k < s.n; k++ {
		at := s.at + uint16(k)
		if d := ahead(at, q.ci); d < 0 || d >= len(q.cache) {
			continue // parsed already (a read of it again, after a failure)
		}
		e := q.block(at)
		switch {
		case r.Status == pcie.SC:
			*e = entry{state: filled, at: at}
			copy(e.data[:], r.Data[k*prm.SendWQEBB:])
		case k == 0:
			*e = entry{state: failed, at: at, bad: fmt.Sprintf("reading %d bytes at %#x: completion status %v", s.n*prm.SendWQEBB, r.Addr, r.Status)}
		default:
			*e = entry{}
		}
	}
	if r.Status != pcie.SC && s.n > 1 && ahead(q.fp, s.at+1) > 0 {
		q.fp = s.at + 1 // the rest is read again
	}
}

// parseReady is the next QP, in round-robin order, whose WQE at its
// consumer counter is all in its cache and that holds no WQE, or nil.
func (u *Unit) parseReady() *qp {
	for k := range u.active {
		q := u.active[(u.rrParse+k)%len(u.active)]
		if q.hold == holdNone && q.headIn() {
			return q
		}
	}
	return nil
}

// headIn reports whether every basic block of q's next WQE is in its
// cache (or failed).
func (q *qp) headIn() bool {
	e := q.block(q.ci)
	if e.state == empty || e.at != q.ci {
		return false
	}
	if e.state == failed {
		return true
	}
	n := wqeBBs(e.data[:])
	for k := 1; k < n; k++ {
		at := q.ci + uint16(k)
		if f := q.block(at); f.state == empty || f.at != at {
			return false
		}
	}
	return true
}

// parseOne parses the next WQE of one QP (round robin among those whose
// WQE is in): a NOP is skipped, a UMR whose list is not inline goes on
// to read it, anything else is held for Out. The issue rules of a fence
// (issue 37 part 2) apply where the top takes the WQE (rtl/fence.go), not
// here: the parse and the reads ahead go on behind a fenced WQE.
func (u *Unit) parseOne() {
	q := u.parseReady()
	if q == nil {
		return
	}
	for i, a := range u.active {
		if a == q {
			u.rrParse = i + 1
		}
	}
	head := q.block(q.ci)
	if head.state == failed {
		q.wqe = bus.WQE{SQ: q.n, Bad: head.bad}
		*head = entry{}
		q.ci++
		q.hold = holdReady
		return
	}
	n := wqeBBs(head.data[:])
	buf := make([]byte, 0, n*prm.SendWQEBB)
	bad := ""
	for k := 0; k < n; k++ {
		e := q.block(q.ci + uint16(k))
		if e.state == failed && bad == "" {
			bad = e.bad
		}
		buf = append(buf, e.data[:]...)
		*e = entry{}
	}
	q.ci += uint16(n)
	ctrl := ctrlOf(buf)
	q.wqe = bus.WQE{SQ: q.n, Ctrl: ctrl}
	q.hold = holdReady
	if bad != "" {
		q.wqe.Bad = bad
		return
	}
	b := buf[:min(len(buf), max(int(ctrl.DS), 1)*prm.OctowordSize)]
	var err error
	switch ctrl.Opcode {
	case prm.OpNOP:
		u.stats.NOPs++
		q.hold = holdNone
		return
	case prm.OpUMR:
		q.wqe.UMR, err = prm.ParseUMRWQE(b)
		if err == nil && !q.wqe.UMR.UMR.Inline {
			switch err = prm.CheckUMRPointer(q.wqe.UMR.Pointer); {
			case err != nil:
			case q.wqe.UMR.UMR.TranslationOctwordActualSize > 0:
				q.hold = holdListNeed
			}
		}
	default:
		q.wqe.Send, err = prm.ParseSendWQE(b)
	}
	if err != nil {
		q.wqe.Bad = err.Error()
		q.hold = holdReady
	}
}

// emitReady reports whether a QP holds a WQE for Out.
func (u *Unit) emitReady() bool {
	for _, q := range u.active {
		if q.hold == holdReady {
			return true
		}
	}
	return false
}

// emit sends the WQE of the next QP, in round-robin order, that holds
// one ready, when Out takes it. Each QP's WQEs leave in the order posted
// (a QP holds one at a time); across QPs in the order their parses
// finish, round robin among those ready in the same cycle.
func (u *Unit) emit() {
	if !u.p.Out.Ready() {
		return
	}
	for k := range u.active {
		i := (u.rrEmit + k) % len(u.active)
		q := u.active[i]
		if q.hold != holdReady {
			continue
		}
		u.p.Out.Push(q.wqe)
		u.stats.WQEs++
		if q.wqe.Ctrl.Fence != prm.FenceNone {
			u.stats.Fenced++
		}
		if q.wqe.Bad != "" {
			u.stats.BadWQEs++
		}
		u.lastOpcode = q.wqe.Ctrl.Opcode
		q.wqe, q.hold = bus.WQE{}, holdNone
		u.rrEmit = i + 1
		return
	}
}

// retireIdle takes off the active list the QPs with nothing left: every
// WQE announced parsed and sent, no read in flight.
func (u *Unit) retireIdle() {
	kept := u.active[:0]
	for _, q := range u.active {
		if q.hold == holdNone && q.inFlight == 0 && ahead(q.pi, q.ci) <= 0 {
			q.active = false
			q.pi, q.fp = q.ci, q.ci // past a WQE longer than announced
			u.putCache(q.cache)
			q.cache = nil
			// q is at len(kept) in the list as it stands: the pointers
			// past it move down one.
			u.rrIssue, u.rrParse, u.rrEmit = past(u.rrIssue, len(kept)), past(u.rrParse, len(kept)), past(u.rrEmit, len(kept))
			continue
		}
		kept = append(kept, q)
	}
	clear(u.active[len(kept):])
	u.active = kept
}

// past is the round-robin pointer rr once the QP at index i left the
// active list.
func past(rr, i int) int {
	if rr > i {
		return rr - 1
	}
	return rr
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

// The ReadReq IDs of the unit: its CQE writes (whose answers it drops),
// and its reads of WQEs and lists, firstReadID + the slot.
const (
	cqeID       = 1
	firstReadID = 2
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
