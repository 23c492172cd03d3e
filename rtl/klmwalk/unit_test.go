package klmwalk

import (
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/internal/chantest"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/walk"
	"mkeysim/scenario"
)

const (
	qpn = 0x42
	pd  = 0x77
)

// world holds the same keys in five golden models, with MaxIndirection
// 0..4: models[4] gives the children of any piece; models[M-L] is the
// model in which a level-0 request behaves as a level-L piece does in a
// unit configured with MaxIndirection M.
type world struct {
	models [5]*ref.Model
	lower  []prm.Key
}

func newWorld() *world {
	w := &world{}
	for d := range w.models {
		w.models[d] = ref.New(ref.Config{MaxIndirection: d})
		w.models[d].AddQP(scenario.QP{QPN: qpn, PD: pd})
	}
	return w
}

func (w *world) create(t *testing.T, k scenario.MKey) prm.Key {
	t.Helper()
	for _, m := range w.models {
		if _, r := m.Create(k); r != nil {
			t.Fatalf("ref refuses the key: %v %s (mkc %+v)", r.Status, r.Reason, k.MKC)
		}
	}
	return prm.MakeKey(k.Index, k.MKC.Variant)
}

func full(mkc prm.MKC, mode prm.AccessMode) prm.MKC {
	mkc.AccessMode, mkc.LR, mkc.LW, mkc.RR, mkc.RW, mkc.A = mode, true, true, true, true, true
	mkc.PD, mkc.QPN = pd, prm.QPNNone
	return mkc
}

// The lower keys of the open-loop tests name themselves: each is an MTT
// key over the whole space with 2 GB pages, page i at enc(key) + i<<31, so
// ref's segment for a child [A, A+n) with A+n <= 2^31 is enc(key) + A,
// one segment per child: the key and the lower address of every child
// can be read back from ref's segments.
func enc(k prm.Key) uint64 { return uint64(k.Index())<<40 | uint64(k.Variant())<<32 }

func decode(s prm.Segment) (prm.Key, uint64) {
	return prm.MakeKey(uint32(s.Addr>>40), uint8(s.Addr>>32)), s.Addr & 0xffff_ffff
}

const lowerSpan = 1 << 31 // children of the open-loop world stay below it

func (w *world) addLower(t *testing.T, idx uint32, variant uint8) prm.Key {
	k := prm.MakeKey(idx, variant)
	mkc := full(prm.MKC{Variant: variant, Length64: true, LogEntitySize: 31, TranslationsOctwordSize: 4,
		MTTHandle: ref.HandleBase + 0x100_0000 + uint64(idx)*0x100}, prm.ModeMTT)
	entries := []prm.MTTEntry{{PTag: enc(k), RdEn: true, WrEn: true}, {PTag: enc(k) | 1<<31, RdEn: true, WrEn: true}}
	w.create(t, scenario.MKey{Index: idx, HasIndex: true, MKC: mkc, MTT: entries, PgAccess: true})
	w.lower = append(w.lower, k)
	return k
}

// lowerWorld has lower keys at indexes 0 (variant 0, the key of an all-zero
// Fixed Buffer Size entry) to 7.
func lowerWorld(t *testing.T, rng *rand.Rand) *world {
	w := newWorld()
	w.addLower(t, 0, 0)
	for i := uint32(1); i < 8; i++ {
		w.addLower(t, i, uint8(rng.Intn(256)))
	}
	return w
}

func (w *world) model(d int) *ref.Model { return w.models[d] }

// walk is the checked piece the checker would send.
func (w *world) walk(key prm.Key, tag uint16, level uint8, typ prm.AccessType, addr, n, off uint64) bus.Walk {
	return bus.Walk{
		Piece: bus.Piece{Tag: tag, Level: level, Type: typ, Key: key, Addr: addr, Len: n, Offset: off, QPN: qpn, PD: pd},
		MKC:   w.models[4].Object(key.Index()).MKC,
	}
}

type child struct {
	key     prm.Key
	addr, n uint64
	off     uint64 // in the piece
}

// refChildren translates the bytes of wk at level 0 in models[4]: the
// children ref recurses into, and the piece offset of a TRANSLATION_RANGE
// of the piece's own key (fail < 0: none). ok is false when ref fails for
// another reason (the generator made a piece the checker stops, or one
// whose children leave the lower keys' encoding).
func (w *world) refChildren(wk *bus.Walk) (ch []child, fail int64, ok bool) {
	m := w.models[4]
	req := ref.Request{QPN: qpn, Key: wk.Key, Addr: wk.Addr, Len: uint32(wk.Len), Type: prm.LocalRead}
	res := m.Translate(req, nil)
	segs := res.Segments
	fail = -1
	switch {
	case res.Status == prm.OK:
	case res.Status == prm.TranslationRange && res.Level == 0:
		fail = int64(res.Offset)
		segs = nil
		if res.Offset > 0 {
			req.Len = uint32(res.Offset)
			pre := m.Translate(req, nil)
			if pre.Status != prm.OK {
				return nil, 0, false
			}
			segs = pre.Segments
		}
	default:
		return nil, 0, false
	}
	off := uint64(0)
	for _, s := range segs {
		k, a := decode(s)
		if s.Space != prm.SpaceDMA || a+s.Len > lowerSpan {
			return nil, 0, false
		}
		ch = append(ch, child{key: k, addr: a, n: s.Len, off: off})
		off += s.Len
	}
	return ch, fail, true
}

// expected is what the unit (MaxIndirection maxInd) must emit for wk: the
// children on Loop, and on Done the failure of the piece's own key covering
// the rest. If the children would be too deep, the first of them ends the
// piece instead: one INDIRECTION_DEPTH at level+1 from its offset to the
// end of the piece (the reorder buffer keeps the lowest-offset failure, so
// nothing after it matters), and nothing is sent to be looked up.
func (w *world) expected(wk *bus.Walk, maxInd int) (loop []bus.Piece, done []bus.Outcome, ok bool) {
	ch, fail, ok := w.refChildren(wk)
	if !ok {
		return nil, nil, false
	}
	lvl := wk.Level + 1
	if int(lvl) > maxInd && len(ch) > 0 {
		c := ch[0]
		return nil, []bus.Outcome{{Tag: wk.Tag, Offset: wk.Offset + c.off, Len: wk.Len - c.off, Status: prm.IndirectionDepth, Level: lvl}}, true
	}
	for _, c := range ch {
		loop = append(loop, bus.Piece{Tag: wk.Tag, Level: lvl, Type: wk.Type, Key: c.key, Addr: c.addr, Len: c.n,
			Offset: wk.Offset + c.off, QPN: wk.QPN, PD: wk.PD})
	}
	if fail >= 0 {
		done = append(done, bus.Outcome{Tag: wk.Tag, Offset: wk.Offset + uint64(fail), Len: wk.Len - uint64(fail),
			Status: prm.TranslationRange, Level: wk.Level})
	}
	return loop, done, true
}

// span is one piece of coverage.
type span struct{ off, n uint64 }

// tiles checks that spans cover [off, off+n) exactly once.
func tiles(spans []span, off, n uint64) error {
	sort.Slice(spans, func(i, j int) bool { return spans[i].off < spans[j].off })
	at := off
	for _, s := range spans {
		if s.off != at || s.n == 0 {
			return fmt.Errorf("span at %d len %d, want offset %d (spans %v)", s.off, s.n, at, spans)
		}
		at += s.n
	}
	if at != off+n {
		return fmt.Errorf("covered up to %d of [%d, %d)", at, off, off+n)
	}
	return nil
}

// compareOpen checks an open-loop run, piece by piece: children and
// outcomes exactly as expected, in order; coverage exactly once; the first
// failure as ref gives it with the depth limit in force.
func compareOpen(t *testing.T, ctx string, w *world, maxInd int, walks []bus.Walk, loop []chantest.Rec[bus.Piece], done []chantest.Rec[bus.Outcome]) {
	t.Helper()
	loopBy := map[uint16][]bus.Piece{}
	for _, r := range loop {
		loopBy[r.V.Tag] = append(loopBy[r.V.Tag], r.V)
	}
	doneBy := map[uint16][]bus.Outcome{}
	for _, r := range done {
		doneBy[r.V.Tag] = append(doneBy[r.V.Tag], r.V)
	}
	for i := range walks {
		wk := &walks[i]
		wl, wd, ok := w.expected(wk, maxInd)
		if !ok {
			t.Fatalf("%s: generator made an unusable piece %+v", ctx, wk.Piece)
		}
		gl, gd := loopBy[wk.Tag], doneBy[wk.Tag]
		delete(loopBy, wk.Tag)
		delete(doneBy, wk.Tag)
		desc := fmt.Sprintf("%s: tag %d level %d %v key %v addr %#x len %#x (mode %v start %#x len %#x length64 %v log %d cap %d)",
			ctx, wk.Tag, wk.Level, wk.Type, wk.Key, wk.Addr, wk.Len, wk.MKC.AccessMode, wk.MKC.StartAddr, wk.MKC.Len,
			wk.MKC.Length64, wk.MKC.LogEntitySize, wk.MKC.TranslationsOctwordSize)
		if !reflect.DeepEqual(gl, wl) {
			t.Fatalf("%s\nchildren on Loop:\n got %+v\nwant %+v", desc, gl, wl)
		}
		if !reflect.DeepEqual(gd, wd) {
			t.Fatalf("%s\noutcomes on Done:\n got %+v\nwant %+v", desc, gd, wd)
		}
		var sp []span
		for _, p := range gl {
			sp = append(sp, span{p.Offset, p.Len})
		}
		var first *bus.Outcome
		for j := range gd {
			sp = append(sp, span{gd[j].Offset, gd[j].Len})
			if first == nil || gd[j].Offset < first.Offset {
				first = &gd[j]
			}
		}
		if err := tiles(sp, wk.Offset, wk.Len); err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		// With the depth limit: a level-L piece in a unit of limit M is a
		// level-0 request in a model of limit M-L.
		req := ref.Request{QPN: qpn, Key: wk.Key, Addr: wk.Addr, Len: uint32(wk.Len), Type: prm.LocalRead}
		res := w.model(maxInd-int(wk.Level)).Translate(req, nil)
		switch {
		case first == nil && res.Status != prm.OK:
			t.Fatalf("%s: no failure, ref with depth limit %d fails %v", desc, maxInd-int(wk.Level), res.Status)
		case first != nil && (first.Status != res.Status || first.Offset != wk.Offset+res.Offset || int(first.Level) != res.Level+int(wk.Level)):
			t.Fatalf("%s: first failure %v level %d offset %d; ref (limit %d) %v level %d offset %d (+%d, +level %d)", desc,
				first.Status, first.Level, first.Offset, maxInd-int(wk.Level), res.Status, res.Level, res.Offset, wk.Offset, wk.Level)
		}
	}
	for tag := range loopBy {
		t.Fatalf("%s: children of unknown tag %d", ctx, tag)
	}
	for tag := range doneBy {
		t.Fatalf("%s: outcomes of unknown tag %d", ctx, tag)
	}
}

