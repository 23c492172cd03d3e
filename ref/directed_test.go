package ref_test

// Directed cases for translation.md sections 3-6 that the conformance
// scenarios do not pin down, and the helpers the other test files of this
// package share.

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// The QPs every test model declares.
const (
	pdA  = 5
	pdB  = 6
	qpA  = 1 // RC, pd 5: the usual requester
	qpB  = 2 // RC, pd 6
	qpU  = 3 // REG_UMR, pd 5
	qpU6 = 4 // REG_UMR, pd 6
)

// sameQuery reports whether two answers of QUERY_MKEY agree: context and
// list, entry by entry.
func sameQuery(a, b ref.Query) bool {
	return a.MKC == b.MKC && a.List.Kind() == b.List.Kind() && scenario.DiffList(a.List, b.List) == ""
}

// mttOf is a query's MTT list as a slice (small lists only).
func mttOf(q ref.Query) []prm.MTTEntry {
	if q.List.Kind() != scenario.ListMTT {
		return nil
	}
	out := make([]prm.MTTEntry, q.List.Len())
	for i := range out {
		out[i] = q.List.MTT(uint64(i))
	}
	return out
}

// klmOf is a query's KLM list as a slice (small lists only).
func klmOf(q ref.Query) []prm.KLMEntry {
	if q.List.Kind() != scenario.ListKLM {
		return nil
	}
	out := make([]prm.KLMEntry, q.List.Len())
	for i := range out {
		out[i] = q.List.KLM(uint64(i))
	}
	return out
}

func newModel(cfg ref.Config) *ref.Model {
	m := ref.New(cfg)
	m.AddQP(scenario.QP{QPN: qpA, PD: pdA})
	m.AddQP(scenario.QP{QPN: qpB, PD: pdB})
	m.AddQP(scenario.QP{QPN: qpU, PD: pdA, RegUMR: true})
	m.AddQP(scenario.QP{QPN: qpU6, PD: pdB, RegUMR: true})
	return m
}

// baseMKC is an in-use, unbound context of pd 5 with every right and umr_en.
func baseMKC(mode prm.AccessMode, variant uint8, start, length uint64) prm.MKC {
	return prm.MKC{
		AccessMode: mode, Variant: variant, PD: pdA, QPN: prm.QPNNone,
		StartAddr: start, Len: length, UMREn: true, EnRinval: true,
		LR: true, LW: true, RR: true, RW: true, A: true,
	}
}

// mttKey is an MTT key at index whose pages are the ptags, readable and
// writable, with the default capacity.
func mttKey(index uint32, variant uint8, start, length uint64, log uint8, ptags ...uint64) scenario.MKey {
	mkc := baseMKC(prm.ModeMTT, variant, start, length)
	mkc.LogEntitySize = log
	mkc.TranslationsOctwordSize = scenario.OctwordsFor(len(ptags), 0)
	k := scenario.MKey{Index: index, HasIndex: true, MKC: mkc, PgAccess: true}
	for _, p := range ptags {
		k.MTT = append(k.MTT, prm.MTTEntry{PTag: p, RdEn: true, WrEn: true})
	}
	return k
}

func klmKey(index uint32, variant uint8, start, length uint64, entries ...prm.KLMEntry) scenario.MKey {
	mkc := baseMKC(prm.ModeKLM, variant, start, length)
	mkc.TranslationsOctwordSize = scenario.OctwordsFor(0, len(entries))
	return scenario.MKey{Index: index, HasIndex: true, MKC: mkc, KLM: entries, PgAccess: true}
}

func fbsKey(index uint32, variant uint8, start, length uint64, log uint8, entries ...prm.KLMEntry) scenario.MKey {
	k := klmKey(index, variant, start, length, entries...)
	k.MKC.AccessMode = prm.ModeFixedBufferSize
	k.MKC.LogEntitySize = log
	return k
}

// paKey passes addresses through over [start, start+length), or over the
// whole space with length64.
func paKey(index uint32, variant uint8, start, length uint64, length64 bool) scenario.MKey {
	mkc := baseMKC(prm.ModePA, variant, start, length)
	mkc.Length64 = length64
	return scenario.MKey{Index: index, HasIndex: true, MKC: mkc, PgAccess: true}
}

func with(k scenario.MKey, f func(*scenario.MKey)) scenario.MKey {
	f(&k)
	return k
}

func keyOf(k scenario.MKey) prm.Key { return prm.MakeKey(k.Index, k.MKC.Variant) }

func kent(bc uint32, key prm.Key, addr uint64) prm.KLMEntry {
	return prm.KLMEntry{ByteCount: bc, MKey: key, Address: addr}
}

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Fatalf(format string, args ...any)
}

func mustCreate(t tb, m *ref.Model, k scenario.MKey) prm.Key {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	idx, r := m.Create(k)
	if r != nil {
		t.Fatalf("create %d: %v %s", k.Index, r.Status, r.Reason)
	}
	return prm.MakeKey(idx, k.MKC.Variant)
}

func dma(addr, n uint64) prm.Segment { return prm.Segment{Space: prm.SpaceDMA, Addr: addr, Len: n} }

func okOut(segs ...prm.Segment) ref.Outcome { return ref.Outcome{Status: prm.OK, Segments: segs} }

func failOut(st prm.Status, level int, off uint64) ref.Outcome {
	return ref.Outcome{Status: st, Level: level, Offset: off}
}

func showOutcome(o ref.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v", o.Status)
	if o.Status == prm.OK {
		for _, s := range o.Segments {
			fmt.Fprintf(&b, " {%v %#x %d}", s.Space, s.Addr, s.Len)
		}
		return b.String()
	}
	fmt.Fprintf(&b, " level %d offset %d", o.Level, o.Offset)
	if o.Status == prm.PageFault {
		fmt.Fprintf(&b, " fault_key %v fault_addr %#x", o.FaultKey, o.FaultAddr)
	}
	return b.String()
}

