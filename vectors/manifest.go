package vectors

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"mkeysim/prm"
)

// FormatVersion names the layout rules of this package: bump it when a
// manifest field, a framing rule or a harness convention changes.
const FormatVersion = "mkeysim-vectors/1"

// Manifest describes one unit's vector file: every field's place in a
// line, the DUT the harness drives, and where the vectors came from. It is
// written as DIR/UNIT.manifest.json; the SystemVerilog package and the
// harness are generated from it alone.
type Manifest struct {
	Format       string `json:"format"`
	Unit         string `json:"unit"`
	Description  string `json:"description"`
	ModelVersion string `json:"model_version"`
	// Seed is --seed, written as a hex string (Hex64).
	Seed Hex64 `json:"seed"`
	// Command is the command line that makes these files, without --out.
	Command string `json:"command"`
	// Count is the number of vectors (lines) in File.
	Count int `json:"count"`
	// Directed of them come first, from the example scenarios or directed
	// sequences; the rest are constrained random.
	Directed        int      `json:"directed"`
	DirectedSources []string `json:"directed_sources"`
	File            string   `json:"file"`
	LineWidth       int      `json:"line_width"`
	HexDigits       int      `json:"hex_digits"`
	Marker          string   `json:"marker"`
	Parameters      []Param  `json:"parameters"`
	DUT             DUT      `json:"dut"`
	Fields          []Field  `json:"fields"`
	Tables          []Table  `json:"tables,omitempty"`
	Enums           []Enum   `json:"enums"`
	Formats         []Format `json:"formats,omitempty"`
	// Coverage counts the vectors at each coverage point, every point of
	// CoveragePoints (zero included).
	Coverage map[string]int `json:"coverage"`
	// CoveragePoints names and defines the unit's coverage points.
	CoveragePoints []CoveragePoint `json:"coverage_points"`
	Files          []string        `json:"files"`
}

// Param is a parameter of the unit fixed for this vector set.
type Param struct {
	Name string `json:"name"`
	// Value is written as a hex string (Hex64): PRNG_INIT and REPL_SEED
	// may exceed 2^53, which float64 JSON readers cannot hold.
	Value   Hex64  `json:"value"`
	Meaning string `json:"meaning"`
	// DUT parameters are passed to the DUT instance by the harness
	// (#(.NAME(NAME))), as a 64-bit value.
	DUT bool `json:"dut_parameter,omitempty"`
}

// Hex64 is a 64-bit value that JSON carries as a string, "0x" and
// lower-case hex digits without leading zeros ("0x10"): jq and JavaScript
// read JSON numbers as float64 and round those above 2^53
// (10451216379200822465 becomes 10451216379200823000), a string they keep
// exactly. Reading, it also takes a JSON number, exactly.
type Hex64 uint64

// MarshalJSON writes the value as "0x...".
func (h Hex64) MarshalJSON() ([]byte, error) {
	return []byte(`"0x` + strconv.FormatUint(uint64(h), 16) + `"`), nil
}

// UnmarshalJSON reads "0x..." or a JSON number, refusing anything that is
// not a 64-bit unsigned value.
func (h *Hex64) UnmarshalJSON(b []byte) error {
	s := string(b)
	if t, err := strconv.Unquote(s); err == nil {
		digits, ok := strings.CutPrefix(t, "0x")
		if !ok || digits == "" {
			return fmt.Errorf("64-bit value %s: want a string \"0x\" and hex digits", s)
		}
		v, err := strconv.ParseUint(digits, 16, 64)
		if err != nil {
			return fmt.Errorf("64-bit value %s: %v", s, err)
		}
		*h = Hex64(v)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("64-bit value %s: want \"0x...\" or a number", s)
	}
	v, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		return fmt.Errorf("64-bit value %s: %v", s, err)
	}
	*h = Hex64(v)
	return nil
}

// DUT is the device the harness drives.
type DUT struct {
	Module string `json:"module"`
	// Handshake is "combinational" (inputs applied, outputs compared 1 ns
	// later), "clocked" (one operation a cycle, outputs compared before the
	// edge that commits it) or "valid_ready" (request and response
	// channels, one request in flight).
	Handshake   string `json:"handshake"`
	Description string `json:"description"`
	Ports       []Port `json:"ports"`
}

// Port is one DUT port.
type Port struct {
	Name      string `json:"name"`
	Direction string `json:"direction"` // input or output, seen from the DUT
	Width     int    `json:"width"`
	Meaning   string `json:"meaning"`
}

// Table is a side file of the vectors (top: the MKC table and the memory
// image the harness serves), in the same framing as the vector file.
type Table struct {
	Name      string  `json:"name"`
	File      string  `json:"file"`
	Meaning   string  `json:"meaning"`
	Count     int     `json:"count"`
	LineWidth int     `json:"line_width"`
	HexDigits int     `json:"hex_digits"`
	Fields    []Field `json:"fields"`
}

// Enum lists the values of an encoded field.
type Enum struct {
	Name   string      `json:"name"`
	Width  int         `json:"width"`
	Values []EnumValue `json:"values"`
}

// EnumValue is one named value.
type EnumValue struct {
	Name  string `json:"name"`
	Value int    `json:"value"`
}

