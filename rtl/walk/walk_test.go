package walk

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mkeysim/rtl/bus"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sim"
)

// A directed case is a script, one entry a cycle: the host's commands,
// then "|", then the walker's. The host side goes first in a cycle and
// takes the read request and the acknowledgement at the head of MemReq
// and Ack (logging "read ID ADDR" and "ack ID") unless told to hold; its
// commands push one payload each, visible to the walker in the next
// cycle:
//
//	resp ID LINE     a successful completion of the line (lineData, gen 0)
//	ur ID LINE       a failed completion (UR)
//	inval LO HI      an invalidation of [LO, HI); "inval all": of all
//	cut TAG GEN OFF  a cut
//	hold             take nothing from MemReq and Ack this cycle
//
// The walker side calls Take first (logging "inval ID" when it took an
// invalidation, "filled" when a completion filled the cache), then its
// commands:
//
//	start I, finish I  a piece for context I; context I done
//	miss I ADDR        Miss: "read" (a read sent), "merged", or "wait"
//	get I ADDR         Get: "line LA gG" (its address and generation) or "none"
//	hit I ADDR         Hit: "counted" or "replay" (the lookup after the
//	                   context's own fill: not counted)
//	step K             Step, context K acting: the contexts visited, "acted"
//	                   or "none"
//	stops TAG GEN OFF  Stops for a piece of that tag and generation
//	states             each context's state: F free, A act, W waiting (Fetch)
//	stats              the cache's counters
//
// Each logged line is "cN: what". Addresses are hex; lines are 64 bytes
// (8 entries of 8) in a direct-mapped cache of 4 sets unless the case
// says otherwise.
type directed struct {
	name   string
	sh     shape
	script []string
	want   string
}

