package pcie

import (
	"fmt"

	"mkeysim/rtl/sim"
)

// ReadReq asks the Requester for Len bytes (>= 1) at Addr; ID is the
// client's cookie, returned in the response. Write (data clients only,
// AddDataClient) asks it to write Len bytes at Addr instead: MWr TLPs
// (posted, split at Max_Payload_Size and 4 KB boundaries), answered with
// status SC in the cycle the last one leaves.
type ReadReq struct {
	ID    uint32
	Addr  uint64
	Len   int
	Write bool
	// Data, for a write, holds its Len bytes; nil writes zeros (the data
	// path's writes: host memory beyond the ICM is not modelled). A
	// client that is not a data client may write only with Data (the
	// send-queue front's completions).
	Data []byte
	// Prefix, when present, goes on every TLP of the request: a CAPI
	// segment's PASID (issue 36).
	Prefix PASIDPrefix
	// AT is the Address Type of every TLP of the request: ATTranslated
	// for the data path's requests through an ATS translation (Addr is
	// then translated), ATTranslationRequest for the ATC's Translation
	// Requests (a read of 8 bytes at the page's address: its one
	// Translation Completion comes back as the read's data).
	AT AT
	// RO sets the Relaxed Ordering attribute on every TLP of the request
	// (issue 37: the data path's, for a key with relaxed_ordering_write
	// or relaxed_ordering_read).
	RO bool
	// Origin names the request's first byte for the host's monitors
	// (sim.Origin): each TLP carries the origin of its own first byte.
	Origin sim.Origin
}

// TCData is the traffic class of the device's data movement (the TLPs of
// data clients, AddDataClient): the host tells it from the ICM traffic
// of TC 0 (Config.DataLatencyCycles).
const TCData = 1

// ReadResp answers a ReadReq once all its completions have arrived: Data
// holds the Len bytes at Addr in address order. Status is SC, or the status
// of an error completion (UR, CA) for any part of the read, in which case
// Data is undefined; a ReadReq with Len < 1 is answered UR at once.
type ReadResp struct {
	ID     uint32
	Addr   uint64
	Data   []byte
	Status CplStatus
}

// RequesterStats are the read engine's counters. Each field's tags are
// the counter's one definition (sim.Counter), under the group
// pcie.requester.
type RequesterStats struct {
	Reads          uint64        `counter:"reads" unit:"TLPs" help:"MRd TLPs the device sent"`
	ReadBytes      uint64        `counter:"read_bytes" unit:"bytes" help:"bytes the device's MRd TLPs asked for"`
	Writes         uint64        `counter:"writes" unit:"TLPs" help:"MWr TLPs the device sent (data clients' writes)"`
	WriteBytes     uint64        `counter:"write_bytes" unit:"bytes" help:"bytes the device's MWr TLPs carried"`
	Completions    uint64        `counter:"completions" unit:"TLPs" help:"completion TLPs the device received"`
	Responses      uint64        `counter:"responses" unit:"reads" help:"whole read responses delivered to the units (one per ReadReq)"`
	FailedReads    uint64        `counter:"failed_reads" unit:"reads" help:"read responses delivered with a status other than SC"`
	MaxTagsInUse   int           `counter:"max_tags_in_use" unit:"tags" kind:"max" help:"the most MRd TLPs in flight at once"`
	TagStallCycles sim.Stalls    `counter:"tag_stall_cycles" unit:"cycles" kind:"wait" help:"cycles a unit's read waited for a free tag"`
	TagCycles      sim.Occupancy `counter:"tag_cycles" unit:"tag-cycles" kind:"occupancy" mean:"mean_tags_in_use" help:"tags in use (MRds in flight), summed over the cycles (mean_tags_in_use = tag_cycles / cycles)"`
	Errors         uint64        `counter:"errors" unit:"TLPs" help:"completions that broke a PCIe rule (see Requester.Errors)"`
}

// ErrorKind classifies a protocol error seen by the Requester.
type ErrorKind uint8

