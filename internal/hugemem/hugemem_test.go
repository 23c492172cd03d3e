package hugemem

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

type object [112]byte // the size of the golden model's MKey table slot

// TestMakeLayout: a slice of any size has n zero elements and no room
// past them; a large one starts less than an element past a huge page
// boundary, inside an allocation of Bytes that covers its last huge page.
func TestMakeLayout(t *testing.T) {
	for _, tc := range []struct {
		name  string
		make  func() (addr, sz uintptr, n int, ok bool)
		bytes uintptr
		large bool
	}{
		{"bytes, small", probe[byte](MinBytes - 1), Bytes[byte](MinBytes - 1), false},
		{"bytes, large", probe[byte](MinBytes), Bytes[byte](MinBytes), true},
		{"slots, small", probe[object](1000), Bytes[object](1000), false},
		{"slots, large", probe[object](16 * 4096), Bytes[object](16 * 4096), true},
		{"pages, large", probe[[4096]byte](2048), Bytes[[4096]byte](2048), true},
		{"pages, odd", probe[[4096]byte](1025), Bytes[[4096]byte](1025), true},
		{"16 KB blocks", probe[[16 << 10]byte](300), Bytes[[16 << 10]byte](300), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, sz, n, ok := tc.make()
			if !ok {
				t.Fatal("the slice is not n zero elements with cap n")
			}
			size := uintptr(n) * sz
			switch {
			case !tc.large && tc.bytes != size:
				t.Errorf("Bytes = %d, want %d (no slack below MinBytes)", tc.bytes, size)
			case tc.large && (tc.bytes < size || tc.bytes > size+2*PageSize+sz):
				t.Errorf("Bytes = %d for %d: slack outside [0, 2 huge pages + an element]", tc.bytes, size)
			case tc.large && addr%PageSize >= sz:
				t.Errorf("starts %d bytes past a huge page boundary, want less than an element (%d)", addr%PageSize, sz)
			}
		})
	}
}

// TestPlaceStaysInside: for every allocation address the Go runtime can
// return (8 KB aligned) and a range of element sizes and counts, the
// slice Make cuts lies inside the allocation, starts less than an element
// past a huge page boundary, and the huge pages advised hold it and lie
// inside the allocation too.
func TestPlaceStaysInside(t *testing.T) {
	sizes := []uintptr{1, 8, 112, 4096, 8192, 12 << 10, 16 << 10, 24 << 10, 1 << 20, 3 << 19}
	for _, sz := range sizes {
		for _, n := range []int{int(MinBytes / sz), int(MinBytes/sz) + 1, int(3 * PageSize / sz), int(7*PageSize/sz) + 3} {
			size := uintptr(n) * sz
			if size < MinBytes {
				continue
			}
			extra := slack(size, sz)
			for base := uintptr(64 << 20); base < 64<<20+PageSize; base += allocAlign {
				k, start, length := place(base, n, sz)
				lo, hi := base+uintptr(k)*sz, base+uintptr(k+n)*sz
				end := base + uintptr(n+extra)*sz
				switch {
				case k < 0 || k > extra:
					t.Fatalf("size %d, n %d, base %#x: slice at element %d of %d slack", sz, n, base, k, extra)
				case lo-start >= sz:
					t.Fatalf("size %d, n %d, base %#x: slice starts %d past the boundary", sz, n, base, lo-start)
				case start < base || start+length > end || start%PageSize != 0 || length%PageSize != 0:
					t.Fatalf("size %d, n %d, base %#x: advised [%#x, %#x) outside the allocation [%#x, %#x)", sz, n, base, start, start+length, base, end)
				case lo < start || hi > start+length:
					t.Fatalf("size %d, n %d, base %#x: slice [%#x, %#x) not inside the advised pages", sz, n, base, lo, hi)
				}
			}
		}
	}
}

// probe makes n Ts and reports where they start, their size, and whether
// the slice is n zero elements with cap n.
func probe[T comparable](n int) func() (uintptr, uintptr, int, bool) {
	return func() (uintptr, uintptr, int, bool) {
		s := Make[T](n)
		var z T
		ok := len(s) == n && cap(s) == n
		for i := range s {
			ok = ok && s[i] == z
		}
		return uintptr(unsafe.Pointer(unsafe.SliceData(s))), unsafe.Sizeof(z), n, ok
	}
}

// TestMakeGetsHugePages: on Linux with transparent huge pages not off,
// a slice Make returns is backed by huge pages once written.
func TestMakeGetsHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("no transparent huge pages here (%q, %v)", strings.TrimSpace(string(mode)), err)
	}
	s := Make[byte](4 * PageSize)
	for i := 0; i < len(s); i += 4096 {
		s[i] = 1
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	kb, err := anonHugeKB(addr)
	if err != nil {
		t.Fatal(err)
	}
	// All four, unless the kernel found no free 2 MB of physical memory
	// for some (compaction is best effort): half of them at least.
	if kb < 2*PageSize>>10 {
		t.Errorf("the mapping of an 8 MB slice holds %d KB of huge pages, want 8192 (4096 at least)", kb)
	}
}

// anonHugeKB reads /proc/self/smaps for the AnonHugePages of the mapping
// holding addr.
func anonHugeKB(addr uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			if _, err := fmt.Sscanf(line, "AnonHugePages: %d kB", &kb); err != nil {
				return 0, fmt.Errorf("/proc/self/smaps: %q: %v", line, err)
			}
			return kb, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("/proc/self/smaps: no mapping holds %#x", addr)
}
