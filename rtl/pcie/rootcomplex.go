package pcie

import (
	"math/bits"

	"mkeysim/rtl/sim"
)

// RootComplexStats are the host side's counters: what the host saw of the
// device's traffic. Each field's tags are the counter's one definition
// (sim.Counter), under the group pcie.
type RootComplexStats struct {
	Reads       uint64 `counter:"reads" unit:"TLPs" help:"MRd TLPs the host took from the link"`
	Writes      uint64 `counter:"writes" unit:"TLPs" help:"MWr TLPs the host applied to memory"`
	Completions uint64 `counter:"completions" unit:"TLPs" help:"CplD and Cpl TLPs the host sent"`
	ReadBytes   uint64 `counter:"read_bytes" unit:"bytes" help:"bytes the host returned: the byte counts of the reads it answered with SC"`
	WriteBytes  uint64 `counter:"write_bytes" unit:"bytes" help:"bytes the host wrote: the enabled bytes of the MWr TLPs it applied"`
	Unsupported uint64 `counter:"unsupported" unit:"TLPs" help:"MRd TLPs the host answered with UR (they broke a rule of TLP.Validate: an address or length the PCIe rules refuse)"`
	Dropped     uint64 `counter:"dropped" unit:"TLPs" help:"malformed MWr TLPs and stray completions the host dropped"`
	StallCycles uint64 `counter:"stall_cycles" unit:"cycles" help:"cycles a completion waited because the downstream link did not take it"`
	// The data path's share (traffic class TCData): host memory beyond
	// the ICM is not modelled, so its reads return zeros and its writes
	// are counted, not stored.
	DataReads      uint64 `counter:"data_reads" unit:"TLPs" help:"MRd TLPs of the data path (TC 1) the host took from the link, of reads; answered with zeros after data_latency_cycles"`
	DataReadBytes  uint64 `counter:"data_read_bytes" unit:"bytes" help:"bytes the host returned for the data path's reads, of read_bytes"`
	DataWrites     uint64 `counter:"data_writes" unit:"TLPs" help:"MWr TLPs of the data path (TC 1) the host took: counted, not stored (not in writes)"`
	DataWriteBytes uint64 `counter:"data_write_bytes" unit:"bytes" help:"the enabled bytes of the data path's MWr TLPs (not in write_bytes)"`
	// What the host's CPU sends the device: doorbells.
	HostWrites uint64 `counter:"host_writes" unit:"TLPs" help:"MWr TLPs the host's CPU sent down to the device (doorbells of the host front)"`
	// Relaxed ordering (issue 37 part 4): the data path's TLPs with RO,
	// and, with host.write_latency_cycles, the posted-write buffer and
	// the ordering rules (HostConfig).
	ROWrites        uint64 `counter:"ro_writes" unit:"TLPs" help:"MWr TLPs of the data path with Relaxed Ordering (a key with relaxed_ordering_write) the host took, of data_writes"`
	ROReads         uint64 `counter:"ro_reads" unit:"TLPs" help:"MRd TLPs of the data path with Relaxed Ordering (a key with relaxed_ordering_read) the host took, of data_reads: RO lets no read pass a posted write (PCIe rule B2a), it is copied to the completions"`
	WritesHeld      uint64 `counter:"writes_held" unit:"TLPs" help:"posted data writes without RO that host memory could have accepted (their write latency had passed) but that waited for an earlier write still in the posted-write buffer: no passing without RO (PCIe rule A2a)" cover:"write_held" coverdesc:"a posted write without RO waited for an earlier write (head-of-line blocking)"`
	WriteHoldCycles uint64 `counter:"write_hold_cycles" unit:"write-cycles" help:"cycles the writes_held waited past their own write latency, summed over them"`
	ROWritesPassed  uint64 `counter:"ro_writes_passed" unit:"TLPs" help:"posted data writes with RO that host memory accepted while an earlier write was still in the posted-write buffer: they passed it (PCIe rule A2b)" cover:"ro_write_passed" coverdesc:"a posted write with RO passed an earlier write still in the buffer"`
	WriteBufferFull uint64 `counter:"write_buffer_full_cycles" unit:"cycles" help:"cycles a data MWr waited at the head of the data pipe because host.write_buffer_entries writes were in the posted-write buffer (the pipe, then the link, back up)"`
	ReadFlushCycles uint64 `counter:"read_order_cycles" unit:"cycles" help:"cycles a data MRd waited at the head of the data pipe for the posted writes before it to be accepted: a read may not pass them (PCIe rule B2a)"`
	MaxWriteBuffer  int    `counter:"max_write_buffer" unit:"writes" kind:"max" help:"the most posted writes in the buffer at once (at most host.write_buffer_entries)"`
}

