package vectors

import (
	"mkeysim/prm"
	"mkeysim/ref"
)

// ProtcheckVector is one vector of the protection checker: the MKC reached
// by a piece and the piece, and ref.Check's verdict.
type ProtcheckVector struct {
	MKC     prm.MKC
	Created bool // false: the index is not created (MKC is noise)
	Key     prm.Key
	Level   uint8
	VA      uint64
	Len     uint32
	QPN, PD uint32
	Type    prm.AccessType
	Status  prm.Status // expected, from ref.Check
}

func protcheckLayout() *Layout {
	return newLayout([]Field{
		{Name: "mkc", Width: 512, Dir: DirInput, Format: "mkc", Meaning: "the MKey Context of the key's index: 64-byte image in wire order, byte 00h in bits 511:504 (formats.mkc gives every field)"},
		{Name: "created", Width: 1, Dir: DirInput, Meaning: "1: the key's index is created and mkc is its context; 0: it is not (mkc is then noise)"},
		{Name: "key", Width: 32, Dir: DirInput, Meaning: "the full MKey of the piece: mkey_index 31:8, variant 7:0 (translation.md 1; check 3 compares variant with the MKC's mkey[7:0], formats.mkc field variant)"},
		{Name: "level", Width: 3, Dir: DirInput, Meaning: "KLM level of the piece (0: the key the request carried); only level 0 checks atomic alignment"},
		{Name: "va", Width: 64, Dir: DirInput, Meaning: "first byte of the piece, in the key's address space"},
		{Name: "len", Width: 32, Dir: DirInput, Meaning: "length of the piece in bytes, >= 1"},
		{Name: "qpn", Width: 24, Dir: DirInput, Meaning: "QPN of the requesting QP"},
		{Name: "pd", Width: 24, Dir: DirInput, Meaning: "PD of the requesting QP"},
		{Name: "access_type", Width: 3, Dir: DirInput, Enum: "access_type", Meaning: "access type (enums.access_type)"},
		{Name: "status", Width: 8, Dir: DirExpected, Enum: "status", Meaning: "first failing check of translation.md 4, checks 2-10, in that order, or OK (enums.status)"},
	})
}

func (v *ProtcheckVector) encode(l *Layout, ln Line) {
	img := v.MKC.Bytes()
	l.setImage(ln, "mkc", img[:])
	l.set(ln, "created", b2u(v.Created))
	l.set(ln, "key", uint64(v.Key))
	l.set(ln, "level", uint64(v.Level))
	l.set(ln, "va", v.VA)
	l.set(ln, "len", uint64(v.Len))
	l.set(ln, "qpn", uint64(v.QPN))
	l.set(ln, "pd", uint64(v.PD))
	l.set(ln, "access_type", uint64(v.Type))
	l.set(ln, "status", uint64(v.Status))
}

// decodeProtcheck rebuilds the vector from a line through layout l.
func decodeProtcheck(l *Layout, ln Line) ProtcheckVector {
	m, _ := prm.ParseMKC(l.GetImage(ln, "mkc"))
	return ProtcheckVector{
		MKC: m, Created: l.Get(ln, "created") == 1, Key: prm.Key(l.Get(ln, "key")),
		Level: uint8(l.Get(ln, "level")), VA: l.Get(ln, "va"), Len: uint32(l.Get(ln, "len")),
		QPN: uint32(l.Get(ln, "qpn")), PD: uint32(l.Get(ln, "pd")), Type: prm.AccessType(l.Get(ln, "access_type")),
		Status: prm.Status(l.Get(ln, "status")),
	}
}

