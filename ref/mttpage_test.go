package ref

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// TestMTTEntriesAcrossPages: the MTT walk reads each entry from its ICM
// page (one lookup per page it enters), also when a list straddles a page
// boundary and when a handle that is not a multiple of 8 (which CREATE and
// UMR refuse, set here behind their back) puts an entry across two pages.
func TestMTTEntriesAcrossPages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		handle uint64
	}{
		{"one page", HandleBase},
		{"straddles aligned", HandleBase + pageSize - 16},
		{"entry across pages", HandleBase + pageSize - 12},
		{"not in any page written", HandleBase + 1<<30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(DefaultConfig())
			m.AddQP(scenario.QP{QPN: 1, PD: 7})
			mkc := prm.MKC{AccessMode: prm.ModeMTT, LR: true, PD: 7, QPN: 0xffffff, StartAddr: 0x10000, Len: 4 << 12,
				LogEntitySize: 12, TranslationsOctwordSize: 4}
			if _, r := m.Create(scenario.MKey{Index: 5, HasIndex: true, MKC: mkc}); r != nil {
				t.Fatal(r)
			}
			// Create placed the list at the allocator's handle: move it.
			m.Object(5).MKC.MTTHandle = tc.handle
			written := tc.handle != HandleBase+1<<30
			var want []prm.Segment
			for i := range uint64(4) {
				ptag := uint64(0xabc000) + i*0x1000
				if written {
					m.ICM().Write(tc.handle+8*i, prm.MTTEntry{PTag: ptag, RdEn: true, WrEn: true}.Append(nil))
				}
				want = append(want, prm.Segment{Space: prm.SpaceDMA, Addr: ptag, Len: 1 << 12})
			}
			out := m.Translate(Request{QPN: 1, Key: prm.MakeKey(5, 0), Type: prm.LocalRead, Addr: 0x10000, Len: 4 << 12}, nil)
			if !written {
				if out.Status != prm.PageAccess {
					t.Fatalf("entries never written (zero, not readable): status %v, want PAGE_ACCESS", out.Status)
				}
				return
			}
			if out.Status != prm.OK || len(out.Segments) != 4 {
				t.Fatalf("status %v, %d segments: %+v", out.Status, len(out.Segments), out.Segments)
			}
			for i, s := range out.Segments {
				if s != want[i] {
					t.Errorf("segment %d: %+v, want %+v", i, s, want[i])
				}
			}
		})
	}
}