// Format gives the bits of a PRM image field: image bit 0 is the last
// byte's least significant bit, so the byte at offset B, bit b of its
// big-endian dword at offset O lies at 8*size-1 - 8*O - (31-b).
type Format struct {
	Name   string     `json:"name"`
	Width  int        `json:"width"`
	Source string     `json:"source"`
	Fields []SubField `json:"fields"`
}

// SubField is a field of a PRM image; Parts run most significant first.
type SubField struct {
	Name  string    `json:"name"`
	Width int       `json:"width"`
	Parts []BitPart `json:"parts"`
	// Spec is the field's name in translation.md where it differs (the
	// MKC's variant is translation.md's mkey[7:0]).
	Spec string `json:"spec,omitempty"`
}

// BitPart is a contiguous run of image bits.
type BitPart struct {
	MSB int `json:"msb"`
	LSB int `json:"lsb"`
}

// imageBit maps bit b of the dword at byte offset off of a size-byte image
// to its bit number in the image taken as one big-endian number.
func imageBit(size, off, b int) int { return 8*size - 8*off - 32 + b }

// formatOf is a prm field table in image bits, its parts contiguous in
// the image merged.
func formatOf(pf prm.Format) Format {
	f := Format{Name: pf.Ident, Width: 8 * pf.Size, Source: pf.Source}
	for _, fb := range pf.Fields {
		sf := SubField{Name: fb.Name, Width: fb.Width, Spec: fb.Spec}
		for _, p := range fb.Parts {
			bp := BitPart{MSB: imageBit(pf.Size, p.Offset, p.Hi), LSB: imageBit(pf.Size, p.Offset, p.Lo)}
			if n := len(sf.Parts); n > 0 && sf.Parts[n-1].LSB == bp.MSB+1 {
				sf.Parts[n-1].LSB = bp.LSB // contiguous in the image: one part
				continue
			}
			sf.Parts = append(sf.Parts, bp)
		}
		f.Fields = append(f.Fields, sf)
	}
	return f
}

// The formats of the images the vectors carry.
func mkcFormat() Format { return formatOf(prm.MKCLayout.Format()) }
func mttFormat() Format { return formatOf(prm.MTTEntryLayout.Format()) }
func klmFormat() Format { return formatOf(prm.KLMEntryLayout.Format()) }

// The enums every manifest carries.
func statusEnum() Enum {
	e := Enum{Name: "status", Width: 8}
	for _, s := range prm.Statuses() {
		e.Values = append(e.Values, EnumValue{Name: s.String(), Value: int(s)})
	}
	return e
}

func accessEnum() Enum {
	e := Enum{Name: "access_type", Width: 3}
	for _, t := range prm.AccessTypes() {
		e.Values = append(e.Values, EnumValue{Name: t.String(), Value: int(t)})
	}
	return e
}

func modeEnum() Enum {
	e := Enum{Name: "access_mode", Width: 5}
	for i, n := range prm.ModeNames() {
		e.Values = append(e.Values, EnumValue{Name: n, Value: i})
	}
	return e
}

func spaceEnum() Enum {
	e := Enum{Name: "space", Width: 2}
	for _, s := range []prm.Space{prm.SpaceDMA, prm.SpaceSWICM, prm.SpaceMEMIC} {
		e.Values = append(e.Values, EnumValue{Name: s.String(), Value: int(s)})
	}
	return e
}

func commonEnums() []Enum {
	return []Enum{statusEnum(), accessEnum(), modeEnum(), spaceEnum()}
}

// ports derives a combinational DUT's ports from the line's input and
// expected fields.
func ports(l *Layout) []Port {
	var ps []Port
	for _, f := range l.Fields {
		switch f.Dir {
		case DirInput:
			ps = append(ps, Port{Name: f.Name, Direction: "input", Width: f.Width, Meaning: f.Meaning})
		case DirExpected:
			ps = append(ps, Port{Name: f.Name, Direction: "output", Width: f.Width, Meaning: f.Meaning})
		}
	}
	return ps
}

// Validate checks the manifest's own consistency: fields inside the line,
// not overlapping, covering it, names unique, ports matching fields.
func (m *Manifest) Validate() error {
	if err := checkFields(m.Fields, m.LineWidth); err != nil {
		return fmt.Errorf("%s: %v", m.Unit, err)
	}
	for _, t := range m.Tables {
		if err := checkFields(t.Fields, t.LineWidth); err != nil {
			return fmt.Errorf("%s table %s: %v", m.Unit, t.Name, err)
		}
	}
	if m.HexDigits*4 != m.LineWidth {
		return fmt.Errorf("%s: line width %d is not %d hex digits", m.Unit, m.LineWidth, m.HexDigits)
	}
	return nil
}

func checkFields(fields []Field, width int) error {
	used := make([]bool, width)
	names := map[string]bool{}
	for _, f := range fields {
		if names[f.Name] {
			return fmt.Errorf("field %s twice", f.Name)
		}
		names[f.Name] = true
		if f.Width < 1 || f.LSB < 0 || f.LSB+f.Width > width {
			return fmt.Errorf("field %s [%d +: %d] outside the %d-bit line", f.Name, f.LSB, f.Width, width)
		}
		for b := f.LSB; b < f.LSB+f.Width; b++ {
			if used[b] {
				return fmt.Errorf("field %s overlaps another at bit %d", f.Name, b)
			}
			used[b] = true
		}
	}
	for b, u := range used {
		if !u {
			return fmt.Errorf("bit %d belongs to no field", b)
		}
	}
	return nil
}