// postedWrite is a data MWr in the posted-write buffer: when host memory
// accepts it (at), whether it has RO, and whether it was counted held.
type postedWrite struct {
	at       uint64
	ro, held bool
}

// RootComplex is the host side of the link, a sim.Component the testbench
// instantiates:
//
//	Rx --> host pipe (ICMLatencyCycles) --> [completer] --> Tx
//	                                       |
//	                                     Memory
//
// It takes one request a cycle from Rx into a pipe of ICMLatencyCycles
// cycles (DataLatencyCycles for TCData). The completer takes requests from
// the pipe in order: an MWr is written to Memory (posted, no answer; one
// that breaks a rule of TLP.Validate is dropped); an MRd reads Memory
// then, when it leaves the pipe, and is answered by its completions
// (SplitCompletion, at RCB-aligned splits of at most MaxPayload) pushed on
// Tx one a cycle, in address order, before the next request is looked at;
// an MRd that breaks a rule of TLP.Validate (a length of 0, crossing 4 KB,
// bad byte enables, ...) is answered by one Cpl with status UR. So an MRd
// taken off Rx at cycle r has its first completion pushed on Tx at
// r + ICMLatencyCycles when the completer is free, and writes and reads
// reach Memory in the order they arrived.
//
// With HostConfig.WriteLatencyCycles (SetHost; issue 37 part 4), host
// memory takes that long, plus a drawn spread, to accept a data write
// (TCData): the completer keeps each in a posted-write buffer until then
// and applies the PCIe ordering rules (HostConfig says which), a data
// write waiting at the head of the data pipe while the buffer is full
// and a data read until the buffer is empty.
type RootComplex struct {
	sim.Base
	sim.CounterSet // stats, under pcie: the host's view of the link's traffic
	name           string
	cfg            Config
	mem            *Memory
	// Rx carries requests from the device, Tx completions to it.
	Rx, Tx *sim.Chan[TLP]
	// CPU, if not nil (SetCPU), carries the MWr TLPs the host's CPU
	// writes to the device (doorbells): sent on Tx between two reads'
	// completions, before the next request is taken.
	CPU *sim.Chan[TLP]
	// Side, if not nil (SetSide), carries the TLPs the host's translation
	// agent sends the device (ATS Translation Completions, Invalidate
	// Requests): sent on Tx as the CPU's are, after them.
	Side *sim.Chan[TLP]
	// IRQ, if not nil (SetIRQ), carries the interrupt messages (MWr in
	// the MSI window, IsMSI) to the CPU, in their place among the
	// device's requests: a message reaches the CPU after every write
	// before it reached memory. Without it they are written as any.
	IRQ   *sim.Chan[TLP]
	pipe  *sim.Chan[TLP] // ICM requests (TC 0), ICMLatencyCycles long
	dpipe *sim.Chan[TLP] // data requests (TCData), DataLatencyCycles long

	// registers
	pending []TLP // completions of the read being answered
	next    int   // index of the next one to send

	stats RootComplexStats // counted by Eval as it decides

	data  slab[byte] // completions' payloads
	spare []TLP      // the completions slice of the read before, reused

	// staged this cycle
	nPending []TLP
	nNext    int
	write    *TLP

	// The posted-write buffer (HostConfig, host: its parameters; off
	// unless host.Enabled()): the data writes taken, oldest first, until
	// host memory accepts them; nHeld of them are held by an earlier one;
	// rng draws each write's spread.
	host  HostConfig
	wbuf  []postedWrite
	nHeld int
	rng   uint64
	latFn func() uint64 // tests: each write's latency instead of the draw
}

// NewRootComplex makes the root complex over mem, of cfg's
// ICMLatencyCycles, DataLatencyCycles, RCB, MaxPayload, SplitOnAllRCB and
// CompleterID. The internal pipes are registered with e; add the root
// complex to e yourself. It panics on a config that Validate refuses.
func NewRootComplex(e *sim.Engine, name string, cfg Config, mem *Memory, rx, tx *sim.Chan[TLP]) *RootComplex {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	pipe := sim.NewChan[TLP](e, name+".pipe", cfg.ICMLatencyCycles+2, cfg.ICMLatencyCycles)
	dpipe := sim.NewChan[TLP](e, name+".data_pipe", cfg.DataLatencyCycles+2, cfg.DataLatencyCycles)
	r := &RootComplex{name: name, cfg: cfg, mem: mem, Rx: rx, Tx: tx, pipe: pipe, dpipe: dpipe}
	r.CounterSet = sim.Declare("pcie", &r.stats)
	return r
}

