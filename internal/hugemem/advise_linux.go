package hugemem

import "golang.org/x/sys/unix"

// advise asks for huge pages over the n bytes at start, both multiples
// of PageSize: MADV_HUGEPAGE, so that a page fault there maps a huge
// page, then MADV_COLLAPSE (Linux 6.1), so that pages already present,
// as in memory the Go allocator reuses and zeroes, are gathered into huge
// ones now instead of by khugepaged at its own pace. Both are advice: a kernel
// without transparent huge pages, or with them set to never, refuses
// them, and the memory works as before.
func advise(start, n uintptr) {
	unix.Syscall(unix.SYS_MADVISE, start, n, unix.MADV_HUGEPAGE)
	unix.Syscall(unix.SYS_MADVISE, start, n, unix.MADV_COLLAPSE)
}
