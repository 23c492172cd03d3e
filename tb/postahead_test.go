package tb

import (
	"strings"
	"testing"

	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// TestPostAhead: the host front's posting window (workload.post_ahead)
// changes when WQEs reach the model, never what they give: a generated
// workload through windows of 1, 8 and 256 operations gives the same
// results, and the window of 1 (each WQE posted once the one before it
// entered) takes longer than the window of 256.
func TestPostAhead(t *testing.T) {
	w := stimulus.DefaultWorkload()
	w.Accesses, w.Keys, w.HotKeys = 3000, 256, 32
	sc := stimulus.Generate(w)
	var first []string
	var cycles []uint64
	for _, n := range []int{1, 8, MaxPostAhead} {
		var last uint64
		lines := resultLines(t, sc, func(b *Bench, opt RunOptions) error {
			b.PostAhead(n)
			inner := opt.OnResult
			opt.OnResult = func(r *scenario.Result) error {
				last = max(last, r.Cycle)
				c := r.Clone()
				c.HasCycle = false
				return inner(&c)
			}
			_, err := b.StreamHost(sc.Ops, opt)
			return err
		})
		if first == nil {
			first = lines
		} else if strings.Join(lines, "") != strings.Join(first, "") {
			t.Errorf("post_ahead %d: results differ from post_ahead 1", n)
		}
		cycles = append(cycles, last)
	}
	if cycles[0] <= cycles[2] {
		t.Errorf("cycles with windows 1, 8, 256: %v: the window of 1 is not the slowest", cycles)
	}
	t.Logf("cycles with windows 1, 8, 256: %v", cycles)
}
