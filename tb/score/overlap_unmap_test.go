package score

import (
	"testing"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// TestUnmappedOverlap: which IOMMU_FAULTs an iommu_unmap that overtook an
// OK access allows: a byte of the access's DMA segments, at the IOVA the
// scenario order translated it from, inside an unmapped range.
func TestUnmappedOverlap(t *testing.T) {
	want := &scenario.Result{Op: scenario.OpAccess, Status: prm.OK, Segments: []prm.Segment{
		{Space: prm.SpaceDMA, Addr: 0x10000, Len: 0x3000},
		{Space: prm.SpaceSWICM, Addr: 0x500, Len: 0x100},
		{Space: prm.SpaceDMA, Addr: 0x80000, Len: 0x1000},
	}}
	unmaps := []*scenario.IOMMUUnmap{{IOVA: 0x11000, Size: 0x1000}, {IOVA: 0x80000, Size: 0x1000}}
	for _, c := range []struct {
		name      string
		off, iova uint64
		legal     bool
	}{
		{"first byte of the unmapped page", 0x1000, 0x11000, true},
		{"a byte in it", 0x1800, 0x11800, true},
		{"a byte before it, still mapped", 0x800, 0x10800, false},
		{"a byte after it, still mapped", 0x2000, 0x12000, false},
		{"an IOVA that is not the byte's", 0x1000, 0x12000, false},
		{"a SW ICM byte", 0x3010, 0x510, false},
		{"the third segment, another unmap", 0x3100, 0x80000, true},
		{"past the access", 0x5000, 0x81000, false},
	} {
		got := &scenario.Result{Op: scenario.OpAccess, Status: prm.IOMMUFault, Offset: c.off, FaultAddr: c.iova}
		if ok := unmappedOverlap(got, want, unmaps); ok != c.legal {
			t.Errorf("%s: legal %v, want %v", c.name, ok, c.legal)
		}
	}
	if unmappedOverlap(&scenario.Result{Status: prm.IOMMUFault, Offset: 0x1000, FaultAddr: 0x11000}, want, nil) {
		t.Error("a fault with no unmap after the access is legal")
	}
}
