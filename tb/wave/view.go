package wave

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mkeysim/internal/outfile"
	"mkeysim/rtl"
	"mkeysim/tb"
	"mkeysim/vcd"
)

// This file turns a tracer's signals into what GTKWave opens: the
// translate filters that show codes by name, the save file that groups
// the signals, and the files of Create.

// filterFiles are the translate filters of every value naming the
// tracer's signals use, as NAME.txt.
func (t *Tracer) filterFiles() ([]outfile.Named, error) {
	var files []outfile.Named
	for name, e := range t.enums {
		var buf bytes.Buffer
		if err := vcd.WriteFilter(&buf, e.Names, e.Width, filterFormat); err != nil {
			return nil, fmt.Errorf("filter %s: %w", name, err)
		}
		files = append(files, outfile.Named{Name: name + ".txt", Data: buf.Bytes()})
	}
	return files, nil
}

// overview are the first groups of the save file: the signals to follow
// for one translation, unit by unit, from the operation entering to its
// result leaving (GTKWave shows a signal's name without its scope, so
// each unit has its own small group).
var overview = []struct {
	group string
	paths []string
}{
	{"1 in and out: top.core", []string{"top.core.in_valid", "top.core.in_ready", "top.core.in_seq", "top.core.in_key",
		"top.core.rob_count", "top.core.out_valid", "top.core.out_seq", "top.core.out_status"}},
	{"2 MKC lookup: top.mptcache", []string{"top.mptcache.hit", "top.mptcache.miss"}},
	{"3 checks: top.protcheck", []string{"top.protcheck.fired_key", "top.protcheck.fired_status"}},
	{"4 MTT walk: top.mttwalk", []string{"top.mttwalk.state", "top.mttwalk.done_tag", "top.mttwalk.done_seg_addr"}},
	{"5 host reads: top.pcie", []string{"top.pcie.tags_in_use"}},
}

// SaveFile returns the GTKWave save file of the traced signals: first
// the time base (top.clk, top.cycle), then the overview of one
// translation (a few signals of each unit on its path), then every
// signal, one group per unit in data-flow order (tb and top.in, mptcache,
// protcheck, mttwalk, klmwalk, pcie, host, then the reorder buffer, the
// command path and top.out). It opens at the window's first cycle showing
// about 400 cycles. saveFile, dumpFile and filterDir are written as given:
// relative to the save file's directory, so that a copied folder opens
// the same (GTKWave resolves the dump and the filters against the
// [savefile] it names, see vcd.SaveFile).
func (t *Tracer) SaveFile(saveFile, dumpFile, filterDir string) vcd.SaveFile {
	byPath := map[string]Signal{}
	groups := map[string][]vcd.Signal{}
	sig := func(s Signal) vcd.Signal {
		v := vcd.Signal{Path: s.Path, Width: s.Width, Format: s.Format}
		if s.Filter != "" {
			v.Filter = filepath.Join(filterDir, s.Filter+".txt")
		}
		return v
	}
	for _, s := range t.info {
		byPath[s.Path] = s
		groups[s.Group] = append(groups[s.Group], sig(s))
	}
	var first []vcd.Group
	for _, o := range overview {
		g := vcd.Group{Name: o.group}
		for _, p := range o.paths {
			if s, ok := byPath[p]; ok {
				g.Signals = append(g.Signals, sig(s))
			}
		}
		if len(g.Signals) > 0 {
			first = append(first, g)
		}
	}
	sf := vcd.SaveFile{SaveFile: saveFile, DumpFile: dumpFile, Width: 1280, Height: 760,
		Comments: []string{"mkeysim waveform: the time base, an overview of one translation, then one group per unit in data-flow order",
			"signals: X_push producer handshake, X_valid head visible, X_ready consumer took it, X_count FIFO occupancy"}}
	_, mult := t.w.Timescale()
	sf.TimeStart = t.from * mult
	sf.Shown = shownCycles * mult
	sf.Groups = append([]vcd.Group{{Name: "time base", Signals: []vcd.Signal{
		{Path: "top.clk", Width: 1, Format: vcd.Bin}, {Path: "top.cycle", Width: 64, Format: vcd.Dec}}}}, first...)
	for _, g := range t.order {
		if len(groups[g]) > 0 {
			sf.Groups = append(sf.Groups, vcd.Group{Name: g, Signals: groups[g]})
		}
	}
	return sf
}

// shownCycles is about how many cycles a save file shows when it opens.
const shownCycles = 400

// Paths returns the save file and the filter directory written
// beside the VCD file path: "run.vcd" gives "run.gtkw" and "run.filters".
func Paths(path string) (gtkw, filters string) {
	base := strings.TrimSuffix(path, ".vcd")
	return base + ".gtkw", base + ".filters"
}

// files are the files of a Create tracer.
type files struct {
	path          string // the VCD
	gtkw, filters string // Paths
	f             *outfile.File
	// cleared is closed once the waveform an earlier run left at path
	// is removed (removeOld).
	cleared chan struct{}
}

