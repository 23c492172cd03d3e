package rtl

import "fmt"

// Dump describes the reorder buffer's entries, for watchdog reports.
func (t *Top) Dump() string {
	s := ""
	for i := 0; i < t.rob.count; i++ {
		e := &t.rob.entries[(t.rob.head+i)%len(t.rob.entries)]
		s += fmt.Sprintf("[seq %d key %v addr %#x len %d type %v: %d bytes covered, %d segments, failed %v] ",
			e.seq, e.acc.Key, e.acc.Addr, e.acc.Len, e.acc.Type, e.covered, len(e.segs), e.failed)
	}
	return s
}

// Oldest describes the oldest operation in the model: the command being
// run, or the access at the head of the reorder buffer (for watchdog
// reports).
func (t *Top) Oldest() string {
	if t.cmd.state != cmdIdle {
		return fmt.Sprintf("seq %d %v, command path in %s", t.cmd.cur.Seq, t.cmd.cur.Op.Kind, CmdStateNames()[uint64(t.cmd.state)])
	}
	if t.rob.count == 0 {
		return "none in flight"
	}
	e := t.rob.oldest()
	return fmt.Sprintf("seq %d access key %v addr %#x len %d %v, %d of its bytes accounted for", e.seq, e.acc.Key, e.acc.Addr, e.acc.Len, e.acc.Type, e.covered)
}
