package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"mkeysim/config"
	"mkeysim/internal/outfile"
	"mkeysim/tb"
	"mkeysim/tb/wave"
	"mkeysim/vcd"
)

// waveFlags are run's waveform options.
type waveFlags struct {
	file     string
	from, to uint64
	scope    string
	fst      bool
}

func (w *waveFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&w.file, "vcd", "", "write a VCD waveform of the run to `FILE` (run.vcd), with run.gtkw (GTKWave save file, paths relative to it) and run.filters/ (value names) beside it")
	fs.Uint64Var(&w.from, "vcd-from", 0, "first `CYCLE` traced")
	fs.Uint64Var(&w.to, "vcd-to", 0, "last `CYCLE` traced (0: to the end)")
	fs.StringVar(&w.scope, "vcd-scope", "", "trace only the scopes matching these comma-separated `PATTERNS`, '*' within one level (e.g. 'top.mptcache,top.*walk'); scopes: top.tb, top.core, top.mptcache, top.protcheck, top.mttwalk, top.klmwalk, top.dma, top.pcie, top.sq, top.host (top.clk and top.cycle always)")
	fs.BoolVar(&w.fst, "fst", false, "write the waveform as FST (GTKWave's compressed format, run.fst) through vcd2fst, which comes with GTKWave")
}

// validate checks the waveform flags before anything runs; its errors
// name the flag and the value, and run exits 2 on them.
func (w *waveFlags) validate() error {
	if w.file == "" {
		switch {
		case w.from != 0:
			return fmt.Errorf("--vcd-from %d: needs --vcd FILE", w.from)
		case w.to != 0:
			return fmt.Errorf("--vcd-to %d: needs --vcd FILE", w.to)
		case w.scope != "":
			return fmt.Errorf("--vcd-scope %q: needs --vcd FILE", w.scope)
		case w.fst:
			return fmt.Errorf("--fst: needs --vcd FILE")
		}
		return nil
	}
	if w.to != 0 && w.from > w.to {
		return fmt.Errorf("--vcd-from %d is after --vcd-to %d", w.from, w.to)
	}
	if err := wave.CheckScope(w.scope); err != nil {
		return fmt.Errorf("--vcd-scope %q: %v", w.scope, err)
	}
	if w.fst {
		if _, err := exec.LookPath("vcd2fst"); err != nil {
			return fmt.Errorf("--fst: vcd2fst is not on PATH; it comes with GTKWave (Debian: apt-get install gtkwave), or leave out --fst for a VCD")
		}
	}
	gtkw, filters := wave.Paths(w.file)
	for _, p := range []string{w.file, fstPath(w.file), gtkw, filters} {
		if err := checkWritable(p, p == filters); err != nil {
			return fmt.Errorf("--vcd %q: %v", w.file, err)
		}
	}
	return nil
}

// fstPath is where --fst writes the waveform of --vcd path.
func fstPath(path string) string { return strings.TrimSuffix(path, ".vcd") + ".fst" }

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
type tracer interface {
	close() (string, error) // what it kept ("the waveform FILE"), or why not
	abort()                 // removes what close did not put in place
	failed() bool           // a write failed (close says why)
}

type noTracer struct{}

func (noTracer) close() (string, error) { return "", nil }
func (noTracer) abort()                 {}
func (noTracer) failed() bool           { return false }

// fileTracer is a wave.Tracer writing files.
type fileTracer struct {
	t    *wave.Tracer
	file string
	fst  bool
}

// close ends the waveform where the run stopped; with --fst it turns the
// VCD into FST (the save file then names it) and removes the VCD.
func (f fileTracer) close() (string, error) {
	if err := f.t.Close(); err != nil {
		return "", writeFailed("--vcd", f.file, err)
	}
	if !f.fst {
		return "the waveform " + f.file, nil
	}
	fst := fstPath(f.file)
	out, err := exec.Command("vcd2fst", f.file, fst).CombinedOutput()
	if st, serr := os.Stat(fst); err != nil || serr != nil || st.Size() == 0 {
		os.Remove(fst)
		return "", fmt.Errorf("--fst: vcd2fst %s %s failed (%v): %s; the VCD %s is kept", f.file, fst, err, strings.TrimSpace(string(out)), f.file)
	}
	gtkw, _ := wave.Paths(f.file)
	save, err := os.ReadFile(gtkw)
	if err == nil {
		save = bytes.Replace(save, []byte(`[dumpfile] "`+filepath.Base(f.file)+`"`), []byte(`[dumpfile] "`+filepath.Base(fst)+`"`), 1)
		err = outfile.WriteFile(gtkw, save)
	}
	if err != nil {
		return "", fmt.Errorf("--fst: %v", err)
	}
	if err := os.Remove(f.file); err != nil {
		return "", fmt.Errorf("--fst: %v", err)
	}
	return "the waveform " + fst, nil
}

func (f fileTracer) abort()       { f.t.Abort() }
func (f fileTracer) failed() bool { return f.t.Failed() }

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
	t, err := wave.Create(b, w.file, o)
	if err != nil {
		return nil, writeFailed("--vcd", w.file, err)
	}
	return fileTracer{t: t, file: w.file, fst: w.fst}, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
