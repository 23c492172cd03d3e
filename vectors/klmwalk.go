package vectors

import (
	"fmt"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// KLMEntries is K, the number of KLM entries a klmwalk vector carries.
const KLMEntries = 4

// KLMWalkVector is the first step of one KLM level (translation.md 6): the
// entry search of a variable KLM key, or the indexing of a Fixed Buffer
// Size key, for the piece that starts d bytes into the key's space.
type KLMWalkVector struct {
	FBS                     bool
	LogEntitySize           uint8
	TranslationsOctwordSize uint32 // 0 or KLMEntries
	D                       uint64
	Len                     uint32
	Entries                 [KLMEntries]prm.KLMEntry
	// Expected, from ref's KLM walk.
	Status     prm.Status // OK or TRANSLATION_RANGE
	EntryIndex uint8      // j
	LowerKey   prm.Key
	LowerAddr  uint64
	PieceLen   uint32
}

func klmwalkLayout() *Layout {
	fs := []Field{
		{Name: "fbs", Width: 1, Dir: DirInput, Meaning: "0: variable KLM (access mode KLM); 1: Fixed Buffer Size (KSM)"},
		{Name: "log_entity_size", Width: 5, Dir: DirInput, Meaning: "MKC log_entity_size: Fixed Buffer Size entries cover B = 2^log_entity_size bytes (12..31); ignored for variable KLM"},
		{Name: "translations_octword_size", Width: 32, Dir: DirInput, Meaning: fmt.Sprintf("MKC translations_octword_size: the capacity in 16-byte KLM entries; 0 or %d in these vectors (the entries below are the whole list)", KLMEntries)},
		{Name: "d", Width: 64, Dir: DirInput, Meaning: "d = (V - start_addr) mod 2^64: where the piece starts in the key's space"},
		{Name: "len", Width: 32, Dir: DirInput, Meaning: "length of the piece, >= 1"},
	}
	for j := range KLMEntries {
		fs = append(fs, Field{Name: fmt.Sprintf("entry%d", j), Width: 8 * prm.KLMEntrySize, Dir: DirInput, Format: "klm_entry",
			Meaning: fmt.Sprintf("KLM entry %d of the list: 16-byte image in wire order (byte_count 127:96, mkey 95:64, address 63:0); entries past the capacity are noise", j)})
	}
	fs = append(fs,
		Field{Name: "status", Width: 8, Dir: DirExpected, Enum: "status", Meaning: "OK, or TRANSLATION_RANGE: no entry inside the capacity holds byte d (variable KLM: d is not below the sum of the byte_counts; FBS: floor(d / B) >= capacity)"},
		Field{Name: "entry_index", Width: 8, Dir: DirExpected, CompareWhen: whenOK, Meaning: "j: variable KLM, the entry with T[j] <= d < T[j] + byte_count[j] (T[j] the sum of the byte_counts before j; entries of byte_count 0 never match); FBS, floor(d / B)"},
		Field{Name: "lower_key", Width: 32, Dir: DirExpected, CompareWhen: whenOK, Meaning: "mkey of entry j: the key the piece continues with, one level down"},
		Field{Name: "lower_addr", Width: 64, Dir: DirExpected, CompareWhen: whenOK, Meaning: "address[j] + (d - T[j]) (FBS: address[j] + d mod B), modulo 2^64"},
		Field{Name: "piece_len", Width: 32, Dir: DirExpected, CompareWhen: whenOK, Meaning: "bytes of the piece inside entry j: min(len, T[j] + byte_count[j] - d) (FBS: min(len, B - d mod B))"},
	)
	return newLayout(fs)
}

func (v *KLMWalkVector) encode(l *Layout, ln Line) {
	l.set(ln, "fbs", b2u(v.FBS))
	l.set(ln, "log_entity_size", uint64(v.LogEntitySize))
	l.set(ln, "translations_octword_size", uint64(v.TranslationsOctwordSize))
	l.set(ln, "d", v.D)
	l.set(ln, "len", uint64(v.Len))
	for j, e := range v.Entries {
		var b [prm.KLMEntrySize]byte
		e.Put(b[:])
		l.setImage(ln, fmt.Sprintf("entry%d", j), b[:])
	}
	l.set(ln, "status", uint64(v.Status))
	l.set(ln, "entry_index", uint64(v.EntryIndex))
	l.set(ln, "lower_key", uint64(v.LowerKey))
	l.set(ln, "lower_addr", v.LowerAddr)
	l.set(ln, "piece_len", uint64(v.PieceLen))
}

func decodeKLMWalk(l *Layout, ln Line) KLMWalkVector {
	v := KLMWalkVector{
		FBS: l.Get(ln, "fbs") == 1, LogEntitySize: uint8(l.Get(ln, "log_entity_size")),
		TranslationsOctwordSize: uint32(l.Get(ln, "translations_octword_size")), D: l.Get(ln, "d"), Len: uint32(l.Get(ln, "len")),
		Status: prm.Status(l.Get(ln, "status")), EntryIndex: uint8(l.Get(ln, "entry_index")), LowerKey: prm.Key(l.Get(ln, "lower_key")),
		LowerAddr: l.Get(ln, "lower_addr"), PieceLen: uint32(l.Get(ln, "piece_len")),
	}
	for j := range v.Entries {
		v.Entries[j] = prm.DecodeKLMEntry(l.GetImage(ln, fmt.Sprintf("entry%d", j)))
	}
	return v
}

// Probe keys: entry j of the oracle's list names the probe MTT key of
// index probeIndex+j, whose 2 GB pages carry the tag j in their addresses.
const (
	probeIndex   = 0x10
	probeVariant = 0x77
	probeJShift  = 40
	probePages   = 8
)

// oracle runs the piece through ref's KLM walk. The KLM search and its
// arithmetic read each entry's byte_count and address, never its key, so
// the oracle's list is the vector's with each key replaced by a probe key:
// a length64 MTT key of 2 GB pages starting at address[j] rounded down to
// 2 GB, whose page k has the address (j << 40) | (k << 31). The DMA address
// ref returns for the piece then names j, and with the page and the offset
// in it, the lower address. The piece's length is the sum of the leading
// segments of entry j (a later piece that fails ends the request at its
// offset, and the request is then run again up to it).
func (v *KLMWalkVector) oracle() error {
	m := ref.New(ref.DefaultConfig())
	m.AddQP(scenario.QP{QPN: 1, PD: 1})
	all := prm.MKC{LR: true, LW: true, RR: true, RW: true, A: true, QPN: prm.QPNNone, PD: 1, Length64: true}
	var list []prm.KLMEntry
	if v.TranslationsOctwordSize > 0 {
		for j, e := range v.Entries {
			e.MKey = prm.MakeKey(probeIndex+uint32(j), probeVariant)
			list = append(list, e)
		}
	}
	mode := prm.ModeKLM
	if v.FBS {
		mode = prm.ModeFixedBufferSize
	}
	// V + len must not pass 2^64 (the level-0 range check): start the key
	// so that the piece sits at the bottom of the space.
	const va = 0x1000
	k := all
	k.AccessMode, k.Variant, k.LogEntitySize, k.TranslationsOctwordSize, k.StartAddr = mode, 1, v.LogEntitySize, v.TranslationsOctwordSize, va-v.D
	if _, r := m.Create(scenario.MKey{Index: 1, HasIndex: true, MKC: k, KLM: list}); r != nil {
		return fmt.Errorf("vectors: klmwalk probe refused: %v %s", r.Status, r.Reason)
	}
	for j, e := range v.Entries {
		p := all
		p.AccessMode, p.Variant, p.LogEntitySize, p.TranslationsOctwordSize = prm.ModeMTT, probeVariant, tagShift, probePages/2
		p.StartAddr = e.Address &^ (1<<tagShift - 1)
		mtt := make([]prm.MTTEntry, probePages)
		for k := range mtt {
			mtt[k] = prm.MTTEntry{PTag: uint64(j)<<probeJShift | uint64(k)<<tagShift, RdEn: true, WrEn: true}
		}
		if _, r := m.Create(scenario.MKey{Index: probeIndex + uint32(j), HasIndex: true, MKC: p, MTT: mtt, PgAccess: true}); r != nil {
			return fmt.Errorf("vectors: klmwalk probe %d refused: %v %s", j, r.Status, r.Reason)
		}
	}
	req := ref.Request{QPN: 1, Key: prm.MakeKey(1, 1), Addr: va, Len: v.Len, Type: prm.LocalRead}
	out := m.Translate(req, nil)
	if out.Status != prm.OK && out.Offset > 0 {
		req.Len = uint32(out.Offset)
		out = m.Translate(req, nil)
	}
	switch {
	case out.Status == prm.TranslationRange && out.Level == 0 && out.Offset == 0:
		v.Status, v.EntryIndex, v.LowerKey, v.LowerAddr, v.PieceLen = prm.TranslationRange, 0, 0, 0, 0
		return nil
	case out.Status == prm.OutOfRange && out.Level == 1 && out.Offset == 0:
		// The lower piece passes 2^64: the lower level refuses it before
		// anything shows the lower address.
		return errUnobservable
	case out.Status != prm.OK || len(out.Segments) == 0:
		return fmt.Errorf("vectors: klmwalk oracle: %+v gives %v at level %d offset %d", *v, out.Status, out.Level, out.Offset)
	}
	j := out.Segments[0].Addr >> probeJShift
	if j >= KLMEntries {
		return fmt.Errorf("vectors: klmwalk oracle: segment %#x names no entry", out.Segments[0].Addr)
	}
	var n uint64
	for _, s := range out.Segments {
		if s.Addr>>probeJShift != j {
			break
		}
		n += s.Len
	}
	u := out.Segments[0].Addr & (1<<probeJShift - 1) // page k and offset: the offset from the probe's start
	v.Status = prm.OK
	v.EntryIndex = uint8(j)
	v.LowerKey = v.Entries[j].MKey
	v.LowerAddr = v.Entries[j].Address&^(1<<tagShift-1) + u
	v.PieceLen = uint32(n)
	return nil
}

func randKLMEntry(r *rng) prm.KLMEntry {
	var e prm.KLMEntry
	switch r.pick(12, 15, 25, 10, 13, 15, 10) {
	case 0:
		e.ByteCount = 0
	case 1:
		e.ByteCount = uint32(r.rangeIn(1, 64))
	case 2:
		e.ByteCount = uint32(r.rangeIn(1, 8192))
	case 3:
		e.ByteCount = 4096
	case 4:
		e.ByteCount = 0x80000000 // 2 GB
	case 5:
		e.ByteCount = uint32(r.u64())
	default:
		e.ByteCount = 0xffffffff
	}
	e.MKey = prm.Key(r.u64())
	if r.pct(10) {
		e.MKey = 0
	}
	switch r.pick(40, 30, 20, 10) {
	case 0:
		e.Address = r.u64()
	case 1:
		e.Address = r.bits(32)
	case 2:
		e.Address = -r.rangeIn(1, 1<<33) // near 2^64: the lower address may wrap
	default:
		e.Address = 0
	}
	if r.pct(5) {
		e = prm.KLMEntry{} // an all-zero entry: used as it is by FBS
	}
	return e
}

func randKLMWalk(r *rng) KLMWalkVector {
	var v KLMWalkVector
	v.FBS = r.pct(40)
	v.TranslationsOctwordSize = KLMEntries
	if r.pct(8) {
		v.TranslationsOctwordSize = 0
	}
	for j := range v.Entries {
		v.Entries[j] = randKLMEntry(r)
	}
	if v.FBS {
		switch r.pick(40, 30, 10, 20) {
		case 0:
			v.LogEntitySize = 12
		case 1:
			v.LogEntitySize = uint8(r.rangeIn(13, 16))
		case 2:
			v.LogEntitySize = uint8(r.rangeIn(17, 29))
		default:
			v.LogEntitySize = uint8(r.rangeIn(30, 31))
		}
	} else {
		v.LogEntitySize = uint8(r.bits(5))
	}
	var end uint64 // this piece's entry ends here (d + room)
	if v.FBS {
		b := uint64(1) << v.LogEntitySize
		j := r.n(KLMEntries + 2)
		var in uint64
		switch r.pick(50, 20, 30) {
		case 0:
			in = r.n(b)
		case 1:
			in = 0
		default:
			in = b - 1 - r.n(min(b, 64))
		}
		v.D = j*b + in
		end = (j + 1) * b
		if j < KLMEntries && in > 0 && r.pct(10) { // the lower address passes 2^64
			v.Entries[j].Address = -r.rangeIn(1, in)
		}
	} else {
		var t [KLMEntries + 1]uint64
		for j, e := range v.Entries {
			t[j+1] = t[j] + uint64(e.ByteCount)
		}
		j := r.n(KLMEntries)
		bc := uint64(v.Entries[j].ByteCount)
		switch r.pick(40, 15, 20, 15) {
		case 0:
			v.D = t[j] + r.n(max(bc, 1))
		case 1:
			v.D = t[j]
		case 2:
			v.D = t[j] + max(bc, 1) - 1 // the entry's last byte
		default:
			v.D = t[KLMEntries] + r.n(4) // past every entry
		}
		end = t[j] + bc
		if v.D > t[j] && v.D < end && r.pct(10) { // the lower address passes 2^64
			v.Entries[j].Address = -r.rangeIn(1, v.D-t[j])
		}
	}
	if r.pct(5) {
		v.D = r.u64()
	}
	room := uint64(1)
	if end > v.D {
		room = end - v.D
	}
	switch r.pick(30, 15, 20, 25, 10) {
	case 0:
		v.Len = uint32(r.rangeIn(1, 64))
	case 1:
		v.Len = uint32(min(room, 1<<32-1)) // to the end of the entry
	case 2:
		v.Len = uint32(min(room+r.rangeIn(1, 1<<16), 1<<32-1)) // into the next
	case 3:
		v.Len = r.len32()
	default:
		v.Len = 1<<32 - 1
	}
	if v.Len == 0 {
		v.Len = 1
	}
	return v
}

func genKLMWalk(o *Options) (*unitResult, error) {
	l := klmwalkLayout()
	res := &unitResult{
		desc:    "KLM level step: entry search and lower address of a variable KLM key, or the indexing of a Fixed Buffer Size key, for the first piece at d (translation.md 6, ref's KLM walk)",
		layout:  l,
		enums:   commonEnums(),
		formats: []Format{klmFormat()},
		params:  []Param{{Name: "K", Value: KLMEntries, Meaning: "KLM entries per vector"}},
	}
	res.points = statusPoints(prm.OK, prm.TranslationRange)
	for _, mode := range []string{"klm", "fbs"} {
		name := map[string]string{"klm": "variable KLM (fbs = 0)", "fbs": "Fixed Buffer Size (fbs = 1)"}[mode]
		res.points = append(res.points, CoveragePoint{mode, name}, CoveragePoint{mode + "_translation_range", name + ", TRANSLATION_RANGE"})
		for j := range KLMEntries {
			res.points = append(res.points, CoveragePoint{fmt.Sprintf("%s_entry%d", mode, j), fmt.Sprintf("%s, OK with entry_index = %d", name, j)})
		}
		res.points = append(res.points,
			CoveragePoint{mode + "_entry_split", name + ", OK and piece_len < len: the piece goes on in the next entry"},
			CoveragePoint{mode + "_lower_addr_wraps", name + ", OK and lower_addr < address[j]: the sum passes 2^64"},
			CoveragePoint{mode + "_2gb_entry", name + ", OK in an entry of 2^31 bytes (klm: byte_count 0x80000000; fbs: log_entity_size 31)"})
	}
	res.points = append(res.points, CoveragePoint{"klm_skips_zero_entry", "variable KLM, OK in entry j > 0 after an entry of byte_count 0"})
	res.dut = DUT{Module: "mkeysim_klmwalk", Handshake: "combinational",
		Description: Timing("combinational") + " entry_index, lower_key, lower_addr and piece_len are compared only when the expected status is OK.",
		Ports:       ports(l)}
	take := func(a *exampleAccess, vs []KLMWalkVector) ([]KLMWalkVector, error) {
		if len(vs) >= o.Count {
			return vs, nil
		}
		mk := a.checkedMKC()
		if mk == nil || !mk.AccessMode.UsesKLMList() {
			return vs, nil
		}
		if tos := mk.TranslationsOctwordSize; tos != 0 && tos != KLMEntries {
			return vs, nil
		}
		v := KLMWalkVector{FBS: mk.AccessMode == prm.ModeFixedBufferSize, LogEntitySize: mk.LogEntitySize,
			TranslationsOctwordSize: mk.TranslationsOctwordSize, D: a.access.Addr - mk.StartAddr, Len: a.access.Len}
		var img [KLMEntries * prm.KLMEntrySize]byte
		a.m.ICM().Read(mk.MTTHandle, img[:])
		for j := range v.Entries {
			v.Entries[j] = prm.DecodeKLMEntry(img[j*prm.KLMEntrySize:])
		}
		if err := v.oracle(); err == errUnobservable {
			return vs, nil
		} else if err != nil {
			return vs, fmt.Errorf("%s op %d: %v", a.file, a.seq, err)
		}
		return append(vs, v), nil
	}
	draw := func(r *rng) (KLMWalkVector, error) {
		v := randKLMWalk(r)
		return v, v.oracle()
	}
	return directedThenRandom(o, res, l, 3, take, draw, func(v *KLMWalkVector, cov coverage) {
		cov.status(v.Status)
		mode := "klm"
		if v.FBS {
			mode = "fbs"
		}
		cov[mode]++
		if v.Status == prm.TranslationRange {
			cov[mode+"_translation_range"]++
		}
		if v.Status == prm.OK {
			cov[fmt.Sprintf("%s_entry%d", mode, v.EntryIndex)]++
			if uint64(v.PieceLen) < uint64(v.Len) {
				cov[mode+"_entry_split"]++
			}
			if v.LowerAddr < v.Entries[v.EntryIndex].Address {
				cov[mode+"_lower_addr_wraps"]++
			}
			if !v.FBS && v.EntryIndex > 0 && v.Entries[v.EntryIndex-1].ByteCount == 0 {
				cov["klm_skips_zero_entry"]++
			}
			if !v.FBS && v.Entries[v.EntryIndex].ByteCount == 0x80000000 || v.FBS && v.LogEntitySize == 31 {
				cov[mode+"_2gb_entry"]++
			}
		}
	})
}
