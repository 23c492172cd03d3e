package sq

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/internal/chantest"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// bench is the front with a fake host memory, a doorbell source and a
// sink of the WQEs it parses.
type bench struct {
	e    *sim.Engine
	done *chantest.Source[bus.Completion]
	u    *Unit
	mem  *pcie.Memory
	icm  *chantest.Memory
	db   *chantest.Source[pcie.TLP]
	out  *chantest.Sink[bus.WQE]
	pi   map[uint32]uint16
	list uint64
	want []bus.WQE
	at   uint64 // the cycle of the next doorbell
}

// newPorts makes the unit's channels on e.
func newPorts(e *sim.Engine) Ports {
	return Ports{Doorbell: sim.NewChan[pcie.TLP](e, "sq.doorbell", 4, 1), Out: sim.NewChan[bus.WQE](e, "sq.out", 4, 1),
		Done:   sim.NewChan[bus.Completion](e, "sq.done", 4, 1),
		MemReq: sim.NewChan[pcie.ReadReq](e, "sq.mem_req", 4, 1), MemResp: sim.NewChan[pcie.ReadResp](e, "sq.mem_resp", 4, 1)}
}

func newBench(lat func(uint64) uint64, ready func(uint64) bool) *bench {
	return newBenchN(DefaultConfig().FetchOutstanding, lat, ready)
}

// newBenchN is newBench with n reads in flight at most.
func newBenchN(n int, lat func(uint64) uint64, ready func(uint64) bool) *bench {
	e := sim.New()
	b := &bench{e: e, mem: pcie.NewMemory(), pi: map[uint32]uint16{}, list: 1 << 49}
	p := newPorts(e)
	b.u = New("sq", Config{FetchOutstanding: n, WQECacheBBs: 32}, p)
	b.icm = chantest.NewMemory(p.MemReq, p.MemResp, b.mem, lat)
	b.icm.AnySize = true
	b.db = chantest.NewSource("doorbells", p.Doorbell)
	b.done = chantest.NewSource("completions", p.Done)
	b.out = chantest.NewSink("wqes", p.Out, ready)
	e.Add(b.u, b.icm, b.db, b.done, b.out)
	return b
}

// post writes w (its bytes b, its control segment at the QP's producer
// counter) and rings its doorbell; want is what the front must parse.
func (b *bench) post(qpn uint32, build func(index uint16) ([]byte, bus.WQE)) {
	pi := b.pi[qpn]
	raw, _ := build(pi)
	bbs := uint16((len(raw) + 63) / 64)
	for pi%SQRing+bbs > SQRing { // pad to the end with NOPs
		var nop [64]byte
		prm.CtrlSeg{Opcode: prm.OpNOP, WQEIndex: pi, QPN: qpn, DS: 1}.Put(nop[:])
		b.mem.Write(SlotAddr(qpn, pi), nop[:])
		pi++
	}
	raw, want := build(pi)
	b.mem.Write(SlotAddr(qpn, pi), raw)
	b.pi[qpn] = pi + bbs
	b.want = append(b.want, want)
	b.db.Add(b.at, pcie.NewWrite(0, DoorbellAddr, raw[:8]))
	b.at += 3
}

// send is a SEND (LOCAL_READ) or RDMA READ (LOCAL_WRITE) WQE.
func send(qpn uint32, op prm.Opcode, key prm.Key, addr uint64, n uint32) func(uint16) ([]byte, bus.WQE) {
	return func(index uint16) ([]byte, bus.WQE) {
		w := prm.SendWQE{Ctrl: prm.CtrlSeg{Opcode: op, WQEIndex: index, QPN: qpn, CE: prm.CompAlways},
			Data: []prm.DataSeg{{ByteCount: n, LKey: key, Addr: addr}}}
		ds, _ := w.DS()
		w.Ctrl.DS = ds
		return w.Append(nil), bus.WQE{Ctrl: w.Ctrl, Send: w}
	}
}

