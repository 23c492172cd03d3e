package stimulus

import (
	"fmt"
	"math/rand"
	"slices"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
)

// Workload describes a constrained-random scenario.
type Workload struct {
	Seed     int64 `toml:"seed" json:"seed" range:"-2^63..2^63-1" help:"seed of the random workload"`
	Keys     int   `toml:"keys" json:"keys" range:"8..2^20" help:"memory keys created before the first access (mixed modes and page sizes)"` // memory regions and windows created up front
	Accesses int   `toml:"accesses" json:"accesses" range:"0..10_000_000" help:"access operations in the default workload"`                  // access operations
	// Per thousand operations: UMRs, invalidations (local and remote, each
	// followed later by a UMR that re-enables the key), queries.
	UMRPerMille   int `toml:"umr_per_mille" json:"umr_per_mille" range:"0..1000" help:"UMR commands per thousand operations (umr, inval and query together at most 1000)"`
	InvalPerMille int `toml:"inval_per_mille" json:"inval_per_mille" range:"0..1000" help:"local/remote invalidations per thousand operations"`
	// ResumePerMille is the chance per access, while an ODP key may have
	// stalled accesses, of a PAGE_FAULT_RESUME for it.
	ResumePerMille int `toml:"resume_per_mille" json:"resume_per_mille" range:"0..1000" help:"PAGE_FAULT_RESUME commands per thousand accesses while ODP accesses may be stalled"`
	QueryPerMille  int `toml:"query_per_mille" json:"query_per_mille" range:"0..1000" help:"QUERY_MKEY commands per thousand operations"`
	// BadPerMille is the share of accesses made to fail on purpose (wrong
	// variant, PD, range, rights).
	BadPerMille int `toml:"bad_per_mille" json:"bad_per_mille" range:"0..1000" help:"accesses per thousand made to fail on purpose"`
	// Locality: HotPerMille of the accesses go to the first HotKeys keys
	// (a hot working set), the rest to any key.
	HotKeys     int `toml:"hot_keys" json:"hot_keys" range:"0..2^20" help:"size of the hot working set: the first min(hot_keys, keys) keys created"`
	HotPerMille int `toml:"hot_per_mille" json:"hot_per_mille" range:"0..1000" help:"accesses per thousand that go to the hot working set"`

	// The measurement workloads (docs/workloads.md): Kind other than
	// mixed makes MRs MTT keys of MRBytes each and only accesses, every
	// one of which passes.
	Kind string `toml:"kind" json:"kind" range:"mixed, uniform, zipf, sequential, strided or trace" help:"mixed: the constrained-random stress of every mode and command (the parameters above); uniform, zipf, sequential, strided: measurement workloads of accesses only, over mrs MTT keys (the parameters below); trace: the accesses of trace_file over the same keys"`
	MRs  int    `toml:"mrs" json:"mrs" range:"1..2^20" help:"memory regions (MTT keys) of a measurement workload (of each tenant)"`
	// Tenants share the model: each has its own PD, QP and regions.
	Tenants        int    `toml:"tenants" json:"tenants" range:"1..4096" help:"tenants of a measurement workload (uniform, zipf, sequential, strided; the mixed and trace kinds ignore it): tenant t has PD t+1, QP t+1 and mrs regions of its own, and access n is tenant n mod tenants's, from its own stream; the statistics give each PD's hit rates"`
	MRBytes        uint64 `toml:"mr_bytes" json:"mr_bytes" range:"1..2^40" help:"bytes of each memory region"`
	PageBytes      uint64 `toml:"page_bytes" json:"page_bytes" range:"power of two in 4096..2^31" help:"page size of the regions' MTT entries (log_entity_size)"`
	FootprintBytes uint64 `toml:"footprint_bytes" json:"footprint_bytes" range:"0..2^60" help:"bytes the accesses fall in, spread evenly over the regions (each region's first footprint_bytes / mrs); 0: all of every region"`
	AccessBytes    uint32 `toml:"access_bytes" json:"access_bytes" range:"1..2^30" help:"bytes of each access of a measurement workload"`
	AccessType     string `toml:"access_type" json:"access_type" range:"LOCAL_READ, LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE or REMOTE_ATOMIC" help:"access type of a measurement workload"`
	SmallFence     bool   `toml:"small_fence" json:"small_fence" range:"false or true" help:"the measurement workload's regions have small_fence_on_rdma_read_response (MKC 00h bit 16): with the data path on, an RDMA READ response (REMOTE_READ) keeps one read of its QP in flight"`
	// FencePerMille: the mixed workload's WQEs with a fence mode of their
	// own (fence.go).
	FencePerMille int `toml:"fence_per_mille" json:"fence_per_mille" range:"0..1000" help:"WQEs per thousand of the mixed workload (local accesses, UMRs, local invalidates) given a fence mode drawn at random (0..4; the others get the Linux driver's for hca_cap.umr_fence), and, when not 0, the two accesses after each UMR or local invalidate read its key from its QP, so that those whose modes let them overtake it may see the old mapping (sq.overtaken)"`
	// PagesPerMille: the mixed workload's firmware page operations
	// (pages.go).
	PagesPerMille int `toml:"pages_per_mille" json:"pages_per_mille" range:"0..1000" help:"operations per thousand of the mixed workload that are firmware page commands (issue 37): query_pages, manage_pages gives and takes by count or of pages of a small pool (some refused), and CREATE_MKEYs of keys of their own in 16 shared MKC pages, some over overlapping lists (Pages Request Events), their DESTROY_MKEYs (pages given back) and LOCAL_READs through them"`
	// RelaxedOrdering sets the keys' Relaxed Ordering bits (issue 37
	// part 4).
	RelaxedOrdering string `toml:"relaxed_ordering" json:"relaxed_ordering" range:"none, write, read or both" help:"the keys made have relaxed_ordering_write (write: MKC 00h bit 18), relaxed_ordering_read (read: 38h bit 6), both or none: their data TLPs carry the Relaxed Ordering attribute, which lets host memory accept a posted write before earlier ones (host.write_latency_cycles); results never change, only timing. The random stream is the same whatever it is"`
	StrideBytes     uint64 `toml:"stride_bytes" json:"stride_bytes" range:"1..2^40" help:"distance between consecutive accesses of the strided workload, in the footprint taken as one range"`
	// PostAhead is the host front's posting window (Bench.PostAhead).
	PostAhead int `toml:"post_ahead" json:"post_ahead" range:"1..256" help:"operations ahead of the model's input the host front's driver posts WQEs and rings doorbells for (--front host): the send-queue front can fetch no further ahead than this (docs/host.md); at most 256, which the send queues of 1024 basic blocks hold"`
	// InterArrivalCycles is the offered load (Bench.InterArrival).
	InterArrivalCycles uint64 `toml:"inter_arrival_cycles" json:"inter_arrival_cycles" range:"0..2^24" help:"offered load: at least this many cycles between two operations entering the model (0: as fast as it takes them); latencies count from the reorder buffer, not the wait before it"`
	// WarmupAccesses is how many access results the statistics skip.
	WarmupAccesses int     `toml:"warmup_accesses" json:"warmup_accesses" range:"0..10_000_000" help:"access results that leave the model before the statistics start (a warm-up): cycles, counters and latencies count only what follows; high-water marks keep the whole run; 0: the whole run"`
	ZipfS          float64 `toml:"zipf_s" json:"zipf_s" range:"real in 0.01..10" help:"exponent of the zipf workload: the block of rank k is drawn with probability proportional to k^-zipf_s"`
	// TraceFile is the trace kind's file of accesses (tracefile.go).
	TraceFile string `toml:"trace_file" json:"trace_file" range:"any string" help:"the trace kind's accesses: a CSV (qpn,key,addr,len,type) or JSON-lines file over the mrs regions (docs/workloads.md), replayed from its start, wrapping around to make accesses (0: the file once); read only when kind = trace"`

	// The host IOMMU (issue 36, iommu.go): the translation mode of the
	// keys made, iommu_unmap operations, and the leaf size of the
	// mappings of the iommu section a workload carries when IOMMU is set.
	TranslationMode    string `toml:"translation_mode" json:"translation_mode" range:"none, ats, capi or mixed" help:"ma_translation_mode of the keys made (needs iommu.enabled unless none): none; ats: every PA and MTT key ATS (needs hca_cap.ats); capi: every PA key CAPI with a PASID of 1..8 drawn from the seed, refused for the measurement and trace kinds (their regions are MTT keys, and CAPI is for PA keys only); mixed: each PA key none, ATS or CAPI and each MTT key none or ATS at random (needs hca_cap.ats)"`
	IOMMUUnmapPerMille int    `toml:"iommu_unmap_per_mille" json:"iommu_unmap_per_mille" range:"0..1000" help:"iommu_unmap operations per thousand operations (needs iommu.enabled), each of one leaf of iommu_page_bytes that is mapped and was never unmapped, in the requester ID's table or a PASID's; accesses that touch it afterwards end in IOMMU_FAULT; drawn apart from the other operations, which stay as they were"`
	IOMMUPageBytes     uint64 `toml:"iommu_page_bytes" json:"iommu_page_bytes" range:"4096, 2097152 or 1073741824" help:"leaf size of the iommu section's mappings (with iommu.enabled): each maps the DMA ranges of the keys made, rounded out to it, IOVA to IOVA + 2^40 (+ iommu_page_bytes below 1 GiB, so that no leaf is larger), readable and writable"`
	// IOMMU is set by the caller from iommu.enabled: the scenario then
	// carries an iommu section whose mappings cover every DMA address the
	// workload's keys reach (iommu.go), and the mixed kind's DMA
	// addresses lie in the first 2 GiB of IOVA space.
	IOMMU bool `toml:"-" json:"-"`

	trace *traceFile // the trace file as Check read it, shared by copies
}

