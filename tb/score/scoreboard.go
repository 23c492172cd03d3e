package score

import (
	"fmt"
	"strings"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
	"mkeysim/tb/stimulus"
)

// Board checks the clocked model's results against the golden model,
// the one place that does: it runs the golden model along with the
// scenario, operation by operation, and matches each result by its
// sequence number (results may leave out of order with overlapping
// invalidation), comparing field by field as conformance runs do
// (scenario.Diff). It holds only the golden results not yet matched, so a
// run of any length costs memory for its reorder window, not its length,
// and it reads the operations from a Feed, which forgets them as their
// results come in.
//
// mkeysim run, mkeysim sweep and the tests all check through it.
type Board struct {
	model *ref.Model
	feed  *stimulus.Feed // the operations checked
	base  int            // the number of their first
	next  int            // golden results computed: operations up to next-1
	// want[off:] holds the golden results of operations lo..next-1, nil
	// once matched: a window from the oldest result not yet matched, as
	// wide as the model's reorder window (results leave out of order only
	// within it), with no hashing or allocation per result (the matched
	// front is skipped, and the slice reused from its start once empty).
	want  []*scenario.Result
	off   int
	lo    int
	spare []*scenario.Result // matched results, reused with their segment slices
	seen  int                // results checked

	// Mismatches counts results that differ; First holds the first few,
	// described with their operation.
	Mismatches int
	First      []string
	// Keep is how many differences First keeps (default 5).
	Keep int
	// Overlap allows what overlapping invalidation allows (the clocked
	// model's overlap_invalidate): an access may see the state after any
	// prefix of the invalidations that follow it with only accesses and
	// invalidations between (translation.md 3.2: a request that has not
	// passed its key check when an invalidation takes effect fails).
	Overlap bool
	// Overlapped counts the results that differ from the scenario order's
	// as Overlap allows.
	Overlapped int
	// Passed counts the access results that are the golden model's other
	// legal outcome (scenario.Result.AlsoLegal): the old mapping, seen by
	// a WQE that started before a UMR of its send queue completed.
	Passed int
}

// NewBoard loads the scenario's QPs and initial MKeys into a fresh
// golden model with cfg; it checks the results of sc.Ops, or of a feed's
// operations (Follow).
func NewBoard(sc *scenario.Scenario, cfg ref.Config) (*Board, error) {
	m := ref.New(cfg)
	if err := m.Load(sc); err != nil {
		return nil, err
	}
	return &Board{model: m, feed: stimulus.FeedOf(sc.Ops, 0), Keep: 5}, nil
}

// Follow checks the operations of f (Bench.StreamFeed) instead of the
// scenario's; call it before the first Check.
func (s *Board) Follow(f *stimulus.Feed) {
	base := f.First()
	s.feed, s.base, s.next, s.lo = f, base, base, base
	clear(s.want)
	s.want, s.off = s.want[:0], 0
}

// Check compares got with the golden model's result of the same
// operation and returns the difference ("" when they agree), counting and
// keeping it. A sequence number that names no operation, or one checked
// twice, is a difference too.
func (s *Board) Check(got *scenario.Result) string {
	s.seen++
	i := got.Seq
	if i < s.base || i >= s.feed.Made() {
		return s.differ(fmt.Sprintf("seq %d: a result for no operation of seqs %d..%d", i, s.base, s.feed.Made()-1))
	}
	for s.next <= i {
		var r *scenario.Result
		if n := len(s.spare); n > 0 {
			r, s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			r = new(scenario.Result)
		}
		s.model.ApplyInto(s.next, s.feed.At(s.next), r)
		s.want = append(s.want, r)
		s.next++
	}
	if s.model.Stopped() {
		// A signal stopped the golden model (ref.Config.Stop): what it
		// gave may be cut short, so nothing more is judged; the run stops
		// at its next cycle boundary.
		return ""
	}
	want := s.pending(i)
	if want == nil {
		return s.differ(fmt.Sprintf("seq %d: a second result for %s", i, s.describe(i)))
	}
	s.want[s.off+i-s.lo] = nil
	for s.off < len(s.want) && s.want[s.off] == nil {
		s.off++
		s.lo++
	}
	switch {
	case s.off == len(s.want):
		s.want, s.off = s.want[:0], 0
	case s.off >= 64 && 2*s.off >= len(s.want):
		n := copy(s.want, s.want[s.off:])
		clear(s.want[n:])
		s.want, s.off = s.want[:n], 0
	}
	d := scenario.Diff(got, want)
	if d != "" {
		if k := scenario.LegalIndex(got, want); k >= 0 {
			// The access started before a UMR of its send queue took
			// effect, as its fence allows (ref: AlsoLegal).
			s.Passed++
			s.model.Chose(i, ref.Request(s.feed.At(i).Access), ref.OutcomeOf(&want.AlsoLegal[k]))
			d = ""
		}
	}
	if d != "" && s.Overlap && s.overlapped(i, got, want) {
		s.Overlapped++
		d = ""
	}
	s.spare = append(s.spare, want)
	if d != "" {
		return s.differ(fmt.Sprintf("%s (%s)", d, s.describe(i)))
	}
	return ""
}

// describe names operation seq in a difference report, by number alone
// when its chunk of a long run is forgotten.
func (s *Board) describe(seq int) string {
	if op := s.feed.At(seq); op != nil {
		return describeOp(op)
	}
	return fmt.Sprintf("operation %d", seq)
}