// sameOutcome compares as result lines do: segments for OK, level and offset
// for failures, fault key and address for PAGE_FAULT.
func sameOutcome(got, want ref.Outcome) bool {
	if got.Status != want.Status {
		return false
	}
	if got.Status == prm.OK {
		return len(got.Segments) == len(want.Segments) && (len(got.Segments) == 0 || reflect.DeepEqual(got.Segments, want.Segments))
	}
	if got.Level != want.Level || got.Offset != want.Offset {
		return false
	}
	return got.Status != prm.PageFault || got.FaultKey == want.FaultKey && got.FaultAddr == want.FaultAddr
}

const top = ^uint64(0) // 2^64 - 1

type access struct {
	req  ref.Request
	want ref.Outcome
}

func rd(key prm.Key, addr uint64, n uint32) ref.Request {
	return ref.Request{QPN: qpA, Key: key, Addr: addr, Len: n, Type: prm.LocalRead}
}

func typed(r ref.Request, typ prm.AccessType) ref.Request { r.Type = typ; return r }

// Keys used by several directed cases.
var (
	pa       = paKey(2, 0x22, 0, 0, true) // every address passes through
	paKeyV   = keyOf(pa)
	badKey   = prm.MakeKey(999, 1) // never created
	chainKLM = func(index uint32, next prm.Key) scenario.MKey {
		return klmKey(index, 1, 0, 0x1000, kent(0x1000, next, 0))
	}
)

