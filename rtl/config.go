package rtl

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"mkeysim/pagetable"
	"mkeysim/prm"
	"mkeysim/rtl/atc"
	"mkeysim/rtl/dma"
	"mkeysim/rtl/iommu"
	"mkeysim/rtl/klmwalk"
	"mkeysim/rtl/mptcache"
	"mkeysim/rtl/mttwalk"
	"mkeysim/rtl/pcie"
	"mkeysim/rtl/sq"
	"mkeysim/scenario"
)

// Config is every parameter of the clocked model. Every leaf has a `toml`
// key, a `help` text and a `range` (see ParseRange): the one declaration
// of what values it may take, which Validate enforces and which the flags'
// help and the commented defaults file show.
type Config struct {
	ClockPS    uint64 `toml:"clock_ps" json:"clock_ps" range:"1..1000000" help:"clock period in picoseconds (4000 = 250 MHz): the time figures (throughput_maps, latency_ns) and the VCD timescale"`                                                     // clock period in picoseconds
	ROBEntries int    `toml:"rob_entries" json:"rob_entries" range:"1..128" help:"reorder buffer entries: requests in flight at once (each may hold a result's window of 65,536 segments, so 128 entries bound the model's memory to well under 1 GiB)"` // requests in flight
	FIFODepth  int    `toml:"fifo_depth" json:"fifo_depth" range:"1..4096" help:"depth of the channels between units"`                                                                                                                                   // depth of the channels between units
	StageLat   int    `toml:"stage_latency" json:"stage_latency" range:"1..4096" help:"latency in cycles of the channels between pipeline stages"`
	// OverlapInvalidate lets invalidations run while earlier accesses are
	// still in flight, as hardware does; scenario order (the default)
	// drains them first so results match the golden model line for line.
	OverlapInvalidate bool `toml:"overlap_invalidate" json:"overlap_invalidate" range:"false or true" help:"run LOCAL_INVALIDATE, SEND_WITH_INVALIDATE and iommu_unmap without draining earlier accesses (results may then leave out of order)"`
	CmdLatency        int  `toml:"cmd_latency" json:"cmd_latency" range:"0..2^24" help:"firmware cycles to execute one command before cache invalidation"` // firmware cycles per command

	MKCCache mptcache.Config `toml:"mkc_cache" json:"mkc_cache"`
	MTT      mttwalk.Config  `toml:"mtt" json:"mtt"`
	KLM      klmwalk.Config  `toml:"klm" json:"klm"`
	PCIe     pcie.Config     `toml:"pcie" json:"pcie"`
	Data     dma.Config      `toml:"data" json:"data"`
	// HCACap is what the device says it can do (QUERY_HCA_CAP): the
	// firmware's CREATE_MKEY and UMR refuse what it lacks.
	HCACap HCACap `toml:"hca_cap" json:"hca_cap"`
	// IOMMU is the host's IOMMU (issue 36), off by default.
	IOMMU iommu.Config `toml:"iommu" json:"iommu"`
	// ATC is the device's ATS translation cache (issue 36): a unit of
	// the top when hca_cap.ats, data.enabled and iommu.enabled are all
	// on (without the host's translation agent the device may not use
	// ATS); its parameters are checked whatever they are.
	ATC atc.Config `toml:"atc" json:"atc"`
	// SQ is the host front's send-queue fetch (issue 37 part 5).
	SQ sq.Config `toml:"sq" json:"sq"`
	// Host is the host's side (the [host] table): host memory's
	// acceptance of the data path's posted writes and the root complex's
	// posted-write buffer (issue 37 part 4: relaxed ordering; off by
	// default), and the driver's answers to the firmware's page requests
	// and the order of the pages it gives (issue 37 part 1).
	Host HostConfig `toml:"host" json:"host"`
}

