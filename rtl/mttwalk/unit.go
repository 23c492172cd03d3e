package mttwalk

import (
	"math/bits"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// State is the walker's FSM state.
type State uint8

// The states.
const (
	Idle State = iota
	Page
	Fetch
)

// StateNames names the states for waveforms.
func StateNames() map[uint64]string {
	return map[uint64]string{0: "IDLE", 1: "PAGE", 2: "FETCH"}
}

// Ports are the walker's channels, made by the top.
type Ports struct {
	In      *sim.Chan[bus.Walk]
	Done    *sim.Chan[bus.Outcome]
	MemReq  *sim.Chan[pcie.ReadReq]
	MemResp *sim.Chan[pcie.ReadResp]
	Ctrl    *sim.Chan[bus.Inval]
	Ack     *sim.Chan[bus.Ack]
}

// Stats counts the walker's work.
type Stats struct {
	Cache  linecache.Stats `json:"cache"`
	Pieces uint64          `json:"pieces"`
	Pages  uint64          `json:"pages"`
	Faults uint64          `json:"page_bit_misses"`
}

// Unit is the MTT walker.
type Unit struct {
	name  string
	p     Ports
	cache *linecache.Cache

	state State
	cur   bus.Walk
	t     uint64 // bytes of cur done
	fetch uint64 // line address being fetched
	stale bool   // the fetch was invalidated while in flight
	reqID uint32

	pieces, pages, faults uint64
	// strobes of this cycle, for waveforms
	hit, miss, fill bool
}

// New makes a walker; cfg must be valid.
func New(name string, cfg Config, p Ports) *Unit {
	return &Unit{name: name, p: p, cache: linecache.New(cfg.Cache)}
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// State is the current FSM state.
func (u *Unit) State() State { return u.state }

// Current is the piece being walked and the bytes done, for waveforms.
func (u *Unit) Current() (*bus.Walk, uint64) { return &u.cur, u.t }

// Strobes are this cycle's cache events.
func (u *Unit) Strobes() (hit, miss, fill bool) { return u.hit, u.miss, u.fill }

// Stats returns the counters.
func (u *Unit) Stats() Stats {
	return Stats{Cache: u.cache.Stats, Pieces: u.pieces, Pages: u.pages, Faults: u.faults}
}

// Eval runs one cycle: invalidation, fill, then one page of the current
// piece or the intake of the next.
func (u *Unit) Eval(now uint64) bool {
	u.hit, u.miss, u.fill = false, false, false
	if u.p.Ctrl.Valid() && u.p.Ack.Ready() {
		iv := u.p.Ctrl.Peek()
		u.cache.Invalidate(iv.Lo, iv.Hi, iv.All)
		if u.state == Fetch && (iv.All || u.fetch < iv.Hi && u.fetch+linecache.LineSize > iv.Lo) {
			u.stale = true
		}
		u.p.Ack.Push(bus.Ack{ID: iv.ID})
		u.p.Ctrl.Pop()
	}
	switch u.state {
	case Idle:
		if !u.p.In.Valid() {
			return false
		}
		u.cur = *u.p.In.Peek()
		u.p.In.Pop()
		u.t = 0
		u.pieces++
		u.state = Page
		u.page()
		return true
	case Fetch:
		if !u.p.MemResp.Valid() {
			return false // the fill arrives on a channel, which wakes the engine
		}
		r := u.p.MemResp.Peek()
		if u.stale {
			// The data may predate the invalidation: fetch again.
			if u.p.MemReq.Ready() {
				u.reqID++
				u.p.MemReq.Push(pcie.ReadReq{ID: u.reqID, Addr: u.fetch, Len: linecache.LineSize})
				u.stale = false
				u.p.MemResp.Pop()
			}
			return true
		}
		u.cache.Fill(r.Addr, r.Data)
		u.fill = true
		u.p.MemResp.Pop()
		u.state = Page
		return true
	}
	u.page()
	return true
}

// page translates the next page of the current piece, if its line is
// cached and the output is ready.
func (u *Unit) page() {
	w := &u.cur
	m := &w.MKC
	log := uint(m.LogEntitySize)
	size := uint64(1) << log
	d := w.Addr - m.StartAddr
	b := m.StartAddr & (size - 1)
	lo, c1 := bits.Add64(b, d, 0)
	lo, c2 := bits.Add64(lo, u.t, 0)
	hi := c1 + c2
	i := lo>>log | hi<<(64-log)
	off := w.Offset + u.t
	rest := w.Len - u.t
	if hi>>log != 0 || i >= 2*uint64(m.TranslationsOctwordSize) {
		u.finish(bus.Outcome{Tag: w.Tag, Offset: off, Len: rest, Status: prm.TranslationRange, Level: w.Level})
		return
	}
	addr := m.MTTHandle + 8*i
	data, ok := u.cache.Lookup(addr)
	if !ok {
		u.miss = true
		if u.p.MemReq.Ready() {
			u.fetch = addr &^ (linecache.LineSize - 1)
			u.reqID++
			u.p.MemReq.Push(pcie.ReadReq{ID: u.reqID, Addr: u.fetch, Len: linecache.LineSize})
			u.state = Fetch
		}
		return
	}
	u.hit = true
	if !u.p.Done.Ready() {
		return
	}
	at := addr % linecache.LineSize
	e := prm.DecodeMTTEntry(data[at : at+8])
	pg := lo & (size - 1)
	n := min(rest, size-pg)
	u.pages++
	if !w.Type.PageAllows(e) {
		u.faults++
		u.finish(bus.Outcome{Tag: w.Tag, Offset: off, Len: rest, Status: prm.PageAccess, Level: w.Level,
			Missing: true, FaultKey: w.Key, FaultAddr: w.Addr + u.t})
		return
	}
	u.p.Done.Push(bus.Outcome{Tag: w.Tag, Offset: off, Len: n, Status: prm.OK, Level: w.Level,
		Seg: prm.Segment{Space: prm.SpaceDMA, Addr: e.PageBase(uint8(log)) + pg, Len: n}})
	u.t += n
	if u.t == w.Len {
		u.state = Idle
	}
}

// finish emits a failure covering the rest of the piece, if Done is ready.
func (u *Unit) finish(o bus.Outcome) {
	if !u.p.Done.Ready() {
		return
	}
	u.p.Done.Push(o)
	u.state = Idle
}

// Commit has nothing to latch: the walker's registers are its own and are
// updated in Eval after they are read, as a next-state function would.
func (u *Unit) Commit() {}
