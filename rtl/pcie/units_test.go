package pcie

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"mkeysim/rtl/sim"
)

func TestMemory(t *testing.T) {
	m := NewMemory()
	buf := make([]byte, 10)
	m.Read(0x1234, buf)
	if !bytes.Equal(buf, make([]byte, 10)) || m.Pages() != 0 {
		t.Fatalf("fresh memory: % x, %d pages", buf, m.Pages())
	}
	// A write across a page boundary, a read spanning written and unwritten
	// pages, and the top of the address space.
	m.Write(0x1ffe, []byte{1, 2, 3, 4})
	m.Write(^uint64(0)-1, []byte{9, 9})
	big := make([]byte, 3*MemPageBytes)
	m.Read(0x1000, big)
	if big[0xffe] != 1 || big[0x1001] != 4 || big[0xffd] != 0 || big[0x1002] != 0 {
		t.Errorf("read back % x", big[0xffc:0x1004])
	}
	m.Read(^uint64(0)-2, buf[:3])
	if !bytes.Equal(buf[:3], []byte{0, 9, 9}) || m.Pages() != 3 {
		t.Errorf("top: % x, %d pages", buf[:3], m.Pages())
	}
	// A million 64-byte MKCs packed in ICM: 16384 pages.
	mkc := make([]byte, 64)
	for i := 0; i < 1<<20; i++ {
		mkc[0] = byte(i)
		m.Write(0x4000_0000+uint64(i)*64, mkc)
	}
	if m.Pages() != 3+16384 {
		t.Errorf("%d pages", m.Pages())
	}
	m.Read(0x4000_0000+12345*64, buf[:1])
	if buf[0] != byte(12345&0xff) {
		t.Errorf("MKC 12345: %d", buf[0])
	}
}

// drain pops every visible TLP of c (between cycles) and records its cycle.
type drained struct {
	cycle uint64
	tlp   TLP
}

func popAll(e *sim.Engine, c *sim.Chan[TLP], got *[]drained) {
	if c.Valid() {
		*got = append(*got, drained{e.Now(), *c.Peek()})
		c.Pop()
	}
}

// feedTLPs pushes in on rx one a cycle and drains tx for the given
// cycles, stepping e: what left tx, and when.
func feedTLPs(e *sim.Engine, rx, tx *sim.Chan[TLP], in []TLP, cycles int) []drained {
	var got []drained
	for cycle := 0; cycle < cycles; cycle++ {
		if cycle < len(in) {
			rx.Push(in[cycle])
		}
		popAll(e, tx, &got)
		e.Step()
	}
	return got
}

func TestLinkTiming(t *testing.T) {
	e := sim.New()
	in := sim.NewChan[TLP](e, "in", 4, 1)
	out := sim.NewChan[TLP](e, "out", 4, 1)
	l := NewLink(e, "link", withDefaults(Config{LinkLatencyCycles: 10, LinkBytesPerCycle: 16}), in, out)
	e.Add(l)
	cpl := TLP{Type: CplD, LengthDW: 16, ByteCount: 64, Data: make([]byte, 64)} // 84 bytes: 6 cycles
	var got []drained
	for cycle := 0; cycle < 60; cycle++ {
		if cycle < 3 {
			c := cpl
			c.Tag = uint16(cycle)
			in.Push(c)
		}
		popAll(e, out, &got)
		e.Step()
	}
	// Taken at 1, 7, 13; each on Out at taken + 6 - 1 + 10, seen one later.
	want := []uint64{17, 23, 29}
	if len(got) != 3 {
		t.Fatalf("got %d TLPs", len(got))
	}
	for i, g := range got {
		if g.cycle != want[i] || g.tlp.Tag != uint16(i) {
			t.Errorf("TLP %d: tag %d at %d, want %d", i, g.tlp.Tag, g.cycle, want[i])
		}
	}
	st := l.Stats()
	if c := st.PerType[CplD]; c.TLPs != 3 || c.WireBytes != 3*84 || c.PayloadBytes != 192 || st.BusyCycles != 18 || st.TLPs != 3 {
		t.Errorf("stats %+v", st)
	}
}

