package tb

import (
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
// it).
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
	if n := len(got[0].Segments); got[0].Status != prm.OK || n != pages {
		t.Fatalf("%v with %d segments, want OK with %d", got[0].Status, n, pages)
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
