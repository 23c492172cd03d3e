package scenario

import (
	"fmt"
	"mkeysim/prm"
	"strings"
)

// Diff compares two results the way conformance runs do: seq, op and
// status; segments (space, addr, len and pa, which one side lacking is a
// difference), segments_left_out and (when both have it) the digest
// of the segments left out of a successful access; level and offset of a failure;
// fault_key and fault_addr of a PAGE_FAULT or an IOMMU_FAULT; index and key of a create;
// mkc_hex, the list (entry by entry, streamed: see DiffList) and
// entries_left_out of a query; resumed entries likewise. The reason
// of BAD_PARAM and the cycle are not compared. It returns "" when they
// agree, else the first difference.
func Diff(got, want *Result) string {
	if got.Seq != want.Seq || got.Op != want.Op || got.Status != want.Status {
		return fmt.Sprintf("seq %d: got %d %v %v, want %d %v %v", want.Seq, got.Seq, got.Op, got.Status, want.Seq, want.Op, want.Status)
	}
	if got.Op == OpAccess {
		if d := diffAccess(got, want); d != "" {
			return fmt.Sprintf("seq %d: %s", want.Seq, d)
		}
	}
	if got.Status != 0 {
		return ""
	}
	switch got.Op {
	case OpCreateMKey:
		if got.Index != want.Index || got.Key != want.Key {
			return fmt.Sprintf("seq %d: created index %d key %v, want %d %v", want.Seq, got.Index, got.Key, want.Index, want.Key)
		}
	case OpQueryMKey:
		if got.MKC != want.MKC {
			return fmt.Sprintf("seq %d: mkc_hex %s, want %s", want.Seq, got.MKC.Hex(), want.MKC.Hex())
		}
		if d := DiffList(got.List, want.List); d != "" {
			return fmt.Sprintf("seq %d: %s", want.Seq, d)
		}
		if got.EntriesLeftOut != want.EntriesLeftOut {
			return fmt.Sprintf("seq %d: entries_left_out %d, want %d", want.Seq, got.EntriesLeftOut, want.EntriesLeftOut)
		}
	case OpQueryPages:
		if got.NumPages != want.NumPages {
			return fmt.Sprintf("seq %d: num_pages %d, want %d", want.Seq, got.NumPages, want.NumPages)
		}
	case OpPageFaultResume:
		if len(got.Resumed) != len(want.Resumed) {
			return fmt.Sprintf("seq %d: %d resumed, want %d", want.Seq, len(got.Resumed), len(want.Resumed))
		}
		for i := range want.Resumed {
			g, w := got.Resumed[i], want.Resumed[i]
			if g.Seq != w.Seq || g.Status != w.Status {
				return fmt.Sprintf("seq %d: resumed[%d] is seq %d %v, want seq %d %v", want.Seq, i, g.Seq, g.Status, w.Seq, w.Status)
			}
			if d := diffAccess(&g, &w); d != "" {
				return fmt.Sprintf("seq %d: resumed[%d]: %s", want.Seq, i, d)
			}
		}
	}
	return ""
}

// DiffLegal is Diff accepting any outcome want allows: got agrees when it
// matches want or one of want.AlsoLegal (an access that may have started
// before a UMR of its send queue completed). The difference reported is
// the one from want itself.
func DiffLegal(got, want *Result) string {
	d := Diff(got, want)
	if d == "" {
		return ""
	}
	if LegalIndex(got, want) >= 0 {
		return ""
	}
	return d
}

// LegalIndex is the index in want.AlsoLegal of the outcome got matches,
// -1 when none does (or got matches want itself first).
func LegalIndex(got, want *Result) int {
	for i := range want.AlsoLegal {
		alt := want.AlsoLegal[i]
		alt.Seq, alt.Op = want.Seq, want.Op
		if Diff(got, &alt) == "" {
			return i
		}
	}
	return -1
}

func diffAccess(got, want *Result) string {
	if got.Status == 0 {
		if len(got.Segments) != len(want.Segments) {
			return fmt.Sprintf("%d segments, want %d", len(got.Segments), len(want.Segments))
		}
		if i := firstDiff(got.Segments, want.Segments); i >= 0 {
			if len(want.Segments) <= 8 {
				return fmt.Sprintf("segments %s, want %s", segments(got.Segments), segments(want.Segments))
			}
			return fmt.Sprintf("segments[%d] %s, want %s", i, segments(got.Segments[i:i+1]), segments(want.Segments[i:i+1]))
		}
		if got.SegmentsLeftOut != want.SegmentsLeftOut {
			return fmt.Sprintf("segments_left_out %d, want %d", got.SegmentsLeftOut, want.SegmentsLeftOut)
		}
		if got.LeftOutSum != 0 && want.LeftOutSum != 0 && got.LeftOutSum != want.LeftOutSum {
			return fmt.Sprintf("the %d segments left out of the line differ (digest %#x, want %#x)", want.SegmentsLeftOut, uint64(got.LeftOutSum), uint64(want.LeftOutSum))
		}
		return ""
	}
	if got.Level != want.Level || got.Offset != want.Offset {
		return fmt.Sprintf("level %d offset %d, want level %d offset %d", got.Level, got.Offset, want.Level, want.Offset)
	}
	if (got.Status == prm.PageFault || got.Status == prm.IOMMUFault) && (got.FaultKey != want.FaultKey || got.FaultAddr != want.FaultAddr) {
		return fmt.Sprintf("fault_key %v fault_addr %#x, want %v %#x", got.FaultKey, got.FaultAddr, want.FaultKey, want.FaultAddr)
	}
	return ""
}

// firstDiff is the index of the first segment where a and b (of one
// length) differ, or -1.
func firstDiff(a, b []prm.Segment) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// segments shows segments as result lines write them, addresses in hex:
// "[dma 0x5000 len 16]".
func segments(ss []prm.Segment) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%v %#x len %d", s.Space, s.Addr, s.Len)
		if s.HasPA {
			fmt.Fprintf(&b, " pa %#x", s.PA)
		}
	}
	b.WriteByte(']')
	return b.String()
}