// A one-cycle TLP (S = 1) goes through in 1 + latency cycles, back to back
// at one a cycle.
func TestLinkOneCycle(t *testing.T) {
	e := sim.New()
	in := sim.NewChan[TLP](e, "in", 2, 1)
	out := sim.NewChan[TLP](e, "out", 2, 1)
	e.Add(NewLink(e, "link", withDefaults(Config{LinkLatencyCycles: 5, LinkBytesPerCycle: 32}), in, out))
	var got []drained
	for cycle := 0; cycle < 30; cycle++ {
		if cycle < 4 {
			in.Push(NewRead(0, uint16(cycle), 0x1000, 64))
		}
		popAll(e, out, &got)
		e.Step()
	}
	for i, g := range got {
		if want := uint64(1 + 1 + 5 + i); g.cycle != want || g.tlp.Tag != uint16(i) {
			t.Errorf("TLP %d: tag %d at %d, want %d", i, g.tlp.Tag, g.cycle, want)
		}
	}
	if len(got) != 4 {
		t.Errorf("got %d", len(got))
	}
}

// A blocked receiver loses nothing and reorders nothing, with idle skipping.
func TestLinkBackpressure(t *testing.T) {
	e := sim.New()
	in := sim.NewChan[TLP](e, "in", 1, 1)
	out := sim.NewChan[TLP](e, "out", 1, 1)
	l := NewLink(e, "link", withDefaults(Config{LinkLatencyCycles: 4, LinkBytesPerCycle: 8}), in, out)
	e.Add(l)
	sent := 0
	var got []drained
	for e.Now() < 2000 {
		if sent < 40 && in.Ready() {
			in.Push(NewRead(0, uint16(sent), 0x1000, 4))
			sent++
		}
		if e.Now() > 500 {
			popAll(e, out, &got)
		}
		if !e.Step() && sent == 40 {
			e.SkipIdle()
		}
	}
	if len(got) != 40 {
		t.Fatalf("got %d", len(got))
	}
	for i, g := range got {
		if g.tlp.Tag != uint16(i) {
			t.Fatalf("TLP %d has tag %d", i, g.tlp.Tag)
		}
	}
	if l.Stats().StallCycles.Count() == 0 {
		t.Errorf("no stall: %+v", l.Stats())
	}
}