// umr is a UMR WQE with the list of n MTT entries: inline up to 64
// bytes, else through a pointer (written by the bench).
func (b *bench) umr(qpn uint32, key prm.Key, n int) func(uint16) ([]byte, bus.WQE) {
	entries := make([]prm.MTTEntry, n)
	for i := range entries {
		entries[i] = prm.MTTEntry{PTag: uint64(i+1) << 12, RdEn: true, WrEn: i%2 == 0}
	}
	list := prm.MTTList(entries)
	var at uint64
	if len(list) > 64 {
		at = b.list
		b.list += 2048 * uint64((len(list)+2047)/2048)
		b.mem.Write(at, list)
	}
	return func(index uint16) ([]byte, bus.WQE) {
		w := prm.UMRWQE{Ctrl: prm.CtrlSeg{Opcode: prm.OpUMR, WQEIndex: index, QPN: qpn, Imm: uint32(key)},
			UMR: prm.UMRCtrl{Inline: true, MKeyMask: prm.MaskAccessMode | prm.MaskLen, TranslationOctwordActualSize: uint16(len(list) / 16)},
			MKC: prm.MKC{AccessMode: prm.ModeMTT, Len: 1 << 20}}
		if len(list) <= 64 {
			w.List = list
		} else {
			w.UMR.Inline = false
			w.Pointer = prm.DataSeg{ByteCount: uint32(len(list)), Addr: at}
		}
		ds, err := w.DS()
		if err != nil {
			panic(err)
		}
		w.Ctrl.DS = ds
		raw := w.Append(nil)
		parsed := w
		parsed.List = list
		return raw, bus.WQE{Ctrl: w.Ctrl, UMR: parsed}
	}
}

// run steps until every WQE is out (or a bound) and compares them, QP by
// QP: each QP's WQEs come out in the order posted (the QPs in any order).
func (b *bench) run(t *testing.T, seed int64) {
	t.Helper()
	for c := 0; c < 200000 && len(b.out.Got) < len(b.want); c++ {
		b.e.Step()
	}
	if len(b.out.Got) != len(b.want) {
		t.Fatalf("seed %d: %d WQEs out of %d posted (%d active QPs, %d reads in flight)", seed, len(b.out.Got), len(b.want), len(b.u.active), b.u.inFlight)
	}
	wantBy, gotBy := map[uint32][]bus.WQE{}, map[uint32][]bus.WQE{}
	for _, w := range b.want {
		wantBy[w.Ctrl.QPN] = append(wantBy[w.Ctrl.QPN], w)
	}
	for _, g := range b.out.Got {
		gotBy[g.V.SQ] = append(gotBy[g.V.SQ], g.V)
	}
	for qpn, ws := range wantBy {
		gs := gotBy[qpn]
		if len(gs) != len(ws) {
			t.Fatalf("seed %d: QP %d: %d WQEs out, %d posted", seed, qpn, len(gs), len(ws))
		}
		for i, g := range gs {
			w := ws[i]
			if g.Bad != "" || g.Ctrl != w.Ctrl || !reflect.DeepEqual(g.Send, w.Send) || g.UMR.UMR != w.UMR.UMR ||
				g.UMR.MKC != w.UMR.MKC || !bytes.Equal(g.UMR.List, w.UMR.List) || g.UMR.Pointer != w.UMR.Pointer {
				t.Fatalf("seed %d: QP %d WQE %d:\ngot  %+v\nwant %+v", seed, qpn, i, g, w)
			}
		}
	}
}

