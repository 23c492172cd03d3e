package ref_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"mkeysim/prm"
	"mkeysim/ref"
	"mkeysim/scenario"
)

const (
	benchMTTKeys = 1_000_000
	bench1KKeys  = 1000 // keys of BenchmarkTranslateMTT1K
	benchKLMKeys = 1 << 16
	benchReqs    = 1 << 16 // pre-generated requests, used round robin
	benchStart   = 0x800   // every MTT key starts half way into its first page
	benchMTTLen  = 4<<12 - benchStart
)

// benchTable is one million MTT keys of four 4 KB pages each, then 64 K KLM
// keys of four entries over them, with pre-generated requests.
var benchTable struct {
	mttOnce, klmOnce sync.Once
	m                *ref.Model
	mttReqs, klmReqs []ref.Request
}

// bench1K is the MTT table's shape with a thousand keys: it fits in the
// caches.
var bench1K struct {
	once sync.Once
	m    *ref.Model
	reqs []ref.Request
}

func benchMTTStart(i uint32) uint64 { return uint64(i)<<24 | benchStart }

func buildMTTTable() {
	benchTable.m, benchTable.mttReqs = buildMTTKeys(benchMTTKeys)
}

// buildMTTKeys makes a model of that many MTT keys of four 4 KB pages
// each, and random 64..4096-byte LOCAL_READ requests to random keys of it.
func buildMTTKeys(keys uint32) (*ref.Model, []ref.Request) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := ref.New(ref.DefaultConfig())
	m.AddQP(scenario.QP{QPN: qpA, PD: pdA})
	k := mttKey(0, 0, 0, benchMTTLen, 12, 0, 0, 0, 0)
	for i := uint32(0); i < keys; i++ {
		k.Index, k.MKC.Variant, k.MKC.StartAddr = i, uint8(i), benchMTTStart(i)
		for j := range k.MTT {
			k.MTT[j].PTag = rng.Uint64() &^ 0xfff
		}
		if _, r := m.Create(k); r != nil {
			panic(r.Reason)
		}
	}
	reqs := make([]ref.Request, benchReqs)
	for i := range reqs {
		idx := rng.Uint32N(keys)
		n := 64 + rng.Uint64N(4096-64+1)
		reqs[i] = ref.Request{QPN: qpA, Key: prm.MakeKey(idx, uint8(idx)), Type: prm.LocalRead, Len: uint32(n),
			Addr: benchMTTStart(idx) + rng.Uint64N(benchMTTLen-n+1)}
	}
	return m, reqs
}

func buildKLMTable() {
	benchTable.mttOnce.Do(buildMTTTable)
	rng := rand.New(rand.NewPCG(3, 4))
	m := benchTable.m
	for i := uint32(0); i < benchKLMKeys; i++ {
		var ents []prm.KLMEntry
		total := uint64(0)
		for j := 0; j < 4; j++ {
			tgt := rng.Uint32N(benchMTTKeys)
			bc := 2048 + rng.Uint64N(2048+1)
			off := rng.Uint64N(benchMTTLen - bc + 1)
			ents = append(ents, prm.KLMEntry{ByteCount: uint32(bc), MKey: prm.MakeKey(tgt, uint8(tgt)), Address: benchMTTStart(tgt) + off})
			total += bc
		}
		if _, r := m.Create(klmKey(benchMTTKeys+i, 7, uint64(i)<<20, total, ents...)); r != nil {
			panic(r.Reason)
		}
	}
	reqs := make([]ref.Request, benchReqs)
	for i := range reqs {
		idx := rng.Uint32N(benchKLMKeys)
		q, _ := m.Query(benchMTTKeys + idx)
		n := 64 + rng.Uint64N(4096-64+1)
		reqs[i] = ref.Request{QPN: qpA, Key: prm.MakeKey(benchMTTKeys+idx, 7), Type: prm.LocalRead, Len: uint32(n),
			Addr: q.MKC.StartAddr + rng.Uint64N(q.MKC.Len-n+1)}
	}
	benchTable.klmReqs = reqs
}

func benchTranslate(b *testing.B, m *ref.Model, reqs []ref.Request) {
	buf := make([]prm.Segment, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := m.Translate(reqs[i&(benchReqs-1)], buf)
		if out.Status != prm.OK {
			b.Fatalf("request %+v: %s", reqs[i&(benchReqs-1)], showOutcome(out))
		}
		buf = out.Segments
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "translations/s")
}

// BenchmarkTranslateMTT1M: random 64..4096-byte LOCAL_READ accesses to
// random keys of a table of one million MTT keys.
func BenchmarkTranslateMTT1M(b *testing.B) {
	benchTable.mttOnce.Do(buildMTTTable)
	benchTranslate(b, benchTable.m, benchTable.mttReqs)
}

// BenchmarkTranslateMTT1K: the same accesses to a table of a thousand MTT
// keys, which fits in the caches: the cost of the model's own work.
func BenchmarkTranslateMTT1K(b *testing.B) {
	bench1K.once.Do(func() { bench1K.m, bench1K.reqs = buildMTTKeys(bench1KKeys) })
	benchTranslate(b, bench1K.m, bench1K.reqs)
}

// BenchmarkTranslateKLM: the same through 64 K KLM keys of four entries
// each over the MTT table (two levels).
func BenchmarkTranslateKLM(b *testing.B) {
	benchTable.klmOnce.Do(buildKLMTable)
	benchTranslate(b, benchTable.m, benchTable.klmReqs)
}

// BenchmarkTranslateMTT1MBatch: BenchmarkTranslateMTT1M's requests in
// batches of 32, each batch's reads started ahead (Model.Prefetch).
func BenchmarkTranslateMTT1MBatch(b *testing.B) {
	benchTable.mttOnce.Do(buildMTTTable)
	m, reqs := benchTable.m, benchTable.mttReqs
	buf := make([]prm.Segment, 0, 16)
	const batch = 32
	var sink uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		lo := i & (benchReqs - 1)
		hi := min(lo+batch, benchReqs, lo+b.N-i)
		sink += m.Prefetch(reqs[lo:hi])
		for k := lo; k < hi; k++ {
			out := m.Translate(reqs[k], buf)
			if out.Status != prm.OK {
				b.Fatalf("request %+v: %s", reqs[k], showOutcome(out))
			}
			buf = out.Segments
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "translations/s")
	_ = sink
}

// TestPrefetchChangesNothing: on a table large enough for Prefetch to
// read ahead, random requests (valid, of absent keys, out of range, with
// page indexes past 2^64) translate the same after it as before, and Run,
// which reads ahead through runs of accesses up to each command, gives
// the results of applying the operations one by one.
func TestPrefetchChangesNothing(t *testing.T) {
	m, reqs := buildMTTKeys(1 << 17)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range reqs {
		switch rng.IntN(4) {
		case 0:
			reqs[i].Key = prm.MakeKey(1<<17+rng.Uint32N(1000), 0)
		case 1:
			reqs[i].Addr = rng.Uint64()
		}
	}
	want := make([]string, 4096)
	for i := range want {
		want[i] = showOutcome(m.Translate(reqs[i], nil))
	}
	for lo := 0; lo < len(want); lo += ref.PrefetchBatch {
		m.Prefetch(reqs[lo : lo+ref.PrefetchBatch])
		for i := lo; i < lo+ref.PrefetchBatch; i++ {
			if got := showOutcome(m.Translate(reqs[i], nil)); got != want[i] {
				t.Fatalf("request %d %+v: %s after Prefetch, %s before", i, reqs[i], got, want[i])
			}
		}
	}
}
