package iommu

import (
	"math/bits"

	"mkeysim/pagetable"
	"mkeysim/rtl/rangecache"
	"mkeysim/rtl/sim"
)

// Request asks for the translation of IOVA in Space for an access that
// reads (Write false) or writes host memory, under ID.
type Request struct {
	ID    uint32
	Space pagetable.Space
	IOVA  uint64
	Write bool
}

// Response answers request ID: OK, the physical address PA of the IOVA
// in a leaf of Size bytes with permissions R and W; not OK, a fault (the
// IOVA is not mapped, or not with the permission the access needs).
type Response struct {
	ID       uint32
	OK       bool
	PA, Size uint64
	R, W     bool
}

// Inval asks the IOMMU to forget what it cached of [IOVA, IOVA+Size) in
// Space (the driver's IOTLB invalidation after an unmap); InvalDone
// answers it once no walk in flight can still give the old mapping.
type Inval struct {
	Space      pagetable.Space
	IOVA, Size uint64
}

// InvalDone completes an Inval.
type InvalDone struct{}

// Ports are the IOMMU's channels: translation requests and responses,
// and the driver's invalidations.
type Ports struct {
	In      *sim.Chan[Request]
	Out     *sim.Chan[Response]
	Inval   *sim.Chan[Inval]
	InvalOK *sim.Chan[InvalDone]
}

// Stats counts the IOMMU's work. Each field's tags are the counter's one
// definition (sim.Counter) and, where it reaches one, the coverage
// point's (sim.CoverPoint), under the group iommu.
type Stats struct {
	Hits          uint64        `counter:"iotlb_hits" unit:"requests" help:"translation requests whose IOVA a live IOTLB entry of their space held" cover:"iotlb_hit" coverdesc:"a translation found its leaf in the IOTLB"`
	Misses        uint64        `counter:"iotlb_misses" unit:"requests" help:"translation requests the IOTLB did not hold: they started a walk or joined the walk of their 4 KiB page in flight (merged_misses)" cover:"iotlb_miss" coverdesc:"a translation missed the IOTLB and walked the I/O page table"`
	MergedMisses  uint64        `counter:"merged_misses" unit:"requests" help:"misses that joined the walk of their page already in flight"`
	Walks         uint64        `counter:"walks" unit:"walks" help:"page walks started: one per page missed, plus walks started again after an invalidation met them"`
	WalkCycles    uint64        `counter:"walk_cycles" unit:"cycles" help:"cycles the walks spent reading entries the page-walk cache did not hold (walk_latency_cycles a level), summed over the walks"`
	LevelsRead    uint64        `counter:"levels_read" unit:"entries" help:"page-table entries the walks read from host memory"`
	PWCHits       uint64        `counter:"pwc_hits" unit:"entries" help:"upper-level entries the walks took from the page-walk cache instead of host memory" cover:"pwc_hit" coverdesc:"a walk skipped a level the page-walk cache held"`
	Faults        uint64        `counter:"faults" unit:"requests" help:"translation requests answered with a fault: the IOVA not mapped, or not with the permission the access needs" cover:"fault" coverdesc:"a translation request faulted"`
	Evictions     uint64        `counter:"iotlb_evictions" unit:"entries" help:"IOTLB fills that replaced a live entry" cover:"iotlb_eviction" coverdesc:"an IOTLB fill replaced a live entry"`
	Invalidations uint64        `counter:"invalidations" unit:"entries" help:"IOTLB entries dropped by the driver's invalidations"`
	Rewalks       uint64        `counter:"rewalks" unit:"walks" help:"walks started again because an invalidation met their page while they were in flight" cover:"rewalk" coverdesc:"an invalidation met a walk in flight, which walked again" coverwhy:"the bench's iommu_unmap reaches the IOMMU after the walks of the accesses before it (with overlap_invalidate too, the walks are short beside the data movement an unmap waits on): the unit's TestInvalidation drives it"`
	MaxWalkers    int           `counter:"max_walkers_in_use" unit:"walks" kind:"max" help:"the most walks in flight at once"`
	Stalls        sim.Stalls    `counter:"stall_cycles" unit:"cycles" kind:"wait" help:"cycles a request waited at the head of In: every walker busy, or its answer had no room"`
	WalkerCycles  sim.Occupancy `counter:"walker_cycles" unit:"walk-cycles" kind:"occupancy" mean:"mean_walkers_in_use" help:"walks in flight, summed over the cycles (mean_walkers_in_use = walker_cycles / cycles)"`
}