func TestDirectedTranslation(t *testing.T) {
	ptags8 := []uint64{0xa000, 0xb000, 0xc000, 0xd000, 0xe000, 0xf000, 0x10000, 0x11000}
	mtt8 := mttKey(40, 4, 0x10800, 16<<12, 12, ptags8...) // capacity 8 pages, len 16 pages
	mtt3 := mttKey(41, 4, 0x10800, 16<<12, 12, 0xa000, 0xb000, 0xc000)
	mtt3.MKC.TranslationsOctwordSize = 4 // 8 entries, 5 never written
	odp3 := with(mtt3, func(k *scenario.MKey) { k.Index = 42; k.ODP = true })
	fbs1 := fbsKey(65, 3, 0, 0x4000, 12, kent(0, paKeyV, 0x9000)) // entries 1..3 all zero
	idx0PA := paKey(0, 0, 0, 0, true)

	cases := []struct {
		name string
		cfg  *ref.Config
		keys []scenario.MKey
		acc  []access
	}{
		{
			name: "KLM self-cycle stops at level 5",
			keys: []scenario.MKey{klmKey(10, 1, 0, 0x1000, kent(0x1000, prm.MakeKey(10, 1), 0))},
			acc:  []access{{rd(prm.MakeKey(10, 1), 0, 64), failOut(prm.IndirectionDepth, 5, 0)}},
		},
		{
			name: "two-key KLM cycle after a good piece fails at its offset",
			keys: []scenario.MKey{
				mttKey(20, 2, 0x5000, 0x1000, 12, 0xabc000),
				klmKey(11, 1, 0x1000, 0x2000, kent(0x1000, prm.MakeKey(20, 2), 0x5000), kent(0x1000, prm.MakeKey(12, 1), 0)),
				klmKey(12, 1, 0, 0x1000, kent(0x1000, prm.MakeKey(11, 1), 0x2000)),
			},
			acc: []access{
				{rd(prm.MakeKey(11, 1), 0x1f00, 0x200), failOut(prm.IndirectionDepth, 5, 0x100)},
				{rd(prm.MakeKey(11, 1), 0x1f00, 0x100), okOut(dma(0xabcf00, 0x100))},
			},
		},
		{
			name: "MaxIndirection 1: levels 0..1 only",
			cfg:  &ref.Config{MaxIndirection: 1},
			keys: []scenario.MKey{pa, chainKLM(31, paKeyV), chainKLM(30, prm.MakeKey(31, 1))},
			acc: []access{
				{rd(prm.MakeKey(30, 1), 0x10, 8), failOut(prm.IndirectionDepth, 2, 0)},
				{rd(prm.MakeKey(31, 1), 0x10, 8), okOut(dma(0x10, 8))},
			},
		},
		{
			name: "MaxIndirection 0: no KLM at all",
			cfg:  &ref.Config{MaxIndirection: 0},
			keys: []scenario.MKey{pa, chainKLM(31, paKeyV)},
			acc: []access{
				{rd(prm.MakeKey(31, 1), 0x10, 8), failOut(prm.IndirectionDepth, 1, 0)},
				{rd(paKeyV, 0x10, 8), okOut(dma(0x10, 8))},
			},
		},
		{
			name: "INDIRECTION_DEPTH before BAD_KEY_INDEX and KEY_MISMATCH",
			keys: []scenario.MKey{
				chainKLM(104, badKey), chainKLM(103, prm.MakeKey(104, 1)), chainKLM(102, prm.MakeKey(103, 1)),
				chainKLM(101, prm.MakeKey(102, 1)), chainKLM(100, prm.MakeKey(101, 1)),
				pa, chainKLM(114, prm.MakeKey(2, 0x99)), chainKLM(113, prm.MakeKey(114, 1)), chainKLM(112, prm.MakeKey(113, 1)),
				chainKLM(111, prm.MakeKey(112, 1)), chainKLM(110, prm.MakeKey(111, 1)),
			},
			acc: []access{
				{rd(prm.MakeKey(100, 1), 0, 8), failOut(prm.IndirectionDepth, 5, 0)},
				{rd(prm.MakeKey(101, 1), 0, 8), failOut(prm.BadKeyIndex, 4, 0)},
				{rd(prm.MakeKey(110, 1), 0, 8), failOut(prm.IndirectionDepth, 5, 0)},
				{rd(prm.MakeKey(111, 1), 0, 8), failOut(prm.KeyMismatch, 4, 0)},
			},
		},
		{
			name: "MTT page past the capacity is TRANSLATION_RANGE",
			keys: []scenario.MKey{mtt8},
			acc: []access{
				// b = 0x800: address 0x17f00 is page 7, 0x18000 page 8.
				{rd(keyOf(mtt8), 0x17f00, 0x200), failOut(prm.TranslationRange, 0, 0x100)},
				{rd(keyOf(mtt8), 0x17f00, 0x100), okOut(dma(0x11f00, 0x100))},
				{rd(keyOf(mtt8), 0x1f000, 0x10), failOut(prm.TranslationRange, 0, 0)},
			},
		},
		{
			name: "MTT entries inside the capacity never written read as zero",
			keys: []scenario.MKey{mtt3, odp3},
			acc: []access{
				{rd(keyOf(mtt3), 0x12f00, 0x200), failOut(prm.PageAccess, 0, 0x100)},
				{rd(keyOf(mtt3), 0x12f00, 0x100), okOut(dma(0xcf00, 0x100))},
				{rd(keyOf(odp3), 0x12f00, 0x200), ref.Outcome{Status: prm.PageFault, Offset: 0x100, FaultKey: keyOf(odp3), FaultAddr: 0x13000}},
				{rd(keyOf(mtt3), 0x17f00, 0x200), failOut(prm.PageAccess, 0, 0)},
			},
		},
		{
			name: "variable KLM: offset past every entry is TRANSLATION_RANGE",
			keys: []scenario.MKey{pa, klmKey(50, 5, 0, 0x10000, kent(0x1000, paKeyV, 0x40000), kent(0x1000, paKeyV, 0x80000))},
			acc: []access{
				{rd(prm.MakeKey(50, 5), 0x1f00, 0x200), failOut(prm.TranslationRange, 0, 0x100)},
				{rd(prm.MakeKey(50, 5), 0x0f00, 0x200), okOut(dma(0x40f00, 0x100), dma(0x80000, 0x100))},
				{rd(prm.MakeKey(50, 5), 0x8000, 1), failOut(prm.TranslationRange, 0, 0)},
			},
		},
		{
			name: "Fixed Buffer Size entry past the capacity is TRANSLATION_RANGE",
			keys: []scenario.MKey{pa, fbsKey(55, 5, 0, 1<<20, 12, kent(0, paKeyV, 0x10000), kent(0, paKeyV, 0x20000), kent(0, paKeyV, 0x30000), kent(0, paKeyV, 0x40000))},
			acc: []access{
				{rd(prm.MakeKey(55, 5), 0x3f00, 0x200), failOut(prm.TranslationRange, 0, 0x100)},
				{rd(prm.MakeKey(55, 5), 0x2f00, 0x200), okOut(dma(0x30f00, 0x100), dma(0x40000, 0x100))},
			},
		},
		{
			name: "KLM entries of byte_count 0 are skipped",
			keys: []scenario.MKey{pa, klmKey(60, 6, 0x1000, 0x3000,
				kent(0, badKey, 0), kent(0x1000, paKeyV, 0xa000), kent(0, badKey, 0), kent(0, badKey, 0),
				kent(0x800, paKeyV, 0xb000), kent(0x800, paKeyV, 0xc000))},
			acc: []access{
				{rd(prm.MakeKey(60, 6), 0x1f00, 0x400), okOut(dma(0xaf00, 0x100), dma(0xb000, 0x300))},
				{rd(prm.MakeKey(60, 6), 0x1000, 0x10), okOut(dma(0xa000, 0x10))},
				{rd(prm.MakeKey(60, 6), 0x2700, 0x200), okOut(dma(0xb700, 0x100), dma(0xc000, 0x100))},
				{rd(prm.MakeKey(60, 6), 0x2f00, 0x200), failOut(prm.TranslationRange, 0, 0x100)},
			},
		},
		{
			name: "Fixed Buffer Size all-zero entry names index 0 (not created)",
			keys: []scenario.MKey{pa, fbs1},
			acc: []access{
				{rd(keyOf(fbs1), 0x0ff0, 0x20), failOut(prm.BadKeyIndex, 1, 0x10)},
				{rd(keyOf(fbs1), 0x0ff0, 0x10), okOut(dma(0x9ff0, 0x10))},
			},
		},
		{
			name: "Fixed Buffer Size all-zero entry names index 0 (created)",
			keys: []scenario.MKey{pa, fbs1, idx0PA},
			acc: []access{
				{rd(keyOf(fbs1), 0x0ff0, 0x20), okOut(dma(0x9ff0, 0x10), dma(0, 0x10))},
				{rd(keyOf(fbs1), 0x3010, 0x10), okOut(dma(0x10, 0x10))},
			},
		},
		{
			name: "Fixed Buffer Size all-zero entry: index 0 with another variant",
			keys: []scenario.MKey{pa, fbs1, with(idx0PA, func(k *scenario.MKey) { k.MKC.Variant = 0x33 })},
			acc:  []access{{rd(keyOf(fbs1), 0x1000, 0x10), failOut(prm.KeyMismatch, 1, 0)}},
		},
		{
			name: "range check at exactly 2^64",
			keys: []scenario.MKey{
				paKey(70, 7, 0, 0, true),
				paKey(71, 7, top-0xfff, 0x1000, false),                // ends at 2^64
				paKey(72, 7, top-0xfff, 0x2000, false),                // start+len passes 2^64
				mttKey(73, 7, top-0x17ff, 0x1800, 12, 0x5000, 0x7000), // b = 0x800
			},
			acc: []access{
				{rd(prm.MakeKey(70, 7), top-15, 16), okOut(dma(top-15, 16))},
				{rd(prm.MakeKey(70, 7), top-15, 17), failOut(prm.OutOfRange, 0, 0)},
				{rd(prm.MakeKey(70, 7), top, 1), okOut(dma(top, 1))},
				{rd(prm.MakeKey(71, 7), top-0xff, 0x100), okOut(dma(top-0xff, 0x100))},
				{rd(prm.MakeKey(71, 7), top-0xff, 0x101), failOut(prm.OutOfRange, 0, 0)},
				{rd(prm.MakeKey(71, 7), top-0x1000, 1), failOut(prm.OutOfRange, 0, 0)},
				{rd(prm.MakeKey(72, 7), top-0xf, 0x10), okOut(dma(top-0xf, 0x10))},
				{rd(prm.MakeKey(72, 7), top-0xf, 0x11), failOut(prm.OutOfRange, 0, 0)},
				{rd(prm.MakeKey(73, 7), top-0xff, 0x100), okOut(dma(0x7f00, 0x100))},
				{rd(prm.MakeKey(73, 7), top-0x10ff, 0x200), okOut(dma(0x5f00, 0x100), dma(0x7000, 0x100))},
				{rd(prm.MakeKey(73, 7), top-0x17ff, 0x1800), okOut(dma(0x5800, 0x800), dma(0x7000, 0x1000))},
				{rd(prm.MakeKey(73, 7), top-0xff, 0x101), failOut(prm.OutOfRange, 0, 0)},
			},
		},
		{
			name: "KLM lower address wraps modulo 2^64; the lower range check judges it",
			keys: []scenario.MKey{pa, klmKey(75, 7, 0, 0x20, kent(0x20, paKeyV, top-0xf))},
			acc: []access{
				{rd(prm.MakeKey(75, 7), 0, 0x10), okOut(dma(top-0xf, 0x10))},
				{rd(prm.MakeKey(75, 7), 0x10, 0x10), okOut(dma(0, 0x10))},
				{rd(prm.MakeKey(75, 7), 0, 0x20), failOut(prm.OutOfRange, 1, 0)},
			},
		},
		{
			name: "zero-length access is OK with no segments, whatever the key",
			keys: []scenario.MKey{pa, with(paKey(80, 8, 0x1000, 0x1000, false), func(k *scenario.MKey) { k.MKC.Free = true; k.MKC.PD = pdB; k.MKC.LR = false })},
			acc: []access{
				{rd(badKey, 0, 0), okOut()},
				{rd(prm.MakeKey(2, 0x23), 0, 0), okOut()},
				{rd(prm.MakeKey(80, 8), 0, 0), okOut()},
				{typed(rd(prm.MakeKey(80, 8), 3, 0), prm.RemoteAtomic), okOut()},
				{ref.Request{QPN: 777, Key: badKey, Len: 0}, okOut()},
				{rd(prm.MakeKey(80, 8), 0x1000, 1), failOut(prm.MKeyFree, 0, 0)},
			},
		},
		{
			name: "MISALIGNED_ATOMIC at level 0 only; an atomic may be split",
			keys: []scenario.MKey{pa, klmKey(85, 8, 0x100, 0x20, kent(4, paKeyV, 0x1004), kent(4, paKeyV, 0x2000), kent(0x18, paKeyV, 0x3003))},
			acc: []access{
				{typed(rd(prm.MakeKey(85, 8), 0x100, 8), prm.RemoteAtomic), okOut(dma(0x1004, 4), dma(0x2000, 4))},
				{typed(rd(prm.MakeKey(85, 8), 0x108, 8), prm.RemoteAtomic), okOut(dma(0x3003, 8))},
				{typed(rd(prm.MakeKey(85, 8), 0x104, 8), prm.RemoteAtomic), failOut(prm.MisalignedAtomic, 0, 0)},
				{typed(rd(prm.MakeKey(85, 8), 0x100, 16), prm.RemoteAtomic), failOut(prm.MisalignedAtomic, 0, 0)},
				{typed(rd(prm.MakeKey(85, 8), 0x104, 4), prm.RemoteRead), okOut(dma(0x2000, 4))},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ref.DefaultConfig()
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			m := newModel(cfg)
			for _, k := range tc.keys {
				mustCreate(t, m, k)
			}
			for i, a := range tc.acc {
				got := translateWithin(t, m, a.req, 5*time.Second)
				if !sameOutcome(got, a.want) {
					t.Errorf("access %d %+v:\n got  %s\n want %s", i, a.req, showOutcome(got), showOutcome(a.want))
				}
			}
		})
	}
}

