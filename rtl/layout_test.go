package rtl

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// TestHostMemoryLayout: an MKC table that overlaps the translation lists
// or passes 2^64 is refused, naming the parameter and both ranges; the
// default, the highest base below the lists, the first above them and
// the highest that still ends by 2^64 are accepted.
func TestHostMemoryLayout(t *testing.T) {
	const lists = "the translation lists [0x100000000, 0x1000000000000)"
	const top = "host memory [0x0, 0x10000000000000000)"
	for _, c := range []struct {
		base uint64
		want []string // nil: accepted
	}{
		{0, nil},
		{0xC000_0000, nil}, // the table ends at 0x1_0000_0000, where the lists start
		{1 << 48, nil},     // right after the lists
		{1<<64 - MKCTableSize, nil},
		{0x1_0000_0000, []string{"mkc_cache.icm_base = 0x100000000: ", "the MKC table [0x100000000, 0x140000000) overlaps " + lists}},
		{0xC000_0040, []string{"mkc_cache.icm_base = 0xc0000040: ", "the MKC table [0xc0000040, 0x100000040) overlaps " + lists}},
		{0xFFFF_0000_0000, []string{"the MKC table [0xffff00000000, 0xffff40000000) overlaps " + lists}},
		{1<<48 - 64, []string{"the MKC table [0xffffffffffc0, 0x100003fffffc0) overlaps " + lists}},
		{0xFFFF_FFFF_F000_0000, []string{"mkc_cache.icm_base = 0xfffffffff0000000: ", "the MKC table [0xfffffffff0000000, 0x10000000030000000) passes the end of " + top}},
		{1<<64 - MKCTableSize + 64, []string{"the MKC table [0xffffffffc0000040, 0x10000000000000040) passes the end of " + top}},
		{1<<64 - 64, []string{"the MKC table [0xffffffffffffffc0, 0x1000000003fffffc0) passes the end of " + top}},
	} {
		cfg := DefaultConfig()
		cfg.MKCCache.ICMBase = c.base
		err := cfg.Validate()
		switch {
		case c.want == nil && err != nil:
			t.Errorf("icm_base %#x: %v", c.base, err)
		case c.want != nil && err == nil:
			t.Errorf("icm_base %#x accepted", c.base)
		case c.want != nil:
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("icm_base %#x: %q does not say %q", c.base, err, w)
				}
			}
		}
	}
}

// TestCheckRegions: every pair of regions is checked, whatever their
// number and order (a region added later is covered), touching regions
// do not overlap, and no region may pass 2^64.
func TestCheckRegions(t *testing.T) {
	a := Region{Name: "A", Key: "a_base", Start: 0x1000, Size: 0x1000}
	b := Region{Name: "B", Start: 0x2000, Size: 0x1000}
	c := Region{Name: "C", Key: "c_base", Start: 0x2fff, Size: 2}
	if err := CheckRegions([]Region{a, b}); err != nil {
		t.Errorf("touching regions: %v", err)
	}
	err := CheckRegions([]Region{a, b, c})
	if err == nil || err.Error() != "c_base = 0x2fff: the B [0x2000, 0x3000) overlaps the C [0x2fff, 0x3001)" {
		t.Errorf("B and C: %v", err)
	}
	if err := CheckRegions([]Region{c, a, {Name: "D", Start: 0, Size: 0x1001}}); err == nil || !strings.Contains(err.Error(), "the A [0x1000, 0x2000) overlaps the D [0x0, 0x1001)") {
		t.Errorf("A and D: %v", err)
	}
	if err := CheckRegions([]Region{{Name: "E", Start: 1<<64 - 16, Size: 16}}); err != nil {
		t.Errorf("a region ending at 2^64: %v", err)
	}
	if err := CheckRegions([]Region{{Name: "E", Start: 1<<64 - 16, Size: 17}}); err == nil || !strings.Contains(err.Error(), "[0xfffffffffffffff0, 0x10000000000000001) passes the end") {
		t.Errorf("a region passing 2^64: %v", err)
	}
	// The model's own regions are the MKC table and the list area.
	d := DefaultConfig()
	var names []string
	for _, r := range d.Regions() {
		names = append(names, r.Name+" "+r.Interval())
	}
	if got := strings.Join(names, ", "); got != "MKC table [0x0, 0x40000000), translation lists [0x100000000, 0x1000000000000)" {
		t.Errorf("regions: %s", got)
	}
	// The pages event queue (on_event, capped) and the zero page
	// (scattered) lie below 4 GiB, where an MKC table may be put: refused.
	d.Host.PagePolicy, d.Host.ICMPageOrder = PolicyOnEvent, OrderScattered
	names = nil
	for _, r := range d.Regions()[2:] {
		names = append(names, r.Name+" "+r.Interval())
	}
	if got := strings.Join(names, ", "); got != "pages event queue [0xffffe000, 0xfffff000), zero page [0xfffff000, 0x100000000)" {
		t.Errorf("regions: %s", got)
	}
	for _, c := range []struct {
		policy, order, want string
	}{
		{PolicyOnEvent, OrderContiguous, "the MKC table [0xc0000000, 0x100000000) overlaps the pages event queue [0xffffe000, 0xfffff000)"},
		{PolicyEager, OrderScattered, "the MKC table [0xc0000000, 0x100000000) overlaps the zero page [0xfffff000, 0x100000000)"},
	} {
		d := DefaultConfig()
		d.MKCCache.ICMBase, d.Host.PagePolicy, d.Host.ICMPageOrder = 0xC000_0000, c.policy, c.order
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, %s, the MKC table at 3 GiB: %v, want %q", c.policy, c.order, err, c.want)
		}
	}
}

