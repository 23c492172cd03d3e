package mttwalk

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl/bus"
	"mkeysim/rtl/internal/chantest"
	"mkeysim/rtl/linecache"
	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

const (
	qpn = 0x42
	pd  = 0x77
)

// world is the golden model holding the MTT keys under test; its ICM is
// also the fake memory the walker reads.
type world struct {
	m    *ref.Model
	keys []prm.Key
}

func newWorld() *world {
	m := ref.New(ref.DefaultConfig())
	m.AddQP(scenario.QP{QPN: qpn, PD: pd})
	return &world{m: m}
}

// create makes an ODP MTT key (so ref names the faulting key and address)
// with its list at handle; the entries keep their rd_en/wr_en.
func (w *world) create(t *testing.T, idx uint32, mkc prm.MKC, entries []prm.MTTEntry) prm.Key {
	t.Helper()
	mkc.AccessMode, mkc.LR, mkc.LW, mkc.RR, mkc.RW, mkc.A = prm.ModeMTT, true, true, true, true, true
	mkc.PD, mkc.QPN = pd, prm.QPNNone
	if _, r := w.m.Create(scenario.MKey{Index: idx, HasIndex: true, MKC: mkc, MTT: entries, PgAccess: true, ODP: true}); r != nil {
		t.Fatalf("ref refuses the key: %v %s (mkc %+v)", r.Status, r.Reason, mkc)
	}
	k := prm.MakeKey(idx, mkc.Variant)
	w.keys = append(w.keys, k)
	return k
}

// walk is the checked piece the protection checker would send.
func (w *world) walk(key prm.Key, tag uint16, level uint8, typ prm.AccessType, addr, n, off uint64) bus.Walk {
	return bus.Walk{
		Piece: bus.Piece{Tag: tag, Level: level, Type: typ, Key: key, Addr: addr, Len: n, Offset: off, QPN: qpn, PD: pd},
		MKC:   w.m.Object(key.Index()).MKC,
	}
}

// expected is what the walker must emit for wk, in order, by the golden
// model: ref translates the same bytes at level 0; its segments, shifted
// to the piece's offset and level, are the outcomes; a failure at byte X
// comes after the segments of [0, X) (ref again) and covers the rest.
// ok is false when ref fails the piece for a reason a walker never sees
// (the generator made a piece the checker would have stopped).
func (w *world) expected(wk *bus.Walk) ([]bus.Outcome, bool) {
	req := ref.Request{QPN: qpn, Key: wk.Key, Addr: wk.Addr, Len: uint32(wk.Len), Type: wk.Type}
	res := w.m.Translate(req, nil)
	var out []bus.Outcome
	emit := func(segs []prm.Segment) {
		off := wk.Offset
		for _, s := range segs {
			out = append(out, bus.Outcome{Tag: wk.Tag, Offset: off, Len: s.Len, Status: prm.OK, Level: wk.Level, Seg: s,
				Key: wk.Key, Plat: bus.PlatformOf(&wk.MKC)})
			off += s.Len
		}
	}
	switch res.Status {
	case prm.OK:
		emit(res.Segments)
		return out, true
	case prm.TranslationRange, prm.PageFault:
	default:
		return nil, false
	}
	if res.Level != 0 {
		panic("MTT failure below level 0")
	}
	if res.Offset > 0 {
		req.Len = uint32(res.Offset)
		pre := w.m.Translate(req, nil)
		if pre.Status != prm.OK {
			panic(fmt.Sprintf("prefix of a failing piece fails: %+v", pre))
		}
		emit(pre.Segments)
	}
	f := bus.Outcome{Tag: wk.Tag, Offset: wk.Offset + res.Offset, Len: wk.Len - res.Offset, Status: prm.TranslationRange, Level: wk.Level}
	if res.Status == prm.PageFault {
		f.Status, f.Missing, f.FaultKey, f.FaultAddr = prm.PageAccess, true, res.FaultKey, res.FaultAddr
	}
	return append(out, f), true
}

