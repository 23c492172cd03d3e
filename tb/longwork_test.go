package tb

import (
	"math/rand"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// TestLongCommandLatency: a firmware that takes 3 million cycles a command
// is slow, not stuck: the run completes (the old watchdog, a fixed two
// million cycles without a result, killed it), and idle skipping jumps
// over the wait.
func TestLongCommandLatency(t *testing.T) {
	cfg := rtl.DefaultConfig()
	cfg.CmdLatency = 3_000_000
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{{Index: 1, HasIndex: true, PgAccess: true,
			MKC: prm.MKC{AccessMode: prm.ModePA, QPN: prm.QPNNone, PD: 1, LR: true, UMREn: true, Len: 4096}}},
		Ops: []scenario.Op{
			{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(1, 0), Len: 8, Type: prm.LocalRead}},
			{Kind: scenario.OpQueryMKey, Index: 1},
			{Kind: scenario.OpLocalInvalidate, QPN: 1, Key: prm.MakeKey(1, 0)},
			{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(1, 0), Len: 8, Type: prm.LocalRead}},
		}}
	got := runBoth(t, "cmd_latency 3M", sc, cfg, nil)
	if got[3].Cycle < 6_000_000 {
		t.Fatalf("the last access completed at cycle %d, before two commands of 3M cycles", got[3].Cycle)
	}
}

// TestFourGigabyteAccess: one legal access of 2^32-1 bytes over 4 KB
// pages, a million segments, completes in both models with the same
// segments (the old watchdog, two million cycles without a result, killed
// it): the first scenario.MaxSegments in the line, the rest counted in
// segments_left_out and compared through their digest (runBoth's Diff).
func TestFourGigabyteAccess(t *testing.T) {
	if testing.Short() {
		t.Skip("a million segments")
	}
	const pages = 1 << 20
	mtt := make([]prm.MTTEntry, pages)
	for i := range mtt {
		mtt[i] = prm.MTTEntry{PTag: uint64(pages-i) << 12, RdEn: true, WrEn: true}
	}
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{{Index: 1, HasIndex: true, PgAccess: true, MTT: mtt,
			MKC: prm.MKC{AccessMode: prm.ModeMTT, LogEntitySize: 12, QPN: prm.QPNNone, PD: 1, LR: true,
				Len: 1 << 32, TranslationsOctwordSize: scenario.OctwordsFor(pages, 0)}}},
		Ops: []scenario.Op{{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(1, 0), Len: 1<<32 - 1, Type: prm.LocalRead}}}}
	got := runBoth(t, "4 GB access", sc, rtl.DefaultConfig(), nil)
	if n, more := len(got[0].Segments), got[0].SegmentsLeftOut; got[0].Status != prm.OK || n != scenario.MaxSegments || n+int(more) != pages {
		t.Fatalf("%v with %d segments and %d left out, want OK with %d and %d", got[0].Status, n, more, scenario.MaxSegments, pages-scenario.MaxSegments)
	}
	if got[0].LeftOutSum == 0 {
		t.Fatal("no digest of the segments left out")
	}
	t.Logf("done at cycle %d", got[0].Cycle)
}

// TestCutStopsDecidedWalk: a Fixed Buffer Size access of 2^32-1 bytes
// whose first piece fails (every entry is all zero: key 0, index 0, never
// created) is decided at once; the walkers hear of the failure (bus.Cut)
// and stop instead of sending a million children down the loop.
func TestCutStopsDecidedWalk(t *testing.T) {
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{{Index: 1, HasIndex: true, PgAccess: true,
			MKC: prm.MKC{AccessMode: prm.ModeFixedBufferSize, LogEntitySize: 12, QPN: prm.QPNNone, PD: 1, LR: true,
				Len: 1 << 32, TranslationsOctwordSize: 1 << 20}}},
		Ops: []scenario.Op{{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(1, 0), Len: 1<<32 - 1, Type: prm.LocalRead}}}}
	var b *Bench
	got := runBoth(t, "FBS first piece fails", sc, rtl.DefaultConfig(), func(x *Bench) { b = x })
	if got[0].Status != prm.BadKeyIndex || got[0].Level != 1 || got[0].Offset != 0 {
		t.Fatalf("result %+v, want BAD_KEY_INDEX at level 1, offset 0", got[0])
	}
	st := b.Stats(0)
	children, _ := st.Count("klmwalk.children")
	cuts, _ := st.Count("klmwalk.cuts")
	if children > 64 || cuts != 1 || got[0].Cycle > 5000 {
		t.Fatalf("%d children sent, %d cuts, done at cycle %d: the walk went on after the failure", children, cuts, got[0].Cycle)
	}
}

// oneByteKLM is a PA key and a variable KLM key over it of n entries of
// one byte each (entry i maps byte i to PA address 16 i).
func oneByteKLM(n int) *scenario.Scenario {
	klm := make([]prm.KLMEntry, n)
	for i := range klm {
		klm[i] = prm.KLMEntry{ByteCount: 1, MKey: prm.MakeKey(1, 0), Address: uint64(16 * i)}
	}
	return &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{
			{Index: 1, HasIndex: true, PgAccess: true, MKC: prm.MKC{AccessMode: prm.ModePA, QPN: prm.QPNNone, PD: 1, LR: true, UMREn: true, Len: 1 << 20}},
			{Index: 2, HasIndex: true, PgAccess: true, KLM: klm, MKC: prm.MKC{AccessMode: prm.ModeKLM, QPN: prm.QPNNone, PD: 1, LR: true, UMREn: true,
				Len: uint64(n), TranslationsOctwordSize: scenario.OctwordsFor(0, n)}}}}
}

