package atc

import (
	"math/bits"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/rangecache"
	"mkeysim/rtl/sim"
)

// Ports are the ATC's channels, made by the top: lookups from the data
// path and their results, the entries the data path gives back, the
// Translation Requests to the host and their completions, and the host's
// Invalidate Requests and their completions.
type Ports struct {
	In       *sim.Chan[bus.ATSLookup]
	Out      *sim.Chan[bus.ATSResult]
	Release  *sim.Chan[bus.ATSRelease]
	TransReq *sim.Chan[bus.TransReq]
	TransRsp *sim.Chan[bus.TransResp]
	Inval    *sim.Chan[bus.ATSInval]
	InvalOK  *sim.Chan[bus.ATSInvalDone]
}

// Stats counts the ATC's work. Each field's tags are the counter's one
// definition (sim.Counter) and, where it reaches one, the coverage
// point's (sim.CoverPoint), under the group atc.
type Stats struct {
	Hits          uint64        `counter:"hits" unit:"lookups" help:"lookups whose address a live entry's range held" cover:"hit" coverdesc:"a lookup found a translation in the ATC"`
	Misses        uint64        `counter:"misses" unit:"lookups" help:"lookups no live entry held: they sent a Translation Request or joined the one in flight for their 4 KiB page (merged_misses)" cover:"miss" coverminus:"merged_misses" coverdesc:"a lookup missed and sent a Translation Request"`
	MergedMisses  uint64        `counter:"merged_misses" unit:"lookups" help:"misses that joined the Translation Request already in flight for their page" cover:"merged_miss" coverdesc:"a lookup missed and waited for the Translation Request of its page already in flight"`
	Requests      uint64        `counter:"translation_requests" unit:"requests" help:"Translation Requests sent to the host: one per page missed, plus refetches"`
	Refetches     uint64        `counter:"refetches" unit:"requests" help:"Translation Requests sent again because an invalidation met their page while they were in flight (the answer may predate it)" cover:"refetch" coverdesc:"an invalidation met a Translation Request in flight: its answer was dropped and the page asked again"`
	Fills         uint64        `counter:"fills" unit:"entries" help:"translations installed from a completion that granted R or W"`
	Evictions     uint64        `counter:"evictions" unit:"entries" help:"fills that replaced a live translation" cover:"eviction" coverdesc:"a fill replaced a live translation of the ATC"`
	Faults        uint64        `counter:"faults" unit:"lookups" help:"lookups answered with no translation: the host gave none (UR, CA, or neither R nor W), or not the write permission a write needs" cover:"fault" coverdesc:"a lookup was answered with no translation"`
	InvalRequests uint64        `counter:"inval_requests" unit:"requests" help:"Invalidate Requests taken from the host, each answered by an Invalidate Completion"`
	Invalidations uint64        `counter:"invalidations" unit:"entries" help:"live translations dropped by Invalidate Requests" cover:"invalidation" coverdesc:"an Invalidate Request dropped a live translation"`
	HeldInvals    uint64        `counter:"held_invalidations" unit:"requests" help:"Invalidate Requests whose completion waited for results still holding a dropped translation" cover:"inval_held" coverdesc:"an Invalidate Completion waited for an access still using the old translation"`
	MaxMSHRs      int           `counter:"max_mshrs_in_use" unit:"requests" kind:"max" help:"the most Translation Requests in flight at once"`
	Stalls        sim.Stalls    `counter:"stall_cycles" unit:"cycles" kind:"wait" help:"cycles a lookup waited at the head of In: no MSHR or target free, or its result had no room"`
	MSHRCycles    sim.Occupancy `counter:"mshr_cycles" unit:"MSHR-cycles" kind:"occupancy" mean:"mean_mshrs_in_use" help:"Translation Requests in flight, summed over the cycles (mean_mshrs_in_use = mshr_cycles / cycles)"`
}

// mshr is one Translation Request: its 4 KiB page, the lookups waiting for
// it, whether it has been sent, and whether an invalidation met it in
// flight (stale: its answer is dropped and the page asked again).
type mshr struct {
	busy, sent, stale bool
	page              uint64
	targets           []bus.ATSLookup
}

// pendingInval is an Invalidate Request whose range dying entries still
// meet.
type pendingInval struct {
	itag   uint8
	lo, hi uint64
}

// translation is what an entry holds (rangecache.Entry): the translated
// range's base, the permissions, and how many OK results hold it. An
// entry an invalidation dropped while results held it is hidden
// (dying): no lookup finds it, and it frees with its last holder.
type translation struct {
	pa    uint64
	r, w  bool
	users int
}