// compare checks the walker's outcomes tag by tag against expected.
func compare(t *testing.T, ctx string, w *world, walks []bus.Walk, got []chantest.Rec[bus.Outcome]) {
	t.Helper()
	byTag := map[uint16][]bus.Outcome{}
	for _, r := range got {
		byTag[r.V.Tag] = append(byTag[r.V.Tag], r.V)
	}
	for i := range walks {
		wk := &walks[i]
		want, ok := w.expected(wk)
		if !ok {
			t.Fatalf("%s: test generator made an unchecked piece %+v", ctx, wk.Piece)
		}
		g := byTag[wk.Tag]
		delete(byTag, wk.Tag)
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("%s: piece tag %d %+v\nmkc start %#x len %#x length64 %v log %d cap %d handle %#x\n got %d outcomes %+v\nwant %d outcomes %+v",
				ctx, wk.Tag, wk.Piece, wk.MKC.StartAddr, wk.MKC.Len, wk.MKC.Length64, wk.MKC.LogEntitySize,
				wk.MKC.TranslationsOctwordSize, wk.MKC.MTTHandle, len(g), firstN(g), len(want), firstN(want))
		}
		// Coverage, checked on its own so that a mistake in expected
		// cannot hide a gap: the outcomes tile [Offset, Offset+Len).
		at := wk.Offset
		for _, o := range g {
			if o.Offset != at || o.Len == 0 {
				t.Fatalf("%s: tag %d: outcome at %d len %d, want offset %d", ctx, wk.Tag, o.Offset, o.Len, at)
			}
			at += o.Len
		}
		if at != wk.Offset+wk.Len {
			t.Fatalf("%s: tag %d covered up to %d of %d", ctx, wk.Tag, at-wk.Offset, wk.Len)
		}
	}
	for tag, o := range byTag {
		t.Fatalf("%s: outcomes for unknown tag %d: %+v", ctx, tag, o)
	}
}

func firstN(o []bus.Outcome) []bus.Outcome {
	if len(o) > 6 {
		return o[:6]
	}
	return o
}

// genKey draws an MTT key: unaligned start (sometimes near 2^64),
// log 12..21, a capacity of 8..64 entries, a length around the capacity
// (sometimes past it, sometimes length64), a list partly written.
func genKey(t *testing.T, rng *rand.Rand, w *world, idx uint32) prm.Key {
	log := uint8(12 + rng.Intn(10))
	P := uint64(1) << log
	size := uint32(4 * (1 + rng.Intn(8))) // octwords
	capEntries := 2 * uint64(size)
	var mkc prm.MKC
	mkc.LogEntitySize = log
	mkc.TranslationsOctwordSize = size
	mkc.MTTHandle = ref.HandleBase + uint64(idx)*0x10000
	mkc.Variant = uint8(rng.Intn(256))
	switch rng.Intn(8) {
	case 0: // near the top of the space; start+len may pass 2^64
		mkc.StartAddr = -(uint64(rng.Intn(int(capEntries)+1)) * P) - uint64(rng.Int63n(int64(P)))
	case 1:
		mkc.StartAddr = uint64(rng.Intn(4)) * P // aligned
	default:
		mkc.StartAddr = rng.Uint64() >> uint(rng.Intn(40))
	}
	b := mkc.StartAddr & (P - 1)
	pages := int64(capEntries) + int64(rng.Intn(5)) - 2
	if pages < 1 {
		pages = 1
	}
	mkc.Len = uint64(pages)*P - b - uint64(rng.Int63n(int64(P)))
	if mkc.Len == 0 || mkc.Len > uint64(pages)*P {
		mkc.Len = 1
	}
	mkc.Length64 = rng.Intn(6) == 0
	n := rng.Intn(int(capEntries) + 1)
	if rng.Intn(3) > 0 {
		n = int(capEntries)
	}
	entries := make([]prm.MTTEntry, n)
	for i := range entries {
		entries[i] = prm.MTTEntry{PTag: rng.Uint64(), RdEn: rng.Intn(25) != 0, WrEn: rng.Intn(25) != 0}
	}
	return w.create(t, idx, mkc, entries)
}

