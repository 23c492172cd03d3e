package prm

import "testing"

// TestFenceRules: the ordering table of docs/host.md, "Fences", mode by
// mode, and the Linux driver's modes per capability.
func TestFenceRules(t *testing.T) {
	waits := map[FenceMode]bool{FenceNone: false, FenceInitiatorSmall: true, FenceFence: false, FenceStrongOrdering: true, FenceSmallAndFence: true}
	for m, want := range waits {
		if got := m.WaitsForRegistrations(); got != want {
			t.Errorf("%v waits for registrations: %v, want %v", m, got, want)
		}
		for u := FenceNone; u <= FenceSmallAndFence; u++ {
			if got, want := MayPass(m, u), !want && u != FenceStrongOrdering; got != want {
				t.Errorf("MayPass(%v, %v) = %v, want %v", m, u, got, want)
			}
		}
	}
	orders := []struct {
		c    UMRFenceCap
		want [5]bool // by mode 0..4
	}{
		{UMRFenceStrong, [5]bool{false, false, false, true, false}},
		{UMRFenceSmall, [5]bool{false, true, false, true, true}},
		{UMRFenceNone, [5]bool{true, true, true, true, true}},
	}
	for _, o := range orders {
		for m := FenceNone; m <= FenceSmallAndFence; m++ {
			if got := o.c.Orders(m); got != o.want[m] {
				t.Errorf("%v.Orders(%v) = %v, want %v", o.c, m, got, o.want[m])
			}
		}
		// The driver's mode for a UMR always orders it on its device.
		if !o.c.Orders(KernelUMRFence(o.c)) {
			t.Errorf("%v: the driver's UMR mode %v does not order it", o.c, KernelUMRFence(o.c))
		}
	}
	if KernelUMRFence(UMRFenceStrong) != FenceStrongOrdering || KernelUMRFence(UMRFenceSmall) != FenceInitiatorSmall || KernelUMRFence(UMRFenceNone) != FenceNone {
		t.Error("KernelUMRFence is not mlx5_get_umr_fence")
	}
	if KernelNextFence(true) != FenceInitiatorSmall || KernelNextFence(false) != FenceNone {
		t.Error("KernelNextFence is not the driver's next_fence")
	}
	for i, n := range FenceNames() {
		if m, ok := ParseFenceMode(n); !ok || m != FenceMode(i) || m.Name() != n {
			t.Errorf("fence name %q: %v %v", n, m, ok)
		}
	}
	for _, s := range []string{"strong", "small", "none", "0", "1", "2"} {
		if _, ok := ParseUMRFenceCap(s); !ok {
			t.Errorf("umr_fence %q refused", s)
		}
	}
	if _, ok := ParseUMRFenceCap("3"); ok {
		t.Error("umr_fence 3 (reserved) taken")
	}
}
