package walk

import (
	"fmt"

	"mkeysim/rtl/sim"
)

// MaxTraced bounds the contexts a waveform shows one by one.
const MaxTraced = 32

// Describe is a walker's waveform scope (sim.Description): the walker's
// own signals (head, which sample writes into vs[:len(head)]), then, for
// each of the first MaxTraced contexts, ctxN_state (named by enum) and
// ctxN_tag, the tag of its piece (held while the context is free).
func (c *Contexts) Describe(scope, title string, head []sim.Signal, sample func(vs []uint64), enum *sim.Enum) sim.Description {
	k, n := len(head), min(len(c.slot), MaxTraced)
	sigs := head[:k:k]
	for i := range n {
		sigs = append(sigs, sim.Signal{Name: fmt.Sprintf("ctx%d_state", i), Enum: enum}, sim.Signal{Name: fmt.Sprintf("ctx%d_tag", i), Width: 16})
	}
	return sim.Description{Scope: scope, Title: title, Signals: sigs, Sample: func(vs []uint64) {
		sample(vs[:k])
		for i := range n {
			vs[k+2*i], vs[k+1+2*i] = uint64(c.State(i)), uint64(c.tag[i])
		}
	}}
}
