package prm

import "fmt"

// Status is the outcome of an access or command, numbered for buses and
// vectors and named as in translation.md.
type Status uint8

// The statuses, in the order of the section 4 checks first.
const (
	OK Status = iota
	IndirectionDepth
	BadKeyIndex
	KeyMismatch
	MKeyFree
	PDMismatch
	QPNMismatch
	OutOfRange
	AccessDenied
	BadAccessMode
	MisalignedAtomic
	TranslationRange
	PageAccess
	PageFault
	BadParam
	UMRCheckFree
	UMRDisabled
	UMRPDUpdate
	UMRAlignment
	UMRCapacity
	RemoteInvalidateDenied
	// IOMMUFault: a byte of a translated access lies at an IOVA the host
	// IOMMU does not map, or maps without the permission the access needs
	// (issue 36; checked after every check of translation.md 4).
	IOMMUFault
	// NoResources: a command needed ICM pages the host refused to give
	// (issue 37, seed 2.3): the PRM's MLX5_CMD_STAT_NO_RES_ERR (0xf, "no
	// resources" in the kernel's cmd_status_str, drivers/net/ethernet/
	// mellanox/mlx5/core/cmd.c).
	NoResources
	// BadResState: a MANAGE_PAGES take of a page the firmware uses (or of
	// more pages than it holds free): the PRM's
	// MLX5_CMD_STAT_BAD_RES_STATE_ERR (0x9, "bad resource state").
	BadResState
	numStatus
)

var statusNames = [numStatus]string{
	"OK", "INDIRECTION_DEPTH", "BAD_KEY_INDEX", "KEY_MISMATCH", "MKEY_FREE",
	"PD_MISMATCH", "QPN_MISMATCH", "OUT_OF_RANGE", "ACCESS_DENIED",
	"BAD_ACCESS_MODE", "MISALIGNED_ATOMIC", "TRANSLATION_RANGE",
	"PAGE_ACCESS", "PAGE_FAULT", "BAD_PARAM", "UMR_CHECK_FREE",
	"UMR_DISABLED", "UMR_PD_UPDATE", "UMR_ALIGNMENT", "UMR_CAPACITY",
	"REMOTE_INVALIDATE_DENIED", "IOMMU_FAULT", "NO_RESOURCES", "BAD_RES_STATE",
}

// String is the status name of translation.md.
func (s Status) String() string {
	if s < numStatus {
		return statusNames[s]
	}
	return fmt.Sprintf("STATUS_%d", uint8(s))
}

// Statuses lists every status, by value.
func Statuses() []Status {
	out := make([]Status, numStatus)
	for i := range out {
		out[i] = Status(i)
	}
	return out
}

// ParseStatus maps a name back to its status.
func ParseStatus(name string) (Status, bool) {
	for i, n := range statusNames {
		if n == name {
			return Status(i), true
		}
	}
	return 0, false
}
