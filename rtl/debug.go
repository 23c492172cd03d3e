package rtl

import "fmt"

// Dump describes the reorder buffer's entries, for watchdog reports.
func (t *Top) Dump() string {
	s := ""
	for i := 0; i < t.count; i++ {
		e := &t.rob[(t.head+i)%len(t.rob)]
		s += fmt.Sprintf("[seq %d key %v addr %#x len %d type %v: %d bytes covered, %d segments, failed %v] ",
			e.seq, e.acc.Key, e.acc.Addr, e.acc.Len, e.acc.Type, e.covered, len(e.segs), e.failed)
	}
	return s
}

// Oldest describes the oldest operation in the model: the command being
// run, or the access at the head of the reorder buffer (for watchdog
// reports).
func (t *Top) Oldest() string {
	if t.cmd != cmdIdle {
		return fmt.Sprintf("seq %d %v, command path in %s", t.cur.Seq, t.cur.Op.Kind, CmdStateNames()[uint64(t.cmd)])
	}
	if t.count == 0 {
		return "none in flight"
	}
	e := &t.rob[t.head]
	return fmt.Sprintf("seq %d access key %v addr %#x len %d %v, %d of its bytes accounted for", e.seq, e.acc.Key, e.acc.Addr, e.acc.Len, e.acc.Type, e.covered)
}