// genParent draws a variable KLM or Fixed Buffer Size key over the lower
// keys: capacity 4..32 entries, some never written, byte counts biased to
// 0, small and large.
func genParent(t *testing.T, rng *rand.Rand, w *world, idx uint32, fixed bool, handle uint64) prm.Key {
	size := uint32(4 * (1 + rng.Intn(8)))
	n := int(size)
	if rng.Intn(3) == 0 {
		n = rng.Intn(int(size) + 1)
	}
	var mkc prm.MKC
	mkc.TranslationsOctwordSize = size
	mkc.MTTHandle = handle
	mkc.Variant = uint8(rng.Intn(256))
	entries := make([]prm.KLMEntry, n)
	var total uint64
	mode := prm.ModeKLM
	if fixed {
		mode = prm.ModeFixedBufferSize
		mkc.LogEntitySize = uint8(12 + rng.Intn(5))
		B := uint64(1) << mkc.LogEntitySize
		for i := range entries {
			// byte_count is reserved here: garbage that must be ignored
			entries[i] = prm.KLMEntry{ByteCount: rng.Uint32(), MKey: w.lower[rng.Intn(len(w.lower))],
				Address: uint64(rng.Int63n(lowerSpan - int64(B) + 1))}
		}
		total = uint64(size) * B
	} else {
		for i := range entries {
			var bc uint64
			switch rng.Intn(8) {
			case 0, 1:
			case 2:
				bc = 1 + uint64(rng.Intn(16))
			case 3, 4:
				bc = 1 + uint64(rng.Intn(4096))
			case 5, 6:
				bc = 1 + uint64(rng.Intn(1<<16))
			default:
				bc = 1 + uint64(rng.Intn(1<<20))
			}
			entries[i] = prm.KLMEntry{ByteCount: uint32(bc), MKey: w.lower[rng.Intn(len(w.lower))],
				Address: uint64(rng.Int63n(lowerSpan - int64(bc) + 1))}
			total += bc
		}
	}
	switch rng.Intn(6) {
	case 0: // near 2^64; start+len may pass it
		mkc.StartAddr = -total - uint64(rng.Intn(64)) + uint64(rng.Intn(64))
	case 1:
		mkc.StartAddr = 0
	default:
		mkc.StartAddr = rng.Uint64() >> uint(rng.Intn(48))
	}
	switch rng.Intn(5) {
	case 0, 1:
		mkc.Len = total
	case 2: // past the list: TRANSLATION_RANGE
		mkc.Len = total + 1 + uint64(rng.Intn(5000))
	case 3:
		mkc.Len = total - uint64(rng.Int63n(int64(total/2+1)))
	default:
		mkc.Len = total + uint64(rng.Intn(3))
	}
	if mkc.Len == 0 {
		mkc.Len = 1 + uint64(rng.Intn(100))
	}
	mkc.Length64 = rng.Intn(7) == 0
	k := full(mkc, mode)
	return w.create(t, scenario.MKey{Index: idx, HasIndex: true, MKC: k, KLM: entries})
}

// genWalk draws a piece of key inside its range (as the checker
// guarantees), biased to the ends and, for length64 keys, below the start
// (d wraps).
func genWalk(rng *rand.Rand, w *world, key prm.Key, tag uint16, maxInd int) bus.Walk {
	m := w.models[4].Object(key.Index()).MKC
	maxLen := uint64(1 << 21)
	if m.AccessMode == prm.ModeFixedBufferSize {
		maxLen = 6 << m.LogEntitySize
	}
	for {
		var addr, n uint64
		if x := rng.Intn(10); x < 7 || !m.Length64 {
			sp := m.Len
			if m.StartAddr+m.Len < m.StartAddr {
				sp = -m.StartAddr
			}
			var off uint64
			switch rng.Intn(3) {
			case 0:
				off = uint64(rng.Int63n(int64(min(sp, 1<<62))))
			case 1:
				off = sp - uint64(rng.Int63n(int64(min(sp, 1<<16))))
			default:
				off = uint64(rng.Int63n(int64(min(sp, 1<<12))))
			}
			if off >= sp {
				off = sp - 1
			}
			addr = m.StartAddr + off
			n = 1 + uint64(rng.Int63n(int64(min(sp-off, maxLen))))
		} else {
			addr = m.StartAddr - 1 - uint64(rng.Intn(1<<16))
			if x == 9 {
				addr = rng.Uint64()
			}
			n = 1 + uint64(rng.Int63n(int64(maxLen)))
			if addr+n < addr && addr+n != 0 {
				n = -addr
			}
		}
		if n == 0 || n > maxLen {
			continue
		}
		wk := w.walk(key, tag, uint8(rng.Intn(maxInd+1)), prm.AccessType(rng.Intn(5)), addr, n, uint64(rng.Intn(1<<20)))
		if _, _, ok := w.expected(&wk, maxInd); ok {
			return wk
		}
	}
}

// geometries are the caches the tests walk through: the default, one
// line, tiny ones, and the shapes architects size (lines of one and two
// entries, fully associative, pseudo-LRU, NRU, random).
var geometries = []linecache.Config{linecache.Geometry(32, 4, 4), linecache.Geometry(1, 1, 4), linecache.Geometry(2, 2, 4), linecache.Geometry(8, 1, 4),
	{Entries: 6, EntriesPerLine: 1, Ways: 0, Replacement: linecache.LRU}, {Entries: 16, EntriesPerLine: 2, Ways: 4, Replacement: linecache.PLRU},
	{Entries: 24, EntriesPerLine: 8, Ways: 0, Replacement: linecache.NRU}, {Entries: 32, EntriesPerLine: 4, Ways: 2, Replacement: linecache.Random, Seed: 7}}

// randomCfg draws a valid unit configuration of depth maxInd for seed. It
// draws from rng exactly as the configurations of the old loop-credit
// design did (contexts, nested contexts, credits), so that every seed keeps
// its world and traffic: seeds 3, 6 and 15 of TestRecursionVsRef
// deadlocked that design. Contexts and nested contexts are then raised to
// the least the design allows (at least one context per level), which is
// where such seeds land: the tightest configurations.
func randomCfg(rng *rand.Rand, seed int64, maxInd int) Config {
	ctx := 2 + rng.Intn(7)
	nested := 1 + rng.Intn(ctx-1)
	_ = rng.Intn(8) // was LoopCredits
	ctx = max(ctx, maxInd+1)
	return Config{
		Cache:          geometries[int(seed)%len(geometries)],
		Contexts:       ctx,
		NestedContexts: min(max(nested, maxInd), ctx-1),
		MaxIndirection: maxInd,
		MergeMisses:    seed%3 != 0,
	}
}

// level0Contexts is the number of contexts that take pieces from In.
func level0Contexts(cfg Config) int {
	n := 0
	for _, l := range wantLevels(cfg) {
		if l == 0 {
			n++
		}
	}
	return n
}

// delayOf is a reservation return delay of 1..25 cycles per child.
func delayOf(seed int64) func(uint64) uint64 { return chantest.Jitter(seed+1000, 1, 25) }

// openRun drives one seed's level-0 traffic through the unit, open loop.
func openRun(t *testing.T, seed int64, failFirst bool) (*world, Config, []bus.Walk, *bench) {
	rng := rand.New(rand.NewSource(seed))
	w := lowerWorld(t, rng)
	cfg := randomCfg(rng, seed, []int{0, 1, 2, 4}[int(seed)%4])
	// The lists lie back to back, as the bump allocator lays them out: an
	// entry read past a list's capacity is another list's.
	var parents []prm.Key
	handle := uint64(ref.HandleBase + 0x1000_0000)
	for i := range 6 {
		k := genParent(t, rng, w, uint32(100+i), i%2 == 1, handle)
		parents = append(parents, k)
		handle += uint64(w.models[4].Object(k.Index()).MKC.TranslationsOctwordSize) * 16
	}
	b := newBench(cfg, w.models[4].ICM(), chantest.Jitter(seed, 4, 30), chantest.Stall(seed))
	b.mem.FailFirst = failFirst
	b.open(delayOf(seed), 0)
	var walks []bus.Walk
	at := uint64(0)
	for i := range 60 {
		wk := genWalk(rng, w, parents[rng.Intn(len(parents))], uint16(i), cfg.MaxIndirection)
		walks = append(walks, wk)
		at += uint64(rng.Intn(5))
		b.in.Add(at, wk)
	}
	if !b.run(100_000) {
		t.Fatalf("seed %d cfg %+v: unit did not finish (%d contexts busy, %d credits)", seed, cfg, b.u.InUse(), b.u.Credits())
	}
	if b.creditErr != "" {
		t.Fatalf("seed %d cfg %+v: reservations: %s", seed, cfg, b.creditErr)
	}
	checkStats(t, fmt.Sprintf("seed %d cfg %+v", seed, cfg), b, uint64(len(walks)))
	return w, cfg, walks, b
}

// checkStats: the cache counts one hit or miss per act, however long a
// context stalls on it: a miss per line read the walker issued (no
// invalidation here re-reads a line), a hit per entry it stepped over or
// used without a read, the entry used right after its own fill not
// counted again (so entries = hits + misses - failed reads, a failed read
// filling nothing); every piece taken counted once.
func checkStats(t *testing.T, ctx string, b *bench, pieces uint64) {
	t.Helper()
	s := b.u.Stats()
	if len(b.ctrl.Items) > 0 {
		return
	}
	// Every miss sends a read but those merged into one in flight; a read
	// that fails makes the lookups waiting for it (one, or more when
	// merged) repeat, each counted again.
	failed := uint64(b.mem.Failures())
	repeated := s.Cache.Hits + s.Cache.Misses - s.Entries
	if s.Cache.Misses-s.Cache.MergedMisses != uint64(len(b.mem.Reads)) || repeated < failed ||
		(!b.u.cfg.MergeMisses && repeated != failed) || s.Pieces != pieces {
		t.Fatalf("%s: cache hits %d misses %d (merged %d), entries %d, reads %d (failed %d), pieces %d (want %d): a stalled retry counted again?",
			ctx, s.Cache.Hits, s.Cache.Misses, s.Cache.MergedMisses, s.Entries, len(b.mem.Reads), failed, s.Pieces, pieces)
	}
	if !b.u.cfg.MergeMisses && s.Cache.MergedMisses != 0 {
		t.Fatalf("%s: %d misses merged with merging off", ctx, s.Cache.MergedMisses)
	}
}