// leaf is what an IOTLB entry holds.
type leaf struct {
	pa   uint64
	r, w bool
}

// walk is one page walk in flight: its page, the requests waiting for
// it, the cycle it ends, and whether an invalidation met it (stale).
type walk struct {
	busy, stale bool
	space       pagetable.Space
	page        uint64
	done        uint64
	res         pagetable.Result
	waiting     []Request
}

// Unit is the host IOMMU: an IOTLB, a page-walk cache and walkers that
// read the I/O page tables in host memory. It is host side (not an HCA
// unit): it reads host memory directly, a level every WalkLatencyCycles.
// The engine evaluates it only in the cycles something happens to it.
type Unit struct {
	sim.Base
	sim.CounterSet // stats, under iommu
	name           string
	cfg            Config
	p              Ports
	tables         *pagetable.Tables
	mem            pagetable.Memory
	iotlb          *rangecache.Array[leaf]
	pwc            pwc
	walks          []walk
	inUse          int
	outQ           []Response
	outCap         int
	stats          Stats
}

// New makes an IOMMU over tables (their entries in mem); cfg must be
// valid (Config.Validate).
func New(name string, cfg Config, tables *pagetable.Tables, mem pagetable.Memory, p Ports) *Unit {
	u := &Unit{name: name, cfg: cfg, p: p, tables: tables, mem: mem,
		iotlb: rangecache.NewOf[leaf](cfg.IOTLB),
		pwc:   newPWC(cfg.PWC.Entries), walks: make([]walk, cfg.Walkers), outCap: 4 * cfg.Walkers}
	u.CounterSet = sim.Declare("iommu", &u.stats)
	return u
}

// Name is the component's name.
func (u *Unit) Name() string { return u.name }

// Stats returns the counters.
func (u *Unit) Stats() Stats { return u.stats }

// Connections lists the channels the IOMMU pops and pushes (sim.Connected).
func (u *Unit) Connections() (in, out []sim.Port) {
	return []sim.Port{u.p.In, u.p.Inval}, []sim.Port{u.p.Out, u.p.InvalOK}
}

// Describe lists what the IOMMU shows in its waveform scope: the IOTLB
// entries held and the walks in flight (sim.Described).
func (u *Unit) Describe() sim.Description {
	return sim.Description{Scope: u.name, Title: "host IOMMU", Signals: []sim.Signal{
		{Name: "iotlb_entries", Width: sim.WidthFor(u.iotlb.Len())}, {Name: "walks", Width: sim.WidthFor(len(u.walks))}},
		Sample: func(vs []uint64) { vs[0], vs[1] = uint64(u.iotlb.Held()), uint64(u.inUse) }}
}

// tag is the IOTLB tag of a space.
func tag(s pagetable.Space) uint64 {
	t := uint64(s.ID)
	if s.PASID {
		t |= 1 << 32
	}
	if s.ICM {
		t |= 1 << 33
	}
	return t
}

// Eval runs one cycle: an invalidation, the walks that end, one request,
// and one answer out.
func (u *Unit) Eval(now uint64) bool {
	moves := u.Handshakes()
	p := &u.p
	if p.Inval.Valid() && p.InvalOK.Ready() {
		u.invalidate(p.Inval.Peek())
		p.Inval.Pop()
		p.InvalOK.Push(InvalDone{})
	}
	for i := range u.walks {
		if w := &u.walks[i]; w.busy && w.done <= now {
			u.finish(w, now)
		}
	}
	waited := false
	if p.In.Valid() {
		if u.take(p.In.Peek(), now) {
			p.In.Pop()
		} else {
			waited = true
		}
	}
	if len(u.outQ) > 0 && p.Out.Ready() {
		p.Out.Push(u.outQ[0])
		u.outQ = u.outQ[1:]
	}
	u.stats.Stalls.Note(now, waited)
	u.stats.WalkerCycles.NoteN(now, uint64(u.inUse))
	return len(u.outQ) > 0 || u.Handshakes() != moves
}