// genWalk draws a piece of key inside the key's range (as the checker
// guarantees), biased to the ends of the capacity and to 2^64.
func genWalk(rng *rand.Rand, w *world, key prm.Key, tag uint16) bus.Walk {
	m := w.m.Object(key.Index()).MKC
	P := uint64(1) << m.LogEntitySize
	maxLen := min(uint64(1)<<32-1, 12*P)
	for {
		var addr, n uint64
		switch x := rng.Intn(10); {
		case x < 6 || !m.Length64: // inside [start, start+len)
			span := m.Len
			if m.StartAddr+m.Len < m.StartAddr {
				span = -m.StartAddr // up to 2^64
			}
			var off uint64
			switch rng.Intn(3) {
			case 0:
				off = uint64(rng.Int63n(int64(min(span, 1<<62))))
			case 1: // near the end
				back := uint64(rng.Int63n(int64(min(span, 3*P))))
				off = span - back
			default:
				off = uint64(rng.Int63n(int64(min(span, 2*P))))
			}
			if off >= span {
				off = span - 1
			}
			addr = m.StartAddr + off
			room := span - off
			if room == 0 {
				room = 1
			}
			n = 1 + uint64(rng.Int63n(int64(min(room, maxLen))))
		case x < 8: // length64: below start, so that d wraps (and b+d may pass 2^64)
			b := m.StartAddr & (P - 1)
			back := 1 + uint64(rng.Int63n(int64(2*P)))
			if b > 0 && rng.Intn(2) == 0 {
				back = 1 + uint64(rng.Int63n(int64(b)))
			}
			addr = m.StartAddr - back
			n = 1 + uint64(rng.Int63n(int64(maxLen)))
		default: // length64: anywhere, ending by 2^64
			addr = rng.Uint64()
			n = 1 + uint64(rng.Int63n(int64(maxLen)))
		}
		if addr+n < addr && addr+n != 0 {
			n = -addr
		}
		if n == 0 || n > maxLen {
			continue
		}
		typ := prm.AccessType(rng.Intn(4))
		if rng.Intn(10) == 0 && addr%8 == 0 && n >= 8 {
			typ, n = prm.RemoteAtomic, 8
		}
		wk := w.walk(key, tag, uint8(rng.Intn(4)), typ, addr, n, uint64(rng.Intn(1<<20)))
		if _, ok := w.expected(&wk); ok {
			return wk
		}
	}
}

type runResult struct {
	done  []chantest.Rec[bus.Outcome]
	stats Stats
	// counters are the stats' values (a wait's bookkeeping, the cycle
	// of its last note, differs with the schedule; its count does not).
	counters []sim.Counter
	end      uint64
}

