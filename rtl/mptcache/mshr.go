package mptcache

import (
	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/sim"
)

// mshrState is the state of one MSHR.
type mshrState uint8

const (
	// mshrFree: the entry holds nothing.
	mshrFree mshrState = iota
	// mshrIssue: the entry needs its read sent (after an invalidation hit
	// it while its line was replaying, or after a stale fill).
	mshrIssue
	// mshrWait: the read is in flight; stale says an invalidation of the
	// index arrived since it was sent, so its data must not be installed.
	mshrWait
	// mshrReplay: the line arrived and its MKC is held here; the targets
	// leave one per cycle per virtual channel.
	mshrReplay
)

// Virtual channels of the targets and outputs.
const (
	vcLevel0 = 0 // Out
	vcLoop   = 1 // OutLoop
	numVC    = 2
)

func vcOf(p *bus.Piece) int {
	if p.Loop() {
		return vcLoop
	}
	return vcLevel0
}

// targetQueue is a FIFO of pieces waiting for one MSHR's line.
type targetQueue struct {
	buf     []bus.Piece
	head, n int
}

func (q *targetQueue) push(p bus.Piece) {
	q.buf[sim.Wrap(q.head+q.n, len(q.buf))] = p
	q.n++
}

func (q *targetQueue) front() *bus.Piece { return &q.buf[q.head] }

func (q *targetQueue) pop() {
	q.buf[q.head] = bus.Piece{}
	q.head = sim.Wrap(q.head+1, len(q.buf))
	q.n--
}

// mshr is one miss status holding register: the index it fetches and the
// pieces waiting for it, one FIFO per virtual channel (so a level-0 target
// that cannot leave never holds up a loop target, and order is kept within
// each channel). Its ID, the read's ID, is its position in the file.
type mshr struct {
	id    int // its position in the file
	state mshrState
	index uint32
	// loopOnly marks an MSHR taken from the LoopMSHRs reserved for loop
	// pieces: it takes no level-0 target, so that its life never depends
	// on the level-0 channel (whose consumers may wait on the loop).
	loopOnly bool
	stale    bool
	mkc      prm.MKC
	created  bool
	filled   uint64 // fill sequence number: replay serves the oldest fill first
	q        [numVC]targetQueue
}

func (m *mshr) targets() int { return m.q[vcLevel0].n + m.q[vcLoop].n }

// mshrFile is the MSHRs with counters that let the unit see, without a
// loop, whether any entry is busy, and the sets of entries in each state,
// so that its searches (the CAM, the lowest free entry, the oldest fill)
// look at the entries concerned, not at every one.
type mshrFile struct {
	m         []mshr
	free      sim.Mask // entries in mshrFree
	busy      sim.Mask // the others
	issue     sim.Mask // entries in mshrIssue
	replay    sim.Mask // entries in mshrReplay
	cam       cam      // the busy entries by index
	targets   int      // Config.Targets
	level0Max int      // Targets - LoopTargets
	inMax     int      // MSHRs: the level-0 misses' share
	inUse     int      // entries not free
	issuing   int      // entries in mshrIssue
	replaying int      // entries in mshrReplay
	fillSeq   uint64
}

func newMSHRFile(c *Config) *mshrFile {
	f := &mshrFile{
		m:         make([]mshr, c.MSHRs+c.LoopMSHRs),
		targets:   c.Targets,
		level0Max: c.Targets - c.LoopTargets,
		inMax:     c.MSHRs,
		free:      sim.NewMask(c.MSHRs + c.LoopMSHRs),
		busy:      sim.NewMask(c.MSHRs + c.LoopMSHRs),
		issue:     sim.NewMask(c.MSHRs + c.LoopMSHRs),
		replay:    sim.NewMask(c.MSHRs + c.LoopMSHRs),
		cam:       newCAM(c.MSHRs + c.LoopMSHRs),
	}
	for i := range f.m {
		f.m[i].id = i
		f.free.Set(i)
		for vc := range f.m[i].q {
			f.m[i].q[vc].buf = make([]bus.Piece, c.Targets)
		}
	}
	return f
}

// find returns the busy MSHR of index (a CAM search), or nil.
func (f *mshrFile) find(index uint32) *mshr {
	if f.inUse == 0 {
		return nil
	}
	if i := f.cam.find(index); i >= 0 {
		return &f.m[i]
	}
	return nil
}

// canMerge reports whether m can take one more target of virtual channel
// vc: level-0 pieces leave LoopTargets entries to loop pieces, and never
// join an MSHR of the loop's reserve (a level-0 target there could hold
// it, and so the loop, while level-0 traffic waits on the loop).
func (f *mshrFile) canMerge(m *mshr, vc int) bool {
	if m.targets() >= f.targets {
		return false
	}
	return vc == vcLoop || !m.loopOnly && m.q[vcLevel0].n < f.level0Max
}

// canAlloc reports whether a miss of virtual channel vc may take an MSHR:
// level-0 misses leave LoopMSHRs entries to loop misses.
func (f *mshrFile) canAlloc(vc int) bool {
	if vc == vcLoop {
		return f.inUse < len(f.m)
	}
	return f.inUse < f.inMax
}

// alloc takes the lowest free MSHR for index with p as its first target,
// in state mshrWait (the caller sends the read in the same cycle), and
// returns its ID. A loop piece that finds the shared MSHRs all in use
// takes one of the loop's reserve, which then serves loop pieces only.
func (f *mshrFile) alloc(index uint32, p bus.Piece) uint32 {
	loopOnly := vcOf(&p) == vcLoop && f.inUse >= f.inMax
	i := f.free.Next(0)
	if i < 0 {
		panic("mptcache: alloc with no free MSHR")
	}
	m := &f.m[i]
	m.state, m.index, m.stale, m.loopOnly = mshrWait, index, false, loopOnly
	f.free.Clear(i)
	f.busy.Set(i)
	f.cam.add(index, i)
	m.q[vcOf(&p)].push(p)
	f.inUse++
	return uint32(i)
}

// firstIssue returns the lowest MSHR waiting to send its read, or -1.
func (f *mshrFile) firstIssue() int {
	if f.issuing == 0 {
		return -1
	}
	return f.issue.Next(0)
}

// setState moves m to s, keeping the counters.
func (f *mshrFile) setState(m *mshr, s mshrState) {
	switch m.state {
	case mshrIssue:
		f.issuing--
		f.issue.Clear(m.id)
	case mshrReplay:
		f.replaying--
		f.replay.Clear(m.id)
	}
	switch s {
	case mshrIssue:
		f.issuing++
		f.issue.Set(m.id)
	case mshrReplay:
		f.replaying++
		f.replay.Set(m.id)
		f.fillSeq++
		m.filled = f.fillSeq
	case mshrFree:
		f.inUse--
		f.busy.Clear(m.id)
		f.free.Set(m.id)
		f.cam.remove(m.index)
		m.stale = false
		m.mkc, m.created = prm.MKC{}, false
	}
	m.state = s
}

// oldestReplay returns the replaying MSHR with a target of virtual channel
// vc that was filled first, or nil.
func (f *mshrFile) oldestReplay(vc int) *mshr {
	if f.replaying == 0 {
		return nil
	}
	var best *mshr
	for i := f.replay.Next(0); i >= 0; i = f.replay.Next(i + 1) {
		m := &f.m[i]
		if m.q[vc].n > 0 && (best == nil || m.filled < best.filled) {
			best = m
		}
	}
	return best
}
