package tb

import (
	"mkeysim/rtl"
	"mkeysim/tb/stimulus"
	"strings"
	"testing"

	"mkeysim/rtl/sim"
	"mkeysim/scenario"
)

// TestSinkCatchesBadCompletions: a duplicated, reordered or unknown
// completion is an error, not a silently different result list.
func TestSinkCatchesBadCompletions(t *testing.T) {
	for _, c := range []struct {
		name    string
		seqs    []int
		inOrder bool
		want    string
	}{
		{"in order", []int{0, 1, 2}, true, ""},
		{"reordered", []int{0, 2, 1}, true, "completed before seq 1"},
		{"duplicated", []int{0, 0}, false, "completed twice"},
		{"unknown", []int{0, 7}, false, "never issued"},
		{"out of order allowed", []int{1, 0, 2}, false, ""},
		{"again after the window moved on", []int{0, 1, 0}, false, "completed twice"},
		{"again inside the window", []int{2, 0, 2}, false, "completed twice"},
		{"before the first", []int{-1}, false, "never issued"},
	} {
		e := sim.New()
		ch := sim.NewChan[rtl.Result](e, "top.out", 1, 1)
		s := &sink{in: ch, feed: stimulus.FeedOf(make([]scenario.Op, 3), 0), inOrder: c.inOrder}
		feed := &feeder{out: ch, seqs: c.seqs}
		e.Add(feed, s)
		for i := 0; i < 20 && s.err == nil; i++ {
			e.Step()
		}
		switch {
		case c.want == "" && s.err != nil:
			t.Errorf("%s: %v", c.name, s.err)
		case c.want != "" && (s.err == nil || !strings.Contains(s.err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, s.err, c.want)
		}
	}
}

type feeder struct {
	out  *sim.Chan[rtl.Result]
	seqs []int
}

func (f *feeder) Name() string { return "feeder" }
func (f *feeder) Eval(uint64) bool {
	if len(f.seqs) > 0 && f.out.Ready() {
		f.out.Push(rtl.Result{Result: &scenario.Result{Seq: f.seqs[0]}})
		f.seqs = f.seqs[1:]
	}
	return len(f.seqs) > 0
}
func (f *feeder) Commit() {}