// overlapped reports whether got, the clocked result of access i, is what
// the access sees after some prefix of the invalidations that follow it
// with only accesses and invalidations between, or an IOMMU_FAULT that
// an iommu_unmap among them allows (unmappedOverlap). When it is, an access the
// scenario order stalls on a page fault did not stall: the golden model
// forgets it, so that a later page_fault_resume agrees.
func (s *Board) overlapped(i int, got, want *scenario.Result) bool {
	op := s.feed.At(i)
	if op.Kind != scenario.OpAccess {
		return false
	}
	var invals []scenario.Op
	var unmaps []*scenario.IOMMUUnmap
	for j := i + 1; ; j++ {
		next := s.feed.At(j)
		if next == nil {
			break
		}
		if k := next.Kind; k == scenario.OpLocalInvalidate || k == scenario.OpSendWithInvalidate {
			invals = append(invals, *next)
		} else if k == scenario.OpIOMMUUnmap && next.Unmap != nil {
			unmaps = append(unmaps, next.Unmap)
		} else if k != scenario.OpAccess {
			break
		}
	}
	if got.Status == prm.IOMMUFault && want.Status == prm.OK && unmappedOverlap(got, want, unmaps) {
		return true
	}
	for k := 1; k <= len(invals); k++ {
		alt := scenario.Result{Seq: got.Seq, Op: scenario.OpAccess}
		o := s.model.TranslateAfter(ref.Request(op.Access), invals[:k])
		alt.Status, alt.Segments, alt.Level, alt.Offset = o.Status, o.Segments, o.Level, o.Offset
		alt.FaultKey, alt.FaultAddr = o.FaultKey, o.FaultAddr
		if scenario.Diff(got, &alt) == "" {
			if want.Status == prm.PageFault && got.Status != prm.PageFault {
				s.model.Unstall(got.Seq)
			}
			return true
		}
	}
	return false
}

// unmappedOverlap reports whether got, an IOMMU_FAULT where the scenario
// order's result want is OK, is what an iommu_unmap that overtook the
// access gives (overlapping invalidation lets an unmap reach the IOMMU
// while the access moves its bytes): the faulting byte is one of want's
// DMA bytes, at the IOVA want translated it from, inside the range of one
// of the unmaps that follow the access. The bytes before it moved on the
// old mapping; which byte it is depends on timing, so any such byte is
// legal.
func unmappedOverlap(got, want *scenario.Result, unmaps []*scenario.IOMMUUnmap) bool {
	off := uint64(0)
	for _, seg := range want.Segments {
		if got.Offset >= off && got.Offset < off+seg.Len {
			if seg.Space != prm.SpaceDMA || got.FaultAddr != seg.Addr+(got.Offset-off) {
				return false
			}
			for _, u := range unmaps {
				if got.FaultAddr >= u.IOVA && got.FaultAddr-u.IOVA < u.Size {
					return true
				}
			}
			return false
		}
		off += seg.Len
	}
	return false
}

func (s *Board) differ(d string) string {
	s.Mismatches++
	if len(s.First) < s.Keep {
		s.First = append(s.First, d)
	}
	return d
}

// pending returns the golden result of operation i not yet matched, nil
// if it is matched or not computed yet.
func (s *Board) pending(i int) *scenario.Result {
	if i < s.lo || s.off+i-s.lo >= len(s.want) {
		return nil
	}
	return s.want[s.off+i-s.lo]
}

// Missing lists, at the end of a run, the operations that got no result
// (at most n of them) and how many there are in all.
func (s *Board) Missing(n int) ([]string, int) {
	var out []string
	total := 0
	for i := s.lo; i < s.feed.Made(); i++ {
		if s.pending(i) != nil || i >= s.next {
			total++
			if len(out) < n {
				out = append(out, fmt.Sprintf("seq %d (%s)", i, s.describe(i)))
			}
		}
	}
	return out, total
}

// Checked is the number of results checked.
func (s *Board) Checked() int { return s.seen }

// Summary says how the check went, in one line: "all N results agree with
// the golden model", or the count of differences and the first of them.
func (s *Board) Summary() string {
	if s.Mismatches == 0 {
		return fmt.Sprintf("all %d results agree with the golden model", s.seen)
	}
	return fmt.Sprintf("%d of %d results differ from the golden model; first: %s", s.Mismatches, s.seen, strings.Join(s.First, "; "))
}

// describeOp names an operation in a difference report.
func describeOp(op *scenario.Op) string {
	switch op.Kind {
	case scenario.OpAccess:
		a := &op.Access
		return fmt.Sprintf("access qpn %d key %v addr %#x len %d %v", a.QPN, a.Key, a.Addr, a.Len, a.Type)
	case scenario.OpCreateMKey:
		if op.Create.HasIndex {
			return fmt.Sprintf("create_mkey index %d", op.Create.Index)
		}
		return "create_mkey"
	case scenario.OpDestroyMKey, scenario.OpQueryMKey:
		return fmt.Sprintf("%v index %d", op.Kind, op.Index)
	case scenario.OpUMR:
		return fmt.Sprintf("umr qpn %d key %v mask %#x", op.UMR.QPN, op.UMR.Key, uint64(op.UMR.Mask))
	case scenario.OpLocalInvalidate, scenario.OpSendWithInvalidate:
		return fmt.Sprintf("%v qpn %d key %v", op.Kind, op.QPN, op.Key)
	case scenario.OpPageFaultResume:
		return fmt.Sprintf("page_fault_resume key %v ok %v", op.Key, op.OK)
	case scenario.OpIOMMUUnmap:
		return fmt.Sprintf("iommu_unmap %v iova %#x size %#x", op.Unmap.Space, op.Unmap.IOVA, op.Unmap.Size)
	}
	return op.Kind.String()
}