// TestFetchDirected: a SEND, an RDMA READ, UMRs with an inline list and
// with a list through a pointer, and a local invalidate on one QP, then
// the same on another, come out parsed, each QP's in the order posted;
// the reads fetch each WQE once.
func TestFetchDirected(t *testing.T) {
	b := newBench(func(uint64) uint64 { return 20 }, nil)
	for _, qpn := range []uint32{5, 9} {
		b.post(qpn, send(qpn, prm.OpSend, 0x1234, 0x7000, 512))
		b.post(qpn, send(qpn, prm.OpRDMARead, 0x1235, 0x9000, 64))
		b.post(qpn, b.umr(qpn, 0x4400, 8))  // 64-byte list: inline, 3 basic blocks
		b.post(qpn, b.umr(qpn, 0x4500, 40)) // 320 bytes: through the pointer
		b.post(qpn, func(index uint16) ([]byte, bus.WQE) {
			w := prm.LocalInvWQE{Ctrl: prm.CtrlSeg{WQEIndex: index, QPN: qpn, Imm: 0x4400}}
			u := w.UMRWQE()
			return w.Append(nil), bus.WQE{Ctrl: u.Ctrl, UMR: u}
		})
	}
	b.run(t, 0)
	st := b.u.Stats()
	// Per QP: 1 + 1 + 3 + 3 (9 octowords) + 2 basic blocks of WQEs and
	// a 320-byte list.
	if st.Doorbells != 10 || st.WQEs != 10 || st.BadWQEs != 0 || st.ReadBytes != 2*(10*64+320) {
		t.Errorf("stats %+v", st)
	}
}

// poster is the test's host for long runs: it posts the WQEs of its
// builders one a cycle, as long as less than half a send queue is posted
// and not yet parsed (a driver does not lap its consumer), writing each
// into memory in the cycle it rings the doorbell.
type poster struct {
	b       *bench
	qpns    []uint32
	builds  []func(uint16) ([]byte, bus.WQE)
	bbs     []int // basic blocks of each WQE posted
	next    int
	doorbel *sim.Chan[pcie.TLP]
}

func (p *poster) Name() string { return "poster" }
func (p *poster) Commit()      {}

func (p *poster) Eval(now uint64) bool {
	if p.next == len(p.builds) {
		return false
	}
	outstanding := 0
	for _, n := range p.bbs[len(p.b.out.Got):] {
		outstanding += n
	}
	if outstanding > SQRing/2 || !p.doorbel.Ready() {
		return true
	}
	qpn, b := p.qpns[p.next], p.b
	pi := b.pi[qpn]
	raw, _ := p.builds[p.next](pi)
	n := uint16((len(raw) + 63) / 64)
	for pi%SQRing+n > SQRing {
		var nop [64]byte
		prm.CtrlSeg{Opcode: prm.OpNOP, WQEIndex: pi, QPN: qpn, DS: 1}.Put(nop[:])
		b.mem.Write(SlotAddr(qpn, pi), nop[:])
		pi++
	}
	raw, want := p.builds[p.next](pi)
	b.mem.Write(SlotAddr(qpn, pi), raw)
	b.pi[qpn] = pi + n
	b.want = append(b.want, want)
	p.bbs = append(p.bbs, int(n))
	p.doorbel.Push(pcie.NewWrite(0, DoorbellAddr, raw[:8]))
	p.next++
	return true
}

// TestFetchRandom: random WQEs on a few QPs, with doorbells one a cycle,
// a memory of random latency and an output that stalls, come out parsed,
// each QP's in the order posted, the NOPs that pad the queues' ends
// skipped; a busy QP's WQEs are read in batches.
func TestFetchRandom(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		for _, n := range []int{1, 3, 8} {
			fetchRandom(t, seed, n, []int{16, 32, 128}[(int(seed)+n)%3])
		}
	}
}

