package cover

import (
	"fmt"
	"sync"

	"mkeysim/prm"
)

// Models says which models collect a point.
type Models uint8

// The models.
const (
	Golden  Models = 1 << iota // ref: the golden untimed model
	Clocked                    // rtl: the clocked model
	Both    = Golden | Clocked
)

// Names lists the models of m by their report names (golden, clocked).
func (m Models) Names() []string {
	var out []string
	if m&Golden != 0 {
		out = append(out, "golden")
	}
	if m&Clocked != 0 {
		out = append(out, "clocked")
	}
	return out
}

// Point is one coverage point.
type Point struct {
	ID   ID
	Name string
	// Desc is the event, in one line.
	Desc   string
	Models Models
	// Required says the coverage suite (tb's TestCoverage) must reach the
	// point in every model that collects it. Why says, for a point that
	// is not required, why the suite does not reach it.
	Required bool
	Why      string
	// Counter, less Minus, is the clocked model's counter a derived
	// point is reached by (full names, as docs/counters.md): the counter
	// declares the point (sim.Counter.Cover, Collector.AddCounters); ""
	// for a point the models hit themselves.
	Counter, Minus string
}

// def is a fixed point's declaration: required unless why says otherwise.
type def struct {
	name, desc string
	models     Models
	why        string
}

const whyNoIndex = "needs every one of the 2^24 indexes created, more objects than a test can hold"