// randomRun drives one seed's traffic through a walker of the given
// geometry; shuffle != 0 shuffles evaluation, noSkip disables skipping.
func randomRun(t *testing.T, seed int64, cfg Config, shuffle int64, noSkip bool) (*world, []bus.Walk, runResult) {
	rng := rand.New(rand.NewSource(seed))
	w := newWorld()
	nKeys := 1 + rng.Intn(6)
	for i := range nKeys {
		genKey(t, rng, w, uint32(i+1))
	}
	var walks []bus.Walk
	b := newBench(cfg, w.m.ICM(), chantest.Jitter(seed, 4, 30), chantest.Stall(seed))
	at := uint64(0)
	for i := range 80 {
		wk := genWalk(rng, w, w.keys[rng.Intn(nKeys)], uint16(i))
		walks = append(walks, wk)
		at += uint64(rng.Intn(4))
		b.in.Add(at, wk)
	}
	b.e.NoSkip = noSkip
	if shuffle != 0 {
		b.e.Shuffle(shuffle)
	}
	if !b.run(500000) {
		t.Fatalf("seed %d: walker did not finish: %d outcomes, %d contexts busy", seed, len(b.done.Got), b.u.InUse())
	}
	// Every miss reads its line but those merged into a read in flight.
	st := b.u.Stats().Cache
	if st.Misses-st.MergedMisses != uint64(len(b.mem.Reads)) || (!cfg.MergeMisses && st.MergedMisses != 0) {
		t.Fatalf("seed %d cfg %+v: %d misses, %d merged, %d reads", seed, cfg, st.Misses, st.MergedMisses, len(b.mem.Reads))
	}
	return w, walks, runResult{done: b.done.Got, stats: b.u.Stats(), counters: b.u.Counters(), end: b.e.Now()}
}

var geometries = []Config{
	{Cache: linecache.Geometry(64, 4, 8), Walkers: 8, MergeMisses: true},
	{Cache: linecache.Geometry(1, 1, 8), Walkers: 4},
	{Cache: linecache.Geometry(4, 2, 8), Walkers: 1},
	{Cache: linecache.Geometry(16, 1, 8), Walkers: 3, MergeMisses: true},
	{Cache: linecache.Config{Entries: 5, EntriesPerLine: 1, Ways: 0, Replacement: linecache.LRU}, Walkers: 6, MergeMisses: true},
	{Cache: linecache.Config{Entries: 32, EntriesPerLine: 2, Ways: 4, Replacement: linecache.PLRU}, Walkers: 5, MergeMisses: true},
	{Cache: linecache.Config{Entries: 48, EntriesPerLine: 4, Ways: 0, Replacement: linecache.NRU}, Walkers: 4},
	{Cache: linecache.Config{Entries: 64, EntriesPerLine: 8, Ways: 2, Replacement: linecache.Random, Seed: 3}, Walkers: 7, MergeMisses: true},
}

// TestRandomVsRef: random MTT keys and pieces, several walkers at once,
// memory answering out of order, a stalling consumer: every outcome equals
// the golden model's, bit-exact, in offset order, every byte once.
func TestRandomVsRef(t *testing.T) {
	statuses := map[prm.Status]int{}
	merged := uint64(0)
	for seed := int64(1); seed <= 40; seed++ {
		cfg := geometries[int(seed)%len(geometries)]
		w, walks, r := randomRun(t, seed, cfg, 0, false)
		compare(t, fmt.Sprintf("seed %d cfg %+v", seed, cfg), w, walks, r.done)
		merged += r.stats.Cache.MergedMisses
		for _, o := range r.done {
			statuses[o.V.Status]++
		}
		if r.stats.Pieces != uint64(len(walks)) {
			t.Fatalf("seed %d: Stats.Pieces %d, want %d", seed, r.stats.Pieces, len(walks))
		}
	}
	if merged == 0 {
		t.Error("no miss merged into a read in flight over all seeds: the traffic does not test merging")
	}
	// The traffic must reach every outcome the walker has.
	for _, st := range []prm.Status{prm.OK, prm.TranslationRange, prm.PageAccess} {
		if statuses[st] < 20 {
			t.Errorf("only %d outcomes %v over all seeds: generator lost its bias (%v)", statuses[st], st, statuses)
		}
	}
}

