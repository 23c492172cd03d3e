package tb

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// TestListAllocatorReach fills the list area with the largest lists the
// allocator hands out until CREATE_MKEY refuses one (translation.md 3.2:
// no list may end past 2^48), then checks that the refusal did not move
// the allocator, and that a key of another PD created next cannot be
// rewritten or reached through a wrapped handle. Both models must agree
// line for line; before the rule, the clocked model stored a handle that
// wrapped to the MKC table.
func TestListAllocatorReach(t *testing.T) {
	const cap = 0xfffffffc // octwords: 16 x cap bytes a list
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 5}, {QPN: 2, PD: 6}}}
	big := func(i uint32) scenario.Op {
		return scenario.Op{Kind: scenario.OpCreateMKey, Create: &scenario.MKey{Index: i, HasIndex: true, PgAccess: true,
			MKC: prm.MKC{AccessMode: prm.ModeKLM, PD: 5, Free: true, UMREn: true, QPN: prm.QPNNone, TranslationsOctwordSize: cap}}}
	}
	// (2^48 - 2^32) / (16 cap) lists fit; the next one does not.
	fit := (uint64(prm.HandleReach) - 0x1_0000_0000) / (16 * cap)
	for i := uint64(0); i <= fit; i++ {
		sc.Ops = append(sc.Ops, big(uint32(i+1)))
	}
	// A small list still fits in what is left, at the allocator's place.
	small := scenario.MKey{Index: 0x9000, HasIndex: true, PgAccess: true,
		MKC: prm.MKC{AccessMode: prm.ModeMTT, LogEntitySize: 12, PD: 6, LR: true, RW: true, QPN: prm.QPNNone, Len: 4096, TranslationsOctwordSize: 4},
		MTT: []prm.MTTEntry{{PTag: 0x7000, RdEn: true, WrEn: true}}}
	sc.Ops = append(sc.Ops,
		scenario.Op{Kind: scenario.OpCreateMKey, Create: &small},
		scenario.Op{Kind: scenario.OpQueryMKey, Index: 0x9000},
		// PD 5's UMR must not reach PD 6's key, and PD 6's data stays put.
		scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{QPN: 1, Key: prm.MakeKey(0x9000, 0), Mask: prm.MaskPD, Image: prm.MKC{PD: 5}}},
		scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(0x9000, 0), Addr: 0, Len: 8, Type: prm.RemoteWrite}},
		scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 2, Key: prm.MakeKey(0x9000, 0), Addr: 0, Len: 8, Type: prm.RemoteWrite}},
	)
	cfg := rtl.DefaultConfig()
	got := runBoth(t, "allocator reach", sc, cfg, nil)
	n := int(fit)
	for i := 0; i < n; i++ {
		if got[i].Status != prm.OK {
			t.Fatalf("create %d of %d that fit: %v %s", i, n, got[i].Status, got[i].Reason)
		}
	}
	if got[n].Status != prm.BadParam {
		t.Fatalf("the create past 2^48: %v, want BAD_PARAM", got[n].Status)
	}
	q := got[n+2]
	wantHandle := 0x1_0000_0000 + fit*16*cap
	if q.Status != prm.OK || q.MKC.MTTHandle != wantHandle {
		t.Fatalf("query after the refusal: %v handle %#x, want OK at %#x (the allocator did not advance)", q.Status, q.MKC.MTTHandle, wantHandle)
	}
	if got[n+3].Status != prm.PDMismatch || got[n+4].Status != prm.PDMismatch || got[n+5].Status != prm.OK {
		t.Fatalf("isolation after the refusal: umr %v, foreign access %v, own access %v", got[n+3].Status, got[n+4].Status, got[n+5].Status)
	}
}
