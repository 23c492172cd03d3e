package linecache

import (
	"encoding/binary"
	"math/bits"
	"math/rand"
	"testing"
)

// fuzzHeader is the bytes FuzzCache reads the geometry from.
const fuzzHeader = 6

// fuzzConfig derives a valid config and entry size from the header:
// h[0] the policy, h[1] the entries per line and entry size, h[2] the
// sets, h[3] the ways (0: fully associative of 1 + h[4]%40 lines), h[5]
// the seed. PLRU rounds the ways down to a power of two.
func fuzzConfig(h []byte) (Config, int) {
	pol := []string{LRU, PLRU, NRU, Random}[h[0]%4]
	epl := 1 << (h[1] % 4)
	eb := 8 << ((h[1] >> 2) % 2)
	sets := 1 << (h[2] % 4)
	ways := int(h[3] % 24)
	lines := sets * ways
	if ways == 0 {
		lines = 1 + int(h[4]%40)
	}
	if pol == PLRU {
		lines = 1 << (bits.Len(uint(lines)) - 1)
		if ways != 0 {
			ways = 1 << (bits.Len(uint(ways)) - 1)
			lines = sets * ways
		}
	}
	return Config{Entries: lines * epl, EntriesPerLine: epl, Ways: ways, Replacement: pol,
		Seed: uint64(h[5]) * 0x9e3779b97f4a7c15}, eb
}

// FuzzCache drives the operations the fuzz bytes choose (lookups, hits of
// a slot's line, fills of any length, invalidations of ranges and all)
// against the reference of the policy the header bytes choose, and the
// LRU lists too for LRU, comparing the cache way by way after each.
func FuzzCache(f *testing.F) {
	f.Add([]byte{0, 3, 0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 2, 2, 0, 0})
	rng := rand.New(rand.NewSource(1))
	for _, h := range [][fuzzHeader]byte{
		{0, 3, 0, 4, 0, 0}, {0, 4, 1, 3, 0, 0}, {0, 1, 0, 0, 23, 0}, {0, 7, 1, 17, 0, 0},
		{1, 2, 2, 4, 0, 0}, {1, 5, 0, 0, 31, 0}, {1, 0, 0, 20, 0, 0},
		{2, 3, 1, 3, 0, 0}, {2, 6, 0, 0, 99, 0}, {2, 1, 2, 1, 0, 0},
		{3, 3, 1, 2, 0, 5}, {3, 4, 0, 0, 4, 77}, {3, 2, 0, 19, 0, 200},
	} {
		ops := make([]byte, 400)
		for i := 0; i < len(ops); i += 8 {
			binary.LittleEndian.PutUint64(ops[i:], rng.Uint64())
		}
		f.Add(append(h[:], ops...))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < fuzzHeader {
			return
		}
		cfg, eb := fuzzConfig(b)
		if err := cfg.Validate("fuzz.", eb); err != nil {
			t.Fatalf("header % x: %+v: %v", b[:fuzzHeader], cfg, err)
		}
		c := New(cfg, eb)
		lb, _, _ := refGeom(cfg, eb)
		seed := int64(binary.LittleEndian.Uint64(append(b[:fuzzHeader:fuzzHeader], 0, 0)))
		pool := makePool(rngSource{rand.New(rand.NewSource(seed))}, lb, cfg.Lines())
		models := []refModel{newRefCache(cfg, eb)}
		if cfg.Replacement == LRU {
			models = append(models, newRefLRU(cfg, eb))
		}
		if err := drive(c, models, &byteSource{b[fuzzHeader:]}, len(b), pool, seed); err != nil {
			t.Fatalf("%+v, %d-byte entries: %v", cfg, eb, err)
		}
	})
}