// The workload kinds.
const (
	KindMixed      = "mixed"
	KindUniform    = "uniform"
	KindZipf       = "zipf"
	KindSequential = "sequential"
	KindStrided    = "strided"
	KindTrace      = "trace" // accesses read from a file (tracefile.go)
)

// MaxMTTEntries bounds the MTT entries a measurement workload's regions
// may need in all (both models hold them: 32 MB each).
const MaxMTTEntries = 1 << 22

// DefaultWorkload is the default run: 1024 keys of mixed modes and page
// sizes and 100k accesses with UMR and invalidation traffic.
func DefaultWorkload() Workload {
	return Workload{Seed: 1, Keys: 1024, Accesses: 100_000, UMRPerMille: 3, InvalPerMille: 2, QueryPerMille: 1, ResumePerMille: 2, BadPerMille: 50,
		HotKeys: 128, HotPerMille: 800,
		Kind: KindMixed, MRs: 64, Tenants: 1, MRBytes: 1 << 20, PageBytes: 4096, AccessBytes: 64, AccessType: "LOCAL_READ", StrideBytes: 4096, ZipfS: 0.99,
		TranslationMode: TranslationNone, IOMMUPageBytes: 4096, RelaxedOrdering: RONone, PostAhead: 64}
}

// The values of workload.relaxed_ordering.
const (
	RONone  = "none"
	ROWrite = "write"
	RORead  = "read"
	ROBoth  = "both"
)

