package vectors

import (
	"fmt"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl/atc"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/rangecache"
	"mkeysim/rtl/sim"
)

// atcReplayer plays an atc vector file into the clocked unit (rtl/atc)
// as the generated harness does (the 'ats' handshake): one operation at a
// time, the Translation Request of a lookup answered the next cycle with
// the vector's completion, SETTLE cycles after each operation, the
// Invalidate Completions of each operation gathered into a mask.
type atcReplayer struct {
	p    atc.Ports
	vs   []ATCVector
	cur  int
	ents []uint16
	// the current operation
	phase    int // 0 issue, 1 wait for the result, 2 settle
	settle   int
	outs     int
	res      bus.ATSResult
	done     uint32
	trBad    string
	answer   *bus.TransResp
	failures []string
}

func (d *atcReplayer) Name() string { return "harness" }

// transResp is the bus's Translation Completion for a vector's host answer.
func transResp(id uint16, ok bool, e prm.ATSCompletionEntry) bus.TransResp {
	r, rok := e.Range()
	if !ok || !rok {
		return bus.TransResp{ID: id}
	}
	return bus.TransResp{ID: id, OK: true, Translated: r.Base, Size: r.Size(), R: e.R, W: e.W}
}

func (d *atcReplayer) Eval(now uint64) bool {
	if d.cur >= len(d.vs) {
		return false
	}
	v := &d.vs[d.cur]
	p := &d.p
	if d.answer != nil && p.TransRsp.Ready() {
		p.TransRsp.Push(*d.answer)
		d.answer = nil
	}
	if p.TransReq.Valid() {
		q := *p.TransReq.Peek()
		p.TransReq.Pop()
		var b [8]byte
		prm.ATSTranslationRequestAddr{Addr: q.Addr}.Put(b[:])
		var want [8]byte
		v.TRAddr.Put(want[:])
		if v.Op != ATCLookup || b != want {
			d.trBad = fmt.Sprintf("Translation Request for %#x in a %s", q.Addr, atcOpNames[v.Op])
		}
		a := transResp(q.ID, v.TCOK, v.TCEntry)
		d.answer = &a
	}
	if p.Out.Valid() {
		d.res = *p.Out.Peek()
		p.Out.Pop()
		d.outs++
	}
	if p.InvalOK.Valid() {
		d.done |= 1 << p.InvalOK.Peek().ITag
		p.InvalOK.Pop()
	}
	switch d.phase {
	case 0:
		switch v.Op {
		case ATCLookup:
			if !p.In.Ready() {
				return true
			}
			p.In.Push(bus.ATSLookup{Tag: v.Tag, Addr: v.Addr, Len: v.Len, Write: v.Write})
			d.phase = 1
			return true
		case ATCRelease:
			if !p.Release.Ready() {
				return true
			}
			p.Release.Push(bus.ATSRelease{Entry: d.ents[v.Ref]})
		case ATCInval:
			if !p.Inval.Ready() {
				return true
			}
			r, _ := v.InvBody.Range()
			p.Inval.Push(bus.ATSInval{ITag: v.ITag, Addr: r.Base, Size: r.Size()})
		}
		d.phase, d.settle = 2, ATCSettle
	case 1:
		if d.outs > 0 {
			d.ents[d.cur] = d.res.Entry
			d.phase, d.settle = 2, ATCSettle
		}
	case 2:
		if d.settle--; d.settle > 0 {
			return true
		}
		d.check(v)
		d.cur++
		d.phase, d.outs, d.done, d.trBad, d.res = 0, 0, 0, "", bus.ATSResult{}
	}
	return true
}

// check compares the operation's outcome with the vector's expected values.
func (d *atcReplayer) check(v *ATCVector) {
	var errs []string
	wantOuts := 0
	if v.Op == ATCLookup {
		wantOuts = 1
	}
	if d.outs != wantOuts {
		errs = append(errs, fmt.Sprintf("%d results, want %d", d.outs, wantOuts))
	} else if v.Op == ATCLookup {
		r := d.res
		if r.OK != v.OutOK || r.Len != v.OutLen || r.Tag != v.OutTag || v.OutOK && r.Addr != v.OutAddr {
			errs = append(errs, fmt.Sprintf("result %+v, want ok %v addr %#x len %d tag %d", r, v.OutOK, v.OutAddr, v.OutLen, v.OutTag))
		}
	}
	if d.trBad != "" {
		errs = append(errs, d.trBad)
	}
	if d.done != v.DoneMask {
		errs = append(errs, fmt.Sprintf("Invalidate Completions %#x, want %#x", d.done, v.DoneMask))
	}
	for _, e := range errs {
		d.failures = append(d.failures, fmt.Sprintf("vector %d (%s): %s", d.cur, atcOpNames[v.Op], e))
	}
}