// take serves request r: a hit answers it, a miss joins or starts a walk;
// it reports false when r must wait.
func (u *Unit) take(r *Request, now uint64) bool {
	if len(u.outQ) >= u.outCap {
		return false
	}
	if i := u.iotlb.Lookup(tag(r.Space), r.IOVA); i >= 0 {
		u.stats.Hits++
		u.iotlb.Use(i)
		e := u.iotlb.At(i)
		u.answer(*r, e.Val.pa+(r.IOVA-e.Base), e.Size(), e.Val.r, e.Val.w)
		return true
	}
	page := r.IOVA &^ (pagetable.PageBytes - 1)
	free := -1
	for i := range u.walks {
		w := &u.walks[i]
		if w.busy && w.space == r.Space && w.page == page {
			w.waiting = append(w.waiting, *r)
			u.stats.Misses++
			u.stats.MergedMisses++
			return true
		}
		if !w.busy && free < 0 {
			free = i
		}
	}
	if free < 0 {
		return false
	}
	w := &u.walks[free]
	*w = walk{busy: true, space: r.Space, page: page, waiting: append(w.waiting[:0], *r)}
	u.inUse++
	u.stats.MaxWalkers = max(u.stats.MaxWalkers, u.inUse)
	u.stats.Misses++
	u.start(w, now)
	return true
}

// start walks w's page: the entries are read now (the walk's result is
// what the tables hold now; an invalidation before it ends makes it walk
// again), and the walk ends after walk_latency_cycles for each level the
// page-walk cache did not hold.
func (u *Unit) start(w *walk, now uint64) {
	u.stats.Walks++
	root, ok := u.tables.Root(w.space)
	var res pagetable.Result
	if ok {
		res = pagetable.Walk(u.mem, root, w.page)
	}
	read := res.N
	for k := 0; k < res.N; k++ {
		s := res.Steps[k]
		if !s.Entry.Present() || s.Entry.Leaf(s.Level) {
			break
		}
		if u.pwc.has(tag(w.space), s.Level, w.page) {
			read--
			u.stats.PWCHits++
		}
	}
	if !ok {
		read = 1 // the context entry says the space has no table
	}
	u.stats.LevelsRead += uint64(read)
	cycles := uint64(max(read, 1) * u.cfg.WalkLatencyCycles)
	u.stats.WalkCycles += cycles
	w.res, w.done, w.stale = res, now+cycles, false
	u.WakeAt(w.done)
}

// finish ends walk w: a stale walk walks again; else its upper entries go
// to the page-walk cache, its leaf to the IOTLB, and every request
// waiting is answered.
func (u *Unit) finish(w *walk, now uint64) {
	if w.stale {
		u.stats.Rewalks++
		u.start(w, now)
		return
	}
	res, t := w.res, tag(w.space)
	for k := 0; k < res.N; k++ {
		if s := res.Steps[k]; s.Entry.Present() && !s.Entry.Leaf(s.Level) {
			u.pwc.add(t, s.Level, w.page)
		}
	}
	if res.OK {
		base := w.page &^ (res.Size - 1)
		lg := uint8(bits.TrailingZeros64(res.Size))
		l := leaf{pa: res.PA &^ (res.Size - 1), r: res.R, w: res.W}
		if _, evicted, _ := u.iotlb.Fill(t, base, lg, l, nil); evicted {
			u.stats.Evictions++
		}
	}
	for _, r := range w.waiting {
		if res.OK {
			pa := res.PA&^(res.Size-1) + r.IOVA&(res.Size-1)
			u.answer(r, pa, res.Size, res.R, res.W)
		} else {
			u.answer(r, 0, 0, false, false)
		}
	}
	*w = walk{waiting: w.waiting[:0]}
	u.inUse--
}

// answer queues the response to r from a leaf (pa of r's IOVA, size,
// permissions); a leaf without the permission r needs is a fault.
func (u *Unit) answer(r Request, pa, size uint64, rd, wr bool) {
	res := Response{ID: r.ID, PA: pa, Size: size, R: rd, W: wr}
	res.OK = r.Write && wr || !r.Write && rd
	if !res.OK {
		res.PA, res.Size = 0, 0
		u.stats.Faults++
	}
	u.outQ = append(u.outQ, res)
}

// invalidate drops the IOTLB's entries of the range and the page-walk
// cache's of the space, and makes the walks in flight of it stale.
func (u *Unit) invalidate(v *Inval) {
	lo, hi := v.IOVA, v.IOVA+max(v.Size, 1)
	if hi < lo {
		hi = ^uint64(0)
	}
	t := tag(v.Space)
	u.stats.Invalidations += uint64(u.iotlb.Invalidate(t, false, lo, hi, nil))
	u.pwc.drop(t)
	for i := range u.walks {
		if w := &u.walks[i]; w.busy && w.space == v.Space && w.page < hi && lo < w.page+pagetable.PageBytes {
			w.stale = true
		}
	}
}
