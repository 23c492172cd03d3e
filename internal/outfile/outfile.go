// Package outfile writes the files mkeysim makes so that each one is
// whole or absent: a file is written under a temporary name beside its
// own (.NAME.NNN.tmp), every write, the Sync and the Close are checked,
// and only then is it renamed into place. A failure removes the
// temporary file, leaves whatever was at the path before as it was, and
// returns an *Error that names the file and the reason.
//
//	f, err := outfile.Create("out/stats.json")
//	if err != nil { ... }        // err.(*outfile.Error).BadPath(): exit 2
//	defer f.Abort()              // removes the temporary unless committed
//	f.Write(data)                // errors stick; Commit reports the first
//	if err := f.Commit(); err != nil { ... } // exit 1
//
// A path that exists and is not a regular file (/dev/null, /dev/full,
// /dev/stdout, a FIFO) is written directly, since renaming over it would
// replace the device; such a file is only as whole as its device keeps
// it, but every write is still checked.
package outfile

import (
	"bufio"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Error is a file that could not be written: Path is the name the user
// gave, Op the step that failed ("create", "write", "sync", "close",
// "rename"), Err the reason.
type Error struct {
	Path string
	Op   string
	Err  error
}

// Error reads "out/stats.json: write failed: no space left on device".
func (e *Error) Error() string {
	if e.Op == "create" {
		return e.Path + ": cannot create: " + e.Err.Error()
	}
	return e.Path + ": " + e.Op + " failed: " + e.Err.Error()
}

// Unwrap returns the reason (an errno such as syscall.ENOSPC).
func (e *Error) Unwrap() error { return e.Err }

// BadPath reports whether the path given is at fault rather than the
// writing: its directory is missing, is not a directory or refuses new
// files, or the path is a directory. Commands exit 2 for a bad path, 1
// for a failed write.
func (e *Error) BadPath() bool {
	if e.Op != "create" {
		return false
	}
	for _, errno := range []syscall.Errno{syscall.ENOENT, syscall.ENOTDIR, syscall.EISDIR, syscall.EACCES, syscall.EPERM, syscall.EROFS, syscall.ENAMETOOLONG, syscall.ELOOP} {
		if errors.Is(e.Err, errno) {
			return true
		}
	}
	return errors.Is(e.Err, errIsDir)
}

var errIsDir = errors.New("is a directory")

// IsBadPath reports whether err is an *Error whose path is at fault
// (Error.BadPath).
func IsBadPath(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.BadPath()
}

// bufSize is the write buffer of a File.
const bufSize = 1 << 16

// File is a file being written. It is an io.Writer whose errors stick:
// after the first failed write every later one fails the same way, and
// Commit reports it.
type File struct {
	path   string // the name given
	at     string // where it is put: path, or what its symbolic links name
	tmp    string // the temporary name; "" when written directly
	f      *os.File
	w      *bufio.Writer
	err    error
	failed atomic.Bool // err is set: readable from any goroutine
	done   bool
	synced bool // ready has run: flushed and synced (or failed)
	direct bool
}

// Create starts the file path. An existing regular file at path stays
// as it is until Commit replaces it. The error is an *Error.
func Create(path string) (*File, error) {
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return nil, &Error{path, "create", errIsDir}
	}
	if err == nil && (!fi.Mode().IsRegular() || device(path)) {
		// Appending, so that /dev/stdout behind a shell's ">>" adds
		// to its file instead of writing over it.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, &Error{path, "create", reason(err)}
		}
		return &File{path: path, f: f, w: bufio.NewWriterSize(f, bufSize), direct: true}, nil
	}
	// A symbolic link stays one: the file is written beside what it
	// names.
	at := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		at = real
	}
	f, err := createTemp(at)
	if err != nil {
		return nil, &Error{path, "create", reason(err)}
	}
	pending.add(f.Name())
	return &File{path: path, at: at, tmp: f.Name(), f: f, w: bufio.NewWriterSize(f, bufSize)}, nil
}

// device reports whether path names a file of the system's device or
// process trees (/dev/stdout, /dev/fd/3, /proc/self/fd/1), which is
// written where it is even when it resolves to a regular file: that file
// is another program's (the shell's redirection).
func device(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, root := range []string{"/dev/", "/proc/"} {
		if strings.HasPrefix(abs, root) {
			return true
		}
	}
	return false
}

// createTemp creates a new file beside path, hidden and named for it
// (.run.jsonl.123456.tmp). Unlike os.CreateTemp's private 0600 file it
// has the mode os.Create gives (0644 under the usual umask), which the
// rename keeps.
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !os.IsExist(err) {
			return f, err
		}
	}
}

// reason drops an *os.PathError's wrapper, whose path may be a temporary
// name the user never gave.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Path is the name the file gets.
func (f *File) Path() string { return f.path }

// Write writes p, buffered; the first error sticks.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	return f.wrote(f.w.Write(p))
}

// wrote keeps a failed write's error as the file's.
func (f *File) wrote(n int, err error) (int, error) {
	if err != nil {
		f.fail(&Error{f.path, "write", reason(err)})
	}
	return n, f.err
}

