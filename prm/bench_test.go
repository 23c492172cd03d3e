package prm_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"mkeysim/prm"
)

// The formats' pack and parse costs, the hot ones (the walks' entry
// decodes, the MKC cache's fill) first: a change to how prm lays out a
// format is measured here before and after.

var (
	benchMTT = unhexBench("01234567 89abcd03")
	benchKLM = unhexBench("00001000 00012301 00007f00 00001800")
	benchCQE = unhexBench("00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 " +
		"00000000 00012a07 00000000 00000100 00000000 00000000 00000042 00030042")
	benchCtrl = unhexBench("00001225 00004209 80000008 00012a07")
	sinkMTT   prm.MTTEntry
	sinkKLM   prm.KLMEntry
	sinkWord  uint64
)

// unhexBench decodes a hand-written image (dwords with spaces between).
func unhexBench(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

func BenchmarkDecodeMTTEntry(b *testing.B) {
	for b.Loop() {
		sinkMTT = prm.DecodeMTTEntry(benchMTT)
	}
}

func BenchmarkMTTWord(b *testing.B) {
	for b.Loop() {
		sinkWord = prm.MTTWord(benchMTT)
	}
}

func BenchmarkParseMTTEntry(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkMTT, _ = prm.ParseMTTEntry(benchMTT)
	}
}

func BenchmarkMTTEntryPut(b *testing.B) {
	e := prm.DecodeMTTEntry(benchMTT)
	var img [prm.MTTEntrySize]byte
	for b.Loop() {
		e.Put(img[:])
	}
}

func BenchmarkDecodeKLMEntry(b *testing.B) {
	for b.Loop() {
		sinkKLM = prm.DecodeKLMEntry(benchKLM)
	}
}

func BenchmarkParseKLMEntry(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkKLM, _ = prm.ParseKLMEntry(benchKLM)
	}
}

func BenchmarkKLMEntryPut(b *testing.B) {
	e := prm.DecodeKLMEntry(benchKLM)
	var img [prm.KLMEntrySize]byte
	for b.Loop() {
		e.Put(img[:])
	}
}

func BenchmarkDecodeMKCInto(b *testing.B) {
	img := unhex(b, specExampleHex, prm.MKCSize)
	var m prm.MKC
	for b.Loop() {
		prm.DecodeMKCInto(&m, img)
	}
}

func BenchmarkParseCQE(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := prm.ParseCQE(benchCQE); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCQEPut(b *testing.B) {
	c, _ := prm.ParseCQE(benchCQE)
	var img [prm.CQESize]byte
	for b.Loop() {
		c.Put(img[:])
	}
}

func BenchmarkParseCtrlSeg(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := prm.ParseCtrlSeg(benchCtrl); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCtrlSegPut(b *testing.B) {
	c, _ := prm.ParseCtrlSeg(benchCtrl)
	var img [prm.CtrlSegSize]byte
	for b.Loop() {
		c.Put(img[:])
	}
}