const (
	BadType        ErrorKind = iota + 1 // not a completion; Cpl with SC or CplD without
	UnexpectedTag                       // no MRd in flight with that tag
	BadRequesterID                      // completion for another requester
	BadLength                           // Data and Length disagree, too much or too little data, over Max_Payload_Size
	BadByteCount                        // Byte Count is not the bytes still expected
	BadLowerAddr                        // Lower Address is not that of the next byte expected
	BadRCB                              // a partial completion does not end on an RCB boundary
	BadRequest                          // a client's ReadReq with Len < 1
)

var errorKindNames = [...]string{"", "type", "unexpected tag", "requester ID", "length", "byte count", "lower address", "RCB", "bad request"}

func (k ErrorKind) String() string {
	if int(k) < len(errorKindNames) && k != 0 {
		return errorKindNames[k]
	}
	return fmt.Sprintf("ErrorKind(%d)", uint8(k))
}

// ProtocolError is one completion the Requester refused (or a bad client
// request). The completion is dropped; its tag, if any, stays in flight, as
// in hardware where only a completion timeout would end the request.
type ProtocolError struct {
	Cycle uint64
	Kind  ErrorKind
	Tag   uint16
	Msg   string
}

func (e ProtocolError) Error() string {
	return fmt.Sprintf("pcie: cycle %d: %v (tag %d): %s", e.Cycle, e.Kind, e.Tag, e.Msg)
}

// maxKeptErrors bounds the errors kept for Errors; Stats.Errors counts all.
const maxKeptErrors = 1000

// readCtx is one client ReadReq from its first MRd to its response.
type readCtx struct {
	client      int
	id          uint32
	addr        uint64
	data        []byte
	outstanding int  // MRds in flight
	issuedAll   bool // every MRd sent
	status      CplStatus
}

// tagState is the MRd in flight under one tag.
type tagState struct {
	rd   *readCtx // nil when the tag is free
	addr uint64   // first byte asked
	len  int      // bytes asked
	got  int      // bytes received
	off  int      // the span's offset in the read (its address on the link may be translated: SetTranslate)
}

type client struct {
	req  *sim.Chan[ReadReq]
	resp *sim.Chan[ReadResp]
	tc   uint8               // the TLPs' traffic class: TCData for a data client
	off  int                 // bytes of the head ReadReq already asked for
	cur  *readCtx            // the head ReadReq's context once its first MRd is out
	tr   func(uint64) uint64 // nil, or where an address is on the link (SetTranslate)
	// backlog holds finished responses waiting for resp to be ready; while
	// it is not empty the client starts no new ReadReq.
	backlog []ReadResp
}

// reqStage is what one cycle's Eval decided, applied by Commit.
type reqStage struct {
	issue   bool
	iClient int
	iTag    uint16
	iSpan   Span
	iLast   bool
	iReq    ReadReq // the head ReadReq (for a new context)
	write   bool    // the TLP issued is an MWr (iClient, iSpan, iLast)
	cOK     bool    // a completion was taken off Rx and accepted
	cTag    uint16
	cSrc    []byte // bytes of the read it carries
	cDst    int    // their offset in the read's data
	cFinal  bool   // it ends its MRd
	cStatus CplStatus
	popBack []bool // per client: backlog head pushed
	popped  int    // how many popBack are set
	appends []pendingResp
	stall   bool
	rr      int
}

type pendingResp struct {
	client int
	resp   ReadResp
}