// HCACap is the device's capabilities that the commands check (seed
// 2.2.1: ma_translation_mode ATS needs HCA_CAP.ats).
type HCACap struct {
	ATS bool `toml:"ats" json:"ats" range:"false or true" help:"the device does PCIe Address Translation Services (HCA_CAP.ats): false makes CREATE_MKEY and UMR refuse (BAD_PARAM) a key whose ma_translation_mode is ATS"`
	// UMRFence is the device's umr_fence (prm.UMRFenceCap by name).
	UMRFence string `toml:"umr_fence" json:"umr_fence" range:"strong, small or none" help:"the fence a UMR needs to be ordered after the WQEs before it (HCA_CAP.umr_fence 0, 1, 2): strong: STRONG_ORDERING; small: INITIATOR_SMALL; none: any. The host posts the Linux driver's modes for it; a later WQE without the small fence may start before a UMR not STRONG_ORDERING completes and see the old mapping (sq.overtaken; docs/host.md)"`
}

// UMRFenceCap is hca_cap.umr_fence as the PRM numbers it (the name is
// checked by Validate).
func (c HCACap) UMRFenceCap() prm.UMRFenceCap {
	f, _ := prm.ParseUMRFenceCap(c.UMRFence)
	return f
}

// DefaultConfig is a 250 MHz core with the units' defaults, every value
// written out: no parameter of a run is left at a zero that means
// The MKC cache's replacement policies (mkc_cache.replacement), for the
// packages above the top, which do not import the units.
const (
	ReplLRU    = mptcache.ReplLRU
	ReplRandom = mptcache.ReplRandom
)

// "default".
func DefaultConfig() Config {
	return Config{
		ClockPS:    4000,
		ROBEntries: 64,
		FIFODepth:  4,
		StageLat:   1,
		CmdLatency: 20,
		MKCCache:   mptcache.DefaultConfig(),
		MTT:        mttwalk.DefaultConfig(),
		KLM:        klmwalk.DefaultConfig(),
		PCIe:       pcie.DefaultConfig(),
		Data:       dma.DefaultConfig(),
		IOMMU:      iommu.DefaultConfig(),
		ATC:        atc.DefaultConfig(),
		SQ:         sq.DefaultConfig(),
		HCACap:     HCACap{UMRFence: "strong"},
		Host:       DefaultHostConfig(),
	}
}

// Validate names the first bad parameter, with its value and what it may
// be: first every parameter against its declared range, then the host
// memory layout (Regions), then the rules that tie parameters together.
func (c *Config) Validate() error {
	if err := CheckRanges(c, ""); err != nil {
		return err
	}
	if err := CheckRegions(c.Regions()); err != nil {
		return err
	}
	if err := c.MKCCache.Validate(); err != nil {
		return err
	}
	if err := c.MTT.Validate(); err != nil {
		return err
	}
	if err := c.KLM.Validate(); err != nil {
		return err
	}
	if err := c.Data.Validate(); err != nil {
		return err
	}
	if err := c.Host.Validate(); err != nil {
		return err
	}
	if err := c.SQ.Validate(); err != nil {
		return err
	}
	if err := c.Host.Validate(); err != nil {
		return err
	}
	if err := c.IOMMU.Validate(); err != nil {
		return err
	}
	if err := c.ATC.Validate(); err != nil {
		return err
	}
	if _, ok := prm.ParseUMRFenceCap(c.HCACap.UMRFence); !ok {
		return fmt.Errorf("hca_cap.umr_fence = %s: want strong, small or none (the capability's 0, 1, 2; 3 is reserved)", strconv.Quote(c.HCACap.UMRFence))
	}
	if c.IOMMU.Enabled && !c.Data.Enabled {
		return errors.New("iommu.enabled = true needs data.enabled = true: the IOMMU translates the TLPs of the data path")
	}
	if c.IOMMU.Enabled && c.IOMMU.TranslateICM && c.MKCCache.ICMBase+MKCTableSize > 1<<pagetable.IOVABits {
		return fmt.Errorf("iommu.translate_icm = true needs the MKC table below 2^48, the IOVAs an I/O page table maps: mkc_cache.icm_base = %#x", c.MKCCache.ICMBase)
	}
	return c.PCIe.Validate()
}

