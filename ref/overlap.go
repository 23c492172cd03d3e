package ref

import (
	"slices"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// TranslateAfter translates req as it would be if the invalidations
// invals (LOCAL_INVALIDATE and SEND_WITH_INVALIDATE operations, others
// are ignored) had run first, each with its own checks, and leaves the
// model as it was. It answers what an access may legally see when it
// overlaps invalidations that come after it in the scenario (the clocked
// model's overlap_invalidate): the state of any prefix of them.
func (m *Model) TranslateAfter(req Request, invals []scenario.Op) Outcome {
	saved := map[uint32]prm.MKC{}
	for i := range invals {
		op := &invals[i]
		if op.Kind != scenario.OpLocalInvalidate && op.Kind != scenario.OpSendWithInvalidate {
			continue
		}
		idx := op.Key.Index()
		if o := m.objs.get(idx); o != nil {
			if _, ok := saved[idx]; !ok {
				saved[idx] = o.MKC
			}
		}
		m.invalidate(op.QPN, op.Key, op.Kind == scenario.OpSendWithInvalidate)
	}
	out := m.Translate(req, nil)
	for idx, mkc := range saved {
		m.objs.get(idx).MKC = mkc
	}
	return out
}

// Unstall forgets the access seq stalled on a page fault, as if it had
// not faulted: its overlapping invalidation stopped it first in the
// clocked model (see TranslateAfter).
func (m *Model) Unstall(seq int) {
	m.stalled = slices.DeleteFunc(m.stalled, func(s stalled) bool { return s.seq == seq })
}
