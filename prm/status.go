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
	numStatus
)

var statusNames = [numStatus]string{
	"OK", "INDIRECTION_DEPTH", "BAD_KEY_INDEX", "KEY_MISMATCH", "MKEY_FREE",
	"PD_MISMATCH", "QPN_MISMATCH", "OUT_OF_RANGE", "ACCESS_DENIED",
	"BAD_ACCESS_MODE", "MISALIGNED_ATOMIC", "TRANSLATION_RANGE",
	"PAGE_ACCESS", "PAGE_FAULT", "BAD_PARAM", "UMR_CHECK_FREE",
	"UMR_DISABLED", "UMR_PD_UPDATE", "UMR_ALIGNMENT", "UMR_CAPACITY",
	"REMOTE_INVALIDATE_DENIED", "IOMMU_FAULT",
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