// TestChildrenVsRef: random KLM and Fixed Buffer Size keys and pieces at
// every level: the children on Loop and the outcomes on Done are exactly
// what the golden model recurses into or fails with; no child leaves
// without a reservation of its level; level-0 pieces hold only level-0
// contexts.
func TestChildrenVsRef(t *testing.T) {
	seen := map[prm.Status]int{}
	children, stalls, merged := 0, uint64(0), uint64(0)
	for seed := int64(1); seed <= 32; seed++ {
		w, cfg, walks, b := openRun(t, seed, false)
		ctx := fmt.Sprintf("seed %d cfg %+v", seed, cfg)
		compareOpen(t, ctx, w, cfg.MaxIndirection, walks, b.ls.got, b.done.Got)
		s := b.u.Stats()
		merged += s.Cache.MergedMisses
		if s.MaxContexts > level0Contexts(cfg) {
			t.Fatalf("%s: level-0 pieces held %d contexts, more than the %d of level 0", ctx, s.MaxContexts, level0Contexts(cfg))
		}
		for _, r := range b.done.Got {
			seen[r.V.Status]++
		}
		children += len(b.ls.got)
		stalls += s.CreditStalls.Count()
	}
	if seen[prm.TranslationRange] < 50 || seen[prm.IndirectionDepth] < 50 || children < 1000 || stalls == 0 || merged == 0 {
		t.Fatalf("traffic too tame: outcomes %v, %d children, %d reservation stalls, %d merged misses", seen, children, stalls, merged)
	}
}

// TestFailedReadRetried: a list read answered UR (Data undefined) must
// install nothing; the unit reads the line again, as the MTT walker and
// the MKC cache do, and the children are those of the real entries.
func TestFailedReadRetried(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		w, cfg, walks, b := openRun(t, seed, true)
		compareOpen(t, fmt.Sprintf("seed %d (first read of each line answered UR) cfg %+v", seed, cfg), w, cfg.MaxIndirection,
			walks, b.ls.got, b.done.Got)
	}
}

// TestFailedReadDirected: the one read of a KLM list line is answered UR;
// the child must still be the real entry's (A at 0x5000), not one decoded
// from the failed completion's undefined data.
func TestFailedReadDirected(t *testing.T) {
	w, a, _, k, _ := dirWorld(t)
	bn := newBench(DefaultConfig(), w.models[4].ICM(), chantest.Jitter(1, 6, 1), nil)
	bn.open(delayOf(1), 0)
	bn.mem.FailFirst = true
	bn.in.Add(0, w.walk(k, 1, 0, prm.LocalRead, 0x1000, 10, 0))
	if !bn.run(10000) {
		t.Fatal("did not finish")
	}
	want := []chantest.Rec[bus.Piece]{{V: bus.Piece{Tag: 1, Level: 1, Type: prm.LocalRead, Key: a, Addr: 0x5000, Len: 10, QPN: qpn, PD: pd}}}
	if len(bn.ls.got) > 0 {
		want[0].Cycle = bn.ls.got[0].Cycle
	}
	if !reflect.DeepEqual(bn.ls.got, want) || len(bn.done.Got) != 0 || len(bn.mem.Reads) != 2 {
		t.Fatalf("list line read answered UR once:\n children %+v\n outcomes %+v\n reads %d\nwant child %+v after 2 reads",
			bn.ls.got, bn.done.Got, len(bn.mem.Reads), want[0].V)
	}
}

// dirWorld: lower keys A (index 1) and B (index 2), and index 0 variant 0;
// a variable KLM key K (index 10) at 0x1000 with entries
// [0 | 100 A@0x5000 | 0 | 50 B@0x9000], capacity 4, len 1000 (past the
// list); a Fixed Buffer Size key F (index 11), 4 KB entries at 0x40000,
// [A@0x7000 | never written | B@0x3000 | never written], capacity 4. F's
// list follows K's directly, as the bump allocator places them.
func dirWorld(t *testing.T) (w *world, a, b, k, f prm.Key) {
	w = newWorld()
	w.addLower(t, 0, 0)
	a = w.addLower(t, 1, 0xa1)
	b = w.addLower(t, 2, 0xb2)
	k = w.create(t, scenario.MKey{Index: 10, HasIndex: true, KLM: []prm.KLMEntry{
		{}, {ByteCount: 100, MKey: a, Address: 0x5000}, {}, {ByteCount: 50, MKey: b, Address: 0x9000}},
		MKC: full(prm.MKC{Variant: 1, StartAddr: 0x1000, Len: 1000, TranslationsOctwordSize: 4, MTTHandle: ref.HandleBase}, prm.ModeKLM)})
	f = w.create(t, scenario.MKey{Index: 11, HasIndex: true, KLM: []prm.KLMEntry{
		{ByteCount: 0xdeadbeef, MKey: a, Address: 0x7000}, {}, {ByteCount: 7, MKey: b, Address: 0x3000}},
		MKC: full(prm.MKC{Variant: 2, StartAddr: 0x40000, Len: 0x4000, LogEntitySize: 12, TranslationsOctwordSize: 4,
			MTTHandle: ref.HandleBase + 64}, prm.ModeFixedBufferSize)})
	return w, a, b, k, f
}

// TestDirected: the search, the skips, the capacity, the splits and the
// fixed-size arithmetic, by hand; each also checked against ref.
func TestDirected(t *testing.T) {
	w, a, b, k, f := dirWorld(t)
	zero := prm.Key(0)
	cases := []struct {
		name     string
		key      prm.Key
		addr, n  uint64
		children []child // off is in the piece
		failAt   int64   // TRANSLATION_RANGE from this piece offset; -1 none
	}{
		{"first entry, zero entries skipped", k, 0x1000, 100, []child{{a, 0x5000, 100, 0}}, -1},
		{"crossing entries", k, 0x1000 + 90, 40, []child{{a, 0x5000 + 90, 10, 0}, {b, 0x9000, 30, 10}}, -1},
		{"inside second entry", k, 0x1000 + 120, 5, []child{{b, 0x9000 + 20, 5, 0}}, -1},
		{"last byte of the list", k, 0x1000 + 149, 1, []child{{b, 0x9000 + 49, 1, 0}}, -1},
		{"running past the list", k, 0x1000 + 140, 20, []child{{b, 0x9000 + 40, 10, 0}}, 10},
		{"wholly past the list", k, 0x1000 + 150, 8, nil, 0},
		{"fixed: first entry", f, 0x40000 + 0x10, 0x20, []child{{a, 0x7010, 0x20, 0}}, -1},
		{"fixed: into an unwritten entry (key 0)", f, 0x40000 + 0xff8, 0x10, []child{{a, 0x7ff8, 8, 0}, {zero, 0, 8, 8}}, -1},
		{"fixed: across three entries", f, 0x40000 + 0x1ffc, 0x1008, []child{{zero, 0xffc, 4, 0}, {b, 0x3000, 0x1000, 4}, {zero, 0, 4, 0x1004}}, -1},
		{"fixed: last entry", f, 0x40000 + 0x3fff, 1, []child{{zero, 0xfff, 1, 0}}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, level := range []uint8{0, 3} {
				cfg := DefaultConfig()
				wk := w.walk(tc.key, 5, level, prm.RemoteWrite, tc.addr, tc.n, 777)
				bn := newBench(cfg, w.models[4].ICM(), chantest.Jitter(1, 6, 1), nil)
				bn.open(delayOf(1), 0)
				bn.in.Add(0, wk)
				if !bn.run(10000) {
					t.Fatal("did not finish")
				}
				var want []bus.Piece
				for _, ch := range tc.children {
					want = append(want, bus.Piece{Tag: 5, Level: level + 1, Type: prm.RemoteWrite, Key: ch.key, Addr: ch.addr,
						Len: ch.n, Offset: 777 + ch.off, QPN: qpn, PD: pd})
				}
				var got []bus.Piece
				for _, r := range bn.ls.got {
					got = append(got, r.V)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("level %d children\n got %+v\nwant %+v", level, got, want)
				}
				var wantDone []bus.Outcome
				if tc.failAt >= 0 {
					wantDone = []bus.Outcome{{Tag: 5, Offset: 777 + uint64(tc.failAt), Len: tc.n - uint64(tc.failAt),
						Status: prm.TranslationRange, Level: level}}
				}
				var gotDone []bus.Outcome
				for _, r := range bn.done.Got {
					gotDone = append(gotDone, r.V)
				}
				if !reflect.DeepEqual(gotDone, wantDone) {
					t.Fatalf("level %d outcomes\n got %+v\nwant %+v", level, gotDone, wantDone)
				}
				compareOpen(t, tc.name, w, cfg.MaxIndirection, []bus.Walk{wk}, bn.ls.got, bn.done.Got)
			}
		})
	}
}

// TestLowerAddressWraps: address[j] + (d - T[j]) is taken modulo 2^64.
func TestLowerAddressWraps(t *testing.T) {
	w := newWorld()
	a := w.addLower(t, 1, 1)
	k := w.create(t, scenario.MKey{Index: 10, HasIndex: true, KLM: []prm.KLMEntry{
		{ByteCount: 100, MKey: a, Address: ^uint64(0) - 15}},
		MKC: full(prm.MKC{StartAddr: 0x1000, Len: 100, TranslationsOctwordSize: 4, MTTHandle: ref.HandleBase}, prm.ModeKLM)})
	fx := w.create(t, scenario.MKey{Index: 11, HasIndex: true, KLM: []prm.KLMEntry{
		{MKey: a, Address: ^uint64(0) - 0xff}},
		MKC: full(prm.MKC{StartAddr: 0, Len: 4096, LogEntitySize: 12, TranslationsOctwordSize: 4, MTTHandle: ref.HandleBase + 64}, prm.ModeFixedBufferSize)})
	for _, tc := range []struct {
		key        prm.Key
		addr, n    uint64
		wantLower  uint64
		wantLength uint64
	}{
		{k, 0x1000 + 32, 8, 16, 8},
		{k, 0x1000 + 10, 10, ^uint64(0) - 5, 10},
		{fx, 0x100, 0x10, 0, 0x10},
	} {
		bn := newBench(DefaultConfig(), w.models[4].ICM(), chantest.Jitter(1, 3, 1), nil)
		bn.open(delayOf(1), 0)
		bn.in.Add(0, w.walk(tc.key, 1, 0, prm.LocalRead, tc.addr, tc.n, 0))
		if !bn.run(1000) {
			t.Fatal("did not finish")
		}
		if len(bn.ls.got) != 1 || bn.ls.got[0].V.Addr != tc.wantLower || bn.ls.got[0].V.Len != tc.wantLength || bn.ls.got[0].V.Key != a {
			t.Fatalf("key %v addr %#x: children %+v, want one of key %v at %#x len %d", tc.key, tc.addr, bn.ls.got, a, tc.wantLower, tc.wantLength)
		}
	}
}

