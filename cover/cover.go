package cover

import (
	"fmt"
	"math/bits"
	"slices"

	"mkeysim/prm"
)

// ID is a coverage point's index in a Collector. The fixed points are the
// constants below; a family's IDs come from StatusID, ModeID, OKID and
// CommandID.
type ID uint16

// MaxLevels is how many levels a point can name: 0..65, since
// klm.max_indirection is at most 64 and INDIRECTION_DEPTH arises one level
// past it.
const MaxLevels = 66

// The fixed points (Points gives each its name and description).
const (
	_ ID = iota // 0 is no point

	LengthZero // length.zero
	LengthMax  // length.max

	RangeStart     // range.start
	RangeEnd       // range.end
	RangeLength64  // range.length64
	RangeBelow     // range.fail_below_start
	RangePastEnd   // range.fail_past_end
	RangePast2to64 // range.fail_past_2^64

	WrapEnd       // wrap.end_at_2^64
	WrapOffset    // wrap.offset
	WrapPageIndex // wrap.page_index
	WrapLowerAddr // wrap.lower_addr

	MTTStartAligned // mtt.start_at_page
	MTTStartInside  // mtt.start_inside_page
	MTTPageCross    // mtt.page_cross

	KLMStartAligned // klm.start_at_entry
	KLMStartInside  // klm.start_inside_entry
	KLMEntryCross   // klm.entry_cross
	KLMZeroEntry    // klm.zero_entry

	FBSStartAligned // fbs.start_at_entry
	FBSStartInside  // fbs.start_inside_entry
	FBSEntryCross   // fbs.entry_cross

	ResumePass    // odp.resume_ok.pass
	ResumeFail    // odp.resume_ok.fail
	ResumeRefault // odp.resume_ok.refault
	ResumeError   // odp.resume_error
	ResumeMany    // odp.resume_many

	InvalAlreadyFree   // inval.already_free
	UMRList            // umr.list_written
	UMRRegUMRPD        // umr.reg_umr_other_pd
	UMRTranslationMode // umr.refused.translation_mode

	FencePass      // fence.pass
	FenceHeld      // fence.held
	FenceUnordered // fence.umr_unordered

	// A WQE posted with each fence mode (prm.FenceMode order: FenceModeID).
	FenceModeNone           // fence.mode.none
	FenceModeInitiatorSmall // fence.mode.initiator_small
	FenceModeFence          // fence.mode.fence
	FenceModeStrongOrdering // fence.mode.strong_ordering
	FenceModeSmallAndFence  // fence.mode.small_and_fence

	CreateOctwords            // create.refused.octword_size
	CreateCapacity            // create.refused.capacity
	CreateListType            // create.refused.list_type
	CreateEntitySize          // create.refused.log_entity_size
	CreateReservedMode        // create.refused.reserved_mode
	CreateReservedTranslation // create.refused.reserved_translation_mode
	CreateATSMode             // create.refused.ats_mode
	CreateATSCap              // create.refused.ats_cap
	CreateCAPIMode            // create.refused.capi_mode
	CreateCAPIPASID           // create.refused.capi_pasid
	CreateLRClear             // create.refused.lr_clear
	CreateIndexTaken          // create.refused.index_taken
	CreateHandle              // create.refused.handle
	CreateHandleReach         // create.refused.handle_reach
	CreateNoIndex             // create.refused.no_free_index
	CreateNoPages             // create.refused.no_pages
	PagesEvent                // pages.event
	PagesEventWait            // pages.event_wait
	PagesGiveBack             // pages.give_back
	PagesKept                 // pages.kept_shared

	numFixed
)

