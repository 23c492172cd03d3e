package scenario

import (
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
	Segments  []prm.Segment // OK
	Level     int           // failure: the level where it arose
	Offset    uint64        // failure: byte offset in the request
	FaultKey  prm.Key       // PAGE_FAULT
	FaultAddr uint64        // PAGE_FAULT

	// create_mkey
	Index uint32
	Key   prm.Key

	// query_mkey
	MKC     prm.MKC
	MTT     []prm.MTTEntry
	KLM     []prm.KLMEntry
	HasList bool // write mtt (MTT mode) or klm (KLM, Fixed Buffer Size)

	// page_fault_resume
	Resumed []Result

	// Cycle is the clocked model's completion cycle, written when HasCycle.
	Cycle    uint64
	HasCycle bool
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
// newline.
func (r *Result) AppendJSON(b []byte) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(r.Seq), 10)
	b = append(b, `,"op":"`...)
	b = append(b, r.Op.String()...)
	return r.appendBody(b)
}

// appendBody writes status and the fields after it, and closes the object.
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
			if r.HasList {
				b = r.appendList(b)
			}
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
	if r.HasCycle {
		b = append(b, `,"cycle":`...)
		b = strconv.AppendUint(b, r.Cycle, 10)
	}
	return append(b, '}')
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
			b = append(b, `,"len":`...)
			b = strconv.AppendUint(b, s.Len, 10)
			b = append(b, '}')
		}
		return append(b, ']')
	}
	b = append(b, `,"level":`...)
	b = strconv.AppendInt(b, int64(r.Level), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendUint(b, r.Offset, 10)
	if r.Status == prm.PageFault {
		b = append(b, `,"fault_key":`...)
		b = appendHex(b, uint64(r.FaultKey))
		b = append(b, `,"fault_addr":`...)
		b = appendHex(b, r.FaultAddr)
	}
	return b
}

func (r *Result) appendList(b []byte) []byte {
	if r.MKC.AccessMode.UsesMTTList() {
		b = append(b, `,"mtt":[`...)
		for i, e := range r.MTT {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"ptag":`...)
			b = appendHex(b, e.PTag)
			b = append(b, `,"rd_en":`...)
			b = appendBit(b, e.RdEn)
			b = append(b, `,"wr_en":`...)
			b = appendBit(b, e.WrEn)
			b = append(b, '}')
		}
		return append(b, ']')
	}
	b = append(b, `,"klm":[`...)
	for i, e := range r.KLM {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"byte_count":`...)
		b = strconv.AppendUint(b, uint64(e.ByteCount), 10)
		b = append(b, `,"mkey":`...)
		b = appendHex(b, uint64(e.MKey))
		b = append(b, `,"address":`...)
		b = appendHex(b, e.Address)
		b = append(b, '}')
	}
	return append(b, ']')
}
