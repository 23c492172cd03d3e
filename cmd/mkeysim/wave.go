package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mkeysim/config"
	"mkeysim/tb"
	"mkeysim/vcd"
)

// waveFlags are run's waveform options.
type waveFlags struct {
	file     string
	from, to uint64
	scope    string
}

func (w *waveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.file, "vcd", "", "write a VCD waveform of the run to this file (run.vcd), with run.gtkw (GTKWave save file) and run.filters/ (value names) beside it")
	fs.Uint64Var(&w.from, "vcd-from", 0, "first cycle traced")
	fs.Uint64Var(&w.to, "vcd-to", 0, "last cycle traced (0: to the end)")
	fs.StringVar(&w.scope, "vcd-scope", "", "trace only the scopes matching these comma-separated patterns, '*' within one level (e.g. 'top.mptcache,top.*walk'); scopes: top.tb, top.core, top.mptcache, top.protcheck, top.mttwalk, top.klmwalk, top.pcie, top.host")
}

// validate checks the waveform flags before anything runs; its errors
// name the flag and the value, and run exits 2 on them.
func (w *waveFlags) validate() error {
	if w.file == "" {
		switch {
		case w.from != 0:
			return fmt.Errorf("-vcd-from %d: needs -vcd FILE", w.from)
		case w.to != 0:
			return fmt.Errorf("-vcd-to %d: needs -vcd FILE", w.to)
		case w.scope != "":
			return fmt.Errorf("-vcd-scope %q: needs -vcd FILE", w.scope)
		}
		return nil
	}
	if w.to != 0 && w.from > w.to {
		return fmt.Errorf("-vcd-from %d is after -vcd-to %d", w.from, w.to)
	}
	if err := tb.CheckTraceScope(w.scope); err != nil {
		return fmt.Errorf("-vcd-scope %q: %v", w.scope, err)
	}
	gtkw, filters := tb.TracePaths(w.file)
	for _, p := range []string{w.file, gtkw, filters} {
		if err := checkWritable(p, p == filters); err != nil {
			return fmt.Errorf("-vcd %q: %v", w.file, err)
		}
	}
	return nil
}

// checkWritable reports whether a file (or, with dir, a directory) can be
// created or replaced at path: its directory exists and takes new files,
// and path is not something else (a directory where a file goes).
func checkWritable(path string, dir bool) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() != dir {
		if dir {
			return fmt.Errorf("%s exists and is not a directory", path)
		}
		return fmt.Errorf("%s is a directory", path)
	} else if err == nil && !dir && !fi.Mode().IsRegular() {
		// The file is written beside its name and renamed over it:
		// that would replace a device or a FIFO.
		return fmt.Errorf("%s is not a regular file", path)
	}
	parent := filepath.Dir(path)
	fi, err := os.Stat(parent)
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", parent, unwrapPath(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("cannot write in %s: not a directory", parent)
	}
	f, err := os.CreateTemp(parent, ".mkeysim-vcd-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", parent, unwrapPath(err))
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// unwrapPath drops the *os.PathError wrapper, whose path is a temporary
// name the user never asked for.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// tracer is a started waveform, or nothing.
type tracer interface{ close() error }

type noTracer struct{}

func (noTracer) close() error { return nil }

// fileTracer is a tb.Tracer writing files.
type fileTracer struct {
	t    *tb.Tracer
	file string
}

func (f fileTracer) close() error {
	if err := f.t.Close(); err != nil {
		return fmt.Errorf("-vcd %q: %v", f.file, err)
	}
	return nil
}

// start attaches the tracer to the bench: the VCD is written to FILE.tmp
// during the run and renamed, with its save file and filters, by close.
func (w *waveFlags) start(b *tb.Bench, cfg config.Config, name string) (tracer, error) {
	if w.file == "" {
		return noTracer{}, nil
	}
	o := vcd.Options{
		From: w.from, To: w.to, Scope: w.scope,
		TimescalePS: cfg.Model.ClockPS,
		Version:     "mkeysim run",
		Comment:     fmt.Sprintf("mkeysim run: %s, seed %d, clock %d ps per cycle", oneLine(name), cfg.Workload.Seed, cfg.Model.ClockPS),
	}
	t, err := tb.TraceFile(b, w.file, o)
	if err != nil {
		return nil, fmt.Errorf("-vcd %q: %v", w.file, err)
	}
	return fileTracer{t: t, file: w.file}, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
