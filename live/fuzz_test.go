package live

import (
	"encoding/binary"
	"testing"

	"mkeysim/prm"
)

// FuzzModelCalls drives a model with arbitrary bytes as a C caller could
// pass them: whatever the bytes, no call panics (a panic would take the
// simulator down), a call either works or says why, and a created
// object's queried image loads into another model and queries back to
// the same bytes.
func FuzzModelCalls(f *testing.F) {
	valid := prm.MKC{AccessMode: prm.ModeMTT, LR: true, LW: true, UMREn: true, QPN: prm.QPNNone, PD: 1, Len: 0x4000,
		LogEntitySize: 12, TranslationsOctwordSize: 4}
	img := valid.Bytes()
	list := prm.MTTEntry{PTag: 0x5000}.Append(nil)
	seed := append(append(img[:], 1, 0, 0, 0), list...)
	f.Add(seed, uint64(0x1234), uint32(0x100), uint8(0))
	f.Add(make([]byte, 70), uint64(1)<<63, uint32(1), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, va uint64, n uint32, typ uint8) {
		if len(data) < prm.MKCSize+4 {
			return
		}
		mkc, ctl, list := data[:prm.MKCSize], data[prm.MKCSize:prm.MKCSize+4], data[prm.MKCSize+4:]
		m, _ := NewModel(-1)
		m.AddQP(1, 1, ctl[3]&1 == 1)
		index, r, err := m.Create(mkc, int64(ctl[1]), ctl[2]&1 == 1, ctl[2]&2 == 2, ListKind(ctl[0]%4), list)
		if err != nil && r != nil {
			t.Fatalf("both an error and a refusal: %v %v", err, r)
		}
		key := prm.MakeKey(index, mkc[7])
		m.Access(1, key, va, n, prm.AccessType(typ))
		if n > 0 {
			m.Check(key, int(typ%8), va, n, 1, 1, prm.AccessType(typ))
		}
		m.UMR(1, key, ctl[3]%4, binary.BigEndian.Uint64(data[8:16]), mkc, uint64(ctl[1]), ListKind(ctl[0]%4), list)
		q, odp, r := m.Query(index)
		if r != nil {
			return
		}
		other, _ := NewModel(-1)
		if err := other.Load(index, q[:], odp); err != nil {
			t.Fatalf("load of a queried image: %v", err)
		}
		if q2, odp2, _ := other.Query(index); q2 != q || odp2 != odp {
			t.Fatalf("query after load\n got %x\nwant %x", q2, q)
		}
	})
}

// FuzzUnitSteps calls the unit functions with arbitrary inputs: each
// answers or refuses with an error, never panics, and an answer of OK
// keeps its outputs inside the step (a piece of 1..len-t bytes).
func FuzzUnitSteps(f *testing.F) {
	f.Add(uint64(0x1800), uint8(12), uint32(4), uint64(1)<<32, uint64(0x2000), uint32(0x2000), uint32(0x100), make([]byte, 64))
	f.Add(^uint64(0), uint8(31), ^uint32(0), uint64(1)<<47, uint64(0), ^uint32(0), uint32(7), make([]byte, 64))
	f.Fuzz(func(t *testing.T, start uint64, log uint8, tos uint32, handle, va uint64, n, off uint32, ents []byte) {
		if s, err := StepMTT(start, log, tos, handle, va, n, off); err == nil && s.Status == prm.OK {
			if s.PieceLen == 0 || s.PieceLen > n-off || s.EntryAddr != handle+8*s.PageIndex {
				t.Fatalf("mtt step %+v for len %d t %d", s, n, off)
			}
		}
		if len(ents) >= 64 {
			if s, err := StepKLM(log&1 == 1, log, tos%8, va, n, ents[:64]); err == nil && s.Status == prm.OK {
				if s.PieceLen == 0 || s.PieceLen > n || s.EntryIndex >= 4 {
					t.Fatalf("klm step %+v for len %d", s, n)
				}
			}
		}
		Protcheck(ents, len(ents) >= 64 && ents[0]&1 == 1, prm.Key(tos), int(log%8), va, n, off&0xffffff, 1, prm.AccessType(log%5))
	})
}