func TestRootComplex(t *testing.T) {
	e := sim.New()
	rx := sim.NewChan[TLP](e, "rx", 8, 1)
	tx := sim.NewChan[TLP](e, "tx", 8, 1)
	mem := NewMemory()
	rc := NewRootComplex(e, "host", withDefaults(Config{ICMLatencyCycles: 3, DataLatencyCycles: 3, CompleterID: 0x0008}), mem, rx, tx)
	e.Add(rc)
	in := []TLP{
		NewWrite(0x0100, 0x1003, []byte("hello world")),
		NewRead(0x0100, 1, 0x1000, 16),
		{Type: MRd, RequesterID: 0x0100, Tag: 2, Addr: 0x2000, LengthDW: 0, FirstBE: 0xf}, // length 0
		{Type: MRd, RequesterID: 0x0100, Tag: 3, Addr: 0x2ffc, LengthDW: 2, FirstBE: 0xf, LastBE: 0xf},
		{Type: CplD, LengthDW: 1, ByteCount: 4, Data: make([]byte, 4)}, // dropped
		NewRead(0x0100, 4, 0x1040, 512),                                // 2 completions: 256, 256
	}
	got := feedTLPs(e, rx, tx, in, 40)
	want := []struct {
		cycle uint64
		typ   Type
		tag   uint16
		st    CplStatus
		ldw   int
		bc    int
		la    uint8
	}{
		// MRd pushed at 1, taken at 2, first completion pushed at 5, seen at 6.
		{6, CplD, 1, SC, 4, 16, 0x00},
		{7, Cpl, 2, UR, 0, 4, 0x00},
		{8, Cpl, 3, UR, 0, 8, 0x7c},
		// the dropped CplD takes the completer's cycle 8; the read is at 9
		{10, CplD, 4, SC, 64, 512, 0x40},
		{11, CplD, 4, SC, 64, 256, 0x40},
	}
	if len(got) != len(want) {
		t.Fatalf("%d completions: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		if g.cycle != w.cycle || g.tlp.Type != w.typ || g.tlp.Tag != w.tag || g.tlp.Status != w.st || int(g.tlp.LengthDW) != w.ldw ||
			int(g.tlp.ByteCount) != w.bc || g.tlp.LowerAddr != w.la || g.tlp.CompleterID != 0x0008 || g.tlp.RequesterID != 0x0100 {
			t.Errorf("completion %d: cycle %d %+v, want %+v", i, g.cycle, g.tlp, w)
		}
		if err := g.tlp.Validate(); err != nil {
			t.Errorf("completion %d: %v", i, err)
		}
	}
	if wantData := []byte("\x00\x00\x00hello world\x00\x00"); !bytes.Equal(got[0].tlp.Data, wantData) {
		t.Errorf("read after write: %q", got[0].tlp.Data)
	}
	st := rc.Stats()
	if st != (RootComplexStats{Reads: 4, Writes: 1, Completions: 5, ReadBytes: 16 + 512, WriteBytes: 11, Unsupported: 2, Dropped: 1}) {
		t.Errorf("stats %+v", st)
	}
}

// TestRootComplexWriteBytes: write_bytes, counted in Eval as the MWr is
// taken (writtenBytes), is the number of bytes applyWrite stores at the
// commit, for every valid MWr of 1 to 3 DW, at a QW-aligned address and
// at one that is not, with every pair of byte enables: each written to
// fresh zeros with bytes 0xff, then counted. Some of them (a 1-DW write
// with no byte enabled, non-contiguous enables) have an EnabledBytes
// (a read's byte count) that is not what is written.
func TestRootComplexWriteBytes(t *testing.T) {
	e := sim.New()
	rx := sim.NewChan[TLP](e, "rx", 8, 1)
	tx := sim.NewChan[TLP](e, "tx", 8, 1)
	mem := NewMemory()
	rc := NewRootComplex(e, "host", withDefaults(Config{ICMLatencyCycles: 3}), mem, rx, tx)
	e.Add(rc)
	const stride = 0x40
	var in []TLP
	for ldw := 1; ldw <= 3; ldw++ {
		for _, off := range []uint64{0, 4} {
			for first := uint8(0); first < 16; first++ {
				for last := uint8(0); last < 16; last++ {
					w := TLP{Type: MWr, RequesterID: 0x0100, LengthDW: uint16(ldw), FirstBE: first, LastBE: last,
						Addr: 0x10000 + uint64(len(in))*stride + off, Data: bytes.Repeat([]byte{0xff}, ldw*DWBytes)}
					if w.Validate() == nil {
						in = append(in, w)
					}
				}
			}
		}
	}
	want, differ := 0, 0
	for i := range in {
		n := writtenBytes(&in[i])
		want += n
		if n != EnabledBytes(int(in[i].LengthDW), in[i].FirstBE, in[i].LastBE) {
			differ++
		}
	}
	for k := 0; k < len(in) || rc.Stats().Writes < uint64(len(in)); k++ {
		if k > 10*len(in) {
			t.Fatalf("%d of %d writes taken", rc.Stats().Writes, len(in))
		}
		if k < len(in) && rx.Ready() {
			rx.Push(in[k])
		} else if k < len(in) {
			t.Fatalf("rx full at write %d", k)
		}
		e.Step()
	}
	written := 0
	buf := make([]byte, stride)
	for i := range in {
		mem.Read(0x10000+uint64(i)*stride, buf)
		got := 0
		for _, b := range buf {
			if b != 0 {
				got++
			}
		}
		if n := writtenBytes(&in[i]); got != n {
			t.Errorf("MWr %d DW at %#x, BE %04b/%04b: %d bytes written, writtenBytes %d", in[i].LengthDW, in[i].Addr, in[i].FirstBE, in[i].LastBE, got, n)
		}
		written += got
	}
	st := rc.Stats()
	if st.Writes != uint64(len(in)) || st.WriteBytes != uint64(written) || written != want || st.Dropped != 0 {
		t.Errorf("%d MWr, %d bytes written: stats %+v (writtenBytes sum %d)", len(in), written, st, want)
	}
	if differ == 0 {
		t.Errorf("no write whose EnabledBytes differs from the bytes written: the test lost its hard cases")
	}
	t.Logf("%d valid MWr TLPs, %d bytes written, %d of them with EnabledBytes != bytes written", len(in), written, differ)
}

// requesterBench drives a Requester directly: the test plays the link.
type requesterBench struct {
	e      *sim.Engine
	r      *Requester
	tx, rx *sim.Chan[TLP]
	req    *sim.Chan[ReadReq]
	resp   *sim.Chan[ReadResp]
	got    []ReadResp
}

func newRequesterBench(cfg Config) *requesterBench {
	e := sim.New()
	b := &requesterBench{e: e,
		tx: sim.NewChan[TLP](e, "tx", 4, 1), rx: sim.NewChan[TLP](e, "rx", 4, 1),
		req: sim.NewChan[ReadReq](e, "req", 4, 1), resp: sim.NewChan[ReadResp](e, "resp", 4, 1)}
	b.r = NewRequester("rd", cfg, b.tx, b.rx)
	b.r.AddClient(b.req, b.resp)
	e.Add(b.r)
	return b
}

// step runs one cycle, collecting responses and MRds.
func (b *requesterBench) step(mrds *[]TLP) {
	if b.resp.Valid() {
		b.got = append(b.got, *b.resp.Peek())
		b.resp.Pop()
	}
	if b.tx.Valid() {
		*mrds = append(*mrds, *b.tx.Peek())
		b.tx.Pop()
	}
	b.e.Step()
}

func TestRequesterChecks(t *testing.T) {
	b := newRequesterBench(withDefaults(Config{RequesterID: 0x0100}))
	var mrds []TLP
	b.req.Push(ReadReq{ID: 1, Addr: 0x1000, Len: 64})
	for i := 0; i < 4; i++ {
		b.step(&mrds)
	}
	if len(mrds) != 1 || mrds[0].Type != MRd || mrds[0].Tag != 0 || mrds[0].LengthDW != 16 || mrds[0].RequesterID != 0x0100 || mrds[0].Addr != 0x1000 {
		t.Fatalf("MRds %+v", mrds)
	}
	data := make([]byte, 64)
	for i := range data {
		data[i] = byte(i)
	}
	good := TLP{Type: CplD, RequesterID: 0x0100, Tag: 0, LengthDW: 16, ByteCount: 64, LowerAddr: 0, Data: data}
	bad := func(f func(*TLP)) TLP { c := good; f(&c); return c }
	feed := []struct {
		tlp  TLP
		kind ErrorKind
	}{
		{bad(func(c *TLP) { c.Tag = 5 }), UnexpectedTag},
		{bad(func(c *TLP) { c.ByteCount = 60 }), BadByteCount},
		{bad(func(c *TLP) { c.LowerAddr = 4 }), BadLowerAddr},
		{bad(func(c *TLP) { c.RequesterID = 0x0200 }), BadRequesterID},
		{NewRead(0x0100, 0, 0x1000, 4), BadType},
		{bad(func(c *TLP) { c.Type, c.Status, c.LengthDW, c.Data = Cpl, SC, 0, nil }), BadType},
		{bad(func(c *TLP) { c.LengthDW, c.Data = 8, data[:32] }), BadRCB},
		{bad(func(c *TLP) { c.LengthDW, c.Data = 17, make([]byte, 68) }), BadLength},
		{bad(func(c *TLP) { c.Data = data[:60] }), BadLength},
		{good, 0},
	}
	for _, f := range feed {
		b.rx.Push(f.tlp)
		b.step(&mrds)
	}
	for i := 0; i < 4; i++ {
		b.step(&mrds)
	}
	errs := b.r.Errors()
	if len(errs) != len(feed)-1 {
		t.Fatalf("errors %v", errs)
	}
	for i, e := range errs {
		if e.Kind != feed[i].kind {
			t.Errorf("error %d: %v, want kind %v", i, e, feed[i].kind)
		}
	}
	if len(b.got) != 1 || b.got[0].ID != 1 || b.got[0].Status != SC || !bytes.Equal(b.got[0].Data, data) || b.r.TagsInUse() != 0 {
		t.Fatalf("responses %+v, tags in use %d", b.got, b.r.TagsInUse())
	}

	// An error completion fails the read and frees the tag; a read of
	// length 0 is refused at once.
	b.req.Push(ReadReq{ID: 2, Addr: 0x2003, Len: 100})
	for i := 0; i < 3; i++ {
		b.step(&mrds)
	}
	if len(mrds) != 2 || mrds[1].Tag != 1 {
		t.Fatalf("MRds %+v", mrds)
	}
	b.rx.Push(ErrorCompletion(mrds[1], 0, UR))
	b.step(&mrds)
	b.req.Push(ReadReq{ID: 3, Addr: 0x3000, Len: 0})
	for i := 0; i < 4; i++ {
		b.step(&mrds)
	}
	if len(b.got) != 3 || b.got[1].ID != 2 || b.got[1].Status != UR || b.got[2].ID != 3 || b.got[2].Status != UR || b.r.TagsInUse() != 0 || !b.r.Idle() {
		t.Fatalf("responses %+v, tags in use %d", b.got, b.r.TagsInUse())
	}
	st := b.r.Stats()
	if st.Reads != 2 || st.FailedReads != 2 || st.Responses != 3 || st.Errors != uint64(len(feed)) || st.Completions != uint64(len(feed)+1) {
		t.Errorf("stats %+v", st)
	}
}

// Completions of a split read may arrive in any order across tags; the
// response is reassembled in address order and a slow client is served
// from the backlog.
func TestRequesterReorder(t *testing.T) {
	b := newRequesterBench(withDefaults(Config{MaxReadRequest: 128}))
	var mrds []TLP
	b.req.Push(ReadReq{ID: 9, Addr: 0x1010, Len: 300}) // spans 0x1010+112, 0x1080+128, 0x1100+60
	for i := 0; i < 6; i++ {
		b.step(&mrds)
	}
	if len(mrds) != 3 {
		t.Fatalf("MRds %+v", mrds)
	}
	mem := NewMemory()
	for i := 0; i < 400; i++ {
		mem.Write(0x1000+uint64(i), []byte{byte(i * 7)})
	}
	var cpls []TLP
	for _, m := range mrds {
		addr := m.Addr
		for _, c := range SplitCompletion(m, 64, 64) {
			mem.Read(addr, c.Data)
			addr += uint64(len(c.Data))
			cpls = append(cpls, c)
		}
	}
	// Last MRd's completions first, then the first's, then the middle's
	// (each MRd's own completions stay in address order).
	order := []int{}
	for i, c := range cpls {
		if c.Tag == 2 {
			order = append(order, i)
		}
	}
	for _, tag := range []uint16{0, 1} {
		for i, c := range cpls {
			if c.Tag == tag {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		b.rx.Push(cpls[i])
		b.step(&mrds)
	}
	for i := 0; i < 4; i++ {
		b.step(&mrds)
	}
	want := make([]byte, 300)
	mem.Read(0x1010, want)
	if len(b.got) != 1 || !bytes.Equal(b.got[0].Data, want) || len(b.r.Errors()) != 0 {
		t.Fatalf("got %+v, errors %v", b.got, b.r.Errors())
	}
}

func TestConfig(t *testing.T) {
	d := DefaultConfig()
	if d.Tags != 32 || d.MaxReadRequest != 512 || d.RCB != 64 || d.MaxPayload != 256 || d.LinkLatencyCycles != 75 ||
		d.LinkBytesPerCycle != 32 || d.ICMLatencyCycles != 20 || d.DataLatencyCycles != 20 || d.SplitOnAllRCB ||
		d.RequesterID != 0 || d.CompleterID != 0 {
		t.Errorf("defaults %+v", d)
	}
	if err := d.Validate(); err != nil {
		t.Error(err)
	}
	// Every bound, and a zero, which is refused and never read as a
	// default.
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Tags = 769 }, "pcie.tags = 769: want 1..768"},
		{func(c *Config) { c.Tags = 0 }, "pcie.tags = 0: want 1..768"},
		{func(c *Config) { c.MaxReadRequest = 100 }, "pcie.max_read_request = 100: want power of two in 128..4096"},
		{func(c *Config) { c.MaxReadRequest = 8192 }, "pcie.max_read_request = 8192: want power of two in 128..4096"},
		{func(c *Config) { c.MaxPayload = 64 }, "pcie.max_payload = 64: want power of two in 128..4096"},
		{func(c *Config) { c.MaxPayload = 0 }, "pcie.max_payload = 0: want power of two in 128..4096"},
		{func(c *Config) { c.RCB = 32 }, "pcie.rcb = 32: want 64 or 128"},
		{func(c *Config) { c.LinkLatencyCycles = 0 }, "pcie.link_latency_cycles = 0: want 1..2^16"},
		{func(c *Config) { c.LinkLatencyCycles = MaxLatency + 1 }, "pcie.link_latency_cycles = 65537: want 1..2^16"},
		{func(c *Config) { c.LinkBytesPerCycle = 4097 }, "pcie.link_bytes_per_cycle = 4097: want 1..4096"},
		{func(c *Config) { c.ICMLatencyCycles = -1 }, "pcie.icm_latency_cycles = -1: want 1..2^16"},
		{func(c *Config) { c.DataLatencyCycles = 0 }, "pcie.data_latency_cycles = 0: want 1..2^16"},
	} {
		bad := DefaultConfig()
		c.set(&bad)
		if err := bad.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", bad, err, c.want)
		}
	}
	for _, ok := range []func(*Config){
		func(c *Config) { c.Tags, c.MaxReadRequest, c.MaxPayload, c.RCB = 1, 128, 128, 128 },
		func(c *Config) { c.Tags, c.MaxReadRequest, c.MaxPayload = 768, 4096, 4096 },
		func(c *Config) {
			c.LinkLatencyCycles, c.ICMLatencyCycles, c.DataLatencyCycles = MaxLatency, 1, MaxLatency
		},
		func(c *Config) { c.LinkBytesPerCycle, c.RequesterID, c.CompleterID = 4096, 0xffff, 0xffff },
	} {
		c := DefaultConfig()
		ok(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	r := NewRequester("r", withDefaults(Config{Tags: 300}), nil, nil)
	if r.free[0] != 256 || r.free[299] != 555 {
		t.Errorf("10-bit tags %d..%d", r.free[0], r.free[299])
	}
}

// TestConstructorsRefuseBadConfig: a component is never made of a config
// that Validate refuses (a zero field among them).
func TestConstructorsRefuseBadConfig(t *testing.T) {
	bad := DefaultConfig()
	bad.LinkLatencyCycles = 0
	e := sim.New()
	c := sim.NewChan[TLP](e, "c", 1, 1)
	for name, mk := range map[string]func(){
		"NewRequester":   func() { NewRequester("r", bad, c, c) },
		"NewLink":        func() { NewLink(e, "l", bad, c, c) },
		"NewRootComplex": func() { NewRootComplex(e, "rc", bad, NewMemory(), c, c) },
		"NewHost":        func() { NewHost(e, bad, NewMemory(), c, c, HostOptions{Depth: 1}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || fmt.Sprint(r) != "pcie.link_latency_cycles = 0: want 1..2^16" {
					t.Errorf("%s of %+v: panic %v", name, bad, r)
				}
			}()
			mk()
		}()
	}
}

// TestRootComplexWriteOrder counts the posted-write buffer's ordering by
// hand (issue 37 part 4). The data pipe is 3 cycles long: a TLP pushed on
// rx at cycle p is at the head of the pipe at p+4. Writes W0..W3 (data,
// TC 1) pushed at 0..3 enter the buffer at 4..7 with latencies 10, 2, 1,
// 1: host memory may accept them at 14, 7, 7, 8. A data read pushed at 4
// is at the head at 8.
//
// Without RO on W1 and W3 (W2 has RO): at 7, W1 is due but W0 is not:
// held (writes_held 1, a hold cycle); W2 is due and passes W0 and W1
// (ro_writes_passed 1). At 8 W3 is due: held too (writes_held 2). Both
// wait at 8..13, 12 more hold cycles (13 in all), until W0 leaves at 14
// and takes them with it. The buffer holds 3 at most (W0, W1, W2 at 6;
// W0, W1, W3 at 7). The read waits at the head of the pipe at 8..13 (6
// read_order_cycles: it may not pass a posted write, RO or not) and is
// taken at 14 once the buffer is empty, its completion seen at 15.
//
// With RO on every write, W1 and W3 pass W0 too (ro_writes_passed 3, no
// write held); the read still waits for W0.
func TestRootComplexWriteOrder(t *testing.T) {
	for _, c := range []struct {
		name                     string
		ro                       [4]bool
		readRO                   bool
		held, holdCycles, passed uint64
	}{
		{"W2 with RO", [4]bool{false, false, true, false}, false, 2, 13, 1},
		{"all with RO", [4]bool{true, true, true, true}, true, 0, 0, 3},
	} {
		e := sim.New()
		rx := sim.NewChan[TLP](e, "rx", 8, 1)
		tx := sim.NewChan[TLP](e, "tx", 8, 1)
		rc := NewRootComplex(e, "host", withDefaults(Config{ICMLatencyCycles: 3, DataLatencyCycles: 3}), NewMemory(), rx, tx)
		rc.SetHost(HostConfig{WriteLatencyCycles: 1, WriteBufferEntries: 8})
		lats := []uint64{10, 2, 1, 1}
		rc.latFn = func() uint64 { l := lats[0]; lats = lats[1:]; return l }
		e.Add(rc)
		var in []TLP
		for i := range 4 {
			w := NewWrite(0x0100, 0x1000+uint64(i)*0x100, make([]byte, 64))
			w.TC, w.RO = TCData, c.ro[i]
			in = append(in, w)
		}
		rd := NewRead(0x0100, 7, 0x8000, 64)
		rd.TC, rd.RO = TCData, c.readRO
		in = append(in, rd)
		got := feedTLPs(e, rx, tx, in, 40)
		if len(got) != 1 || got[0].cycle != 15 || got[0].tlp.RO != c.readRO {
			t.Errorf("%s: completions %+v, want one at cycle 15 with RO %v", c.name, got, c.readRO)
		}
		st := rc.Stats()
		if st.WritesHeld != c.held || st.WriteHoldCycles != c.holdCycles || st.ROWritesPassed != c.passed ||
			st.ReadFlushCycles != 6 || st.MaxWriteBuffer != 3 || st.WriteBufferFull != 0 || st.DataWrites != 4 {
			t.Errorf("%s: stats %+v; want writes_held %d, write_hold_cycles %d, ro_writes_passed %d, read_order_cycles 6, max_write_buffer 3",
				c.name, st, c.held, c.holdCycles, c.passed)
		}
		roW := uint64(0)
		for _, r := range c.ro {
			if r {
				roW++
			}
		}
		if st.ROWrites != roW || st.ROReads != uint64(sim.B(c.readRO)) {
			t.Errorf("%s: ro_writes %d, ro_reads %d", c.name, st.ROWrites, st.ROReads)
		}
		if len(rc.wbuf) != 0 {
			t.Errorf("%s: %d writes left in the buffer", c.name, len(rc.wbuf))
		}
	}
}

// TestRootComplexWriteBufferFull: a buffer of 2 and writes of latency 5
// pushed at 0, 1, 2: W0 and W1 enter it at 4 and 5 (accepted at 9 and
// 10); W2 is at the head of the data pipe at 6 and waits at 6, 7, 8
// (write_buffer_full_cycles 3) until W0 leaves at 9, then enters.
func TestRootComplexWriteBufferFull(t *testing.T) {
	e := sim.New()
	rx := sim.NewChan[TLP](e, "rx", 8, 1)
	tx := sim.NewChan[TLP](e, "tx", 8, 1)
	rc := NewRootComplex(e, "host", withDefaults(Config{ICMLatencyCycles: 3, DataLatencyCycles: 3}), NewMemory(), rx, tx)
	rc.SetHost(HostConfig{WriteLatencyCycles: 5, WriteBufferEntries: 2})
	e.Add(rc)
	for cycle := 0; cycle < 30; cycle++ {
		if cycle < 3 {
			w := NewWrite(0x0100, 0x1000+uint64(cycle)*0x100, make([]byte, 64))
			w.TC = TCData
			rx.Push(w)
		}
		e.Step()
	}
	st := rc.Stats()
	if st.WriteBufferFull != 3 || st.MaxWriteBuffer != 2 || st.WritesHeld != 0 || st.DataWrites != 3 || len(rc.wbuf) != 0 {
		t.Errorf("stats %+v (%d left): want write_buffer_full_cycles 3, max_write_buffer 2", st, len(rc.wbuf))
	}
}

// TestHostConfigValidate: each bad value is refused naming its key and
// value.
func TestHostConfigValidate(t *testing.T) {
	if err := DefaultHostConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		c    HostConfig
		want string
	}{
		{HostConfig{WriteLatencyCycles: -1, WriteBufferEntries: 1}, "host.write_latency_cycles = -1"},
		{HostConfig{WriteLatencyCycles: MaxLatency + 1, WriteBufferEntries: 1}, "host.write_latency_cycles = 65537"},
		{HostConfig{WriteLatencyCycles: 1, WriteLatencySpreadCycles: -2, WriteBufferEntries: 1}, "host.write_latency_spread_cycles = -2"},
		{HostConfig{WriteLatencySpreadCycles: 5, WriteBufferEntries: 1}, "host.write_latency_spread_cycles = 5 needs host.write_latency_cycles >= 1"},
		{HostConfig{WriteLatencyCycles: 1, WriteBufferEntries: 0}, "host.write_buffer_entries = 0"},
		{HostConfig{WriteLatencyCycles: 1, WriteBufferEntries: 4097}, "host.write_buffer_entries = 4097"},
	} {
		if err := c.c.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.c, err, c.want)
		}
	}
}