// translateWithin fails the test if a translation does not end in time
// (a KLM cycle must never hang the model).
func translateWithin(t *testing.T, m *ref.Model, req ref.Request, d time.Duration) ref.Outcome {
	t.Helper()
	done := make(chan ref.Outcome, 1)
	go func() { done <- m.Translate(req, nil) }()
	select {
	case o := <-done:
		return o
	case <-time.After(d):
		t.Fatalf("translation of %+v did not end within %v", req, d)
		return ref.Outcome{}
	}
}

// TestDirectedCheckOrder builds, for each check of translation.md 4, a key
// that fails that check and every later one: the earliest must win.
func TestDirectedCheckOrder(t *testing.T) {
	order := []prm.Status{prm.BadKeyIndex, prm.KeyMismatch, prm.MKeyFree, prm.PDMismatch, prm.QPNMismatch,
		prm.OutOfRange, prm.AccessDenied, prm.BadAccessMode, prm.MisalignedAtomic}
	has := func(k int, st prm.Status) bool {
		for _, s := range order[k:] {
			if s == st {
				return true
			}
		}
		return false
	}
	for k, want := range order {
		m := newModel(ref.DefaultConfig())
		target := mttKey(90, 9, 0x1000, 0x1000, 12, 0x40000)
		key := mustCreate(t, m, target)
		img := prm.MKC{AccessMode: 0x7, Free: has(k, prm.MKeyFree), PD: pdA, QPN: prm.QPNNone, Len: 0x1000,
			LR: true, LW: true, RR: true, RW: true, A: !has(k, prm.AccessDenied)}
		if has(k, prm.PDMismatch) {
			img.PD = pdB
		}
		if has(k, prm.QPNMismatch) {
			img.QPN = 77
		}
		if has(k, prm.OutOfRange) {
			img.Len = 4
		}
		mask := prm.MaskAccessMode | prm.MaskFree | prm.MaskPD | prm.MaskQPN | prm.MaskLen | prm.MaskA
		if !has(k, prm.BadAccessMode) {
			mask &^= prm.MaskAccessMode
		}
		if r := m.UMR(scenario.UMR{QPN: qpU, Key: key, Mask: mask, Image: img}); r != nil {
			t.Fatalf("step %v: umr: %v %s", want, r.Status, r.Reason)
		}
		req := ref.Request{QPN: qpA, Key: key, Addr: 0x1004, Len: 8, Type: prm.RemoteAtomic}
		if has(k, prm.KeyMismatch) {
			req.Key++
		}
		if has(k, prm.BadKeyIndex) {
			req.Key = prm.MakeKey(91, 9)
		}
		got := m.Translate(req, nil)
		if !sameOutcome(got, failOut(want, 0, 0)) {
			t.Errorf("key failing %v and every later check: got %s", order[k:], showOutcome(got))
		}
	}
}

