package prm

import "fmt"

// AccessMode is the 5-bit translation mode of an MKC:
// (access_mode_4_2 << 2) | access_mode_1_0.
type AccessMode uint8

// The access modes the model implements; every other value is reserved and
// an error at use (BAD_ACCESS_MODE).
const (
	ModePA              AccessMode = 0x0
	ModeMTT             AccessMode = 0x1
	ModeKLM             AccessMode = 0x2
	ModeFixedBufferSize AccessMode = 0x3
	ModeSWICM           AccessMode = 0x4
	ModeMEMIC           AccessMode = 0x5
)

var modeNames = [...]string{"PA", "MTT", "KLM", "FIXED_BUFFER_SIZE", "SW_ICM", "MEMIC"}

// Valid reports whether the mode is one the model translates.
func (m AccessMode) Valid() bool { return int(m) < len(modeNames) }

// String is the scenario name of the mode, or the number for a reserved mode.
func (m AccessMode) String() string {
	if m.Valid() {
		return modeNames[m]
	}
	return fmt.Sprintf("%#x", uint8(m))
}

// ParseAccessMode maps a scenario name (PA, MTT, KLM, FIXED_BUFFER_SIZE,
// SW_ICM, MEMIC) to its mode.
func ParseAccessMode(name string) (AccessMode, bool) {
	for i, n := range modeNames {
		if n == name {
			return AccessMode(i), true
		}
	}
	return 0, false
}

// ModeNames lists the names of the implemented modes, by value.
func ModeNames() []string { return append([]string(nil), modeNames[:]...) }

// UsesMTTList reports whether the mode reads its list as 8-byte MTT entries.
func (m AccessMode) UsesMTTList() bool { return m == ModeMTT }

// UsesKLMList reports whether the mode reads its list as 16-byte KLM entries.
func (m AccessMode) UsesKLMList() bool { return m == ModeKLM || m == ModeFixedBufferSize }