// oracle fills in the expected status from ref.Check.
func (v *ProtcheckVector) oracle() {
	var obj *prm.MKC
	if v.Created {
		obj = &v.MKC
	}
	v.Status = ref.Check(obj, v.Key, int(v.Level), v.VA, uint64(v.Len), v.QPN, v.PD, v.Type)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// randMKCNoise fills the fields no check reads with random values, so that
// a DUT reading the wrong bits fails.
func randMKCNoise(r *rng, m *prm.MKC) {
	m.RelaxedOrderingWrite, m.SmallFence, m.UMREn, m.TunneledAtomic = r.bool(), r.bool(), r.bool(), r.bool()
	m.MATranslationMode, m.SF = uint8(r.bits(2)), uint8(r.bits(4))
	m.PASID = uint32(r.bits(24))
	m.BSFEn, m.ExpectedSigerrCount, m.EnRinval, m.RelaxedOrderingRead = r.bool(), r.bool(), r.bool(), r.bool()
	m.BSFOctwordSize, m.BSFHandle, m.MTTHandle = uint32(r.u64()), r.bits(48), r.bits(48)
	m.TranslationsOctwordSize = uint32(r.u64())
	m.CryptoEn, m.GenerationCounter = uint8(r.bits(2)), uint16(r.u64())
}

// randRange draws start_addr, len and length64 with the range corners:
// unaligned starts, ranges ending at 2^64 or past it, zero length.
func randRange(r *rng, m *prm.MKC) {
	switch r.pick(30, 25, 15, 10, 10, 5, 5) {
	case 0:
		m.StartAddr, m.Len = r.bits(48), r.rangeIn(1, 1<<32)
	case 1:
		m.StartAddr, m.Len = r.bits(20), r.rangeIn(1, 1<<16)
	case 2:
		m.StartAddr, m.Len = r.u64(), r.u64()
	case 3: // ends exactly at 2^64
		m.Len = r.rangeIn(1, 1<<33)
		m.StartAddr = -m.Len
	case 4: // start + len passes 2^64
		m.StartAddr = -r.rangeIn(1, 1<<32)
		m.Len = -m.StartAddr + r.rangeIn(1, 1<<32)
	case 5:
		m.StartAddr, m.Len = r.u64(), 0
	default:
		m.StartAddr, m.Len = 0, ^uint64(0)
	}
	m.Length64 = r.pct(12)
}

// avail is how many bytes of [start, start+len) lie below 2^64 (the whole
// space for length64).
func avail(m *prm.MKC) uint64 {
	if m.Length64 {
		return ^uint64(0)
	}
	if m.StartAddr == 0 {
		return m.Len
	}
	return min(m.Len, -m.StartAddr)
}

// placeInRange picks a piece inside the MKC's range (first byte, last byte
// or anywhere), shortening it to fit.
func placeInRange(r *rng, m *prm.MKC, l uint32) (uint64, uint32) {
	base := m.StartAddr
	a := avail(m)
	if m.Length64 {
		base = 0
	}
	if a == 0 {
		return base, l
	}
	if uint64(l) > a {
		l = uint32(r.rangeIn(1, a))
	}
	room := a - uint64(l) // V may be base..base+room
	switch r.pick(50, 20, 30) {
	case 0:
		return base + r.n(room+1), l
	case 1:
		return base, l
	default:
		if m.Length64 {
			return -uint64(l), l // the piece's last byte is byte 2^64-1
		}
		return base + room, l // the piece's last byte is the range's last byte
	}
}

func randProtcheck(r *rng) ProtcheckVector {
	var v ProtcheckVector
	m := &v.MKC
	randMKCNoise(r, m)
	m.A, m.RW, m.RR, m.LW, m.LR = r.pct(70), r.pct(70), r.pct(70), r.pct(70), r.pct(85)
	modes := []prm.AccessMode{prm.ModePA, prm.ModeMTT, prm.ModeKLM, prm.ModeFixedBufferSize, prm.ModeSWICM, prm.ModeMEMIC}
	m.AccessMode = modes[r.intn(len(modes))]
	if m.AccessMode == prm.ModeMTT || m.AccessMode == prm.ModeFixedBufferSize {
		m.LogEntitySize = uint8(r.rangeIn(12, 31))
	} else {
		m.LogEntitySize = uint8(r.bits(5))
	}
	m.Variant = uint8(r.u64())
	m.PD = uint32(r.bits(24))
	m.QPN = prm.QPNNone
	v.QPN = uint32(r.bits(24))
	if r.pct(25) {
		m.QPN = v.QPN // a type 2 window bound to the requester
	}
	randRange(r, m)
	v.Created = true
	v.Key = prm.MakeKey(uint32(r.bits(24)), m.Variant)
	v.PD = m.PD
	v.Level = 0
	if r.pct(30) {
		v.Level = uint8(r.rangeIn(1, 7))
	}
	v.Type = prm.AccessType(r.n(5))
	v.VA, v.Len = placeInRange(r, m, r.len32())
	if v.Type == prm.RemoteAtomic && r.pct(75) {
		v.VA, v.Len = placeInRange(r, m, 8)
		if v.VA%8 != 0 {
			v.VA += 8 - v.VA%8
		}
	}
	// Grant the right the access needs, most of the time, so that the
	// later checks are reached.
	if r.pct(80) {
		switch v.Type {
		case prm.LocalRead:
			m.LR = true
		case prm.LocalWrite:
			m.LW = true
		case prm.RemoteRead:
			m.RR = true
		case prm.RemoteWrite:
			m.RW = true
		case prm.RemoteAtomic:
			m.A = true
		}
	}
	// Aim at one check (and sometimes a later one too, to show the order).
	n := 1
	if r.pct(25) {
		n = 2
	}
	for range n {
		breakCheck(r, &v, prm.Status(r.rangeIn(uint64(prm.BadKeyIndex), uint64(prm.MisalignedAtomic))))
	}
	return v
}

// breakCheck changes the vector so that check st fails (if no earlier one
// does); the oracle has the last word.
func breakCheck(r *rng, v *ProtcheckVector, st prm.Status) {
	m := &v.MKC
	switch st {
	case prm.BadKeyIndex:
		if r.pct(40) { // rarer: it hides everything else
			v.Created = false
		}
	case prm.KeyMismatch:
		v.Key = prm.MakeKey(v.Key.Index(), m.Variant^uint8(1<<r.n(8)))
	case prm.MKeyFree:
		m.Free = true
	case prm.PDMismatch:
		v.PD = m.PD ^ uint32(1<<r.n(24))
	case prm.QPNMismatch:
		m.QPN = v.QPN ^ uint32(1<<r.n(24))
		if m.QPN == prm.QPNNone {
			m.QPN ^= 1
		}
	case prm.OutOfRange:
		switch r.pick(30, 30, 25, 15) {
		case 0: // one byte before the start
			if !m.Length64 && m.StartAddr != 0 {
				v.VA = m.StartAddr - r.rangeIn(1, min(m.StartAddr, 64))
				return
			}
			fallthrough
		case 1: // one byte past the end
			if a := avail(m); !m.Length64 && a < 1<<63 {
				v.VA = m.StartAddr + a - uint64(v.Len) + 1
				return
			}
			fallthrough
		case 2: // past 2^64
			if v.Len < 2 {
				v.Len = uint32(r.rangeIn(2, 1<<12))
			}
			v.VA = -uint64(v.Len) + r.rangeIn(1, uint64(v.Len)-1)
		default:
			m.Length64 = false
			m.Len = r.n(uint64(v.Len))
		}
	case prm.AccessDenied:
		switch v.Type {
		case prm.LocalRead:
			m.LR = false
		case prm.LocalWrite:
			m.LW = false
		case prm.RemoteRead:
			m.RR = false
		case prm.RemoteWrite:
			m.RW = false
		case prm.RemoteAtomic:
			m.A = false
		}
	case prm.BadAccessMode:
		if r.bool() {
			m.AccessMode = prm.AccessMode(r.rangeIn(6, 31))
		} else {
			m.AccessMode = []prm.AccessMode{prm.ModeMTT, prm.ModeFixedBufferSize}[r.n(2)]
			m.LogEntitySize = uint8(r.n(12))
		}
	case prm.MisalignedAtomic:
		v.Level, v.Type, m.A = 0, prm.RemoteAtomic, true
		if r.pct(30) { // the same below level 0, where check 10 does not apply
			v.Level = uint8(r.rangeIn(1, 7))
		}
		if r.bool() {
			v.VA, v.Len = placeInRange(r, m, uint32(r.rangeIn(1, 16)))
		} else {
			v.VA, v.Len = placeInRange(r, m, 8)
			if v.VA%8 == 0 {
				v.VA += r.rangeIn(1, 7)
			}
		}
	}
}

func genProtcheck(o *Options) (*unitResult, error) {
	l := protcheckLayout()
	res := &unitResult{
		desc:     "protection checker: the MKC checks 2-10 of translation.md 4 on one piece (ref.Check)",
		layout:   l,
		coverage: coverage{},
		formats:  []Format{mkcFormat()},
		enums:    commonEnums(),
		points: append(statusPoints(prm.OK, prm.BadKeyIndex, prm.KeyMismatch, prm.MKeyFree, prm.PDMismatch, prm.QPNMismatch, prm.OutOfRange, prm.AccessDenied, prm.BadAccessMode, prm.MisalignedAtomic),
			CoveragePoint{"misaligned_atomic_below_level_0", "REMOTE_ATOMIC at level 1..7 with len != 8 or va mod 8 != 0, expected OK: check 10 applies at level 0 only"}),
	}
	res.dut = DUT{Module: "mkeysim_protcheck", Handshake: "combinational",
		Description: Timing("combinational") + " Check 1 (INDIRECTION_DEPTH) is the caller's and is not part of this unit.",
		Ports:       ports(l)}
	take := func(a *exampleAccess, vs []ProtcheckVector) ([]ProtcheckVector, error) {
		qp, ok := a.m.QP(a.access.QPN)
		if !ok || a.access.Len == 0 || len(vs) >= o.Count {
			return vs, nil
		}
		v := ProtcheckVector{Key: a.access.Key, VA: a.access.Addr, Len: a.access.Len, QPN: a.access.QPN, PD: qp.PD, Type: a.access.Type}
		if obj := a.m.Object(a.access.Key.Index()); obj != nil {
			v.MKC, v.Created = obj.MKC, true
		}
		v.oracle()
		return append(vs, v), nil
	}
	draw := func(r *rng) (ProtcheckVector, error) {
		v := randProtcheck(r)
		v.oracle()
		return v, nil
	}
	return directedThenRandom(o, res, l, 1, take, draw, func(v *ProtcheckVector, cov coverage) {
		cov.status(v.Status)
		if v.Status == prm.OK && v.Level > 0 && v.Type == prm.RemoteAtomic && (v.Len != 8 || v.VA%8 != 0) {
			cov["misaligned_atomic_below_level_0"]++
		}
	})
}