// TestOrderIndependence: the same traffic under shuffled evaluation and
// without idle skipping gives identical outcomes at identical cycles.
func TestOrderIndependence(t *testing.T) {
	for _, seed := range []int64{3, 7, 11} {
		cfg := geometries[int(seed)%len(geometries)]
		_, _, base := randomRun(t, seed, cfg, 0, false)
		for _, sh := range []int64{1, 2, 99} {
			for _, noSkip := range []bool{false, true} {
				_, _, r := randomRun(t, seed, cfg, sh*seed, noSkip)
				if !reflect.DeepEqual(r.done, base.done) {
					t.Fatalf("seed %d shuffle %d noSkip %v: outcomes or their cycles differ", seed, sh*seed, noSkip)
				}
				if !reflect.DeepEqual(r.counters, base.counters) {
					t.Fatalf("seed %d shuffle %d noSkip %v: counters differ %+v vs %+v", seed, sh*seed, noSkip, r.counters, base.counters)
				}
			}
		}
	}
}

// dirKey is a plain key for directed tests: 4 KB pages, start 0x10000,
// 16 pages, 16 entries (8 octwords) at HandleBase, page i at 0xA0000000 +
// i*0x100000, readable and writable.
func dirKey(t *testing.T, w *world) prm.Key {
	entries := make([]prm.MTTEntry, 16)
	for i := range entries {
		entries[i] = prm.MTTEntry{PTag: 0xA000_0000 + uint64(i)*0x10_0000, RdEn: true, WrEn: true}
	}
	return w.create(t, 1, prm.MKC{StartAddr: 0x10000, Len: 16 << 12, LogEntitySize: 12, TranslationsOctwordSize: 8,
		MTTHandle: ref.HandleBase, Variant: 1}, entries)
}