var fixed = [numFixed]def{
	LengthZero: {name: "length.zero", desc: "an access of length 0: OK with no segments, nothing checked", models: Both},
	LengthMax:  {name: "length.max", desc: "an access of 2^32-1 bytes, the longest a request carries, translated", models: Both},

	RangeStart:     {name: "range.start", desc: "a piece that passed the range check starts exactly at start_addr", models: Both},
	RangeEnd:       {name: "range.end", desc: "a piece that passed the range check ends exactly at start_addr+len: the range's last byte is its last", models: Both},
	RangeLength64:  {name: "range.length64", desc: "a piece passed the range check of a length64 key (only V+L <= 2^64 is checked)", models: Both},
	RangeBelow:     {name: "range.fail_below_start", desc: "OUT_OF_RANGE: the piece starts below start_addr", models: Both},
	RangePastEnd:   {name: "range.fail_past_end", desc: "OUT_OF_RANGE: the piece ends past start_addr+len", models: Both},
	RangePast2to64: {name: "range.fail_past_2^64", desc: "OUT_OF_RANGE: the piece ends past 2^64 (V+L computed exactly, not wrapped)", models: Both},

	WrapEnd:       {name: "wrap.end_at_2^64", desc: "a piece that passed the range check ends exactly at 2^64", models: Both},
	WrapOffset:    {name: "wrap.offset", desc: "an MTT, KLM or Fixed Buffer Size piece below its length64 key's start_addr passed: d = V - start_addr wraps modulo 2^64", models: Both},
	WrapPageIndex: {name: "wrap.page_index", desc: "an MTT page position u = (start_addr mod P) + d + t reached 2^64 (exact, not wrapped): TRANSLATION_RANGE", models: Both},
	WrapLowerAddr: {name: "wrap.lower_addr", desc: "a KLM or Fixed Buffer Size entry gave a lower address address[j] + offset past 2^64, taken modulo 2^64", models: Both},

	MTTStartAligned: {name: "mtt.start_at_page", desc: "an MTT piece reached its first page and starts at that page's first byte", models: Both},
	MTTStartInside:  {name: "mtt.start_inside_page", desc: "an MTT piece reached its first page and starts inside it (o != 0)", models: Both},
	MTTPageCross:    {name: "mtt.page_cross", desc: "an MTT piece split over two or more pages: its first page does not hold all of it", models: Both},

	KLMStartAligned: {name: "klm.start_at_entry", desc: "a variable KLM piece found its first entry and starts at that entry's first byte (d = T[j])", models: Both},
	KLMStartInside:  {name: "klm.start_inside_entry", desc: "a variable KLM piece found its first entry and starts inside it (d > T[j])", models: Both},
	KLMEntryCross:   {name: "klm.entry_cross", desc: "a variable KLM piece split over two or more entries", models: Both},
	KLMZeroEntry:    {name: "klm.zero_entry", desc: "a variable KLM search stepped over an entry of byte_count 0", models: Both},

	FBSStartAligned: {name: "fbs.start_at_entry", desc: "a Fixed Buffer Size piece starts at the first byte of its entry (d mod 2^log_entity_size = 0)", models: Both},
	FBSStartInside:  {name: "fbs.start_inside_entry", desc: "a Fixed Buffer Size piece starts inside its entry", models: Both},
	FBSEntryCross:   {name: "fbs.entry_cross", desc: "a Fixed Buffer Size piece split over two or more entries", models: Both},

	ResumePass:    {name: "odp.resume_ok.pass", desc: "an access run again by PAGE_FAULT_RESUME(ok) translated", models: Both},
	ResumeFail:    {name: "odp.resume_ok.fail", desc: "an access run again by PAGE_FAULT_RESUME(ok) failed with a status other than PAGE_FAULT", models: Both},
	ResumeRefault: {name: "odp.resume_ok.refault", desc: "an access run again by PAGE_FAULT_RESUME(ok) faulted again and stays stalled", models: Both},
	ResumeError:   {name: "odp.resume_error", desc: "an access ended by PAGE_FAULT_RESUME(error): PAGE_ACCESS at its fault's level and offset", models: Both},
	ResumeMany:    {name: "odp.resume_many", desc: "a PAGE_FAULT_RESUME that ran again or ended two or more stalled accesses", models: Both},

	InvalAlreadyFree:   {name: "inval.already_free", desc: "a LOCAL_INVALIDATE or SEND_WITH_INVALIDATE of a key already free: OK, it stays free", models: Both},
	UMRList:            {name: "umr.list_written", desc: "a UMR wrote a translation list, padded to 64 bytes", models: Both},
	UMRRegUMRPD:        {name: "umr.reg_umr_other_pd", desc: "a UMR from a REG_UMR QP on an object of another PD: the PD check skipped (translation.md 3.2)", models: Both},
	UMRTranslationMode: {name: "umr.refused.translation_mode", desc: "UMR refused (BAD_PARAM): the context it would write breaks a ma_translation_mode rule (ATS off PA and MTT, CAPI off PA)", models: Both},

	FencePass:               {name: "fence.pass", desc: "a WQE (a local access) whose fence mode lets it overtake the UMR or local invalidate before it on its send queue (prm.MayPass): the golden model allows the old mapping, the clocked model let it enter before the registration took effect", models: Both},
	FenceHeld:               {name: "fence.held", desc: "a WQE of the send queue of the UMR or local invalidate in progress, which WQEs may pass, waited at the input for it to complete: its own fence mode (with the initiator small fence, or STRONG_ORDERING) holds it", models: Clocked},
	FenceUnordered:          {name: "fence.umr_unordered", desc: "a UMR or local invalidate whose fence mode does not order it after the WQEs before it on this device (prm.UMRFenceCap.Orders): it waits for their translations, not their completions", models: Both},
	FenceModeNone:           {name: "fence.mode.none", desc: "a WQE (a local access, UMR or local invalidate) posted with fence mode none (0), its own or the driver's", models: Both},
	FenceModeInitiatorSmall: {name: "fence.mode.initiator_small", desc: "a WQE posted with fence mode initiator small (1): it waits for the UMRs and local invalidates before it on its queue", models: Both},
	FenceModeFence:          {name: "fence.mode.fence", desc: "a WQE posted with fence mode fence (2): it waits for earlier RDMA READs and atomics, not for UMRs", models: Both},
	FenceModeStrongOrdering: {name: "fence.mode.strong_ordering", desc: "a WQE posted with fence mode strong ordering (3): after every earlier WQE, and a UMR so posted holds every later one", models: Both},
	FenceModeSmallAndFence:  {name: "fence.mode.small_and_fence", desc: "a WQE posted with fence mode small and fence (4): the initiator small fence and the fence", models: Both},

	CreateOctwords:            {name: "create.refused.octword_size", desc: "CREATE_MKEY refused: translations_octword_size not a multiple of 4", models: Both},
	CreateCapacity:            {name: "create.refused.capacity", desc: "CREATE_MKEY refused: more entries than the capacity holds", models: Both},
	CreateListType:            {name: "create.refused.list_type", desc: "CREATE_MKEY refused: a list whose type does not match the access mode", models: Both},
	CreateEntitySize:          {name: "create.refused.log_entity_size", desc: "CREATE_MKEY refused: log_entity_size outside 12..31 for MTT or Fixed Buffer Size", models: Both},
	CreateReservedMode:        {name: "create.refused.reserved_mode", desc: "CREATE_MKEY refused: a reserved access mode", models: Both},
	CreateReservedTranslation: {name: "create.refused.reserved_translation_mode", desc: "CREATE_MKEY refused: ma_translation_mode 2, a value the seed does not define", models: Both},
	CreateATSMode:             {name: "create.refused.ats_mode", desc: "CREATE_MKEY refused: ma_translation_mode ATS on an access mode other than PA or MTT", models: Both},
	CreateATSCap:              {name: "create.refused.ats_cap", desc: "CREATE_MKEY refused: ma_translation_mode ATS on a device without hca_cap.ats", models: Both},
	CreateCAPIMode:            {name: "create.refused.capi_mode", desc: "CREATE_MKEY refused: ma_translation_mode CAPI on an access mode other than PA", models: Both},
	CreateCAPIPASID:           {name: "create.refused.capi_pasid", desc: "CREATE_MKEY refused: ma_translation_mode CAPI with a pasid wider than the 20 bits a PCIe PASID prefix carries", models: Both},
	CreateLRClear:             {name: "create.refused.lr_clear", desc: "CREATE_MKEY refused: lr clear on an object that is not free", models: Both},
	CreateIndexTaken:          {name: "create.refused.index_taken", desc: "CREATE_MKEY refused: the index given is already created", models: Both},
	CreateHandle:              {name: "create.refused.handle", desc: "CREATE_MKEY refused: a given mtt_handle below 0x1_0000_0000 or not a multiple of 64", models: Both},
	CreateHandleReach:         {name: "create.refused.handle_reach", desc: "CREATE_MKEY refused: the list would end past 2^48, the reach of mtt_handle", models: Both},
	CreateNoIndex:             {name: "create.refused.no_free_index", desc: "CREATE_MKEY refused: no index given and none left to take", models: Both, why: whyNoIndex},
	CreateNoPages:             {name: "create.refused.no_pages", desc: "CREATE_MKEY refused (NO_RESOURCES): the host refused the pages its ICM needed (host.page_policy = capped, past host.max_pages)", models: Both},
	PagesEvent:                {name: "pages.event", desc: "a Pages Request Event asking pages: a CREATE_MKEY needed more ICM pages than the host had given", models: Clocked},
	PagesEventWait:            {name: "pages.event_wait", desc: "a command waited for the host's answer to a Pages Request Event (host.page_policy on_event or capped)", models: Clocked},
	PagesGiveBack:             {name: "pages.give_back", desc: "a DESTROY_MKEY freed ICM pages no created object uses any more, and the HCA gave them back (a Pages Request Event with num_pages negative)", models: Both},
	PagesKept:                 {name: "pages.kept_shared", desc: "a DESTROY_MKEY left ICM pages backed that another created object still uses (the MKC page of another index, a list page of a neighbouring or overlapping list)", models: Both},
}