// Requester is the device-side read engine, a sim.Component:
//
//	client 0 req --\                               /--> client 0 resp
//	client 1 req ---> [round-robin, split, tag] --> Tx        ...
//	      ...                                     Rx --> [check, reassemble]
//
// Every cycle it may:
//   - push one finished response per client onto that client's resp
//     channel (from the client's backlog first);
//   - take one completion off Rx and check it against the MRd in flight
//     under its tag (unexpected tag, requester ID, Length vs data, Byte
//     Count = bytes still expected, Lower Address = next byte expected,
//     partial completions ending on an RCB boundary, at most MaxPayload);
//     a bad one is recorded (Errors) and dropped. A good one's bytes go to
//     the read's buffer; when it carries the last bytes of its MRd the tag
//     is freed, and when every MRd of the read is done the ReadResp is
//     pushed to the client (or queued in its backlog). An error completion
//     (UR, CA) ends its MRd and fails the read;
//   - issue one MRd on Tx: clients are served round-robin, one MRd per
//     grant, so a long read interleaves with other clients' reads. A
//     ReadReq is split by SplitRead (4 KB, MaxReadRequest); its MRds take
//     tags from a FIFO free list and the ReadReq leaves its channel with its
//     last MRd. When no tag is free nothing is issued (a tag stall).
//
// A ReadReq first visible at cycle c has its first MRd pushed on Tx at c
// (when granted, a tag is free and Tx is ready); a ReadResp is pushed in the
// cycle its last completion is taken off Rx. Responses leave in completion
// order, not request order: match them by ID. Only reads are issued: the
// Requester owns Tx, so a device-side MWr source would need a port here or
// an arbiter in front of the link.
type Requester struct {
	sim.Base
	sim.CounterSet // stats, under pcie.requester
	name           string
	cfg            Config
	// Tx carries MRds to the link, Rx completions from it.
	Tx, Rx *sim.Chan[TLP]
	// Target, if not nil (SetTarget), takes the MWr TLPs that arrive on
	// Rx: the host's writes to the device's registers (doorbells). Without
	// it an MWr is a protocol error.
	Target *sim.Chan[TLP]
	// MsgIn and MsgOut, if not nil (SetMessages), carry the messages
	// (Msg, MsgD) the host sends the device (ATS Invalidate Requests) and
	// those the device sends as they are (Invalidate Completions), before
	// any client's request. Without MsgIn a message is a protocol error.
	MsgIn, MsgOut *sim.Chan[TLP]

	// registers
	clients    []client
	backlogged int        // responses held in the clients' backlogs
	tags       []tagState // indexed by tag - tagBase
	free       []uint16   // ring of free tags
	fHead      int
	fLen       int
	rr         int
	stats      RequesterStats  // counted by Eval as it decides
	data       slab[byte]      // reads' buffers
	zeros      []byte          // the payload of every MWr (read-only)
	ctxs       slab[readCtx]   // reads' contexts
	errs       []ProtocolError // the first maxKeptErrors, kept by Eval

	st reqStage
}

// NewRequester makes the read engine, of cfg's Tags, MaxReadRequest,
// MaxPayload, RCB and RequesterID. It panics on a config that Validate
// refuses. Add clients with AddClient, then add the Requester to the
// engine.
func NewRequester(name string, cfg Config, tx, rx *sim.Chan[TLP]) *Requester {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	r := &Requester{name: name, cfg: cfg, Tx: tx, Rx: rx,
		tags: make([]tagState, cfg.Tags), free: make([]uint16, cfg.Tags), fLen: cfg.Tags}
	for i := range r.free {
		r.free[i] = cfg.tagBase() + uint16(i)
	}
	r.CounterSet = sim.Declare("pcie.requester", &r.stats)
	return r
}

// AddClient attaches a client's request and response channels and returns
// its number (its place in the round-robin). Call it before the first
// cycle.
func (r *Requester) AddClient(req *sim.Chan[ReadReq], resp *sim.Chan[ReadResp]) int {
	r.clients = append(r.clients, client{req: req, resp: resp})
	r.st.popBack = append(r.st.popBack, false)
	return len(r.clients) - 1
}

// SetTranslate makes client i's reads go to f(address) on the link: the
// ICM clients' addresses through the firmware's page table (rtl.Top), a
// lookup fused into the issue of the read. f must map each 4 KiB page
// to one 4 KiB page (a span never crosses one).
func (r *Requester) SetTranslate(i int, f func(uint64) uint64) { r.clients[i].tr = f }

