package stimulus

import (
	"math/rand"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// KLMTrees builds a scenario of KLM trees as deep as the depth limit
// allows: keys of level L (variable KLM or Fixed Buffer Size) point into
// keys of level L+1, down to MTT and PA keys at level depth, the deepest
// whose key may be looked up; a few entries point one level too deep (or
// back up the tree), so that some pieces end in INDIRECTION_DEPTH. The
// accesses start at level-0 keys and cover one entry or many, so one
// access fans out into many loop-back pieces at every level. It is the
// workload that stresses the recursion's resources (deadlock tests). With
// depth 0 the trees are one KLM level whose every child is too deep.
func KLMTrees(seed int64, depth, accesses int) *scenario.Scenario {
	r := rand.New(rand.NewSource(seed))
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}}}
	type node struct {
		key prm.Key
		len uint64 // bytes of its space, from start_addr 0
	}
	index := uint32(1)
	add := func(m prm.MKC, mtt []prm.MTTEntry, klm []prm.KLMEntry) node {
		m.QPN, m.PD, m.LR, m.LW, m.RR, m.RW, m.UMREn = prm.QPNNone, 1, true, true, true, true, true
		m.Variant = uint8(index)
		m.TranslationsOctwordSize = scenario.OctwordsFor(len(mtt), len(klm))
		sc.MKeys = append(sc.MKeys, scenario.MKey{Index: index, HasIndex: true, PgAccess: true, MKC: m, MTT: mtt, KLM: klm})
		n := node{key: prm.MakeKey(index, m.Variant), len: m.Len}
		index++
		return n
	}
	// Leaves: MTT keys of a few 4 KB pages and PA keys.
	var levels [][]node
	var leaves []node
	for i := 0; i < 6; i++ {
		if i%3 == 2 {
			leaves = append(leaves, add(prm.MKC{AccessMode: prm.ModePA, Len: 1 << 16}, nil, nil))
			continue
		}
		pages := 2 + r.Intn(6)
		mtt := make([]prm.MTTEntry, pages)
		for p := range mtt {
			mtt[p] = prm.MTTEntry{PTag: uint64(r.Int63n(1<<40)) &^ 0xfff, RdEn: true, WrEn: true}
		}
		leaves = append(leaves, add(prm.MKC{AccessMode: prm.ModeMTT, LogEntitySize: 12, Len: uint64(pages) << 12}, mtt, nil))
	}
	below := leaves
	// depth KLM levels (0..depth-1) over leaves at level depth; with a
	// depth limit of 0, one KLM level whose children all fail.
	for level := max(depth, 1) - 1; level >= 0; level-- {
		var here []node
		for i := 0; i < 4; i++ {
			var klm []prm.KLMEntry
			var m prm.MKC
			if r.Intn(4) == 0 {
				// Fixed Buffer Size: 4 KB entries.
				m = prm.MKC{AccessMode: prm.ModeFixedBufferSize, LogEntitySize: 12}
				for j, n := 0, 2+r.Intn(4); j < n; j++ {
					t := below[r.Intn(len(below))]
					addr := uint64(0)
					if t.len > 4096 {
						addr = uint64(r.Int63n(int64(t.len - 4096)))
					}
					klm = append(klm, prm.KLMEntry{MKey: t.key, Address: addr})
					m.Len += 4096
				}
			} else {
				m = prm.MKC{AccessMode: prm.ModeKLM}
				for j, n := 0, 2+r.Intn(8); j < n; j++ {
					t := below[r.Intn(len(below))]
					if r.Intn(12) == 0 && len(levels) > 0 {
						// One level too deep, or back up: INDIRECTION_DEPTH.
						up := levels[r.Intn(len(levels))]
						t = up[r.Intn(len(up))]
					}
					bc := uint64(1 + r.Intn(int(min(t.len, 2048))))
					addr := uint64(r.Int63n(int64(t.len - bc + 1)))
					klm = append(klm, prm.KLMEntry{ByteCount: uint32(bc), MKey: t.key, Address: addr})
					m.Len += bc
				}
			}
			here = append(here, add(m, nil, klm))
		}
		levels = append(levels, here)
		below = here
	}
	types := []prm.AccessType{prm.LocalRead, prm.LocalWrite, prm.RemoteRead, prm.RemoteWrite}
	for i := 0; i < accesses; i++ {
		// Mostly the tops of the trees; else a key of any level, so that
		// one index is looked up at level 0 and through the loop at once.
		t := below[r.Intn(len(below))]
		if r.Intn(3) == 0 {
			all := append(levels[r.Intn(len(levels))], leaves...)
			t = all[r.Intn(len(all))]
		}
		n := uint64(1 + r.Intn(int(t.len)))
		if r.Intn(3) == 0 {
			n = t.len // the whole key: every entry
		}
		addr := uint64(r.Int63n(int64(t.len - n + 1)))
		sc.Ops = append(sc.Ops, scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{
			QPN: 1, Key: t.key, Addr: addr, Len: uint32(n), Type: types[r.Intn(len(types))]}})
	}
	return sc
}