// Create traces b's run into the VCD file path (see New), with its
// save file and translate filters beside it (Paths). Everything is
// written through internal/outfile: under temporary names, checked,
// synced and renamed by Close, so no half-written file ever has the
// final name; after an error or Abort nothing is left. A waveform
// already at path is removed as the tracer starts, beside the run
// (removeOld). The errors are *outfile.Error, naming the file.
func Create(b *tb.Bench, path string, o vcd.Options) (*Tracer, error) {
	tf := &files{path: path}
	tf.gtkw, tf.filters = Paths(path)
	f, err := outfile.Create(path)
	if err != nil {
		return nil, err
	}
	tf.f = f
	t, err := New(b, f, o)
	if err != nil {
		f.Abort()
		return nil, err
	}
	t.file = tf
	tf.cleared = make(chan struct{})
	go tf.removeOld()
	return t, nil
}

// removeOld removes the regular file at path, the waveform of an earlier
// run that this one replaces. Freeing the pages of a waveform of a few
// hundred megabytes takes the kernel tens of milliseconds (40 ms for
// 170 MB on this project's machines); done by Close's rename, it ended
// every run, done here it overlaps the simulation. finish waits for it
// before putting the new file in its place.
func (tf *files) removeOld() {
	defer close(tf.cleared)
	if fi, err := os.Lstat(tf.path); err == nil && fi.Mode().IsRegular() {
		os.Remove(tf.path)
	}
}

// finish puts the VCD in place, then the filters and the save file,
// each whole or not at all; err is the VCD writer's error, if any.
func (tf *files) finish(t *Tracer, err error) error {
	<-tf.cleared
	if err != nil {
		tf.f.Abort()
		var e *outfile.Error
		if !errors.As(err, &e) {
			err = &outfile.Error{Path: tf.path, Op: "write", Err: err}
		}
		return err
	}
	if err := tf.f.Commit(); err != nil {
		return err
	}
	filters, err := t.filterFiles()
	if err != nil {
		return err
	}
	if err := outfile.WriteDir(tf.filters, filters); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := vcd.WriteGTKW(&buf, t.SaveFile(filepath.Base(tf.gtkw), filepath.Base(tf.path), filepath.Base(tf.filters))); err != nil {
		return err
	}
	return outfile.WriteFile(tf.gtkw, displaySettings(buf.Bytes()))
}

// abort removes the VCD's temporary file.
func (tf *files) abort() {
	<-tf.cleared
	tf.f.Abort()
}

// displaySettings adds to a save file the GTKWave settings vcd.SaveFile
// has no field for: the signal tree (SST) closed, so that the waves get
// the room (one click on "SST" opens it), and a signal-name column wide
// enough for "done_seg_addr[63:0]". They go after the [pos] line, where
// GTKWave writes them itself.
func displaySettings(gtkw []byte) []byte {
	const after = "[pos] -1 -1\n"
	i := bytes.Index(gtkw, []byte(after))
	if i < 0 {
		return gtkw
	}
	i += len(after)
	out := append([]byte(nil), gtkw[:i]...)
	out = append(out, "[sst_expanded] 0\n[signals_width] 260\n[sst_width] 1\n"...)
	return append(out, gtkw[i:]...)
}

// Scopes lists the scopes a tracer declares (for the default model),
// the names Options.Scope patterns are matched against.
func Scopes() ([]string, error) {
	b, err := tb.New(rtl.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return scopes(b), nil
}

// scopes lists b's waveform scopes: "top", then each unit's.
func scopes(b *tb.Bench) []string {
	t := newTracer(b, vcd.NewWriter(io.Discard, vcd.Options{}))
	t.declare()
	out := []string{"top"}
	seen := map[string]bool{"top": true}
	for _, s := range t.info {
		sc := s.Path[:strings.LastIndexByte(s.Path, '.')]
		if !seen[sc] {
			seen[sc] = true
			out = append(out, sc)
		}
	}
	return out
}

func joinScopes(b *tb.Bench) string { return strings.Join(scopes(b), ", ") }

// CheckScope checks a -vcd-scope value (comma-separated patterns,
// see vcd.Options.Scope) against the scopes of a model with every unit
// (the default model's, and the platform's: the host IOMMU and the ATC,
// issue 36): every pattern must be well formed and select at least one
// signal of some run.
func CheckScope(pattern string) error {
	if strings.TrimSpace(pattern) == "" {
		return nil
	}
	cfg := rtl.DefaultConfig()
	cfg.IOMMU.Enabled, cfg.Data.Enabled, cfg.HCACap.ATS = true, true, true
	b, err := tb.New(cfg)
	if err != nil {
		return err
	}
	for _, p := range strings.Split(pattern, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		t := newTracer(b, vcd.NewWriter(io.Discard, vcd.Options{Scope: p}))
		if err := t.w.Err(); err != nil {
			return err
		}
		t.declare()
		if len(t.vars) == 0 {
			return fmt.Errorf("pattern %q selects no scope (scopes: %s)", p, joinScopes(b))
		}
	}
	return nil
}
