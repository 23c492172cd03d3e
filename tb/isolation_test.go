package tb

import (
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb/score"
)

var (
	isoSeed = flag.Int64("isolation.seed", 0, "run TestIsolation on this seed only (0: its fixed seeds)")
	isoOps  = flag.Int("isolation.ops", 0, "operations per TestIsolation scenario (0: the default)")
)

// isoQPs: three PDs of user QPs, a REG_UMR QP in PD 1 and the driver's
// own REG_UMR QP on a private PD (translation.md 3.2).
var isoQPs = []scenario.QP{
	{QPN: 0x10, PD: 1}, {QPN: 0x11, PD: 1},
	{QPN: 0x20, PD: 2}, {QPN: 0x21, PD: 2},
	{QPN: 0x30, PD: 3},
	{QPN: 0x40, PD: 1, RegUMR: true},
	{QPN: 0x41, PD: 0x7f, RegUMR: true},
}

// isoMaxIndex: indexes 1..isoMaxIndex, few enough that destroyed indexes
// are soon created again (with another variant, PD or mode).
const isoMaxIndex = 48

// isoGen builds a scenario made to break isolation. It plans on a shadow
// (the oracle itself, fed the operations it makes), so it always knows
// which keys are live, which died and which accesses are stalled.
type isoGen struct {
	r      *rand.Rand
	sh     *score.Isolation
	sc     *scenario.Scenario
	frames []uint64 // page frames shared by every PD
	dead   []prm.Key
}

func genIsolation(seed int64, n int) *scenario.Scenario {
	g := &isoGen{r: rand.New(rand.NewSource(seed)), sh: score.NewIsolation(4), sc: &scenario.Scenario{QPs: isoQPs}}
	if err := g.sh.Load(&scenario.Scenario{QPs: isoQPs}); err != nil {
		panic(err) // QPs alone: nothing to refuse
	}
	g.frames = []uint64{0} // a ptag of 0 is a page like any other
	for i := 0; i < 23; i++ {
		g.frames = append(g.frames, uint64(g.r.Int63n(1<<24))<<21)
	}
	for i := 0; i < 24; i++ {
		g.create()
	}
	for len(g.sc.Ops) < n {
		g.step()
	}
	return g.sc
}

// add appends op and runs it on the shadow.
func (g *isoGen) add(op scenario.Op) scenario.Result {
	g.sc.Ops = append(g.sc.Ops, op)
	return g.sh.Apply(len(g.sc.Ops)-1, &g.sc.Ops[len(g.sc.Ops)-1])
}

func (g *isoGen) step() {
	switch x := g.r.Intn(100); {
	case x < 34:
		if op, ok := g.goodAccess(g.pickLive(nil)); ok {
			g.add(op)
		}
	case x < 40: // an ODP key: faults on its missing pages
		if op, ok := g.goodAccess(g.pickODP()); ok {
			g.add(op)
		}
	case x < 56:
		g.attackAccess()
	case x < 63:
		g.create()
	case x < 66:
		g.destroy()
	case x < 80:
		g.umr()
	case x < 88:
		g.invalidate()
	case x < 90:
		g.add(scenario.Op{Kind: scenario.OpQueryMKey, Index: uint32(1 + g.r.Intn(isoMaxIndex))})
	default:
		g.resume()
	}
}

// pickODP is a random live ODP key, or 0.
func (g *isoGen) pickODP() uint32 {
	var c []uint32
	for i := uint32(1); i <= isoMaxIndex; i++ {
		if m, odp, ok := g.sh.Object(i); ok && odp && !m.Free {
			c = append(c, i)
		}
	}
	if len(c) == 0 {
		return 0
	}
	return c[g.r.Intn(len(c))]
}

func (g *isoGen) obj(index uint32) (prm.MKC, bool) {
	m, _, ok := g.sh.Object(index)
	return m, ok
}

// pickLive is a random created, not free index that ok accepts (nil: any),
// or 0.
func (g *isoGen) pickLive(ok func(m prm.MKC) bool) uint32 {
	return g.pick(func(m prm.MKC) bool { return !m.Free && (ok == nil || ok(m)) })
}

// pick is a random created index whose MKC ok accepts, or 0.
func (g *isoGen) pick(ok func(m prm.MKC) bool) uint32 {
	var c []uint32
	for i := uint32(1); i <= isoMaxIndex; i++ {
		if m, there := g.obj(i); there && ok(m) {
			c = append(c, i)
		}
	}
	if len(c) == 0 {
		return 0
	}
	return c[g.r.Intn(len(c))]
}

func (g *isoGen) qpIn(pd uint32, not uint32) (scenario.QP, bool) {
	var c []scenario.QP
	for _, q := range isoQPs {
		if q.PD == pd && q.QPN != not {
			c = append(c, q)
		}
	}
	if len(c) == 0 {
		return scenario.QP{}, false
	}
	return c[g.r.Intn(len(c))], true
}

func (g *isoGen) qpNotIn(pd uint32) scenario.QP {
	for {
		if q := isoQPs[g.r.Intn(len(isoQPs))]; q.PD != pd {
			return q
		}
	}
}