// TestDirectedCreateBadParam: each CREATE_MKEY refusal, alone and ahead of
// every later one it can be combined with (the order of translation.md 3.2
// is visible only in the reason), and a refused create changes nothing.
func TestDirectedCreateBadParam(t *testing.T) {
	ptags := func(n int) []uint64 {
		p := make([]uint64, n)
		for i := range p {
			p[i] = uint64(i+1) << 12
		}
		return p
	}
	valid := mttKey(7, 1, 0x1000, 0x2000, 12, ptags(2)...)
	// Each step breaks one more rule, from the last to the first; the
	// reason must name the rule broken first in the spec's order.
	type step struct {
		rule  string // words the reason must hold
		apply func(*scenario.MKey)
	}
	steps := []step{
		{"mtt_handle", func(k *scenario.MKey) { k.MKC.MTTHandle = ref.HandleBase + 32 }},
		{"already created", func(k *scenario.MKey) { k.Index = 5 }},
		{"lr", func(k *scenario.MKey) { k.MKC.LR = false }},
		{"reserved access mode", func(k *scenario.MKey) { k.MTT = nil; k.MKC.AccessMode = 0x6 }},
		{"log_entity_size", func(k *scenario.MKey) { k.MKC.AccessMode = prm.ModeMTT; k.MTT = valid.MTT; k.MKC.LogEntitySize = 11 }},
		{"needs access mode", func(k *scenario.MKey) { k.MKC.AccessMode = 0x6 }}, // an MTT list, reserved mode
		{"exceed", func(k *scenario.MKey) { k.MKC.AccessMode = prm.ModeMTT; k.MTT = mttEntries(ptags(13)) }},
		{"multiple of 4", func(k *scenario.MKey) { k.MKC.TranslationsOctwordSize = 6 }},
	}
	m := newModel(ref.DefaultConfig())
	mustCreate(t, m, with(valid, func(k *scenario.MKey) { k.Index = 5 }))
	before, _ := m.Query(5)
	k := valid
	for i, s := range steps {
		s.apply(&k)
		idx, r := m.Create(k)
		if r == nil {
			t.Fatalf("step %d (%s): created at %d", i, s.rule, idx)
		}
		if r.Status != prm.BadParam || !strings.Contains(r.Reason, s.rule) {
			t.Errorf("step %d: want BAD_PARAM naming %q, got %v %q", i, s.rule, r.Status, r.Reason)
		}
		// The same rule alone on a valid key.
		alone := valid
		s.apply(&alone)
		if _, r := m.Create(alone); r == nil || r.Status != prm.BadParam {
			t.Errorf("rule %q alone: not refused (%v)", s.rule, r)
		}
	}
	// More cases, each alone.
	more := []struct {
		name string
		k    scenario.MKey
	}{
		{"KLM list over capacity", with(klmKey(8, 1, 0, 0x1000, make([]prm.KLMEntry, 5)...), func(k *scenario.MKey) { k.MKC.TranslationsOctwordSize = 4 })},
		{"KLM list in MTT mode", with(klmKey(8, 1, 0, 0x1000, kent(1, 1, 1)), func(k *scenario.MKey) { k.MKC.AccessMode = prm.ModeMTT; k.MKC.LogEntitySize = 12 })},
		{"MTT list in Fixed Buffer Size mode", with(valid, func(k *scenario.MKey) { k.Index = 8; k.MKC.AccessMode = prm.ModeFixedBufferSize })},
		{"Fixed Buffer Size log 11", fbsKey(8, 1, 0, 0x1000, 11, kent(1, 1, 1))},
		{"MTT log 32", with(valid, func(k *scenario.MKey) { k.Index = 8; k.MKC.LogEntitySize = 32 })},
		{"reserved mode 0x1f", with(paKey(8, 1, 0, 0, true), func(k *scenario.MKey) { k.MKC.AccessMode = 0x1f })},
		{"mtt_handle below the base", with(valid, func(k *scenario.MKey) { k.Index = 8; k.MKC.MTTHandle = ref.HandleBase - 64 })},
		{"mtt_handle 64", with(valid, func(k *scenario.MKey) { k.Index = 8; k.MKC.MTTHandle = 64 })},
	}
	for _, c := range more {
		if _, r := m.Create(c.k); r == nil || r.Status != prm.BadParam {
			t.Errorf("%s: want BAD_PARAM, got %v", c.name, r)
		}
	}
	// Nothing changed: index 5 as before, index 7 and 8 free, the bump
	// allocator still at its second list.
	if after, _ := m.Query(5); !sameQuery(before, after) {
		t.Errorf("index 5 changed by refused creates")
	}
	if m.Objects() != 1 {
		t.Errorf("%d objects after refused creates, want 1", m.Objects())
	}
	idx := mustCreate(t, m, with(valid, func(k *scenario.MKey) { k.HasIndex = false })).Index()
	q, _ := m.Query(idx)
	if idx != 0 || q.MKC.MTTHandle != ref.HandleBase+64 {
		t.Errorf("next create: index %d handle %#x, want 0 and %#x", idx, q.MKC.MTTHandle, ref.HandleBase+64)
	}
	// Accepted corners: log 12 and 31, a free object without lr, KLM with
	// log_entity_size 0, mtt_handle exactly the base.
	for i, k := range []scenario.MKey{
		with(valid, func(k *scenario.MKey) { k.Index = 20; k.MKC.LogEntitySize = 31 }),
		with(valid, func(k *scenario.MKey) { k.Index = 21; k.MKC.LR = false; k.MKC.Free = true }),
		klmKey(22, 1, 0, 1, kent(1, 1, 1)),
		with(valid, func(k *scenario.MKey) { k.Index = 23; k.MKC.MTTHandle = ref.HandleBase }),
		fbsKey(24, 1, 0, 1, 31),
	} {
		if _, r := m.Create(k); r != nil {
			t.Errorf("accepted corner %d refused: %v %s", i, r.Status, r.Reason)
		}
	}
}