// relaxedOrdering gives m the Relaxed Ordering bits the workload asks
// for (workload.relaxed_ordering), drawing nothing from the random
// stream: the same workload with other bits makes the same keys and
// accesses but for them.
func (g *gen) relaxedOrdering(m *prm.MKC) {
	ro := g.w.RelaxedOrdering
	m.RelaxedOrderingWrite = ro == ROWrite || ro == ROBoth
	m.RelaxedOrderingRead = ro == RORead || ro == ROBoth
}

// Check names the first parameter of a measurement workload that does
// not fit the others (each one's own range is checked apart). For the
// trace kind it reads the trace file, naming its first bad line, and
// keeps what it read in w (copies of w share it, and Generate replays it
// without reading the file again).
func (w *Workload) Check() error {
	if w.Accesses > 0 && w.WarmupAccesses >= w.Accesses {
		return fmt.Errorf("workload.warmup_accesses = %d: want fewer than accesses = %d (nothing would be measured)", w.WarmupAccesses, w.Accesses)
	}
	if err := w.checkTranslationMode(); err != nil {
		return err
	}
	if w.Kind == KindMixed || w.Kind == "" {
		return nil // its IOMMU tables fit by construction (iommu.go)
	}
	pages := (w.MRBytes + w.PageBytes - 1) / w.PageBytes
	if w.Kind == KindTrace {
		if total := pages * uint64(w.MRs); total > MaxMTTEntries {
			return fmt.Errorf("workload.mrs x mr_bytes / page_bytes = %d x %d pages = %d MTT entries: want at most %d (fewer or smaller regions, or larger pages)",
				w.MRs, pages, total, MaxMTTEntries)
		}
		if err := w.checkRegionTables(); err != nil {
			return err
		}
		return w.checkTrace()
	}
	switch total := pages * uint64(w.MRs) * uint64(max(w.Tenants, 1)); {
	case total <= MaxMTTEntries:
	case w.Tenants > 1:
		return fmt.Errorf("workload.tenants x mrs x mr_bytes / page_bytes = %d x %d x %d pages = %d MTT entries: want at most %d (fewer tenants, fewer or smaller regions, or larger pages)",
			w.Tenants, w.MRs, pages, total, MaxMTTEntries)
	default:
		return fmt.Errorf("workload.mrs x mr_bytes / page_bytes = %d x %d pages = %d MTT entries: want at most %d (fewer or smaller regions, or larger pages)",
			w.MRs, pages, total, MaxMTTEntries)
	}
	if total := w.MRBytes * uint64(w.MRs); w.FootprintBytes > total {
		return fmt.Errorf("workload.footprint_bytes = %d: want at most mrs x mr_bytes = %d", w.FootprintBytes, total)
	}
	if per := w.window(); per < uint64(w.AccessBytes) {
		return fmt.Errorf("workload.access_bytes = %d: want at most footprint_bytes / mrs = %d (each region's part of the footprint)", w.AccessBytes, per)
	}
	if t, _ := prm.ParseAccessType(w.AccessType); t == prm.RemoteAtomic && w.AccessBytes != 8 {
		return fmt.Errorf("workload.access_bytes = %d: want 8 for REMOTE_ATOMIC", w.AccessBytes)
	}
	return w.checkRegionTables()
}