// ---------------------------------------------------------------------------
// Host memory layout.

// MKCTableSize is the size of the MKC table in host memory: a context of
// prm.MKCSize bytes for each of the 2^24 MKey indexes (1 GiB).
const MKCTableSize = prm.MKCSize * (prm.MaxIndex + 1)

// Region is a range of host memory that the model lays out:
// [Start, Start+Size).
type Region struct {
	Name string // what lives there
	// Key is the parameter that places the region ("" for a fixed one).
	Key         string
	Start, Size uint64
}

// Regions lists every region of host memory that the model lays out under
// c. CheckRegions refuses a configuration in which two of them overlap or
// one passes 2^64; a region added to the model is added here.
func (c *Config) Regions() []Region {
	rs := []Region{
		{Name: "MKC table", Key: "mkc_cache.icm_base", Start: c.MKCCache.ICMBase, Size: MKCTableSize},
		// Lists are allocated from handleBase, and none may end past the
		// reach of the 48-bit mtt_handle (translation.md 3.1, 3.2).
		{Name: "translation lists", Start: handleBase, Size: prm.HandleReach - handleBase},
	}
	if c.IOMMU.Enabled {
		rs = append(rs, Region{Name: "I/O page tables", Key: "iommu.enabled", Start: scenario.IOMMUTableBase, Size: scenario.IOMMUTableSize})
	}
	if c.Host.PagePolicy != PolicyEager {
		rs = append(rs, Region{Name: "pages event queue", Key: "host.page_policy", Start: prm.PagesEQ, Size: prm.PageBytes})
	}
	if c.Host.ICMPageOrder == OrderScattered {
		// What an ICM page not backed reads (pages.go).
		rs = append(rs, Region{Name: "zero page", Key: "host.icm_page_order", Start: prm.ZeroPage, Size: prm.PageBytes})
	}
	return rs
}

// ICMRegions are the regions of host memory the HCA reads as ICM: the
// bench maps them one to one in the IOMMU's ICM space
// (iommu.translate_icm).
func (c *Config) ICMRegions() []Region { return c.Regions()[:2] }

// Interval is the region as a hex [lo, hi) interval; hi may be 2^64 or
// more.
func (r Region) Interval() string {
	end := new(big.Int).Add(new(big.Int).SetUint64(r.Start), new(big.Int).SetUint64(r.Size))
	return fmt.Sprintf("[%#x, %#x)", r.Start, end)
}

// passesTop reports whether the region ends past 2^64.
func (r Region) passesTop() bool { return r.Size > 0 && r.Start > ^uint64(0)-(r.Size-1) }

// overlaps reports whether a and b share a byte, computed without wrap.
func overlaps(a, b Region) bool {
	if a.Size == 0 || b.Size == 0 {
		return false
	}
	if a.Start >= b.Start {
		return a.Start-b.Start < b.Size
	}
	return b.Start-a.Start < a.Size
}

// CheckRegions refuses regions that pass 2^64 or overlap one another,
// naming the parameter that placed them and both ranges.
func CheckRegions(rs []Region) error {
	for _, a := range rs {
		if a.passesTop() {
			return fmt.Errorf("%sthe %s %s passes the end of host memory [0x0, 0x10000000000000000)", a.keyPrefix(), a.Name, a.Interval())
		}
	}
	for i, a := range rs {
		for _, b := range rs[i+1:] {
			if overlaps(a, b) {
				p := a.keyPrefix()
				if p == "" {
					p = b.keyPrefix()
				}
				return fmt.Errorf("%sthe %s %s overlaps the %s %s", p, a.Name, a.Interval(), b.Name, b.Interval())
			}
		}
	}
	return nil
}

