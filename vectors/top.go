package vectors

import (
	"fmt"
	"sort"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// MaxSegs is the number of segments a top vector lists; nseg counts them
// all.
const MaxSegs = 4

// worldSpan is how many random top vectors share one random world.
const worldSpan = 1024

// TopVector is one access through the whole translation path, against
// world World (an MKC table and ICM image), and ref's outcome.
type TopVector struct {
	World   uint16
	QPValid bool
	QPN     uint32
	QPPD    uint32
	Key     prm.Key
	VA      uint64
	Len     uint32
	Type    prm.AccessType
	// Expected, from ref.Model.Translate.
	Status    prm.Status
	Level     uint8
	Offset    uint32
	NSeg      uint32
	Segs      [MaxSegs]prm.Segment
	FaultKey  prm.Key
	FaultAddr uint64
}

func topLayout() *Layout {
	okW := "exp_status == 8'd0"
	fs := []Field{
		{Name: "world", Width: 16, Dir: DirFrame, Meaning: "the world (MKC table and ICM image, tables mkc and mem) the access runs against; the harness serves it on the DUT's read ports"},
		{Name: "qp_valid", Width: 1, Dir: DirInput, Meaning: "1: the QP exists; 0: it does not (BAD_PARAM)"},
		{Name: "qpn", Width: 24, Dir: DirInput, Meaning: "QPN of the requesting QP"},
		{Name: "qp_pd", Width: 24, Dir: DirInput, Meaning: "PD of the requesting QP"},
		{Name: "key", Width: 32, Dir: DirInput, Meaning: "the MKey the request carries: mkey_index 31:8, variant 7:0 (translation.md 1)"},
		{Name: "va", Width: 64, Dir: DirInput, Meaning: "first byte of the request, in the key's address space"},
		{Name: "len", Width: 32, Dir: DirInput, Meaning: "length in bytes (0: OK with no segments, nothing checked)"},
		{Name: "access_type", Width: 3, Dir: DirInput, Enum: "access_type", Meaning: "access type (enums.access_type)"},
		{Name: "status", Width: 8, Dir: DirExpected, Enum: "status", Meaning: "OK or the first failure of the depth-first walk (enums.status)"},
		{Name: "level", Width: 8, Dir: DirExpected, CompareWhen: "exp_status != 8'd0", Meaning: "failure: the KLM level where it arose (0: the key the request carried)"},
		{Name: "offset", Width: 32, Dir: DirExpected, CompareWhen: "exp_status != 8'd0", Meaning: "failure: byte offset in the request of the first byte of the piece that failed"},
		{Name: "nseg", Width: 32, Dir: DirExpected, CompareWhen: okW, Meaning: fmt.Sprintf("OK: the number of segments (one per MTT page and KLM piece, never merged); the first %d are listed", MaxSegs)},
	}
	for k := range MaxSegs {
		w := fmt.Sprintf("exp_status == 8'd0 && exp_nseg > 32'd%d", k)
		fs = append(fs,
			Field{Name: fmt.Sprintf("seg%d_space", k), Width: 2, Dir: DirExpected, Enum: "space", CompareWhen: w, Meaning: fmt.Sprintf("segment %d: address space (enums.space)", k)},
			Field{Name: fmt.Sprintf("seg%d_addr", k), Width: 64, Dir: DirExpected, CompareWhen: w, Meaning: fmt.Sprintf("segment %d: address", k)},
			Field{Name: fmt.Sprintf("seg%d_len", k), Width: 32, Dir: DirExpected, CompareWhen: w, Meaning: fmt.Sprintf("segment %d: length in bytes", k)},
		)
	}
	pf := fmt.Sprintf("exp_status == 8'd%d", prm.PageFault)
	fs = append(fs,
		Field{Name: "fault_key", Width: 32, Dir: DirExpected, CompareWhen: pf, Meaning: "PAGE_FAULT: the key whose MTT page faulted"},
		Field{Name: "fault_addr", Width: 64, Dir: DirExpected, CompareWhen: pf, Meaning: "PAGE_FAULT: address, in that key's space, of the first byte of the faulting page piece"},
	)
	return newLayout(fs)
}

func mkcTableLayout() *Layout {
	return newLayout([]Field{
		{Name: "world", Width: 16, Dir: DirInput, Meaning: "world number"},
		{Name: "index", Width: 24, Dir: DirInput, Meaning: "MKey index of a created object (indexes not listed are not created)"},
		{Name: "odp", Width: 1, Dir: DirInput, Meaning: "1: an ODP registration (a missing page is PAGE_FAULT, not PAGE_ACCESS)"},
		{Name: "mkc", Width: 512, Dir: DirInput, Format: "mkc", Meaning: "the object's MKey Context, 64-byte image in wire order"},
	})
}

func memTableLayout() *Layout {
	return newLayout([]Field{
		{Name: "world", Width: 16, Dir: DirInput, Meaning: "world number"},
		{Name: "addr", Width: 64, Dir: DirInput, Meaning: "ICM address, a multiple of 16 (addresses not listed read as zero)"},
		{Name: "data", Width: 128, Dir: DirInput, Meaning: "the 16 bytes at addr, byte addr in bits 127:120"},
	})
}

func (v *TopVector) encode(l *Layout, ln Line) {
	l.set(ln, "world", uint64(v.World))
	l.set(ln, "qp_valid", b2u(v.QPValid))
	l.set(ln, "qpn", uint64(v.QPN))
	l.set(ln, "qp_pd", uint64(v.QPPD))
	l.set(ln, "key", uint64(v.Key))
	l.set(ln, "va", v.VA)
	l.set(ln, "len", uint64(v.Len))
	l.set(ln, "access_type", uint64(v.Type))
	l.set(ln, "status", uint64(v.Status))
	l.set(ln, "level", uint64(v.Level))
	l.set(ln, "offset", uint64(v.Offset))
	l.set(ln, "nseg", uint64(v.NSeg))
	for k, s := range v.Segs {
		l.set(ln, fmt.Sprintf("seg%d_space", k), uint64(s.Space))
		l.set(ln, fmt.Sprintf("seg%d_addr", k), s.Addr)
		l.set(ln, fmt.Sprintf("seg%d_len", k), s.Len)
	}
	l.set(ln, "fault_key", uint64(v.FaultKey))
	l.set(ln, "fault_addr", v.FaultAddr)
}

func decodeTop(l *Layout, ln Line) TopVector {
	v := TopVector{
		World: uint16(l.Get(ln, "world")), QPValid: l.Get(ln, "qp_valid") == 1, QPN: uint32(l.Get(ln, "qpn")),
		QPPD: uint32(l.Get(ln, "qp_pd")), Key: prm.Key(l.Get(ln, "key")), VA: l.Get(ln, "va"), Len: uint32(l.Get(ln, "len")),
		Type: prm.AccessType(l.Get(ln, "access_type")), Status: prm.Status(l.Get(ln, "status")), Level: uint8(l.Get(ln, "level")),
		Offset: uint32(l.Get(ln, "offset")), NSeg: uint32(l.Get(ln, "nseg")), FaultKey: prm.Key(l.Get(ln, "fault_key")), FaultAddr: l.Get(ln, "fault_addr"),
	}
	for k := range v.Segs {
		v.Segs[k] = prm.Segment{Space: prm.Space(l.Get(ln, fmt.Sprintf("seg%d_space", k))), Addr: l.Get(ln, fmt.Sprintf("seg%d_addr", k)), Len: l.Get(ln, fmt.Sprintf("seg%d_len", k))}
	}
	return v
}

// run fills in the expected values from the golden model.
func (v *TopVector) run(m *ref.Model, buf []prm.Segment) []prm.Segment {
	out := m.Translate(ref.Request{QPN: v.QPN, Key: v.Key, Addr: v.VA, Len: v.Len, Type: v.Type}, buf)
	v.Status, v.Level, v.Offset = out.Status, uint8(out.Level), uint32(out.Offset)
	v.NSeg = uint32(uint64(len(out.Segments)) + out.SegmentsLeftOut) // all of them: at most 2^32-1, one a byte
	v.Segs = [MaxSegs]prm.Segment{}
	copy(v.Segs[:], out.Segments)
	v.FaultKey, v.FaultAddr = 0, 0
	if out.Status == prm.PageFault {
		v.FaultKey, v.FaultAddr = out.FaultKey, out.FaultAddr
	}
	return out.Segments
}

// tables collects the worlds' MKC tables and ICM images, sorted by world
// and then by index or address.
type tables struct {
	mkcL, memL *Layout
	mkc, mem   []Line
}

func (t *tables) dump(world int, m *ref.Model) {
	var idx []uint32
	m.EachObject(func(i uint32, _ *ref.Object) { idx = append(idx, i) })
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		o := m.Object(i)
		ln := t.mkcL.newLine()
		t.mkcL.frame(ln, len(t.mkc))
		t.mkcL.set(ln, "world", uint64(world))
		t.mkcL.set(ln, "index", uint64(i))
		t.mkcL.set(ln, "odp", b2u(o.ODP))
		img := o.MKC.Bytes()
		t.mkcL.setImage(ln, "mkc", img[:])
		t.mkc = append(t.mkc, ln)
	}
	icm := m.ICM()
	var page [4096]byte
	for a := uint64(0); ; {
		next, ok := icm.NextPresent(a)
		if !ok {
			break
		}
		base := next &^ 4095
		icm.Read(base, page[:])
		for c := 0; c < len(page); c += 16 {
			if allZero16(page[c : c+16]) {
				continue
			}
			ln := t.memL.newLine()
			t.memL.frame(ln, len(t.mem))
			t.memL.set(ln, "world", uint64(world))
			t.memL.set(ln, "addr", base+uint64(c))
			t.memL.setImage(ln, "data", page[c:c+16])
			t.mem = append(t.mem, ln)
		}
		if base == ^uint64(4095) {
			break
		}
		a = base + 4096
	}
}

