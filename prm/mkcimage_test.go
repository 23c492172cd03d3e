package prm

import (
	"math/rand"
	"testing"
)

// The field table's own reading of an image, MKCLayout's Decode and Put:
// the reference decodeMKC and encodeMKC are held to.

// tableDecode sets every field of m from b through MKCLayout.
func tableDecode(m *MKC, b []byte) { MKCLayout.Decode(m, b) }

// tableEncode packs m into b through MKCLayout.
func tableEncode(b []byte, m *MKC) { MKCLayout.Put(b, m) }

// checkImage compares decodeMKC and encodeMKC with the table on img, and
// encodeMKC on m (whose fields may hold more bits than their width).
func checkImage(t *testing.T, img []byte, m MKC) {
	t.Helper()
	var got, want MKC
	decodeMKC(&got, img)
	tableDecode(&want, img)
	if got != want {
		t.Fatalf("image %x:\ndecodeMKC %+v\ntable     %+v", img, got, want)
	}
	var gb, wb [MKCSize]byte
	encodeMKC(gb[:], &m)
	tableEncode(wb[:], &m)
	if gb != wb {
		t.Fatalf("MKC %+v:\nencodeMKC %x\ntable     %x", m, gb, wb)
	}
}

// randomMKC fills every field of an MKC from r, many with bits above the
// field's width, which both encoders must drop.
func randomMKC(r *rand.Rand) MKC {
	var img [MKCSize]byte
	r.Read(img[:])
	var m MKC
	tableDecode(&m, img[:])
	m.QPN |= r.Uint32() << 24
	m.PASID |= r.Uint32() << 24
	m.PD |= r.Uint32() << 24
	m.BSFHandle |= r.Uint64() << 48
	m.MTTHandle |= r.Uint64() << 48
	m.AccessMode |= AccessMode(r.Intn(8) << 5)
	m.MATranslationMode |= uint8(r.Intn(64) << 2)
	m.SF |= uint8(r.Intn(16) << 4)
	m.LogEntitySize |= uint8(r.Intn(8) << 5)
	m.CryptoEn |= uint8(r.Intn(64) << 2)
	return m
}

func TestMKCImageMatchesTable(t *testing.T) {
	const seed = 20261204
	r := rand.New(rand.NewSource(seed))
	defer func() {
		if t.Failed() {
			t.Logf("seed %d", seed)
		}
	}()
	// Every single bit alone, then all ones, then random images.
	for i := range MKCSize * 8 {
		var img [MKCSize]byte
		img[i/8] = 0x80 >> (i % 8)
		checkImage(t, img[:], MKC{})
	}
	var ones [MKCSize]byte
	for i := range ones {
		ones[i] = 0xff
	}
	checkImage(t, ones[:], randomMKC(r))
	for range 10000 {
		var img [MKCSize]byte
		r.Read(img[:])
		checkImage(t, img[:], randomMKC(r))
	}
}

func FuzzMKCImage(f *testing.F) {
	f.Add(make([]byte, MKCSize), make([]byte, MKCSize))
	f.Fuzz(func(t *testing.T, img, fields []byte) {
		if len(img) != MKCSize {
			return
		}
		var seed int64
		for _, c := range fields {
			seed = seed*131 + int64(c)
		}
		checkImage(t, img, randomMKC(rand.New(rand.NewSource(seed))))
	})
}
