package sim

import "math/bits"

// This file is the contract by which a unit describes itself: the signals
// its waveform scope shows and the fields of the payloads its channels
// carry. Tracers, the statistics (Counted) and the coverage report are
// derived from what units declare here, so adding a register to a unit's
// declaration adds it to the waveform with no change outside the unit.

// Format is how a waveform viewer shows a number.
type Format uint8

// The formats.
const (
	Dec Format = iota
	Hex
	Bin
)

// Enum names the values of a signal or a field: a translate filter in
// GTKWave. Two signals that show the same kind of value share one Enum
// (by Name).
type Enum struct {
	Name  string            // the filter's name: "status", "access_mode"
	Width int               // bits of the values
	Names map[uint64]string // value -> name
}

// Signal is one value a unit shows in its waveform scope.
type Signal struct {
	Name   string // local name in the unit's scope: "state", "ctx0_tag"
	Width  int    // bits
	Format Format // ignored when Enum is set
	Enum   *Enum  // value names, nil for a number
}

// Description is what a unit shows in its waveform: its signals, and one
// function that samples all of them into vs (len(vs) == len(Signals)),
// called between evaluation and commit, in cycles the unit ran and the
// cycle after (when its strobes fall and the registers it latched show).
// A signal's value must not change in any other cycle; strobes read low
// when the unit did not run in the current cycle (Base.Ran).
type Description struct {
	Scope string // the unit's scope under the top: "mptcache"
	// Title says what the unit is, in a few words: the waveform's
	// save file heads the unit's group with it ("top.mptcache: MKC
	// cache").
	Title   string
	Signals []Signal
	Sample  func(vs []uint64)
}

// Described is a component that describes its waveform. A Description
// without Signals shows nothing: the unit has no scope of its own in
// that run.
type Described interface {
	Describe() Description
}

// Field is one field of a channel's payload, for waveforms.
type Field struct {
	Name   string
	Width  int
	Format Format
	Enum   *Enum
}

// Fielded is a payload type whose fields a waveform shows: Fields lists
// them (the same for every value of the type), FieldValues writes one
// payload's values into vs in that order.
type Fielded interface {
	Fields() []Field
	FieldValues(vs []uint64)
}

// Fields lists the fields of the channel's payload type, nil when it
// shows none (it does not implement Fielded).
func (c *Chan[T]) Fields() []Field {
	var zero T
	if f, ok := any(&zero).(Fielded); ok {
		return f.Fields()
	}
	return nil
}

// HeadValues writes the fields of the payload at the head into vs and
// reports whether the channel holds one and its type shows fields.
func (c *Chan[T]) HeadValues(vs []uint64) bool {
	if c.n == 0 {
		return false
	}
	f, ok := any(&c.buf[c.head]).(Fielded)
	if !ok {
		return false
	}
	f.FieldValues(vs)
	return true
}

// HeadAt is in trace.go; Fields and HeadValues make every channel a
// TracedPort.

// TracedPort is what a tracer needs of a channel beyond Port: its
// payload's fields and when its head shows.
type TracedPort interface {
	Port
	Fields() []Field
	HeadValues(vs []uint64) bool
	HeadAt() (uint64, bool)
	State() ChanState
}

// Index returns c's number in the engine (the order added), -1 if it was
// not added.
func (e *Engine) Index(c Component) int {
	for i, x := range e.comps {
		if x == c {
			return i
		}
	}
	return -1
}

// RanNow returns the components evaluated in the current cycle as a bit
// set (component i, in Index's numbering, is bit i%64 of word i/64), for
// a hook that looks only at the units that ran (a unit asks Base.Ran of
// itself). It holds until the cycle ends; the caller must not change it.
func (e *Engine) RanNow() []uint64 {
	if e.stepped {
		return e.ranAll.w
	}
	return e.due.w
}

// WidthFor is the width of a counter that reaches n.
func WidthFor(n int) int { return max(1, bits.Len(uint(n))) }

// Bit is a 1-bit signal.
func Bit(name string) Signal { return Signal{Name: name, Width: 1, Format: Bin} }

// B is b as 0 or 1.
func B(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
