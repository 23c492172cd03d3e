package tlpcap

import (
	"math/rand/v2"
	"testing"

	"mkeysim/rtl/pcie"
)

// seed is the seed of the random TLPs; tests print it when they fail.
const seed = 20240611

// newRand returns the tests' random source and makes t print the seed if
// it fails.
func newRand(t testing.TB) *rand.Rand {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random TLPs from seed %d", seed)
		}
	})
	return rand.New(rand.NewPCG(seed, 0))
}

// randAddr is a random DW address, below 4 GB (3DW header) or above (4DW)
// half of the time each, sometimes right at the 4 GB edge.
func randAddr(rng *rand.Rand) uint64 {
	switch rng.IntN(8) {
	case 0:
		return pcie.Addr4GB - 4*uint64(1+rng.IntN(8))
	case 1:
		return pcie.Addr4GB + 4*uint64(rng.IntN(8))
	case 2, 3, 4:
		return uint64(rng.Uint32()) &^ 3
	}
	return rng.Uint64() &^ 3
}

// randBytes is n random bytes.
func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// randTLP is a random TLP that passes Validate: an MRd or MWr built by
// pcie.NewRead or pcie.NewWrite, or with random byte enables; a CplD with
// data; a Cpl with status UR or CA. Every field takes its whole range
// (10-bit tags, traffic classes 0..7, IDs, Length up to 1024, Byte Count
// up to 4096).
func randTLP(rng *rand.Rand) pcie.TLP {
	var t pcie.TLP
	rid, tag := uint16(rng.Uint32()), uint16(rng.IntN(pcie.MaxTag+1))
	switch rng.IntN(5) {
	case 0: // a read of an arbitrary byte range
		addr := randAddr(rng) | uint64(rng.IntN(4))
		n := 1 + rng.IntN(int(min(pcie.PageBytes-addr%pcie.PageBytes, 600)))
		if rng.IntN(16) == 0 {
			addr &^= pcie.PageBytes - 1
			n = pcie.PageBytes
		}
		t = pcie.NewRead(rid, tag, addr, n)
	case 1: // a write of an arbitrary byte range
		addr := randAddr(rng) | uint64(rng.IntN(4))
		n := 1 + rng.IntN(int(min(pcie.PageBytes-addr%pcie.PageBytes, 300)))
		t = pcie.NewWrite(rid, addr, randBytes(rng, n))
		t.Tag = tag
	case 2: // a request with random byte enables (rejection sampling)
		for {
			typ := []pcie.Type{pcie.MRd, pcie.MWr}[rng.IntN(2)]
			t = pcie.TLP{Type: typ, RequesterID: rid, Tag: tag, LengthDW: uint16(1 + rng.IntN(4)),
				Addr: randAddr(rng), FirstBE: uint8(rng.IntN(16)), LastBE: uint8(rng.IntN(16))}
			if typ == pcie.MWr {
				t.Data = randBytes(rng, int(t.LengthDW)*pcie.DWBytes)
			}
			if t.Validate() == nil {
				break
			}
		}
	case 3:
		ldw := 1 + rng.IntN(64)
		if rng.IntN(16) == 0 {
			ldw = pcie.MaxLengthDW
		}
		t = pcie.TLP{Type: pcie.CplD, CompleterID: uint16(rng.Uint32()), Status: pcie.SC,
			ByteCount: uint16(1 + rng.IntN(pcie.MaxByteCount)), LowerAddr: uint8(rng.IntN(128)),
			RequesterID: rid, Tag: tag, LengthDW: uint16(ldw), Data: randBytes(rng, ldw*pcie.DWBytes)}
	case 4:
		t = pcie.TLP{Type: pcie.Cpl, CompleterID: uint16(rng.Uint32()),
			Status:    []pcie.CplStatus{pcie.UR, pcie.CA}[rng.IntN(2)],
			ByteCount: uint16(1 + rng.IntN(pcie.MaxByteCount)), LowerAddr: uint8(rng.IntN(128)),
			RequesterID: rid, Tag: tag}
	}
	t.TC = uint8(rng.IntN(8))
	t.RO = rng.IntN(2) == 0 // Relaxed Ordering (issue 37)
	return t
}

// bePatterns is an MRd and an MWr for every pair of byte enables that
// Validate accepts, at Lengths 1, 2 (QW-aligned and not) and 3 DW.
func bePatterns() []pcie.TLP {
	var out []pcie.TLP
	for _, typ := range []pcie.Type{pcie.MRd, pcie.MWr} {
		for _, c := range []struct {
			addr uint64
			ldw  uint16
		}{{0x1000, 1}, {0x1004, 1}, {0x1_0000_2008, 2}, {0x200c, 2}, {0x3000, 3}, {0x1_0000_3004, 3}} {
			for first := range uint8(16) {
				for last := range uint8(16) {
					t := pcie.TLP{Type: typ, RequesterID: 0x0100, Tag: uint16(len(out)) & pcie.MaxTag,
						LengthDW: c.ldw, Addr: c.addr, FirstBE: first, LastBE: last}
					if typ == pcie.MWr {
						t.Data = make([]byte, int(c.ldw)*pcie.DWBytes)
						for i := range t.Data {
							t.Data[i] = byte(i + 1)
						}
					}
					if t.Validate() == nil {
						out = append(out, t)
					}
				}
			}
		}
	}
	return out
}