// replayATC runs vs through an rtl/atc unit of cfg and returns the
// mismatches.
func replayATC(t *testing.T, cfg atc.Config, vs []ATCVector) []string {
	t.Helper()
	e := sim.New()
	p := atc.Ports{
		In: sim.NewChan[bus.ATSLookup](e, "atc.in", 2, 1), Out: sim.NewChan[bus.ATSResult](e, "atc.out", 2, 1),
		Release:  sim.NewChan[bus.ATSRelease](e, "atc.release", 2, 1),
		TransReq: sim.NewChan[bus.TransReq](e, "atc.trans_req", 2, 1), TransRsp: sim.NewChan[bus.TransResp](e, "atc.trans_rsp", 2, 1),
		Inval: sim.NewChan[bus.ATSInval](e, "atc.inval", 2, 1), InvalOK: sim.NewChan[bus.ATSInvalDone](e, "atc.inval_ok", 2, 1),
	}
	d := &atcReplayer{p: p, vs: vs, ents: make([]uint16, len(vs))}
	e.Add(atc.New("atc", cfg, p), d)
	limit := uint64(len(vs)) * (ATCSettle + 200)
	for d.cur < len(vs) && e.Now() < limit {
		e.Step()
	}
	if d.cur < len(vs) {
		t.Fatalf("stuck at vector %d of %d after %d cycles", d.cur, len(vs), e.Now())
	}
	return d.failures
}

// TestATCUnitMatchesVectors: the clocked ATC, driven as the harness drives
// a DUT, gives every vector's expected result and Invalidate Completions,
// in its default geometry and in small ones that evict (one entry, two
// ways of two sets, random replacement): the untimed reference and the
// unit agree.
func TestATCUnitMatchesVectors(t *testing.T) {
	cfgs := map[string]atc.Config{"default": atc.DefaultConfig()}
	for _, c := range []struct {
		name                string
		entries, ways, mshr int
		repl                string
	}{{"fa9-lru", 9, 0, 1, linecache.LRU}, {"2x9-random", 18, 9, 2, linecache.Random}, {"fa12-lru-4mshrs", 12, 0, 4, linecache.LRU}} {
		cfgs[c.name] = atc.Config{Cache: rangecache.Config{Entries: c.entries, Ways: c.ways, Replacement: c.repl, Seed: 3}, MSHRs: c.mshr, Targets: 1}
	}
	for name, cfg := range cfgs {
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				o := opts("atc", 4000, seed)
				out := generate(t, o)
				fs := replayATC(t, cfg, out.Vectors.([]ATCVector))
				for _, f := range fs[:min(len(fs), 10)] {
					t.Error(f)
				}
				if len(fs) > 10 {
					t.Errorf("... %d mismatches in all", len(fs))
				}
			})
		}
	}
}

// TestATCReplayCatchesWrongVectors: the replay is not vacuous: a vector
// whose expected translation, completion mask or result is changed fails.
func TestATCReplayCatchesWrongVectors(t *testing.T) {
	vs := generate(t, opts("atc", 600, 1)).Vectors.([]ATCVector)
	changes := map[string]func(v *ATCVector) bool{
		"out_addr": func(v *ATCVector) bool { v.OutAddr ^= 0x1000; return v.OutOK },
		"out_ok":   func(v *ATCVector) bool { v.OutOK = !v.OutOK; return v.Op == ATCLookup },
		"done":     func(v *ATCVector) bool { v.DoneMask ^= 1; return true },
		"tr_addr":  func(v *ATCVector) bool { v.TRAddr.Addr += 0x1000; return v.Op == ATCLookup && !v.OutOK },
	}
	for name, change := range changes {
		w := append([]ATCVector(nil), vs...)
		k := len(w) - 1
		for ; k >= 0 && !change(&w[k]); k-- {
			w[k] = vs[k]
		}
		if k < 0 {
			t.Fatalf("%s: no vector to change", name)
		}
		if fs := replayATC(t, atc.DefaultConfig(), w); len(fs) == 0 {
			t.Errorf("%s changed in vector %d: the replay still passes", name, k)
		}
	}
}

