package scenario

import (
	"bufio"
	"io"
	"strconv"

	"mkeysim/prm"
)

// Result is the result line of one operation (scenario.md, "Operations and
// their result lines"). Which fields are written depends on Op and Status.
type Result struct {
	Seq    int
	Op     OpKind
	Status prm.Status
	Reason string // BAD_PARAM: why the command was refused

	// access
	Segments []prm.Segment // OK: the first MaxSegments in request order
	// SegmentsLeftOut is how many segments of an OK access follow the
	// MaxSegments listed ("segments_left_out", written when not 0), and
	// LeftOutSum their digest (not written: a line read back has 0), which
	// Diff compares when both sides have one.
	SegmentsLeftOut uint64
	LeftOutSum      SegmentSum
	Level           int     // failure: the level where it arose
	Offset          uint64  // failure: byte offset in the request
	FaultKey        prm.Key // PAGE_FAULT, IOMMU_FAULT: the key whose page or segment faulted
	FaultAddr       uint64  // PAGE_FAULT: the address in that key's space; IOMMU_FAULT: the IOVA

	// create_mkey
	Index uint32
	Key   prm.Key

	// query_mkey
	MKC prm.MKC
	// List is the queried list, written as "mtt" or "klm" by its kind;
	// nil for a mode without a list. A model's list is a snapshot of the
	// ICM read on demand, of at most MaxQueryEntries entries: write it
	// with WriteLine, compare it with Diff (see List).
	List *List
	// EntriesLeftOut is how many entries of the range the query asked
	// for follow the MaxQueryEntries it lists (QueryWindow.Range),
	// written as "entries_left_out" when not 0.
	EntriesLeftOut uint64

	// page_fault_resume
	Resumed []Result

	// AlsoLegal (an access, the golden model's line): the other outcomes
	// the ordering rules allow, each an access result without seq and op
	// (written as "also_legal" when not empty). A WQE that may start
	// before a UMR of its send queue completes may see the old mapping or
	// the new (prm.MayPass): the line is the new, AlsoLegal the old.
	AlsoLegal []Result

	// query_pages: the pages asked for (regular: negative when the HCA
	// holds pages it could give back)
	NumPages int64

	// Cycle is the clocked model's completion cycle, written when HasCycle.
	Cycle    uint64
	HasCycle bool
}

// Clone returns a copy of r that shares no memory with it (a result a
// model hands over only for the time of a call is kept this way).
func (r *Result) Clone() Result {
	c := *r
	c.Segments = append([]prm.Segment(nil), r.Segments...)
	if r.AlsoLegal != nil {
		c.AlsoLegal = make([]Result, len(r.AlsoLegal))
		for i := range r.AlsoLegal {
			c.AlsoLegal[i] = r.AlsoLegal[i].Clone()
		}
	}
	if r.Resumed != nil {
		c.Resumed = make([]Result, len(r.Resumed))
		for i := range r.Resumed {
			c.Resumed[i] = r.Resumed[i].Clone()
		}
	}
	return c
}

func appendHex(b []byte, v uint64) []byte {
	b = append(b, `"0x`...)
	b = strconv.AppendUint(b, v, 16)
	return append(b, '"')
}