// owner is the QP that may use the object: its bound QP, else one of its
// PD (else any).
func (g *isoGen) owner(m prm.MKC) uint32 {
	if m.QPN != prm.QPNNone {
		return m.QPN
	}
	if q, ok := g.qpIn(m.PD, 0); ok {
		return q.QPN
	}
	return isoQPs[g.r.Intn(len(isoQPs))].QPN
}

var isoLens = []uint32{1, 7, 8, 64, 300, 4096, 5000, 9000, 20000, 70000}

// goodAccess is an access that the object's owner may make: a right it
// has, inside its range.
func (g *isoGen) goodAccess(index uint32) (scenario.Op, bool) {
	m, ok := g.obj(index)
	if index == 0 || !ok {
		return scenario.Op{}, false
	}
	r := g.r
	var types []prm.AccessType
	for _, t := range prm.AccessTypes() {
		if score.Grants(t, &m) {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		types = prm.AccessTypes()
	}
	a := scenario.Access{QPN: g.owner(m), Key: prm.MakeKey(index, m.Variant), Type: types[r.Intn(len(types))]}
	span := m.Len
	if m.Length64 || span > 1<<20 {
		span = 1 << 20
	}
	if span == 0 {
		span = 1
	}
	a.Len = uint32(min(uint64(isoLens[r.Intn(len(isoLens))]), span))
	if a.Type == prm.RemoteAtomic {
		a.Len = 8
	}
	a.Addr = m.StartAddr + uint64(r.Int63n(int64(span-min(uint64(a.Len), span)+1)))
	if r.Intn(6) == 0 {
		a.Addr = m.StartAddr + span - uint64(a.Len) // the last bytes
	}
	if a.Type == prm.RemoteAtomic && r.Intn(8) != 0 {
		a.Addr = (a.Addr + 7) &^ 7
	}
	return scenario.Op{Kind: scenario.OpAccess, Access: a}, true
}

// attackAccess is an access that must fail: a dead key, another PD, a
// window from the wrong QP, a right the key lacks, bytes outside it, a
// variant or index it does not have.
func (g *isoGen) attackAccess() {
	r := g.r
	if r.Intn(3) == 0 && len(g.dead) > 0 {
		k := g.dead[r.Intn(len(g.dead))]
		if g.sh.Dead(k) != "" {
			g.add(scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: isoQPs[r.Intn(len(isoQPs))].QPN,
				Key: k, Addr: uint64(r.Int63n(1 << 40)), Len: 64, Type: prm.RemoteWrite}})
			return
		}
	}
	idx := g.pickLive(nil)
	op, ok := g.goodAccess(idx)
	if !ok {
		return
	}
	m, _ := g.obj(idx)
	a := &op.Access
	switch r.Intn(8) {
	case 0: // another PD's QP, or the driver's REG_UMR QP
		a.QPN = g.qpNotIn(m.PD).QPN
	case 1: // a window from another QP of its PD
		if w := g.pickLive(func(m prm.MKC) bool { return m.QPN != prm.QPNNone }); w != 0 {
			op, _ = g.goodAccess(w)
			wm, _ := g.obj(w)
			if q, ok := g.qpIn(wm.PD, wm.QPN); ok {
				op.Access.QPN = q.QPN
			}
		}
	case 2: // a right it lacks
		for _, t := range prm.AccessTypes() {
			if !score.Grants(t, &m) {
				a.Type = t
			}
		}
	case 3: // one byte past the end, or before the start
		if r.Intn(2) == 0 {
			a.Addr = m.StartAddr + m.Len - uint64(a.Len) + 1
		} else {
			a.Addr = m.StartAddr - 1
		}
	case 4: // another variant
		a.Key ^= prm.Key(1 + r.Intn(255))
	case 5: // an index not created
		for i := uint32(1); i <= isoMaxIndex; i++ {
			if _, ok := g.obj(i); !ok {
				a.Key = prm.MakeKey(i, uint8(r.Intn(256)))
				break
			}
		}
	case 6: // misaligned atomic
		a.Type, a.Len, a.Addr = prm.RemoteAtomic, 8, a.Addr|4
	case 7: // longer than the key
		a.Len = uint32(min(m.Len+1+uint64(r.Intn(4096)), 1<<20))
	}
	g.add(op)
}

// killed runs accesses with a key that just died: the owner's own
// access, replayed, and accesses through KLM keys that refer to it.
func (g *isoGen) killed(old prm.Key, before []scenario.Op) {
	if g.sh.Dead(old) == "" {
		return
	}
	g.dead = append(g.dead, old)
	for _, op := range before {
		g.add(op)
	}
	for _, ref := range g.referrers(old) {
		if op, ok := g.goodAccess(ref); ok {
			g.add(op)
		}
	}
}

// templates are good accesses with the key of index, to replay after it
// dies.
func (g *isoGen) templates(index uint32) []scenario.Op {
	var out []scenario.Op
	for i := 0; i < 1+g.r.Intn(3); i++ {
		if op, ok := g.goodAccess(index); ok {
			out = append(out, op)
		}
	}
	return out
}