// Sizes of the families.
const (
	numStatus  = 24 // prm.Statuses(); init checks it
	numTypes   = 5  // prm.AccessTypes()
	numModes   = 6  // the modes that translate: prm.ModePA..prm.ModeMEMIC
	numCommand = 11 // Command values, 0 (access) unused

	okBase     = numFixed
	statusBase = okBase + numTypes
	modeBase   = statusBase + numStatus*MaxLevels
	cmdBase    = modeBase + numModes*MaxLevels

	// NumIDs is the size of a Collector.
	NumIDs = cmdBase + numCommand*numStatus
)

func init() {
	if len(prm.Statuses()) != numStatus || len(prm.AccessTypes()) != numTypes || prm.AccessMode(numModes-1) != prm.ModeMEMIC {
		panic("cover: prm's statuses, access types or modes changed: update the family sizes")
	}
}

// FenceModeID is the point fence.mode.M: a WQE posted with fence mode m
// (0..4).
func FenceModeID(m prm.FenceMode) ID { return FenceModeNone + ID(m) }

// OKID is the point ok.T: an access of type t translated.
func OKID(t prm.AccessType) ID { return okBase + ID(t) }

// StatusID is the point status.S.Ln.
func StatusID(st prm.Status, level int) ID { return statusBase + ID(st)*MaxLevels + ID(level) }

// ModeID is the point mode.M.Ln.
func ModeID(m prm.AccessMode, level int) ID { return modeBase + ID(m)*MaxLevels + ID(level) }

// Command is a command's kind, numbered as scenario.OpKind (which this
// package cannot import: the units import it and may import only prm
// besides the clocked model's own packages); ref tests that the two agree.
type Command uint8

// The commands.
const (
	CmdCreateMKey Command = iota + 1
	CmdDestroyMKey
	CmdQueryMKey
	CmdUMR
	CmdLocalInvalidate
	CmdSendWithInvalidate
	CmdPageFaultResume
	CmdIOMMUUnmap
	CmdQueryPages
	CmdManagePages
)

var commandNames = [numCommand]string{"", "create_mkey", "destroy_mkey", "query_mkey", "umr", "local_invalidate", "send_with_invalidate", "page_fault_resume", "iommu_unmap", "query_pages", "manage_pages"}

// String is the command's op name in scenario files.
func (c Command) String() string {
	if c > 0 && int(c) < len(commandNames) {
		return commandNames[c]
	}
	return fmt.Sprintf("command_%d", uint8(c))
}

// CommandID is the point cmd.OP.S.
func CommandID(c Command, st prm.Status) ID { return cmdBase + ID(c)*numStatus + ID(st) }

// Collector counts the hits of every point. The nil *Collector collects
// nothing: every method returns at once.
type Collector struct {
	n []uint64
	// derived are the points the clocked model's counters declare
	// (AddCounters), in the order first seen, with their counts.
	derived []Point
	dn      []uint64
}

// New returns an empty collector.
func New() *Collector { return &Collector{n: make([]uint64, NumIDs)} }

// Hit counts one hit of id.
func (c *Collector) Hit(id ID) {
	if c != nil {
		c.n[id]++
	}
}

// Count is the number of hits of id.
func (c *Collector) Count(id ID) uint64 {
	if c == nil || int(id) >= len(c.n) {
		return 0
	}
	return c.n[id]
}

// Add adds every count of o to c.
func (c *Collector) Add(o *Collector) {
	if c == nil || o == nil {
		return
	}
	for i, v := range o.n {
		c.n[i] += v
	}
	for i, p := range o.derived {
		c.addDerived(p, o.dn[i])
	}
}

// addDerived adds n hits of the derived point p.
func (c *Collector) addDerived(p Point, n uint64) {
	for i := range c.derived {
		if c.derived[i].Name == p.Name {
			c.dn[i] += n
			return
		}
	}
	c.derived = append(c.derived, p)
	c.dn = append(c.dn, n)
}

// Derived lists the points derived from counters (AddCounters) with
// their counts, in the order first seen.
func (c *Collector) Derived() ([]Point, []uint64) {
	if c == nil {
		return nil, nil
	}
	return slices.Clone(c.derived), slices.Clone(c.dn)
}