// TestIndirectionDepth: a piece at the deepest level fails at its first
// child: one INDIRECTION_DEPTH at level+1 covering the rest of the piece
// from that child's offset (the request fails there, whatever follows); no
// child is sent to be looked up and no reservation is made. A piece whose
// first bytes lie past its list fails TRANSLATION_RANGE at its own level
// instead, since it has no child.
func TestIndirectionDepth(t *testing.T) {
	w, _, _, k, f := dirWorld(t)
	cases := []struct {
		name    string
		key     prm.Key
		addr, n uint64
		st      prm.Status // the one outcome, covering the whole piece
	}{
		{"across two entries and past the list", k, 0x1000 + 90, 70, prm.IndirectionDepth},
		{"last entry, then past the list", k, 0x1000 + 140, 20, prm.IndirectionDepth},
		{"inside one entry", k, 0x1000 + 120, 5, prm.IndirectionDepth},
		{"wholly past the list", k, 0x1000 + 150, 8, prm.TranslationRange},
		{"fixed: across entries", f, 0x40000 + 0xff8, 0x10, prm.IndirectionDepth},
		{"fixed: three entries", f, 0x40000 + 0x1ffc, 0x1008, prm.IndirectionDepth},
	}
	cfgs := []Config{DefaultConfig(), DefaultConfig(), DefaultConfig(),
		{Cache: linecache.Geometry(1, 1, 4), Contexts: 2, NestedContexts: 1, MaxIndirection: 1},
		{Cache: linecache.Geometry(2, 1, 4), Contexts: 3, NestedContexts: 2, MaxIndirection: 2}}
	cfgs[0].MaxIndirection = 0
	cfgs[1].MaxIndirection = 1
	for _, cfg := range cfgs {
		for _, tc := range cases {
			ctx := fmt.Sprintf("cfg %+v, %s", cfg, tc.name)
			bn := newBench(cfg, w.models[4].ICM(), chantest.Jitter(1, 6, 1), nil)
			bn.open(delayOf(1), 0)
			lvl := uint8(cfg.MaxIndirection)
			wk := w.walk(tc.key, 9, lvl, prm.LocalRead, tc.addr, tc.n, 50)
			bn.in.Add(0, wk)
			if !bn.run(10000) {
				t.Fatalf("%s: did not finish", ctx)
			}
			if len(bn.ls.got) != 0 || slices.Max(bn.maxOutstanding) != 0 || bn.u.Stats().CreditStalls.Count() != 0 || bn.creditErr != "" {
				t.Fatalf("%s: %d children looked up past the limit, %v reserved, %d reservation stalls (%s)", ctx,
					len(bn.ls.got), bn.maxOutstanding, bn.u.Stats().CreditStalls.Count(), bn.creditErr)
			}
			want := []bus.Outcome{{Tag: 9, Offset: 50, Len: tc.n, Status: tc.st, Level: lvl}}
			if tc.st == prm.IndirectionDepth {
				want[0].Level = lvl + 1
			}
			var got []bus.Outcome
			for _, r := range bn.done.Got {
				got = append(got, r.V)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s:\n got %+v\nwant %+v", ctx, got, want)
			}
			compareOpen(t, ctx, w, cfg.MaxIndirection, []bus.Walk{wk}, bn.ls.got, bn.done.Got)
		}
	}
}

// TestLevels: the contexts serve one level each: Contexts-NestedContexts
// level 0, the nested ones levels 1..MaxIndirection round-robin, at least
// one each; LoopSlots is the nested contexts; an idle unit holds a credit
// per nested context.
func TestLevels(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 500 {
		maxInd := rng.Intn(65)
		ctx := maxInd + 1 + rng.Intn(80)
		if ctx < 2 {
			ctx = 2
		}
		nested := maxInd + rng.Intn(ctx-maxInd)
		cfg := Config{Cache: linecache.Geometry(1, 1, 4), Contexts: ctx, NestedContexts: nested, MaxIndirection: maxInd}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("cfg %+v: %v", cfg, err)
		}
		lv := cfg.levelOf()
		if !slices.Equal(lv, wantLevels(cfg)) {
			t.Fatalf("cfg %+v: levels %v, want %v", cfg, lv, wantLevels(cfg))
		}
		count := make([]int, maxInd+1)
		for _, l := range lv {
			count[l]++
		}
		for l := 1; l <= maxInd; l++ {
			if count[l] < nested/maxInd || count[l] > (nested+maxInd-1)/maxInd {
				t.Fatalf("cfg %+v: level %d has %d contexts (by level %v)", cfg, l, count[l], count)
			}
		}
		if maxInd > 0 && count[0] != ctx-nested {
			t.Fatalf("cfg %+v: level 0 has %d contexts", cfg, count[0])
		}
		if cfg.LoopSlots() != max(nested, 1) {
			t.Fatalf("cfg %+v: LoopSlots %d", cfg, cfg.LoopSlots())
		}
		if ctx <= 200 {
			u := New("klmwalk", cfg, Ports{})
			want := nested
			if maxInd == 0 {
				want = 0
			}
			if u.Credits() != want {
				t.Fatalf("cfg %+v: idle unit holds %d credits, want %d", cfg, u.Credits(), want)
			}
		}
	}
}

// reservationWorld: lower key A (index 1) and a variable KLM key (index
// 10) of 8 entries of 10 bytes of A, at 0..80.
func reservationWorld(t *testing.T) (*world, prm.Key) {
	w := newWorld()
	a := w.addLower(t, 1, 1)
	var entries []prm.KLMEntry
	for i := range 8 {
		entries = append(entries, prm.KLMEntry{ByteCount: 10, MKey: a, Address: uint64(i) * 0x100})
	}
	k := w.create(t, scenario.MKey{Index: 10, HasIndex: true, KLM: entries,
		MKC: full(prm.MKC{StartAddr: 0, Len: 80, TranslationsOctwordSize: 8, MTTHandle: ref.HandleBase}, prm.ModeKLM)})
	return w, k
}

// TestReservation: a context of level L sends a child only after reserving
// a free, unreserved context of level L+1: never more children of level
// L+1 out than that level has contexts, whatever the other levels hold;
// each reservation back (a Credit of that level) lets exactly one more
// go, and a Credit of another level none. The context stalled on the
// reservation counts its cache hit once, when it acts.
func TestReservation(t *testing.T) {
	w, k := reservationWorld(t)
	cfgs := []Config{
		DefaultConfig(), // 2 contexts per nested level
		{Cache: linecache.Geometry(1, 1, 4), Contexts: 4, NestedContexts: 3, MaxIndirection: 1},  // 3 of level 1
		{Cache: linecache.Geometry(2, 2, 4), Contexts: 9, NestedContexts: 5, MaxIndirection: 4},  // 2 of level 1, 1 of 2..4
		{Cache: linecache.Geometry(8, 1, 4), Contexts: 3, NestedContexts: 2, MaxIndirection: 2},  // 1 each
		{Cache: linecache.Geometry(8, 1, 4), Contexts: 12, NestedContexts: 7, MaxIndirection: 1}, // 7 of level 1: all 8 entries but one
	}
	for _, cfg := range cfgs {
		for L := range cfg.MaxIndirection {
			ctx := fmt.Sprintf("cfg %+v, piece of level %d", cfg, L)
			n := 0
			for _, l := range wantLevels(cfg) {
				if int(l) == L+1 {
					n++
				}
			}
			bn := newBench(cfg, w.models[4].ICM(), chantest.Jitter(1, 3, 1), nil)
			const from = 200
			bn.open(func(uint64) uint64 { return 1 }, from)
			bn.in.Add(0, w.walk(k, 1, uint8(L), prm.LocalRead, 0, 80, 0))
			for bn.e.Now() < from {
				bn.e.Step()
			}
			s := bn.u.Stats()
			if len(bn.ls.got) != n || bn.u.Credits() != bn.full-n || s.CreditStalls.Count() == 0 || bn.creditErr != "" {
				t.Fatalf("%s: %d children out before any reservation came back, want %d; unit holds %d credits of %d; %d stalls (%s)",
					ctx, len(bn.ls.got), n, bn.u.Credits(), bn.full, s.CreditStalls.Count(), bn.creditErr)
			}
			// A lookup per entry read (the entry of each child, and the
			// step past it: the walker reads the entry it just used up
			// again to move on), however long it stalled: a miss for each
			// line read, the lookup repeated after that fill not counted.
			if s.Cache.Hits+s.Cache.Misses != s.Entries || s.Entries < uint64(n) || s.Entries > uint64(2*n) ||
				s.Cache.Misses != uint64(len(bn.mem.Reads)) {
				t.Fatalf("%s: stalled %d cycles: cache hits %d misses %d, entries %d, reads %d; want %d..%d hits, a miss per read",
					ctx, s.CreditStalls.Count(), s.Cache.Hits, s.Cache.Misses, s.Entries, len(bn.mem.Reads), n, 2*n)
			}
			if !bn.run(10000) {
				t.Fatalf("%s: did not finish", ctx)
			}
			want := make([]int, cfg.MaxIndirection+2)
			want[L+1] = n
			if len(bn.ls.got) != 8 || !slices.Equal(bn.maxOutstanding, want) || bn.creditErr != "" {
				t.Fatalf("%s: %d children, at most %v out by level, want %v (%s)", ctx, len(bn.ls.got), bn.maxOutstanding, want, bn.creditErr)
			}
			// After the release, a child per reservation back, no sooner.
			for i := n; i < 8; i++ {
				if c := bn.ls.got[i].Cycle; c < bn.creditPops[i-n] || c < from {
					t.Fatalf("%s: child %d sent at %d; reservation %d came back at %d", ctx, i, c, i-n, bn.creditPops[i-n])
				}
			}
			if s := bn.u.Stats(); s.Cache.Hits+s.Cache.Misses != s.Entries || s.Entries < 8 || s.Entries > 15 || s.Cache.Misses != 2 || len(bn.mem.Reads) != 2 {
				t.Fatalf("%s: cache hits %d misses %d, entries %d, reads %d; want 8..15 lookups (one per entry read), 2 misses, 2 reads",
					ctx, s.Cache.Hits, s.Cache.Misses, s.Entries, len(bn.mem.Reads))
			}
		}
	}
}

