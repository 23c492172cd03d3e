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