var directedCases = []directed{
	{name: "one read a cycle: the second miss waits for the next", script: []string{
		"| start 0; start 1; miss 0 0x1008; miss 1 0x2000",
		"| miss 1 0x2000; states",
		"",
	}, want: `
c0: miss 0 read
c0: miss 1 wait
c1: read 0 0x1000/64
c1: miss 1 read
c1: states WWFF
c2: read 1 0x2000/64`},

	{name: "a merged miss joins the read in flight; the completion wakes both", sh: shape{merge: true}, script: []string{
		"| start 0; start 1; start 2; miss 0 0x1008; miss 1 0x1030",
		"| miss 2 0x1038; states; stats",
		"resp 0 0x1000",
		"| states; get 1 0x1030; hit 0 0x1008; hit 1 0x1030; hit 0 0x1010; stats",
	}, want: `
c0: miss 0 read
c0: miss 1 merged
c1: read 0 0x1000/64
c1: miss 2 merged
c1: states WWWF
c1: stats hits 0 misses 3 merged 2 fills 0 evictions 0 invalidations 0 refetches 0
c3: filled
c3: states AAAF
c3: get 1 0x1030 line 0x1000 g0
c3: hit 0 replay
c3: hit 1 replay
c3: hit 0 counted
c3: stats hits 1 misses 3 merged 2 fills 1 evictions 0 invalidations 0 refetches 0`},

	{name: "without merging each miss reads, and a completion wakes its sender only", script: []string{
		"| start 0; start 1; miss 0 0x1008",
		"| miss 1 0x1030",
		"resp 0 0x1000",
		"resp 1 0x1000 | states",
		"| states; stats",
	}, want: `
c0: miss 0 read
c1: read 0 0x1000/64
c1: miss 1 read
c2: read 1 0x1000/64
c3: filled
c3: states AWFF
c4: filled
c4: states AAFF
c4: stats hits 0 misses 2 merged 0 fills 2 evictions 0 invalidations 0 refetches 0`},

	{name: "a full read port makes a miss wait", sh: shape{reqDepth: 1}, script: []string{
		"| start 0; start 1; miss 0 0x1000",
		"hold | miss 1 0x2000",
		"hold | miss 1 0x2000",
		"| miss 1 0x2000",
		"| miss 1 0x2000",
		"",
	}, want: `
c0: miss 0 read
c1: miss 1 wait
c2: miss 1 wait
c3: read 0 0x1000/64
c3: miss 1 wait
c4: miss 1 read
c5: read 1 0x2000/64`},

	{name: "a completion invalidated in flight is read again, by the same ID", script: []string{
		"| start 0; start 1; miss 1 0x1000",
		"inval 0x1038 0x1039",
		"resp 1 0x1000 | states",
		"| states; stats",
		"",
		"resp 1 0x1000",
		"| get 1 0x1000; stats",
	}, want: `
c0: miss 1 read
c1: read 1 0x1000/64
c2: inval 1
c2: states AWFF
c3: ack 1
c3: states AWFF
c3: stats hits 0 misses 1 merged 0 fills 0 evictions 0 invalidations 0 refetches 1
c4: read 1 0x1000/64
c6: filled
c6: get 1 0x1000 line 0x1000 g0
c6: stats hits 0 misses 1 merged 0 fills 1 evictions 0 invalidations 0 refetches 1`},

	{name: "a stale completion waits for the read port", sh: shape{reqDepth: 1}, script: []string{
		"| start 0; start 1; miss 0 0x1000",
		"hold | miss 1 0x2000",
		"hold; inval 0x1000 0x1001",
		"hold; resp 0 0x1000",
		"hold | states",
		"| states; stats",
		"| states; stats",
		"",
	}, want: `
c0: miss 0 read
c1: miss 1 wait
c3: inval 1
c4: states WAFF
c5: read 0 0x1000/64
c5: ack 1
c5: states WAFF
c5: stats hits 0 misses 1 merged 0 fills 0 evictions 0 invalidations 0 refetches 0
c6: states WAFF
c6: stats hits 0 misses 1 merged 0 fills 0 evictions 0 invalidations 0 refetches 1
c7: read 0 0x1000/64`},

	{name: "a context keeps its filled line after the cache evicts it, until an invalidation", sh: shape{sets: 1}, script: []string{
		"| start 0; start 1; miss 0 0x1000",
		"| miss 1 0x2000",
		"resp 0 0x1000",
		"resp 1 0x2000 | get 0 0x1000",
		"| get 0 0x1000; get 1 0x1000; get 1 0x2000; stats",
		"inval 0x1000 0x1040",
		"| get 0 0x1000; get 1 0x2000; stats",
		"",
	}, want: `
c0: miss 0 read
c1: read 0 0x1000/64
c1: miss 1 read
c2: read 1 0x2000/64
c3: filled
c3: get 0 0x1000 line 0x1000 g0
c4: filled
c4: get 0 0x1000 line 0x1000 g0
c4: get 1 0x1000 none
c4: get 1 0x2000 line 0x2000 g0
c4: stats hits 0 misses 2 merged 0 fills 2 evictions 1 invalidations 0 refetches 0
c6: inval 1
c6: get 0 0x1000 none
c6: get 1 0x2000 line 0x2000 g0
c6: stats hits 0 misses 2 merged 0 fills 2 evictions 1 invalidations 0 refetches 0
c7: ack 1`},

	{name: "a failed read installs nothing; the context reads again", sh: shape{merge: true}, script: []string{
		"| start 0; start 1; miss 0 0x1000; miss 1 0x1008",
		"ur 0 0x1000",
		"| states; get 0 0x1000; miss 0 0x1000; miss 1 0x1000; stats",
		"",
	}, want: `
c0: miss 0 read
c0: miss 1 merged
c1: read 0 0x1000/64
c2: states AAFF
c2: get 0 0x1000 none
c2: miss 0 read
c2: miss 1 merged
c2: stats hits 0 misses 4 merged 2 fills 0 evictions 0 invalidations 0 refetches 0
c3: read 0 0x1000/64`},

	{name: "a completion for a context that does not wait for it is dropped", script: []string{
		"resp 3 0x1000 | start 0; miss 0 0x1000",
		"resp 0 0x2000",
		"resp 0 0x1000 | states; get 3 0x1000; stats",
		"| states",
		"| states; stats",
	}, want: `
c0: miss 0 read
c1: read 0 0x1000/64
c2: states WFFF
c2: get 3 0x1000 none
c2: stats hits 0 misses 1 merged 0 fills 0 evictions 0 invalidations 0 refetches 0
c3: filled
c3: states AFFF
c4: states AFFF
c4: stats hits 0 misses 1 merged 0 fills 1 evictions 0 invalidations 0 refetches 0`},

	{name: "round robin from the one after the last that acted", script: []string{
		"| start 0; start 1; start 3; step 1; step 9; step 0; finish 0; step 9",
	}, want: `
c0: step 0 1 acted
c0: step 3 0 1 none
c0: step 3 0 acted
c0: step 1 3 none`},

	{name: "an invalidation waits for Ack; all drops every line and kept line", sh: shape{ackDepth: 1}, script: []string{
		"| start 0; miss 0 0x1000",
		"resp 0 0x1000",
		"inval all",
		"hold; inval 0x5000 0x6000 | get 0 0x1000",
		"hold",
		"",
		"| stats",
		"",
	}, want: `
c0: miss 0 read
c1: read 0 0x1000/64
c2: filled
c3: inval 1
c3: get 0 0x1000 none
c5: ack 1
c6: inval 2
c6: stats hits 0 misses 1 merged 0 fills 1 evictions 0 invalidations 1 refetches 0
c7: ack 2`},

	{name: "cuts: a newer generation replaces, the same lowers", script: []string{
		"cut 5 1 100 | stops 5 1 99",
		"| stops 5 1 99; stops 5 1 100; stops 5 2 100; stops 4 1 100",
		"cut 5 1 50; | stops 5 1 60",
		"cut 5 1 80 | stops 5 1 60",
		"cut 5 2 200 | stops 5 1 60; stops 5 2 199",
		"| stops 5 1 60; stops 5 2 199; stops 5 2 200",
	}, want: `
c0: stops 5 1 99 false
c1: stops 5 1 99 false
c1: stops 5 1 100 true
c1: stops 5 2 100 false
c1: stops 4 1 100 false
c2: stops 5 1 60 false
c3: stops 5 1 60 true
c4: stops 5 1 60 true
c4: stops 5 2 199 false
c5: stops 5 1 60 false
c5: stops 5 2 199 false
c5: stops 5 2 200 true`},
}