// fetchRandom is one run of TestFetchRandom: seed's WQEs with n reads in
// flight at most, and WQE caches of cacheBBs basic blocks. Every failure
// names the seed and n.
func fetchRandom(t *testing.T, seed int64, n, cacheBBs int) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	e := sim.New()
	b := &bench{e: e, mem: pcie.NewMemory(), pi: map[uint32]uint16{}, list: 1 << 49}
	ports := newPorts(e)
	b.u = New("sq", Config{FetchOutstanding: n, WQECacheBBs: cacheBBs}, ports)
	b.icm = chantest.NewMemory(ports.MemReq, ports.MemResp, b.mem, chantest.Jitter(seed, 5, 60))
	b.icm.AnySize = true
	b.out = chantest.NewSink("wqes", ports.Out, chantest.Stall(seed))
	p := &poster{b: b, doorbel: ports.Doorbell}
	qps := 1 + int(seed)%4 // 1 to 4 QPs, by seed
	for i := 0; i < 2400; i++ {
		qpn := uint32(rng.Intn(qps) + 1)
		p.qpns = append(p.qpns, qpn)
		switch rng.Intn(4) {
		case 0:
			p.builds = append(p.builds, send(qpn, prm.OpSend, prm.Key(rng.Uint32()), rng.Uint64(), uint32(rng.Intn(1<<20))))
		case 1:
			p.builds = append(p.builds, send(qpn, prm.OpRDMARead, prm.Key(rng.Uint32()), rng.Uint64(), uint32(rng.Intn(1<<20))))
		case 2:
			p.builds = append(p.builds, b.umr(qpn, prm.Key(rng.Uint32()), rng.Intn(20)))
		default:
			p.builds = append(p.builds, b.umr(qpn, prm.Key(rng.Uint32()), 0))
		}
	}
	e.Add(b.u, b.icm, p, b.out)
	for c := 0; c < 2_000_000 && len(b.out.Got) < len(p.builds); c++ {
		e.Step()
	}
	if len(b.want) != len(p.builds) {
		t.Fatalf("seed %d, fetch_outstanding %d: %d of %d posted", seed, n, len(b.want), len(p.builds))
	}
	b.run(t, seed)
	st := b.u.Stats()
	if st.NOPs == 0 {
		t.Errorf("seed %d, fetch_outstanding %d: no send queue wrapped (%+v)", seed, n, st)
	}
	// Fewer reads than WQEs: batches (a list read counts one more). A
	// cache of 16 basic blocks holds one large WQE and little more: its
	// reads are short.
	if reads := len(b.icm.Reads); cacheBBs >= 32 && reads >= len(p.builds) {
		t.Errorf("seed %d, fetch_outstanding %d: %d reads for %d WQEs: no batching", seed, n, reads, len(p.builds))
	}
	if st.MaxInFlight > n || n > 1 && st.MaxInFlight < 2 {
		t.Errorf("seed %d, fetch_outstanding %d: at most %d reads in flight", seed, n, st.MaxInFlight)
	}
	if st.FetchReads+st.ListReads != uint64(len(b.icm.Reads)) || st.Doorbells != uint64(len(p.builds)) {
		t.Errorf("seed %d, fetch_outstanding %d: %d + %d reads counted, %d made; %d doorbells of %d", seed, n,
			st.FetchReads, st.ListReads, len(b.icm.Reads), st.Doorbells, len(p.builds))
	}
	// No read passes 512 bytes nor a send queue's end; every basic
	// block posted (the NOPs that pad the ends too) is read once (no read
	// fails here).
	var bbsRead int
	for _, r := range b.icm.Reads {
		if r.Addr >= 1<<49 {
			continue // a list
		}
		if r.Len > MaxBatch*prm.SendWQEBB || (r.Addr-sqRegion)%(SQRing*prm.SendWQEBB)+uint64(r.Len) > SQRing*prm.SendWQEBB {
			t.Fatalf("seed %d, fetch_outstanding %d: read %+v", seed, n, r)
		}
		bbsRead += r.Len / prm.SendWQEBB
	}
	bbs := int(st.NOPs)
	for _, k := range p.bbs {
		bbs += k
	}
	if bbsRead != bbs {
		t.Errorf("seed %d, fetch_outstanding %d: %d basic blocks read, %d posted", seed, n, bbsRead, bbs)
	}
	if len(b.u.active) != 0 || b.u.inFlight != 0 {
		t.Errorf("seed %d, fetch_outstanding %d: the front is not idle at the end: %d active QPs, %d reads in flight", seed, n, len(b.u.active), b.u.inFlight)
	}
	// Every cache went back to the pool, which holds no more than the
	// QPs that were ever active at once.
	for qpn, q := range b.u.qps {
		if q.cache != nil {
			t.Errorf("seed %d: QP %d idle with its WQE cache", seed, qpn)
		}
	}
	if len(b.u.pool) == 0 || len(b.u.pool) > qps {
		t.Errorf("seed %d: %d caches in the pool for %d QPs", seed, len(b.u.pool), qps)
	}
	for _, c := range b.u.pool {
		if len(c) != cacheBBs {
			t.Errorf("seed %d: a cache of %d basic blocks, want %d", seed, len(c), cacheBBs)
		}
	}
}