// Result counts an access's result: ok.T for a translation of nonzero
// length, length.zero, length.max for one of 2^32-1 bytes translated, or
// status.S.Ln for a failure. Both models call it once per result line (a
// run again inside PAGE_FAULT_RESUME is a result too).
func (c *Collector) Result(t prm.AccessType, length uint32, st prm.Status, level int) {
	switch {
	case c == nil:
	case st != prm.OK:
		if uint(level) < MaxLevels && int(st) < numStatus {
			c.n[StatusID(st, level)]++
		}
	case length == 0:
		c.n[LengthZero]++
	default:
		if int(t) < numTypes {
			c.n[OKID(t)]++
		}
		if length == ^uint32(0) {
			c.n[LengthMax]++
		}
	}
}

// Passed counts a piece [v, v+l) that passed every check of translation.md
// 4 at level on the key m: mode.M.Ln, and where the piece lies in the
// key's range (range.start, range.end, range.length64, wrap.end_at_2^64,
// wrap.offset).
func (c *Collector) Passed(level int, m *prm.MKC, v, l uint64) {
	if c == nil || uint(level) >= MaxLevels || int(m.AccessMode) >= numModes {
		return
	}
	c.n[ModeID(m.AccessMode, level)]++
	end, carry := bits.Add64(v, l, 0)
	if carry != 0 { // it passed, so it ends exactly at 2^64
		c.n[WrapEnd]++
	}
	if m.Length64 {
		c.n[RangeLength64]++
		if v < m.StartAddr && (m.AccessMode == prm.ModeMTT || m.AccessMode.UsesKLMList()) {
			c.n[WrapOffset]++ // d = v - start_addr wraps
		}
		return
	}
	if v == m.StartAddr {
		c.n[RangeStart]++
	}
	if lim, c2 := bits.Add64(m.StartAddr, m.Len, 0); end == lim && carry == c2 {
		c.n[RangeEnd]++
	}
}

// OutOfRange counts a piece [v, v+l) that failed the range check of key m
// by its cause: it passes 2^64, starts below start_addr, or ends past
// start_addr+len.
func (c *Collector) OutOfRange(m *prm.MKC, v, l uint64) {
	if c == nil {
		return
	}
	end, carry := bits.Add64(v, l, 0)
	switch {
	case carry != 0 && end != 0:
		c.n[RangePast2to64]++
	case v < m.StartAddr:
		c.n[RangeBelow]++
	default:
		c.n[RangePastEnd]++
	}
}

// Walk is the kind of list a piece is cut over.
type Walk uint8

// The walks.
const (
	WalkMTT Walk = iota // pages of an MTT key
	WalkKLM             // entries of a variable KLM key
	WalkFBS             // entries of a Fixed Buffer Size key
)

var firstPart = [3][3]ID{
	WalkMTT: {MTTStartAligned, MTTStartInside, MTTPageCross},
	WalkKLM: {KLMStartAligned, KLMStartInside, KLMEntryCross},
	WalkFBS: {FBSStartAligned, FBSStartInside, FBSEntryCross},
}

// FirstPart counts the first page or entry a piece reached in walk w:
// whether the piece starts at its first byte, and whether the piece goes
// on past it (it is split over two or more).
func (c *Collector) FirstPart(w Walk, atStart, cross bool) {
	if c == nil {
		return
	}
	ids := &firstPart[w]
	if atStart {
		c.n[ids[0]]++
	} else {
		c.n[ids[1]]++
	}
	if cross {
		c.n[ids[2]]++
	}
}

// Resumed counts what PAGE_FAULT_RESUME(ok) did to an access it ran again,
// by the access's new status: translated, failed otherwise, or faulted
// again.
func (c *Collector) Resumed(st prm.Status) {
	switch {
	case c == nil:
	case st == prm.OK:
		c.n[ResumePass]++
	case st == prm.PageFault:
		c.n[ResumeRefault]++
	default:
		c.n[ResumeFail]++
	}
}

