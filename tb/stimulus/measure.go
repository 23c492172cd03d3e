package stimulus

import (
	"math/bits"
	"math/rand"

	"mkeysim/prm"
	"mkeysim/scenario"
)

// This file makes the measurement workloads (Workload.Kind uniform,
// zipf, sequential, strided): MRs memory regions, each an MTT key of MRBytes
// with PageBytes pages on QP 1 (PD 1), and accesses of AccessBytes over
// the footprint, every one of which passes, so that what a sweep shows is
// the translation path's behaviour and nothing else. With Tenants > 1,
// tenant t has QP t+1, PD t+1 and regions t x MRs .. (t+1) x MRs - 1 of
// its own; access n is tenant n mod Tenants's, drawn from that tenant's
// stream as a single tenant's would be.
//
// The footprint is the first window() bytes of every region, taken as one
// range of mrs x window() bytes, region after region: access b of the
// uniform, zipf and sequential kinds is block b of AccessBytes of that
// range (uniform: a block drawn at random; zipf: the block of a rank drawn
// with probability proportional to rank^-zipf_s, ranks scattered over the
// blocks; sequential: block n modulo the blocks), access n of the strided kind starts at n x StrideBytes modulo
// the range (pulled back to end inside its region).

// regionBase is the virtual address of region i (index i+1): regions lie
// 2^40 apart, aligned to every page size.
func regionBase(i int) uint64 { return uint64(i+1) << 40 }

// physBase is where the regions' pages lie in host memory, one after the
// other: page p of region i at physBase + (i x pages + p) x page_bytes.
const physBase = 1 << 44

// measure is the state of a measurement workload's access stream.
type measure struct {
	w      Workload
	typ    prm.AccessType
	window uint64   // bytes of each region in the footprint
	blocks uint64   // AccessBytes blocks in each region's window
	n      uint64   // accesses made
	zipf   *zipf    // the zipf kind's ranks
	made   []uint64 // accesses made by each tenant (its stream's n)
}

// makeRegions creates the regions and the access stream.
func (g *gen) makeRegions() {
	w := g.w
	typ, _ := prm.ParseAccessType(w.AccessType)
	m := &measure{w: w, typ: typ, window: w.window()}
	m.blocks = m.window / uint64(w.AccessBytes)
	tenants := max(w.Tenants, 1)
	m.made = make([]uint64, tenants)
	if tenants > 1 {
		// One QP a tenant (one tenant keeps the generator's QPs, which
		// a trace may name).
		g.sc.QPs = nil
		for t := range tenants {
			g.sc.QPs = append(g.sc.QPs, scenario.QP{QPN: uint32(t + 1), PD: uint32(t + 1)})
		}
	}
	if w.Kind == KindZipf {
		m.zipf = newZipf(g.r, w.ZipfS, m.blocks*uint64(w.MRs))
	}
	log := uint8(bits.TrailingZeros64(w.PageBytes))
	pages := int((w.MRBytes + w.PageBytes - 1) / w.PageBytes)
	for i := range w.MRs * tenants {
		mkc := prm.MKC{AccessMode: prm.ModeMTT, QPN: prm.QPNNone, PD: uint32(i/w.MRs + 1), LR: true, LW: true, RR: true, RW: true, A: true,
			SmallFence: w.SmallFence, StartAddr: regionBase(i), Len: w.MRBytes, LogEntitySize: log,
			TranslationsOctwordSize: scenario.OctwordsFor(pages, 0)}
		spec := scenario.MKey{Index: uint32(i + 1), HasIndex: true, MKC: mkc, PgAccess: true, MTT: make([]prm.MTTEntry, pages)}
		for p := range pages {
			spec.MTT[p] = prm.MTTEntry{PTag: physBase + uint64(i*pages+p)*w.PageBytes, RdEn: true, WrEn: true}
		}
		g.translationMode(&spec.MKC)
		g.relaxedOrdering(&spec.MKC)
		g.sc.MKeys = append(g.sc.MKeys, spec)
	}
	if g.io != nil {
		g.io.add(g.io.rid(), physBase, regionBytes(&w))
	}
	g.meas = m
}

// next makes the next access: the next of its tenant's stream, on the
// tenant's QP and regions.
func (m *measure) next(r *rand.Rand) scenario.Access {
	w := &m.w
	tenant := int(m.n % uint64(len(m.made)))
	m.n++
	n := m.made[tenant]
	m.made[tenant]++
	total := m.window * uint64(w.MRs)
	var off uint64 // in the tenant's footprint taken as one range
	switch w.Kind {
	case KindUniform:
		b := uint64(r.Int63n(int64(m.blocks * uint64(w.MRs))))
		off = b/m.blocks*m.window + b%m.blocks*uint64(w.AccessBytes)
	case KindZipf:
		b := scatter(m.zipf.next()-1, m.blocks*uint64(w.MRs))
		off = b/m.blocks*m.window + b%m.blocks*uint64(w.AccessBytes)
	case KindSequential:
		b := n % (m.blocks * uint64(w.MRs))
		off = b/m.blocks*m.window + b%m.blocks*uint64(w.AccessBytes)
	case KindStrided:
		hi, lo := bits.Mul64(n, w.StrideBytes)
		_, off = bits.Div64(hi%total, lo, total)
	}
	region, in := off/m.window, off%m.window
	if in+uint64(w.AccessBytes) > m.window {
		in = m.window - uint64(w.AccessBytes) // a strided access ends in its region
	}
	if m.typ == prm.RemoteAtomic {
		in &^= 7 // an atomic is 8-byte aligned
	}
	region += uint64(tenant * w.MRs)
	return scenario.Access{QPN: uint32(tenant + 1), Key: prm.MakeKey(uint32(region+1), 0), Type: m.typ, Addr: regionBase(int(region)) + in, Len: w.AccessBytes}
}

// scatter maps rank r (from 0) of the zipf workload to a block of n: the
// ranks are spread over the footprint by multiplication with a prime that
// does not divide n (a bijection of 0..n-1), so that the hottest blocks
// do not share MTT lines as neighbours would.
func scatter(r, n uint64) uint64 {
	p := uint64(2654435761) // prime
	if n%p == 0 {
		p = 4294967291 // prime, the largest below 2^32
	}
	hi, lo := bits.Mul64(r, p)
	_, rem := bits.Div64(hi%n, lo, n)
	return rem
}
