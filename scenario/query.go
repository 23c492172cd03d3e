package scenario

import "fmt"

// MaxQueryEntries is the most entries one query_mkey result lists
// (scenario.md, the query_mkey row): a key may reserve 2^33 MTT entries,
// about 300 GB of JSON, so like the PRM's QUERY_MKEY, whose output mailbox
// carries only the first entries, a query answers with a window and says
// how many entries of the range asked it left out. At most 4,096 KLM
// entries are about 250 KB of JSON.
const MaxQueryEntries = 4096

// QueryWindow is the part of a key's list a query_mkey asks for, in
// entries (MTT entries in MTT mode, KLM entries in KLM and Fixed Buffer
// Size mode). The zero window (and a nil one) asks for every entry from
// the first: at most MaxQueryEntries of them are listed.
type QueryWindow struct {
	Offset   uint64 // the first entry asked for ("offset", 0)
	Count    uint64 // how many, when HasCount ("count")
	HasCount bool   // else every entry from Offset to the end of the capacity
}

// QueryRange is what a query lists of a list of capacity entries: the
// entries [First, First+N) and how many more of the range asked it leaves
// out (written as "entries_left_out" when not 0).
type QueryRange struct {
	First, N, LeftOut uint64
}

// Range is what a query with window w (nil: the default) lists of a list
// of capacity entries: from the offset, at most the count asked, never
// past the capacity and never more than MaxQueryEntries; the rest of the
// range asked is LeftOut. An offset past the capacity is an error, which
// both models answer with BAD_PARAM and the error's text as the reason;
// an offset equal to the capacity lists nothing.
func (w *QueryWindow) Range(capacity uint64) (QueryRange, error) {
	var first uint64
	asked := capacity
	if w != nil {
		if w.Offset > capacity {
			return QueryRange{}, fmt.Errorf("offset past the capacity: offset %d, capacity %d entries", w.Offset, capacity)
		}
		first = w.Offset
		asked = capacity - first
		if w.HasCount {
			asked = min(asked, w.Count)
		}
	}
	n := min(asked, MaxQueryEntries)
	return QueryRange{First: first, N: n, LeftOut: asked - n}, nil
}
