package vectors

import (
	"fmt"
	"strings"
)

// The oracles of the units, exported for the live model (package live):
// a co-simulation asks them what a DUT must answer for its own stimulus,
// and gets exactly what the vector files would say.

// ErrUnobservable is what Expect returns for a klmwalk stimulus whose
// lower piece passes 2^64: the golden model refuses it one level down
// before any lower address exists, so the unit's outputs are not defined.
var ErrUnobservable = errUnobservable

// Expect fills in v's expected status from its inputs (ref.Check).
func (v *ProtcheckVector) Expect() { v.oracle() }

// Expect fills in v's expected outputs from its inputs through ref's MTT
// walk. The inputs must be a reachable step: log_entity_size 12..31,
// Len >= 1, T < Len, V+Len <= 2^64 and (V-S) mod 2^64 + T < 2^64.
func (v *MTTWalkVector) Expect() error {
	switch {
	case v.LogEntitySize < 12 || v.LogEntitySize > 31:
		return fmt.Errorf("log_entity_size %d outside 12..31", v.LogEntitySize)
	case v.Len == 0:
		return fmt.Errorf("len 0: a piece has at least one byte")
	case v.T >= v.Len:
		return fmt.Errorf("t %d not below len %d", v.T, v.Len)
	case v.VA+uint64(v.Len) < v.VA && v.VA+uint64(v.Len) != 0:
		return fmt.Errorf("va %#x + len %d passes 2^64", v.VA, v.Len)
	case !v.reachable():
		return fmt.Errorf("step t %d unreachable: (va - start_addr) mod 2^64 + t passes 2^64", v.T)
	}
	return v.oracle()
}

// Expect fills in v's expected outputs from its inputs through ref's KLM
// or Fixed Buffer Size walk; ErrUnobservable when they are not defined.
// TranslationsOctwordSize must be 0 or KLMEntries, Len >= 1, and for
// Fixed Buffer Size log_entity_size 12..31.
func (v *KLMWalkVector) Expect() error {
	switch {
	case v.TranslationsOctwordSize != 0 && v.TranslationsOctwordSize != KLMEntries:
		return fmt.Errorf("translations_octword_size %d: the unit sees 0 or %d entries", v.TranslationsOctwordSize, KLMEntries)
	case v.Len == 0:
		return fmt.Errorf("len 0: a piece has at least one byte")
	case v.FBS && (v.LogEntitySize < 12 || v.LogEntitySize > 31):
		return fmt.Errorf("log_entity_size %d outside 12..31", v.LogEntitySize)
	}
	return v.oracle()
}

// Cache is the MKC cache's tag array as the mptcache vectors model it:
// the oracle of a live co-simulation of an mptcache DUT.
type Cache struct{ a *cacheArray }

// NewCache returns an empty array of sets x ways lines; random chooses
// victims by xorshift64 from prngInit (the manifest's PRNG_INIT, not the
// seed), else by LRU. Sets must be a power of two, ways 1..256, prngInit
// non-zero when random.
func NewCache(sets, ways int, random bool, prngInit uint64) (*Cache, error) {
	switch {
	case sets < 1 || sets > 1<<20 || sets&(sets-1) != 0:
		return nil, fmt.Errorf("sets %d is not a power of two in 1..%d", sets, 1<<20)
	case ways < 1 || ways > 256:
		return nil, fmt.Errorf("ways %d outside 1..256", ways)
	case random && prngInit == 0:
		return nil, fmt.Errorf("prng_init 0: xorshift64 never leaves 0")
	}
	a := newCacheArray(sets, ways, random, 0)
	a.prng = prngInit
	return &Cache{a: a}, nil
}

// Apply runs v's operation (v.Op, v.Index) and fills in its outputs.
func (c *Cache) Apply(v *MPTCacheVector) error {
	if v.Op > OpInvalAll {
		return fmt.Errorf("op %d outside 0..3", v.Op)
	}
	if v.Index >= 1<<24 {
		return fmt.Errorf("index %#x wider than 24 bits", v.Index)
	}
	c.a.apply(v)
	return nil
}

// FormatsPackageSV is a SystemVerilog package, mkeysim_formats, of the
// bit positions of every field of the MKC image, the MTT entry and the KLM
// entry in wire order (the localparams the vectors' packages carry), for
// a testbench that builds images to give the live model.
func FormatsPackageSV() string {
	var b strings.Builder
	b.WriteString("`timescale 1ns/1ps\n")
	b.WriteString("// mkeysim_formats: the bit positions of the PRM images' fields, in wire\n")
	b.WriteString("// order (byte 0 in the top byte), as the golden vectors' packages give\n")
	b.WriteString("// them. Generated from the model's format tables: do not edit\n")
	b.WriteString("// (go test ./live -run TestFormatsPackage -args -update rewrites it).\n")
	b.WriteString("package mkeysim_formats;\n")
	writeFormats(&b, []Format{mkcFormat(), mttFormat(), klmFormat()})
	b.WriteString("endpackage\n")
	return b.String()
}
