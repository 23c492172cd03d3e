package outfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mkeysim/internal/tinyfs"
)

// entries lists dir's names, hidden ones (temporaries) included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestCommitPutsTheFileInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	os.WriteFile(path, []byte("old\n"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	data := bytes.Repeat([]byte("0123456789abcdef"), 10000) // past the buffer
	f.Write(data)
	f.WriteString("end\n")
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Fatalf("before Commit the path holds %q, want the old file", got)
	}
	if n := len(entries(t, dir)); n != 2 {
		t.Fatalf("while writing the directory holds %v, want the file and one temporary", entries(t, dir))
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, append(data, "end\n"...)) {
		t.Fatalf("committed %d bytes, want %d", len(got), len(data)+4)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("after Commit the directory holds %v, want only r.jsonl", names)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm()&0o044 == 0 {
		t.Fatalf("mode %v: want the mode os.Create gives", fi.Mode())
	}
}

func TestAbortLeavesThePathAsItWas(t *testing.T) {
	for _, old := range []string{"", "old\n"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.json")
		if old != "" {
			os.WriteFile(path, []byte(old), 0o644)
		}
		f, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("new"))
		f.Abort()
		f.Abort() // twice is harmless
		got, err := os.ReadFile(path)
		if old == "" && !os.IsNotExist(err) || old != "" && string(got) != old {
			t.Errorf("old %q: after Abort the path holds %q (%v)", old, got, err)
		}
		if want := map[bool]int{true: 0, false: 1}[old == ""]; len(entries(t, dir)) != want {
			t.Errorf("old %q: after Abort the directory holds %v", old, entries(t, dir))
		}
		if err := f.Commit(); err != nil {
			t.Errorf("Commit after Abort: %v, want nothing done", err)
		}
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		path    string
		want    string
		badPath bool
	}{
		{filepath.Join(dir, "missing", "x.json"), "missing/x.json: cannot create: no such file or directory", true},
		{filepath.Join(file, "x.json"), "file/x.json: cannot create: not a directory", true},
		{dir, ": cannot create: is a directory", true},
	} {
		_, err := Create(c.path)
		var e *Error
		if !errors.As(err, &e) || !strings.HasSuffix(err.Error(), c.want) || e.BadPath() != c.badPath || IsBadPath(err) != c.badPath {
			t.Errorf("Create(%q) = %v, want an *Error ending %q, BadPath %v", c.path, err, c.want, c.badPath)
		}
	}
}

// /dev/full takes the open and refuses every write: the error comes at
// the latest from Commit, as a write, and names the path given.
func TestDeviceFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	for _, size := range []int{10, bufSize + 1} {
		f, err := Create("/dev/full")
		if err != nil {
			t.Fatal(err)
		}
		f.Write(make([]byte, size))
		if want := size > bufSize; f.Failed() != want {
			t.Errorf("%d bytes written: Failed() = %v before Commit, want %v (the buffer holds %d)", size, f.Failed(), want, bufSize)
		}
		err = f.Commit()
		if !f.Failed() {
			t.Errorf("%d bytes: Failed() = false after Commit failed", size)
		}
		var e *Error
		if !errors.As(err, &e) || e.Op != "write" || !errors.Is(err, syscall.ENOSPC) || e.BadPath() {
			t.Errorf("%d bytes to /dev/full: Commit = %v, want a write error with ENOSPC", size, err)
		}
		if err.Error() != "/dev/full: write failed: no space left on device" {
			t.Errorf("message %q", err)
		}
	}
}

// Devices and the process's own descriptors are written where they are,
// never replaced by a rename.
func TestDevicesWrittenDirectly(t *testing.T) {
	for _, path := range []string{"/dev/null", "/dev/stdout"} {
		if !device(path) {
			t.Errorf("device(%q) = false", path)
		}
	}
	f, err := Create("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if err := f.Commit(); err != nil {
		t.Fatalf("/dev/null: %v", err)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
}

// A symbolic link stays a link to the file written.
func TestSymlinkKept(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "link.json")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real.json", link)
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(real); string(got) != "new" {
		t.Fatalf("the file linked holds %q", got)
	}
}

// On a file system that fills up, the file is absent (or as it was) and
// no temporary is left.
func TestFullFileSystem(t *testing.T) {
	dir := tinyfs.Mount(t, 16<<10)
	path := filepath.Join(dir, "big.vcd")
	err := WriteFile(path, make([]byte, 1<<20))
	if !errors.Is(err, syscall.ENOSPC) || IsBadPath(err) {
		t.Fatalf("1 MiB on a 16 KiB file system: %v, want ENOSPC", err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
}

func TestWriteFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "b.csv"), 0o755) // a directory where a file goes
	err := WriteFiles(dir, []Named{{"a.csv", []byte("a")}, {"b.csv", []byte("b")}})
	if !IsBadPath(err) {
		t.Fatalf("WriteFiles = %v, want b.csv refused", err)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "b.csv" {
		t.Fatalf("after a refused file the directory holds %v, want nothing new", names)
	}
	os.Remove(filepath.Join(dir, "b.csv"))
	if err := WriteFiles(dir, []Named{{"a.csv", []byte("a")}, {"b.csv", []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Fatalf("directory holds %v", names)
	}
}

func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	a, _ := Create(filepath.Join(dir, "a"))
	b, _ := Create(filepath.Join(dir, "b"))
	b.Commit()
	if n := RemovePending(); n != 1 {
		t.Fatalf("RemovePending removed %d, want 1 (a's temporary)", n)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "b" {
		t.Fatalf("directory holds %v, want b only", names)
	}
	a.Abort()
}

func TestWriteDirReplacesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.filters")
	if err := WriteDir(path, []Named{{"a.txt", []byte("a")}, {"old.txt", nil}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(path, []Named{{"a.txt", []byte("A")}}); err != nil {
		t.Fatal(err)
	}
	if names := entries(t, path); len(names) != 1 || names[0] != "a.txt" {
		t.Fatalf("the directory holds %v, want a.txt only", names)
	}
	if got, _ := os.ReadFile(filepath.Join(path, "a.txt")); string(got) != "A" {
		t.Fatalf("a.txt holds %q", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("left beside it: %v", names)
	}
}
