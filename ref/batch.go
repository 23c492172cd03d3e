package ref

import (
	"mkeysim/prm"
	"mkeysim/scenario"
)

// Prefetch reads ahead what translating reqs will read first: each
// request's key slot, then the MTT entry of its first byte. The reads of
// different requests do not depend on each other, so the processor has
// many of them in flight at once; translated afterwards, the requests
// find their contexts and first entries in the cache. With a million keys
// a translation is otherwise two dependent misses to memory, one after
// the other (see BenchmarkTranslateMTT1MBatch). It changes nothing; the
// sum it returns only keeps the reads from being optimised away.
func (m *Model) Prefetch(reqs []Request) uint64 {
	if m.objs.len() < prefetchKeys {
		return 0 // the keys fit in the cache: nothing to gain
	}
	var sum uint64
	for i := range reqs {
		if o := m.objs.get(reqs[i].Key.Index()); o != nil {
			sum += uint64(o.MKC.LogEntitySize)
		}
	}
	for i := range reqs {
		r := &reqs[i]
		o := m.objs.get(r.Key.Index())
		if o == nil || o.MKC.AccessMode != prm.ModeMTT || o.MKC.LogEntitySize < 12 || r.Addr < o.MKC.StartAddr {
			continue
		}
		mkc := &o.MKC
		log := uint(mkc.LogEntitySize)
		idx := (mkc.StartAddr&(1<<log-1) + (r.Addr - mkc.StartAddr)) >> log
		at := mkc.MTTHandle + 8*idx
		if page := m.icm.dir.page(at >> pageShift); page != nil {
			sum += uint64(page[at&(pageSize-1)])
		}
	}
	return sum
}

// PrefetchBatch is how many requests Run starts the reads of at once:
// enough for the memory system's parallelism, few enough that what they
// bring stays in the cache until it is used.
const PrefetchBatch = 32

// prefetchKeys is the number of keys from which Prefetch reads ahead: a
// table of fewer fits in the cache, where reading ahead only adds work.
const prefetchKeys = 1 << 16

// ReadAhead starts the reads of a stream of operations a batch ahead of
// their application: the next accesses, up to a command (which may change
// what they read) and PrefetchBatch at most. The zero value is ready; a
// new stream wants a new one.
type ReadAhead struct {
	ahead int // the operations before it have had their reads started
	batch []Request
}

// Before is called before applying ops[i] to m.
func (r *ReadAhead) Before(m *Model, ops []scenario.Op, i int) {
	if i < r.ahead {
		return
	}
	r.batch = r.batch[:0]
	for r.ahead = i; r.ahead < len(ops) && len(r.batch) < PrefetchBatch && ops[r.ahead].Kind == scenario.OpAccess; r.ahead++ {
		r.batch = append(r.batch, Request(ops[r.ahead].Access))
	}
	r.ahead = max(r.ahead, i+1)
	m.Prefetch(r.batch)
}
