package ref_test

import (
	"math/rand/v2"
	"testing"

	"mkeysim/pagetable"
	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

// TestIOMMUProperty: random mappings (4 KiB, 2 MiB and 1 GiB leaves, in
// the requester ID's table and two PASIDs' tables), random accesses
// through keys of each translation mode, and unmaps between them. The
// same scenario without its iommu section gives each access's dma
// segments; with it:
//   - an OK access's segments are those, cut only where the physical
//     address stops following on, and every segment's pa is
//     pagetable.Walk of its address, contiguous over the segment (every
//     leaf inside it continues the pa), with the permission the access
//     needs;
//   - a failed access fails as without the IOMMU, or, having passed,
//     ends with IOMMU_FAULT exactly at the first byte, in request order,
//     that Walk does not map or maps without the permission.
func TestIOMMUProperty(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		iommuProperty(t, seed)
	}
}

func iommuProperty(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 36))
	const window = 8 << 20 // IOVAs and key addresses below it
	spaces := []pagetable.Space{{ID: 0x100}, {PASID: true, ID: 1}, {PASID: true, ID: 2}}
	io := &scenario.IOMMU{RequesterID: 0x100}
	// Mappings that do not overlap, checked in a table of the test's own.
	check := pagetable.New(&mapMem{}, scenario.IOMMUTableBase, scenario.IOMMUTableSize)
	for range 60 {
		m := scenario.IOMMUMapping{Space: spaces[r.IntN(len(spaces))]}
		switch r.IntN(7) {
		case 6: // following on from the last mapping, in IOVA and in PA
			if len(io.Mappings) == 0 {
				continue
			}
			last := io.Mappings[len(io.Mappings)-1]
			m.Space, m.IOVA, m.PA, m.Size = last.Space, last.IOVA+last.Size, last.PA+last.Size, uint64(1+r.IntN(4))<<12
		case 0: // a 2 MiB leaf, or several
			m.IOVA = uint64(r.IntN(window>>21)) << 21
			m.PA = uint64(1+r.IntN(1<<10)) << 21
			m.Size = uint64(1+r.IntN(2)) << 21
		case 1: // a 1 GiB leaf past the window, reached by key 1's length
			m.IOVA = 1 << 30
			m.PA = uint64(1+r.IntN(8)) << 30
			m.Size = 1 << 30
		default: // 4 KiB pages, sometimes following on in PA
			m.IOVA = uint64(r.IntN(window>>12)) << 12
			m.PA = uint64(r.IntN(1<<20)) << 12
			m.Size = uint64(1+r.IntN(8)) << 12
		}
		m.R, m.W = r.IntN(4) != 0, r.IntN(4) != 0
		if !m.R && !m.W {
			m.R = true
		}
		if check.Map(m.Space, m.IOVA, m.PA, m.Size, m.R, m.W) == nil {
			io.Mappings = append(io.Mappings, m)
		}
	}
	all := prm.MKC{PD: 1, QPN: prm.QPNNone, LR: true, LW: true, RR: true, RW: true, A: true}
	pa := all
	pa.AccessMode, pa.Len = prm.ModePA, 1<<31
	mtt := all
	mtt.AccessMode, mtt.Len, mtt.LogEntitySize, mtt.MATranslationMode = prm.ModeMTT, window, 12, 1
	var ents []prm.MTTEntry
	for range window >> 12 {
		ents = append(ents, prm.MTTEntry{PTag: uint64(r.IntN(window>>12)) << 12, RdEn: true, WrEn: true})
	}
	capi1, capi2 := pa, pa
	capi1.MATranslationMode, capi1.PASID = 3, 1
	capi2.MATranslationMode, capi2.PASID = 3, 2
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}}, MKeys: []scenario.MKey{
		{Index: 1, HasIndex: true, MKC: pa},
		{Index: 2, HasIndex: true, MKC: mtt, MTT: ents, PgAccess: true},
		{Index: 3, HasIndex: true, MKC: capi1},
		{Index: 4, HasIndex: true, MKC: capi2},
	}}
	sc.MKeys[1].MKC.TranslationsOctwordSize = scenario.OctwordsFor(len(ents), 0)
	spaceOf := map[uint32]pagetable.Space{1: spaces[0], 2: spaces[0], 3: spaces[1], 4: spaces[2]}
	for range 300 {
		if r.IntN(20) == 0 && len(io.Mappings) > 0 {
			m := io.Mappings[r.IntN(len(io.Mappings))]
			sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpIOMMUUnmap, Unmap: &scenario.IOMMUUnmap{Space: m.Space, IOVA: m.IOVA, Size: m.Size}})
			continue
		}
		idx := uint32(1 + r.IntN(4))
		addr := uint64(r.IntN(window))
		if idx == 1 && r.IntN(4) == 0 {
			addr += 1 << 30
		}
		n := uint32(1 + r.IntN(64<<10))
		if r.IntN(4) == 0 {
			n = uint32(1 + r.IntN(64))
		}
		typ := prm.AccessTypes()[r.IntN(5)]
		if len(io.Mappings) > 0 && r.IntN(4) != 0 {
			// Inside a mapping, through a PA key of its table, mostly
			// ending inside it, and half the time of a type it permits.
			m := io.Mappings[r.IntN(len(io.Mappings))]
			for _, k := range []uint32{1, 3, 4} {
				if spaceOf[k] == m.Space {
					idx = k
				}
			}
			off := r.Uint64N(m.Size)
			addr, n = m.IOVA+off, uint32(1+r.Uint64N(min(m.Size-off, 1<<20)))
			if r.IntN(4) == 0 {
				n += uint32(r.IntN(8192))
			}
			if r.IntN(2) == 0 {
				switch {
				case m.R && m.W:
				case m.R:
					typ = []prm.AccessType{prm.LocalRead, prm.RemoteRead}[r.IntN(2)]
				default:
					typ = []prm.AccessType{prm.LocalWrite, prm.RemoteWrite}[r.IntN(2)]
				}
			}
		}
		if typ == prm.RemoteAtomic {
			addr, n = addr&^7, 8
		}
		sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: prm.MakeKey(idx, 0), Addr: addr, Len: n, Type: typ}})
	}
	plain := *sc
	sc.IOMMU = io
	with, without := ref.New(ref.Config{MaxIndirection: 4, ATS: true}), ref.New(ref.Config{MaxIndirection: 4, ATS: true})
	if err := with.Load(sc); err != nil {
		t.Fatal(err)
	}
	if err := without.Load(&plain); err != nil {
		t.Fatal(err)
	}
	oks, faults := 0, 0
	for i := range sc.Ops {
		op := &sc.Ops[i]
		got, base := with.Apply(i, op), without.Apply(i, op)
		if op.Kind != scenario.OpAccess {
			continue
		}
		a := op.Access
		sp := spaceOf[a.Key.Index()]
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d seq %d (%v key %v addr %#x len %d): "+format, append([]any{seed, i, a.Type, a.Key, a.Addr, a.Len}, args...)...)
		}
		if base.Status != prm.OK {
			if got.Status != base.Status || got.Level != base.Level || got.Offset != base.Offset {
				fail("%v at level %d offset %d, want %v at %d %d as without the IOMMU", got.Status, got.Level, got.Offset, base.Status, base.Level, base.Offset)
			}
			continue
		}
		permitted := func(w pagetable.Result) bool {
			return w.OK && (w.R || !a.Type.NeedsRead()) && (w.W || !a.Type.NeedsWrite())
		}
		// The first byte the IOMMU refuses, in request order.
		faultOff, faultAddr, faulted := uint64(0), uint64(0), false
		off := uint64(0)
		for _, s := range base.Segments {
			for x := uint64(0); x < s.Len && !faulted; {
				w := with.IOMMUWalk(sp, s.Addr+x)
				if !permitted(w) {
					faultOff, faultAddr, faulted = off+x, s.Addr+x, true
					break
				}
				x += w.Size - (s.Addr+x)&(w.Size-1)
			}
			if faulted {
				break
			}
			off += s.Len
		}
		if faulted {
			faults++
			if got.Status != prm.IOMMUFault || got.Level != 0 || got.Offset != faultOff || got.FaultAddr != faultAddr || got.FaultKey != a.Key {
				fail("%v level %d offset %d fault %v %#x, want IOMMU_FAULT at offset %d addr %#x", got.Status, got.Level, got.Offset, got.FaultKey, got.FaultAddr, faultOff, faultAddr)
			}
			continue
		}
		oks++
		if got.Status != prm.OK {
			fail("%v, want OK", got.Status)
		}
		// The segments are base's, cut only where the pa stops following on.
		j := 0
		for k, b := range base.Segments {
			for pos := uint64(0); pos < b.Len; {
				if j >= len(got.Segments) {
					fail("segments end inside base segment %d", k)
				}
				s := got.Segments[j]
				if !s.HasPA || s.Space != prm.SpaceDMA || s.Addr != b.Addr+pos || s.Len > b.Len-pos {
					fail("segment %d %+v, not the next part of %+v at %d", j, s, b, pos)
				}
				if pos > 0 {
					if prev := got.Segments[j-1]; prev.PA+prev.Len == s.PA {
						fail("segments %d and %d are cut though the pa follows on", j-1, j)
					}
				}
				for x := uint64(0); x < s.Len; {
					w := with.IOMMUWalk(sp, s.Addr+x)
					if !permitted(w) || w.PA != s.PA+x {
						fail("segment %d %+v: byte %d walks to %+v", j, s, x, w)
					}
					x += w.Size - (s.Addr+x)&(w.Size-1)
				}
				pos += s.Len
				j++
			}
		}
		if j != len(got.Segments) {
			fail("%d segments, base's make %d", len(got.Segments), j)
		}
	}
	t.Logf("seed %d: %d mappings, %d OK, %d IOMMU_FAULT", seed, len(io.Mappings), oks, faults)
	if oks == 0 || faults == 0 {
		t.Errorf("seed %d: %d OK and %d IOMMU_FAULT accesses: the test reaches too little", seed, oks, faults)
	}
}

// mapMem is sparse memory for the test's own tables.
type mapMem struct{ pages map[uint64]*[4096]byte }

func (m *mapMem) Read(a uint64, b []byte) {
	for i := range b {
		if p := m.pages[(a+uint64(i))>>12]; p != nil {
			b[i] = p[(a+uint64(i))&0xfff]
		} else {
			b[i] = 0
		}
	}
}

func (m *mapMem) Write(a uint64, b []byte) {
	if m.pages == nil {
		m.pages = map[uint64]*[4096]byte{}
	}
	for i, c := range b {
		p := m.pages[(a+uint64(i))>>12]
		if p == nil {
			p = new([4096]byte)
			m.pages[(a+uint64(i))>>12] = p
		}
		p[(a+uint64(i))&0xfff] = c
	}
}