func mttEntries(ptags []uint64) []prm.MTTEntry {
	e := make([]prm.MTTEntry, len(ptags))
	for i, p := range ptags {
		e[i] = prm.MTTEntry{PTag: p, RdEn: true, WrEn: true}
	}
	return e
}

// TestDirectedUMROrder: for each UMR check of translation.md 3.2, a UMR that
// fails it and every later one; the earliest must win and nothing changes.
func TestDirectedUMROrder(t *testing.T) {
	order := []prm.Status{prm.BadKeyIndex, prm.UMRCheckFree, prm.PDMismatch, prm.UMRDisabled, prm.QPNMismatch,
		prm.UMRPDUpdate, prm.BadParam, prm.UMRAlignment, prm.UMRCapacity}
	for k, want := range order {
		has := func(st prm.Status) bool {
			for _, s := range order[k:] {
				if s == st {
					return true
				}
			}
			return false
		}
		m := newModel(ref.DefaultConfig())
		target := mttKey(90, 9, 0x1000, 0x2000, 12, 0x40000, 0x41000)
		target.MKC.TranslationsOctwordSize = 8 // 16 entries, 128 bytes
		target.MKC.UMREn = !has(prm.UMRDisabled)
		if has(prm.QPNMismatch) {
			target.MKC.QPN = 77
		}
		key := mustCreate(t, m, target)
		u := scenario.UMR{QPN: qpU, Key: key, Image: prm.MKC{AccessMode: prm.ModeMTT, PD: pdA}}
		switch {
		case has(prm.PDMismatch):
			u.QPN = qpB
		case has(prm.UMRPDUpdate):
			u.QPN = qpA
		}
		if has(prm.BadKeyIndex) {
			u.Key = prm.MakeKey(91, 9)
		}
		if has(prm.UMRCheckFree) {
			u.CheckFree = prm.CheckFreeIfFree
		}
		if has(prm.UMRPDUpdate) {
			u.Mask |= prm.MaskPD
		}
		n := 16
		if has(prm.UMRCapacity) {
			n = 17 // padded to 192 bytes > 128
		}
		u.MTT = mttEntries(make([]uint64, n))
		if has(prm.BadParam) {
			u.Mask |= prm.MaskAccessMode
			u.Image.AccessMode = prm.ModeKLM
		}
		if has(prm.UMRAlignment) {
			u.Offset = 2
		}
		before, _ := m.Query(90)
		r := m.UMR(u)
		if r == nil || r.Status != want {
			t.Errorf("UMR failing %v and every later check: got %v, want %v", order[k:], r, want)
		}
		if after, _ := m.Query(90); !sameQuery(before, after) {
			t.Errorf("step %v: a failed UMR changed the key", want)
		}
	}

	// Passing corners: a bound key updated from its own QP, a pd update from
	// a REG_UMR QP, the list type judged after the update, padding written,
	// a list filling the capacity exactly at an offset.
	m := newModel(ref.DefaultConfig())
	win := mttKey(92, 9, 0x1000, 0x1000, 12, 0x40000)
	win.MKC.QPN = qpU
	wkey := mustCreate(t, m, win)
	if r := m.UMR(scenario.UMR{QPN: qpU, Key: wkey, Mask: prm.MaskPD, Image: prm.MKC{PD: pdB}}); r != nil {
		t.Fatalf("bound key, own REG_UMR QP, pd update: %v", r)
	}
	if q, _ := m.Query(92); q.MKC.PD != pdB {
		t.Errorf("pd not updated: %d", q.MKC.PD)
	}
	tgt := mttKey(93, 9, 0, 0x8000, 12, 1<<12, 2<<12, 3<<12, 4<<12, 5<<12, 6<<12, 7<<12, 8<<12)
	tgt.MKC.TranslationsOctwordSize = 8
	tkey := mustCreate(t, m, tgt)
	if r := m.UMR(scenario.UMR{QPN: qpA, Key: tkey, Mask: prm.MaskAccessMode, Image: prm.MKC{AccessMode: prm.ModeKLM},
		KLM: []prm.KLMEntry{kent(0x10, paKeyV, 0x100)}}); r != nil {
		t.Fatalf("KLM list with mode updated to KLM: %v", r)
	}
	if r := m.UMR(scenario.UMR{QPN: qpA, Key: tkey, Mask: prm.MaskAccessMode, Image: prm.MKC{AccessMode: prm.ModeMTT},
		MTT: mttEntries([]uint64{0x9000, 0xa000}), Offset: 4}); r != nil {
		t.Fatalf("MTT list at offset 4 octwords: %v", r)
	}
	q, _ := m.Query(93)
	want := make([]prm.MTTEntry, 16)
	// The KLM entry written at offset 0 reads back as MTT entries 0 and 1;
	// entries 2..7 are the KLM write's padding (zero), 8 and 9 the MTT
	// write, 10..15 its padding.
	klmBytes := kent(0x10, paKeyV, 0x100).Append(nil)
	want[0] = prm.DecodeMTTEntry(klmBytes[0:8])
	want[1] = prm.DecodeMTTEntry(klmBytes[8:16])
	want[8] = prm.MTTEntry{PTag: 0x9000, RdEn: true, WrEn: true}
	want[9] = prm.MTTEntry{PTag: 0xa000, RdEn: true, WrEn: true}
	if got := mttOf(q); !reflect.DeepEqual(got, want) {
		t.Errorf("list after two UMRs:\n got  %+v\n want %+v", got, want)
	}
	if r := m.UMR(scenario.UMR{QPN: qpA, Key: tkey, MTT: mttEntries(make([]uint64, 8)), Offset: 8}); r == nil || r.Status != prm.UMRCapacity {
		t.Errorf("list past the capacity at offset 8: got %v, want UMR_CAPACITY", r)
	}
}