// TestWalkDirected runs the directed scripts and compares their logs.
func TestWalkDirected(t *testing.T) {
	for _, tc := range directedCases {
		t.Run(tc.name, func(t *testing.T) {
			sh := tc.sh
			sh.perLine, sh.entryBytes = 8, 8
			for _, f := range []struct {
				v   *int
				def int
			}{{&sh.n, 4}, {&sh.sets, 4}, {&sh.reqDepth, 2}, {&sh.ackDepth, 2}} {
				if *f.v == 0 {
					*f.v = f.def
				}
			}
			got := runScript(t, sh, tc.script)
			if want := strings.TrimSpace(tc.want); got != want {
				t.Errorf("log:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// runScript runs a directed script and returns its log.
func runScript(t *testing.T, sh shape, script []string) string {
	r := newRig(sh)
	lb := r.c.Cache.LineBytes()
	var log []string
	logf := func(now uint64, f string, a ...any) {
		log = append(log, fmt.Sprintf("c%d: ", now)+fmt.Sprintf(f, a...))
	}
	cmds := func(now uint64, side int) [][]string {
		if int(now) >= len(script) {
			return nil
		}
		host, walker, _ := strings.Cut(script[now], "|")
		var out [][]string
		for _, c := range strings.Split([]string{host, walker}[side], ";") {
			if f := strings.Fields(c); len(f) > 0 {
				out = append(out, f)
			}
		}
		return out
	}
	num := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("script: %v", err)
		}
		return v
	}
	ids := uint32(0)
	r.env = func(now uint64) {
		hold := false
		for _, f := range cmds(now, 0) {
			switch f[0] {
			case "hold":
				hold = true
			case "resp", "ur":
				resp := pcie.ReadResp{ID: uint32(num(f[1])), Addr: num(f[2]), Status: pcie.SC, Data: lineData(num(f[2]), 0, lb)}
				if f[0] == "ur" {
					resp.Status, resp.Data = pcie.UR, nil
				}
				r.p.MemResp.Push(resp)
			case "inval":
				ids++
				iv := bus.Inval{ID: ids, All: f[1] == "all"}
				if !iv.All {
					iv.Lo, iv.Hi = num(f[1]), num(f[2])
				}
				r.p.Ctrl.Push(iv)
			case "cut":
				r.p.Cut.Push(bus.Cut{Tag: uint16(num(f[1])), Gen: uint16(num(f[2])), Offset: num(f[3])})
			default:
				t.Fatalf("script: host command %q", f)
			}
		}
		if hold {
			return
		}
		if r.p.MemReq.Valid() {
			q := r.p.MemReq.Peek()
			logf(now, "read %d %#x/%d", q.ID, q.Addr, q.Len)
			r.p.MemReq.Pop()
		}
		if r.p.Ack.Valid() {
			logf(now, "ack %d", r.p.Ack.Peek().ID)
			r.p.Ack.Pop()
		}
	}
	r.walker = func(now uint64) {
		iv, filled := r.c.Take()
		if iv != nil {
			logf(now, "inval %d", iv.ID)
		}
		if filled {
			logf(now, "filled")
		}
		for _, f := range cmds(now, 1) {
			switch f[0] {
			case "start":
				r.c.Start(int(num(f[1])), 0)
			case "finish":
				r.c.Finish(int(num(f[1])))
			case "miss":
				i, before := int(num(f[1])), r.c.Cache.Stats.MergedMisses
				_, ok := r.c.Miss(i, num(f[2]))
				switch {
				case !ok:
					logf(now, "miss %d wait", i)
				case r.c.Cache.Stats.MergedMisses > before:
					logf(now, "miss %d merged", i)
				default:
					logf(now, "miss %d read", i)
				}
			case "get":
				d, ok := r.c.Get(int(num(f[1])), num(f[2]))
				what := "none"
				if ok {
					la, gen, _ := lineOf(d)
					what = fmt.Sprintf("line %#x g%d", la, gen)
				}
				logf(now, "get %s %s %s", f[1], f[2], what)
			case "hit":
				what := map[linecache.Counted]string{linecache.CountedHit: "counted", linecache.CountedNothing: "replay"}
				logf(now, "hit %s %s", f[1], what[r.c.Hit(int(num(f[1])), num(f[2]))])
			case "step":
				k := int(num(f[1]))
				var seen []string
				acted := r.c.Step(func(i int) bool {
					seen = append(seen, strconv.Itoa(i))
					return i == k
				})
				logf(now, "step %s %s", strings.Join(seen, " "), map[bool]string{true: "acted", false: "none"}[acted])
			case "stops":
				p := bus.Piece{Tag: uint16(num(f[1])), Gen: uint16(num(f[2]))}
				logf(now, "stops %s %s %s %v", f[1], f[2], f[3], r.c.Stops(&p, num(f[3])))
			case "states":
				logf(now, "states %s", states(&r.c))
			case "stats":
				s := r.c.Cache.Stats
				logf(now, "stats hits %d misses %d merged %d fills %d evictions %d invalidations %d refetches %d",
					s.Hits, s.Misses, s.MergedMisses, s.Fills, s.Evictions, s.Invalidations, s.Refetches)
			default:
				t.Fatalf("script: walker command %q", f)
			}
		}
	}
	for range len(script) {
		r.e.Step()
	}
	return strings.Join(log, "\n")
}

// states is each context's state: F free, A act, W waiting for a line.
func states(c *Contexts) string {
	b := make([]byte, c.Len())
	for i := range b {
		b[i] = "FAW"[c.State(i)]
	}
	return string(b)
}

// TestWalkEnum: the states' values and the walkers' names of them.
func TestWalkEnum(t *testing.T) {
	e := Enum("x_state", "IDLE", "PAGE")
	want := map[uint64]string{0: "IDLE", 1: "PAGE", 2: "FETCH"}
	if e.Name != "x_state" || e.Width != 2 || !mapsEqual(e.Names, want) {
		t.Fatalf("Enum = %+v, want x_state, width 2, %v", e, want)
	}
	if Free != 0 || Act != 1 || Fetch != 2 {
		t.Fatal("the states' values moved: waveforms show them")
	}
}

func mapsEqual(a, b map[uint64]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestWalkDescribe: the walker's own signals first, then two a context for
// the first MaxTraced, sampled from the contexts' states and the tags
// their pieces came with, held once they are free.
func TestWalkDescribe(t *testing.T) {
	for _, n := range []int{1, 3, MaxTraced, MaxTraced + 5} {
		r := newRig(shape{n: n, sets: 4, perLine: 8, entryBytes: 8, reqDepth: 2, ackDepth: 2})
		head := []sim.Signal{sim.Bit("a"), {Name: "b", Width: 5}}
		enum := Enum("t_state", "FREE", "ACT")
		d := r.c.Describe("unit", "a unit", slices.Clip(head), func(vs []uint64) { vs[0], vs[1] = 1, 17 }, enum)
		traced := min(n, MaxTraced)
		if d.Scope != "unit" || len(d.Signals) != 2+2*traced {
			t.Fatalf("n %d: scope %q, %d signals, want unit, %d", n, d.Scope, len(d.Signals), 2+2*traced)
		}
		if d.Signals[0] != head[0] || d.Signals[1] != head[1] {
			t.Fatalf("n %d: head %+v", n, d.Signals[:2])
		}
		for i := range traced {
			s, g := d.Signals[2+2*i], d.Signals[3+2*i]
			if s.Name != fmt.Sprintf("ctx%d_state", i) || s.Enum != enum || g.Name != fmt.Sprintf("ctx%d_tag", i) || g.Width != 16 || g.Enum != nil {
				t.Fatalf("n %d: context %d's signals %+v %+v", n, i, s, g)
			}
		}
		// Context 0 acts, 1 waits for a line, 2 is done; the others
		// never had a piece.
		r.walker = func(uint64) {
			r.c.Start(0, 100)
			if n > 2 {
				r.c.Start(1, 101)
				r.c.Miss(1, 0x40)
				r.c.Start(2, 102)
				r.c.Finish(2)
			}
		}
		r.e.Step()
		vs := make([]uint64, len(d.Signals))
		d.Sample(vs)
		want := []uint64{1, 17, uint64(Act), 100}
		if n > 2 {
			want = append(want, uint64(Fetch), 101, uint64(Free), 102)
		}
		for len(want) < len(vs) {
			want = append(want, uint64(Free), 0)
		}
		if !slices.Equal(vs, want) {
			t.Fatalf("n %d: sampled %v, want %v", n, vs, want)
		}
	}
}

// TestWalkConnections: the shared ports after the walker's own, Cut only
// when the walker has one.
func TestWalkConnections(t *testing.T) {
	for _, noCut := range []bool{false, true} {
		r := newRig(shape{n: 2, sets: 1, perLine: 8, entryBytes: 8, reqDepth: 1, ackDepth: 1, noCut: noCut})
		own := sim.NewChan[int](r.e, "own", 1, 1)
		in, out := r.c.Connections([]sim.Port{own}, []sim.Port{own})
		wantIn := []sim.Port{own, r.p.MemResp, r.p.Ctrl}
		if !noCut {
			wantIn = append(wantIn, r.p.Cut)
		}
		if !slices.Equal(in, wantIn) || !slices.Equal(out, []sim.Port{own, r.p.MemReq, r.p.Ack}) {
			t.Fatalf("noCut %v: in %v out %v", noCut, in, out)
		}
	}
}
