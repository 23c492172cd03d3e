// Package tinyfs gives a test a small file system that fills up: a tmpfs
// of a given size mounted on a temporary directory and unmounted when the
// test ends. Mounting needs root; elsewhere the test is skipped with the
// reason, unless MKEYSIM_REQUIRE_TOOLS=1 asks for every check to run.
//
//	dir := tinyfs.Mount(t, 64<<10) // 64 KiB, then ENOSPC
package tinyfs

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Mount mounts a tmpfs of size bytes (rounded up to pages by the kernel)
// on a new directory and returns it; the test's cleanup unmounts it.
func Mount(t testing.TB, size int) string {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("MKEYSIM_REQUIRE_TOOLS") == "1" {
		skip = t.Fatalf
	}
	if os.Geteuid() != 0 {
		skip("a full file system needs a tmpfs mount, which needs root (run the tests as root to try it)")
		return ""
	}
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size)+",mode=0777", "tmpfs", dir).CombinedOutput()
	if err != nil {
		skip("mount -t tmpfs: %v: %s (a container without CAP_SYS_ADMIN cannot mount)", err, strings.TrimSpace(string(out)))
		return ""
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}