// window is the bytes of each region that the accesses fall in.
func (w *Workload) window() uint64 {
	if w.FootprintBytes == 0 {
		return w.MRBytes
	}
	return w.FootprintBytes / uint64(w.MRs)
}

// key is what the generator remembers of a key it made.
type genKey struct {
	index   uint32
	variant uint8
	mkc     prm.MKC
	mtt     int // entries, MTT keys
	odp     bool
	qpn     uint32 // QP whose PD matches (or the bound QP of a window)
	freed   bool
}

// Generate builds a scenario from the workload: its keys and all its
// operations. A trace workload should have passed Check (as
// config.Validate does): one that does not has no operations
// (NewGenerator's Err says why).
func Generate(w Workload) *scenario.Scenario {
	g := NewGenerator(w)
	sc := g.Setup()
	sc.Ops = g.Next(g.g.accesses)
	return sc
}

// Generator makes the workload's scenario in pieces: the QPs and keys at
// once, the operations a chunk at a time (Next, or Feed as a run takes
// them), so that a run of any length holds a few chunks of operations
// (mkeysim run, a sweep point, the soak of ten million operations).
// Generate(w) is Setup with every operation of Next.
type Generator struct {
	g   gen
	err error // a trace workload that does not pass Check
}

// NewGenerator makes the workload's keys. A trace workload that does not
// pass Check makes no keys and no operations, and Err says why.
func NewGenerator(w Workload) *Generator {
	g := &Generator{g: gen{r: rand.New(rand.NewSource(w.Seed)), w: w, accesses: w.Accesses}}
	g.g.sc = &scenario.Scenario{QPs: genQPs}
	g.g.startIOMMU()
	g.g.startFences()
	g.g.startPages()
	if w.Kind == KindTrace {
		if g.err = rtl.CheckRanges(&w, "workload."); g.err == nil {
			g.err = w.Check() // reads the file only if no copy of w has
		}
		if g.err != nil {
			g.g.accesses = 0
			return g
		}
		g.g.w, g.g.trace, g.g.accesses = w, w.trace, w.traceAccesses()
	}
	if w.Kind != KindMixed && w.Kind != "" {
		g.g.makeRegions()
	} else {
		for i := 0; i < max(w.Keys, 8); i++ {
			g.g.makeKey(uint32(i + 1))
		}
	}
	g.g.finishIOMMU()
	return g
}