// cmdStatuses are the statuses each command can end with (translation.md
// 3.2; a BAD_PARAM for a QP not declared cannot come from a scenario,
// which refuses such an op).
var cmdStatuses = [numCommand][]prm.Status{
	CmdCreateMKey:         {prm.OK, prm.BadParam, prm.NoResources},
	CmdDestroyMKey:        {prm.OK, prm.BadKeyIndex},
	CmdQueryMKey:          {prm.OK, prm.BadKeyIndex},
	CmdUMR:                {prm.OK, prm.BadKeyIndex, prm.UMRCheckFree, prm.PDMismatch, prm.UMRDisabled, prm.QPNMismatch, prm.UMRPDUpdate, prm.BadParam, prm.UMRAlignment, prm.UMRCapacity},
	CmdLocalInvalidate:    {prm.OK, prm.BadKeyIndex, prm.KeyMismatch, prm.PDMismatch, prm.QPNMismatch},
	CmdSendWithInvalidate: {prm.OK, prm.BadKeyIndex, prm.KeyMismatch, prm.PDMismatch, prm.QPNMismatch, prm.RemoteInvalidateDenied},
	CmdPageFaultResume:    {prm.OK, prm.BadParam},
	CmdIOMMUUnmap:         {prm.OK, prm.BadParam},
	CmdQueryPages:         {prm.OK},
	CmdManagePages:        {prm.OK, prm.BadParam, prm.BadResState},
}

