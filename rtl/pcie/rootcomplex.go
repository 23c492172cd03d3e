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
	Side  *sim.Chan[TLP]
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

// SetCPU gives the root complex the channel of the CPU's writes to the
// device (doorbells). Call it before the root complex is added to the
// engine.
func (r *RootComplex) SetCPU(c *sim.Chan[TLP]) { r.CPU = c }

// SetSide gives the root complex the channel of the translation agent's
// TLPs to the device. Call it before the root complex is added to the
// engine.
func (r *RootComplex) SetSide(c *sim.Chan[TLP]) { r.Side = c }

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
	return in, []sim.Port{r.Tx, r.pipe, r.dpipe}
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
	case r.pipe.Valid():
		// The head stays in its slot until overwritten, after this
		// cycle's commit: no copy (one that escaped would cost an
		// allocation a TLP).
		t := r.pipe.Peek()
		r.pipe.Pop()
		r.take(t, false)
	case r.dpipe.Valid():
		t := r.dpipe.Peek()
		r.dpipe.Pop()
		r.take(t, true)
	}
	if r.nNext >= len(r.nPending) {
		r.nPending, r.nNext = nil, 0
	}
	// Busy while completions remain, or when a request waits in a pipe
	// behind the ones just answered.
	return len(r.nPending) > 0 || r.pipe.Valid() || r.dpipe.Valid() || r.CPU != nil && r.CPU.Valid() || r.Side != nil && r.Side.Valid()
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