// Err is why a trace workload makes nothing (its trace file is missing
// or bad), nil when it makes its operations.
func (g *Generator) Err() error { return g.err }

// Accesses is how many accesses the workload makes in all.
func (g *Generator) Accesses() int { return g.g.accesses }

// Accesses counts the accesses of ops.
func Accesses(ops []scenario.Op) int {
	n := 0
	for i := range ops {
		if ops[i].Kind == scenario.OpAccess {
			n++
		}
	}
	return n
}

// Setup is the scenario's QPs and initial MKeys, without operations.
func (g *Generator) Setup() *scenario.Scenario {
	return &scenario.Scenario{QPs: g.g.sc.QPs, MKeys: g.g.sc.MKeys, IOMMU: g.g.sc.IOMMU}
}

// Next returns the operations that hold the next n accesses of the
// workload (and the commands among them), at most the workload's
// accesses in all; nil when they are done.
func (g *Generator) Next(n int) []scenario.Op { return g.nextInto(nil, n) }

// nextInto is Next making the operations in buf's array when it is large
// enough (buf is empty: a feed's forgotten chunk, or nil).
func (g *Generator) nextInto(buf []scenario.Op, n int) []scenario.Op {
	n = min(n, g.g.accesses-g.g.made)
	if n <= 0 {
		return nil
	}
	if cap(buf) < n+n/64 {
		buf = make([]scenario.Op, 0, n+n/64)
	}
	g.g.sc.Ops = buf[:0]
	g.g.ops(n)
	g.g.made += n
	return g.g.sc.Ops
}

type gen struct {
	r       *rand.Rand
	w       Workload
	sc      *scenario.Scenario
	keys    []*genKey
	mtts    []*genKey // MTT keys, for KLM entries and windows
	klms    []*genKey // variable KLM keys, for nested KLM entries
	stalled []prm.Key // ODP keys that may have stalled accesses, in order
	made    int       // accesses made
	// accesses is how many to make: w.Accesses, or the trace's length.
	accesses int
	trace    *traceFile // the trace kind's accesses, replayed in order
	meas     *measure   // the measurement workload's state, nil for mixed
	// tr draws the keys' translation modes and PASIDs (nil for none), io
	// is the IOMMU's mappings and unmaps (nil without IOMMU): each apart
	// from r, so that they change nothing else of the workload.
	tr *rand.Rand
	io *genIOMMU
	// fr draws the fences (fence.go; nil without them); follow is the key
	// of the last registration, which followN more accesses read.
	fr      *rand.Rand
	follow  *genKey
	followN int
	pg      *genPages // the firmware pages' operations (pages.go; nil without them)
}

var genQPs = []scenario.QP{
	{QPN: 1, PD: 1}, {QPN: 2, PD: 1, RegUMR: true}, {QPN: 3, PD: 2}, {QPN: 4, PD: 2},
}