// TestParseRange: the forms of a range tag, and bad ones.
func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		tag    string
		in     []int64
		out    []int64
		lo, hi string
	}{
		{"1..768", []int64{1, 768}, []int64{0, 769, -1}, "1", "768"},
		{"power of two in 128..4096", []int64{128, 256, 4096}, []int64{64, 129, 8192}, "128", "4096"},
		{"multiple of 64 in 0..0xffffffffffffffc0", []int64{0, 64, 1 << 40}, []int64{1, -64}, "0", "18446744073709551552"},
		{"0..2^24", []int64{0, 1 << 24}, []int64{1<<24 + 1}, "0", "16777216"},
		{"-2^63..2^63-1", []int64{-1 << 63, 1<<63 - 1}, nil, "-9223372036854775808", "9223372036854775807"},
		{"0..10_000_000", []int64{10_000_000}, []int64{10_000_001}, "0", "10000000"},
		{"64 or 128", []int64{64, 128}, []int64{96, 0}, "", ""},
	} {
		r, err := ParseRange(c.tag)
		if err != nil {
			t.Errorf("%q: %v", c.tag, err)
			continue
		}
		if r.String() != c.tag {
			t.Errorf("%q shows as %q", c.tag, r)
		}
		for _, v := range c.in {
			if !r.ContainsInt(big.NewInt(v)) {
				t.Errorf("%q leaves out %d", c.tag, v)
			}
		}
		for _, v := range c.out {
			if r.ContainsInt(big.NewInt(v)) {
				t.Errorf("%q holds %d", c.tag, v)
			}
		}
		if lo, hi, ok := r.Bounds(); ok && (lo.String() != c.lo || hi.String() != c.hi) {
			t.Errorf("%q: bounds %s..%s", c.tag, lo, hi)
		}
	}
	r, _ := ParseRange("lru or random")
	if !r.Contains(reflect.ValueOf("lru")) || !r.Contains(reflect.ValueOf("random")) || r.Contains(reflect.ValueOf("fifo")) {
		t.Errorf("lru or random: %v", r.Values())
	}
	// Any string: a free string parameter (a path), and only a string.
	r, err := ParseRange("any string")
	if err != nil || r.String() != "any string" || r.Values() != nil {
		t.Errorf("any string: %v, %q, values %v", err, r, r.Values())
	}
	for _, s := range []string{"", "x.csv", "any string", "lru, random"} {
		if !r.Contains(reflect.ValueOf(s)) {
			t.Errorf("any string leaves out %q", s)
		}
	}
	if r.Contains(reflect.ValueOf(true)) || r.Contains(reflect.ValueOf(5)) || r.ContainsInt(big.NewInt(0)) {
		t.Errorf("any string holds a bool or an integer")
	}
	if _, _, ok := r.Bounds(); ok || !r.FitsKind(reflect.TypeOf("")) || r.FitsKind(reflect.TypeOf(0)) || r.FitsKind(reflect.TypeOf(false)) {
		t.Errorf("any string: bounds, or fits a type other than string")
	}
	for _, bad := range []string{"", "1..", "..2", "5..1", "x..2", "power of two in 4", "multiple of 0 in 0..8", "multiple of 8", "lru", "1..2^x", "any"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestCheckRanges: every leaf of the model's configuration declares a
// range that fits its field, and CheckRanges names a value out of range
// by its dotted key, with the value (hex for a hex range, a string quoted
// to 64 characters) and the range.
func TestCheckRanges(t *testing.T) {
	var walk func(t reflect.Type, prefix string)
	n := 0
	walk = func(ty reflect.Type, prefix string) {
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix+f.Tag.Get("toml")+".")
				continue
			}
			n++
			if _, err := RangeOf(f); err != nil {
				t.Errorf("%s%s: %v", prefix, f.Tag.Get("toml"), err)
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	if n < 30 {
		t.Errorf("only %d parameters", n)
	}
	c := DefaultConfig()
	c.PCIe.Tags = 0
	if err := c.Validate(); err == nil || err.Error() != "pcie.tags = 0: want 1..768" {
		t.Errorf("tags 0: %v", err)
	}
	c = DefaultConfig()
	c.MKCCache.ICMBase = 0x1020
	if err := c.Validate(); err == nil || err.Error() != "mkc_cache.icm_base = 0x1020: want multiple of 64 in 0..0xffffffffffffffc0" {
		t.Errorf("icm_base 0x1020: %v", err)
	}
	c = DefaultConfig()
	c.MKCCache.Replacement = strings.Repeat("é", 70)
	if err := c.Validate(); err == nil || err.Error() != `mkc_cache.replacement = "`+strings.Repeat("é", 64)+`"…: want lru or random` {
		t.Errorf("long replacement: %v", err)
	}
	c = DefaultConfig()
	c.ClockPS = 0
	if err := c.Validate(); err == nil || err.Error() != "clock_ps = 0: want 1..1000000" {
		t.Errorf("clock_ps 0: %v", err)
	}
	type bad struct {
		X int `toml:"x"`
	}
	if err := CheckRanges(&bad{}, "p."); err == nil || err.Error() != "p.x: no range declared" {
		t.Errorf("no range: %v", err)
	}
	type wide struct {
		X uint8 `toml:"x" range:"0..256"`
	}
	if err := CheckRanges(&wide{}, ""); err == nil || !strings.Contains(err.Error(), "does not fit a uint8") {
		t.Errorf("too wide a range: %v", err)
	}
}