// TestDirected: the page split, the exact page base, the fault address
// and the capacity boundary, by hand and by ref.
func TestDirected(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(w *world) // changes the list after creation
		addr, n uint64
		typ     prm.AccessType
		mod     func(m *prm.MKC) // changes the MKC carried by the piece
		want    []bus.Outcome    // tag 0, level 2, offset base 1000
	}{
		{name: "one page", addr: 0x10000, n: 0x1000, want: []bus.Outcome{
			{Offset: 1000, Len: 0x1000, Seg: prm.Segment{Addr: 0xA000_0000, Len: 0x1000}}}},
		{name: "split at page boundary", addr: 0x10ff0, n: 0x20, want: []bus.Outcome{
			{Offset: 1000, Len: 0x10, Seg: prm.Segment{Addr: 0xA000_0ff0, Len: 0x10}},
			{Offset: 1016, Len: 0x10, Seg: prm.Segment{Addr: 0xA010_0000, Len: 0x10}}}},
		{name: "three pages", addr: 0x11800, n: 0x2000, want: []bus.Outcome{
			{Offset: 1000, Len: 0x800, Seg: prm.Segment{Addr: 0xA010_0800, Len: 0x800}},
			{Offset: 1000 + 0x800, Len: 0x1000, Seg: prm.Segment{Addr: 0xA020_0000, Len: 0x1000}},
			{Offset: 1000 + 0x1800, Len: 0x800, Seg: prm.Segment{Addr: 0xA030_0000, Len: 0x800}}}},
		{name: "last entry", addr: 0x1f000, n: 0x1000, want: []bus.Outcome{
			{Offset: 1000, Len: 0x1000, Seg: prm.Segment{Addr: 0xA0F0_0000, Len: 0x1000}}}},
		{name: "past capacity", addr: 0x1f800, n: 0x1000, mod: func(m *prm.MKC) { m.Len = 1 << 20 }, want: []bus.Outcome{
			{Offset: 1000, Len: 0x800, Seg: prm.Segment{Addr: 0xA0F0_0800, Len: 0x800}},
			{Offset: 1000 + 0x800, Len: 0x800, Status: prm.TranslationRange}}},
		{name: "ptag low bits ignored", setup: func(w *world) {
			e := prm.MTTEntry{PTag: 0xB000_0fff_ffff_ff00, RdEn: true, WrEn: true}
			w.m.ICM().Write(ref.HandleBase+8*3, e.Append(nil))
		}, addr: 0x13010, n: 0x10, want: []bus.Outcome{
			{Offset: 1000, Len: 0x10, Seg: prm.Segment{Addr: 0xB000_0fff_ffff_f010, Len: 0x10}}}},
		{name: "write needs wr_en", setup: func(w *world) {
			e := prm.MTTEntry{PTag: 0xA020_0000, RdEn: true}
			w.m.ICM().Write(ref.HandleBase+8*2, e.Append(nil))
		}, addr: 0x11f00, n: 0x1000, typ: prm.RemoteWrite, want: []bus.Outcome{
			{Offset: 1000, Len: 0x100, Seg: prm.Segment{Addr: 0xA010_0f00, Len: 0x100}},
			{Offset: 1000 + 0x100, Len: 0xf00, Status: prm.PageAccess, Missing: true, FaultAddr: 0x12000}}},
		{name: "read of write-only page", setup: func(w *world) {
			e := prm.MTTEntry{PTag: 0xA000_0000, WrEn: true}
			w.m.ICM().Write(ref.HandleBase, e.Append(nil))
		}, addr: 0x10800, n: 0x10, typ: prm.LocalRead, want: []bus.Outcome{
			{Offset: 1000, Len: 0x10, Status: prm.PageAccess, Missing: true, FaultAddr: 0x10800}}},
		{name: "ptag 0 is a page", setup: func(w *world) {
			e := prm.MTTEntry{PTag: 0, RdEn: true, WrEn: true}
			w.m.ICM().Write(ref.HandleBase+8*5, e.Append(nil))
		}, addr: 0x15004, n: 0x4, want: []bus.Outcome{
			{Offset: 1000, Len: 0x4, Seg: prm.Segment{Addr: 4, Len: 4}}}},
		{name: "length64 below start: u passes 2^64", mod: func(m *prm.MKC) {
			m.StartAddr, m.Length64 = 0x10800, true
		}, addr: 0x10000, n: 0x10, want: []bus.Outcome{
			// d = -0x800, b = 0x800: b+d = 2^64 exactly, not page 0
			{Offset: 1000, Len: 0x10, Status: prm.TranslationRange}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			key := dirKey(t, w)
			if tc.setup != nil {
				tc.setup(w)
			}
			wk := w.walk(key, 0, 2, tc.typ, tc.addr, tc.n, 1000)
			if tc.mod != nil {
				tc.mod(&wk.MKC)
				w.m.Object(key.Index()).MKC = wk.MKC
			}
			b := newBench(DefaultConfig(), w.m.ICM(), chantest.Jitter(1, 5, 1), nil)
			b.in.Add(0, wk)
			if !b.run(10000) {
				t.Fatal("did not finish")
			}
			var got []bus.Outcome
			for _, r := range b.done.Got {
				got = append(got, r.V)
			}
			for i := range tc.want {
				tc.want[i].Level = 2
				if tc.want[i].Missing {
					tc.want[i].FaultKey = key
				}
				if tc.want[i].Status == prm.OK {
					tc.want[i].Key = key // the key that gave the segment
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("\n got %+v\nwant %+v", got, tc.want)
			}
			compare(t, tc.name, w, []bus.Walk{wk}, b.done.Got)
		})
	}
}