// ops appends operations to g.sc.Ops until n more accesses are made.
func (g *gen) ops(n int) {
	if g.trace != nil {
		for i := 0; i < n; {
			if g.unmap() {
				continue
			}
			a := g.trace.access((g.made + i) % len(g.trace.accesses))
			g.sc.Ops = append(g.sc.Ops, scenario.Op{Kind: scenario.OpAccess, Access: a})
			i++
		}
		return
	}
	if g.meas != nil {
		for i := 0; i < n; {
			if g.unmap() {
				continue
			}
			g.sc.Ops = append(g.sc.Ops, scenario.Op{Kind: scenario.OpAccess, Access: g.meas.next(g.r)})
			i++
		}
		return
	}
	for a := 0; a < n; {
		if g.unmap() || g.pages() {
			continue
		}
		x := g.r.Intn(1000)
		switch {
		case x < g.w.UMRPerMille:
			g.umr()
		case x < g.w.UMRPerMille+g.w.InvalPerMille:
			g.invalidate()
		case x < g.w.UMRPerMille+g.w.InvalPerMille+g.w.QueryPerMille:
			k := g.keys[g.r.Intn(len(g.keys))]
			g.sc.Ops = append(g.sc.Ops, scenario.Op{Kind: scenario.OpQueryMKey, Index: k.index})
		default:
			op, k := g.access()
			if g.fr != nil {
				k = g.retarget(&op, k)
				g.fence(&op)
			}
			g.sc.Ops = append(g.sc.Ops, op)
			a++
			if k != nil && k.odp && op.Access.Len > 0 && !slices.Contains(g.stalled, op.Access.Key) {
				g.stalled = append(g.stalled, op.Access.Key)
			}
			if len(g.stalled) > 0 && g.r.Intn(1000) < g.w.ResumePerMille {
				g.sc.Ops = append(g.sc.Ops, scenario.Op{Kind: scenario.OpPageFaultResume, Key: g.stalled[0], OK: g.r.Intn(4) != 0})
				g.stalled = g.stalled[1:]
			}
		}
	}
}

var pageLogs = []uint8{12, 12, 12, 13, 16, 21}

