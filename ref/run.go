package ref

import (
	"fmt"

	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// stalled is an access waiting on a page fault of FaultKey.
type stalled struct {
	seq     int
	req     Request
	outcome Outcome // the PAGE_FAULT
}

// Access translates req as operation seq: a PAGE_FAULT stalls it until a
// PAGE_FAULT_RESUME of its fault key.
func (m *Model) Access(seq int, req Request) Outcome { return m.access(seq, req, nil) }

// access is Access appending the segments to buf.
func (m *Model) access(seq int, req Request, buf []prm.Segment) Outcome {
	out := m.Translate(req, buf)
	if m.cfg.Coverage != nil {
		m.cfg.Coverage.Result(req.Type, req.Len, out.Status, out.Level)
	}
	if out.Status == prm.PageFault {
		m.stalled = append(m.stalled, stalled{seq: seq, req: req, outcome: out})
	}
	return out
}

// Resumed is the new outcome of an access run again by PAGE_FAULT_RESUME.
type Resumed struct {
	Seq int
	Outcome
}

// Resume runs PAGE_FAULT_RESUME for key: with ok, each access stalled on it
// runs again from the start (a new fault stalls it again); without, each
// ends with PAGE_ACCESS at the level and offset of its fault. It refuses
// (BAD_PARAM) when no access is stalled on key.
func (m *Model) Resume(key prm.Key, ok bool) ([]Resumed, *Refusal) {
	var mine []stalled
	rest := m.stalled[:0]
	for _, s := range m.stalled {
		if s.outcome.FaultKey == key {
			mine = append(mine, s)
		} else {
			rest = append(rest, s)
		}
	}
	if len(mine) == 0 {
		return nil, badParam("no stalled access")
	}
	m.stalled = rest
	cov := m.cfg.Coverage
	if len(mine) > 1 {
		cov.Hit(cover.ResumeMany)
	}
	out := make([]Resumed, len(mine))
	for i, s := range mine {
		if ok {
			out[i] = Resumed{Seq: s.seq, Outcome: m.Translate(s.req, nil)}
			if out[i].Status == prm.PageFault {
				m.stalled = append(m.stalled, stalled{seq: s.seq, req: s.req, outcome: out[i].Outcome})
			}
			cov.Resumed(out[i].Status)
		} else {
			out[i] = Resumed{Seq: s.seq, Outcome: Outcome{Status: prm.PageAccess, Level: s.outcome.Level, Offset: s.outcome.Offset}}
			cov.Hit(cover.ResumeError)
		}
		cov.Result(s.req.Type, s.req.Len, out[i].Status, out[i].Level)
	}
	sortStalled(m.stalled)
	return out, nil
}

func sortStalled(s []stalled) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].seq < s[j-1].seq; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Stalled is the number of accesses waiting on page faults.
func (m *Model) Stalled() int { return len(m.stalled) }

// Load declares the scenario's QPs, makes the IOMMU's mappings of its
// iommu section and creates its initial MKeys in order. An MKey that
// CREATE_MKEY refuses is a scenario error naming mkeys[i].
func (m *Model) Load(sc *scenario.Scenario) error {
	for _, qp := range sc.QPs {
		m.AddQP(qp)
	}
	if sc.IOMMU != nil {
		if err := m.loadIOMMU(sc.IOMMU); err != nil {
			return err
		}
	}
	for i, k := range sc.MKeys {
		if _, r := m.Create(k); r != nil {
			msg := r.Status.String()
			if r.Reason != "" {
				msg += ": " + r.Reason
			}
			return &scenario.Error{Path: fmt.Sprintf("mkeys[%d]", i), Msg: "CREATE_MKEY refuses it: " + msg}
		}
	}
	return nil
}

// Apply runs operation seq and returns its result line.
func (m *Model) Apply(seq int, op *scenario.Op) scenario.Result {
	var res scenario.Result
	m.ApplyInto(seq, op, &res)
	return res
}

// ApplyInto is Apply writing the result into *res, whose segment slice it
// reuses: a checker that recycles its results allocates nothing per
// access.
func (m *Model) ApplyInto(seq int, op *scenario.Op, res *scenario.Result) {
	segs := res.Segments[:0]
	*res = scenario.Result{Seq: seq, Op: op.Kind}
	pass, reg, hasObj := m.order(op)
	var r *Refusal
	switch op.Kind {
	case scenario.OpAccess:
		setOutcome(res, m.access(seq, Request(op.Access), segs))
		if pass != nil {
			m.alsoLegal(op, pass, res)
		}
		if res.Segments == nil {
			res.Segments = segs // empty: kept for the next access
		}
		return
	case scenario.OpCreateMKey:
		var idx uint32
		idx, r = m.Create(*op.Create)
		if r == nil {
			res.Index = idx
			res.Key = prm.MakeKey(idx, op.Create.MKC.Variant)
		}
	case scenario.OpDestroyMKey:
		r = m.Destroy(op.Index)
	case scenario.OpQueryMKey:
		var q Query
		q, r = m.QueryWindow(op.Index, op.Query)
		if r == nil {
			res.MKC, res.List, res.EntriesLeftOut = q.MKC, q.List, q.LeftOut
		}
	case scenario.OpUMR:
		r = m.UMR(*op.UMR)
	case scenario.OpLocalInvalidate:
		r = m.LocalInvalidate(op.QPN, op.Key)
	case scenario.OpSendWithInvalidate:
		r = m.SendWithInvalidate(op.QPN, op.Key)
	case scenario.OpIOMMUUnmap:
		r = m.IOMMUUnmap(*op.Unmap)
	case scenario.OpQueryPages:
		res.NumPages = m.QueryPages(op.Pages.Kind)
	case scenario.OpManagePages:
		r = m.ManagePages(op.Pages)
	case scenario.OpPageFaultResume:
		var rs []Resumed
		rs, r = m.Resume(op.Key, op.OK)
		for _, x := range rs {
			sub := scenario.Result{Seq: x.Seq, Op: scenario.OpAccess}
			setOutcome(&sub, x.Outcome)
			res.Resumed = append(res.Resumed, sub)
		}
	}
	if r != nil {
		res.Status, res.Reason = r.Status, r.Reason
	} else if hasObj {
		m.registered(reg)
	}
	m.cfg.Coverage.Command(cover.Command(op.Kind), res.Status)
	res.Segments = segs // empty: kept for the next access
}

func setOutcome(res *scenario.Result, o Outcome) {
	res.Status = o.Status
	res.Segments = o.Segments
	res.SegmentsLeftOut, res.LeftOutSum = o.SegmentsLeftOut, o.LeftOutSum
	res.Level, res.Offset = o.Level, o.Offset
	res.FaultKey, res.FaultAddr = o.FaultKey, o.FaultAddr
}

// Run loads a scenario into a new model and returns the result of every
// operation.
func Run(sc *scenario.Scenario, cfg Config) ([]scenario.Result, error) {
	m := New(cfg)
	if err := m.Load(sc); err != nil {
		return nil, err
	}
	out := make([]scenario.Result, len(sc.Ops))
	var ra ReadAhead
	for i := range sc.Ops {
		ra.Before(m, sc.Ops, i)
		out[i] = m.Apply(i, &sc.Ops[i])
	}
	return out, nil
}
