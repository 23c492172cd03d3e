package tb

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
	"mkeysim/tb/wire"
)

// packetList is a capture held in memory, read from the start.
type packetList struct {
	pkts []wire.Captured
	i    int
}

func (p *packetList) Next() (*wire.Captured, error) {
	if p.i == len(p.pkts) {
		return nil, io.EOF
	}
	p.i++
	return &p.pkts[p.i-1], nil
}

// listOpener opens pkts from the start, as often as asked.
func listOpener(pkts []wire.Captured) func() (Packets, error) {
	return func() (Packets, error) { return &packetList{pkts: pkts}, nil }
}

// decodeFrames decodes frames as a capture's packets, numbered from 1.
func decodeFrames(t *testing.T, frames [][]byte) []wire.Captured {
	t.Helper()
	out := make([]wire.Captured, len(frames))
	for i, f := range frames {
		s, err := wire.Decode(f)
		if err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		out[i] = wire.Captured{Number: i + 1, Frame: wire.Frame{Data: f}, Summary: *s}
	}
	return out
}

// wireRunOut is what a run through the wire front printed and reported.
type wireRunOut struct {
	lines  []string
	frames []Frame
	st     WireStats
}

// collect runs stream on a new bench of sc and keeps its result lines and
// frames.
func collect(t *testing.T, sc *scenario.Scenario, stream func(*Bench, RunOptions, WireOptions) (WireStats, error)) (r wireRunOut) {
	t.Helper()
	var err error
	r.st, err = stream(loadedBench(t, rtl.DefaultConfig(), sc), RunOptions{OnResult: func(res *scenario.Result) error {
		var buf strings.Builder
		err := (&scenario.LineWriter{W: &buf}).Write(res)
		r.lines = append(r.lines, buf.String())
		return err
	}}, WireOptions{Frames: func(f Frame) { r.frames = append(r.frames, f) }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameRun fails t unless got and want printed the same lines and
// reported the same frames in the same cycles.
func sameRun(t *testing.T, name string, got, want wireRunOut) {
	t.Helper()
	if !slices.Equal(got.lines, want.lines) {
		t.Fatalf("%s: %d result lines differ from the %d wanted", name, len(got.lines), len(want.lines))
	}
	if got.st != want.st || len(got.frames) != len(want.frames) {
		t.Fatalf("%s: %+v and %d frames; want %+v and %d frames", name, got.st, len(got.frames), want.st, len(want.frames))
	}
	for i := range got.frames {
		if got.frames[i].Cycle != want.frames[i].Cycle || !slices.Equal(got.frames[i].Data, want.frames[i].Data) {
			t.Fatalf("%s: frame %d differs: cycle %d against %d", name, i, got.frames[i].Cycle, want.frames[i].Cycle)
		}
	}
}

// replayRun replays pkts among ops of sc, Chunk operations at a time; a
// negative chunk is its opposite, with the chunks up to operation 50 read before the
// run starts (as a reader of the feed may).
func replayRun(t *testing.T, sc *scenario.Scenario, pkts []wire.Captured, chunk int) wireRunOut {
	t.Helper()
	r, err := NewReplay(sc.Ops, listOpener(pkts))
	if err != nil {
		t.Fatal(err)
	}
	r.Chunk = max(chunk, -chunk)
	if chunk < 0 {
		r.Feed().At(50)
	}
	return collect(t, sc, func(b *Bench, o RunOptions, wo WireOptions) (WireStats, error) {
		return b.StreamReplay(r, o, wo)
	})
}

// TestReplayFed: a capture of a wire run (its requests and answers, with
// page faults, resumes and SENDs with invalidate), replayed among the
// scenario's operations a chunk at a time, prints the wire run's lines
// and reports its packets in the same cycles, whatever the chunk; alone
// (a scenario without operations), a chunk of one operation runs as the
// whole capture at once.
func TestReplayFed(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Seed, w.Keys, w.Accesses = 9, 64, 3000
	w.UMRPerMille, w.InvalPerMille, w.QueryPerMille, w.ResumePerMille = 20, 20, 5, 50
	sc := stimulus.Generate(w)
	run := collect(t, sc, func(b *Bench, o RunOptions, wo WireOptions) (WireStats, error) {
		return b.StreamWire(sc.Ops, o, wo)
	})
	var frames [][]byte
	for _, f := range run.frames {
		frames = append(frames, f.Data)
	}
	pkts := decodeFrames(t, frames)
	for _, chunk := range []int{1, 2, -2, 7, 1 << 30} {
		got := replayRun(t, sc, pkts, chunk)
		// The replay's parser also skips the answers the capture holds.
		want := run
		want.st.Skipped += run.st.Answers
		sameRun(t, fmt.Sprintf("chunks of %d", chunk), got, want)
	}
	alone := &scenario.Scenario{QPs: sc.QPs, MKeys: sc.MKeys}
	whole := replayRun(t, alone, pkts, 1<<30)
	sameRun(t, "alone, chunks of 1", replayRun(t, alone, pkts, 1), whole)
	if whole.st.Messages == 0 || len(whole.lines) != whole.st.Messages {
		t.Errorf("alone: %d lines for %d messages", len(whole.lines), whole.st.Messages)
	}
}

// interleaved returns a capture of n RDMA WRITEs of three packets each,
// one on each of QPs 1..n, their packets interleaved (the first packet
// of each, then the second of each...), and a READ on QP 1; and the
// scenario's setup that serves them.
func interleaved(t *testing.T, n int) (*scenario.Scenario, []wire.Captured) {
	t.Helper()
	var qps []string
	for q := 1; q <= n; q++ {
		qps = append(qps, fmt.Sprintf(`{"qpn": %d, "pd": 5}`, q))
	}
	sc, err := scenario.Parse([]byte(`{"qps": [` + strings.Join(qps, ", ") + `], "mkeys": [{"index": 16, "variant": "0x2a",
	  "mkc": {"access_mode": "MTT", "pd": 5, "start_addr": "0x7f0000000000", "len": 16384, "log_entity_size": 12,
	  "lr": 1, "lw": 1, "rr": 1, "rw": 1},
	  "mtt": [{"ptag": "0x100000"}, {"ptag": "0x200000"}, {"ptag": "0x300000"}, {"ptag": "0x400000"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := wire.NewRequester()
	var each [][][]byte
	for q := 1; q <= n; q++ {
		op := scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: uint32(q), Key: 0x102a,
			Addr: 0x7f0000000000 + uint64(q)*64, Len: 2*wire.PathMTU + 100, Type: prm.RemoteWrite}}
		f, err := req.Send(&op)
		if err != nil || len(f) != 3 {
			t.Fatalf("WRITE on QP %d: %d packets, %v", q, len(f), err)
		}
		each = append(each, f)
	}
	var frames [][]byte
	for k := range 3 {
		for q := range each {
			frames = append(frames, each[q][k])
		}
	}
	read := scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: 0x102a, Addr: 0x7f0000000100, Len: 64, Type: prm.RemoteRead}}
	f, err := req.Send(&read)
	if err != nil {
		t.Fatal(err)
	}
	return sc, decodeFrames(t, append(frames, f...))
}

// TestReplayInterleaved: WRITEs whose packets interleave on several QPs
// run as the whole capture does, a chunk of one operation at a time: a
// chunk waits for the WRITEs it holds to end, so every packet is
// reported with its message, up to four chunks' worth; past that, a
// packet that comes after its message was taken is still reported,
// once, in the cycle it is read.
func TestReplayInterleaved(t *testing.T) {
	for _, n := range []int{2, 4, 6} {
		sc, pkts := interleaved(t, n)
		whole := replayRun(t, sc, pkts, 1<<30)
		got := replayRun(t, sc, pkts, 1)
		if len(whole.lines) != n+1 || whole.st.Messages != n+1 || whole.st.Requests != len(pkts) {
			t.Fatalf("%d WRITEs: %d lines, %+v; want %d messages of %d packets", n, len(whole.lines), whole.st, n+1, len(pkts))
		}
		for _, l := range whole.lines {
			if !strings.Contains(l, `"status": "OK"`) && !strings.Contains(l, `"status":"OK"`) {
				t.Fatalf("%d WRITEs: %s", n, l)
			}
		}
		if n <= 4 {
			sameRun(t, fmt.Sprintf("%d WRITEs", n), got, whole)
			continue
		}
		if !slices.Equal(got.lines, whole.lines) || got.st != whole.st {
			t.Fatalf("%d WRITEs: the chunked replay's results or counts differ", n)
		}
		// The same packets, some of them later.
		key := func(fs []Frame) []string {
			var out []string
			for _, f := range fs {
				out = append(out, string(f.Data))
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(key(got.frames), key(whole.frames)) {
			t.Fatalf("%d WRITEs: the chunked replay reported other packets than the whole one", n)
		}
		if slices.EqualFunc(got.frames, whole.frames, func(a, b Frame) bool { return a.Cycle == b.Cycle }) {
			t.Errorf("%d WRITEs: no packet was reported late: the case is not exercised", n)
		}
	}
}

// TestReplayChanged: a capture that holds fewer messages when the run
// reads it than when NewReplay checked it ends the run with an error.
func TestReplayChanged(t *testing.T) {
	sc, pkts := interleaved(t, 2)
	opens := 0
	r, err := NewReplay(nil, func() (Packets, error) {
		opens++
		if opens > 1 {
			return &packetList{pkts: pkts[:3]}, nil
		}
		return &packetList{pkts: pkts}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = loadedBench(t, rtl.DefaultConfig(), sc).StreamReplay(r, RunOptions{}, WireOptions{})
	if !errors.Is(err, ErrCaptureChanged) {
		t.Errorf("StreamReplay = %v, want the capture's end named", err)
	}
}

// generatedCapture is a capture made as it is read: the requests of the
// wire-carried operations of a generated workload.
type generatedCapture struct {
	g    *stimulus.Generator
	req  *wire.Requester
	ops  []scenario.Op
	held []wire.Captured
	n    int
}

func (c *generatedCapture) Next() (*wire.Captured, error) {
	for len(c.held) == 0 {
		if len(c.ops) == 0 {
			if c.ops = c.g.Next(stimulus.FeedChunk); c.ops == nil {
				return nil, io.EOF
			}
		}
		op := &c.ops[0]
		c.ops = c.ops[1:]
		if !wire.Carries(op) {
			continue
		}
		frames, err := c.req.Send(op)
		if err != nil {
			return nil, err
		}
		for _, f := range frames {
			s, err := wire.Decode(f)
			if err != nil {
				return nil, err
			}
			c.n++
			c.held = append(c.held, wire.Captured{Number: c.n, Frame: wire.Frame{Data: f}, Summary: *s})
		}
	}
	p := &c.held[0]
	c.held = c.held[1:]
	return p, nil
}

// TestReplayMemory: a replay holds the packets of a few chunks, not the
// capture: nine tenths into a capture ten times as long, it keeps no more.
func TestReplayMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 165,000 generated accesses")
	}
	live := func(accesses int) (uint64, int) {
		w := stimulus.DefaultWorkload()
		w.Accesses = accesses
		setup := stimulus.NewGenerator(w).Setup()
		r, err := NewReplay(nil, func() (Packets, error) {
			g := stimulus.NewGenerator(w)
			g.Setup()
			return &generatedCapture{g: g, req: wire.NewRequester()}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		b := loadedBench(t, rtl.DefaultConfig(), setup)
		var m runtime.MemStats
		if _, err := b.StreamReplay(r, RunOptions{OnResult: func(res *scenario.Result) error {
			if res.Seq == r.Ops*9/10 {
				runtime.GC()
				runtime.ReadMemStats(&m)
			}
			return nil
		}}, WireOptions{}); err != nil {
			t.Fatal(err)
		}
		return m.HeapAlloc, r.Messages
	}
	short, n := live(15_000)
	long, m := live(150_000)
	t.Logf("heap in use nine tenths into a replay of %d messages: %.1f MB; of %d: %.1f MB", n, float64(short)/1e6, m, float64(long)/1e6)
	if long > short+1<<20 {
		t.Errorf("a replay of %d messages keeps %.1f MB, one of %d %.1f MB: the capture is held, not read as the run goes", m, float64(long)/1e6, n, float64(short)/1e6)
	}
}

// FuzzReplayFeed: a capture of RDMA WRITEs of one to three packets,
// READs and atomics on four QPs, their packets interleaved, repeated and
// dropped as the input says, reads through a replay's feed a chunk of
// one to four operations at a time as the check counted it, and as one
// whole pass does: the same operations, and every request packet handed
// with the same message.
func FuzzReplayFeed(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{3, 0x00, 0x05, 0x0a, 0x14, 0x15, 0x16, 0x17, 0x19, 0x1e, 0x1b})
	f.Add([]byte{1, 0x02, 0x03, 0x16, 0x17, 0x1a, 0x1f, 0x16, 0x17})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 200 {
			return
		}
		req := wire.NewRequester()
		held := make([][][]byte, 4) // each QP's packets not yet in the capture
		var frames [][]byte
		for _, b := range data[1:] {
			q := int(b & 3)
			op := scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: uint32(q + 1), Key: 0x102a, Addr: 0x7f0000000000}}
			switch k := b >> 2 & 7; k {
			case 0, 1, 2:
				op.Access.Type, op.Access.Len = prm.RemoteWrite, uint32(k)*wire.PathMTU+64
			case 3:
				op.Access.Type, op.Access.Len = prm.RemoteRead, 4096
			case 4:
				op.Access.Type, op.Access.Len = prm.RemoteAtomic, 8
			default:
				if len(held[q]) == 0 {
					continue
				}
				p := held[q][0]
				held[q] = held[q][1:]
				switch k {
				case 5:
					frames = append(frames, p)
				case 6: // sent twice
					frames = append(frames, p, p)
				} // 7: lost
				continue
			}
			fs, err := req.Send(&op)
			if err != nil {
				t.Fatal(err)
			}
			held[q] = append(held[q], fs...)
		}
		for _, h := range held {
			frames = append(frames, h...)
		}
		if len(frames) == 0 {
			return
		}
		pkts := decodeFrames(t, frames)
		pass := func(chunk int) ([]scenario.Op, []*replayMsg, *Replay) {
			r, err := NewReplay(nil, listOpener(pkts))
			if err != nil {
				t.Fatalf("NewReplay: %v", err)
			}
			r.Chunk = chunk
			fd := r.Feed()
			var ops []scenario.Op
			for seq := 0; ; {
				c := fd.From(seq)
				if c == nil {
					break
				}
				ops = append(ops, c...)
				seq += len(c)
				fd.Forget(seq)
			}
			if fd.Err() != nil || len(ops) != r.Ops {
				t.Fatalf("chunks of %d: %d operations of %d, %v", chunk, len(ops), r.Ops, fd.Err())
			}
			var msgs []*replayMsg
			if r.in != nil {
				msgs = r.in.early
			}
			return ops, msgs, r
		}
		whole, wm, r := pass(1 << 30)
		ops, msgs, _ := pass(1 + int(data[0]%4))
		if !slices.Equal(ops, whole) || len(msgs) != len(wm) {
			t.Fatalf("%d operations, %d messages; whole: %d, %d", len(ops), len(msgs), len(whole), len(wm))
		}
		n := 0
		for i, m := range msgs {
			n += len(m.frames)
			if m.seq != i || len(m.frames) != len(wm[i].frames) {
				t.Fatalf("message %d: operation %d, %d packets; whole: %d", i, m.seq, len(m.frames), len(wm[i].frames))
			}
			for k := range m.frames {
				if !slices.Equal(m.frames[k], wm[i].frames[k]) {
					t.Fatalf("message %d: packet %d differs", i, k)
				}
			}
		}
		if n != r.Requests {
			t.Fatalf("%d request packets handed, the check counted %d", n, r.Requests)
		}
	})
}