func (g *gen) makeKey(index uint32) {
	r := g.r
	k := &genKey{index: index, variant: uint8(r.Intn(256))}
	qp := genQPs[r.Intn(len(genQPs))]
	k.qpn = qp.QPN
	m := prm.MKC{QPN: prm.QPNNone, Variant: k.variant, PD: qp.PD, UMREn: true, LR: true, LW: true,
		RR: r.Intn(8) != 0, RW: r.Intn(8) != 0, A: r.Intn(4) != 0, EnRinval: r.Intn(2) == 0}
	spec := scenario.MKey{Index: index, HasIndex: true, PgAccess: true}
	x := r.Intn(100)
	switch {
	case x < 55 || len(g.mtts) < 4:
		m.AccessMode = prm.ModeMTT
		m.LogEntitySize = pageLogs[r.Intn(len(pageLogs))]
		p := uint64(1) << m.LogEntitySize
		m.StartAddr = uint64(r.Int63n(1<<46)) &^ 7
		if r.Intn(4) == 0 {
			m.StartAddr &^= p - 1
		}
		pages := 1 + r.Intn(16)
		whole := uint64(pages)*p - m.StartAddr%p
		m.Len = whole - uint64(r.Int63n(int64(whole/2)))
		need := int((m.StartAddr%p + m.Len + p - 1) / p)
		k.odp = r.Intn(16) == 0
		for i := 0; i < need; i++ {
			e := prm.MTTEntry{PTag: g.dmaAddr(uint64(r.Int63n(1<<50)) &^ (p - 1)), RdEn: true, WrEn: true}
			if k.odp && r.Intn(3) == 0 {
				e.RdEn, e.WrEn = false, false
			} else if r.Intn(40) == 0 {
				e.WrEn = false
			}
			spec.MTT = append(spec.MTT, e)
		}
		k.mtt = need
		spec.ODP = k.odp
		if r.Intn(20) == 0 {
			m.Len += 2 * p // past the list: the last pages are TRANSLATION_RANGE
		}
		g.mtts = append(g.mtts, k)
	case x < 65:
		m.AccessMode = prm.ModePA
		m.StartAddr, m.Len = g.dmaAddr(uint64(r.Int63n(1<<48))), uint64(1+r.Intn(1<<20))
	case x < 70:
		m.AccessMode = prm.ModeSWICM
		m.StartAddr, m.Len = uint64(r.Int63n(1<<48)), uint64(1+r.Intn(1<<20))
	case x < 73:
		m.AccessMode = prm.ModeMEMIC
		m.StartAddr, m.Len = uint64(r.Int63n(1<<20)), uint64(1+r.Intn(1<<16))
	case x < 88:
		// Variable KLM over pieces of MTT keys of the same PD.
		m.AccessMode = prm.ModeKLM
		m.StartAddr = uint64(r.Int63n(1 << 40))
		for i, n := 0, 1+r.Intn(6); i < n; i++ {
			t := g.mtts[r.Intn(len(g.mtts))]
			if len(g.klms) > 0 && r.Intn(4) == 0 {
				t = g.klms[r.Intn(len(g.klms))] // KLM over KLM: recursion two levels and more
			}
			if t.mkc.Len == 0 {
				continue
			}
			bc := uint64(1 + r.Intn(int(min(t.mkc.Len, 1<<16))))
			off := uint64(r.Int63n(int64(t.mkc.Len - bc + 1)))
			if r.Intn(10) == 0 {
				bc = 0
			}
			spec.KLM = append(spec.KLM, prm.KLMEntry{ByteCount: uint32(bc), MKey: prm.MakeKey(t.index, t.variant), Address: t.mkc.StartAddr + off})
			m.Len += bc
		}
		if r.Intn(30) == 0 {
			// A KLM cycle: an entry naming the key itself ends in
			// INDIRECTION_DEPTH, never a hang.
			spec.KLM = append(spec.KLM, prm.KLMEntry{ByteCount: 4096, MKey: prm.MakeKey(index, k.variant), Address: m.StartAddr + m.Len})
			m.Len += 4096
		}
	case x < 94:
		m.AccessMode = prm.ModeFixedBufferSize
		m.LogEntitySize = 12
		m.StartAddr = uint64(r.Int63n(1<<40)) &^ 4095
		for i, n := 0, 1+r.Intn(6); i < n; i++ {
			t := g.mtts[r.Intn(len(g.mtts))]
			off := uint64(r.Int63n(int64(t.mkc.Len)))
			spec.KLM = append(spec.KLM, prm.KLMEntry{MKey: prm.MakeKey(t.index, t.variant), Address: t.mkc.StartAddr + off})
			m.Len += 4096
		}
	default:
		// A type 2 memory window over part of an MTT key, bound to a QP.
		t := g.mtts[r.Intn(len(g.mtts))]
		m.AccessMode = prm.ModeKLM
		off := uint64(r.Int63n(int64(t.mkc.Len)))
		m.StartAddr = t.mkc.StartAddr + off
		m.Len = t.mkc.Len - off
		m.PD = t.mkc.PD
		for _, q := range genQPs {
			if q.PD == m.PD && r.Intn(2) == 0 {
				m.QPN, k.qpn = q.QPN, q.QPN
				break
			}
		}
		spec.KLM = []prm.KLMEntry{{ByteCount: uint32(min(m.Len, 1<<31)), MKey: prm.MakeKey(t.index, t.variant), Address: m.StartAddr}}
	}
	if m.PD != qp.PD && m.QPN == prm.QPNNone {
		for _, q := range genQPs {
			if q.PD == m.PD {
				k.qpn = q.QPN
			}
		}
	}
	if m.AccessMode == prm.ModeKLM && m.QPN == prm.QPNNone {
		g.klms = append(g.klms, k)
	}
	m.TranslationsOctwordSize = scenario.OctwordsFor(len(spec.MTT), len(spec.KLM))
	if r.Intn(8) == 0 {
		m.TranslationsOctwordSize += 4 // room for UMRs past the end
	}
	g.translationMode(&m)
	g.relaxedOrdering(&m)
	g.mapDMA(&m, spec.MTT)
	spec.MKC = m
	k.mkc = m
	g.keys = append(g.keys, k)
	g.sc.MKeys = append(g.sc.MKeys, spec)
}

