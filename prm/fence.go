package prm

import "fmt"

// The ordering of a UMR (or a local invalidate, which is a UMR) against
// the other WQEs of its send queue (mlx5-facts.md; issue 37 part 2). A
// send queue starts its WQEs in the order posted; what a fence changes is
// whether a WQE waits for earlier ones to complete before it starts:
//
//   - a WQE whose mode has the initiator small fence (INITIATOR_SMALL,
//     SMALL_AND_FENCE) or is STRONG_ORDERING waits until every earlier UMR
//     and local invalidate of its queue has completed, and so translates
//     with the new mapping;
//   - a UMR posted with STRONG_ORDERING holds every later WQE until it
//     completes;
//   - otherwise (NONE, FENCE: the plain fence waits for earlier RDMA READs
//     and atomics, not for registrations) a later WQE may start while the
//     UMR is still running, and its translation may see the old mapping
//     or the new one (MayPass).
//
// The device's umr_fence capability says which mode a UMR needs to be
// ordered after the WQEs before it (UMRFenceCap.Orders); the Linux driver
// posts that mode on every UMR it makes (KernelUMRFence) and the initiator
// small fence on the WQE after it (KernelNextFence).

// UMRFenceCap is the device's umr_fence capability (HCA_CAP): the fence a
// UMR WQE must carry to be ordered after the WQEs before it.
type UMRFenceCap uint8

// The umr_fence capabilities (MLX5_CAP_UMR_FENCE_*); 3 is reserved.
const (
	UMRFenceStrong UMRFenceCap = 0 // a UMR needs STRONG_ORDERING
	UMRFenceSmall  UMRFenceCap = 1 // a UMR needs the initiator small fence
	UMRFenceNone   UMRFenceCap = 2 // a UMR is ordered whatever its mode
)

var umrFenceNames = [...]string{"strong", "small", "none"}

// String is the capability's name as config files write it.
func (c UMRFenceCap) String() string {
	if int(c) < len(umrFenceNames) {
		return umrFenceNames[c]
	}
	return fmt.Sprintf("%d", uint8(c))
}

// ParseUMRFenceCap reads a capability by name (strong, small, none) or
// number (0, 1, 2).
func ParseUMRFenceCap(s string) (UMRFenceCap, bool) {
	for i, n := range umrFenceNames {
		if s == n || s == fmt.Sprint(i) {
			return UMRFenceCap(i), true
		}
	}
	return 0, false
}

// Orders reports whether a UMR posted with mode m on a device with this
// capability waits for the WQEs before it on its queue to complete. The
// clocked model never lets a UMR change a translation in progress: one
// that does not wait for them waits for their translations alone, and
// their data may still be moving when it takes effect.
func (c UMRFenceCap) Orders(m FenceMode) bool {
	switch c {
	case UMRFenceNone:
		return true
	case UMRFenceSmall:
		return m == FenceInitiatorSmall || m == FenceSmallAndFence || m == FenceStrongOrdering
	}
	return m == FenceStrongOrdering
}

// KernelUMRFence is the mode the Linux driver posts on a UMR for the
// device's capability: mlx5_get_umr_fence in
// drivers/infiniband/hw/mlx5/main.c (NONE -> NONE, SMALL ->
// INITIATOR_SMALL, anything else -> STRONG_ORDERING).
func KernelUMRFence(c UMRFenceCap) FenceMode {
	switch c {
	case UMRFenceNone:
		return FenceNone
	case UMRFenceSmall:
		return FenceInitiatorSmall
	}
	return FenceStrongOrdering
}

// KernelNextFence is the mode the Linux driver posts on a WQE that is not
// a UMR: the initiator small fence right after a registration (a UMR or a
// local invalidate: qp->next_fence, set to MLX5_FENCE_MODE_INITIATOR_SMALL
// in drivers/infiniband/hw/mlx5/wr.c), none otherwise (get_fence there,
// without IB_SEND_FENCE).
func KernelNextFence(afterRegistration bool) FenceMode {
	if afterRegistration {
		return FenceInitiatorSmall
	}
	return FenceNone
}

// WaitsForRegistrations reports whether a WQE with this mode starts only
// after every earlier UMR and local invalidate of its queue completed.
func (f FenceMode) WaitsForRegistrations() bool {
	return f == FenceInitiatorSmall || f == FenceSmallAndFence || f == FenceStrongOrdering
}

// MayPass reports whether a WQE posted with mode later after a UMR or
// local invalidate posted with mode umr, on the same send queue, may
// start before it completes.
func MayPass(later, umr FenceMode) bool {
	return !later.WaitsForRegistrations() && umr != FenceStrongOrdering
}

var fenceNames = [...]string{"none", "initiator_small", "fence", "strong_ordering", "small_and_fence"}

// Name is the mode's name in a scenario (lower case).
func (f FenceMode) Name() string {
	if int(f) < len(fenceNames) {
		return fenceNames[f]
	}
	return fmt.Sprintf("%d", uint8(f))
}

// FenceNames lists the scenario names of the five modes, by value.
func FenceNames() []string { return fenceNames[:] }

// ParseFenceMode reads a mode by its scenario name.
func ParseFenceMode(s string) (FenceMode, bool) {
	for i, n := range fenceNames {
		if s == n {
			return FenceMode(i), true
		}
	}
	return 0, false
}
