package ref_test

import (
	"runtime"
	"testing"
	"time"

	"mkeysim/prm"
	"mkeysim/ref"
)

// TestMemoryMillionKeys: a million MTT keys (4 KB pages, one entry each,
// created with an explicit index) fit well under 1 GB of heap.
func TestMemoryMillionKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("a million keys: skipped in -short")
	}
	const n = 1_000_000
	const limit = 600 << 20
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	t0 := time.Now()

	m := newModel(ref.DefaultConfig())
	k := mttKey(0, 0, 0, 4096, 12, 0)
	for i := uint32(0); i < n; i++ {
		k.Index = i
		k.MKC.Variant = uint8(i)
		k.MKC.StartAddr = uint64(i) << 12
		k.MTT[0].PTag = 1<<40 | uint64(i)<<12
		if _, r := m.Create(k); r != nil {
			t.Fatalf("create %d: %v %s", i, r.Status, r.Reason)
		}
	}
	build := time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	delta := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d keys in %v: heap +%.1f MB (%.0f B/key), %d ICM pages", n, build.Round(time.Millisecond),
		float64(delta)/(1<<20), float64(delta)/n, m.ICM().Pages())
	if delta > limit {
		t.Errorf("a million MTT keys take %.1f MB of heap, want < %d MB", float64(delta)/(1<<20), limit>>20)
	}
	if m.Objects() != n {
		t.Errorf("%d objects, want %d", m.Objects(), n)
	}
	for _, i := range []uint32{0, 1, n / 2, n - 1} {
		key := prm.MakeKey(i, uint8(i))
		got := m.Translate(rd(key, uint64(i)<<12|0x10, 0x20), nil)
		if !sameOutcome(got, okOut(dma(1<<40|uint64(i)<<12|0x10, 0x20))) {
			t.Errorf("key %v: %s", key, showOutcome(got))
		}
	}
	runtime.KeepAlive(m)
}