// Unit is the ATC. The engine evaluates it only in the cycles something
// happens to it (sim.Base).
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under atc
	name           string
	cfg            Config
	p              Ports
	arr            *rangecache.Array[translation]
	mshrs          []mshr
	inUse          int
	outQ           []bus.ATSResult // results waiting for Out
	outCap         int
	invals         []pendingInval // in the order taken
	doneQ          []bus.ATSInvalDone
	stats          Stats
	// strobes of this cycle, for waveforms
	hit, miss, fill, inval bool
}

// New makes an empty ATC; cfg must be valid (Config.Validate).
func New(name string, cfg Config, p Ports) *Unit {
	u := &Unit{name: name, cfg: cfg, p: p, arr: rangecache.NewOf[translation](cfg.Cache),
		mshrs:  make([]mshr, cfg.MSHRs),
		outCap: cfg.MSHRs*cfg.Targets + 1}
	u.CounterSet = sim.Declare("atc", &u.stats)
	return u
}

// Name is the unit's hierarchical name.
func (u *Unit) Name() string { return u.name }

// Stats returns the counters.
func (u *Unit) Stats() Stats { return u.stats }

// Connections lists the channels the ATC pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	p := &u.p
	return []sim.Port{p.In, p.Release, p.TransRsp, p.Inval}, []sim.Port{p.Out, p.TransReq, p.InvalOK}
}

// Describe lists what the ATC shows in its waveform scope: the entries
// held, the Translation Requests in flight, the results and invalidate
// completions waiting, and the cycle's strobes (sim.Described).
func (u *Unit) Describe() sim.Description {
	return sim.Description{Scope: u.name, Title: "ATS translation cache", Signals: []sim.Signal{
		{Name: "entries", Width: sim.WidthFor(u.arr.Len())}, {Name: "mshrs", Width: sim.WidthFor(len(u.mshrs))},
		{Name: "out_waiting", Width: sim.WidthFor(u.outCap)}, {Name: "invals_waiting", Width: 6},
		sim.Bit("hit"), sim.Bit("miss"), sim.Bit("fill"), sim.Bit("inval")},
		Sample: func(vs []uint64) {
			ran := u.Ran()
			vs[0], vs[1], vs[2], vs[3] = uint64(u.arr.Held()), uint64(u.inUse), uint64(len(u.outQ)), uint64(len(u.invals))
			vs[4], vs[5], vs[6], vs[7] = sim.B(ran && u.hit), sim.B(ran && u.miss), sim.B(ran && u.fill), sim.B(ran && u.inval)
		}}
}

// Eval runs one cycle: a release, a Translation Completion, an Invalidate
// Request, one lookup, then one push on each output.
func (u *Unit) Eval(now uint64) bool {
	moves := u.Handshakes()
	u.hit, u.miss, u.fill, u.inval = false, false, false, false
	p := &u.p
	if p.Release.Valid() {
		u.release(int(p.Release.Peek().Entry))
		p.Release.Pop()
	}
	if p.TransRsp.Valid() && u.complete(p.TransRsp.Peek()) {
		p.TransRsp.Pop()
	}
	if p.Inval.Valid() {
		u.invalidate(p.Inval.Peek())
		p.Inval.Pop()
	}
	u.settle()
	waited := false
	if p.In.Valid() {
		if u.lookup(p.In.Peek()) {
			p.In.Pop()
		} else {
			waited = true
		}
	}
	u.send()
	if len(u.outQ) > 0 && p.Out.Ready() {
		p.Out.Push(u.outQ[0])
		u.outQ = u.outQ[1:]
	}
	if len(u.doneQ) > 0 && p.InvalOK.Ready() {
		p.InvalOK.Push(u.doneQ[0])
		u.doneQ = u.doneQ[1:]
	}
	u.stats.Stalls.Note(now, waited)
	u.stats.MSHRCycles.NoteN(now, uint64(u.inUse))
	return len(u.outQ) > 0 || len(u.doneQ) > 0 || u.unsent() || u.Handshakes() != moves
}

// release gives back an entry a result held.
func (u *Unit) release(i int) {
	if i >= u.arr.Len() || u.arr.At(i).Val.users == 0 {
		return // nothing holds it: not ours
	}
	e := u.arr.At(i)
	if e.Val.users--; e.Val.users == 0 && e.Hidden {
		u.arr.Free(i)
	}
}

// complete takes the Translation Completion r; it reports false when the
// fill must wait for a way no result holds.
func (u *Unit) complete(r *bus.TransResp) bool {
	id := int(r.ID)
	if id >= len(u.mshrs) || !u.mshrs[id].busy || !u.mshrs[id].sent {
		return true // not ours
	}
	m := &u.mshrs[id]
	if m.stale {
		m.sent, m.stale = false, false // ask again
		u.stats.Refetches++
		return true
	}
	entry, ok := -1, r.OK && (r.R || r.W) && r.Size >= pageBytes && bits.OnesCount64(r.Size) == 1
	if ok {
		log := uint8(bits.TrailingZeros64(r.Size))
		base := m.page &^ (r.Size - 1)
		if entry = u.arr.Lookup(0, m.page); entry < 0 {
			var evicted, room bool
			t := translation{pa: r.Translated &^ (r.Size - 1), r: r.R, w: r.W}
			if entry, evicted, room = u.arr.Fill(0, base, log, t, u.held); !room {
				return false
			}
			u.stats.Fills++
			u.fill = true
			if evicted {
				u.stats.Evictions++
			}
		}
	}
	for _, l := range m.targets {
		u.answer(l, entry)
	}
	*m = mshr{targets: m.targets[:0]}
	u.inUse--
	return true
}