// Name is the root complex's name.
func (r *RootComplex) Name() string { return r.name }

// Config is the configuration the root complex was made with.
func (r *RootComplex) Config() Config { return r.cfg }

// Stats returns the counters.
func (r *RootComplex) Stats() RootComplexStats { return r.stats }

// SetHost gives the root complex host memory's write latency and its
// posted-write buffer (HostConfig; the default, a latency of 0, leaves
// it as it was). Call it before the engine runs; it panics on a config
// that HostConfig.Validate refuses.
func (r *RootComplex) SetHost(h HostConfig) {
	if err := h.Validate(); err != nil {
		panic(err)
	}
	r.host, r.rng = h, h.WriteLatencySeed
}

// Describe lists what the root complex shows in its waveform scope, host
// (sim.Described): with host.write_latency_cycles, write_buffer (posted
// writes host memory has not accepted) and writes_held (those of them
// whose latency has passed, held by an earlier write: no RO). Without,
// nothing: the scope holds the host's channels alone, as it always did.
func (r *RootComplex) Describe() sim.Description {
	if !r.host.Enabled() {
		return sim.Description{}
	}
	w := sim.WidthFor(r.host.WriteBufferEntries)
	return sim.Description{Scope: r.name, Title: "links and root complex", Signals: []sim.Signal{
		{Name: "write_buffer", Width: w}, {Name: "writes_held", Width: w}},
		Sample: func(vs []uint64) { vs[0], vs[1] = uint64(len(r.wbuf)), uint64(r.nHeld) }}
}

// SetCPU gives the root complex the channel of the CPU's writes to the
// device (doorbells). Call it before the root complex is added to the
// engine.
func (r *RootComplex) SetCPU(c *sim.Chan[TLP]) { r.CPU = c }

// SetSide gives the root complex the channel of the translation agent's
// TLPs to the device. Call it before the root complex is added to the
// engine.
func (r *RootComplex) SetSide(c *sim.Chan[TLP]) { r.Side = c }

// SetIRQ gives the root complex the channel of the interrupt messages to
// the CPU. Call it before the root complex is added to the engine.
func (r *RootComplex) SetIRQ(c *sim.Chan[TLP]) { r.IRQ = c }

// Connections lists the channels the root complex pops and pushes: its
// ports and its pipe, both ends of which it holds (sim.Connected).
func (r *RootComplex) Connections() (in, out []sim.Port) {
	in = []sim.Port{r.Rx, r.pipe, r.dpipe}
	if r.CPU != nil {
		in = append(in, r.CPU)
	}
	if r.Side != nil {
		in = append(in, r.Side)
	}
	out = []sim.Port{r.Tx, r.pipe, r.dpipe}
	if r.IRQ != nil {
		out = append(out, r.IRQ)
	}
	return in, out
}

// Pipe is the internal channel of ICM requests inside the host latency
// (for tracers).
func (r *RootComplex) Pipe() *sim.Chan[TLP] { return r.pipe }

// DataPipe is the same for the data path's requests (TCData).
func (r *RootComplex) DataPipe() *sim.Chan[TLP] { return r.dpipe }