// AddDataClient attaches a client of data movement: its TLPs carry
// TCData, and it may ask for writes (ReadReq.Write).
func (r *Requester) AddDataClient(req *sim.Chan[ReadReq], resp *sim.Chan[ReadResp]) int {
	i := r.AddClient(req, resp)
	r.clients[i].tc = TCData
	return i
}

// Name is the requester's name.
func (r *Requester) Name() string { return r.name }

// Config is the configuration the Requester was made with.
func (r *Requester) Config() Config { return r.cfg }

// Stats returns the counters.
func (r *Requester) Stats() RequesterStats { return r.stats }

// SetTarget gives the requester the channel that takes the host's
// writes to the device (doorbells). Call it before the first cycle.
func (r *Requester) SetTarget(c *sim.Chan[TLP]) { r.Target = c }

// SetMessages gives the requester the channels of the messages the host
// sends the device (in) and those the device sends (out). Call it before
// the first cycle.
func (r *Requester) SetMessages(in, out *sim.Chan[TLP]) { r.MsgIn, r.MsgOut = in, out }

// Connections lists the channels the requester pops (its clients'
// requests, completions) and pushes (MRds, responses, the host's writes
// to the device) (sim.Connected).
func (r *Requester) Connections() (in, out []sim.Port) {
	in, out = []sim.Port{r.Rx}, []sim.Port{r.Tx}
	if r.Target != nil {
		out = append(out, r.Target)
	}
	if r.MsgIn != nil {
		in, out = append(in, r.MsgOut), append(out, r.MsgIn)
	}
	for i := range r.clients {
		in = append(in, r.clients[i].req)
		out = append(out, r.clients[i].resp)
	}
	return in, out
}

// Errors returns the protocol errors seen (the first 1000; Stats().Errors
// counts them all).
func (r *Requester) Errors() []ProtocolError { return append([]ProtocolError(nil), r.errs...) }

// Describe lists what the requester shows in its waveform scope: the tags
// in use (sim.Described).
func (r *Requester) Describe() sim.Description {
	return sim.Description{Scope: r.name, Title: "PCIe requester", Signals: []sim.Signal{{Name: "tags_in_use", Width: sim.WidthFor(r.cfg.Tags)}},
		Sample: func(vs []uint64) { vs[0] = uint64(r.TagsInUse()) }}
}

// TagsInUse is the number of MRds in flight.
func (r *Requester) TagsInUse() int { return r.cfg.Tags - r.fLen }

// Idle reports whether the requester holds nothing: no MRd in flight, no
// ReadReq half issued, no response waiting.
func (r *Requester) Idle() bool {
	if r.TagsInUse() > 0 || r.backlogged > 0 {
		return false
	}
	for i := range r.clients {
		if r.clients[i].off > 0 {
			return false
		}
	}
	return true
}

func (r *Requester) tagIndex(tag uint16) (int, bool) {
	i := int(tag) - int(r.cfg.tagBase())
	return i, i >= 0 && i < len(r.tags) && r.tags[i].rd != nil
}