// answer queues the result of lookup l from entry (-1: no translation).
func (u *Unit) answer(l bus.ATSLookup, entry int) {
	res := bus.ATSResult{Tag: l.Tag, Len: l.Len}
	if entry >= 0 {
		e := u.arr.At(entry)
		if l.Write && !e.Val.w || !l.Write && !e.Val.r {
			entry = -1
		} else {
			res.OK, res.Addr, res.Entry = true, e.Val.pa+(l.Addr-e.Base), uint16(entry)
			e.Val.users++
		}
	}
	if entry < 0 {
		u.stats.Faults++
	}
	u.outQ = append(u.outQ, res)
}

// invalidate drops the translations of the Invalidate Request's range and
// marks the Translation Requests in flight for it stale; the completion
// waits until no result holds a dropped translation.
func (u *Unit) invalidate(r *bus.ATSInval) {
	u.stats.InvalRequests++
	u.inval = true
	lo, hi := r.Addr, r.Addr+max(r.Size, 1)
	if hi < lo {
		hi = ^uint64(0) // to the top of the address space
	}
	u.stats.Invalidations += uint64(u.arr.Invalidate(0, true, lo, hi, u.held))
	for i := range u.mshrs {
		if m := &u.mshrs[i]; m.busy && m.sent && m.page < hi && lo < m.page+pageBytes {
			m.stale = true
		}
	}
	if u.arr.HiddenIn(lo, hi) {
		u.stats.HeldInvals++
	}
	u.invals = append(u.invals, pendingInval{itag: r.ITag, lo: lo, hi: hi})
}

// settle completes, in the order taken, the Invalidate Requests whose
// range no dying entry meets any more.
func (u *Unit) settle() {
	for len(u.invals) > 0 && !u.arr.HiddenIn(u.invals[0].lo, u.invals[0].hi) {
		u.doneQ = append(u.doneQ, bus.ATSInvalDone{ITag: u.invals[0].itag})
		u.invals = u.invals[1:]
	}
}

// lookup serves the lookup l at the head of In: a hit queues its result,
// a miss joins or opens a Translation Request. It reports false when l
// must wait (no room for its result, no MSHR or target free).
func (u *Unit) lookup(l *bus.ATSLookup) bool {
	if len(u.outQ) >= u.outCap {
		return false
	}
	if i := u.arr.Lookup(0, l.Addr); i >= 0 {
		u.stats.Hits++
		u.hit = true
		u.arr.Use(i)
		u.answer(*l, i)
		return true
	}
	page := l.Addr &^ (pageBytes - 1)
	free := -1
	for i := range u.mshrs {
		m := &u.mshrs[i]
		if m.busy && m.page == page {
			if len(m.targets) == u.cfg.Targets {
				return false
			}
			m.targets = append(m.targets, *l)
			u.stats.Misses++
			u.stats.MergedMisses++
			u.miss = true
			return true
		}
		if !m.busy && free < 0 {
			free = i
		}
	}
	if free < 0 {
		return false
	}
	m := &u.mshrs[free]
	m.busy, m.page, m.targets = true, page, append(m.targets[:0], *l)
	u.inUse++
	u.stats.MaxMSHRs = max(u.stats.MaxMSHRs, u.inUse)
	u.stats.Misses++
	u.miss = true
	return true
}

// send pushes the Translation Request of the lowest MSHR not sent yet.
func (u *Unit) send() {
	if !u.p.TransReq.Ready() {
		return
	}
	for i := range u.mshrs {
		if m := &u.mshrs[i]; m.busy && !m.sent {
			u.p.TransReq.Push(bus.TransReq{ID: uint16(i), Addr: m.page})
			m.sent = true
			u.stats.Requests++
			return
		}
	}
}

// held reports whether results hold entry i.
func (u *Unit) held(i int) bool { return u.arr.At(i).Val.users > 0 }

// unsent reports whether a Translation Request waits to be sent.
func (u *Unit) unsent() bool {
	for i := range u.mshrs {
		if u.mshrs[i].busy && !u.mshrs[i].sent {
			return true
		}
	}
	return false
}

// pageBytes is the smallest translation and the page a Translation
// Request asks for.
const pageBytes = 4096