// Eval moves a request from Rx into the pipe and sends the next completion
// or takes the next request from the pipe. It counts each event as it
// decides it (a write's bytes too, though Memory takes them at Commit):
// the counters hold this cycle's events once Eval returns.
func (r *RootComplex) Eval(now uint64) bool {
	if r.Rx.Valid() {
		p := r.pipe
		if r.Rx.Peek().TC == TCData {
			p = r.dpipe
		}
		if p.Ready() {
			p.Push(*r.Rx.Peek())
			r.Rx.Pop()
		}
	}
	r.nPending, r.nNext, r.write = r.pending, r.next, nil
	if len(r.wbuf) > 0 {
		r.accept(now)
	}
	switch {
	case r.next < len(r.pending):
		r.send()
	case r.CPU != nil && r.CPU.Valid():
		if r.Tx.Ready() {
			r.Tx.Push(*r.CPU.Peek())
			r.CPU.Pop()
			r.stats.HostWrites++
		}
	case r.Side != nil && r.Side.Valid():
		if r.Tx.Ready() {
			r.Tx.Push(*r.Side.Peek())
			r.Side.Pop()
		}
	case r.pipe.Valid() && r.IRQ != nil && r.pipe.Peek().Type == MWr && IsMSI(r.pipe.Peek().Addr):
		// An interrupt message: to the CPU, when it can take it.
		if r.IRQ.Ready() {
			r.IRQ.Push(*r.pipe.Peek())
			r.pipe.Pop()
		}
	case r.pipe.Valid():
		// The head stays in its slot until overwritten, after this
		// cycle's commit: no copy (one that escaped would cost an
		// allocation a TLP).
		t := r.pipe.Peek()
		r.pipe.Pop()
		r.take(t, false)
	case r.dpipe.Valid():
		t := r.dpipe.Peek()
		if r.host.Enabled() && !r.ordered(now, t) {
			break // it waits at the head of the pipe
		}
		r.dpipe.Pop()
		r.take(t, true)
	}
	if r.nNext >= len(r.nPending) {
		r.nPending, r.nNext = nil, 0
	}
	// Busy while completions remain, or when a request waits in a pipe
	// behind the ones just answered.
	if len(r.wbuf) > 0 {
		r.wakeForWrites(now)
	}
	return len(r.nPending) > 0 || r.pipe.Valid() || r.dpipe.Valid() || r.CPU != nil && r.CPU.Valid() || r.Side != nil && r.Side.Valid()
}

// wakeForWrites sets the root complex's timer for the next buffered write
// whose latency passes after now: nothing else happens to the buffer in
// the cycles between (a held write leaves with the one that holds it).
func (r *RootComplex) wakeForWrites(now uint64) {
	next := uint64(0)
	for _, w := range r.wbuf {
		if w.at > now && (next == 0 || w.at < next) {
			next = w.at
		}
	}
	if next > 0 {
		r.WakeAt(next)
	}
}

// accept lets host memory accept the buffered writes whose latency has
// passed, in order but for RO: a write without RO only once every
// earlier one has left (rule A2a: it may not pass them), one with RO
// whenever its latency has passed (A2b: it may). A write without RO
// whose latency has passed and that an earlier one holds is counted
// held when its latency passes, and the cycles it waited when it leaves.
func (r *RootComplex) accept(now uint64) {
	kept, held := r.wbuf[:0], 0
	for _, w := range r.wbuf {
		switch {
		case w.at > now:
		case len(kept) == 0:
			// Every earlier write has left: accepted.
			if w.held {
				r.stats.WriteHoldCycles += now - w.at
			}
			continue
		case w.ro:
			r.stats.ROWritesPassed++
			continue // passes the earlier writes still here
		default:
			if !w.held {
				w.held = true
				r.stats.WritesHeld++
			}
			held++
		}
		kept = append(kept, w)
	}
	clear(r.wbuf[len(kept):])
	r.wbuf, r.nHeld = kept, held
}

// ordered reports whether the data request t at the head of the data
// pipe may be taken now (host.write_latency_cycles): a write if the
// posted-write buffer has room, a read once every posted write before it
// has been accepted (rule B2a: a read may not pass a posted write). It
// counts the cycles either waits.
func (r *RootComplex) ordered(now uint64, t *TLP) bool {
	switch t.Type {
	case MWr:
		if t.Validate() != nil || t.Fault {
			return true // dropped, not buffered
		}
		if len(r.wbuf) >= r.host.WriteBufferEntries {
			r.stats.WriteBufferFull++
			return false
		}
		r.wbuf = append(r.wbuf, postedWrite{at: now + r.writeLatency(), ro: t.RO})
		r.stats.MaxWriteBuffer = max(r.stats.MaxWriteBuffer, len(r.wbuf))
	case MRd:
		if len(r.wbuf) > 0 {
			r.stats.ReadFlushCycles++
			return false
		}
	}
	return true
}

// writeLatency is the next write's latency: host.write_latency_cycles
// plus a draw in 0..host.write_latency_spread_cycles.
func (r *RootComplex) writeLatency() uint64 {
	if r.latFn != nil {
		return r.latFn()
	}
	lat := uint64(r.host.WriteLatencyCycles)
	if s := r.host.WriteLatencySpreadCycles; s > 0 {
		lat += splitmix(&r.rng) % uint64(s+1)
	}
	return lat
}