// TestBadInput: a write to another address is not a doorbell; a WQE with
// a reserved bit set and one whose read fails come out with Bad set, and
// the front goes on with the next.
func TestBadInput(t *testing.T) {
	b := newBench(func(uint64) uint64 { return 10 }, nil)
	b.db.Add(0, pcie.NewWrite(0, DoorbellAddr+8, make([]byte, 8)))
	b.at = 2
	b.post(1, send(1, prm.OpSend, 1, 2, 3))
	raw := make([]byte, 64)
	b.mem.Read(SlotAddr(1, 0), raw)
	raw[9] = 1 // reserved byte of the control segment
	b.mem.Write(SlotAddr(1, 0), raw)
	b.post(1, send(1, prm.OpSend, 4, 5, 6))
	for c := 0; c < 1000 && len(b.out.Got) < 2; c++ {
		b.e.Step()
	}
	if len(b.out.Got) != 2 || b.out.Got[0].V.Bad == "" || b.out.Got[1].V.Bad != "" {
		t.Fatalf("got %+v", b.out.Got)
	}
	if st := b.u.Stats(); st.BadDoorbells != 1 || st.BadWQEs != 1 || st.Doorbells != 2 {
		t.Errorf("stats %+v", st)
	}
	b.icm.FailFirst = true
	b.post(2, send(2, prm.OpSend, 7, 8, 9))
	for c := 0; c < 1000 && len(b.out.Got) < 3; c++ {
		b.e.Step()
	}
	if len(b.out.Got) != 3 || b.out.Got[2].V.Bad == "" {
		t.Fatalf("a failed read: got %+v", b.out.Got[2:])
	}
}

// TestCQEs: each completion the top sends becomes a CQE in its QP's
// completion queue: REQ with the WQE's index, opcode, QPN and byte count
// on success, REQ_ERR with the syndrome of the failure and the status in
// vendor_err_synd otherwise; the owner bit flips on the queue's second
// pass.
func TestCQEs(t *testing.T) {
	b := newBench(func(uint64) uint64 { return 7 }, nil)
	var want []bus.Completion
	for i := 0; i < CQRing+5; i++ {
		c := bus.Completion{QPN: 7, WQEIndex: uint16(3 * i), Opcode: prm.OpSend, Status: prm.OK, Bytes: uint32(i)}
		switch i % 5 {
		case 1:
			c.Status = prm.KeyMismatch
		case 2:
			c.Opcode, c.Status = prm.OpUMR, prm.UMRCheckFree
		}
		want = append(want, c)
		b.done.Add(uint64(i), c)
	}
	for k := 0; k < 20000 && b.u.Stats().CQEs < uint64(len(want)); k++ {
		b.e.Step()
	}
	for k := 0; k < 100; k++ { // the last writes land
		b.e.Step()
	}
	st := b.u.Stats()
	if st.CQEs != uint64(len(want)) || st.ErrCQEs != uint64(2*len(want)/5+1) {
		t.Fatalf("stats %+v", st)
	}
	// The first pass was overwritten by the second for the first 5.
	for i := 5; i < len(want); i++ {
		c := want[i]
		var raw [prm.CQESize]byte
		b.mem.Read(CQEAddr(7, uint32(i)), raw[:])
		owner := i >= CQRing
		if c.Status == prm.OK {
			got, err := prm.ParseCQE(raw[:])
			w := prm.CQE{ByteCnt: c.Bytes, SWQEOpcode: c.Opcode, QPN: 7, WQECounter: c.WQEIndex, Opcode: prm.CQEReq, Owner: owner}
			if err != nil || got != w {
				t.Fatalf("CQE %d: %+v (%v), want %+v", i, got, err, w)
			}
			continue
		}
		got, err := prm.ParseErrCQE(raw[:])
		syn := prm.SyndromeLocalProtErr
		if c.Opcode == prm.OpUMR {
			syn = prm.SyndromeLocalQPOpErr
		}
		w := prm.ErrCQE{Syndrome: syn, VendorErrSynd: uint8(c.Status), SWQEOpcode: c.Opcode, QPN: 7, WQECounter: c.WQEIndex, Opcode: prm.CQEReqErr, Owner: owner}
		if err != nil || got != w {
			t.Fatalf("CQE %d: %+v (%v), want %+v", i, got, err, w)
		}
	}
}

