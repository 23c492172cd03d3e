package wave

import (
	"bytes"
	"strconv"
	"testing"

	"mkeysim/prm"
	"mkeysim/rtl"
	"mkeysim/scenario"
	"mkeysim/tb"
	"mkeysim/vcd"
)

// TestInvalidateInFlightWaveform: the same run traced; the waveform shows
// the ordering (translation.md 3.2): the in-flight access passes the
// checker before the MKC cache drops the key, completes after that, and
// the access issued after the invalidation's completion fails in the
// checker with MKEY_FREE.
func TestInvalidateInFlightWaveform(t *testing.T) {
	cfg := rtl.DefaultConfig()
	cfg.OverlapInvalidate = true
	b, err := tb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	key := prm.MakeKey(5, 0x33)
	mkc := prm.MKC{AccessMode: prm.ModeMTT, QPN: prm.QPNNone, Variant: 0x33, PD: 1, LR: true,
		StartAddr: 0x10000, Len: 64 << 12, LogEntitySize: 12, TranslationsOctwordSize: 32}
	sc := &scenario.Scenario{QPs: []scenario.QP{{QPN: 1, PD: 1}},
		MKeys: []scenario.MKey{{Index: 5, HasIndex: true, MKC: mkc, MTT: make([]prm.MTTEntry, 64)}}}
	if err := b.Load(sc); err != nil {
		t.Fatal(err)
	}
	acc := func(page int) scenario.Op {
		return scenario.Op{Kind: scenario.OpAccess, Access: scenario.Access{QPN: 1, Key: key,
			Addr: 0x10000 + uint64(page)<<12, Len: 64, Type: prm.LocalRead}}
	}
	ops := []scenario.Op{acc(0), {Kind: scenario.OpQueryMKey, Index: 5}, acc(40),
		{Kind: scenario.OpLocalInvalidate, QPN: 1, Key: key}, acc(2)}
	var buf bytes.Buffer
	tr, err := New(b, &buf, vcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(ops, nil); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := vcd.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// times at which a 1-bit signal is high
	highs := func(path string) []uint64 {
		var out []uint64
		for _, c := range f.Changes(path) {
			if c.Value == "1" {
				out = append(out, c.Time)
			}
		}
		if len(out) == 0 {
			t.Fatalf("%s never goes high (signals: %d)", path, len(f.Vars))
		}
		return out
	}
	val := func(path string, at uint64) uint64 {
		s, ok := f.ValueAt(path, at)
		if !ok {
			t.Fatalf("no %s at %d", path, at)
		}
		n, _ := strconv.ParseUint(s, 2, 64)
		return n
	}
	key32, status5 := "top.protcheck.fired_key", "top.protcheck.fired_status"
	var passes, fails []uint64
	for _, at := range highs("top.protcheck.fired") {
		if val(key32, at) != uint64(key) {
			continue
		}
		switch prm.Status(val(status5, at)) {
		case prm.OK:
			passes = append(passes, at)
		case prm.MKeyFree:
			fails = append(fails, at)
		}
	}
	inval := highs("top.mptcache.inval")
	var out2 uint64
	for _, at := range highs("top.core.out_ready") {
		if val("top.core.out_seq", at) == 2 {
			out2 = at
		}
	}
	if len(passes) < 2 || len(fails) != 1 || len(inval) != 1 || out2 == 0 {
		t.Fatalf("waveform: %d passes, %d MKEY_FREE failures, %d MKC invalidations, seq 2 out at %d", len(passes), len(fails), len(inval), out2)
	}
	inflightPass := passes[len(passes)-1]
	if !(inflightPass < inval[0] && inval[0] < out2 && inval[0] < fails[0]) {
		t.Fatalf("waveform order: in-flight pass at %d, invalidation at %d, its completion at %d, the later failure at %d",
			inflightPass, inval[0], out2, fails[0])
	}
}
