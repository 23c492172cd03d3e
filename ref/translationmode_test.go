package ref_test

import (
	"strings"
	"testing"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// The ma_translation_mode values (MKC 00h 5:4, seed 2.2.1).
const (
	tmNone = 0
	tmATS  = 1
	tmRsvd = 2
	tmCAPI = 3
)

// keyInMode is an in-use key of index i in mode, valid in every other
// respect (no list), with ma_translation_mode tm.
func keyInMode(i uint32, mode prm.AccessMode, tm uint8) scenario.MKey {
	k := paKey(i, 1, 0, 0x1000, false)
	k.MKC.AccessMode = mode
	if mode == prm.ModeMTT || mode == prm.ModeFixedBufferSize {
		k.MKC.LogEntitySize = 12
	}
	k.MKC.MATranslationMode = tm
	return k
}

// TestDirectedTranslationModeCreate (issue 36): CREATE_MKEY refuses with
// BAD_PARAM, naming the field and value, ma_translation_mode 2 (reserved),
// ATS on an access mode other than PA or MTT, ATS on a device without
// hca_cap.ats, and CAPI on an access mode other than PA; each hits its
// coverage point and changes nothing. The rules hold for a free object
// too, come after the access-mode checks and before lr's.
func TestDirectedTranslationModeCreate(t *testing.T) {
	const (
		atsMode  = "ma_translation_mode ATS (1) needs access mode PA or MTT"
		atsCap   = "ma_translation_mode ATS (1) on a device without hca_cap.ats"
		capiMode = "ma_translation_mode CAPI (3) needs access mode PA"
		reserved = "reserved ma_translation_mode 2"
		capiWide = "a PCIe PASID has 20 bits"
	)
	point := map[string]cover.ID{atsMode: cover.CreateATSMode, atsCap: cover.CreateATSCap, capiMode: cover.CreateCAPIMode, reserved: cover.CreateReservedTranslation,
		capiWide: cover.CreateCAPIPASID}
	cases := []struct {
		name string
		ats  bool // hca_cap.ats
		k    scenario.MKey
		want string // words of the reason; "" for OK
	}{
		{"PA, none", false, keyInMode(1, prm.ModePA, tmNone), ""},
		{"PA, ATS, no cap", false, keyInMode(1, prm.ModePA, tmATS), atsCap},
		{"MTT, ATS, no cap", false, keyInMode(1, prm.ModeMTT, tmATS), atsCap},
		{"PA, ATS, cap", true, keyInMode(1, prm.ModePA, tmATS), ""},
		{"MTT, ATS, cap", true, keyInMode(1, prm.ModeMTT, tmATS), ""},
		{"MTT with a list, ATS, cap", true, with(mttKey(1, 1, 0, 0x2000, 12, 0x5000, 0x6000), func(k *scenario.MKey) { k.MKC.MATranslationMode = tmATS }), ""},
		{"KLM, ATS, cap", true, keyInMode(1, prm.ModeKLM, tmATS), atsMode + ", not KLM"},
		{"KLM, ATS, no cap: the mode first", false, keyInMode(1, prm.ModeKLM, tmATS), atsMode + ", not KLM"},
		{"KLM with a list, ATS", true, with(klmKey(1, 1, 0, 0x1000, kent(16, 0, 0)), func(k *scenario.MKey) { k.MKC.MATranslationMode = tmATS }), atsMode},
		{"FIXED_BUFFER_SIZE, ATS", true, keyInMode(1, prm.ModeFixedBufferSize, tmATS), atsMode + ", not FIXED_BUFFER_SIZE"},
		{"SW_ICM, ATS", true, keyInMode(1, prm.ModeSWICM, tmATS), atsMode + ", not SW_ICM"},
		{"MEMIC, ATS", true, keyInMode(1, prm.ModeMEMIC, tmATS), atsMode + ", not MEMIC"},
		{"PA, CAPI", false, keyInMode(1, prm.ModePA, tmCAPI), ""},
		{"PA, CAPI, cap", true, keyInMode(1, prm.ModePA, tmCAPI), ""},
		{"MTT, CAPI", true, keyInMode(1, prm.ModeMTT, tmCAPI), capiMode + ", not MTT"},
		{"PA, CAPI, pasid 0xfffff", false, with(keyInMode(1, prm.ModePA, tmCAPI), func(k *scenario.MKey) { k.MKC.PASID = 0xfffff }), ""},
		{"PA, CAPI, pasid 0x100000", false, with(keyInMode(1, prm.ModePA, tmCAPI), func(k *scenario.MKey) { k.MKC.PASID = 0x100000 }), capiWide},
		{"PA, none, pasid 0xffffff: not looked at", false, with(keyInMode(1, prm.ModePA, tmNone), func(k *scenario.MKey) { k.MKC.PASID = 0xffffff }), ""},
		{"MTT, CAPI, wide pasid: the mode first", false, with(keyInMode(1, prm.ModeMTT, tmCAPI), func(k *scenario.MKey) { k.MKC.PASID = 0xffffff }), capiMode},
		{"KLM, CAPI", false, keyInMode(1, prm.ModeKLM, tmCAPI), capiMode + ", not KLM"},
		{"SW_ICM, CAPI", false, keyInMode(1, prm.ModeSWICM, tmCAPI), capiMode + ", not SW_ICM"},
		{"PA, 2", false, keyInMode(1, prm.ModePA, tmRsvd), reserved},
		{"MTT, 2, cap", true, keyInMode(1, prm.ModeMTT, tmRsvd), reserved},
		{"KLM, 2", true, keyInMode(1, prm.ModeKLM, tmRsvd), reserved},
		{"free, KLM, ATS", true, with(keyInMode(1, prm.ModeKLM, tmATS), func(k *scenario.MKey) { k.MKC.Free, k.MKC.LR = true, false }), atsMode},
		{"free, PA, ATS, no cap", false, with(keyInMode(1, prm.ModePA, tmATS), func(k *scenario.MKey) { k.MKC.Free = true }), atsCap},
		// The order: the access-mode checks first, then these, then lr.
		{"reserved access mode before ATS", true, keyInMode(1, 6, tmATS), "reserved access mode"},
		{"reserved access mode before 2", false, keyInMode(1, 0x1f, tmRsvd), "reserved access mode"},
		{"log_entity_size before CAPI", false, with(keyInMode(1, prm.ModeMTT, tmCAPI), func(k *scenario.MKey) { k.MKC.LogEntitySize = 11 }), "log_entity_size"},
		{"list type before ATS", true, with(keyInMode(1, prm.ModeKLM, tmATS), func(k *scenario.MKey) { k.MTT = mttEntries([]uint64{0x5000}); k.MKC.TranslationsOctwordSize = 4 }), "an MTT list needs"},
		{"ATS cap before lr", false, with(keyInMode(1, prm.ModePA, tmATS), func(k *scenario.MKey) { k.MKC.LR = false }), atsCap},
		{"CAPI before an index taken", false, with(keyInMode(9, prm.ModeMTT, tmCAPI), func(k *scenario.MKey) {}), capiMode},
	}
	for _, c := range cases {
		cov := cover.New()
		cfg := ref.DefaultConfig()
		cfg.ATS, cfg.Coverage = c.ats, cov
		m := newModel(cfg)
		mustCreate(t, m, keyInMode(9, prm.ModePA, tmNone)) // index 9 taken
		idx, r := m.Create(c.k)
		switch {
		case c.want == "" && r != nil:
			t.Errorf("%s: refused: %v %s", c.name, r.Status, r.Reason)
		case c.want == "":
			q, _ := m.Query(idx)
			if q.MKC.MATranslationMode != c.k.MKC.MATranslationMode {
				t.Errorf("%s: ma_translation_mode %d kept, want %d", c.name, q.MKC.MATranslationMode, c.k.MKC.MATranslationMode)
			}
		case r == nil:
			t.Errorf("%s: created, want BAD_PARAM naming %q", c.name, c.want)
		case r.Status != prm.BadParam || !strings.Contains(r.Reason, c.want):
			t.Errorf("%s: %v %q, want BAD_PARAM naming %q", c.name, r.Status, r.Reason, c.want)
		default:
			if m.Objects() != 1 {
				t.Errorf("%s: %d objects after a refused create, want 1", c.name, m.Objects())
			}
		}
		for want, id := range point {
			if hit := cov.Count(id) > 0; hit != (r != nil && strings.Contains(r.Reason, want)) {
				t.Errorf("%s: %s hit %d times", c.name, cover.NameOf(id), cov.Count(id))
			}
		}
	}
}

// TestDirectedTranslationModeUMR (issue 36): no mkey_ctx_mask bit writes
// ma_translation_mode, but bit 16 (access_mode) moves the mode under it:
// a UMR whose context would break CREATE_MKEY's rules (ATS off PA and
// MTT, CAPI off PA) is refused with BAD_PARAM, after every check before
// the list's and before the list's, and changes nothing.
func TestDirectedTranslationModeUMR(t *testing.T) {
	mode := func(am prm.AccessMode) scenario.UMR {
		return scenario.UMR{QPN: qpA, Mask: prm.MaskAccessMode, Image: prm.MKC{AccessMode: am}}
	}
	cases := []struct {
		name   string
		ats    bool
		target scenario.MKey
		u      scenario.UMR
		want   prm.Status
		reason string
	}{
		{"ATS MTT -> KLM", true, keyInMode(1, prm.ModeMTT, tmATS), mode(prm.ModeKLM), prm.BadParam, "after the UMR, ma_translation_mode ATS (1) needs access mode PA or MTT, not KLM"},
		{"ATS PA -> FIXED_BUFFER_SIZE", true, keyInMode(1, prm.ModePA, tmATS), mode(prm.ModeFixedBufferSize), prm.BadParam, "not FIXED_BUFFER_SIZE"},
		{"ATS MTT -> a reserved mode", true, keyInMode(1, prm.ModeMTT, tmATS), mode(6), prm.BadParam, "ATS (1) needs access mode PA or MTT"},
		{"ATS MTT -> PA", true, keyInMode(1, prm.ModeMTT, tmATS), mode(prm.ModePA), prm.OK, ""},
		{"ATS PA -> MTT", true, keyInMode(1, prm.ModePA, tmATS), mode(prm.ModeMTT), prm.OK, ""},
		{"CAPI PA -> MTT", false, keyInMode(1, prm.ModePA, tmCAPI), mode(prm.ModeMTT), prm.BadParam, "after the UMR, ma_translation_mode CAPI (3) needs access mode PA, not MTT"},
		{"CAPI PA -> PA", false, keyInMode(1, prm.ModePA, tmCAPI), mode(prm.ModePA), prm.OK, ""},
		{"CAPI PA, rights only", false, keyInMode(1, prm.ModePA, tmCAPI), scenario.UMR{QPN: qpA, Mask: prm.MaskRW}, prm.OK, ""},
		{"none KLM -> SW_ICM", false, keyInMode(1, prm.ModeKLM, tmNone), mode(prm.ModeSWICM), prm.OK, ""},
		// The order: the earlier checks win; this one comes before the list's.
		{"PD_MISMATCH first", false, keyInMode(1, prm.ModePA, tmCAPI), with2(mode(prm.ModeMTT), func(u *scenario.UMR) { u.QPN = qpB }), prm.PDMismatch, ""},
		{"UMR_PD_UPDATE first", false, keyInMode(1, prm.ModePA, tmCAPI), with2(mode(prm.ModeMTT), func(u *scenario.UMR) { u.Mask |= prm.MaskPD; u.Image.PD = pdA }), prm.UMRPDUpdate, ""},
		{"before the list type", false, keyInMode(1, prm.ModePA, tmCAPI), with2(mode(prm.ModeKLM), func(u *scenario.UMR) { u.MTT = mttEntries([]uint64{0x5000}) }), prm.BadParam, "CAPI (3) needs access mode PA, not KLM"},
		{"before UMR_ALIGNMENT", true, keyInMode(1, prm.ModeMTT, tmATS), with2(mode(prm.ModeKLM), func(u *scenario.UMR) { u.KLM = []prm.KLMEntry{kent(16, 0, 0)}; u.Offset = 2 }), prm.BadParam, "ATS (1) needs access mode PA or MTT"},
	}
	for _, c := range cases {
		cov := cover.New()
		cfg := ref.DefaultConfig()
		cfg.ATS, cfg.Coverage = c.ats, cov
		m := newModel(cfg)
		c.u.Key = mustCreate(t, m, c.target)
		before, _ := m.Query(1)
		r := m.UMR(c.u)
		got := prm.OK
		if r != nil {
			got = r.Status
		}
		switch {
		case got != c.want:
			t.Errorf("%s: %v, want %v", c.name, r, c.want)
		case r != nil && !strings.Contains(r.Reason, c.reason):
			t.Errorf("%s: reason %q, want %q", c.name, r.Reason, c.reason)
		}
		if after, _ := m.Query(1); r != nil && !sameQuery(before, after) {
			t.Errorf("%s: a refused UMR changed the key", c.name)
		}
		if hit := cov.Count(cover.UMRTranslationMode) > 0; hit != (c.reason != "" && c.want == prm.BadParam) {
			t.Errorf("%s: umr.refused.translation_mode hit %d times", c.name, cov.Count(cover.UMRTranslationMode))
		}
	}
}

func with2(u scenario.UMR, f func(*scenario.UMR)) scenario.UMR {
	f(&u)
	return u
}