// cycles is the cycle each WQE reached the sink, in the order they came.
func (b *bench) cycles() []uint64 {
	var cs []uint64
	for _, g := range b.out.Got {
		cs = append(cs, g.Cycle)
	}
	return cs
}

// TestFetchPipelined: four QPs, a SEND each, their doorbells 3 cycles
// apart (b.post), a memory of 20 cycles. The channels take a cycle, so a
// doorbell pushed in cycle d is taken in d+1, when its read is issued if
// a slot is free; the memory takes the read in d+2 and answers in d+22;
// the front parses the WQE in d+23 when the answer arrives, sends it in
// d+24 and the sink has it in d+25. With 4 reads in flight the doorbells
// of cycles 0, 3, 6, 9 give WQEs at 25, 28, 31, 34. With one, each read
// waits for the answer of the one before: the second is issued in 23 (the
// cycle the first answer frees its slot), taken in 24, answered in 44 and
// its WQE is at the sink in 47; then 69 and 91.
func TestFetchPipelined(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []uint64
	}{{4, []uint64{25, 28, 31, 34}}, {1, []uint64{25, 47, 69, 91}}} {
		b := newBenchN(c.n, func(uint64) uint64 { return 20 }, nil)
		for qpn := uint32(1); qpn <= 4; qpn++ {
			b.post(qpn, send(qpn, prm.OpSend, 0x100+prm.Key(qpn), 0x1000, 64))
		}
		b.run(t, 0)
		if got := b.cycles(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("fetch_outstanding %d: WQEs at cycles %v, want %v", c.n, got, c.want)
		}
		for i, g := range b.out.Got {
			if g.V.SQ != uint32(i+1) {
				t.Errorf("fetch_outstanding %d: WQE %d from QP %d, want %d", c.n, i, g.V.SQ, i+1)
			}
		}
		st := b.u.Stats()
		if st.FetchReads != 4 || st.Coalesced != 0 || st.MaxInFlight != c.n {
			t.Errorf("fetch_outstanding %d: stats %+v", c.n, st)
		}
		// Each read is in flight from its issue to the cycle before its
		// answer: 22 cycles, 88 for the four either way. With 4 slots no
		// read waits; the front is busy from cycle 1 until it sends QP
		// 4's WQE in 33 (the sink has it in 34): 1..32. With one slot,
		// from cycle 4 (QP 2's doorbell) until 67 (QP 4's read issued) a
		// read waits at every cycle's end: 4..66; the front is busy until
		// it sends the last WQE in 90: 1..89.
		stalls, busy := map[int]uint64{4: 0, 1: 63}[c.n], map[int]uint64{4: 32, 1: 89}[c.n]
		if got := counters(b.u); got["sq.fetch_cycles"] != 88 || got["sq.slot_stall_cycles"] != stalls || got["sq.busy_cycles"] != busy {
			t.Errorf("fetch_outstanding %d: fetch_cycles %d (want 88), slot_stall_cycles %d (want %d), busy_cycles %d (want %d)", c.n,
				got["sq.fetch_cycles"], got["sq.slot_stall_cycles"], stalls, got["sq.busy_cycles"], busy)
		}
	}
}