func allZero16(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// The QPs of every random world: QPN, PD; QP 2 is REG_UMR.
var worldQPs = []scenario.QP{{QPN: 1, PD: 5}, {QPN: 2, PD: 5, RegUMR: true}, {QPN: 3, PD: 6}, {QPN: 4, PD: 7}}

// wobj is an object of a random world that requests aim at.
type wobj struct {
	key prm.Key
	mkc prm.MKC
	// long marks the key of eight present pages that accesses of more
	// than MAX_SEGS pages aim at.
	long bool
}

// worldBuilder builds one random world through ref's own commands.
type worldBuilder struct {
	r    *rng
	m    *ref.Model
	used map[uint32]bool
	objs []wobj
}

func (w *worldBuilder) index() uint32 {
	for {
		i := uint32(w.r.rangeIn(1, prm.MaxIndex))
		if w.r.pct(30) {
			i = uint32(w.r.rangeIn(1, 4096))
		}
		if !w.used[i] {
			w.used[i] = true
			return i
		}
	}
}

func (w *worldBuilder) pd() uint32 {
	switch w.r.pick(80, 10, 10) {
	case 0:
		return 5
	case 1:
		return 6
	default:
		return 7
	}
}

// base returns an MKC with lr, random other rights and a PD.
func (w *worldBuilder) base(mode prm.AccessMode) prm.MKC {
	r := w.r
	m := prm.MKC{AccessMode: mode, LR: true, LW: r.pct(70), RR: r.pct(70), RW: r.pct(60), A: r.pct(50), QPN: prm.QPNNone, Variant: uint8(r.u64()), PD: w.pd()}
	m.EnRinval, m.UMREn = r.bool(), r.bool()
	return m
}

// create creates k at a fresh index (or at index when given) and returns
// its key; a refused create is a generator bug.
func (w *worldBuilder) create(k scenario.MKey, target bool) prm.Key {
	if !k.HasIndex {
		k.Index, k.HasIndex = w.index(), true
	}
	if k.MKC.TranslationsOctwordSize == 0 {
		k.MKC.TranslationsOctwordSize = scenario.OctwordsFor(len(k.MTT), len(k.KLM))
	}
	if _, r := w.m.Create(k); r != nil {
		panic(fmt.Sprintf("vectors: world create refused: %v %s (%+v)", r.Status, r.Reason, k.MKC))
	}
	key := prm.MakeKey(k.Index, k.MKC.Variant)
	if target {
		w.objs = append(w.objs, wobj{key: key, mkc: w.m.Object(k.Index).MKC})
	}
	return key
}

// entryTo makes a KLM entry of bc bytes into the range of target t.
func (w *worldBuilder) entryTo(t wobj, bc uint64) prm.KLMEntry {
	a := avail(&t.mkc)
	start := t.mkc.StartAddr
	if t.mkc.Length64 {
		start = 0
	}
	addr := start
	if a > bc {
		addr = start + w.r.n(a-bc+1)
	}
	if w.r.pct(10) {
		addr = start + a - bc + w.r.rangeIn(1, 64) // runs past the target's range
	}
	return prm.KLMEntry{ByteCount: uint32(bc), MKey: t.key, Address: addr}
}

func newWorld(r *rng) (*ref.Model, []wobj) {
	w := &worldBuilder{r: r, m: ref.New(ref.DefaultConfig()), used: map[uint32]bool{}}
	for _, qp := range worldQPs {
		w.m.AddQP(qp)
	}
	// Direct modes.
	var leaves []wobj
	for k := range 6 {
		m := w.base(prm.ModePA)
		switch k {
		case 0:
			m.StartAddr, m.Len = r.bits(40), r.rangeIn(1, 1<<20)
		case 1:
			m.StartAddr, m.Len, m.Length64 = r.u64(), r.u64(), true
		case 2:
			m.Len = r.rangeIn(1<<12, 1<<20)
			m.StartAddr = -m.Len // ends at 2^64
		case 3:
			m.AccessMode, m.StartAddr, m.Len = prm.ModeSWICM, r.bits(20), 1<<16
		case 4:
			m.AccessMode, m.StartAddr, m.Len = prm.ModeMEMIC, r.bits(16), 1<<16
		default:
			m.StartAddr, m.Len = r.bits(36), 1<<34 // room for 2 GB entries
		}
		w.create(scenario.MKey{MKC: m}, true)
		leaves = append(leaves, w.objs[len(w.objs)-1])
	}
	// MTT, some ODP.
	for range 4 {
		m := w.base(prm.ModeMTT)
		logs := []uint8{12, 12, 13, 16, 21, 31}
		m.LogEntitySize = logs[r.intn(len(logs))]
		p := uint64(1) << m.LogEntitySize
		np := int(r.rangeIn(1, 6))
		m.TranslationsOctwordSize = scenario.OctwordsFor(np, 0)
		capEntries := 2 * uint64(m.TranslationsOctwordSize)
		m.StartAddr = r.bits(44)
		b := m.StartAddr & (p - 1)
		m.Len = capEntries*p - b
		if r.pct(40) {
			m.Len += p // one page past the capacity: TRANSLATION_RANGE
		}
		// The first np pages are present; the rest of the capacity mostly,
		// with holes (an entry of zeros: no rd_en, no wr_en).
		mtt := make([]prm.MTTEntry, capEntries)
		for i := range mtt {
			if i < np || r.pct(75) {
				mtt[i] = prm.MTTEntry{PTag: r.bits(52) << 12 &^ (p - 1), RdEn: r.pct(92), WrEn: r.pct(85)}
			}
		}
		w.create(scenario.MKey{MKC: m, MTT: mtt, PgAccess: true, ODP: r.pct(35)}, true)
		leaves = append(leaves, w.objs[len(w.objs)-1])
	}
	// A key of eight present 4 KB pages with every right, for accesses
	// of more than MAX_SEGS pages.
	{
		m := w.base(prm.ModeMTT)
		m.LR, m.LW, m.RR, m.RW, m.A, m.PD, m.LogEntitySize = true, true, true, true, true, 5, 12
		mtt := make([]prm.MTTEntry, 8)
		for i := range mtt {
			mtt[i] = prm.MTTEntry{PTag: r.bits(40) << 12, RdEn: true, WrEn: true}
		}
		m.StartAddr = r.bits(44)
		m.Len = 8<<12 - m.StartAddr&(1<<12-1)
		w.create(scenario.MKey{MKC: m, MTT: mtt, PgAccess: true}, true)
		w.objs[len(w.objs)-1].long = true
	}
	// Variable KLM over the leaves, then one over those.
	var klms []wobj
	for k := range 4 {
		m := w.base(prm.ModeKLM)
		n := int(r.rangeIn(1, 4))
		var list []prm.KLMEntry
		var total uint64
		for range n {
			t := leaves[r.intn(len(leaves))]
			var bc uint64
			switch r.pick(70, 12, 10, 8) {
			case 0:
				bc = r.rangeIn(1, 8192)
			case 1:
				bc = 0 // skipped by the search
			case 2:
				bc, t = 0x80000000, leaves[1+4*r.n(2)] // 2 GB into a length64 or wide PA key
			default:
				bc = 4096
			}
			if k == 3 && len(klms) > 0 {
				t = klms[r.intn(len(klms))] // a second level
				bc = min(bc, uint64(t.mkc.Len))
			}
			e := w.entryTo(t, bc)
			if r.pct(4) {
				e.MKey = prm.MakeKey(uint32(r.rangeIn(1, prm.MaxIndex)), 1) // probably not created
			} else if r.pct(4) {
				e.MKey ^= 0x80 // wrong variant
			}
			list = append(list, e)
			total += bc
		}
		m.StartAddr, m.Len = r.bits(40), total
		if r.pct(30) {
			m.Len += r.rangeIn(1, 256) // past the entries: TRANSLATION_RANGE
		}
		if m.Len == 0 {
			m.Len = 1
		}
		w.create(scenario.MKey{MKC: m, KLM: list}, true)
		klms = append(klms, w.objs[len(w.objs)-1])
	}
	// Fixed Buffer Size over the wide PA key, with index 0 sometimes
	// created, so that an unwritten entry (key 0) resolves.
	if r.bool() {
		m := w.base(prm.ModePA)
		m.Variant, m.Length64 = 0, true
		w.used[0] = true
		w.create(scenario.MKey{Index: 0, HasIndex: true, MKC: m}, false)
	}
	for range 2 {
		m := w.base(prm.ModeFixedBufferSize)
		m.LogEntitySize = uint8(12 + r.n(2))
		bsz := uint64(1) << m.LogEntitySize
		n := int(r.rangeIn(2, 4))
		var list []prm.KLMEntry
		for range n {
			list = append(list, w.entryTo(leaves[5], bsz))
		}
		m.TranslationsOctwordSize = 4
		m.StartAddr, m.Len = r.bits(40), 5*bsz // the fifth entry is past the capacity
		w.create(scenario.MKey{MKC: m, KLM: list}, true)
	}
	// A chain of 6 KLM keys (the deepest passes the depth limit) and a
	// cycle.
	next := leaves[0]
	for range 6 {
		m := w.base(prm.ModeKLM)
		m.LR, m.LW, m.RR, m.RW, m.A = true, true, true, true, true
		m.PD = 5
		m.StartAddr, m.Len = r.bits(40), 256
		w.create(scenario.MKey{MKC: m, KLM: []prm.KLMEntry{w.entryTo(next, 256)}}, true)
		next = w.objs[len(w.objs)-1]
	}
	{
		m := w.base(prm.ModeKLM)
		m.StartAddr, m.Len = r.bits(40), 4096
		idx := w.index()
		e := prm.KLMEntry{ByteCount: 4096, MKey: prm.MakeKey(idx, m.Variant), Address: m.StartAddr}
		w.create(scenario.MKey{Index: idx, HasIndex: true, MKC: m, KLM: []prm.KLMEntry{e}}, true)
	}
	// Free, a bound window, and keys whose mode a UMR spoiled.
	{
		m := w.base(prm.ModePA)
		m.Free, m.LR = true, r.bool()
		m.StartAddr, m.Len = r.bits(30), 4096
		w.create(scenario.MKey{MKC: m}, true)
	}
	{
		m := w.base(prm.ModeKLM)
		m.QPN, m.PD = 1, 5
		m.StartAddr, m.Len = r.bits(30), 512
		w.create(scenario.MKey{MKC: m, KLM: []prm.KLMEntry{w.entryTo(leaves[0], 512)}}, true)
	}
	{
		m := w.base(prm.ModeKLM)
		m.PD, m.StartAddr, m.Len = 5, r.bits(30), 512
		key := w.create(scenario.MKey{MKC: m, KLM: []prm.KLMEntry{w.entryTo(leaves[1], 512)}}, true)
		if r := w.m.LocalInvalidate(1, key); r != nil {
			panic("vectors: world invalidate refused: " + r.Status.String())
		}
		w.objs[len(w.objs)-1].mkc.Free = true
	}
	for k := range 2 {
		m := w.base(prm.ModeMTT)
		m.PD, m.UMREn, m.LogEntitySize = 5, true, 12
		m.StartAddr, m.Len = r.bits(30), 8192
		mtt := []prm.MTTEntry{{PTag: r.bits(40) << 12, RdEn: true, WrEn: true}, {PTag: r.bits(40) << 12, RdEn: true, WrEn: true}}
		key := w.create(scenario.MKey{MKC: m, MTT: mtt}, true)
		u := scenario.UMR{QPN: 1, Key: key}
		if k == 0 {
			u.Mask, u.Image.AccessMode = prm.MaskAccessMode, prm.AccessMode(r.rangeIn(6, 31))
		} else {
			u.Mask, u.Image.LogEntitySize = prm.MaskLogEntitySize, uint8(r.n(12))
		}
		if rf := w.m.UMR(u); rf != nil {
			panic("vectors: world UMR refused: " + rf.Status.String())
		}
		w.objs[len(w.objs)-1].mkc = w.m.Object(key.Index()).MKC
	}
	return w.m, w.objs
}

// randTop draws one access against a world.
func randTop(r *rng, m *ref.Model, objs []wobj) TopVector {
	var v TopVector
	qp := worldQPs[r.intn(len(worldQPs))]
	t := objs[r.intn(len(objs))]
	if r.pct(20) { // MTT keys more often: page splits, page rights, faults
		var mtt []wobj
		for _, o := range objs {
			if o.mkc.AccessMode == prm.ModeMTT {
				mtt = append(mtt, o)
			}
		}
		t = mtt[r.intn(len(mtt))]
	}
	if r.pct(4) { // the bound window (type 2): QPN_MISMATCH from the other QPs of its PD
		for _, o := range objs {
			if o.mkc.Bound() {
				t = o
			}
		}
	}
	long := r.pct(3)
	if long { // more than MAX_SEGS pages
		for _, o := range objs {
			if o.long {
				t = o
			}
		}
	}
	v.Key = t.key
	if r.pct(85) { // a QP of the key's PD
		var same []scenario.QP
		for _, q := range worldQPs {
			if q.PD == t.mkc.PD {
				same = append(same, q)
			}
		}
		if len(same) > 0 {
			qp = same[r.intn(len(same))]
		}
	}
	if t.mkc.Bound() && r.pct(50) {
		qp = worldQPs[t.mkc.QPN-1]
	}
	v.Type = prm.AccessType(r.n(5))
	if r.pct(60) { // an access the key grants
		var ok []prm.AccessType
		for _, a := range prm.AccessTypes() {
			if a.Permitted(&t.mkc) {
				ok = append(ok, a)
			}
		}
		if len(ok) > 0 {
			v.Type = ok[r.intn(len(ok))]
		}
	}
	// The length: a few pages or entries at most, or anything for a key
	// that has no pages.
	var l uint32
	switch t.mkc.AccessMode {
	case prm.ModeMTT:
		p := uint64(1) << min(t.mkc.LogEntitySize, 31)
		switch r.pick(40, 40, 20) {
		case 0:
			l = uint32(r.rangeIn(1, 64))
		case 1:
			l = uint32(min(r.rangeIn(1, 3*p), 1<<32-1))
		default:
			l = uint32(min(r.rangeIn(4*p, 7*p), 1<<32-1)) // more than MAX_SEGS pages
		}
	case prm.ModeKLM, prm.ModeFixedBufferSize:
		l = uint32(r.rangeIn(1, 8192))
	default:
		l = r.len32()
	}
	if long {
		l = uint32(r.rangeIn(4<<12+1, 7<<12))
	}
	mk := t.mkc
	v.VA, v.Len = placeInRange(r, &mk, l)
	if v.Type == prm.RemoteAtomic && r.pct(70) {
		v.Len = 8
		v.VA &^= 7
		if v.VA < mk.StartAddr {
			v.VA += 8
		}
	}
	switch r.pick(80, 4, 4, 3, 3, 3, 3) {
	case 1: // one byte past the range
		if a := avail(&mk); !mk.Length64 && a < 1<<63 {
			v.VA = mk.StartAddr + a - uint64(v.Len) + 1
		}
	case 2:
		v.VA = mk.StartAddr - r.rangeIn(1, 64)
	case 3:
		v.Key = prm.MakeKey(uint32(r.rangeIn(1, prm.MaxIndex)), uint8(r.u64())) // probably not created
	case 4:
		v.Key ^= prm.Key(1 << r.n(8))
	case 5:
		v.Len = 0
	case 6:
		qp = scenario.QP{QPN: uint32(r.rangeIn(5, 1<<24-1)), PD: uint32(r.bits(24))}
	}
	v.QPN, v.QPPD = qp.QPN, qp.PD
	_, v.QPValid = m.QP(qp.QPN)
	return v
}

// accessStatuses are the outcomes an access can have: every status up to
// BAD_PARAM (the UMR_* and REMOTE_INVALIDATE_DENIED ones are commands').
func accessStatuses() []prm.Status {
	var s []prm.Status
	for _, st := range prm.Statuses() {
		if st <= prm.BadParam {
			s = append(s, st)
		}
	}
	return s
}

func genTop(o *Options) (*unitResult, error) {
	l := topLayout()
	tb := &tables{mkcL: mkcTableLayout(), memL: memTableLayout()}
	res := &unitResult{
		desc:    "the whole translation path: an access, against an MKC table and an ICM image, to its segments or its failure (ref.Model.Translate)",
		layout:  l,
		enums:   commonEnums(),
		formats: []Format{mkcFormat(), mttFormat(), klmFormat()},
		params: []Param{
			{Name: "MAX_SEGS", Value: MaxSegs, Meaning: "segments listed per vector"},
			{Name: "MAX_INDIRECTION", Value: Hex64(uint64(ref.DefaultConfig().MaxIndirection)), Meaning: "deepest KLM level whose key may be looked up (translation.md 4.1)"},
			{Name: "ICM_LINE", Value: 16, Meaning: "bytes per mem_data read"},
		},
		points: append(statusPoints(accessStatuses()...),
			CoveragePoint{"multi_segment", "OK with nseg > 1"},
			CoveragePoint{"more_than_max_segs", "nseg > MAX_SEGS: only the first MAX_SEGS segments are listed"},
			CoveragePoint{"failure_below_level_0", "a failure at level > 0 (a key reached through a KLM entry)"}),
	}
	res.dut = DUT{Module: "mkeysim_top", Handshake: "valid_ready", Description: Timing("valid_ready") + " Read ports: the harness answers combinationally, in the same cycle: mkc_created, mkc_odp and mkc_image follow mkc_index (the world's MKC table; mkc_created 0 for an mkey_index not created), mem_data follows mem_addr (16 bytes at mem_addr rounded down to 16; zero where nothing was written). MTT entry i of a key is at mtt_handle + 8 i, KLM entry j at mtt_handle + 16 j (translation.md 3.1).",
		Ports: []Port{
			{Name: "clk", Direction: "input", Width: 1, Meaning: "clock"},
			{Name: "rst", Direction: "input", Width: 1, Meaning: "synchronous reset, active high, for the first two rising edges"},
			{Name: "req_valid", Direction: "input", Width: 1, Meaning: "a request is presented"},
			{Name: "req_ready", Direction: "output", Width: 1, Meaning: "the DUT takes the request at this rising edge"},
		}}
	for _, p := range ports(l) {
		if p.Direction == "output" && p.Name == "status" {
			res.dut.Ports = append(res.dut.Ports, Port{Name: "resp_valid", Direction: "output", Width: 1, Meaning: "the response fields are valid at this rising edge (one cycle per request)"})
		}
		res.dut.Ports = append(res.dut.Ports, p)
	}
	res.dut.Ports = append(res.dut.Ports,
		Port{Name: "mkc_index", Direction: "output", Width: 24, Meaning: "MKC read port: the mkey_index to read"},
		Port{Name: "mkc_created", Direction: "input", Width: 1, Meaning: "MKC read port: the index is created"},
		Port{Name: "mkc_odp", Direction: "input", Width: 1, Meaning: "MKC read port: the object is an ODP registration"},
		Port{Name: "mkc_image", Direction: "input", Width: 512, Meaning: "MKC read port: the context, 64-byte image in wire order"},
		Port{Name: "mem_addr", Direction: "output", Width: 64, Meaning: "ICM read port: byte address (bits 3:0 ignored)"},
		Port{Name: "mem_data", Direction: "input", Width: 128, Meaning: "ICM read port: 16 bytes, the lowest address in bits 127:120"},
	)
	var vs []TopVector
	world, lastVersion := -1, -1
	var buf []prm.Segment
	sources, err := eachExampleAccess(o.Examples, o.Stop, func() int { return len(vs) }, func(a *exampleAccess) error {
		if len(vs) >= o.Count {
			return nil
		}
		if a.version != lastVersion {
			world++
			lastVersion = a.version
			tb.dump(world, a.m)
		}
		qp, ok := a.m.QP(a.access.QPN)
		v := TopVector{World: uint16(world), QPValid: ok, QPN: a.access.QPN, QPPD: qp.PD, Key: a.access.Key, VA: a.access.Addr, Len: a.access.Len, Type: a.access.Type}
		buf = v.run(a.m, buf)
		vs = append(vs, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.sources, res.directed = sources, len(vs)
	r := newRNG(o.Seed, 5)
	var m *ref.Model
	var objs []wobj
	for k := 0; len(vs) < o.Count; k++ {
		if k%1024 == 0 && o.stopped() {
			return nil, ErrStopped
		}
		if k%worldSpan == 0 {
			world++
			if world > 0xffff {
				return nil, fmt.Errorf("vectors: more than 65536 worlds")
			}
			m, objs = newWorld(r)
			tb.dump(world, m)
		}
		v := randTop(r, m, objs)
		v.World = uint16(world)
		buf = v.run(m, buf)
		vs = append(vs, v)
	}
	res.tables = []tableData{
		{Table: Table{Name: "mkc", File: "top.mkc.hex", Meaning: "every world's created objects, sorted by world then index"}, layout: tb.mkcL, lines: tb.mkc},
		{Table: Table{Name: "mem", File: "top.mem.hex", Meaning: "every world's ICM image (translation lists), 16 bytes a line, sorted by world then address"}, layout: tb.memL, lines: tb.mem},
	}
	res.params = append(res.params, Param{Name: "WORLDS", Value: Hex64(uint64(world + 1)), Meaning: "worlds in the tables"})
	return encodeAll(res, l, vs, func(v *TopVector, cov coverage) {
		cov.status(v.Status)
		if v.Status == prm.OK && v.NSeg > 1 {
			cov["multi_segment"]++
		}
		if v.NSeg > MaxSegs {
			cov["more_than_max_segs"]++
		}
		if v.Status != prm.OK && v.Level > 0 {
			cov["failure_below_level_0"]++
		}
	})
}
