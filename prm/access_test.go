package prm_test

import (
	"reflect"
	"testing"

	"mkeysim/prm"
)

// TestAccessTypes: the table of translation.md 1, access type -> MKC right
// and MTT page bits.
func TestAccessTypes(t *testing.T) {
	rights := []string{"lr", "lw", "rr", "rw", "a"}
	for _, c := range []struct {
		t      prm.AccessType
		name   string
		right  string
		rd, wr bool
	}{
		{prm.LocalRead, "LOCAL_READ", "lr", true, false},
		{prm.LocalWrite, "LOCAL_WRITE", "lw", false, true},
		{prm.RemoteRead, "REMOTE_READ", "rr", true, false},
		{prm.RemoteWrite, "REMOTE_WRITE", "rw", false, true},
		{prm.RemoteAtomic, "REMOTE_ATOMIC", "a", true, true},
	} {
		if c.t.String() != c.name {
			t.Errorf("%d: String %q, want %q", c.t, c.t.String(), c.name)
		}
		if p, ok := prm.ParseAccessType(c.name); !ok || p != c.t {
			t.Errorf("ParseAccessType(%s) = %v, %v", c.name, p, ok)
		}
		var only, allBut prm.MKC
		for _, r := range rights {
			if err := allBut.Set(r, 1); err != nil {
				t.Fatal(err)
			}
		}
		_ = only.Set(c.right, 1)
		_ = allBut.Set(c.right, 0)
		if !c.t.Permitted(&only) || c.t.Permitted(&allBut) {
			t.Errorf("%s: Permitted needs %s alone", c.name, c.right)
		}
		if c.t.NeedsRead() != c.rd || c.t.NeedsWrite() != c.wr {
			t.Errorf("%s: needs rd %v wr %v", c.name, c.t.NeedsRead(), c.t.NeedsWrite())
		}
		for _, e := range []prm.MTTEntry{{}, {RdEn: true}, {WrEn: true}, {RdEn: true, WrEn: true}} {
			want := (!c.rd || e.RdEn) && (!c.wr || e.WrEn)
			if c.t.PageAllows(e) != want {
				t.Errorf("%s: PageAllows(rd %v wr %v) = %v", c.name, e.RdEn, e.WrEn, !want)
			}
		}
	}
	if got := prm.AccessTypes(); !reflect.DeepEqual(got, []prm.AccessType{prm.LocalRead, prm.LocalWrite, prm.RemoteRead, prm.RemoteWrite, prm.RemoteAtomic}) {
		t.Errorf("AccessTypes = %v", got)
	}
	if _, ok := prm.ParseAccessType("local_read"); ok {
		t.Error("ParseAccessType is case-insensitive")
	}
	if s := prm.AccessType(9).String(); s == "" {
		t.Error("empty name for an unknown access type")
	}
	for sp, want := range map[prm.Space]string{prm.SpaceDMA: "dma", prm.SpaceSWICM: "sw_icm", prm.SpaceMEMIC: "memic"} {
		if sp.String() != want {
			t.Errorf("Space %d = %q, want %q", sp, sp.String(), want)
		}
	}
}

// TestStatuses: every status name of translation.md, each parsing back.
func TestStatuses(t *testing.T) {
	want := []string{
		"OK", "INDIRECTION_DEPTH", "BAD_KEY_INDEX", "KEY_MISMATCH", "MKEY_FREE",
		"PD_MISMATCH", "QPN_MISMATCH", "OUT_OF_RANGE", "ACCESS_DENIED",
		"BAD_ACCESS_MODE", "MISALIGNED_ATOMIC", "TRANSLATION_RANGE",
		"PAGE_ACCESS", "PAGE_FAULT", "BAD_PARAM", "UMR_CHECK_FREE",
		"UMR_DISABLED", "UMR_PD_UPDATE", "UMR_ALIGNMENT", "UMR_CAPACITY",
		"REMOTE_INVALIDATE_DENIED", "IOMMU_FAULT", "NO_RESOURCES", "BAD_RES_STATE",
	}
	all := prm.Statuses()
	if len(all) != len(want) {
		t.Fatalf("%d statuses, want %d", len(all), len(want))
	}
	for i, s := range all {
		if s.String() != want[i] {
			t.Errorf("status %d = %q, want %q", i, s, want[i])
		}
		if p, ok := prm.ParseStatus(want[i]); !ok || p != s {
			t.Errorf("ParseStatus(%s) = %v, %v", want[i], p, ok)
		}
	}
	if prm.OK != 0 || prm.PageFault.String() != "PAGE_FAULT" {
		t.Error("OK is not the zero status")
	}
	if _, ok := prm.ParseStatus("NOPE"); ok {
		t.Error("ParseStatus(NOPE) accepted")
	}
	if s := prm.Status(200).String(); s != "STATUS_200" {
		t.Errorf("unknown status = %q", s)
	}
}
