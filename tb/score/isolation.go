package score

import (
	"fmt"
	"sort"
	"strings"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// Isolation is an oracle for the isolation rules of translation.md, written
// from the spec and sharing no code with either model: not ref's
// translation or command code, not prm's rights table, mask application
// or entry decoding (it uses prm for its types, constants and the split of
// a key into index and variant), so that a bug in code both models share
// is caught too. It keeps its own shadow of what the commands it sees
// create and change: the QPs, every created object's MKC and ODP flag, the
// translation lists as 8-byte words, the list allocator, the accesses
// stalled on page faults and the keys that died. With overlapping
// invalidation it also accepts the denials that in-flight ordering allows
// (see Overlap).
//
// Apply runs one operation on the shadow and returns the result the spec
// requires (a generator uses it to know the state it attacks); Check runs
// it and judges a model's result line against it, naming the rule broken:
//
//   - An access that returns OK is granted only if every key on the way,
//     from the level-0 key down every KLM / Fixed Buffer Size entry the
//     bytes go through, exists, has the variant of the key that names it,
//     is not free, has the requesting QP's PD, is unbound or bound to the
//     requesting QPN, covers the bytes, grants the access type's right and
//     has a usable mode, within the depth limit; and each returned segment
//     is, in request order, exactly the page piece (page_base(entry) +
//     offset, in a page whose rd_en/wr_en the access needs) or the PA /
//     SW_ICM / MEMIC range those bytes reach. Anything else is an
//     isolation violation.
//   - A key that was live and then was invalidated (LOCAL_INVALIDATE,
//     SEND_WITH_INVALIDATE), freed by UMR, given a new variant or
//     destroyed is dead until the same full key is live again: an access
//     with it must fail at level 0 with BAD_KEY_INDEX, KEY_MISMATCH or
//     MKEY_FREE at offset 0.
//   - A failing access fails with the status, level and offset (fault key
//     and address for PAGE_FAULT) of the first rule its depth-first walk
//     breaks; a command is accepted or refused as section 3.2 says (a
//     UMR, invalidation or create accepted against the rules is an
//     isolation violation too); a QUERY_MKEY shows the shadow's MKC and
//     list words.
//
// Its simplifications: lists are a map of words, KLM entries are searched
// from the first one, and it never needs the sparse-memory tricks the
// models use for huge capacities (a generator feeding it keeps
// capacities small; a capacity of billions of entries would be slow, not
// wrong).
//
// Its parts, a file each: the walk of an access (isolation_access.go),
// the commands (isolation_command.go), the denials overlapping
// invalidation allows (isolation_overlap.go), judging result lines
// (isolation_check.go) and queries (isolation_query.go).
type Isolation struct {
	MaxIndirection int

	qps        map[uint32]scenario.QP
	objs       map[uint32]*isoObj
	words      map[uint64]uint64 // list bytes: the 8 bytes at an 8-aligned address, big-endian
	nextHandle uint64
	stalled    []isoStall
	dead       map[prm.Key]string // dead key: what killed it

	// With overlapping invalidation (rtl.Config.OverlapInvalidate), an
	// access may meet the free=1 of an invalidation that comes after it in
	// the scenario but overtook it: see Overlap.
	overlap  bool
	ops      []scenario.Op
	invalOK  []bool       // overlap: which invalidations succeed
	excused  map[int]bool // seqs whose result is a legal overlap outcome
	diverged map[prm.Key]bool

	// Counts counts what the oracle saw, by class ("access OK MTT",
	// "access denied PD_MISMATCH@1", "dead key denied", "umr moves pd",
	// ...): a test asserts that its generator reaches every class.
	Counts map[string]int
}

type isoObj struct {
	mkc prm.MKC
	odp bool
}

type isoStall struct {
	seq   int
	acc   scenario.Access
	fault isoVerdict
}

// isoListBase is where the list allocator starts (translation.md 3.1).
const isoListBase = 0x1_0000_0000

// NewIsolation is an empty shadow for a depth limit.
func NewIsolation(maxIndirection int) *Isolation {
	return &Isolation{
		MaxIndirection: maxIndirection,
		qps:            map[uint32]scenario.QP{},
		objs:           map[uint32]*isoObj{},
		words:          map[uint64]uint64{},
		nextHandle:     isoListBase,
		dead:           map[prm.Key]string{},
		Counts:         map[string]int{},
	}
}

// Load declares the scenario's QPs and creates its initial MKeys, as a
// model's Load does; a refused MKey is an error.
func (s *Isolation) Load(sc *scenario.Scenario) error {
	for _, q := range sc.QPs {
		s.qps[q.QPN] = q
	}
	for i := range sc.MKeys {
		op := scenario.Op{Kind: scenario.OpCreateMKey, Create: &sc.MKeys[i]}
		if r := s.Apply(-1, &op); r.Status != prm.OK {
			return fmt.Errorf("mkeys[%d]: CREATE_MKEY refuses it: %v", i, r.Status)
		}
	}
	return nil
}

// Apply runs op, operation seq, on the shadow and returns the result the
// spec requires (without a BAD_PARAM reason).
func (s *Isolation) Apply(seq int, op *scenario.Op) scenario.Result {
	r, _ := s.apply(seq, op)
	return r
}

func (s *Isolation) apply(seq int, op *scenario.Op) (scenario.Result, []isoVerdict) {
	res := scenario.Result{Seq: seq, Op: op.Kind}
	switch op.Kind {
	case scenario.OpAccess:
		v := s.verdict(op.Access)
		if v.status == prm.PageFault {
			s.stalled = append(s.stalled, isoStall{seq: seq, acc: op.Access, fault: v})
		}
		setVerdict(&res, v)
		return res, []isoVerdict{v}
	case scenario.OpCreateMKey:
		i, st := s.create(op.Create)
		if st == prm.OK {
			res.Index, res.Key = i, prm.MakeKey(i, op.Create.MKC.Variant)
			s.track(i, 0, false, "")
		} else {
			res.Status = st
		}
	case scenario.OpDestroyMKey:
		before, was := s.Live(op.Index)
		if s.objs[op.Index] == nil {
			res.Status = prm.BadKeyIndex
		} else {
			delete(s.objs, op.Index)
		}
		s.track(op.Index, before, was, fmt.Sprintf("destroy_mkey at seq %d", seq))
	case scenario.OpQueryMKey:
		if o := s.objs[op.Index]; o == nil {
			res.Status = prm.BadKeyIndex
		} else if _, _, _, ok := isoQueryWindow(op.Query, &o.mkc); !ok {
			res.Status = prm.BadParam
		} else {
			res.MKC = o.mkc
		}
	case scenario.OpUMR:
		idx := op.UMR.Key.Index()
		before, was := s.Live(idx)
		res.Status = s.umr(op.UMR)
		s.track(idx, before, was, fmt.Sprintf("umr at seq %d", seq))
	case scenario.OpLocalInvalidate, scenario.OpSendWithInvalidate:
		idx := op.Key.Index()
		before, was := s.Live(idx)
		res.Status = s.invalidate(op.QPN, op.Key, op.Kind == scenario.OpSendWithInvalidate)
		s.track(idx, before, was, fmt.Sprintf("%v at seq %d", op.Kind, seq))
	case scenario.OpPageFaultResume:
		var mine, rest []isoStall
		for _, st := range s.stalled {
			if st.fault.faultKey == op.Key {
				mine = append(mine, st)
			} else {
				rest = append(rest, st)
			}
		}
		if len(mine) == 0 {
			res.Status = prm.BadParam
			return res, nil
		}
		s.stalled = rest
		var vs []isoVerdict
		for _, st := range mine {
			v := isoVerdict{status: prm.PageAccess, level: st.fault.level, offset: st.fault.offset,
				why: "PAGE_FAULT_RESUME(error) ends it at its fault"}
			if op.OK {
				v = s.verdict(st.acc)
				if v.status == prm.PageFault {
					s.stalled = append(s.stalled, isoStall{seq: st.seq, acc: st.acc, fault: v})
				}
			}
			sub := scenario.Result{Seq: st.seq, Op: scenario.OpAccess}
			setVerdict(&sub, v)
			res.Resumed = append(res.Resumed, sub)
			vs = append(vs, v)
		}
		sort.SliceStable(s.stalled, func(i, j int) bool { return s.stalled[i].seq < s.stalled[j].seq })
		return res, vs
	}
	return res, nil
}

func setVerdict(r *scenario.Result, v isoVerdict) {
	r.Status, r.Level, r.Offset = v.status, v.level, v.offset
	r.FaultKey, r.FaultAddr = v.faultKey, v.faultAddr
	r.Segments = v.segs
}

// Stalled lists the keys that accesses are stalled on, each once, in the
// order of their oldest access.
func (s *Isolation) Stalled() []prm.Key {
	var out []prm.Key
	seen := map[prm.Key]bool{}
	for _, st := range s.stalled {
		if !seen[st.fault.faultKey] {
			seen[st.fault.faultKey] = true
			out = append(out, st.fault.faultKey)
		}
	}
	return out
}

// Object returns the shadow's MKC of a created index and its ODP flag.
func (s *Isolation) Object(index uint32) (prm.MKC, bool, bool) {
	o := s.objs[index]
	if o == nil {
		return prm.MKC{}, false, false
	}
	return o.mkc, o.odp, true
}

// Word is the shadow's list word at an 8-aligned address.
func (s *Isolation) Word(addr uint64) uint64 { return s.words[addr] }

// Dead reports what killed a key, "" if it is not dead.
func (s *Isolation) Dead(k prm.Key) string { return s.dead[k] }

// Summary lists the counts, sorted by name.
func (s *Isolation) Summary() string {
	names := make([]string, 0, len(s.Counts))
	for n := range s.Counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %d\n", n, s.Counts[n])
	}
	return b.String()
}
