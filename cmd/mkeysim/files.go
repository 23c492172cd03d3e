package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"

	"mkeysim/internal/outfile"
)

// Every file a command writes goes through internal/outfile: written
// beside its name, every write, the sync and the close checked, renamed
// into place, or removed on a failure. This file holds what the commands
// add to it: the flag in the message, the exit status, and standard
// output checked the same way.

// exitPipe is the status of a command whose standard output was closed
// by its reader (mkeysim ref x.json | head): 128 + SIGPIPE, as a shell
// reports a program the signal ended, and nothing said on standard error.
const exitPipe = 141

// flagFile is a file given by a flag that could not be written.
type flagFile struct {
	flag string
	err  error // an *outfile.Error: it names the file
}

func (e flagFile) Error() string { return e.flag + " " + e.err.Error() }
func (e flagFile) Unwrap() error { return e.err }

// createOutput starts the file of flag: "" gives nil, nil, and so does
// "-" for --out (standard output, where the results go without it); "-"
// for another flag is refused (a usage error: standard output carries
// the results), never a file named "-". The error names the flag and the
// file (flagFile).
func createOutput(flag, path string) (*outfile.File, error) {
	switch {
	case path == "":
		return nil, nil
	case path == "-" && flag == "--out":
		return nil, nil
	case path == "-":
		return nil, flagFile{flag, errors.New("-: standard output carries the result lines; give a file name")}
	}
	f, err := outfile.Create(path)
	if err != nil {
		return nil, flagFile{flag, err}
	}
	return f, nil
}

// commitOutput puts f in place; the error names the flag and the file.
func commitOutput(flag string, f *outfile.File) error {
	if err := f.Commit(); err != nil {
		return flagFile{flag, err}
	}
	return nil
}

// writeFailed is the error of flag's file path that a writer stacked on
// it (a pcap writer, a VCD writer) met: the file's own error when it is
// one, else err as a write of path.
func writeFailed(flag, path string, err error) error {
	var e *outfile.Error
	if !errors.As(err, &e) {
		e = &outfile.Error{Path: path, Op: "write", Err: err}
	}
	return flagFile{flag, e}
}

// fileStatus is the exit status of a file that could not be written: 2
// when the path given is at fault (a missing directory, a directory
// where a file goes) or err is not a file's error at all (a flag's bad
// value found as the file starts), 1 when the writing failed (a full
// disk).
func fileStatus(err error) status {
	var e *outfile.Error
	if !errors.As(err, &e) || e.BadPath() {
		return status(exitUsage)
	}
	return status(exitFail)
}

// stdoutWriter is standard output with its errors named: a failed write
// is an *outfile.Error of "standard output".
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // names /dev/stdout, not what the user sees
		}
		return n, &outfile.Error{Path: "standard output", Op: "write", Err: err}
	}
	return n, nil
}

// pipeClosed reports whether err is a write to a pipe whose reader is
// gone.
func pipeClosed(err error) bool { return errors.Is(err, syscall.EPIPE) }

// writeStdout writes data to standard output and says, on standard
// error, when it could not: a closed pipe ends the command quietly
// (exitPipe), any other failure (a full disk) is an error (1).
func writeStdout(stdout, stderr io.Writer, cmd string, data []byte) error {
	_, err := stdoutWriter{stdout}.Write(data)
	return stdoutStatus(stderr, cmd, err)
}

// stdoutStatus ends a command whose standard output failed with err
// (nil: no failure).
func stdoutStatus(stderr io.Writer, cmd string, err error) error {
	switch {
	case err == nil:
		return nil
	case pipeClosed(err):
		return status(exitPipe)
	}
	fmt.Fprintf(stderr, "mkeysim %s: %v\n", cmd, err)
	return status(exitFail)
}