func (r Region) keyPrefix() string {
	if r.Key == "" {
		return ""
	}
	return fmt.Sprintf("%s = %#x: ", r.Key, r.Start)
}

// ---------------------------------------------------------------------------
// Parameter ranges.

// Range is the set of values a parameter may take, as declared by the
// `range` tag of its field. The forms are
//
//	LO..HI                      an integer from LO to HI
//	real in LO..HI              a real number from LO to HI (a float field;
//	                            bounds may have decimals: 0.5..1.5)
//	power of two in LO..HI      a power of two from LO to HI
//	multiple of N in LO..HI     a multiple of N from LO to HI
//	A or B, A, B or C           one of the values listed (words, numbers,
//	                            false or true)
//	any string                  any string at all (a path), for a string
//
// where a bound is a number (decimal or 0x hex, '_' allowed), 2^N, or
// either with -K or +K after it ("2^24-2"), and may start with '-'. A
// range written with a 0x bound shows values in hex.
type Range struct {
	text   string
	lo, hi *big.Int // nil for a set
	pow2   bool
	step   *big.Int // nil for 1
	set    []string
	hex    bool
	// real: a real range, bounds flo..fhi
	real     bool
	flo, fhi float64
	free     bool // any string
}

// anyString is the range of a free string parameter (a path).
const anyString = "any string"

// ParseRange parses a `range` tag.
func ParseRange(s string) (Range, error) {
	if s == anyString {
		return Range{text: s, free: true}, nil
	}
	r := Range{text: s, hex: strings.Contains(s, "0x")}
	body := s
	switch {
	case strings.HasPrefix(s, "real in "):
		lo, hi, ok := strings.Cut(strings.TrimPrefix(s, "real in "), "..")
		if !ok {
			return Range{}, fmt.Errorf("range %q: want real in LO..HI", s)
		}
		var err1, err2 error
		r.real = true
		r.flo, err1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
		r.fhi, err2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
		if err1 != nil || err2 != nil || math.IsNaN(r.flo) || math.IsNaN(r.fhi) || r.flo > r.fhi {
			return Range{}, fmt.Errorf("range %q: want real in LO..HI with LO <= HI, two numbers", s)
		}
		return r, nil
	case strings.HasPrefix(s, "power of two in "):
		r.pow2, body = true, strings.TrimPrefix(s, "power of two in ")
	case strings.HasPrefix(s, "multiple of "):
		n, rest, ok := strings.Cut(strings.TrimPrefix(s, "multiple of "), " in ")
		if !ok {
			return Range{}, fmt.Errorf("range %q: want multiple of N in LO..HI", s)
		}
		step, err := parseBound(n)
		if err != nil || step.Sign() <= 0 {
			return Range{}, fmt.Errorf("range %q: bad step %q", s, n)
		}
		r.step, body = step, rest
	}
	if lo, hi, ok := strings.Cut(body, ".."); ok {
		var err error
		if r.lo, err = parseBound(lo); err != nil {
			return Range{}, fmt.Errorf("range %q: %v", s, err)
		}
		if r.hi, err = parseBound(hi); err != nil {
			return Range{}, fmt.Errorf("range %q: %v", s, err)
		}
		if r.lo.Cmp(r.hi) > 0 {
			return Range{}, fmt.Errorf("range %q: empty", s)
		}
		return r, nil
	}
	if r.pow2 || r.step != nil {
		return Range{}, fmt.Errorf("range %q: want LO..HI after %q", s, "in")
	}
	for _, v := range strings.Split(strings.ReplaceAll(s, " or ", ", "), ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Range{}, fmt.Errorf("range %q: empty value", s)
		}
		r.set = append(r.set, v)
	}
	if len(r.set) < 2 {
		return Range{}, fmt.Errorf("range %q: want LO..HI or a list of at least two values", s)
	}
	return r, nil
}

