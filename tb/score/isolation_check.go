package score

import (
	"fmt"
	"strings"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// Judging a model's result lines against the shadow: commands and
// resumes, dead keys, and every access's grant or denial.

// Check runs op, operation seq, on the shadow and judges got, a model's
// result for it. It returns the rules got breaks, each naming the class:
// ISOLATION (a grant, or a command accepted, that the rules forbid),
// STATUS (a failure other than the one the spec requires), COMMAND (a
// command refused that the spec accepts, or a create or query answered
// otherwise).
func (s *Isolation) Check(seq int, op *scenario.Op, got *scenario.Result) []string {
	var dead string
	if op.Kind == scenario.OpAccess && op.Access.Len > 0 {
		dead = s.dead[op.Access.Key]
	}
	want, vs := s.apply(seq, op)
	var out []string
	bad := func(class, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: seq %d (%s): %s", class, seq, describeOp(op), fmt.Sprintf(format, args...)))
	}
	if got.Seq != seq || got.Op != op.Kind {
		bad("COMMAND", "result is seq %d %v", got.Seq, got.Op)
		return out
	}
	switch op.Kind {
	case scenario.OpAccess:
		if dead != "" {
			switch {
			case got.Status == prm.OK:
				bad("ISOLATION", "key %v passed after %s", op.Access.Key, dead)
			case (got.Status != prm.BadKeyIndex && got.Status != prm.KeyMismatch && got.Status != prm.MKeyFree) || got.Level != 0 || got.Offset != 0:
				bad("STATUS", "key %v, dead since %s, failed %v at level %d offset %d; want BAD_KEY_INDEX, KEY_MISMATCH or MKEY_FREE at level 0", op.Access.Key, dead, got.Status, got.Level, got.Offset)
			default:
				cause, _, _ := strings.Cut(dead, " ")
				s.Counts["dead key denied after "+cause]++
			}
		}
		v := vs[0]
		if (got.Status != v.status || got.Level != v.level || got.Offset != v.offset) && s.overlapAllows(seq, v, got) {
			s.Counts["access MKEY_FREE by a later, overlapping invalidation"]++
			s.excused[seq] = true
			if v.status == prm.PageFault { // not stalled after all
				s.diverged[v.faultKey] = true
				for i, st := range s.stalled {
					if st.seq == seq {
						s.stalled = append(s.stalled[:i], s.stalled[i+1:]...)
						break
					}
				}
			}
			break
		}
		out = append(out, s.judgeAccess(seq, op, got, v, "")...)
	case scenario.OpPageFaultResume:
		if s.diverged[op.Key] {
			s.excused[seq] = true
		}
		if got.Status != want.Status {
			bad("COMMAND", "status %v, want %v", got.Status, want.Status)
			break
		}
		if len(got.Resumed) != len(want.Resumed) {
			bad("COMMAND", "%d accesses resumed, want %d", len(got.Resumed), len(want.Resumed))
			break
		}
		for i := range vs {
			if got.Resumed[i].Seq != want.Resumed[i].Seq {
				bad("COMMAND", "resumed[%d] is seq %d, want %d", i, got.Resumed[i].Seq, want.Resumed[i].Seq)
				continue
			}
			out = append(out, s.judgeAccess(seq, op, &got.Resumed[i], vs[i], fmt.Sprintf("resumed seq %d: ", want.Resumed[i].Seq))...)
		}
		if want.Status == prm.OK {
			s.Counts[fmt.Sprintf("resume ok=%v", op.OK)]++
		} else {
			s.Counts["resume "+want.Status.String()]++
		}
	default:
		name := op.Kind.String()
		switch {
		case got.Status == want.Status:
			s.Counts[fmt.Sprintf("%s %v", name, want.Status)]++
		case got.Status == prm.OK:
			bad("ISOLATION", "%s accepted; the spec refuses it with %v", name, want.Status)
		default:
			bad("COMMAND", "%s refused with %v, want %v", name, got.Status, want.Status)
		}
		if got.Status != prm.OK || want.Status != prm.OK {
			break
		}
		switch op.Kind {
		case scenario.OpCreateMKey:
			if got.Index != want.Index || got.Key != want.Key {
				bad("COMMAND", "created index %d key %v, want %d %v", got.Index, got.Key, want.Index, want.Key)
			}
		case scenario.OpQueryMKey:
			if d := s.judgeQuery(got, &want.MKC, op.Query); d != "" {
				bad("COMMAND", "%s", d)
			}
		}
	}
	return out
}

// judgeAccess judges one access result against the verdict.
func (s *Isolation) judgeAccess(seq int, op *scenario.Op, got *scenario.Result, v isoVerdict, prefix string) []string {
	var out []string
	bad := func(class, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: seq %d (%s): %s%s", class, seq, describeOp(op), prefix, fmt.Sprintf(format, args...)))
	}
	if got.Status == prm.OK {
		if v.status != prm.OK {
			bad("ISOLATION", "granted %v, but it must fail %v at level %d offset %d: %s", got.Segments, v.status, v.level, v.offset, v.why)
			return out
		}
		for i, g := range got.Segments {
			if i >= len(v.segs) {
				bad("ISOLATION", "segment %d %v is past the %d the access reaches", i, g, len(v.segs))
				break
			}
			if g != v.segs[i] {
				bad("ISOLATION", "segment %d %v is not what the bytes reach: %v via %s", i, g, v.segs[i], v.via[i])
				break
			}
		}
		if listed := min(len(v.segs), isoMaxSegments); len(got.Segments) != listed || got.SegmentsLeftOut != uint64(len(v.segs)-listed) {
			bad("ISOLATION", "%d segments listed and %d left out, the access reaches %d (the line lists at most %d)", len(got.Segments), got.SegmentsLeftOut, len(v.segs), isoMaxSegments)
		}
		if len(out) == 0 {
			s.Counts["access OK"]++
			for _, via := range v.via {
				if strings.Contains(via, " -> ") {
					s.Counts["access OK through KLM"]++
					break
				}
			}
		}
		return out
	}
	if v.status == prm.OK {
		bad("STATUS", "refused %v at level %d offset %d; every rule allows it", got.Status, got.Level, got.Offset)
		return out
	}
	if got.Status != v.status || got.Level != v.level || got.Offset != v.offset ||
		v.status == prm.PageFault && (got.FaultKey != v.faultKey || got.FaultAddr != v.faultAddr) {
		fault := func(st prm.Status, k prm.Key, a uint64) string {
			if st != prm.PageFault {
				return ""
			}
			return fmt.Sprintf(" fault_key %v fault_addr %#x", k, a)
		}
		bad("STATUS", "failed %v at level %d offset %d%s; want %v at level %d offset %d%s: %s",
			got.Status, got.Level, got.Offset, fault(got.Status, got.FaultKey, got.FaultAddr),
			v.status, v.level, v.offset, fault(v.status, v.faultKey, v.faultAddr), v.why)
		return out
	}
	s.Counts[fmt.Sprintf("access denied %v@%d", v.status, min(v.level, 2))]++
	return out
}

// isoMaxEntries and isoMaxSegments are scenario.md's bounds on a result
// line: the entries one query lists and the segments one access lists.
const (
	isoMaxEntries  = 4096
	isoMaxSegments = 65536
)