// TestInvalidateDuringFetch: a list line rewritten and invalidated while
// its fetch is in flight is fetched again and the new entry is used; an
// invalidation of another range leaves the (old) line in use.
func TestInvalidateDuringFetch(t *testing.T) {
	const newPTag = 0xC000_0000
	newEntry := prm.MTTEntry{PTag: newPTag, RdEn: true, WrEn: true}.Append(nil)
	cases := []struct {
		name    string
		writeAt uint64
		inval   bus.Inval
		invalAt uint64
		second  bool   // a second piece of the same page at cycle 200
		want    uint64 // page base of the first piece
		want2   uint64
		reads   int
	}{
		{name: "overlapping", writeAt: 5, inval: bus.Inval{ID: 9, Lo: ref.HandleBase, Hi: ref.HandleBase + 8}, invalAt: 5,
			want: newPTag, reads: 2},
		{name: "overlapping last byte of line", writeAt: 5, inval: bus.Inval{ID: 9, Lo: ref.HandleBase + 63, Hi: ref.HandleBase + 64}, invalAt: 5,
			want: newPTag, reads: 2},
		{name: "all", writeAt: 5, inval: bus.Inval{ID: 3, All: true}, invalAt: 5, want: newPTag, reads: 2},
		{name: "other line", writeAt: 5, inval: bus.Inval{ID: 4, Lo: ref.HandleBase + 64, Hi: ref.HandleBase + 128}, invalAt: 5,
			want: 0xA000_0000, reads: 1},
		{name: "after the fill: cached line dropped", writeAt: 100, inval: bus.Inval{ID: 5, Lo: ref.HandleBase, Hi: ref.HandleBase + 8},
			invalAt: 100, second: true, want: 0xA000_0000, want2: newPTag, reads: 2},
		{name: "after the fill, other line: still cached", writeAt: 100, inval: bus.Inval{ID: 6, Lo: ref.HandleBase + 64, Hi: ref.HandleBase + 65},
			invalAt: 100, second: true, want: 0xA000_0000, want2: 0xA000_0000, reads: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, sh := range []int64{0, 5} {
				w := newWorld()
				key := dirKey(t, w)
				b := newBench(DefaultConfig(), w.m.ICM(), chantest.Jitter(1, 30, 1), nil)
				if sh != 0 {
					b.e.Shuffle(sh)
				}
				b.mem.Writes = []chantest.Write{{At: tc.writeAt, Addr: ref.HandleBase, Data: newEntry}}
				b.in.Add(0, w.walk(key, 1, 0, prm.LocalRead, 0x10000, 0x100, 0))
				if tc.second {
					b.in.Add(200, w.walk(key, 2, 0, prm.LocalRead, 0x10000, 0x100, 0))
				}
				b.ctrl.Add(tc.invalAt, tc.inval)
				if !b.run(10000) {
					t.Fatal("did not finish")
				}
				if len(b.ack.Got) != 1 || b.ack.Got[0].V.ID != tc.inval.ID {
					t.Fatalf("acks %+v, want one with ID %d", b.ack.Got, tc.inval.ID)
				}
				// The fetch really was in flight when the invalidation came.
				if tc.invalAt == 5 && !(b.mem.Cycles[0] < tc.writeAt && b.ack.Got[0].Cycle < b.done.Got[0].Cycle) {
					t.Fatalf("test setup: read at %d, ack seen at %d, outcome at %d", b.mem.Cycles[0], b.ack.Got[0].Cycle, b.done.Got[0].Cycle)
				}
				if got := b.done.Got[0].V.Seg.Addr; got != tc.want {
					t.Fatalf("shuffle %d: first piece at %#x, want %#x", sh, got, tc.want)
				}
				if tc.second {
					if got := b.done.Got[1].V.Seg.Addr; got != tc.want2 {
						t.Fatalf("shuffle %d: second piece at %#x, want %#x", sh, got, tc.want2)
					}
				}
				if len(b.mem.Reads) != tc.reads {
					t.Fatalf("shuffle %d: %d reads of the list, want %d", sh, len(b.mem.Reads), tc.reads)
				}
			}
		})
	}
}

// TestFailedReadRetried: a read answered UR installs nothing; the walker
// reads the line again and translates with the real entries.
func TestFailedReadRetried(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		w := newWorld()
		for i := range 3 {
			genKey(t, rng, w, uint32(i+1))
		}
		b := newBench(geometries[int(seed)%len(geometries)], w.m.ICM(), chantest.Jitter(seed, 3, 10), chantest.Stall(seed))
		b.mem.FailFirst = true
		var walks []bus.Walk
		for i := range 15 {
			wk := genWalk(rng, w, w.keys[rng.Intn(3)], uint16(i))
			walks = append(walks, wk)
			b.in.Add(uint64(i), wk)
		}
		if !b.run(200000) {
			t.Fatalf("seed %d: did not finish", seed)
		}
		compare(t, fmt.Sprintf("seed %d (first read of each line fails)", seed), w, walks, b.done.Got)
	}
}