func appendBit(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// AppendJSON appends the result as one compact JSON object, without a
// newline. It builds the whole line in b: for lines whose size is known to
// be small (tests, tools). Lines for users are written with WriteLine or
// WriteResults, which write a query's list a chunk at a time.
func (r *Result) AppendJSON(b []byte) []byte {
	b, _ = r.encode(b, nil)
	return b
}

// lineChunk is the most WriteLine holds before writing to its writer.
const lineChunk = 32 << 10

// WriteLine writes the result line to w: one compact JSON object and a
// newline, the format of scenario.md "How result lines are written", the
// same bytes as AppendJSON and '\n'. A query's list is streamed from its
// snapshot: the line is written in pieces of about 32 KB, and WriteLine
// allocates a constant whatever the line's length (at most a few MB:
// MaxQueryEntries entries, MaxSegments segments). It stops at w's first error and
// returns it; the line is then cut short. Wrap an unbuffered w in a
// bufio.Writer (and flush it) or use WriteResults.
func (r *Result) WriteLine(w io.Writer) error {
	lw := LineWriter{W: w}
	return lw.Write(r)
}

// LineWriter writes result lines to W as WriteLine does, keeping its
// buffer from line to line: a run writes a line per operation, and a
// fresh buffer each would cost more than the simulation.
type LineWriter struct {
	W   io.Writer
	buf []byte
}

// Write writes r's line, its list streamed; it returns the first error
// of W.
func (lw *LineWriter) Write(r *Result) error {
	if lw.buf == nil {
		lw.buf = make([]byte, 0, lineChunk+1024)
	}
	flush := func(b []byte) ([]byte, error) {
		_, err := lw.W.Write(b)
		return b[:0], err
	}
	b, err := r.encode(lw.buf[:0], flush)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = lw.W.Write(b)
	lw.buf = b[:0]
	return err
}

// WriteResults writes each result's line to w (WriteLine), buffered, and
// flushes. It stops at the first error and returns it, the lines before
// it written whole. It is the function that writes result lines for
// users; its memory is a constant, whatever the results' lists hold.
func WriteResults(w io.Writer, results []Result) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	lw := LineWriter{W: bw}
	for i := range results {
		if err := lw.Write(&results[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// encode appends the line to b. With flush, it hands b to flush whenever
// it holds lineChunk bytes or more and goes on with what flush returns;
// without, the whole line is appended.
func (r *Result) encode(b []byte, flush func([]byte) ([]byte, error)) ([]byte, error) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(r.Seq), 10)
	b = append(b, `,"op":"`...)
	b = append(b, r.Op.String()...)
	b = r.appendBody(b)
	if r.Op == OpQueryMKey && r.Status == prm.OK && r.List != nil {
		var err error
		if b, err = r.List.appendEntries(b, flush); err != nil {
			return b, err
		}
	}
	if r.HasCycle {
		b = append(b, `,"cycle":`...)
		b = strconv.AppendUint(b, r.Cycle, 10)
	}
	return append(b, '}'), nil
}

// appendBody writes status and the fields after it, up to the list of a
// query (written by encode) and the cycle.
func (r *Result) appendBody(b []byte) []byte {
	b = append(b, `","status":"`...)
	b = append(b, r.Status.String()...)
	b = append(b, '"')
	if r.Reason != "" {
		b = append(b, `,"reason":`...)
		b = strconv.AppendQuote(b, r.Reason)
	}
	switch r.Op {
	case OpAccess:
		b = r.appendAccess(b)
		if len(r.AlsoLegal) > 0 {
			b = append(b, `,"also_legal":[`...)
			for i := range r.AlsoLegal {
				if i > 0 {
					b = append(b, ',')
				}
				x := &r.AlsoLegal[i]
				b = append(b, `{"status":"`...)
				b = append(b, x.Status.String()...)
				b = append(b, '"')
				b = x.appendAccess(b)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
	case OpCreateMKey:
		if r.Status == prm.OK {
			b = append(b, `,"index":`...)
			b = strconv.AppendUint(b, uint64(r.Index), 10)
			b = append(b, `,"key":`...)
			b = appendHex(b, uint64(r.Key))
		}
	case OpQueryMKey:
		if r.Status == prm.OK {
			b = append(b, `,"mkc_hex":"`...)
			b = append(b, r.MKC.Hex()...)
			b = append(b, '"')
			if r.EntriesLeftOut != 0 {
				b = append(b, `,"entries_left_out":`...)
				b = strconv.AppendUint(b, r.EntriesLeftOut, 10)
			}
		}
	case OpQueryPages:
		if r.Status == prm.OK {
			b = append(b, `,"num_pages":`...)
			b = strconv.AppendInt(b, r.NumPages, 10)
		}
	case OpPageFaultResume:
		if r.Status == prm.OK {
			b = append(b, `,"resumed":[`...)
			for i := range r.Resumed {
				if i > 0 {
					b = append(b, ',')
				}
				x := &r.Resumed[i]
				b = append(b, `{"seq":`...)
				b = strconv.AppendInt(b, int64(x.Seq), 10)
				b = append(b, `,"status":"`...)
				b = append(b, x.Status.String()...)
				b = append(b, '"')
				b = x.appendAccess(b)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
	}
	return b
}

func (r *Result) appendAccess(b []byte) []byte {
	if r.Status == prm.OK {
		b = append(b, `,"segments":[`...)
		for i, s := range r.Segments {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"space":"`...)
			b = append(b, s.Space.String()...)
			b = append(b, `","addr":`...)
			b = appendHex(b, s.Addr)
			if s.HasPA {
				b = append(b, `,"pa":`...)
				b = appendHex(b, s.PA)
			}
			b = append(b, `,"len":`...)
			b = strconv.AppendUint(b, s.Len, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
		if r.SegmentsLeftOut != 0 {
			b = append(b, `,"segments_left_out":`...)
			b = strconv.AppendUint(b, r.SegmentsLeftOut, 10)
		}
		return b
	}
	b = append(b, `,"level":`...)
	b = strconv.AppendInt(b, int64(r.Level), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendUint(b, r.Offset, 10)
	if r.Status == prm.PageFault || r.Status == prm.IOMMUFault {
		b = append(b, `,"fault_key":`...)
		b = appendHex(b, uint64(r.FaultKey))
		b = append(b, `,"fault_addr":`...)
		b = appendHex(b, r.FaultAddr)
	}
	return b
}

// appendEntries appends `,"mtt":[...]` or `,"klm":[...]`, a chunk of
// entries at a time, handing b to flush (if not nil) whenever it holds
// lineChunk bytes.
func (l *List) appendEntries(b []byte, flush func([]byte) ([]byte, error)) ([]byte, error) {
	b = append(b, ',', '"')
	b = append(b, l.kind.String()...)
	b = append(b, `":[`...)
	rd := chunkReader{l: l}
	for i := uint64(0); i < l.count; {
		mtt, klm := rd.read(i)
		for k := range mtt {
			if i+uint64(k) > 0 {
				b = append(b, ',')
			}
			b = appendMTT(b, mtt[k])
		}
		for k := range klm {
			if i+uint64(k) > 0 {
				b = append(b, ',')
			}
			b = appendKLM(b, klm[k])
		}
		i += uint64(len(mtt) + len(klm))
		if flush != nil && len(b) >= lineChunk {
			var err error
			if b, err = flush(b); err != nil {
				return b, err
			}
		}
	}
	return append(b, ']'), nil
}

func appendMTT(b []byte, e prm.MTTEntry) []byte {
	b = append(b, `{"ptag":`...)
	b = appendHex(b, e.PTag)
	b = append(b, `,"rd_en":`...)
	b = appendBit(b, e.RdEn)
	b = append(b, `,"wr_en":`...)
	b = appendBit(b, e.WrEn)
	return append(b, '}')
}

func appendKLM(b []byte, e prm.KLMEntry) []byte {
	b = append(b, `{"byte_count":`...)
	b = strconv.AppendUint(b, uint64(e.ByteCount), 10)
	b = append(b, `,"mkey":`...)
	b = appendHex(b, uint64(e.MKey))
	b = append(b, `,"address":`...)
	b = appendHex(b, e.Address)
	return append(b, '}')
}
