package stimulus

import (
	"math/rand"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// The fences of the mixed workload (issue 37 part 2): with
// FencePerMille, that many WQEs per thousand (local accesses, UMRs, local
// invalidates) carry a fence mode drawn at random, and the two accesses
// after a UMR or invalidate read its key from its QP, so that the modes
// that let a WQE overtake it meet a mapping that changes. Drawn apart
// from the other draws (a source of its own), so that with FencePerMille
// 0 the workload is what it was.

// fenceSeed seeds the fences' draws (with the workload's seed).
const fenceSeed = 0x37_f2

// followAccesses is how many accesses after a UMR or invalidate read its
// key.
const followAccesses = 2

// startFences sets up the fences' draws, when w asks for them.
func (g *gen) startFences() {
	if g.w.FencePerMille > 0 {
		g.fr = rand.New(rand.NewSource(g.w.Seed ^ fenceSeed))
	}
}

// fence gives WQE op a random fence mode, FencePerMille times in a
// thousand.
func (g *gen) fence(op *scenario.Op) {
	if g.fr != nil && op.IsWQE() && g.fr.Intn(1000) < g.w.FencePerMille {
		op.Fence, op.HasFence = prm.FenceMode(g.fr.Intn(int(prm.FenceSmallAndFence)+1)), true
	}
}

// registered notes the key a UMR or invalidate just made rewrites: the
// next accesses read it.
func (g *gen) registered(k *genKey) {
	if g.fr != nil {
		g.follow, g.followN = k, followAccesses
	}
}

// retarget makes access op one of the accesses that follow a
// registration, if one is due: a local read or write of 64 bytes (or the
// key's length, if less) inside the key, from its QP. It returns the key
// the access now reads.
func (g *gen) retarget(op *scenario.Op, k *genKey) *genKey {
	f := g.follow
	if g.fr == nil || g.followN == 0 || f.mkc.Len == 0 {
		return k
	}
	g.followN--
	n := min(uint64(64), f.mkc.Len)
	typ := prm.LocalRead
	if g.fr.Intn(2) == 0 {
		typ = prm.LocalWrite
	}
	op.Access = scenario.Access{QPN: f.qpn, Key: prm.MakeKey(f.index, f.variant), Type: typ, Len: uint32(n),
		Addr: f.mkc.StartAddr + uint64(g.fr.Int63n(int64(f.mkc.Len-n)+1))}
	return f
}