// splitmix is SplitMix64: the next number of the sequence whose state is
// *x.
func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// take acts on the request t at the head of a pipe: an MWr is written
// (a data one only counted), an MRd answered (a data one with zeros).
func (r *RootComplex) take(t *TLP, data bool) {
	switch t.Type {
	case MWr:
		switch {
		case t.Validate() != nil:
			r.stats.Dropped++
		case data:
			r.stats.DataWrites++
			if t.RO {
				r.stats.ROWrites++
			}
			r.stats.DataWriteBytes += uint64(EnabledBytes(int(t.LengthDW), t.FirstBE, t.LastBE))
		default:
			r.write = t
			r.stats.Writes++
			r.stats.WriteBytes += uint64(writtenBytes(t))
		}
	case MRd:
		r.stats.Reads++
		if data {
			r.stats.DataReads++
			if t.RO {
				r.stats.ROReads++
			}
		}
		r.nPending, r.nNext = r.answer(t, data), 0
		r.send()
	default:
		r.stats.Dropped++
	}
}

// send pushes the next staged completion if Tx is ready.
func (r *RootComplex) send() {
	if !r.Tx.Ready() {
		r.stats.StallCycles++
		return
	}
	r.Tx.Push(r.nPending[r.nNext])
	r.nNext++
	r.stats.Completions++
}

// answer builds the completions of the read t, reading Memory now (zeros
// for a data read: host memory beyond the ICM is not modelled).
func (r *RootComplex) answer(t *TLP, data bool) []TLP {
	if t.Fault { // the IOMMU refused it (its gate counted it)
		return []TLP{ErrorCompletion(*t, r.cfg.CompleterID, UR)}
	}
	if t.Validate() != nil {
		r.stats.Unsupported++
		return []TLP{ErrorCompletion(*t, r.cfg.CompleterID, UR)}
	}
	mps := r.cfg.MaxPayload
	if r.cfg.SplitOnAllRCB {
		mps = r.cfg.RCB
	}
	// The slice of completions of the read before is free: they were
	// copied onto Tx.
	cpls := appendCompletions(r.spare[:0], *t, r.cfg.RCB, mps, r.data.take)
	r.spare = cpls
	addr := t.Addr
	for i := range cpls {
		cpls[i].CompleterID = r.cfg.CompleterID
		if data {
			clear(cpls[i].Data)
		} else {
			r.mem.Read(addr, cpls[i].Data)
		}
		addr += uint64(len(cpls[i].Data))
	}
	n := uint64(EnabledBytes(int(t.LengthDW), t.FirstBE, t.LastBE))
	r.stats.ReadBytes += n
	if data {
		r.stats.DataReadBytes += n
	}
	return cpls
}

// Commit latches the completer and applies a write to Memory.
func (r *RootComplex) Commit() {
	if w := r.write; w != nil {
		applyWrite(r.mem, w)
		r.write = nil
	}
	r.pending, r.next = r.nPending, r.nNext
}

// writtenBytes is the number of bytes applyWrite stores for the valid
// MWr w: the bits set in its byte enables, First DW BE for its first DW,
// Last DW BE for its last, all four bytes of the others. It is
// EnabledBytes (a read's byte count) but for the writes that count
// differs on: a 1-DW write with First DW BE 0 (no byte written; a read
// counts 1) and non-contiguous enables, which a write of 1 DW, or of
// 2 DW at a QW-aligned address, may carry (the holes are not written).
func writtenBytes(w *TLP) int {
	ldw := int(w.LengthDW)
	if ldw == 1 {
		return bits.OnesCount8(w.FirstBE & 0xf)
	}
	return (ldw-2)*DWBytes + bits.OnesCount8(w.FirstBE&0xf) + bits.OnesCount8(w.LastBE&0xf)
}

// applyWrite stores the enabled bytes of a valid MWr (writtenBytes of
// them).
func applyWrite(m *Memory, w *TLP) {
	ldw := int(w.LengthDW)
	for i := 0; i < ldw; i++ {
		be := uint8(0xf)
		switch {
		case i == 0:
			be = w.FirstBE
		case i == ldw-1:
			be = w.LastBE
		}
		dw := w.Data[i*DWBytes : (i+1)*DWBytes]
		addr := w.Addr + uint64(i*DWBytes)
		if be == 0xf {
			m.Write(addr, dw)
			continue
		}
		for b := 0; b < DWBytes; b++ {
			if be>>b&1 != 0 {
				m.Write(addr+uint64(b), dw[b:b+1])
			}
		}
	}
}
