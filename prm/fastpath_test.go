package prm

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// The hand-written fast paths of the MTT and KLM entries (Put,
// DecodeMTTEntry, MTTWord, DecodeKLMEntry) held to their tables, bit for
// bit, as TestMKCImageMatchesTable holds the MKC's.

// checkMTTFast compares the fast paths with MTTEntryLayout on img and on
// e (whose PTag may have bits 7:0 set, which both must drop).
func checkMTTFast(t *testing.T, img []byte, e MTTEntry) {
	t.Helper()
	var want MTTEntry
	MTTEntryLayout.Decode(&want, img)
	if got := DecodeMTTEntry(img); got != want {
		t.Fatalf("% x: DecodeMTTEntry %+v, table %+v", img, got, want)
	}
	w := MTTWord(img)
	if w&^0xff != want.PTag || w&MTTWrEn != 0 != want.WrEn || w&MTTRdEn != 0 != want.RdEn {
		t.Fatalf("% x: MTTWord %#x, table %+v", img, w, want)
	}
	var gb, wb [MTTEntrySize]byte
	e.Put(gb[:])
	MTTEntryLayout.Put(wb[:], &e)
	if gb != wb {
		t.Fatalf("%+v: Put % x, table % x", e, gb, wb)
	}
}

// checkKLMFast compares the fast paths with KLMEntryLayout.
func checkKLMFast(t *testing.T, img []byte, e KLMEntry) {
	t.Helper()
	var want KLMEntry
	KLMEntryLayout.Decode(&want, img)
	if got := DecodeKLMEntry(img); got != want {
		t.Fatalf("% x: DecodeKLMEntry %+v, table %+v", img, got, want)
	}
	var gb, wb [KLMEntrySize]byte
	e.Put(gb[:])
	KLMEntryLayout.Put(wb[:], &e)
	if gb != wb {
		t.Fatalf("%+v: Put % x, table % x", e, gb, wb)
	}
}

func TestMTTFastPaths(t *testing.T) {
	r := rand.New(rand.NewSource(20261207))
	for i := range MTTEntrySize * 8 { // every single bit alone
		var img [MTTEntrySize]byte
		img[i/8] = 0x80 >> (i % 8)
		checkMTTFast(t, img[:], MTTEntry{PTag: binary.BigEndian.Uint64(img[:])})
	}
	for range 10000 {
		var img [MTTEntrySize]byte
		r.Read(img[:])
		checkMTTFast(t, img[:], MTTEntry{PTag: r.Uint64(), WrEn: r.Intn(2) == 1, RdEn: r.Intn(2) == 1})
	}
}

func TestKLMFastPaths(t *testing.T) {
	r := rand.New(rand.NewSource(20261207))
	for range 10000 {
		var img [KLMEntrySize]byte
		r.Read(img[:])
		checkKLMFast(t, img[:], KLMEntry{ByteCount: r.Uint32(), MKey: Key(r.Uint32()), Address: r.Uint64()})
	}
}

func FuzzMTTFastPaths(f *testing.F) {
	f.Add(make([]byte, MTTEntrySize), uint64(0), uint8(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ^uint64(0), uint8(3))
	f.Fuzz(func(t *testing.T, img []byte, ptag uint64, bits uint8) {
		if len(img) != MTTEntrySize {
			return
		}
		checkMTTFast(t, img, MTTEntry{PTag: ptag, WrEn: bits&2 != 0, RdEn: bits&1 != 0})
	})
}

func FuzzKLMFastPaths(f *testing.F) {
	f.Add(make([]byte, KLMEntrySize), uint32(0), uint32(0), uint64(0))
	f.Fuzz(func(t *testing.T, img []byte, n, key uint32, addr uint64) {
		if len(img) != KLMEntrySize {
			return
		}
		checkKLMFast(t, img, KLMEntry{ByteCount: n, MKey: Key(key), Address: addr})
	})
}
