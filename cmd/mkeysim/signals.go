package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"mkeysim/internal/outfile"
)

// signalled is the cause of a command's context cancelled by a signal.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return "interrupted by " + signalName(s.sig) }

// signalName is SIGINT or SIGTERM, as a user sends them.
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// stopOnSignal returns a context that the first SIGINT or SIGTERM
// cancels, with the signal as its cause: every command stops at its next
// safe point (a cycle boundary, an operation, a chunk of a line, a sweep
// point, a vector), keeps what it has and exits 128 + the signal's
// number (130 for SIGINT, 143 for SIGTERM). A second signal exits at once
// with that status, keeping nothing more: the files being written are
// removed (outfile.RemovePending), so that each is absent, never half
// there.
func stopOnSignal(stderr io.Writer) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	// A closed standard output (mkeysim ref x | head) is then a write
	// error, which the command ends on quietly, removing the files it was
	// writing, instead of a SIGPIPE that would leave them behind.
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := (<-sigs).(syscall.Signal)
		fmt.Fprintf(stderr, "mkeysim: %s: stopping at the next safe point and keeping what is done (%s again to quit at once)\n", signalName(s), signalName(s))
		cancel(signalled{s})
		s = (<-sigs).(syscall.Signal)
		n := outfile.RemovePending()
		fmt.Fprintf(stderr, "mkeysim: %s again: quitting at once; the %d files being written are removed\n", signalName(s), n)
		os.Exit(128 + int(s))
	}()
	return ctx
}

// interruptedStatus is the exit status of a command its context stopped:
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), and 130
// for a context cancelled otherwise (tests).
func interruptedStatus(ctx context.Context) status {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		return status(128 + int(s.sig))
	}
	return status(exitInterrupted)
}
