package walk

import (
	"encoding/binary"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// This file holds the bench both tests of Contexts use: an engine with the
// channels a walker shares, a component on the host side (env) and one on
// the walker side (walker), each a function of the cycle.

// shape is a bench's parameters.
type shape struct {
	n          int  // contexts
	merge      bool // merged misses
	sets       int  // direct-mapped sets of the cache (one line each)
	perLine    int  // entries per line
	entryBytes int
	reqDepth   int // MemReq's depth: 1 makes it full while the host holds it
	ackDepth   int
	noCut      bool // no Cut channel
}

// rig is Contexts on a bench.
type rig struct {
	e           *sim.Engine
	p           Ports
	c           Contexts
	env, walker func(now uint64)
}

// stage is a component that calls *f each cycle; it has no Base, so the
// engine evaluates it in every cycle stepped.
type stage struct {
	name string
	f    *func(now uint64)
}

func (s stage) Name() string { return s.name }
func (s stage) Eval(now uint64) bool {
	if *s.f != nil {
		(*s.f)(now)
	}
	return false
}

func newRig(sh shape) *rig {
	e := sim.New()
	r := &rig{e: e}
	r.p = Ports{
		MemReq:  sim.NewChan[pcie.ReadReq](e, "mem_req", sh.reqDepth, 1),
		MemResp: sim.NewChan[pcie.ReadResp](e, "mem_resp", 2, 1),
		Ctrl:    sim.NewChan[bus.Inval](e, "ctrl", 2, 1),
		Ack:     sim.NewChan[bus.Ack](e, "ack", sh.ackDepth, 1),
	}
	if !sh.noCut {
		r.p.Cut = sim.NewChan[bus.Cut](e, "cut", 2, 1)
	}
	cfg := linecache.Config{Entries: sh.sets * sh.perLine, EntriesPerLine: sh.perLine, Ways: 1, Replacement: linecache.LRU}
	if err := cfg.Validate("test.", sh.entryBytes); err != nil {
		panic(err)
	}
	r.c = New(sh.n, cfg, sh.entryBytes, sh.merge, r.p)
	e.Add(stage{"env", &r.env}, stage{"walker", &r.walker})
	return r
}

// lineData is the line at la of generation gen (how many times it was
// rewritten): its address, its generation, then the bytes' offsets.
func lineData(la uint64, gen uint8, n int) []byte {
	d := make([]byte, n)
	for k := range d {
		d[k] = byte(k)
	}
	if n >= 9 {
		binary.LittleEndian.PutUint64(d, la)
		d[8] = gen
	}
	return d
}

// lineOf reads back lineData's address and generation (lines of fewer
// than 9 bytes carry neither: ok false).
func lineOf(d []byte) (la uint64, gen uint8, ok bool) {
	if len(d) < 9 {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint64(d), d[8], true
}
