package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal: the progress bar shows only
// there by default, so that CI logs get no frames.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress is a progress bar of total steps with a count, the rate and the
// time left, that appears once the work has taken a second; a nil
// *progress shows nothing.
type progress struct {
	w     io.Writer
	total int
	what  string
	start time.Time
	bar   *progressbar.ProgressBar
}

// newProgress returns a bar writing to w, or nil for none: --quiet
// drops it, --progress (force) shows it anywhere, and otherwise it shows
// only on a terminal.
func newProgress(w io.Writer, total int, what string, quiet, force bool) *progress {
	if quiet || !force && !isTerminal(w) {
		return nil
	}
	return &progress{w: w, total: total, what: what, start: time.Now()}
}

// set shows done steps of the total.
func (p *progress) set(done int) {
	if p == nil {
		return
	}
	if p.bar == nil && time.Since(p.start) > time.Second && done < p.total {
		p.bar = progressbar.NewOptions(p.total, progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.what), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	if p.bar != nil {
		p.bar.Set(done)
	}
}

// finish removes the bar.
func (p *progress) finish() {
	if p != nil && p.bar != nil {
		p.bar.Finish()
	}
}
