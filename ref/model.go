package ref

import (
	"mkeysim/cover"
	"mkeysim/prm"
	"mkeysim/scenario"
)

// Config holds the model's parameters.
type Config struct {
	// MaxIndirection is the deepest KLM level whose key may be looked up
	// (translation.md 4: default 4, so levels 0..4).
	MaxIndirection int
	// ATS is the device's hca_cap.ats (default false): without it,
	// CREATE_MKEY and UMR refuse a context whose ma_translation_mode is
	// ATS (seed 2.2.1).
	ATS bool
	// Coverage, if not nil, counts the coverage points the model reaches
	// (package cover); nil collects nothing and costs a nil check.
	Coverage *cover.Collector
	// Stop, if not nil, abandons a translation when it closes: one
	// access may have 2^32 segments, seconds of work, so the walk looks
	// at Stop every 65,536 segments past the line's window. An abandoned
	// translation's outcome is meaningless; Stopped tells the caller.
	Stop <-chan struct{}
	// (The fields below are read by commands, not by a translation: kept
	// after those a translation reads, so that its offsets stay.)
	// UMRFence is the device's umr_fence capability (hca_cap.umr_fence,
	// default strong): the mode the WQEs without their own fence get
	// (prm.KernelUMRFence), so which may overtake a UMR.
	UMRFence prm.UMRFenceCap
	// Pages is the host's side of the firmware's pages (issue 37); the
	// zero value is the default host (eager).
	Pages PagesConfig
}

// DefaultConfig is the configuration of conformance runs.
func DefaultConfig() Config { return Config{MaxIndirection: 4} }

// HandleBase is where the bump allocator of translation lists starts, and
// the lowest mtt_handle a creator may give.
const HandleBase = 0x1_0000_0000

// Object is a created MKey: its context and the registration's ODP flag.
type Object struct {
	MKC prm.MKC
	ODP bool
}

// Model is the golden model's state: QPs, the MKey table, the ICM holding
// translation lists, and the accesses stalled on page faults.
type Model struct {
	cfg        Config
	qps        keyTable[scenario.QP] // by QPN
	objs       keyTable[Object]      // by MKey index
	lowFree    uint32                // no index below it is free
	nextHandle uint64
	icm        Memory
	io         *iommu // the host IOMMU; nil: DMA addresses are physical
	stalled    []stalled
	// The fences (fence.go): by QPN, whether the last WQE of the queue was
	// a registration; the registration later WQEs may overtake.
	afterReg keyTable[bool]
	pass     passWindow
	pages    pageBook
}

// New returns an empty model.
func New(cfg Config) *Model {
	return &Model{
		cfg:        cfg,
		nextHandle: HandleBase,
	}
}

// Config returns the model's parameters.
func (m *Model) Config() Config { return m.cfg }

// AddQP declares a QP; a later one with the same QPN replaces it.
func (m *Model) AddQP(qp scenario.QP) { m.qps.put(qp.QPN, qp) }

// QP returns a declared QP.
func (m *Model) QP(qpn uint32) (scenario.QP, bool) {
	if qp := m.qps.get(qpn); qp != nil {
		return *qp, true
	}
	return scenario.QP{}, false
}

// Object returns the created object at index, or nil. The object may be
// changed through the pointer until the next CREATE_MKEY or DESTROY_MKEY,
// which may move objects in the table.
func (m *Model) Object(index uint32) *Object { return m.objs.get(index) }

// Objects is the number of created objects.
func (m *Model) Objects() int { return m.objs.len() }

// ICM is the host memory holding the translation lists.
func (m *Model) ICM() *Memory { return &m.icm }

// EachObject calls f for every created object, in no particular order; f
// must not create or destroy objects.
func (m *Model) EachObject(f func(index uint32, o *Object)) { m.objs.each(f) }
