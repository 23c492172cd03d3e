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
	k, start, length := place(uintptr(unsafe.Pointer(unsafe.SliceData(s))), n, sz)
	advise(start, length)
	return s[k : k+n : k+n]
}

// Bytes is what Make allocates for n elements: their size, and the slack
// that places them on whole huge pages.
func Bytes[T any](n int) uintptr {
	sz, extra := layout[T](n)
	return uintptr(n+extra) * sz
}

// allocAlign is the alignment of a large allocation of the Go runtime
// (its page size).
const allocAlign = 8 << 10

// layout returns the size of a T and how many more than n elements Make
// allocates (0: n, from make alone).
func layout[T any](n int) (sz uintptr, extra int) {
	var z T
	sz = unsafe.Sizeof(z)
	return sz, slack(uintptr(n)*sz, sz)
}

// slack is how many elements of sz bytes Make allocates past size bytes
// of them (0: none, and no advice).
func slack(size, sz uintptr) int {
	if size < MinBytes || sz == 0 || sz >= PageSize {
		return 0
	}
	// The slice starts at the first element past the first huge page
	// boundary of the allocation, less than a huge page in: on the
	// boundary when elements divide the allocation's alignment, else up
	// to an element past it. It then ends before the huge page boundary
	// after that.
	end := size
	if allocAlign%sz != 0 {
		end += sz
	}
	return int((alignUp(end) - size + PageSize + sz - 1) / sz)
}

// place returns, for an allocation at base of n elements of size sz and
// the slack layout gives, the first element of the slice Make returns
// and the huge pages that hold it, none of them past the allocation.
func place(base uintptr, n int, sz uintptr) (k int, start, length uintptr) {
	k = int((alignUp(base) - base + sz - 1) / sz)
	start = alignUp(base)
	return k, start, alignUp(base+uintptr(k+n)*sz) - start
}

// alignUp rounds p up to a huge page boundary.
func alignUp(p uintptr) uintptr { return (p + PageSize - 1) &^ (PageSize - 1) }