// goldenOnly are the statuses and commands that only the golden model
// has yet: the clocked model does not model the IOMMU (issue 36), and
// refuses a scenario that has one.
var (
	goldenOnlyStatus  = map[prm.Status]bool{prm.IOMMUFault: true}
	goldenOnlyCommand = map[Command]bool{CmdIOMMUUnmap: true}
)

func statusModels(st prm.Status) Models {
	if goldenOnlyStatus[st] {
		return Golden
	}
	return Both
}

func commandModels(cmd Command) Models {
	if goldenOnlyCommand[cmd] {
		return Golden
	}
	return Both
}

// statusLevels are the levels at which an access can end with st under
// the depth limit max (translation.md 4): lo..hi, or none.
func statusLevels(st prm.Status, max int) (lo, hi int, ok bool) {
	switch st {
	case prm.IndirectionDepth:
		return max + 1, max + 1, true
	case prm.MisalignedAtomic:
		return 0, 0, true
	case prm.BadKeyIndex, prm.KeyMismatch, prm.MKeyFree, prm.PDMismatch, prm.QPNMismatch, prm.OutOfRange,
		prm.AccessDenied, prm.BadAccessMode, prm.TranslationRange, prm.PageAccess, prm.PageFault,
		prm.IOMMUFault:
		return 0, max, true
	}
	// OK is ok.T; BAD_PARAM (a QP not declared) cannot come from a
	// scenario; the others are command statuses.
	return 0, 0, false
}

var statusWhy = map[prm.Status]string{
	prm.IndirectionDepth: "a piece needed a key one level past the depth limit",
	prm.MisalignedAtomic: "checked at level 0 only",
	prm.TranslationRange: "the page or entry it needs lies past the capacity",
	prm.PageAccess:       "an MTT page lacks the rd_en/wr_en bit, on a key that is not ODP",
	prm.PageFault:        "the same on an ODP key: the access stalls",
	prm.IOMMUFault:       "the IOMMU does not map a byte of a dma segment of that level's key, or maps it without the permission; the golden model only, for now",
}