var accessTypes = []prm.AccessType{prm.LocalRead, prm.LocalRead, prm.LocalWrite, prm.RemoteRead, prm.RemoteWrite, prm.RemoteAtomic}
var lengths = []uint32{1, 8, 64, 100, 512, 4096, 9000}

// access makes an access, mostly one that should pass.
func (g *gen) access() (scenario.Op, *genKey) {
	r := g.r
	k := g.keys[r.Intn(len(g.keys))]
	if hot := min(g.w.HotKeys, len(g.keys)); hot > 0 && r.Intn(1000) < g.w.HotPerMille {
		k = g.keys[r.Intn(hot)]
	}
	a := scenario.Access{QPN: k.qpn, Key: prm.MakeKey(k.index, k.variant), Type: accessTypes[r.Intn(len(accessTypes))]}
	a.Len = lengths[r.Intn(len(lengths))]
	if r.Intn(200) == 0 {
		a.Len = 0
	}
	if a.Type == prm.RemoteAtomic {
		a.Len = 8
	}
	span := k.mkc.Len
	if uint64(a.Len) > span {
		a.Len = uint32(span)
	}
	a.Addr = k.mkc.StartAddr + uint64(r.Int63n(int64(span-uint64(a.Len)+1)))
	if a.Type == prm.RemoteAtomic {
		a.Addr &^= 7
	}
	if r.Intn(1000) < g.w.BadPerMille {
		switch r.Intn(6) {
		case 5:
			a.Type, a.Len = prm.RemoteAtomic, 8
			a.Addr |= 4 // MISALIGNED_ATOMIC when everything else passes
		case 0:
			a.Key ^= 1
		case 1:
			a.QPN = genQPs[r.Intn(len(genQPs))].QPN
		case 2:
			a.Addr += k.mkc.Len
		case 3:
			a.Key = prm.MakeKey(uint32(len(g.keys)+1+r.Intn(100)), 0)
		case 4:
			a.Addr = k.mkc.StartAddr - 1
		}
	}
	return scenario.Op{Kind: scenario.OpAccess, Access: a}, k
}

// umr rewrites part of an MTT key's list, or its rights, or re-enables an
// invalidated key.
func (g *gen) umr() {
	r := g.r
	k := g.keys[r.Intn(len(g.keys))]
	u := scenario.UMR{QPN: k.qpn, Key: prm.MakeKey(k.index, k.variant)}
	switch {
	case k.freed:
		u.Mask, u.Image.Free = prm.MaskFree, false
		u.CheckFree = prm.CheckFreeIfFree
		k.freed = false
	case k.mkc.AccessMode == prm.ModeMTT && k.mtt > 0:
		blocks := (k.mtt + 7) / 8
		b := r.Intn(blocks)
		u.Offset = uint64(b * 4)
		for i := 0; i < 8 && b*8+i < k.mtt; i++ {
			u.MTT = append(u.MTT, prm.MTTEntry{PTag: g.umrPage(uint64(r.Int63n(1<<50)), k.mkc.LogEntitySize), RdEn: true, WrEn: r.Intn(10) != 0})
		}
	default:
		u.Mask = prm.MaskRR | prm.MaskRW
		u.Image.RR, u.Image.RW = r.Intn(2) == 0, r.Intn(2) == 0
		k.mkc.RR, k.mkc.RW = u.Image.RR, u.Image.RW
	}
	op := scenario.Op{Kind: scenario.OpUMR, UMR: &u}
	g.fence(&op)
	g.sc.Ops = append(g.sc.Ops, op)
	g.registered(k)
}

// invalidate frees a key, locally or remotely.
func (g *gen) invalidate() {
	r := g.r
	k := g.keys[r.Intn(len(g.keys))]
	kind := scenario.OpLocalInvalidate
	if r.Intn(2) == 0 {
		kind = scenario.OpSendWithInvalidate
	}
	op := scenario.Op{Kind: kind, QPN: k.qpn, Key: prm.MakeKey(k.index, k.variant)}
	g.fence(&op)
	g.sc.Ops = append(g.sc.Ops, op)
	k.freed = true
	if kind == scenario.OpLocalInvalidate {
		g.registered(k)
	}
}