// TestReservationOtherLevel: a Credit returns the reservation of its own
// level only. Two pieces stall on their reservations, one of level 0 (on
// level 1) and one of level 1 (on level 2): a level-2 Credit lets the
// second go on, not the first; a level-1 Credit then the first.
func TestReservationOtherLevel(t *testing.T) {
	w, k := reservationWorld(t)
	cfg := Config{Cache: linecache.Geometry(8, 1, 4), Contexts: 4, NestedContexts: 2, MaxIndirection: 2} // levels 0 0 1 2
	bn := newBench(cfg, w.models[4].ICM(), chantest.Jitter(1, 3, 1), nil)
	// Children go nowhere and no reservation comes back by itself; the
	// checker's Credits are injected.
	bn.open(func(uint64) uint64 { return 1 }, 1<<40)
	inj := chantest.NewSource("credit_inject", bn.p.Credit)
	bn.e.Add(inj)
	inj.Add(100, bus.Credit{Level: 2})
	inj.Add(150, bus.Credit{Level: 1})
	bn.in.Add(0, w.walk(k, 1, 0, prm.LocalRead, 0, 80, 0))
	bn.in.Add(0, w.walk(k, 2, 1, prm.LocalRead, 0, 80, 0))
	sent := func(by uint64) (n [3]int) {
		for bn.e.Now() < by {
			bn.e.Step()
		}
		for _, r := range bn.ls.got {
			n[r.V.Level]++
		}
		return n
	}
	for _, c := range []struct {
		by   uint64
		want [3]int
	}{{99, [3]int{0, 1, 1}}, {149, [3]int{0, 1, 2}}, {200, [3]int{0, 2, 2}}} {
		if n := sent(c.by); n != c.want || bn.u.Credits() != 0 || bn.creditErr != "" {
			t.Fatalf("by cycle %d: children by level %v, want %v; %d credits, want 0 (%s)", c.by, n, c.want, bn.u.Credits(), bn.creditErr)
		}
	}
}

// TestIntakeByLevel: a nested piece is taken before a level-0 one, into a
// context of its own level; level-0 pieces take only level-0 contexts, so
// nested pieces arriving later still find theirs.
func TestIntakeByLevel(t *testing.T) {
	w, _, _, k, f := dirWorld(t)
	cfg := DefaultConfig()
	cfg.Contexts, cfg.NestedContexts, cfg.MaxIndirection = 6, 3, 2 // levels 0 0 0 1 2 1
	levels := wantLevels(cfg)
	// The memory never answers in this test's time: every piece taken
	// holds its context.
	newB := func() *bench {
		bn := newBench(cfg, w.models[4].ICM(), chantest.Jitter(1, 1_000_000, 1), nil)
		bn.open(delayOf(1), 0)
		bn.direct()
		return bn
	}
	held := func(bn *bench) error {
		for i := range cfg.Contexts {
			if st, wk := bn.u.Context(i); st != walk.Free && wk.Level != levels[i] {
				return fmt.Errorf("context %d of level %d holds a piece of level %d", i, levels[i], wk.Level)
			}
		}
		return nil
	}
	bn := newB()
	type take struct {
		cycle      uint64
		nested, in bool
	}
	var takes []take
	bn.e.OnCycle(func(now uint64) {
		_, np := bn.p.Nested.Activity()
		_, ip := bn.p.In.Activity()
		if err := held(bn); err != nil {
			t.Errorf("cycle %d: %v", now, err)
		}
		if np || ip {
			takes = append(takes, take{now, np, ip})
		}
	})
	for i := range 5 {
		bn.in.Add(0, w.walk(k, uint16(i), 0, prm.LocalRead, 0x1000, 10, 0))
	}
	for i, l := range []uint8{1, 2, 1} {
		bn.nested.Add(0, w.walk(f, uint16(10+i), l, prm.LocalRead, 0x40000, 10, 0))
	}
	for range 40 {
		bn.e.Step()
	}
	// Both heads visible from cycle 1: the three nested pieces first, one
	// a cycle, then level-0 pieces until the three level-0 contexts are
	// taken; two wait.
	if len(takes) != 6 || bn.u.InUse() != 6 || bn.p.In.Len() != 2 {
		t.Fatalf("takes %+v, %d in use, %d level-0 pieces waiting; want 6 takes, 6 in use, 2 waiting", takes, bn.u.InUse(), bn.p.In.Len())
	}
	for i, tk := range takes {
		if tk.nested != (i < 3) || tk.in != (i >= 3) {
			t.Fatalf("take %d at cycle %d: nested %v in %v; nested pieces must go first (%+v)", i, tk.cycle, tk.nested, tk.in, takes)
		}
	}

	// A fresh unit: level-0 pieces alone fill the level-0 contexts; nested
	// pieces arriving later still find theirs.
	bn = newB()
	for i := range 5 {
		bn.in.Add(0, w.walk(k, uint16(i), 0, prm.LocalRead, 0x1000, 10, 0))
	}
	for i, l := range []uint8{2, 1, 1} {
		bn.nested.Add(30, w.walk(f, uint16(10+i), l, prm.LocalRead, 0x40000, 10, 0))
	}
	for range 25 {
		bn.e.Step()
	}
	if bn.u.InUse() != level0Contexts(cfg) || bn.in.Next != 5 || bn.p.In.Len() != 2 {
		t.Fatalf("level-0 only: %d contexts in use, want %d; %d pieces waiting", bn.u.InUse(), level0Contexts(cfg), bn.p.In.Len())
	}
	for range 15 {
		bn.e.Step()
	}
	if bn.u.InUse() != cfg.Contexts || bn.p.In.Len() != 2 || bn.p.Nested.Len() != 0 {
		t.Fatalf("nested pieces did not get their contexts: %d in use, %d level-0 waiting, %d nested waiting", bn.u.InUse(), bn.p.In.Len(), bn.p.Nested.Len())
	}
	if err := held(bn); err != nil {
		t.Fatal(err)
	}
}

// TestFilledLineUsed: a context whose list line has just been filled must
// get to use it before the line is evicted, however many contexts miss at
// once: N level-0 pieces, each on its own one-entry KLM key whose list
// lies in a line of its own, all the lines in one set, the memory
// answering in a cycle or a few. Every piece must send its one child. (The
// unit steps one context a cycle, round-robin from the last that acted, and
// a context that misses acts by issuing its read; so the context whose
// line arrived waits its turn while the others' fills evict its line from
// a set of fewer ways than contexts waiting, and misses again: a livelock
// with a read every cycle and no entry ever used.)
func TestFilledLineUsed(t *testing.T) {
	cases := []struct {
		name   string
		cache  linecache.Config
		pieces int
		stride uint64 // between the lists
		lat    uint64
	}{
		{"one line, 4 pieces", linecache.Geometry(1, 1, 4), 4, 64, 1},
		{"two ways, 5 pieces", linecache.Geometry(1, 2, 4), 5, 64, 1},
		{"default geometry, lists 4 KB apart, 7 pieces", DefaultConfig().Cache, 7, 0x1000, 1},
		{"default geometry, lists 4 KB apart, 14 pieces, latency 8", DefaultConfig().Cache, 14, 0x1000, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			a := w.addLower(t, 1, 1)
			cfg := DefaultConfig()
			cfg.Cache, cfg.Contexts, cfg.NestedContexts, cfg.MaxIndirection = tc.cache, 16, 1, 1
			var keys []prm.Key
			for i := range tc.pieces {
				keys = append(keys, w.create(t, scenario.MKey{Index: uint32(10 + i), HasIndex: true,
					KLM: []prm.KLMEntry{{ByteCount: 10, MKey: a, Address: uint64(i) << 8}},
					MKC: full(prm.MKC{Variant: uint8(i), Len: 10, TranslationsOctwordSize: 4,
						MTTHandle: ref.HandleBase + uint64(i)*tc.stride}, prm.ModeKLM)}))
			}
			bn := newBench(cfg, w.models[4].ICM(), chantest.Jitter(1, tc.lat, 1), nil)
			bn.open(func(uint64) uint64 { return 1 }, 0)
			for i, k := range keys {
				bn.in.Add(0, w.walk(k, uint16(i), 0, prm.LocalRead, 0, 10, 0))
			}
			if !bn.run(20_000) {
				s := bn.u.Stats()
				t.Fatalf("cfg %+v, %d pieces on one-entry lists %#x apart, memory latency %d: livelock: after %d cycles %d children of %d, "+
					"%d list reads, %d cache hits, %d misses, %d evictions, %d contexts busy", cfg, tc.pieces, tc.stride, tc.lat,
					bn.e.Now(), len(bn.ls.got), tc.pieces, len(bn.mem.Reads), s.Cache.Hits, s.Cache.Misses, s.Cache.Evictions, bn.u.InUse())
			}
			if len(bn.ls.got) != tc.pieces || bn.creditErr != "" {
				t.Fatalf("%d children, want %d (%s)", len(bn.ls.got), tc.pieces, bn.creditErr)
			}
		})
	}
}

