package protcheck

import (
	"math/bits"

	"mkeysim/prm"
	"mkeysim/rtl/bus"
)

// Check runs the MKC checks of translation.md 4 (2 to 10) on one piece:
// the combinational logic of the stage.
func Check(l *bus.Lookup) prm.Status {
	m := &l.MKC
	p := &l.Piece
	switch {
	case !l.Created:
		return prm.BadKeyIndex
	case m.Variant != p.Key.Variant():
		return prm.KeyMismatch
	case m.Free:
		return prm.MKeyFree
	case m.PD != p.PD:
		return prm.PDMismatch
	case m.QPN != prm.QPNNone && m.QPN != p.QPN:
		return prm.QPNMismatch
	case !inRange(m, p.Addr, p.Len):
		return prm.OutOfRange
	case !p.Type.Permitted(m):
		return prm.AccessDenied
	case !modeUsable(m):
		return prm.BadAccessMode
	case p.Level == 0 && p.Type == prm.RemoteAtomic && (p.Len != 8 || p.Addr&7 != 0):
		return prm.MisalignedAtomic
	}
	return prm.OK
}

// inRange is the exact 65-bit range comparison: v+l <= 2^64, and length64
// or start <= v and v+l <= start+len.
func inRange(m *prm.MKC, v, l uint64) bool {
	end, cEnd := bits.Add64(v, l, 0)
	if cEnd == 1 && end != 0 {
		return false
	}
	if m.Length64 {
		return true
	}
	lim, cLim := bits.Add64(m.StartAddr, m.Len, 0)
	if v < m.StartAddr {
		return false
	}
	if cEnd != cLim {
		return cEnd < cLim
	}
	return end <= lim
}

func modeUsable(m *prm.MKC) bool {
	switch m.AccessMode {
	case prm.ModePA, prm.ModeKLM, prm.ModeSWICM, prm.ModeMEMIC:
		return true
	case prm.ModeMTT, prm.ModeFixedBufferSize:
		return m.LogEntitySize >= 12
	}
	return false
}
