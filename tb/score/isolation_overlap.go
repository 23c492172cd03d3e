package score

import (
	"mkeysim/prm"
	"mkeysim/scenario"
)

// The denials overlapping invalidation allows (rtl.Config.OverlapInvalidate):
// an access may meet the free=1 of an invalidation that overtook it.

// Overlap declares that the model ran sc with overlapping invalidation:
// a LOCAL_INVALIDATE or SEND_WITH_INVALIDATE runs without waiting for the
// accesses before it, while a command of any other kind waits for them
// and every operation after a command waits for it. An access may then
// meet the free=1 of an invalidation that comes after it in the scenario
// (translation.md 3.2: free=1 stops the requests that have not passed the
// key check). Check then also accepts, for an access, MKEY_FREE at the
// level and offset of any key check its walk makes (up to and including
// the failing one) on an index that a later invalidation frees with
// nothing but accesses and invalidations between them. Such a result is
// a denial: it never widens a grant. The shadow must be fresh (nothing
// checked yet).
func (s *Isolation) Overlap(sc *scenario.Scenario) error {
	pre := NewIsolation(s.MaxIndirection)
	if err := pre.Load(sc); err != nil {
		return err
	}
	s.overlap, s.ops, s.invalOK = true, sc.Ops, make([]bool, len(sc.Ops))
	s.excused, s.diverged = map[int]bool{}, map[prm.Key]bool{}
	for i := range sc.Ops {
		r := pre.Apply(i, &sc.Ops[i])
		k := sc.Ops[i].Kind
		s.invalOK[i] = (k == scenario.OpLocalInvalidate || k == scenario.OpSendWithInvalidate) && r.Status == prm.OK
	}
	return nil
}

// Excused reports whether the result of seq is a legal overlap outcome
// that differs from the scenario-order one (so that a scoreboard against
// a model run in scenario order may differ there), or a PAGE_FAULT_RESUME
// whose stalled accesses differ because of one.
func (s *Isolation) Excused(seq int) bool { return s.excused[seq] }

// overlapAllows: got, MKEY_FREE, is a key check of v's walk meeting an
// invalidation that overtook the access.
func (s *Isolation) overlapAllows(seq int, v isoVerdict, got *scenario.Result) bool {
	if !s.overlap || got.Status != prm.MKeyFree {
		return false
	}
	freed := map[uint32]bool{}
	for j := seq + 1; j < len(s.ops); j++ {
		k := s.ops[j].Kind
		if k == scenario.OpAccess {
			continue
		}
		if k != scenario.OpLocalInvalidate && k != scenario.OpSendWithInvalidate {
			break
		}
		if s.invalOK[j] {
			freed[s.ops[j].Key.Index()] = true
		}
	}
	for _, vis := range v.visits {
		if freed[vis.index] && vis.level == got.Level && vis.off == got.Offset {
			return true
		}
	}
	return false
}