// fail makes err the file's sticky error.
func (f *File) fail(err error) {
	f.err = err
	f.failed.Store(true)
}

// Failed reports whether a write has failed. Unlike Err it may be called
// from another goroutine than the writer's, so that a program can stop
// early (a run whose waveform no longer fits on the disk).
func (f *File) Failed() bool { return f.failed.Load() }

// WriteString writes s as Write does.
func (f *File) WriteString(s string) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	return f.wrote(f.w.WriteString(s))
}

// Err is the first error a write met, or nil.
func (f *File) Err() error { return f.err }

// Commit flushes the file, syncs it to disk, closes it and renames it
// into place. On any error the temporary file is removed (the path keeps
// what it held before) and the error, an *Error, says which step failed.
// Commit after Commit or Abort does nothing.
func (f *File) Commit() error {
	if f.done {
		return f.err
	}
	f.done = true
	err := f.ready()
	if cerr := f.f.Close(); cerr != nil && err == nil {
		err = &Error{f.path, "close", reason(cerr)}
	}
	if err == nil && !f.direct {
		if rerr := os.Rename(f.tmp, f.at); rerr != nil {
			err = &Error{f.path, "rename", reason(rerr)}
		}
	}
	if err != nil && !f.direct {
		os.Remove(f.tmp)
	}
	if !f.direct {
		pending.remove(f.tmp)
	}
	if err != nil {
		f.fail(err)
	}
	return err
}

// unsyncable is the error fsync gives on a device or a pipe, which have
// nothing to sync.
func unsyncable(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EROFS)
}

// Abort drops the file: the temporary is removed and the path keeps what
// it held before. It does nothing after Commit, so that
// "defer f.Abort()" covers every early return.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	if !f.direct {
		os.Remove(f.tmp)
		pending.remove(f.tmp)
	}
}

// WriteFile writes data to path through a File.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	f.Write(data)
	return f.Commit()
}

// Named is one file of WriteFiles: its name in the directory and its
// bytes.
type Named struct {
	Name string
	Data []byte
}

// WriteFiles writes files into dir all or nothing: each is written and
// synced under its temporary name, and they are renamed into place only
// when every one is complete. (A crash during the renames can leave some
// renamed and not others; each file is still whole.)
func WriteFiles(dir string, files []Named) error {
	var fs []*File
	defer func() {
		for _, f := range fs {
			f.Abort()
		}
	}()
	for _, n := range files {
		f, err := Create(filepath.Join(dir, n.Name))
		if err != nil {
			return err
		}
		fs = append(fs, f)
		f.Write(n.Data)
		// Everything but the rename, now.
		if err := f.ready(); err != nil {
			return err
		}
	}
	for _, f := range fs {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// WriteDir makes the directory path hold exactly files, all or nothing:
// they are written into a new directory beside it (.NAME.NNN.tmp), which
// then replaces the old one, if any.
func WriteDir(path string, files []Named) (err error) {
	dir, base := filepath.Split(path)
	tmp, err := os.MkdirTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return &Error{path, "create", reason(err)}
	}
	pending.add(tmp)
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
		pending.remove(tmp)
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return &Error{path, "create", reason(err)}
	}
	if err := WriteFiles(tmp, files); err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = filepath.Join(path, filepath.Base(e.Path))
		}
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		if err := os.RemoveAll(path); err != nil {
			return &Error{path, "rename", reason(err)}
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return &Error{path, "rename", reason(err)}
	}
	return nil
}

// ready flushes and syncs the file, so that Commit has only the close
// and the rename left to do.
func (f *File) ready() error {
	if f.synced {
		return f.err
	}
	f.synced = true
	if f.err == nil {
		if err := f.w.Flush(); err != nil {
			f.fail(&Error{f.path, "write", reason(err)})
		}
	}
	if f.err == nil {
		if err := f.f.Sync(); err != nil && !(f.direct && unsyncable(err)) {
			f.fail(&Error{f.path, "sync", reason(err)})
		}
	}
	return f.err
}

// pending are the temporary files not yet committed or aborted, for
// RemovePending. It is the one piece of process-wide state here, as the
// file names and the signals it serves are the process's.
var pending = &tempSet{names: map[string]struct{}{}}

type tempSet struct {
	mu    sync.Mutex
	names map[string]struct{}
}

func (s *tempSet) add(name string) {
	s.mu.Lock()
	s.names[name] = struct{}{}
	s.mu.Unlock()
}

func (s *tempSet) remove(name string) {
	s.mu.Lock()
	delete(s.names, name)
	s.mu.Unlock()
}

// RemovePending removes every temporary file not yet committed or
// aborted, for a program that must exit at once (a second Ctrl-C): what
// it was writing is then absent, not half there. It returns how many it
// removed.
func RemovePending() int {
	pending.mu.Lock()
	defer pending.mu.Unlock()
	n := 0
	for name := range pending.names {
		if os.RemoveAll(name) == nil {
			n++
		}
		delete(pending.names, name)
	}
	return n
}