func oneByteAccess(addr uint64) scenario.Op {
	return scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(2, 0), Addr: addr, Len: 1, Type: prm.LocalRead}}
}

// TestKLMSearchCost: 4096 accesses of one byte each over a KLM list of
// 4096 one-byte entries. Searched from entry 0 one entry a cycle, they
// cost the sum of their positions (over 10^8 cycles with the line misses);
// the walker steps over a cached line's entries in one cycle and starts
// a piece at the nearest position a recent piece of the same list left
// off, so in order they cost each entry about once, and in random order
// a small fraction of the search from 0.
func TestKLMSearchCost(t *testing.T) {
	const n = 4096
	for _, tc := range []struct {
		name     string
		shuffled bool
		cursors  int
		limit    uint64
	}{
		{"in order", false, 16, 400_000},
		{"random order", true, 16, 12_000_000},
		{"in order, no cursors", false, 0, 1 << 40},
	} {
		if testing.Short() && tc.cursors == 0 {
			continue
		}
		sc := oneByteKLM(n)
		for i := uint64(0); i < n; i++ {
			sc.Ops = append(sc.Ops, oneByteAccess(i))
		}
		if tc.shuffled {
			r := rand.New(rand.NewSource(1))
			r.Shuffle(len(sc.Ops), func(i, j int) { sc.Ops[i], sc.Ops[j] = sc.Ops[j], sc.Ops[i] })
		}
		if tc.cursors == 0 {
			sc.Ops = sc.Ops[:256]
		}
		cfg := rtl.DefaultConfig()
		cfg.KLM.Cursors = tc.cursors
		got := runBoth(t, tc.name, sc, cfg, nil)
		end := got[len(got)-1].Cycle
		t.Logf("%s: %d accesses in %d cycles", tc.name, len(sc.Ops), end)
		if end > tc.limit {
			t.Errorf("%s: %d cycles, want at most %d", tc.name, end, tc.limit)
		}
	}
}

// TestKLMCursorInvalidated: a UMR that rewrites byte counts before a
// remembered position drops it (the position depends on them); the
// accesses after it find the entries the golden model finds.
func TestKLMCursorInvalidated(t *testing.T) {
	sc := oneByteKLM(64)
	sc.Ops = append(sc.Ops, oneByteAccess(40), oneByteAccess(41))
	// Entries 0..3 grow to 4 bytes each: byte 41 is now entry 29.
	grow := make([]prm.KLMEntry, 4)
	for i := range grow {
		grow[i] = prm.KLMEntry{ByteCount: 4, MKey: prm.MakeKey(1, 0), Address: 0x8000 + uint64(16*i)}
	}
	sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{QPN: 1, Key: prm.MakeKey(2, 0), KLM: grow}},
		oneByteAccess(41), oneByteAccess(42), oneByteAccess(3))
	runBoth(t, "cursor invalidated", sc, rtl.DefaultConfig(), nil)
}

// TestCutReachesNestedPieces: a KLM key whose first entry leads to a key
// that is not created and whose second leads, through a second KLM level,
// to a walk of 16384 MTT pages: the failure of the first piece stops the
// second wherever it is (a nested KLM context, or the MTT walker), and the
// access ends long before the walk would.
func TestCutReachesNestedPieces(t *testing.T) {
	const pages = 1 << 14
	mtt := make([]prm.MTTEntry, pages)
	for i := range mtt {
		mtt[i] = prm.MTTEntry{PTag: uint64(i) << 12, RdEn: true, WrEn: true}
	}
	big := uint64(pages) << 12
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{
			{Index: 1, HasIndex: true, PgAccess: true, MTT: mtt, MKC: prm.MKC{AccessMode: prm.ModeMTT, LogEntitySize: 12,
				QPN: prm.QPNNone, PD: 1, LR: true, Len: big, TranslationsOctwordSize: scenario.OctwordsFor(pages, 0)}},
			{Index: 2, HasIndex: true, PgAccess: true, KLM: []prm.KLMEntry{{ByteCount: uint32(big), MKey: prm.MakeKey(1, 0)}},
				MKC: prm.MKC{AccessMode: prm.ModeKLM, QPN: prm.QPNNone, PD: 1, LR: true, Len: big, TranslationsOctwordSize: 4}},
			{Index: 3, HasIndex: true, PgAccess: true, KLM: []prm.KLMEntry{
				{ByteCount: 4096, MKey: prm.MakeKey(9, 0)}, {ByteCount: uint32(big), MKey: prm.MakeKey(2, 0)}},
				MKC: prm.MKC{AccessMode: prm.ModeKLM, QPN: prm.QPNNone, PD: 1, LR: true, Len: 4096 + big, TranslationsOctwordSize: 4}},
		},
		Ops: []scenario.Op{{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(3, 0), Len: uint32(4096 + big), Type: prm.LocalRead}}}}
	var b *Bench
	got := runBoth(t, "nested cut", sc, rtl.DefaultConfig(), func(x *Bench) { b = x })
	st := b.Stats(0)
	mc, _ := st.Count("mttwalk.cuts")
	kc, _ := st.Count("klmwalk.cuts")
	walked, _ := st.Count("mttwalk.pages")
	if got[0].Status != prm.BadKeyIndex || mc+kc == 0 || walked > pages/16 || got[0].Cycle > 20_000 {
		t.Fatalf("result %v at cycle %d, cuts %d (MTT) + %d (KLM), pages walked %d of %d", got[0].Status, got[0].Cycle, mc, kc, walked, pages)
	}
}