// parseBound parses a bound: [-]ATOM[(+|-)K], ATOM a number or 2^N.
func parseBound(s string) (*big.Int, error) {
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	var off *big.Int
	if i := strings.LastIndexAny(t, "+-"); i > 0 {
		k, ok := new(big.Int).SetString(t[i+1:], 0)
		if !ok {
			return nil, fmt.Errorf("bad bound %q", s)
		}
		if t[i] == '-' {
			k.Neg(k)
		}
		off, t = k, t[:i]
	}
	var v *big.Int
	if e, ok := strings.CutPrefix(t, "2^"); ok {
		n, err := strconv.ParseUint(e, 10, 8)
		if err != nil {
			return nil, fmt.Errorf("bad bound %q", s)
		}
		v = new(big.Int).Lsh(big.NewInt(1), uint(n))
	} else if x, ok := new(big.Int).SetString(t, 0); ok {
		v = x
	} else {
		return nil, fmt.Errorf("bad bound %q", s)
	}
	if neg {
		v.Neg(v)
	}
	if off != nil {
		v.Add(v, off)
	}
	return v, nil
}

// String is the range as declared.
func (r Range) String() string { return r.text }

// Bounds returns the least and greatest values of an integer range (ok
// false for a list of values).
func (r Range) Bounds() (lo, hi *big.Int, ok bool) {
	if r.lo == nil {
		return nil, nil, false
	}
	return new(big.Int).Set(r.lo), new(big.Int).Set(r.hi), true
}

// Values returns the values of a list ("lru or random"), nil for an
// integer range or any string.
func (r Range) Values() []string { return append([]string(nil), r.set...) }

// ContainsInt reports whether the integer v is in the range.
func (r Range) ContainsInt(v *big.Int) bool {
	if r.lo == nil {
		for _, s := range r.set {
			if x, ok := new(big.Int).SetString(s, 0); ok && x.Cmp(v) == 0 {
				return true
			}
		}
		return false
	}
	if v.Cmp(r.lo) < 0 || v.Cmp(r.hi) > 0 {
		return false
	}
	if r.pow2 && (v.Sign() <= 0 || new(big.Int).And(v, new(big.Int).Sub(v, big.NewInt(1))).Sign() != 0) {
		return false
	}
	if r.step != nil && new(big.Int).Mod(v, r.step).Sign() != 0 {
		return false
	}
	return true
}

// Contains reports whether the value v (an integer, string or bool) is in
// the range.
func (r Range) Contains(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		x := v.Float()
		return r.real && x >= r.flo && x <= r.fhi // false for NaN
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return r.ContainsInt(IntOf(v))
	case reflect.String, reflect.Bool:
		if r.free {
			return v.Kind() == reflect.String
		}
		s := fmt.Sprint(v.Interface())
		for _, x := range r.set {
			if x == s {
				return true
			}
		}
	}
	return false
}

// FitsKind reports whether every value of the range can be held by a field
// of kind k (with the bits of its type), so that the range, not the type,
// is what bounds the field.
func (r Range) FitsKind(t reflect.Type) bool {
	if r.free {
		return t.Kind() == reflect.String
	}
	switch k := t.Kind(); k {
	case reflect.Float32, reflect.Float64:
		return r.real
	case reflect.Bool:
		return r.lo == nil && !r.real && len(r.set) == 2 && ((r.set[0] == "false" && r.set[1] == "true") || (r.set[0] == "true" && r.set[1] == "false"))
	case reflect.String:
		return r.lo == nil && !r.real
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if r.real {
			return false
		}
		lo, hi := typeBounds(t)
		if r.lo == nil {
			for _, s := range r.set {
				x, ok := new(big.Int).SetString(s, 0)
				if !ok || x.Cmp(lo) < 0 || x.Cmp(hi) > 0 {
					return false
				}
			}
			return true
		}
		return r.lo.Cmp(lo) >= 0 && r.hi.Cmp(hi) <= 0
	}
	return false
}