// Points lists every point under the depth limit maxIndirection
// (klm.max_indirection, 0..64), in report order: results, statuses by
// level, modes by level, ranges, pages and entries, ODP, commands and
// their corners. The points a clocked model's counters declare follow
// them in a report (Collector.AddCounters).
func Points(maxIndirection int) []Point {
	maxIndirection = min(max(maxIndirection, 0), MaxLevels-2)
	var out []Point
	for _, t := range prm.AccessTypes() {
		out = append(out, Point{ID: OKID(t), Name: NameOf(OKID(t)), Models: Both, Required: true,
			Desc: fmt.Sprintf("an access of type %v and nonzero length translated to segments", t)})
	}
	for id := LengthZero; id <= LengthMax; id++ {
		out = append(out, fixedPoint(id))
	}
	for _, st := range prm.Statuses() {
		lo, hi, ok := statusLevels(st, maxIndirection)
		if !ok {
			continue
		}
		for l := lo; l <= hi; l++ {
			desc := fmt.Sprintf("an access ended with %v at level %d", st, l)
			if w := statusWhy[st]; w != "" {
				desc += " (" + w + ")"
			}
			out = append(out, Point{ID: StatusID(st, l), Name: NameOf(StatusID(st, l)), Desc: desc, Models: statusModels(st), Required: true})
		}
	}
	for m := prm.ModePA; m <= prm.ModeMEMIC; m++ {
		for l := 0; l <= maxIndirection; l++ {
			out = append(out, Point{ID: ModeID(m, l), Name: NameOf(ModeID(m, l)), Models: Both, Required: true,
				Desc: fmt.Sprintf("a piece passed every check at level %d on a key of mode %v", l, m)})
		}
	}
	for id := RangeStart; id <= ResumeMany; id++ {
		out = append(out, fixedPoint(id))
	}
	for cmd := CmdCreateMKey; int(cmd) < numCommand; cmd++ {
		for _, st := range cmdStatuses[cmd] {
			out = append(out, Point{ID: CommandID(cmd, st), Name: NameOf(CommandID(cmd, st)), Models: commandModels(cmd), Required: true,
				Desc: fmt.Sprintf("a %v command ended with %v", cmd, st)})
		}
	}
	for id := InvalAlreadyFree; id < numFixed; id++ {
		out = append(out, fixedPoint(id))
	}
	return out
}

func fixedPoint(id ID) Point {
	d := &fixed[id]
	return Point{ID: id, Name: NameOf(id), Desc: d.desc, Models: d.models, Required: d.why == "", Why: d.why}
}

// AllPoints lists the points of every depth limit 0..64 (a status at a
// level is a point under some limits and not others), in the order of
// Points(64) and then the rest.
func AllPoints() []Point {
	var out []Point
	seen := map[ID]bool{}
	for d := MaxLevels - 2; d >= 0; d-- {
		for _, p := range Points(d) {
			if !seen[p.ID] {
				seen[p.ID] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// clockedAnyDepth is the set of the IDs of AllPoints that the clocked
// model collects: the points its units may declare (Covers).
var clockedAnyDepth = sync.OnceValue(func() []bool {
	set := make([]bool, NumIDs)
	for _, p := range AllPoints() {
		set[p.ID] = p.Models&Clocked != 0
	}
	return set
})

// Lookup returns the point named name under the depth limit maxIndirection.
func Lookup(maxIndirection int, name string) (Point, bool) {
	for _, p := range Points(maxIndirection) {
		if p.Name == name {
			return p, true
		}
	}
	return Point{}, false
}

// NameOf is the name of the point id, whatever the depth limit (a family
// names its member by its ID: status.S.Ln, mode.M.Ln, ok.T, cmd.OP.S).
func NameOf(id ID) string {
	switch {
	case id < numFixed && fixed[id].name != "":
		return fixed[id].name
	case id >= okBase && id < statusBase:
		return "ok." + prm.AccessType(id-okBase).String()
	case id >= statusBase && id < modeBase:
		i := id - statusBase
		return fmt.Sprintf("status.%v.L%d", prm.Status(i/MaxLevels), i%MaxLevels)
	case id >= modeBase && id < cmdBase:
		i := id - modeBase
		return fmt.Sprintf("mode.%v.L%d", prm.AccessMode(i/MaxLevels), i%MaxLevels)
	case id >= cmdBase && id < NumIDs:
		i := id - cmdBase
		return fmt.Sprintf("cmd.%v.%v", Command(i/numStatus), prm.Status(i%numStatus))
	}
	return fmt.Sprintf("point %d", id)
}
