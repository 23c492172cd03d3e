package tb

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// translationModeCase is an operation of translationModeScenario and the
// status it ends with on a device without hca_cap.ats and on one with it.
type translationModeCase struct {
	op             scenario.Op
	noCap, withCap prm.Status
}

// translationModeScenario exercises the ma_translation_mode rules of
// CREATE_MKEY and UMR (issue 36; seed 2.2.1): every refusal, the
// combinations allowed, an ATS key created only where the device has
// hca_cap.ats, and UMRs that move the access mode under an ATS or a CAPI
// key. Accesses through the keys created show that the field changes no
// translation.
func translationModeScenario() (*scenario.Scenario, []translationModeCase) {
	sc := &scenario.Scenario{QPs: directedQPs}
	var cases []translationModeCase
	key := func(index uint32, mode prm.AccessMode, tm uint8) *scenario.MKey {
		m := prm.MKC{AccessMode: mode, PD: 1, QPN: prm.QPNNone, Variant: uint8(index), StartAddr: 0x10000, Len: 0x1000,
			LR: true, LW: true, UMREn: true, MATranslationMode: tm}
		k := &scenario.MKey{Index: index, HasIndex: true, MKC: m, PgAccess: true}
		if mode == prm.ModeMTT {
			k.MKC.LogEntitySize = 12
			k.MTT = []prm.MTTEntry{{PTag: 0x5000, RdEn: true, WrEn: true}}
			k.MKC.TranslationsOctwordSize = 4
		}
		if mode == prm.ModeFixedBufferSize {
			k.MKC.LogEntitySize = 12
		}
		return k
	}
	create := func(k *scenario.MKey, noCap, withCap prm.Status) {
		cases = append(cases, translationModeCase{scenario.Op{Kind: scenario.OpCreateMKey, Create: k}, noCap, withCap})
	}
	umr := func(index uint32, mode prm.AccessMode, noCap, withCap prm.Status) {
		cases = append(cases, translationModeCase{scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{QPN: 1,
			Key: prm.MakeKey(index, uint8(index)), Mask: prm.MaskAccessMode, Image: prm.MKC{AccessMode: mode}}}, noCap, withCap})
	}
	access := func(index uint32, noCap, withCap prm.Status) {
		cases = append(cases, translationModeCase{scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1,
			Key: prm.MakeKey(index, uint8(index)), Addr: 0x10040, Len: 64, Type: prm.LocalWrite}}, noCap, withCap})
	}
	ok, bad := prm.OK, prm.BadParam
	create(key(1, prm.ModeKLM, 1), bad, bad) // ATS on KLM
	create(key(1, prm.ModeFixedBufferSize, 1), bad, bad)
	create(key(1, prm.ModeSWICM, 1), bad, bad)
	create(key(1, prm.ModeMTT, 3), bad, bad) // CAPI on MTT
	create(key(1, prm.ModeMEMIC, 3), bad, bad)
	create(key(1, prm.ModePA, 2), bad, bad) // reserved
	create(key(1, prm.ModeMTT, 2), bad, bad)
	create(key(1, prm.ModeMTT, 1), bad, ok) // ATS on MTT: the device decides
	create(key(2, prm.ModePA, 1), bad, ok)  // ATS on PA
	create(key(3, prm.ModePA, 3), ok, ok)   // CAPI on PA
	create(key(4, prm.ModeMTT, 0), ok, ok)
	access(1, prm.BadKeyIndex, ok)
	access(2, prm.BadKeyIndex, ok)
	access(3, ok, ok)
	umr(1, prm.ModeKLM, prm.BadKeyIndex, bad) // ATS MTT -> KLM
	umr(2, prm.ModeMEMIC, prm.BadKeyIndex, bad)
	umr(2, prm.ModeMTT, prm.BadKeyIndex, ok) // ATS PA -> MTT (log_entity_size 0: BAD_ACCESS_MODE at use)
	access(2, prm.BadKeyIndex, prm.BadAccessMode)
	umr(3, prm.ModeMTT, bad, bad) // CAPI PA -> MTT
	umr(3, prm.ModePA, ok, ok)
	access(3, ok, ok)
	umr(4, prm.ModeKLM, ok, ok) // none: any mode
	for _, c := range cases {
		sc.Ops = append(sc.Ops, c.op)
	}
	return sc, cases
}

// TestTranslationModeRefusals (issue 36): both models, checked against
// each other operation by operation, refuse what the ma_translation_mode
// rules refuse, on a device without hca_cap.ats and on one with it.
func TestTranslationModeRefusals(t *testing.T) {
	for _, ats := range []bool{false, true} {
		cfg := rtl.DefaultConfig()
		cfg.HCACap.ATS = ats
		sc, cases := translationModeScenario()
		got := runBoth(t, "ma_translation_mode", sc, cfg, nil)
		for i, c := range cases {
			want := c.noCap
			if ats {
				want = c.withCap
			}
			if got[i].Status != want {
				t.Errorf("hca_cap.ats %v: seq %d %v: %v %q, want %v", ats, i, c.op.Kind, got[i].Status, got[i].Reason, want)
			}
		}
	}
}
