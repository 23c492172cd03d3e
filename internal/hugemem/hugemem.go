// Package hugemem makes large arrays that the kernel may back with 2 MB
// pages (transparent huge pages) instead of 4 KB ones.
//
// Why: the golden model's tables for a million keys span hundreds of
// megabytes read at random, and with 4 KB pages nearly every read also
// misses the TLB, whose walk (two-dimensional in a virtual machine) can
// cost more than the read. The HCA maps its ICM in large chunks for the
// same reason. Debian's default transparent_hugepage mode is madvise:
// memory gets huge pages only where the program asks for them.
package hugemem

import "unsafe"

// PageSize is the size of a huge page.
const PageSize = 2 << 20

// MinBytes is the smallest array Make advises: a smaller one would hold
// at most one huge page, not worth the system call.
const MinBytes = 2 * PageSize

// Make returns a zeroed slice of n elements, like make([]T, n). When it
// spans at least MinBytes it lies in whole 2 MB pages advised for huge
// pages: it is cut from an allocation about a huge page longer (Bytes),
// whose ends are left unused and, never touched, take no memory. The
// slice is ordinary Go memory: the collector manages it.
func Make[T any](n int) []T {
	sz, extra := layout[T](n)
	if extra == 0 {
		return make([]T, n)
	}
	s := make([]T, n+extra)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	k := int((alignUp(base) - base + sz - 1) / sz)
	// The huge pages that hold the slice, and none of the slack.
	advise(alignUp(base), alignUp(uintptr(k+n)*sz+base)-alignUp(base))
	return s[k : k+n : k+n]
}

// Bytes is what Make allocates for n elements: their size, and the slack
// that places them on whole huge pages.
func Bytes[T any](n int) uintptr {
	sz, extra := layout[T](n)
	return uintptr(n+extra) * sz
}

// layout returns the size of a T and how many more than n elements Make
// allocates (0: n, from make alone).
func layout[T any](n int) (sz uintptr, extra int) {
	var z T
	sz = unsafe.Sizeof(z)
	size := uintptr(n) * sz
	if size < MinBytes || sz == 0 || sz >= PageSize {
		return sz, 0
	}
	// The slice starts at the first element past the first huge page
	// boundary of the allocation, which a Go allocator places at least 8 KB
	// aligned, so less than a huge page in; it then ends before the
	// boundary after its size rounded up (and one element more, when
	// elements do not divide a huge page).
	end := size
	if PageSize%sz != 0 {
		end += sz
	}
	return sz, int((alignUp(end) - size + PageSize + sz - 1) / sz)
}

// alignUp rounds p up to a huge page boundary.
func alignUp(p uintptr) uintptr { return (p + PageSize - 1) &^ (PageSize - 1) }
