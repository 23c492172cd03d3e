package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"mkeysim/prm"
)

// rawResult is a result line as JSON gives it.
type rawResult struct {
	Seq             int          `json:"seq"`
	Op              string       `json:"op"`
	Status          string       `json:"status"`
	Reason          string       `json:"reason"`
	Segments        []rawSegment `json:"segments"`
	Level           int          `json:"level"`
	Offset          json.Number  `json:"offset"`
	FaultKey        string       `json:"fault_key"`
	FaultAddr       string       `json:"fault_addr"`
	Index           uint32       `json:"index"`
	NumPages        int64        `json:"num_pages"`
	Key             string       `json:"key"`
	MKCHex          string       `json:"mkc_hex"`
	MTT             []rawMTT     `json:"mtt"`
	KLM             []rawKLM     `json:"klm"`
	EntriesLeftOut  uint64       `json:"entries_left_out"`
	SegmentsLeftOut uint64       `json:"segments_left_out"`
	Resumed         []rawResult  `json:"resumed"`
	AlsoLegal       []rawResult  `json:"also_legal"`
	Cycle           *uint64      `json:"cycle"`
}

type rawSegment struct {
	Space string      `json:"space"`
	Addr  string      `json:"addr"`
	PA    *string     `json:"pa"`
	Len   json.Number `json:"len"`
}

type rawMTT struct {
	PTag string `json:"ptag"`
	RdEn int    `json:"rd_en"`
	WrEn int    `json:"wr_en"`
}

type rawKLM struct {
	ByteCount json.Number `json:"byte_count"`
	MKey      string      `json:"mkey"`
	Address   string      `json:"address"`
}

// ReadResults parses result lines (one JSON object a line; blank lines are
// skipped). Errors name the line.
func ReadResults(r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		res, err := ParseResult(b)
		if err != nil {
			return out, fmt.Errorf("line %d: %v", line, err)
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

// ParseResult parses one result line.
func ParseResult(b []byte) (Result, error) {
	var raw rawResult
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Result{}, err
	}
	return raw.result(raw.Op)
}

func hexNum(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	return ParseUint(s, true)
}

func (raw *rawResult) result(op string) (Result, error) {
	var r Result
	var ok bool
	var err error
	r.Seq = raw.Seq
	if r.Op, ok = ParseOpKind(op); !ok {
		return r, fmt.Errorf("unknown op %s", quote(op))
	}
	if r.Status, ok = prm.ParseStatus(raw.Status); !ok {
		return r, fmt.Errorf("unknown status %s", quote(raw.Status))
	}
	r.Reason = raw.Reason
	r.Level = raw.Level
	if raw.Offset != "" {
		if r.Offset, err = ParseUint(string(raw.Offset), false); err != nil {
			return r, fmt.Errorf("offset: %v", err)
		}
	}
	var v uint64
	if v, err = hexNum(raw.FaultKey); err != nil {
		return r, fmt.Errorf("fault_key: %v", err)
	}
	r.FaultKey = prm.Key(v)
	if r.FaultAddr, err = hexNum(raw.FaultAddr); err != nil {
		return r, fmt.Errorf("fault_addr: %v", err)
	}
	r.Index = raw.Index
	r.NumPages = raw.NumPages
	r.EntriesLeftOut, r.SegmentsLeftOut = raw.EntriesLeftOut, raw.SegmentsLeftOut
	if v, err = hexNum(raw.Key); err != nil {
		return r, fmt.Errorf("key: %v", err)
	}
	r.Key = prm.Key(v)
	if r.Op == OpAccess && r.Status == prm.OK {
		r.Segments = []prm.Segment{}
	}
	for i, s := range raw.Segments {
		var seg prm.Segment
		switch s.Space {
		case "dma":
		case "sw_icm":
			seg.Space = prm.SpaceSWICM
		case "memic":
			seg.Space = prm.SpaceMEMIC
		default:
			return r, fmt.Errorf("segments[%d].space: unknown %s", i, quote(s.Space))
		}
		if seg.Addr, err = hexNum(s.Addr); err != nil {
			return r, fmt.Errorf("segments[%d].addr: %v", i, err)
		}
		if s.PA != nil {
			if seg.PA, err = ParseUint(*s.PA, true); err != nil {
				return r, fmt.Errorf("segments[%d].pa: %v", i, err)
			}
			seg.HasPA = true
		}
		if seg.Len, err = ParseUint(string(s.Len), false); err != nil {
			return r, fmt.Errorf("segments[%d].len: %v", i, err)
		}
		r.Segments = append(r.Segments, seg)
	}
	if raw.MKCHex != "" {
		// A query's image is as the model keeps it; reserved bits are reported.
		if r.MKC, err = prm.ParseMKCHex(raw.MKCHex); err != nil {
			return r, fmt.Errorf("mkc_hex: %v", err)
		}
	}
	if raw.MTT != nil && raw.KLM != nil {
		return r, fmt.Errorf("both mtt and klm")
	}
	if raw.MTT != nil {
		mtt := make([]prm.MTTEntry, len(raw.MTT))
		for i, e := range raw.MTT {
			pt, err := hexNum(e.PTag)
			if err != nil {
				return r, fmt.Errorf("mtt[%d].ptag: %v", i, err)
			}
			mtt[i] = prm.MTTEntry{PTag: pt, RdEn: e.RdEn == 1, WrEn: e.WrEn == 1}
		}
		r.List = NewMTTList(mtt)
	}
	if raw.KLM != nil {
		klm := make([]prm.KLMEntry, len(raw.KLM))
		for i, e := range raw.KLM {
			bc, err := ParseUint(string(e.ByteCount), false)
			if err != nil {
				return r, fmt.Errorf("klm[%d].byte_count: %v", i, err)
			}
			k, err := hexNum(e.MKey)
			if err != nil {
				return r, fmt.Errorf("klm[%d].mkey: %v", i, err)
			}
			a, err := hexNum(e.Address)
			if err != nil {
				return r, fmt.Errorf("klm[%d].address: %v", i, err)
			}
			klm[i] = prm.KLMEntry{ByteCount: uint32(bc), MKey: prm.Key(k), Address: a}
		}
		r.List = NewKLMList(klm)
	}
	for i := range raw.Resumed {
		sub, err := raw.Resumed[i].result("access")
		if err != nil {
			return r, fmt.Errorf("resumed[%d]: %v", i, err)
		}
		r.Resumed = append(r.Resumed, sub)
	}
	if len(raw.AlsoLegal) > 0 && r.Op != OpAccess {
		return r, fmt.Errorf("also_legal on a %v line (only an access has it)", r.Op)
	}
	for i := range raw.AlsoLegal {
		raw.AlsoLegal[i].Seq = raw.Seq
		alt, err := raw.AlsoLegal[i].result("access")
		if err != nil {
			return r, fmt.Errorf("also_legal[%d]: %v", i, err)
		}
		r.AlsoLegal = append(r.AlsoLegal, alt)
	}
	if raw.Cycle != nil {
		r.Cycle, r.HasCycle = *raw.Cycle, true
	}
	return r, nil
}
