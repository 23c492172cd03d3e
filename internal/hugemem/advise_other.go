//go:build !linux

package hugemem

// advise does nothing where there is no madvise(MADV_HUGEPAGE).
func advise(start, n uintptr) {}