// Eval delivers responses, takes a completion and issues an MRd. It
// counts each event as it decides it, and notes the tags in use that the
// cycle leaves: the counters hold this cycle's events once Eval returns.
func (r *Requester) Eval(now uint64) bool {
	s := &r.st
	s.issue, s.write, s.cOK, s.cSrc, s.stall = false, false, false, nil, false
	s.appends, s.rr = s.appends[:0], r.rr
	moves := r.Handshakes()
	if s.popped > 0 {
		clear(s.popBack)
		s.popped = 0
	}
	if r.backlogged > 0 {
		for i := range r.clients {
			c := &r.clients[i]
			if len(c.backlog) > 0 && c.resp.Ready() {
				c.resp.Push(c.backlog[0])
				s.popBack[i] = true
				s.popped++
				r.stats.Responses++
			}
		}
	}
	if r.Rx.Valid() {
		switch t := r.Rx.Peek(); {
		case t.Type == MWr && r.Target != nil:
			// A write to the device's registers: passed on as it is
			// (held on Rx while the target is full).
			if r.Target.Ready() {
				r.Target.Push(*t)
				r.Rx.Pop()
			}
		case t.Type.IsMessage() && r.MsgIn != nil:
			if r.MsgIn.Ready() {
				r.MsgIn.Push(*t)
				r.Rx.Pop()
			}
		default:
			r.receive(now, t)
			r.Rx.Pop()
		}
	}
	r.issue(now)
	r.count(now)
	// Busy while a backlog keeps a response after this cycle's pops.
	busy := len(s.appends) > 0 || r.backlogged > s.popped
	// A cycle that moved anything may have freed what a waiting read
	// needs (a tag returned by a completion): look again in the next one.
	return busy || r.Handshakes() != moves
}

// count notes the cycle's tag stall and the tags in use it leaves: those
// in use now, plus the one issued, minus the one a final completion frees.
func (r *Requester) count(now uint64) {
	s := &r.st
	r.stats.TagStallCycles.Note(now, s.stall)
	u := r.TagsInUse()
	if s.issue {
		u++
	}
	if s.cOK && s.cFinal {
		u--
	}
	r.stats.TagCycles.NoteN(now, uint64(u))
	if u > r.stats.MaxTagsInUse {
		r.stats.MaxTagsInUse = u
	}
}

// fail counts a protocol error and keeps it if fewer than maxKeptErrors
// are.
func (r *Requester) fail(now uint64, kind ErrorKind, tag uint16, format string, args ...any) {
	r.stats.Errors++
	if len(r.errs) < maxKeptErrors {
		r.errs = append(r.errs, ProtocolError{Cycle: now, Kind: kind, Tag: tag, Msg: fmt.Sprintf(format, args...)})
	}
}

// deliver pushes a finished response, or queues it behind the client's
// backlog.
func (r *Requester) deliver(i int, resp ReadResp) {
	s := &r.st
	c := &r.clients[i]
	if resp.Status != SC {
		r.stats.FailedReads++
	}
	if len(c.backlog) == 0 && c.resp.Ready() {
		c.resp.Push(resp)
		r.stats.Responses++
		return
	}
	s.appends = append(s.appends, pendingResp{i, resp})
}