// TestDirectedLowestFreeIndex: create_mkey without an index takes the
// lowest index not created, including one freed by destroy.
func TestDirectedLowestFreeIndex(t *testing.T) {
	m := newModel(ref.DefaultConfig())
	auto := func() uint32 {
		k := paKey(0, 1, 0, 0, true)
		k.HasIndex = false
		return mustCreate(t, m, k).Index()
	}
	expect := func(got, want uint32) {
		t.Helper()
		if got != want {
			t.Errorf("create_mkey took index %d, want %d", got, want)
		}
	}
	expect(auto(), 0)
	expect(auto(), 1)
	expect(auto(), 2)
	if r := m.Destroy(1); r != nil {
		t.Fatal(r)
	}
	if r := m.Destroy(1); r == nil || r.Status != prm.BadKeyIndex {
		t.Errorf("destroy twice: %v", r)
	}
	if got := m.Translate(rd(prm.MakeKey(1, 1), 0, 8), nil); !sameOutcome(got, failOut(prm.BadKeyIndex, 0, 0)) {
		t.Errorf("access after destroy: %s", showOutcome(got))
	}
	if _, r := m.Query(1); r == nil || r.Status != prm.BadKeyIndex {
		t.Errorf("query after destroy: %v", r)
	}
	expect(auto(), 1)
	mustCreate(t, m, paKey(4, 1, 0, 0, true))
	expect(auto(), 3)
	expect(auto(), 5)
	// A refused create with an index does not take it; the lowest stays.
	if _, r := m.Create(with(paKey(6, 1, 0, 0, true), func(k *scenario.MKey) { k.MKC.LR = false })); r == nil {
		t.Fatal("create without lr accepted")
	}
	expect(auto(), 6)
	m.Destroy(0)
	m.Destroy(3)
	expect(auto(), 0)
	expect(auto(), 3)
	expect(auto(), 7)
	mustCreate(t, m, paKey(prm.MaxIndex, 1, 0, 0, true))
	expect(auto(), 8)
}

// TestDirectedBumpAllocator: list handles come from the bump allocator at
// 0x1_0000_0000 by capacity; capacity 0 keeps handle 0; a given handle is
// used as it is and shares the list; destroy frees nothing.
func TestDirectedBumpAllocator(t *testing.T) {
	m := newModel(ref.DefaultConfig())
	handle := func(idx uint32) uint64 {
		t.Helper()
		q, r := m.Query(idx)
		if r != nil {
			t.Fatalf("query %d: %v", idx, r)
		}
		return q.MKC.MTTHandle
	}
	a := mttKey(1, 1, 0, 0x3000, 12, 0x10000, 0x20000, 0x30000) // 4 octwords
	mustCreate(t, m, a)
	b := klmKey(2, 1, 0, 0x10, make([]prm.KLMEntry, 5)...) // 8 octwords
	mustCreate(t, m, b)
	mustCreate(t, m, paKey(3, 1, 0, 0, true))                                                               // capacity 0
	reserved := with(mttKey(4, 1, 0, 0, 12), func(k *scenario.MKey) { k.MKC.TranslationsOctwordSize = 12 }) // no entries
	mustCreate(t, m, reserved)
	shared := with(mttKey(5, 2, 0, 0x3000, 12), func(k *scenario.MKey) {
		k.MKC.TranslationsOctwordSize = 4
		k.MKC.MTTHandle = ref.HandleBase
	})
	mustCreate(t, m, shared)
	wants := map[uint32]uint64{1: ref.HandleBase, 2: ref.HandleBase + 64, 3: 0, 4: ref.HandleBase + 64 + 128, 5: ref.HandleBase}
	for idx, w := range wants {
		if h := handle(idx); h != w {
			t.Errorf("index %d: mtt_handle %#x, want %#x", idx, h, w)
		}
	}
	// The shared list: key 5 reads key 1's pages; a UMR through key 1 shows
	// through key 5.
	k5 := prm.MakeKey(5, 2)
	if got := m.Translate(rd(k5, 0x1010, 8), nil); !sameOutcome(got, okOut(dma(0x20010, 8))) {
		t.Errorf("shared list: %s", showOutcome(got))
	}
	if r := m.UMR(scenario.UMR{QPN: qpA, Key: prm.MakeKey(1, 1), MTT: mttEntries([]uint64{0x70000, 0x80000})}); r != nil {
		t.Fatal(r)
	}
	if got := m.Translate(rd(k5, 0x1010, 8), nil); !sameOutcome(got, okOut(dma(0x80010, 8))) {
		t.Errorf("shared list after UMR through the other key: %s", showOutcome(got))
	}
	if got := m.Translate(rd(k5, 0x2010, 8), nil); !sameOutcome(got, failOut(prm.PageAccess, 0, 0)) {
		t.Errorf("shared list, padding written by the UMR: %s", showOutcome(got))
	}
	// Destroy frees no list space; the index comes back with a new list.
	m.Destroy(1)
	mustCreate(t, m, a)
	if h := handle(1); h != ref.HandleBase+64+128+192 {
		t.Errorf("recreated index 1: mtt_handle %#x, want %#x", h, ref.HandleBase+64+128+192)
	}
	// The old list, still shared by key 5, is untouched by the new create.
	if got := m.Translate(rd(k5, 0x1010, 8), nil); !sameOutcome(got, okOut(dma(0x80010, 8))) {
		t.Errorf("old list after destroy and recreate: %s", showOutcome(got))
	}
	// A create with a given handle writes its entries there (no padding).
	mustCreate(t, m, with(mttKey(6, 1, 0, 0x3000, 12, 0x90000), func(k *scenario.MKey) {
		k.MKC.TranslationsOctwordSize = 4
		k.MKC.MTTHandle = ref.HandleBase
	}))
	if got := m.Translate(rd(k5, 0x0010, 0x1000), nil); !sameOutcome(got, okOut(dma(0x90010, 0xff0), dma(0x80000, 0x10))) {
		t.Errorf("shared list after a create over it: %s", showOutcome(got))
	}
}

