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