// typeBounds is the least and greatest value of an integer type.
func typeBounds(t reflect.Type) (lo, hi *big.Int) {
	bits := uint(t.Bits())
	one := big.NewInt(1)
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64 {
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
	}
	hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
	return new(big.Int).Neg(new(big.Int).Add(hi, one)), hi
}

// IntOf is the integer value of v, of any integer kind.
func IntOf(v reflect.Value) *big.Int {
	if v.Kind() >= reflect.Uint && v.Kind() <= reflect.Uint64 {
		return new(big.Int).SetUint64(v.Uint())
	}
	return big.NewInt(v.Int())
}

// FormatInt shows an integer as the range's errors do: hex when the range
// is written in hex.
func (r Range) FormatInt(v *big.Int) string {
	if r.hex {
		if v.Sign() < 0 {
			return fmt.Sprintf("-%#x", new(big.Int).Neg(v))
		}
		return fmt.Sprintf("%#x", v)
	}
	return v.String()
}

// Format shows the value v as errors quote it.
func (r Range) Format(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return r.FormatInt(IntOf(v))
	case reflect.String:
		return Quote(v.String())
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

// QuoteMax is the most characters of a value an error quotes.
const QuoteMax = 64

// Quote quotes s for an error: at most its first QuoteMax characters, then
// an ellipsis after the closing quote when there were more.
func Quote(s string) string {
	if utf8.RuneCountInString(s) <= QuoteMax {
		return strconv.Quote(s)
	}
	n, i := 0, 0
	for i = range s {
		if n == QuoteMax {
			break
		}
		n++
	}
	return strconv.Quote(s[:i]) + "…"
}

// RangeOf is the declared range of a struct field, or an error when its
// tag is missing or bad or does not fit the field's type.
func RangeOf(f reflect.StructField) (Range, error) {
	tag, ok := f.Tag.Lookup("range")
	if !ok {
		return Range{}, fmt.Errorf("no range declared")
	}
	r, err := ParseRange(tag)
	if err != nil {
		return Range{}, err
	}
	if !r.FitsKind(f.Type) {
		return Range{}, fmt.Errorf("range %q does not fit a %s", tag, f.Type)
	}
	return r, nil
}

// CheckRanges checks every leaf parameter of the struct v points to (the
// fields with a `toml` key, nested structs walked) against its declared
// range, naming the first one out of range by prefix and its dotted key:
// "pcie.tags = 0: want 1..768". A leaf without a valid range is an error.
//
// A field may say why its range is what it is in a `why` tag (a resource
// the model needs at least one of to make progress): the error then says
// it too.
func CheckRanges(v any, prefix string) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return errors.New("rtl.CheckRanges: want a pointer to a struct")
	}
	return checkRanges(rv.Elem(), prefix)
}

func checkRanges(v reflect.Value, prefix string) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if key == "" || key == "-" || !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct {
			sub := prefix + key + "."
			if opts == "flat" { // its parameters sit at its parent's level
				sub = prefix
			}
			if err := checkRanges(fv, sub); err != nil {
				return err
			}
			continue
		}
		r, err := RangeOf(f)
		if err != nil {
			return fmt.Errorf("%s%s: %v", prefix, key, err)
		}
		if !r.Contains(fv) {
			if why := f.Tag.Get("why"); why != "" {
				return fmt.Errorf("%s%s = %s: want %s: %s", prefix, key, r.Format(fv), r, why)
			}
			return fmt.Errorf("%s%s = %s: want %s", prefix, key, r.Format(fv), r)
		}
	}
	return nil
}

// ATSActive reports whether the device translates through ATS: it has the
// capability (hca_cap.ats), moves data (data.enabled) and the host has
// the IOMMU whose translation agent answers it (iommu.enabled). Only then
// is the ATC a unit of the top; otherwise an ATS key's TLPs go
// untranslated (AT 00b), as a Function whose ATS Enable bit system
// software left clear must send them.
func (c *Config) ATSActive() bool { return c.HCACap.ATS && c.Data.Enabled && c.IOMMU.Enabled }