// Command counts a command's result status.
func (c *Collector) Command(cmd Command, st prm.Status) {
	if c != nil && cmd > 0 && int(cmd) < numCommand && int(st) < numStatus {
		c.n[CommandID(cmd, st)]++
	}
}

// Reading is one counter of a clocked run as AddCounters takes it: its
// full name, its value, and the point it declares (a unit declares it in
// the counter's tags, rtl/sim.CoverPoint): Point and Minus are full
// names, Why is set for a point the coverage suite need not reach.
type Reading struct {
	Counter string
	Value   uint64
	Point   string
	Desc    string
	Why     string
	Minus   string
}

// AddCounters adds the points that the clocked model's counters declare
// (a cache's hits, misses, evictions ...) from one run's readings: each
// is reached as often as its counter counted, less the figure it names
// as its minus. The point is declared where the counter is, in the
// unit's Stats tags, so a unit's points come with it. AddCounters names
// a minus figure the readings lack.
func (c *Collector) AddCounters(rs []Reading) error {
	if c == nil {
		return nil
	}
	var missing []string
	for _, r := range rs {
		if r.Point == "" {
			continue
		}
		v := r.Value
		if r.Minus != "" {
			k := slices.IndexFunc(rs, func(x Reading) bool { return x.Counter == r.Minus })
			if k < 0 {
				missing = append(missing, r.Minus)
				continue
			}
			v -= min(rs[k].Value, v)
		}
		c.addDerived(Point{Name: r.Point, Desc: r.Desc, Models: Clocked, Required: r.Why == "", Why: r.Why,
			Counter: r.Counter, Minus: r.Minus}, v)
	}
	if len(missing) > 0 {
		return fmt.Errorf("cover: no counter %v", missing)
	}
	return nil
}

// Unit is a part of the clocked model that hits points itself: it says
// which (Covers), the way it declares its counters, and hits them in the
// collector it is given (nil: none).
type Unit interface {
	Covers() []ID
	SetCoverage(c *Collector)
}

// The points each classifier hits, for the Covers of the units that call
// it: the points of any depth limit among those it can hit.

// ResultIDs are the points Result hits.
func ResultIDs() []ID { return pointsIn(okBase, modeBase, LengthZero, LengthMax) }

// PassedIDs are the points Passed hits.
func PassedIDs() []ID {
	return pointsIn(modeBase, cmdBase, WrapEnd, RangeLength64, WrapOffset, RangeStart, RangeEnd)
}

// OutOfRangeIDs are the points OutOfRange hits.
func OutOfRangeIDs() []ID { return []ID{RangePast2to64, RangeBelow, RangePastEnd} }

// FirstPartIDs are the points FirstPart hits for walk w.
func FirstPartIDs(w Walk) []ID { return append([]ID(nil), firstPart[w][:]...) }

// ResumeIDs are the points of PAGE_FAULT_RESUME: Resumed's and
// ResumeError and ResumeMany.
func ResumeIDs() []ID { return []ID{ResumePass, ResumeFail, ResumeRefault, ResumeError, ResumeMany} }

// CreateRefusalIDs are the reasons CREATE_MKEY refuses with BAD_PARAM.
func CreateRefusalIDs() []ID { return pointsIn(CreateOctwords, CreateNoIndex+1) }

// CommandIDs are the points Command hits.
func CommandIDs() []ID { return pointsIn(cmdBase, NumIDs) }

// pointsIn lists the IDs in [lo, hi) that are points of some depth
// limit that the clocked model collects, after extra: the classifiers'
// lists serve the clocked model's units (Covers).
func pointsIn(lo, hi ID, extra ...ID) []ID {
	all := clockedAnyDepth()
	for id := lo; id < hi; id++ {
		if all[id] {
			extra = append(extra, id)
		}
	}
	return extra
}