// TestWalkersOverlap: with several contexts, pieces whose lines miss are
// walked at once: outcomes of different pieces interleave on Done and the
// run is shorter than with one context, with the same outcomes per piece.
func TestWalkersOverlap(t *testing.T) {
	run := func(walkers int) (*world, []bus.Walk, []chantest.Rec[bus.Outcome], uint64, int) {
		w := newWorld()
		var walks []bus.Walk
		b := newBench(Config{Cache: linecache.Geometry(64, 4, 8), Walkers: walkers}, w.m.ICM(), chantest.Jitter(1, 40, 1), nil)
		for k := range 4 {
			entries := make([]prm.MTTEntry, 40)
			for i := range entries {
				entries[i] = prm.MTTEntry{PTag: uint64(k+1)<<40 | uint64(i)<<12, RdEn: true, WrEn: true}
			}
			key := w.create(t, uint32(k+1), prm.MKC{StartAddr: 0, Len: 40 << 12, LogEntitySize: 12, TranslationsOctwordSize: 20,
				MTTHandle: ref.HandleBase + uint64(k)*0x1000, Variant: 0}, entries)
			// Pages 8p+7 and 8p+8: two pages on two lines (8 entries a line).
			for p := range 4 {
				wk := w.walk(key, uint16(k*4+p), 0, prm.LocalRead, uint64(p*8+7)<<12, 0x2000, 0)
				walks = append(walks, wk)
				b.in.Add(0, wk)
			}
		}
		if !b.run(100000) {
			t.Fatal("did not finish")
		}
		return w, walks, b.done.Got, b.e.Now(), b.u.Stats().MaxBusy
	}
	interleaved := func(got []chantest.Rec[bus.Outcome]) bool {
		for i := 0; i+2 < len(got); i++ {
			for j := i + 2; j < len(got); j++ {
				if got[j].V.Tag == got[i].V.Tag && got[i+1].V.Tag != got[i].V.Tag {
					return true
				}
			}
		}
		return false
	}
	w1, walks1, got1, end1, busy1 := run(1)
	w4, walks4, got4, end4, busy4 := run(4)
	compare(t, "1 walker", w1, walks1, got1)
	compare(t, "4 walkers", w4, walks4, got4)
	if busy1 != 1 || busy4 != 4 {
		t.Fatalf("max contexts busy %d and %d, want 1 and 4", busy1, busy4)
	}
	if interleaved(got1) || !interleaved(got4) {
		t.Fatalf("interleaving: 1 walker %v (want false), 4 walkers %v (want true)", interleaved(got1), interleaved(got4))
	}
	if end4*2 > end1 {
		t.Fatalf("4 walkers took %d cycles, 1 walker %d: misses are not overlapped", end4, end1)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		cfg Config
		ok  bool
	}{
		{DefaultConfig(), true},
		{Config{Cache: linecache.Geometry(1, 1, 8), Walkers: 1}, true},
		{Config{Cache: linecache.Geometry(1, 1, 8), Walkers: 1024}, true},
		{Config{Cache: linecache.Geometry(1, 1, 8), Walkers: 0}, false},
		{Config{Cache: linecache.Geometry(1, 1, 8), Walkers: 1025}, false},
		{Config{Cache: linecache.Geometry(3, 1, 8), Walkers: 1}, false},
	}
	for _, tc := range cases {
		if err := tc.cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v, want ok=%v", tc.cfg, err, tc.ok)
		}
	}
}