// TestATCRefDirected: the prologue's expected values, counted by hand.
func TestATCRefDirected(t *testing.T) {
	vs := atcDirected()
	ref := &atcRef{}
	for i := range vs {
		if err := ref.apply(&vs[i], uint32(i)); err != nil {
			t.Fatal(err)
		}
	}
	type want struct {
		ok   bool
		addr uint64
		done uint32
	}
	wants := []want{
		{true, 0x8000_1234, 0}, {true, 0x801f_f000, 0}, {false, 0, 0}, {true, 0x9000_0010, 0}, {false, 0, 0},
		{false, 0, 0}, // the invalidation of R waits for 0 and 1
		{true, 0xa000_0040, 0}, {false, 0, 0}, {false, 0, 1 << 5}, {false, 0, 0},
		{false, 0, 1 << 6}, // nothing held: at once
		{false, 0, 0},
	}
	for i, w := range wants {
		v := vs[i]
		if v.OutOK != w.ok || v.OutAddr != w.addr || v.DoneMask != w.done {
			t.Errorf("vector %d (%s): ok %v addr %#x done %#x, want %v %#x %#x", i, atcOpNames[v.Op], v.OutOK, v.OutAddr, v.DoneMask, w.ok, w.addr, w.done)
		}
	}
	if len(ref.held) != 0 || len(ref.pending) != 0 {
		t.Errorf("the prologue leaves %d held and %d pending", len(ref.held), len(ref.pending))
	}
}

// FuzzATCLine: any ATC vector whose images are valid PCIe formats (no
// reserved bit set) survives encoding, the hex text and decoding through
// a layout rebuilt from the manifest's JSON, bit for bit.
func FuzzATCLine(f *testing.F) {
	f.Add(uint8(0), uint32(0), uint16(7), uint64(0x50_0000_1234), uint32(64), true, true, uint64(0x8000_0001), uint8(3), uint64(0x50_0000_0800), uint64(0x50_0000_1000), uint32(0x28))
	f.Add(uint8(2), uint32(1<<31), uint16(0xffff), ^uint64(0), ^uint32(0), false, false, ^uint64(0), uint8(31), ^uint64(0), ^uint64(0), ^uint32(0))
	m := readManifest(f, generate(f, opts("atc", 10, 1)))
	l := layoutFromManifest(m.Fields, m.LineWidth)
	f.Fuzz(func(t *testing.T, op uint8, ref uint32, tag uint16, addr uint64, n uint32, write, tcok bool, tc uint64, itag uint8, inv, tr uint64, done uint32) {
		word := func(x uint64) []byte {
			var b [8]byte
			for k := range b {
				b[k] = byte(x >> (56 - 8*k))
			}
			return b[:]
		}
		te, err1 := prm.ParseATSCompletionEntry(word(tc))
		ib, err2 := prm.ParseATSInvalidateBody(word(inv))
		ta, err3 := prm.ParseATSTranslationRequestAddr(word(tr))
		if err1 != nil || err2 != nil || err3 != nil {
			return // reserved bits set: not a line the generator writes
		}
		v := ATCVector{Op: op % 3, Ref: ref, Tag: tag, Addr: addr, Len: n, Write: write, TCOK: tcok, TCEntry: te, ITag: itag % 32, InvBody: ib,
			TRAddr: ta, OutOK: tcok != write, OutAddr: ^addr, OutLen: n, OutTag: ^tag, DoneMask: done}
		ln := l.newLine()
		l.frame(ln, 5)
		v.encode(l, ln)
		text := string(appendHex(nil, ln, l.HexDigits()))
		back, err := ParseHexLine(text, m.LineWidth)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeATC(l, back)
		if err != nil || got != v || l.Get(back, "seq") != 5 || l.Get(back, "marker") != Marker {
			t.Fatalf("%+v\nencodes as %s and decodes to\n%+v (%v)", v, text, got, err)
		}
	})
}
