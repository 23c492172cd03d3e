package score

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// Judging a QUERY_MKEY: the window of the list it shows (scenario.md's
// query_mkey row) and the MKC and list words against the shadow's.

// isoQueryWindow is the part of m's list a query with window w lists, by
// scenario.md's query_mkey row: the entries [first, first+n) and how many
// more of the range asked are left out; ok is false for an offset past
// the capacity (BAD_PARAM). A mode without a list has an empty window.
func isoQueryWindow(w *scenario.QueryWindow, m *prm.MKC) (first, n, left uint64, ok bool) {
	var capacity uint64
	switch m.AccessMode {
	case prm.ModeMTT:
		capacity = 2 * uint64(m.TranslationsOctwordSize)
	case prm.ModeKLM, prm.ModeFixedBufferSize:
		capacity = uint64(m.TranslationsOctwordSize)
	default:
		return 0, 0, 0, true // offset and count are ignored
	}
	asked := capacity
	if w != nil {
		if w.Offset > capacity {
			return 0, 0, 0, false
		}
		first, asked = w.Offset, capacity-w.Offset
		if w.HasCount && w.Count < asked {
			asked = w.Count
		}
	}
	n = min(asked, isoMaxEntries)
	return first, n, asked - n, true
}

// judgeQuery compares a query's answer with the shadow: the MKC, and the
// list words of the window the query asked for (isoQueryWindow) with the
// count of the entries left out.
func (s *Isolation) judgeQuery(got *scenario.Result, want *prm.MKC, w *scenario.QueryWindow) string {
	if got.MKC != *want {
		return fmt.Sprintf("mkc %s, want %s", got.MKC.Hex(), want.Hex())
	}
	first, n, left, _ := isoQueryWindow(w, want)
	h := want.MTTHandle
	switch want.AccessMode {
	case prm.ModeMTT:
		if got.List.Kind() != scenario.ListMTT || got.List.Len() != n || got.EntriesLeftOut != left {
			return fmt.Sprintf("list of %d %v entries, %d left out; want %d MTT, %d left out", got.List.Len(), got.List.Kind(), got.EntriesLeftOut, n, left)
		}
		for i := range n {
			a := h + 8*(first+i)
			if w := isoMTTWord(got.List.MTT(i)); w != s.words[a]&^0xfc {
				return fmt.Sprintf("MTT entry %d is %#x, the shadow's %#x", first+i, w, s.words[a])
			}
		}
	case prm.ModeKLM, prm.ModeFixedBufferSize:
		if got.List.Kind() != scenario.ListKLM || got.List.Len() != n || got.EntriesLeftOut != left {
			return fmt.Sprintf("list of %d %v entries, %d left out; want %d KLM, %d left out", got.List.Len(), got.List.Kind(), got.EntriesLeftOut, n, left)
		}
		for i := range n {
			a := h + 16*(first+i)
			e := got.List.KLM(i)
			if uint64(e.ByteCount)<<32|uint64(e.MKey) != s.words[a] || e.Address != s.words[a+8] {
				return fmt.Sprintf("KLM entry %d is %+v, the shadow's %#x %#x", first+i, e, s.words[a], s.words[a+8])
			}
		}
	default:
		if got.List != nil {
			return fmt.Sprintf("a list of %d entries for mode %v", got.List.Len(), want.AccessMode)
		}
	}
	return ""
}