// TestFetchCoalesced: three SENDs on one QP, doorbells in cycles 0, 3
// and 6, one read in flight, a memory of 20 cycles. The first doorbell
// (taken in 1) starts the QP's fetch: a read of its one basic block,
// issued in 1. The next two, taken in 4 and 7, find the fetch running
// and only move its producer counter to 3 (coalesced). The answer comes
// in 23: WQE 0 is parsed and the slot is free, so the read of blocks 1
// and 2 is issued in 23; WQE 0 is sent in 24 (sink: 25). The second
// answer comes in 45: WQE 1 is parsed, sent in 46 (sink: 47) while WQE 2
// is parsed, sent in 47 (sink: 48). Two reads for three doorbells.
func TestFetchCoalesced(t *testing.T) {
	b := newBenchN(1, func(uint64) uint64 { return 20 }, nil)
	for i := 0; i < 3; i++ {
		b.post(7, send(7, prm.OpSend, 0x200, 0x1000*uint64(i), 64))
	}
	b.run(t, 0)
	if got, want := b.cycles(), []uint64{25, 47, 48}; !reflect.DeepEqual(got, want) {
		t.Errorf("WQEs at cycles %v, want %v", got, want)
	}
	st := b.u.Stats()
	if st.Doorbells != 3 || st.Coalesced != 2 || st.FetchReads != 2 || st.ReadBytes != 3*64 {
		t.Errorf("stats %+v", st)
	}
	if len(b.icm.Reads) != 2 || b.icm.Reads[1].Addr != SlotAddr(7, 1) || b.icm.Reads[1].Len != 128 || b.icm.Cycles[1] != 24 {
		t.Errorf("reads %+v at %v", b.icm.Reads, b.icm.Cycles)
	}
}

// TestFetchListOvertakenAcrossQPs: QP 1 posts a UMR whose list (40 MTT
// entries, 320 bytes) is read through its pointer, QP 2 a SEND three
// cycles later; 4 reads in flight, a memory of 20 cycles. QP 1's three
// basic blocks are read from cycle 1 and come in 23: the UMR is parsed
// and its list read is issued that cycle (taken in 24, in at 45), so the
// UMR is sent in 46 (sink: 47). QP 2's read, issued in 4, comes in 26:
// its SEND is at the sink in 28, before the UMR posted before it: across
// QPs the WQEs leave in the order their reads allow; the top puts them
// back in the scenario's order.
func TestFetchListOvertakenAcrossQPs(t *testing.T) {
	b := newBenchN(4, func(uint64) uint64 { return 20 }, nil)
	b.post(1, b.umr(1, 0x4500, 40))
	b.post(2, send(2, prm.OpSend, 0x300, 0x2000, 8))
	b.run(t, 0)
	if got, want := b.cycles(), []uint64{28, 47}; !reflect.DeepEqual(got, want) {
		t.Errorf("WQEs at cycles %v, want %v", got, want)
	}
	if b.out.Got[0].V.SQ != 2 || b.out.Got[1].V.SQ != 1 {
		t.Errorf("WQEs from QPs %d, %d; want 2, 1", b.out.Got[0].V.SQ, b.out.Got[1].V.SQ)
	}
	if st := b.u.Stats(); st.FetchReads != 2 || st.ListReads != 1 || st.ReadBytes != 4*64+320 {
		t.Errorf("stats %+v", st)
	}
}

// counters is u's counters by name.
func counters(u *Unit) map[string]uint64 {
	m := map[string]uint64{}
	for _, c := range u.Counters() {
		m[c.Name] = c.Value
	}
	return m
}