// receive checks the completion t against its MRd and stages its effect.
func (r *Requester) receive(now uint64, t *TLP) {
	s := &r.st
	r.stats.Completions++
	if !t.Type.IsCompletion() {
		r.fail(now, BadType, t.Tag, "%v on the completion port", t.Type)
		return
	}
	idx, ok := r.tagIndex(t.Tag)
	if !ok {
		r.fail(now, UnexpectedTag, t.Tag, "%v with no read in flight", t.Type)
		return
	}
	if t.RequesterID != r.cfg.RequesterID {
		r.fail(now, BadRequesterID, t.Tag, "requester ID %#04x, want %#04x", t.RequesterID, r.cfg.RequesterID)
		return
	}
	ts := &r.tags[idx]
	remaining := ts.len - ts.got
	next := ts.addr + uint64(ts.got) // next byte expected
	switch {
	case t.Type == Cpl && t.Status == SC:
		r.fail(now, BadType, t.Tag, "Cpl without data with status SC")
		return
	case t.Type == CplD && t.Status != SC:
		r.fail(now, BadType, t.Tag, "CplD with status %v", t.Status)
		return
	case t.Type == Cpl: // UR or CA: the MRd ends here
		s.cFinal, s.cStatus, s.cSrc, s.cDst = true, t.Status, nil, 0
	default:
		size := int(t.LengthDW) * DWBytes
		if len(t.Data) != size {
			r.fail(now, BadLength, t.Tag, "%d data bytes, Length %d DW", len(t.Data), t.LengthDW)
			return
		}
		if size > r.cfg.MaxPayload {
			r.fail(now, BadLength, t.Tag, "%d bytes over Max_Payload_Size %d", size, r.cfg.MaxPayload)
			return
		}
		if int(t.ByteCount) != remaining {
			r.fail(now, BadByteCount, t.Tag, "Byte Count %d, %d bytes still expected", t.ByteCount, remaining)
			return
		}
		if t.LowerAddr != uint8(next&0x7f) {
			r.fail(now, BadLowerAddr, t.Tag, "Lower Address %#x, next byte at %#x", t.LowerAddr, next)
			return
		}
		off := int(next & 3)
		avail := size - off // bytes of the read this completion carries
		n := avail
		if avail >= remaining {
			if avail-remaining >= DWBytes {
				r.fail(now, BadLength, t.Tag, "%d DW for the last %d bytes", t.LengthDW, remaining)
				return
			}
			n = remaining
			s.cFinal = true
		} else if end := (next &^ 3) + uint64(size); end%uint64(r.cfg.RCB) != 0 {
			r.fail(now, BadRCB, t.Tag, "partial completion ends at %#x, off the %d-byte RCB", end, r.cfg.RCB)
			return
		} else {
			s.cFinal = false
		}
		s.cStatus = SC
		s.cSrc = t.Data[off : off+n]
		s.cDst = ts.off + ts.got
	}
	s.cOK, s.cTag = true, t.Tag
	if !s.cFinal {
		return
	}
	rd := ts.rd
	if rd.issuedAll && rd.outstanding == 1 {
		st := rd.status
		if st == SC {
			st = s.cStatus
		}
		// The buffer receives this completion's bytes at the clock edge
		// (Commit), before the client can see the response.
		r.deliver(rd.client, ReadResp{ID: rd.id, Addr: rd.addr, Data: rd.data, Status: st})
	}
}

// issue sends a message, or grants one client round-robin and sends its
// next MRd.
func (r *Requester) issue(now uint64) {
	s := &r.st
	if r.MsgOut != nil && r.MsgOut.Valid() {
		if r.Tx.Ready() {
			r.Tx.Push(*r.MsgOut.Peek())
			r.MsgOut.Pop()
		}
		return
	}
	n := len(r.clients)
	for k := 0; k < n; k++ {
		i := sim.Wrap(r.rr+k, n)
		c := &r.clients[i]
		if !c.req.Valid() {
			continue
		}
		q := c.req.Peek()
		if c.off == 0 { // a new ReadReq
			if len(c.backlog) > 0 {
				continue
			}
			if q.Len < 1 || q.Write && c.tc != TCData && len(q.Data) != q.Len {
				r.fail(now, BadRequest, 0, "client %d ReadReq %d: length %d", i, q.ID, q.Len)
				r.deliver(i, ReadResp{ID: q.ID, Addr: q.Addr, Status: UR})
				c.req.Pop()
				s.rr = sim.Wrap(i+1, n)
				return
			}
		}
		if q.Write {
			if !r.Tx.Ready() {
				return
			}
			r.issueWrite(i, q)
			return
		}
		if r.fLen == 0 {
			s.stall = true
			continue
		}
		if !r.Tx.Ready() {
			return
		}
		addr := q.Addr + uint64(c.off)
		l := FirstSpan(addr, q.Len-c.off, r.cfg.MaxReadRequest)
		if c.tr != nil {
			addr = c.tr(addr)
		}
		tag := r.free[r.fHead]
		tlp := NewRead(r.cfg.RequesterID, tag, addr, l)
		tlp.TC, tlp.Prefix, tlp.AT, tlp.RO, tlp.Origin = c.tc, q.Prefix, q.AT, q.RO, q.Origin.At(uint64(c.off))
		r.Tx.Push(tlp)
		r.stats.Reads++
		r.stats.ReadBytes += uint64(l)
		s.issue, s.iClient, s.iTag, s.iSpan, s.iReq = true, i, tag, Span{addr, l}, *q
		s.iLast = c.off+l == q.Len
		if s.iLast {
			c.req.Pop()
		}
		s.rr = sim.Wrap(i+1, n)
		return
	}
}