// TestInvalidateDuringFetch: an entry rewritten and invalidated while its
// line is being fetched is fetched again; the child uses the new entry.
func TestInvalidateDuringFetch(t *testing.T) {
	w, a, b, k, _ := dirWorld(t)
	// entry 1 (bytes 16..31 of the list) becomes 100 bytes of B at 0xB000
	newEntry := prm.KLMEntry{ByteCount: 100, MKey: b, Address: 0xB000}.Append(nil)
	cases := []struct {
		name  string
		inval bus.Inval
		key   prm.Key
		addr  uint64
		reads int
	}{
		{"overlapping", bus.Inval{ID: 1, Lo: ref.HandleBase + 16, Hi: ref.HandleBase + 32}, b, 0xB000, 2},
		{"all", bus.Inval{ID: 2, All: true}, b, 0xB000, 2},
		{"other line", bus.Inval{ID: 3, Lo: ref.HandleBase + 64, Hi: ref.HandleBase + 128}, a, 0x5000, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, sh := range []int64{0, 3} {
				icm := ref.NewMemory()
				buf := make([]byte, 64)
				w.models[4].ICM().Read(ref.HandleBase, buf)
				icm.Write(ref.HandleBase, buf)
				bn := newBench(DefaultConfig(), icm, chantest.Jitter(1, 30, 1), nil)
				if sh != 0 {
					bn.e.Shuffle(sh)
				}
				bn.open(delayOf(1), 0)
				bn.mem.Writes = []chantest.Write{{At: 5, Addr: ref.HandleBase + 16, Data: newEntry}}
				bn.ctrl.Add(5, tc.inval)
				bn.in.Add(0, w.walk(k, 1, 0, prm.LocalRead, 0x1000, 10, 0))
				if !bn.run(10000) {
					t.Fatal("did not finish")
				}
				if len(bn.ack.Got) != 1 || bn.ack.Got[0].V.ID != tc.inval.ID {
					t.Fatalf("acks %+v", bn.ack.Got)
				}
				if bn.mem.Cycles[0] >= 5 || bn.ack.Got[0].Cycle >= bn.ls.got[0].Cycle {
					t.Fatalf("test setup: fetch at %d, ack at %d, child at %d", bn.mem.Cycles[0], bn.ack.Got[0].Cycle, bn.ls.got[0].Cycle)
				}
				c := bn.ls.got[0].V
				if len(bn.ls.got) != 1 || c.Key != tc.key || c.Addr != tc.addr || c.Len != 10 {
					t.Fatalf("shuffle %d: children %+v, want key %v addr %#x", sh, bn.ls.got, tc.key, tc.addr)
				}
				if len(bn.mem.Reads) != tc.reads {
					t.Fatalf("shuffle %d: %d reads, want %d", sh, len(bn.mem.Reads), tc.reads)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Closed loop: the unit with a loopback that stands for the MKC cache and
// the checker, on a world of keys of every mode that refer to each other
// (cycles included), against the golden model's whole translation.

type closedWorld struct {
	m     *ref.Model
	heads []prm.Key // KLM and Fixed Buffer Size keys, the requests' keys
}

func genClosedWorld(t *testing.T, rng *rand.Rand, maxInd int) *closedWorld {
	m := ref.New(ref.Config{MaxIndirection: maxInd})
	m.AddQP(scenario.QP{QPN: qpn, PD: pd})
	cw := &closedWorld{m: m}
	var all []prm.Key
	mk := func(idx uint32, mkc prm.MKC, klm []prm.KLMEntry) prm.Key {
		if _, r := m.Create(scenario.MKey{Index: idx, HasIndex: true, MKC: mkc, KLM: klm}); r != nil {
			t.Fatalf("ref refuses %+v: %v %s", mkc, r.Status, r.Reason)
		}
		k := prm.MakeKey(idx, mkc.Variant)
		all = append(all, k)
		return k
	}
	// Direct keys: PA, SW_ICM, MEMIC over [0x10000, 0x10000+2^20) or
	// everything; a few that fail a check below level 0.
	for i := uint32(1); i <= 8; i++ {
		mkc := full(prm.MKC{Variant: uint8(i), StartAddr: 0x10000, Len: 1 << 20},
			[]prm.AccessMode{prm.ModePA, prm.ModePA, prm.ModeSWICM, prm.ModeMEMIC}[i%4])
		switch i {
		case 5:
			mkc.Length64 = true
		case 6:
			mkc.Free = true // MKEY_FREE below
		case 7:
			mkc.PD = pd + 1 // PD_MISMATCH below
		case 8:
			mkc.LW, mkc.RW = false, false // ACCESS_DENIED for writes
		}
		mk(i, mkc, nil)
	}
	// Indirect keys: variable KLM at 20.., Fixed Buffer Size at 30..
	nK, nF := 4, 3
	pick := func() prm.Key {
		switch x := rng.Intn(20); {
		case x < 12:
			return prm.MakeKey(uint32(1+rng.Intn(8)), 0) // variant fixed below
		case x < 16:
			return prm.MakeKey(uint32(20+rng.Intn(nK)), 0)
		case x < 18:
			return prm.MakeKey(uint32(30+rng.Intn(nF)), 0)
		case x < 19:
			return prm.MakeKey(uint32(50+rng.Intn(3)), 0) // never created
		default:
			return prm.MakeKey(uint32(1+rng.Intn(8)), 0xff) // variant fixed below: wrong
		}
	}
	fix := func(k prm.Key) prm.Key {
		v := uint8(k.Index())
		if k.Variant() == 0xff {
			v ^= 0x80
		}
		return prm.MakeKey(k.Index(), v)
	}
	for j := range nK + nF {
		fixed := j >= nK
		idx := uint32(20 + j)
		if fixed {
			idx = uint32(30 + j - nK)
		}
		var entries []prm.KLMEntry
		n := 4 + rng.Intn(8)
		total := uint64(0)
		var mkc prm.MKC
		for range n {
			e := prm.KLMEntry{MKey: fix(pick()), Address: 0x10000 + uint64(rng.Intn(2048))}
			if !fixed {
				bc := uint64(rng.Intn(3000))
				if rng.Intn(5) == 0 {
					bc = 0
				}
				e.ByteCount = uint32(bc)
				total += bc
			}
			entries = append(entries, e)
		}
		size := uint32((n + 3) / 4 * 4)
		mode := prm.ModeKLM
		if fixed {
			mode = prm.ModeFixedBufferSize
			mkc.LogEntitySize = 12
			total = uint64(size) << 12
		}
		mkc.Variant = uint8(idx)
		mkc.StartAddr = 0x10000
		mkc.Len = total + uint64(rng.Intn(2))*uint64(rng.Intn(500))
		if mkc.Len == 0 {
			mkc.Len = 1
		}
		mkc.Length64 = rng.Intn(8) == 0
		mkc.TranslationsOctwordSize = size
		mkc.MTTHandle = ref.HandleBase + uint64(idx)*0x1000
		cw.heads = append(cw.heads, mk(idx, full(mkc, mode), entries))
	}
	return cw
}

type closedResult struct {
	unit []chantest.Rec[bus.Outcome]
	lb   []chantest.Rec[bus.Outcome]
	end  uint64
}

// closedRun runs one seed's requests through the unit and the loopback;
// mod, if not nil, changes the seed's configuration (keeping its depth).
func closedRun(t *testing.T, seed int64, shuffle int64, noSkip bool, mod func(*Config)) (*closedWorld, Config, []bus.Walk, closedResult) {
	rng := rand.New(rand.NewSource(seed))
	cfg := randomCfg(rng, seed, []int{1, 2, 3, 4}[seed%4])
	if mod != nil {
		mod(&cfg)
		if err := cfg.Validate(); err != nil {
			t.Fatalf("seed %d: test made a bad configuration: %v", seed, err)
		}
	}
	cw := genClosedWorld(t, rng, cfg.MaxIndirection)
	bn := newBench(cfg, cw.m.ICM(), chantest.Jitter(seed, 4, 20), chantest.Stall(seed))
	bn.closed(cw.m, chantest.Jitter(seed+7, 2, 12))
	var walks []bus.Walk
	at := uint64(0)
	for i := 0; len(walks) < 40; i++ {
		key := cw.heads[rng.Intn(len(cw.heads))]
		mkc := cw.m.Object(key.Index()).MKC
		addr := mkc.StartAddr + uint64(rng.Int63n(int64(mkc.Len)))
		n := 1 + uint64(rng.Intn(int(min(mkc.StartAddr+mkc.Len-addr, 1<<13))))
		typ := []prm.AccessType{prm.LocalRead, prm.RemoteRead, prm.LocalWrite, prm.RemoteWrite}[rng.Intn(4)]
		if ref.Check(&mkc, key, 0, addr, n, qpn, pd, typ) != prm.OK {
			continue
		}
		wk := bus.Walk{Piece: bus.Piece{Tag: uint16(len(walks)), Type: typ, Key: key, Addr: addr, Len: n, QPN: qpn, PD: pd}, MKC: mkc}
		walks = append(walks, wk)
		at += uint64(rng.Intn(6))
		bn.in.Add(at, wk)
	}
	bn.e.NoSkip = noSkip
	if shuffle != 0 {
		bn.e.Shuffle(shuffle)
	}
	// The runs that finish take under 2,000 cycles.
	if !bn.run(50_000) {
		t.Fatalf("seed %d cfg %+v: closed loop deadlocked: at cycle %d, %d contexts busy, %d credits, %d KLM children waiting in Nested, loopback holds %d",
			seed, cfg, bn.e.Now(), bn.u.InUse(), bn.u.Credits(), bn.p.Nested.Len(), len(bn.lb.q))
	}
	if bn.creditErr != "" || len(bn.lb.errs) > 0 {
		t.Fatalf("seed %d cfg %+v: reservations: %s %v", seed, cfg, bn.creditErr, bn.lb.errs)
	}
	return cw, cfg, walks, closedResult{unit: bn.done.Got, lb: bn.lb.out, end: bn.e.Now()}
}

// TestRecursionVsRef: whole requests through nested KLM levels (cycles
// end in INDIRECTION_DEPTH): the outcomes of the unit and of the loopback
// together equal ref's translation: the first failure (status, level,
// offset), else every segment in request order.
func TestRecursionVsRef(t *testing.T) {
	seen := map[prm.Status]int{}
	for seed := int64(1); seed <= 24; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			cw, cfg, walks, r := closedRun(t, seed, 0, false, nil)
			checkClosed(t, fmt.Sprintf("seed %d cfg %+v", seed, cfg), cw.m, walks, r, seen)
		})
	}
	// The seeds that deadlocked the loop-credit design, at every
	// configuration of up to two contexts more than the least.
	for _, seed := range []int64{3, 6, 15} {
		maxInd := []int{1, 2, 3, 4}[seed%4]
		for ctx := maxInd + 1; ctx <= maxInd+3; ctx++ {
			for nested := maxInd; nested < ctx; nested++ {
				t.Run(fmt.Sprintf("seed%d/contexts%d/nested%d", seed, ctx, nested), func(t *testing.T) {
					cw, cfg, walks, r := closedRun(t, seed, 0, false, func(c *Config) { c.Contexts, c.NestedContexts = ctx, nested })
					checkClosed(t, fmt.Sprintf("seed %d cfg %+v", seed, cfg), cw.m, walks, r, nil)
				})
			}
		}
	}
	for _, st := range []prm.Status{prm.OK, prm.IndirectionDepth, prm.TranslationRange, prm.BadKeyIndex, prm.KeyMismatch} {
		if seen[st] < 5 {
			t.Errorf("only %d requests end %v (%v): the world is too tame", seen[st], st, seen)
		}
	}
}

// checkClosed compares the outcomes of a closed-loop run, request by
// request, with ref's whole translation.
func checkClosed(t *testing.T, ctx string, m *ref.Model, walks []bus.Walk, r closedResult, seen map[prm.Status]int) {
	t.Helper()
	by := map[uint16][]bus.Outcome{}
	for _, o := range slices.Concat(r.unit, r.lb) {
		by[o.V.Tag] = append(by[o.V.Tag], o.V)
	}
	for _, wk := range walks {
		ctx := fmt.Sprintf("%s: request tag %d %v key %v addr %#x len %d", ctx, wk.Tag, wk.Type, wk.Key, wk.Addr, wk.Len)
		outs := by[wk.Tag]
		var sp []span
		for _, o := range outs {
			sp = append(sp, span{o.Offset, o.Len})
		}
		if err := tiles(sp, 0, wk.Len); err != nil {
			t.Fatalf("%s: %v", ctx, err)
		}
		sort.Slice(outs, func(i, j int) bool { return outs[i].Offset < outs[j].Offset })
		res := m.Translate(ref.Request{QPN: qpn, Key: wk.Key, Addr: wk.Addr, Len: uint32(wk.Len), Type: wk.Type}, nil)
		if seen != nil {
			seen[res.Status]++
		}
		var fail *bus.Outcome
		var segs []prm.Segment
		for i := range outs {
			if outs[i].Status != prm.OK {
				fail = &outs[i]
				break
			}
			segs = append(segs, outs[i].Seg)
		}
		if res.Status == prm.OK {
			if fail != nil {
				t.Fatalf("%s: failed %v level %d offset %d; ref translates it", ctx, fail.Status, fail.Level, fail.Offset)
			}
			if !reflect.DeepEqual(segs, res.Segments) {
				t.Fatalf("%s: segments\n got %+v\nwant %+v", ctx, segs, res.Segments)
			}
			continue
		}
		if fail == nil || fail.Status != res.Status || int(fail.Level) != res.Level || fail.Offset != res.Offset {
			t.Fatalf("%s: first failure %+v; ref %v level %d offset %d", ctx, fail, res.Status, res.Level, res.Offset)
		}
	}
}

// TestNoDeadlockKLMOverKLM: requests through a KLM key whose entries name
// another KLM key (whose entries name a PA key) must all complete, with
// the default configuration (which deadlocked the loop-credit design from
// 8 requests on) and with the tightest ones, whatever their number. The
// loopback stands for the MKC cache and the checker; the same traffic
// through the whole model (mkeysim run) behaves the same.
func TestNoDeadlockKLMOverKLM(t *testing.T) {
	cfgs := []Config{DefaultConfig(),
		{Cache: linecache.Geometry(1, 1, 4), Contexts: 3, NestedContexts: 2, MaxIndirection: 2},
		{Cache: linecache.Geometry(2, 2, 4), Contexts: 5, NestedContexts: 4, MaxIndirection: 4},
		{Cache: linecache.Geometry(8, 1, 4), Contexts: 2, NestedContexts: 1, MaxIndirection: 1}, // PA too deep
	}
	for _, cfg := range cfgs {
		for _, nreq := range []int{1, 4, 8, 16, 64} {
			t.Run(fmt.Sprintf("contexts%d nested%d max%d/%d requests", cfg.Contexts, cfg.NestedContexts, cfg.MaxIndirection, nreq), func(t *testing.T) {
				m := ref.New(ref.Config{MaxIndirection: cfg.MaxIndirection})
				m.AddQP(scenario.QP{QPN: qpn, PD: pd})
				mk := func(idx uint32, mkc prm.MKC, klm []prm.KLMEntry) prm.Key {
					if _, r := m.Create(scenario.MKey{Index: idx, HasIndex: true, MKC: mkc, KLM: klm}); r != nil {
						t.Fatalf("ref refuses key %d: %v", idx, r.Status)
					}
					return prm.MakeKey(idx, mkc.Variant)
				}
				// PA key 0x101 over everything; KLM key 0x202: 4 entries of 64
				// bytes of 0x101; KLM key 0x303: 8 entries of 256 bytes of 0x202.
				pa := mk(1, full(prm.MKC{Variant: 1, Length64: true}, prm.ModePA), nil)
				var e1 []prm.KLMEntry
				for i := range 4 {
					e1 = append(e1, prm.KLMEntry{ByteCount: 64, MKey: pa, Address: uint64(i) << 20})
				}
				k1 := mk(2, full(prm.MKC{Variant: 2, Len: 256, TranslationsOctwordSize: 4, MTTHandle: ref.HandleBase}, prm.ModeKLM), e1)
				var e0 []prm.KLMEntry
				for range 8 {
					e0 = append(e0, prm.KLMEntry{ByteCount: 256, MKey: k1})
				}
				k0 := mk(3, full(prm.MKC{Variant: 3, Len: 2048, TranslationsOctwordSize: 8, MTTHandle: ref.HandleBase + 0x1000}, prm.ModeKLM), e0)
				bn := newBench(cfg, m.ICM(), chantest.Jitter(1, 3, 1), nil)
				bn.closed(m, chantest.Jitter(2, 3, 1))
				var walks []bus.Walk
				for i := range nreq {
					wk := bus.Walk{Piece: bus.Piece{Tag: uint16(i), Type: prm.RemoteRead, Key: k0, Addr: 0, Len: 2048, QPN: qpn, PD: pd},
						MKC: m.Object(k0.Index()).MKC}
					walks = append(walks, wk)
					bn.in.Add(0, wk)
				}
				if !bn.run(200_000) {
					t.Fatalf("cfg %+v, %d requests of 2048 bytes on KLM %v -> KLM %v -> PA %v: deadlock at cycle %d: "+
						"%d contexts busy, %d credits, %d KLM children waiting in Nested (depth %d), %d bytes of %d done (%s)",
						cfg, nreq, k0, k1, pa, bn.e.Now(), bn.u.InUse(), bn.u.Credits(), bn.p.Nested.Len(), cfg.LoopSlots(),
						bn.final(), 2048*nreq, bn.creditErr)
				}
				if bn.creditErr != "" || len(bn.lb.errs) > 0 {
					t.Fatalf("cfg %+v: reservations: %s %v", cfg, bn.creditErr, bn.lb.errs)
				}
				checkClosed(t, fmt.Sprintf("cfg %+v, %d requests", cfg, nreq), m, walks, closedResult{unit: bn.done.Got, lb: bn.lb.out}, nil)
			})
		}
	}
}

// TestOrderIndependence: the closed loop under shuffled evaluation and
// without idle skipping gives identical outcomes at identical cycles.
func TestOrderIndependence(t *testing.T) {
	for _, seed := range []int64{2, 5} {
		_, _, _, base := closedRun(t, seed, 0, false, nil)
		for _, sh := range []int64{1, 17} {
			for _, noSkip := range []bool{false, true} {
				_, _, _, r := closedRun(t, seed, sh, noSkip, nil)
				if !reflect.DeepEqual(r, base) {
					t.Fatalf("seed %d shuffle %d noSkip %v: outcomes or their cycles differ (end %d vs %d)", seed, sh, noSkip, r.end, base.end)
				}
			}
		}
	}
}

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	cases := []struct {
		mod  func(c *Config)
		want bool
	}{
		{func(c *Config) {}, true},
		{func(c *Config) { c.Contexts, c.NestedContexts, c.MaxIndirection = 2, 1, 1 }, true},
		{func(c *Config) { c.Contexts, c.NestedContexts, c.MaxIndirection = 2, 0, 0 }, true},
		{func(c *Config) { c.Contexts, c.NestedContexts, c.MaxIndirection = 2, 1, 0 }, true},
		{func(c *Config) { c.Contexts, c.NestedContexts, c.MaxIndirection = 2, 2, 2 }, false},
		{func(c *Config) { c.Contexts = 1 }, false},
		{func(c *Config) { c.Contexts, c.NestedContexts = 4096, 4095 }, true},
		{func(c *Config) { c.Contexts = 4097 }, false},
		{func(c *Config) { c.NestedContexts = c.MaxIndirection }, true},
		{func(c *Config) { c.NestedContexts = c.MaxIndirection - 1 }, false},
		{func(c *Config) { c.NestedContexts = 0 }, false},
		{func(c *Config) { c.NestedContexts = c.Contexts - 1 }, true},
		{func(c *Config) { c.NestedContexts = c.Contexts }, false},
		{func(c *Config) { c.MaxIndirection = -1 }, false},
		{func(c *Config) { c.MaxIndirection = 0 }, true},
		{func(c *Config) { c.Contexts, c.NestedContexts, c.MaxIndirection = 65, 64, 64 }, true},
		{func(c *Config) { c.Contexts, c.NestedContexts, c.MaxIndirection = 66, 65, 65 }, false},
		{func(c *Config) { c.MaxIndirection = c.NestedContexts + 1 }, false},
		{func(c *Config) { c.Cache.Entries = 12 }, false}, // 3 lines of 4 in sets of 4 ways
	}
	for i, tc := range cases {
		c := ok
		tc.mod(&c)
		if err := c.Validate(); (err == nil) != tc.want {
			t.Errorf("case %d %+v: %v, want ok=%v", i, c, err, tc.want)
		}
	}
}

// ---------------------------------------------------------------------------
// Deadlock freedom over random configurations and random nested lists.

var (
	deepSeeds = flag.Int("klmwalk.deep_seeds", 200, "seeds of TestDeepRandomNoDeadlock")
	deepSeed  = flag.Int64("klmwalk.deep_seed", 0, "run TestDeepRandomNoDeadlock on this seed only")
)

// deepKey is an indirect key of a deep world, decided before its entries.
type deepKey struct {
	idx   uint32
	fixed bool
	start uint64
	len   uint64
	bcs   []uint64 // byte counts (variable KLM); entities of 4 KB (fixed)
	cap   uint32
}

// genDeepWorld makes a world of KLM and Fixed Buffer Size keys in layers,
// KLM over KLM over ... over PA: the keys of each layer name keys of the
// layer below (1 to 8 entries each, covering several entries of the key
// below), the last layer PA keys. Some entries name a key of the same or
// an upper layer (cycles, which end at the depth limit), a PA key
// directly, a missing key or a wrong variant, or overrun the key they
// name. There are up to maxInd+2 layers, so some requests go deeper than
// the limit. It returns the model and the top layer's keys.
func genDeepWorld(t *testing.T, rng *rand.Rand, maxInd int) (*ref.Model, []prm.Key) {
	m := ref.New(ref.Config{MaxIndirection: maxInd})
	m.AddQP(scenario.QP{QPN: qpn, PD: pd})
	create := func(idx uint32, mkc prm.MKC, klm []prm.KLMEntry) prm.Key {
		if _, r := m.Create(scenario.MKey{Index: idx, HasIndex: true, MKC: mkc, KLM: klm}); r != nil {
			t.Fatalf("ref refuses key %d %+v: %v %s", idx, mkc, r.Status, r.Reason)
		}
		return prm.MakeKey(idx, mkc.Variant)
	}
	// PA keys 1..4 over [0x10000, 0x10000+2^20); key 4 refuses writes.
	type target struct {
		key        prm.Key
		start, len uint64
	}
	var pa []target
	for i := uint32(1); i <= 4; i++ {
		mkc := full(prm.MKC{Variant: uint8(i), StartAddr: 0x10000, Len: 1 << 20}, prm.ModePA)
		if i == 4 {
			mkc.LW, mkc.RW = false, false
		}
		pa = append(pa, target{create(i, mkc, nil), 0x10000, 1 << 20})
	}
	layers := make([][]*deepKey, 1+rng.Intn(maxInd+2))
	idx := uint32(100)
	for l := range layers {
		for range 1 + rng.Intn(3) {
			k := &deepKey{idx: idx, fixed: rng.Intn(4) == 0, start: uint64(rng.Intn(1<<20)) << 12}
			idx++
			n := 1 + rng.Intn(8)
			if k.fixed {
				k.cap = uint32((n + 3) / 4 * 4)
				k.len = uint64(n) << 12
			} else {
				k.cap = uint32((n + 3) / 4 * 4)
				for range n {
					var bc uint64
					switch x := rng.Intn(10); {
					case x == 0:
					case x < 3:
						bc = 1 + uint64(rng.Intn(64))
					case x < 8:
						bc = 64 + uint64(rng.Intn(1500))
					default:
						bc = 1500 + uint64(rng.Intn(4500))
					}
					k.bcs = append(k.bcs, bc)
					k.len += bc
				}
				if k.len == 0 {
					k.bcs[0] = 1 + uint64(rng.Intn(100))
					k.len = k.bcs[0]
				}
				if rng.Intn(8) == 0 {
					k.len += uint64(rng.Intn(200)) // past the list: TRANSLATION_RANGE
				}
			}
			layers[l] = append(layers[l], k)
		}
	}
	tgt := func(k *deepKey) target {
		return target{prm.MakeKey(k.idx, uint8(k.idx)), k.start, k.len}
	}
	var heads []prm.Key
	for l, keys := range layers {
		for _, k := range keys {
			var entries []prm.KLMEntry
			n := len(k.bcs)
			if k.fixed {
				n = int(k.len >> 12)
			}
			for j := range n {
				size := uint64(1) << 12
				if !k.fixed {
					size = k.bcs[j]
				}
				var cand []target
				switch x := rng.Intn(100); {
				case x < 78 && l+1 < len(layers):
					for _, c := range layers[l+1] {
						cand = append(cand, tgt(c))
					}
				case x < 86: // a cycle: this layer or one above
					for _, c := range layers[rng.Intn(l+1)] {
						cand = append(cand, tgt(c))
					}
				default:
					cand = pa
				}
				// Prefer a key the entry fits in; else it overruns it
				// (OUT_OF_RANGE one level down).
				var fit []target
				for _, c := range cand {
					if c.len >= size {
						fit = append(fit, c)
					}
				}
				if len(fit) > 0 && rng.Intn(20) != 0 {
					cand = fit
				}
				c := cand[rng.Intn(len(cand))]
				e := prm.KLMEntry{ByteCount: uint32(size), MKey: c.key, Address: c.start}
				if c.len > size {
					e.Address += uint64(rng.Int63n(int64(c.len - size + 1)))
				}
				switch rng.Intn(50) {
				case 0:
					e.MKey = prm.MakeKey(90, 0) // never created
				case 1:
					e.MKey = prm.MakeKey(c.key.Index(), c.key.Variant()^0x80) // KEY_MISMATCH
				}
				entries = append(entries, e)
			}
			mkc := prm.MKC{Variant: uint8(k.idx), StartAddr: k.start, Len: k.len, TranslationsOctwordSize: k.cap,
				MTTHandle: ref.HandleBase + uint64(k.idx)*0x1000}
			mode := prm.ModeKLM
			if k.fixed {
				mode, mkc.LogEntitySize = prm.ModeFixedBufferSize, 12
			}
			key := create(k.idx, full(mkc, mode), entries)
			if l == 0 {
				heads = append(heads, key)
			}
		}
	}
	return m, heads
}

// deepCfg draws a configuration: depth 1..6, up to 16 contexts beyond the
// least, any cache geometry.
func deepCfg(rng *rand.Rand) Config {
	maxInd := 1 + rng.Intn(6)
	ctx := maxInd + 1 + rng.Intn(17)
	return Config{
		Cache:          linecache.Geometry(1<<rng.Intn(6), 1+rng.Intn(4), 4),
		Contexts:       ctx,
		NestedContexts: maxInd + rng.Intn(ctx-maxInd),
		MaxIndirection: maxInd,
	}
}

// deepRun runs one seed of TestDeepRandomNoDeadlock and checks it; it
// returns the unit's counters.
func deepRun(t *testing.T, seed int64, seen map[prm.Status]int) (s Stats, end uint64, deepest int) {
	rng := rand.New(rand.NewSource(seed))
	cfg := deepCfg(rng)
	m, heads := genDeepWorld(t, rng, cfg.MaxIndirection)
	var doneReady func(uint64) bool
	if rng.Intn(2) == 0 {
		doneReady = chantest.Stall(seed)
	}
	bn := newBench(cfg, m.ICM(), chantest.Jitter(seed, 1+uint64(rng.Intn(10)), 1+uint64(rng.Intn(40))), doneReady)
	bn.closed(m, chantest.Jitter(seed+7, 1+uint64(rng.Intn(6)), 1+uint64(rng.Intn(20))))
	if rng.Intn(4) == 0 {
		bn.e.Shuffle(seed)
	}
	nreq := 32 + rng.Intn(97)
	var walks []bus.Walk
	for len(walks) < nreq {
		key := heads[rng.Intn(len(heads))]
		mkc := m.Object(key.Index()).MKC
		addr := mkc.StartAddr + uint64(rng.Int63n(int64(mkc.Len)))
		n := 1 + uint64(rng.Int63n(int64(min(mkc.StartAddr+mkc.Len-addr, 8192))))
		typ := []prm.AccessType{prm.LocalRead, prm.RemoteRead, prm.LocalWrite, prm.RemoteWrite}[rng.Intn(4)]
		wk := bus.Walk{Piece: bus.Piece{Tag: uint16(len(walks)), Type: typ, Key: key, Addr: addr, Len: n, QPN: qpn, PD: pd}, MKC: mkc}
		walks = append(walks, wk)
		bn.in.Add(0, wk)
	}
	ctx := fmt.Sprintf("seed %d (-klmwalk.deep_seed=%d) cfg %+v, %d requests", seed, seed, cfg, nreq)
	// With a cache that cannot thrash (the context whose line was just
	// filled stepping first) every run of seeds 1..3000 ends by cycle
	// 47,243; the last window tells a livelock (no entry used) from slow
	// progress.
	const limit, window = 200_000, 20_000
	var before Stats
	var readsBefore int
	if !bn.run(limit - window) {
		before, readsBefore = bn.u.Stats(), len(bn.mem.Reads)
	}
	if !bn.run(limit) {
		got := map[uint16]uint64{}
		for _, o := range slices.Concat(bn.done.Got, bn.lb.out) {
			got[o.V.Tag] += o.V.Len
		}
		var open []string
		for _, wk := range walks {
			if got[wk.Tag] < wk.Len {
				open = append(open, fmt.Sprintf("tag %d (%d of %d bytes)", wk.Tag, got[wk.Tag], wk.Len))
			}
		}
		var busy []string
		for i := range cfg.Contexts {
			if st, w := bn.u.Context(i); st != walk.Free {
				busy = append(busy, fmt.Sprintf("%d:L%d/%s piece L%d tag %d", i, bn.levels[i], StateEnum.Names[uint64(st)], w.Level, w.Tag))
			}
		}
		s := bn.u.Stats()
		t.Fatalf("%s: not done by cycle %d: in the last %d cycles %d children, %d entries used, %d cache hits, %d misses, %d list reads; "+
			"%d requests open %v; contexts busy %v; %d credits, outstanding by level %v, %d in Nested, %d in Loop, loopback holds %d, "+
			"%d in In; reservations: %s %v",
			ctx, bn.e.Now(), window, s.Children-before.Children, s.Entries-before.Entries, s.Cache.Hits-before.Cache.Hits,
			s.Cache.Misses-before.Cache.Misses, len(bn.mem.Reads)-readsBefore, len(open), open, busy, bn.u.Credits(), bn.outstanding,
			bn.p.Nested.Len(), bn.p.Loop.Len(), len(bn.lb.q), bn.p.In.Len(), bn.creditErr, bn.lb.errs)
	}
	if bn.creditErr != "" || len(bn.lb.errs) > 0 {
		t.Fatalf("%s: reservations: %s %v", ctx, bn.creditErr, bn.lb.errs)
	}
	checkClosed(t, ctx, m, walks, closedResult{unit: bn.done.Got, lb: bn.lb.out}, seen)
	s = bn.u.Stats()
	if s.Cache.Misses != uint64(len(bn.mem.Reads)) || s.Cache.Hits+s.Cache.Misses != s.Entries {
		t.Fatalf("%s: cache hits %d misses %d, entries %d, reads %d: want a lookup (hit or miss) per entry read, a miss per line read",
			ctx, s.Cache.Hits, s.Cache.Misses, s.Entries, len(bn.mem.Reads))
	}
	for l, n := range bn.maxOutstanding {
		if n > 0 {
			deepest = l
		}
	}
	return s, bn.e.Now(), deepest
}

// TestDeepRandomNoDeadlock: random configurations, random nested lists
// (KLM over KLM over ... over PA, cycles, fan-out up to 8) and many
// concurrent requests on them, issued all at once: every request
// completes within the cycle bound and equals ref's translation; the
// reservations hold every cycle. Replay one seed with
// -klmwalk.deep_seed=N.
func TestDeepRandomNoDeadlock(t *testing.T) {
	seeds := make([]int64, 0, *deepSeeds)
	for s := range *deepSeeds {
		seeds = append(seeds, int64(s+1))
	}
	if *deepSeed != 0 {
		seeds = []int64{*deepSeed}
	}
	seen := map[prm.Status]int{}
	var stalls, children uint64
	maxEnd := uint64(0)
	deepest := map[int]int{} // seeds by the deepest level a child reached
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			s, end, d := deepRun(t, seed, seen)
			stalls += s.CreditStalls.Count()
			children += s.Children
			maxEnd = max(maxEnd, end)
			deepest[d]++
		})
	}
	t.Logf("%d seeds: %d children, %d reservation stall cycles, outcomes %v, seeds by deepest child level %v, longest run %d cycles",
		len(seeds), children, stalls, seen, deepest, maxEnd)
	if *deepSeed == 0 && !t.Failed() {
		for _, st := range []prm.Status{prm.OK, prm.IndirectionDepth, prm.TranslationRange, prm.OutOfRange, prm.BadKeyIndex, prm.KeyMismatch, prm.AccessDenied} {
			if seen[st] < 10 {
				t.Errorf("only %d requests end %v (%v): the worlds are too tame", seen[st], st, seen)
			}
		}
		if stalls < 1000 || deepest[4]+deepest[5]+deepest[6] < len(seeds)/10 {
			t.Errorf("%d reservation stall cycles, seeds by deepest child level %v: the worlds are too shallow or the configurations too roomy",
				stalls, deepest)
		}
	}
}
