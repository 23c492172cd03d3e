package tb

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/score"
)

// TestScoreboardOverlap: with overlapping invalidation, an access issued
// just before an invalidation of its key, and not yet past its key check
// when the invalidation takes effect, fails MKEY_FREE (translation.md
// 3.2), while the scenario order says it passes. The scoreboard accepts
// that, and only that: the same result under scenario order is a
// difference, and so is a wrong status the invalidations cannot explain.
func TestScoreboardOverlap(t *testing.T) {
	key := prm.MakeKey(5, 0x33)
	mkc := prm.MKC{AccessMode: prm.ModePA, QPN: prm.QPNNone, Variant: 0x33, PD: 1, LR: true, Len: 1 << 20}
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{{Index: 5, HasIndex: true, PgAccess: true, MKC: mkc}},
		Ops: []scenario.Op{
			{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: key, Addr: 0x100, Len: 8, Type: prm.LocalRead}},
			{Kind: scenario.OpLocalInvalidate, QPN: 1, Key: key},
			{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: key, Addr: 0x100, Len: 8, Type: prm.LocalRead}},
		}}
	cfg := rtl.DefaultConfig()
	cfg.OverlapInvalidate, cfg.CmdLatency = true, 0
	got := runBoth(t, "overlap", sc, cfg, nil)
	var first scenario.Result
	for _, r := range got {
		if r.Seq == 0 {
			first = r
		}
	}
	if first.Status != prm.MKeyFree {
		t.Fatalf("the access before the invalidation: %v; this test needs it to be overtaken (MKEY_FREE)", first.Status)
	}
	// Without the allowance it is a difference; a status no prefix of
	// the invalidations gives is one with it.
	for _, tc := range []struct {
		overlap bool
		status  prm.Status
		want    int
	}{{false, prm.MKeyFree, 1}, {true, prm.MKeyFree, 0}, {true, prm.PDMismatch, 1}} {
		board, err := score.NewBoard(sc, ref.Config{MaxIndirection: 4})
		if err != nil {
			t.Fatal(err)
		}
		board.Overlap = tc.overlap
		r := first
		r.Status = tc.status
		board.Check(&r)
		if board.Mismatches != tc.want {
			t.Errorf("overlap %v, %v: %d differences, want %d", tc.overlap, tc.status, board.Mismatches, tc.want)
		}
	}
}