// issueWrite sends the next MWr of client i's write q: at most
// Max_Payload_Size, not crossing 4 KB, its payload zeros (the model moves
// no data bytes). The write is answered when its last MWr leaves.
func (r *Requester) issueWrite(i int, q *ReadReq) {
	s := &r.st
	c := &r.clients[i]
	addr := q.Addr + uint64(c.off)
	l := FirstSpan(addr, q.Len-c.off, r.cfg.MaxPayload)
	ldw := LengthDW(addr, l)
	if len(r.zeros) < ldw*DWBytes {
		r.zeros = make([]byte, (MaxLengthDW+1)*DWBytes)
	}
	first, last := ByteEnables(addr, l)
	n := ldw * DWBytes
	data := r.zeros[:n:n]
	if q.Data != nil {
		data = make([]byte, n)
		copy(data[addr&3:], q.Data[c.off:c.off+l])
	}
	r.Tx.Push(TLP{Type: MWr, TC: c.tc, RequesterID: r.cfg.RequesterID, LengthDW: uint16(ldw),
		Addr: addr &^ 3, FirstBE: first, LastBE: last, Data: data, Prefix: q.Prefix, AT: q.AT, RO: q.RO, Origin: q.Origin.At(uint64(c.off))})
	r.stats.Writes++
	r.stats.WriteBytes += uint64(l)
	s.write, s.iClient, s.iSpan = true, i, Span{addr, l}
	s.iLast = c.off+l == q.Len
	if s.iLast {
		c.req.Pop()
		r.deliver(i, ReadResp{ID: q.ID, Addr: q.Addr, Status: SC})
	}
	s.rr = sim.Wrap(i+1, len(r.clients))
}

// Commit latches the cycle's decisions.
func (r *Requester) Commit() {
	s := &r.st
	if s.write {
		c := &r.clients[s.iClient]
		c.off += s.iSpan.Len
		if s.iLast {
			c.off = 0
		}
	}
	if s.popped > 0 {
		for i := range r.clients {
			if s.popBack[i] {
				c := &r.clients[i]
				c.backlog[0] = ReadResp{}
				c.backlog = c.backlog[1:]
				r.backlogged--
			}
		}
	}
	if s.issue {
		c := &r.clients[s.iClient]
		if c.off == 0 {
			q := s.iReq
			c.cur = &r.ctxs.take(1)[0]
			*c.cur = readCtx{client: s.iClient, id: q.ID, addr: q.Addr, data: r.data.take(q.Len)}
		}
		r.fHead = sim.Wrap(r.fHead+1, len(r.free))
		r.fLen--
		r.tags[int(s.iTag)-int(r.cfg.tagBase())] = tagState{rd: c.cur, addr: s.iSpan.Addr, len: s.iSpan.Len, off: c.off}
		c.cur.outstanding++
		c.off += s.iSpan.Len
		if s.iLast {
			c.cur.issuedAll = true
			c.cur, c.off = nil, 0
		}
	}
	if s.cOK {
		idx := int(s.cTag) - int(r.cfg.tagBase())
		ts := &r.tags[idx]
		rd := ts.rd
		copy(rd.data[s.cDst:], s.cSrc)
		ts.got += len(s.cSrc)
		if s.cFinal {
			if rd.status == SC {
				rd.status = s.cStatus
			}
			rd.outstanding--
			*ts = tagState{}
			r.free[sim.Wrap(r.fHead+r.fLen, len(r.free))] = s.cTag
			r.fLen++
		}
		s.cSrc = nil
	}
	for _, a := range s.appends {
		c := &r.clients[a.client]
		c.backlog = append(c.backlog, a.resp)
		r.backlogged++
	}
	r.rr = s.rr
}