// referrers are live KLM / Fixed Buffer Size keys with an entry naming
// key.
func (g *isoGen) referrers(key prm.Key) []uint32 {
	var out []uint32
	for i := uint32(1); i <= isoMaxIndex; i++ {
		m, ok := g.obj(i)
		if !ok || m.Free || (m.AccessMode != prm.ModeKLM && m.AccessMode != prm.ModeFixedBufferSize) {
			continue
		}
		for j := uint64(0); j < min(uint64(m.TranslationsOctwordSize), 16); j++ {
			if prm.Key(uint32(g.sh.Word(m.MTTHandle+16*j))) == key {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

var isoLogs = []uint8{12, 12, 12, 13, 16, 21}

func (g *isoGen) rights(m *prm.MKC) {
	r := g.r
	m.LR, m.LW, m.RR, m.RW, m.A = true, r.Intn(7) != 0, r.Intn(5) != 0, r.Intn(5) != 0, r.Intn(2) == 0
	m.EnRinval, m.UMREn = r.Intn(2) == 0, r.Intn(12) != 0
}

func (g *isoGen) mttEntries(n int, odp bool) []prm.MTTEntry {
	r := g.r
	out := make([]prm.MTTEntry, n)
	for i := range out {
		e := prm.MTTEntry{PTag: g.frames[r.Intn(len(g.frames))], RdEn: true, WrEn: true}
		switch x := r.Intn(100); {
		case odp && x < 50, x < 4:
			e.RdEn, e.WrEn = false, false
		case x < 8:
			e.WrEn = false
		case x < 11:
			e.RdEn = false
		}
		out[i] = e
	}
	return out
}

// klmEntries are n entries over other keys: mostly live keys of pd, some
// of another PD, dead, free, not created, or the key itself (a cycle).
func (g *isoGen) klmEntries(n int, pd uint32, self prm.Key, fixed uint64) ([]prm.KLMEntry, uint64) {
	r := g.r
	var out []prm.KLMEntry
	total := uint64(0)
	for i := 0; i < n; i++ {
		var t uint32
		switch x := r.Intn(100); {
		case x < 70:
			t = g.pickLive(func(m prm.MKC) bool { return m.PD == pd && !m.Length64 })
		case x < 85:
			t = g.pickLive(func(m prm.MKC) bool { return !m.Length64 })
		default:
			t = g.pick(func(m prm.MKC) bool { return !m.Length64 })
		}
		e := prm.KLMEntry{MKey: self, Address: uint64(r.Int63n(1 << 40))}
		bc := uint64(1 + r.Intn(8192))
		if m, ok := g.obj(t); ok && t != 0 && r.Intn(25) != 0 {
			e.MKey = prm.MakeKey(t, m.Variant)
			if r.Intn(12) == 0 {
				e.MKey ^= 1 // a stale variant
			}
			bc = uint64(1 + r.Int63n(int64(max(min(m.Len, 3<<12), 1))))
			e.Address = m.StartAddr + uint64(r.Int63n(int64(m.Len-min(bc, m.Len)+1)))
			if r.Intn(15) == 0 {
				e.Address += m.Len // past its end
			}
		} else if r.Intn(3) == 0 {
			e.MKey = prm.MakeKey(uint32(isoMaxIndex+1+r.Intn(10)), 0) // not created
		}
		if fixed != 0 {
			bc = fixed
		} else if r.Intn(12) == 0 {
			bc = 0 // skipped by the search
		}
		if fixed == 0 {
			e.ByteCount = uint32(bc)
		}
		total += bc
		out = append(out, e)
	}
	return out, total
}

func (g *isoGen) freeIndex() uint32 {
	var c []uint32
	for i := uint32(1); i <= isoMaxIndex; i++ {
		if _, ok := g.obj(i); !ok {
			c = append(c, i)
		}
	}
	if len(c) == 0 {
		return 0
	}
	return c[g.r.Intn(len(c))]
}

// create makes an object of a random kind in a random PD, at a free
// index (now and then a created one: BAD_PARAM).
func (g *isoGen) create() {
	r := g.r
	idx := g.freeIndex()
	if idx == 0 { // every index is taken: destroy one, create it again
		g.destroy()
		idx = g.freeIndex()
	}
	if idx == 0 || r.Intn(30) == 0 {
		idx = uint32(1 + r.Intn(isoMaxIndex))
	}
	k := scenario.MKey{Index: idx, HasIndex: true, PgAccess: r.Intn(8) != 0}
	m := prm.MKC{QPN: prm.QPNNone, Variant: uint8(r.Intn(256)), PD: uint32(1 + r.Intn(3))}
	g.rights(&m)
	self := prm.MakeKey(idx, m.Variant)
	switch x := r.Intn(100); {
	case x < 40: // an MR over shared frames, some ODP, some sharing a list
		m.AccessMode = prm.ModeMTT
		m.LogEntitySize = isoLogs[r.Intn(len(isoLogs))]
		p := uint64(1) << m.LogEntitySize
		m.StartAddr = uint64(r.Int63n(1 << 40))
		if r.Intn(2) == 0 {
			m.StartAddr &^= p - 1
		}
		pages := 1 + r.Intn(6)
		whole := uint64(pages)*p - m.StartAddr%p
		m.Len = whole - uint64(r.Int63n(int64(min(whole, p))))
		k.ODP = r.Intn(4) == 0
		k.MTT = g.mttEntries(pages, k.ODP)
		if r.Intn(10) == 0 {
			k.MTT = k.MTT[:r.Intn(pages)] // pages never written
		}
		m.TranslationsOctwordSize = scenario.OctwordsFor(pages, 0)
		if r.Intn(10) == 0 {
			if t := g.pick(func(o prm.MKC) bool { return o.AccessMode == prm.ModeMTT && o.MTTHandle != 0 }); t != 0 {
				o, _ := g.obj(t)
				m.MTTHandle = o.MTTHandle // a shared list, perhaps of another PD
				m.TranslationsOctwordSize = min(m.TranslationsOctwordSize, o.TranslationsOctwordSize)
				k.MTT = nil
			}
		}
	case x < 58: // variable KLM, perhaps across PDs
		m.AccessMode = prm.ModeKLM
		m.StartAddr = uint64(r.Int63n(1 << 40))
		k.KLM, m.Len = g.klmEntries(1+r.Intn(5), m.PD, self, 0)
		if r.Intn(8) == 0 { // a cycle: INDIRECTION_DEPTH
			k.KLM = append([]prm.KLMEntry{{ByteCount: 4096, MKey: self, Address: m.StartAddr}}, k.KLM...)
			m.Len += 4096
		}
		m.TranslationsOctwordSize = scenario.OctwordsFor(0, len(k.KLM))
	case x < 66: // Fixed Buffer Size
		m.AccessMode = prm.ModeFixedBufferSize
		m.LogEntitySize = 12 + uint8(r.Intn(2))
		m.StartAddr = uint64(r.Int63n(1 << 40))
		k.KLM, m.Len = g.klmEntries(1+r.Intn(4), m.PD, self, 1<<m.LogEntitySize)
		m.TranslationsOctwordSize = scenario.OctwordsFor(0, len(k.KLM))
	case x < 80: // a type 2 window over part of an MR, bound to a QP of its PD
		mr := g.pickLive(func(o prm.MKC) bool { return o.AccessMode == prm.ModeMTT && !o.Length64 && o.Len > 0 })
		o, ok := g.obj(mr)
		if mr == 0 || !ok {
			return
		}
		m.AccessMode, m.PD = prm.ModeKLM, o.PD
		off := uint64(r.Int63n(int64(o.Len)))
		m.StartAddr, m.Len = o.StartAddr+off, 1+uint64(r.Int63n(int64(o.Len-off)))
		m.LR, m.LW, m.RR, m.RW, m.A = true, o.LW && r.Intn(2) == 0, o.RR && r.Intn(4) != 0, o.RW && r.Intn(4) != 0, o.A && r.Intn(2) == 0
		m.UMREn = true
		if q, ok := g.qpIn(m.PD, 0); ok {
			m.QPN = q.QPN
		}
		k.KLM = []prm.KLMEntry{{ByteCount: uint32(m.Len), MKey: prm.MakeKey(mr, o.Variant), Address: m.StartAddr}}
		m.TranslationsOctwordSize = 4
		if r.Intn(5) == 0 { // allocated free, to be bound by UMR
			m.Free, m.QPN, k.KLM = true, prm.QPNNone, nil
		}
	case x < 88: // PA, SW_ICM, MEMIC
		m.AccessMode = []prm.AccessMode{prm.ModePA, prm.ModePA, prm.ModeSWICM, prm.ModeMEMIC}[r.Intn(4)]
		m.StartAddr, m.Len = uint64(r.Int63n(1<<44)), uint64(1+r.Intn(1<<20))
		if r.Intn(25) == 0 {
			m.StartAddr, m.Len, m.Length64 = 0, 0, true
		}
	default: // free, capacity reserved, to be filled by UMR
		m.Free, m.UMREn = true, true
		m.LR = r.Intn(2) == 0
		m.AccessMode, m.LogEntitySize = prm.ModeMTT, 12
		m.TranslationsOctwordSize = 8
	}
	if r.Intn(40) == 0 {
		m.TranslationsOctwordSize += 2 // not a multiple of 4: BAD_PARAM
	}
	k.MKC = m
	g.add(scenario.Op{Kind: scenario.OpCreateMKey, Create: &k})
}

func (g *isoGen) destroy() {
	idx := g.pick(func(prm.MKC) bool { return true })
	if g.r.Intn(10) == 0 || idx == 0 {
		idx = uint32(1 + g.r.Intn(isoMaxIndex))
	}
	old, was := g.sh.Live(idx)
	t := g.templates(idx)
	g.add(scenario.Op{Kind: scenario.OpDestroyMKey, Index: idx})
	if was {
		g.killed(old, t)
	}
}

// invalidate invalidates a key, locally or remotely, mostly by its owner,
// then uses it.
func (g *isoGen) invalidate() {
	r := g.r
	idx := g.pickLive(nil)
	if idx == 0 {
		return
	}
	m, _ := g.obj(idx)
	key := prm.MakeKey(idx, m.Variant)
	qpn := g.owner(m)
	switch r.Intn(8) {
	case 0:
		qpn = g.qpNotIn(m.PD).QPN // another PD, or the driver's REG_UMR QP
	case 1:
		if q, ok := g.qpIn(m.PD, m.QPN); ok {
			qpn = q.QPN // a window from a QP it is not bound to
		}
	case 2:
		key ^= prm.Key(1 + r.Intn(255))
	}
	kind := scenario.OpLocalInvalidate
	if r.Intn(2) == 0 {
		kind = scenario.OpSendWithInvalidate
	}
	t := g.templates(idx)
	g.add(scenario.Op{Kind: kind, QPN: qpn, Key: key})
	g.killed(prm.MakeKey(idx, m.Variant), t)
}

// umr posts a UMR of one of many kinds, most on the key's own QP.
func (g *isoGen) umr() {
	r := g.r
	idx := g.pick(func(prm.MKC) bool { return true })
	if idx == 0 {
		return
	}
	m, _ := g.obj(idx)
	old, wasLive := g.sh.Live(idx)
	u := &scenario.UMR{QPN: g.owner(m), Key: prm.MakeKey(idx, m.Variant)}
	if r.Intn(4) == 0 {
		u.Key ^= prm.Key(r.Intn(256)) // UMR finds its target by index alone
	}
	var after []scenario.Op
	newVariant := func() uint8 { return m.Variant + uint8(1+r.Intn(255)) }
	switch x := r.Intn(100); {
	case x < 18 && m.Free: // re-enable with a new variant (or, now and then, the old one)
		u.CheckFree, u.Mask = prm.CheckFreeIfFree, prm.MaskFree|prm.MaskVariant
		u.Image.Variant = newVariant()
		if r.Intn(5) == 0 {
			u.Image.Variant = m.Variant
		}
		if m.AccessMode == prm.ModeMTT && m.TranslationsOctwordSize > 0 && m.Len == 0 {
			// fill a free placeholder: an MR of 1..4 pages
			n := 1 + r.Intn(4)
			u.Mask |= prm.MaskStartAddr | prm.MaskLen | prm.MaskLR | prm.MaskLW | prm.MaskRR | prm.MaskRW
			u.Image.StartAddr, u.Image.Len = uint64(r.Int63n(1<<40))&^0xfff, uint64(n)<<12
			u.Image.LR, u.Image.LW, u.Image.RR, u.Image.RW = true, true, r.Intn(2) == 0, r.Intn(2) == 0
			u.MTT = g.mttEntries(n, false)
		}
		if m.AccessMode == prm.ModeKLM && m.Len == 0 { // bind a free window to the posting QP
			g.bind(u, m)
		}
	case x < 28: // free it
		u.Mask, u.Image.Free = prm.MaskFree, true
		if r.Intn(2) == 0 {
			u.CheckFree = prm.CheckFreeIfInUse
		}
		after = g.templates(idx)
	case x < 38: // a new variant on a live key
		u.Mask, u.Image.Variant = prm.MaskVariant, newVariant()
		after = g.templates(idx)
	case x < 52: // a REG_UMR QP moves the key to another PD
		u.QPN = []uint32{0x40, 0x41}[r.Intn(2)]
		u.Mask, u.Image.PD = prm.MaskPD, uint32(1+r.Intn(3))
		if r.Intn(10) == 0 {
			u.Image.PD = 0x7f
		}
		after = g.templates(idx)
	case x < 56: // a user QP tries to move the PD: UMR_PD_UPDATE
		u.Mask, u.Image.PD = prm.MaskPD, uint32(1+r.Intn(3))
	case x < 62: // a QP of another PD: PD_MISMATCH
		u.QPN = g.qpNotIn(m.PD).QPN
		u.Mask, u.Image.RW, u.Image.RR = prm.MaskRW|prm.MaskRR, true, true
	case x < 66: // a window from another QP of its PD, or the PD's REG_UMR QP
		if q, ok := g.qpIn(m.PD, m.QPN); ok {
			u.QPN = q.QPN
		}
		u.Mask, u.Image.RW = prm.MaskRW, true
	case x < 78 && m.AccessMode == prm.ModeMTT: // rewrite pages
		capEntries := 2 * int(m.TranslationsOctwordSize)
		u.Offset = uint64(4 * r.Intn(max(capEntries/8, 1)+1))
		if r.Intn(6) == 0 {
			u.Offset += 2 // UMR_ALIGNMENT
		}
		u.MTT = g.mttEntries(1+r.Intn(8), false)
	case x < 78 && (m.AccessMode == prm.ModeKLM || m.AccessMode == prm.ModeFixedBufferSize) && m.QPN == prm.QPNNone:
		var fixed uint64
		if m.AccessMode == prm.ModeFixedBufferSize {
			fixed = 1 << m.LogEntitySize
		}
		var total uint64
		u.KLM, total = g.klmEntries(1+r.Intn(4), m.PD, prm.MakeKey(idx, m.Variant), fixed)
		u.Mask, u.Image.Len = prm.MaskLen, total
	case x < 82 && m.AccessMode == prm.ModeKLM: // (re)bind a window
		g.bind(u, m)
	case x < 90: // rights
		u.Mask = prm.MaskLR | prm.MaskLW | prm.MaskRR | prm.MaskRW | prm.MaskA
		u.Image.LR, u.Image.LW, u.Image.RR, u.Image.RW, u.Image.A = r.Intn(8) != 0, r.Intn(2) == 0, r.Intn(2) == 0, r.Intn(2) == 0, r.Intn(2) == 0
		after = g.templates(idx)
	case x < 96: // range
		u.Mask = prm.MaskStartAddr | prm.MaskLen
		u.Image.StartAddr = m.StartAddr + uint64(r.Intn(8192)) - 4096
		u.Image.Len = m.Len + uint64(r.Intn(16384))
	default: // mode
		u.Mask = prm.MaskAccessMode | prm.MaskLogEntitySize
		u.Image.AccessMode = prm.AccessMode(r.Intn(8))
		u.Image.LogEntitySize = uint8(10 + r.Intn(4))
	}
	if r.Intn(30) == 0 {
		u.CheckFree = prm.CheckFree(r.Intn(3))
	}
	g.add(scenario.Op{Kind: scenario.OpUMR, UMR: u})
	if wasLive {
		g.killed(old, after)
	}
	for _, op := range after { // the new owner's view
		if op.Kind == scenario.OpAccess {
			if a, ok := g.goodAccess(idx); ok {
				g.add(a)
			}
			break
		}
	}
	if op, ok := g.goodAccess(idx); ok && r.Intn(2) == 0 {
		g.add(op)
	}
}

// bind makes u a window bind: free cleared, a new variant, bound to the
// posting QP, over part of a live MR of the window's PD.
func (g *isoGen) bind(u *scenario.UMR, w prm.MKC) {
	r := g.r
	mr := g.pickLive(func(o prm.MKC) bool {
		return o.AccessMode == prm.ModeMTT && o.PD == w.PD && !o.Length64 && o.Len > 0
	})
	o, ok := g.obj(mr)
	if mr == 0 || !ok {
		return
	}
	if r.Intn(6) != 0 {
		if q, ok := g.qpIn(w.PD, 0); ok && !q.RegUMR {
			u.QPN = q.QPN
		}
	}
	off := uint64(r.Int63n(int64(o.Len)))
	u.Mask |= prm.MaskFree | prm.MaskVariant | prm.MaskQPN | prm.MaskStartAddr | prm.MaskLen | prm.MaskRR | prm.MaskRW | prm.MaskLW
	u.Image.Free, u.Image.Variant, u.Image.QPN = false, w.Variant+1, u.QPN
	u.Image.StartAddr, u.Image.Len = o.StartAddr+off, 1+uint64(r.Int63n(int64(o.Len-off)))
	u.Image.RR, u.Image.RW, u.Image.LW = r.Intn(2) == 0, r.Intn(2) == 0, r.Intn(2) == 0
	u.KLM = []prm.KLMEntry{{ByteCount: uint32(u.Image.Len), MKey: prm.MakeKey(mr, o.Variant), Address: u.Image.StartAddr}}
}

// resume ends or retries the accesses stalled on an ODP key: after its
// pages are mapped (a UMR), as they are, with an error, or after the key
// is invalidated.
func (g *isoGen) resume() {
	r := g.r
	st := g.sh.Stalled()
	if len(st) == 0 && r.Intn(4) != 0 {
		return
	}
	if len(st) == 0 || r.Intn(20) == 0 {
		g.add(scenario.Op{Kind: scenario.OpPageFaultResume, Key: prm.MakeKey(uint32(1+r.Intn(isoMaxIndex)), 0), OK: true})
		return
	}
	k := st[r.Intn(len(st))]
	m, ok := g.obj(k.Index())
	switch x := r.Intn(10); {
	case x < 5 && ok && m.AccessMode == prm.ModeMTT: // map every page, then resume
		n := min(2*int(m.TranslationsOctwordSize), 64)
		mtt := make([]prm.MTTEntry, n)
		for i := range mtt {
			mtt[i] = prm.MTTEntry{PTag: g.frames[r.Intn(len(g.frames))], RdEn: true, WrEn: true}
		}
		g.add(scenario.Op{Kind: scenario.OpUMR, UMR: &scenario.UMR{QPN: 0x41, Key: k, MTT: mtt}})
	case x < 7 && ok: // invalidate it first: the resumed accesses must fail
		g.add(scenario.Op{Kind: scenario.OpLocalInvalidate, QPN: g.owner(m), Key: k})
	}
	g.add(scenario.Op{Kind: scenario.OpPageFaultResume, Key: k, OK: r.Intn(5) != 0})
}

// ---------------------------------------------------------------------------
// Running.

// isoConfigs are the clocked model's configurations for one seed: the
// default; every parameter at its least accepted value; the default with
// overlapping invalidation and a random command latency; and n random
// ones (each parameter at its least or a random value, at a random depth
// limit, with or without overlapping invalidation, random replacement,
// KLM cursors and back-pressure).
func isoConfigs(r *rand.Rand, n int) []isoConfig {
	ov := rtl.DefaultConfig()
	ov.OverlapInvalidate, ov.CmdLatency = true, r.Intn(200)
	out := []isoConfig{
		{name: "default", cfg: rtl.DefaultConfig()},
		{name: "least", cfg: leastConfig(4)},
		{name: "overlap", cfg: ov},
	}
	for i := 0; i < n; i++ {
		depth := []int{0, 1, 2, 3, 4, 4, 4, 6}[r.Intn(8)]
		c := randomLeast(r, depth)
		c.OverlapInvalidate = r.Intn(2) == 0
		c.KLM.Cursors = []int{0, 1, 4}[r.Intn(3)]
		if r.Intn(2) == 0 {
			c.MKCCache.Replacement, c.MKCCache.Seed = "random", r.Uint64()
		}
		out = append(out, isoConfig{name: fmt.Sprintf("random %d", i+1), cfg: c, bp: []int{0, 0, 50, 300}[r.Intn(4)], bpSeed: r.Uint64()})
	}
	return out
}

type isoConfig struct {
	name   string
	cfg    rtl.Config
	bp     int // back-pressure per mille
	bpSeed uint64
}

// isoJudge checks every result, in seq order, with a fresh oracle, and
// returns the oracle and the first violations.
func isoJudge(sc *scenario.Scenario, depth int, overlap bool, results []scenario.Result) (*score.Isolation, []string, error) {
	o := score.NewIsolation(depth)
	if err := o.Load(sc); err != nil {
		return nil, nil, err
	}
	if overlap {
		if err := o.Overlap(sc); err != nil {
			return nil, nil, err
		}
	}
	if len(results) != len(sc.Ops) {
		return nil, nil, fmt.Errorf("%d results for %d operations", len(results), len(sc.Ops))
	}
	var bad []string
	n := 0
	for i := range sc.Ops {
		v := o.Check(i, &sc.Ops[i], &results[i])
		n += len(v)
		if len(bad) < 8 {
			bad = append(bad, v...)
		}
	}
	if n > len(bad) {
		bad = append(bad, fmt.Sprintf("... %d violations in all", n))
	}
	return o, bad, nil
}

// TestIsolation is the isolation property test of issue 8: random
// scenarios built to break isolation (keys of different PDs on the same
// pages, windows bound to QPs, KLM chains across PDs, REG_UMR QPs moving
// a key's PD, invalidations and frees followed by the old key, new
// variants, destroys and re-creates, ODP faults and resumes), run through
// the golden model and the clocked model in several configurations. Every
// result is judged by the Isolation oracle, which shares no code with
// either model; the clocked model is also checked against the golden
// model on the scoreboard. A failure names the seed (-isolation.seed
// reruns it) and the configuration.
func TestIsolation(t *testing.T) {
	var seeds []int64
	for s := int64(1); s <= 16; s++ {
		seeds = append(seeds, s)
	}
	ops, randoms := 5000, 2
	if testing.Short() {
		seeds, ops, randoms = seeds[:3], 2500, 1
	}
	if *isoSeed != 0 {
		seeds = []int64{*isoSeed}
	}
	if *isoOps > 0 {
		ops = *isoOps
	}
	start := time.Now()
	total := map[string]int{}
	overlapped := 0
	for _, seed := range seeds {
		sc := genIsolation(seed, ops)
		// The golden model, judged by the oracle.
		rcfg := ref.Config{MaxIndirection: 4}
		golden, err := ref.Run(sc, rcfg)
		if err != nil {
			t.Fatalf("seed %d: golden model: %v", seed, err)
		}
		o, bad, err := isoJudge(sc, 4, false, golden)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(bad) > 0 {
			t.Errorf("seed %d (-isolation.seed %d -isolation.ops %d): the golden model breaks isolation rules:\n%s", seed, seed, ops, strings.Join(bad, "\n"))
			continue
		}
		for k, v := range o.Counts {
			total[k] += v
		}
		r := rand.New(rand.NewSource(seed))
		for _, c := range isoConfigs(r, randoms) {
			if err := c.cfg.Validate(); err != nil {
				t.Fatalf("seed %d %s: config refused: %v", seed, c.name, err)
			}
			got, diffs, err := isoClocked(sc, c)
			desc := fmt.Sprintf("seed %d (-isolation.seed %d -isolation.ops %d), config %s, back-pressure %d‰: %+v", seed, seed, ops, c.name, c.bp, c.cfg)
			if err != nil {
				t.Errorf("%s: %v", desc, err)
				continue
			}
			co, bad, err := isoJudge(sc, c.cfg.KLM.MaxIndirection, c.cfg.OverlapInvalidate, got)
			if err != nil {
				t.Errorf("%s: %v", desc, err)
				continue
			}
			if len(bad) > 0 {
				t.Errorf("%s: the clocked model breaks isolation rules:\n%s", desc, strings.Join(bad, "\n"))
			}
			// Against the golden model: every difference, but those the
			// oracle found to be legal outcomes of overlapping
			// invalidation.
			var mism []string
			excused := 0
			for _, seq := range slices.Sorted(maps.Keys(diffs)) {
				if co.Excused(seq) {
					excused++
				} else if len(mism) < 5 {
					mism = append(mism, diffs[seq])
				}
			}
			if len(mism) > 0 {
				t.Errorf("%s: %d of %d results differ from the golden model (%d more by overlapping invalidation, legal); first:\n%s",
					desc, len(diffs)-excused, len(sc.Ops), excused, strings.Join(mism, "\n"))
			}
			overlapped += excused
		}
	}
	t.Logf("%d seeds x %d operations in %v; %d results differ from the golden model as overlapping invalidation allows", len(seeds), ops, time.Since(start).Round(time.Millisecond), overlapped)
	if t.Failed() {
		return
	}
	var lines []string
	for k, v := range total {
		lines = append(lines, fmt.Sprintf("%s: %d", k, v))
	}
	sort.Strings(lines)
	t.Logf("what the oracle saw (golden model, all seeds):\n%s", strings.Join(lines, "\n"))
	// The generator must reach every attack it is built for.
	if *isoSeed == 0 && *isoOps == 0 {
		for _, want := range isoMustSee {
			if total[want] == 0 {
				t.Errorf("no %q in %d seeds: the generator no longer makes it", want, len(seeds))
			}
		}
	}
}

// isoMustSee are the classes every run of the fixed seeds must reach.
var isoMustSee = []string{
	"access OK", "access OK through KLM",
	"dead key denied after local_invalidate", "dead key denied after send_with_invalidate",
	"dead key denied after umr", "dead key denied after destroy_mkey",
	"access denied BAD_KEY_INDEX@0", "access denied KEY_MISMATCH@0", "access denied MKEY_FREE@0",
	"access denied PD_MISMATCH@0", "access denied QPN_MISMATCH@0", "access denied OUT_OF_RANGE@0",
	"access denied ACCESS_DENIED@0", "access denied MISALIGNED_ATOMIC@0", "access denied PAGE_ACCESS@0",
	"access denied PAGE_FAULT@0", "access denied TRANSLATION_RANGE@0",
	"access denied BAD_KEY_INDEX@1", "access denied KEY_MISMATCH@1", "access denied MKEY_FREE@1",
	"access denied PD_MISMATCH@1", "access denied QPN_MISMATCH@1", "access denied OUT_OF_RANGE@1",
	"access denied ACCESS_DENIED@1", "access denied INDIRECTION_DEPTH@2",
	"umr OK", "umr moves pd (REG_UMR QP)", "umr new variant", "umr PD_MISMATCH", "umr QPN_MISMATCH",
	"umr UMR_PD_UPDATE", "umr UMR_CHECK_FREE", "umr UMR_DISABLED", "umr UMR_ALIGNMENT", "umr UMR_CAPACITY",
	"local_invalidate OK", "local_invalidate PD_MISMATCH", "local_invalidate QPN_MISMATCH", "local_invalidate KEY_MISMATCH",
	"send_with_invalidate OK", "send_with_invalidate REMOTE_INVALIDATE_DENIED",
	"create_mkey OK", "create_mkey BAD_PARAM", "destroy_mkey OK", "destroy_mkey BAD_KEY_INDEX",
	"query_mkey OK", "resume ok=true", "resume ok=false", "resume BAD_PARAM",
}

// isoClocked runs the scenario through the clocked model with the
// scoreboard, and returns its results by seq and the scoreboard's
// differences by seq.
func isoClocked(sc *scenario.Scenario, c isoConfig) ([]scenario.Result, map[int]string, error) {
	board, err := score.NewBoard(sc, refConfig(c.cfg))
	if err != nil {
		return nil, nil, err
	}
	board.Keep = 0
	b, err := New(c.cfg)
	if err != nil {
		return nil, nil, err
	}
	if c.bp > 0 {
		b.Eng.Backpressure(c.bpSeed, c.bp)
	}
	if err := b.Load(sc); err != nil {
		return nil, nil, err
	}
	got := make([]scenario.Result, len(sc.Ops))
	diffs := map[int]string{}
	err = b.Stream(sc.Ops, RunOptions{OnResult: func(r *scenario.Result) error {
		if d := board.Check(r); d != "" {
			diffs[r.Seq] = d
		}
		got[r.Seq] = r.Clone()
		return nil
	}})
	if err != nil {
		return nil, nil, err
	}
	if missing, n := board.Missing(3); n > 0 {
		return nil, nil, fmt.Errorf("%d operations without a result: %v", n, missing)
	}
	return got, diffs, nil
}