// TestDirectedListBorders: a KLM or MTT list's capacity ends the search even
// when the bytes after it hold another key's list.
func TestDirectedListBorders(t *testing.T) {
	m := newModel(ref.DefaultConfig())
	mustCreate(t, m, pa)
	// Key 1's four entries fill its capacity; key 2's list follows it at
	// the next handle and would translate offset 0x4000 of key 1.
	k1 := mustCreate(t, m, klmKey(1, 1, 0, 0x10000, kent(0x1000, paKeyV, 0x10000), kent(0x1000, paKeyV, 0x20000),
		kent(0x1000, paKeyV, 0x30000), kent(0x1000, paKeyV, 0x40000)))
	mustCreate(t, m, klmKey(3, 1, 0, 0x1000, kent(0x1000, paKeyV, 0x50000)))
	if got := m.Translate(rd(k1, 0x3ff0, 0x20), nil); !sameOutcome(got, failOut(prm.TranslationRange, 0, 0x10)) {
		t.Errorf("KLM past its capacity into the next list: %s", showOutcome(got))
	}
	f1 := mustCreate(t, m, fbsKey(4, 1, 0, 0x10000, 12, kent(0, paKeyV, 0x10000), kent(0, paKeyV, 0x20000),
		kent(0, paKeyV, 0x30000), kent(0, paKeyV, 0x40000)))
	mustCreate(t, m, klmKey(5, 1, 0, 0x1000, kent(0x1000, paKeyV, 0x50000)))
	if got := m.Translate(rd(f1, 0x3ff0, 0x20), nil); !sameOutcome(got, failOut(prm.TranslationRange, 0, 0x10)) {
		t.Errorf("Fixed Buffer Size past its capacity into the next list: %s", showOutcome(got))
	}
	t1 := mustCreate(t, m, mttKey(6, 1, 0, 0x10000, 12, 1<<12, 2<<12, 3<<12, 4<<12, 5<<12, 6<<12, 7<<12, 8<<12))
	mustCreate(t, m, mttKey(7, 1, 0, 0x1000, 12, 9<<12))
	if got := m.Translate(rd(t1, 0x7ff0, 0x20), nil); !sameOutcome(got, failOut(prm.TranslationRange, 0, 0x10)) {
		t.Errorf("MTT past its capacity into the next list: %s", showOutcome(got))
	}
}

// TestDirectedPageFaultResume: an ODP fault stalls the access; a resume
// runs it again against the state of that moment (a new fault stalls it
// again), a resume with error ends it with PAGE_ACCESS at its fault, and a
// resume with nothing stalled is refused.
func TestDirectedPageFaultResume(t *testing.T) {
	m := newModel(ref.DefaultConfig())
	odp := mttKey(8, 3, 0x1000, 0x2000, 12, 0xa000)
	odp.MKC.TranslationsOctwordSize = 4
	odp.ODP = true
	key := mustCreate(t, m, odp)
	// A KLM key over it: the fault names the MTT key, at level 1.
	kk := mustCreate(t, m, klmKey(9, 3, 0, 0x2000, kent(0x2000, key, 0x1000)))
	fault := ref.Outcome{Status: prm.PageFault, Level: 1, Offset: 0x10, FaultKey: key, FaultAddr: 0x2000}
	if got := m.Access(0, rd(kk, 0xff0, 0x20)); !sameOutcome(got, fault) {
		t.Fatalf("first access: %s", showOutcome(got))
	}
	if got := m.Access(1, typed(rd(key, 0x1ff8, 0x10), prm.LocalWrite)); got.Status != prm.PageFault || got.Offset != 8 || got.Level != 0 {
		t.Fatalf("second access: %s", showOutcome(got))
	}
	if m.Stalled() != 2 {
		t.Fatalf("%d stalled, want 2", m.Stalled())
	}
	if _, r := m.Resume(prm.MakeKey(8, 4), true); r == nil || r.Status != prm.BadParam {
		t.Errorf("resume of a key with nothing stalled (other variant): %v", r)
	}
	// Resume before the page is mapped: both fault again and stay stalled.
	rs, r := m.Resume(key, true)
	if r != nil || len(rs) != 2 || rs[0].Seq != 0 || rs[1].Seq != 1 || rs[0].Status != prm.PageFault || rs[1].Status != prm.PageFault {
		t.Fatalf("resume before mapping: %+v %v", rs, r)
	}
	if m.Stalled() != 2 {
		t.Fatalf("after a resume that faults again: %d stalled, want 2", m.Stalled())
	}
	// Map page 1 read-only, as a driver's UMR does; resume again.
	if r := m.UMR(scenario.UMR{QPN: qpA, Key: key, MTT: []prm.MTTEntry{{PTag: 0xa000, RdEn: true, WrEn: true}, {PTag: 0xb000, RdEn: true}}}); r != nil {
		t.Fatal(r)
	}
	rs, r = m.Resume(key, true)
	if r != nil || len(rs) != 2 {
		t.Fatalf("resume after mapping: %+v %v", rs, r)
	}
	if !sameOutcome(rs[0].Outcome, okOut(dma(0xaff0, 0x10), dma(0xb000, 0x10))) {
		t.Errorf("read resumed: %s", showOutcome(rs[0].Outcome))
	}
	if rs[1].Status != prm.PageFault {
		t.Errorf("write resumed on a read-only page: %s", showOutcome(rs[1].Outcome))
	}
	if m.Stalled() != 1 {
		t.Fatalf("%d stalled, want 1", m.Stalled())
	}
	rs, r = m.Resume(key, false)
	if r != nil || len(rs) != 1 || rs[0].Seq != 1 || !sameOutcome(rs[0].Outcome, failOut(prm.PageAccess, 0, 8)) {
		t.Errorf("resume with error: %+v %v", rs, r)
	}
	if _, r := m.Resume(key, true); r == nil || r.Status != prm.BadParam || m.Stalled() != 0 {
		t.Errorf("resume with nothing stalled: %v, %d stalled", r, m.Stalled())
	}
}
